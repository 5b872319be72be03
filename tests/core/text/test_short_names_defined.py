"""Short names are the paper's own, defined in its abstract; titles start as a person's do.

The abstracts here are written for these tests, each in a pattern real abstracts use (and in which
desk once got the name or the title wrong): a name spelled out after it, a long form before it, a
field's acronym or a baseline beside the paper's own name, math and dashes next to parentheses.
"""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from desk.core.text import derive_title, find_short_name, readable_text
from desk.core.text.name_shape import NAME_MAX, name_shaped
from desk.core.text.titles import BAD_STARTS, TITLE_MAX


def _named(abstract: str) -> tuple[str | None, str]:
    readable = readable_text(abstract)
    name = find_short_name(readable)
    return name, derive_title(readable, name)


@pytest.mark.parametrize(
    ("abstract", "name", "title"),
    [
        (  # NAME (Long Form): the name, not the long form's first word ("Neural")
            "Scientific knowledge is locked in PDF files. We propose Nougat (Neural Optical Understanding "
            "for Academic Documents), a Visual Transformer model that reads scientific pages. Nougat "
            "turns a page into markup, and neural baselines fall behind it.",
            "Nougat",
            "Nougat: A Visual Transformer model that reads scientific pages",
        ),
        (  # Long Form (NAME) after "we present", not the baseline's acronym defined later (PLfO)
            "Offline learning from observations is hard without rewards. In this paper we present "
            "Modality-agnostic Adversarial Hypothesis Adaptation for Learning from Observations (MAHALO), "
            "an approach that works under partial coverage. MAHALO beats policy learning from "
            "observations (PLfO) baselines.",
            "MAHALO",
            "MAHALO: An approach that works under partial coverage",
        ),
        (  # the field's acronym defined first (IL) is not the paper's
            "Imitation learning (IL) needs expert actions that are costly to collect. We introduce SEABO, "
            "a search-based method that labels unlabelled data with rewards. SEABO matches offline RL.",
            "SEABO",
            "SEABO: A search-based method that labels unlabelled data with rewards",
        ),
        (  # "called NAME"; the baseline next to a LaTeX tie (BERT~) is neither name nor title debris
            "Bigger models learn better representations, but memory limits them. We present two "
            "parameter-reduction techniques to lower memory use and speed up BERT~\\cite{devlin}. The "
            "resulting model is called ALBERT, and ALBERT scales better than BERT.",
            "ALBERT",
            "ALBERT: Two parameter-reduction techniques to lower memory use and speed up BERT",
        ),
        (  # "dubbed NAME"
            "Video generation is slow. We design a cascaded sampler, dubbed FlashCascade, that reuses "
            "coarse frames. FlashCascade is five times faster.",
            "FlashCascade",
            "FlashCascade: Reusing coarse frames",
        ),
        (  # "Our method, NAME, …"
            "Depth from one image is ambiguous. Our method, DepthKnot, ties depth to surface normals. "
            "DepthKnot halves the error on two benchmarks.",
            "DepthKnot",
            None,
        ),
        (  # "the proposed method, namely NAME"
            "Masks of different objects need different resolutions. The proposed method, namely "
            "TileMask, picks a resolution per object and improves accuracy at no cost.",
            "TileMask",
            None,
        ),
        (  # "Long form or NAME for short"
            "Sign language retrieval is hard. Our framework, termed cross-lingual contrastive retrieval "
            "or CiRet for short, beats the best method by a large margin.",
            "CiRet",
            None,
        ),
        (  # NAME, a …: the apposition defines it even without "we propose"
            "Point clouds are irregular. PointWeave, a network that weaves local and global features, "
            "sets a new state of the art. PointWeave is small.",
            "PointWeave",
            None,
        ),
        (  # a quoted name after "termed"
            "Motion transfer needs costly capture. We develop a frugal alternative termed “Move4D” that "
            "uses one depth sensor. Move4D transfers motion to new shapes.",
            "Move4D",
            None,
        ),
        (  # "The proposed framework, NAME, …"
            "Corrupted images hurt continual learners. The proposed framework, MixMeta, learns to "
            "augment data and keeps accuracy under corruption.",
            "MixMeta",
            None,
        ),
        (  # a capitalised compound after "called" is the name, not a phrase
            "Depth from one image needs heavy models. A hybrid architecture called Slim-Depth is "
            "presented, and it runs on a phone.",
            "Slim-Depth",
            None,
        ),
        (  # "a … method, Long Form (NAME), to …"
            "Pruning breaks coupled layers. We propose a general method, Coupling Graph (CoGraph), to "
            "model the dependency between layers. CoGraph prunes any architecture.",
            "CoGraph",
            None,
        ),
        (  # "the first … benchmark, NAME, which …"
            "Robots must open many kinds of doors. We build the first large-scale benchmark, DoorBench, "
            "which holds five hundred doors.",
            "DoorBench",
            None,
        ),
        (  # the compound built on the defined part is the paper's name
            "Implicit shapes need anchors. We introduce Anchored Radial Observations (ARO) to encode "
            "a shape around a few anchors. Built on them, ARO-Net predicts occupancy, and ARO-Net "
            "generalises to unseen categories.",
            "ARO-Net",
            None,
        ),
    ],
)
def test_the_name_the_abstract_defines_is_found(abstract: str, name: str, title: str | None) -> None:
    got_name, got_title = _named(abstract)
    assert got_name == name
    assert got_title.startswith(f"{name}: ")
    if title is not None:
        assert got_title == title


@pytest.mark.parametrize(
    "abstract",
    [
        # datasets and baselines the paper only uses
        "We evaluate a new pruning rule on CIFAR-10 and ImageNet with BERT and DARTS baselines. The rule "
        "prunes 40% of weights on CIFAR-10 without loss.",
        # the field's acronym defined before the paper says what it does
        "Neural radiance fields (NeRF) render novel views. We show that NeRF training can be halved in "
        "time with a better sampler.",
        # math next to parentheses is no name
        "We prove a regret bound of Õ(Klog²Mlog T) for the bandit, improving O((Md+dloglog T)) bounds. "
        "This is tight up to logarithmic factors.",
        # a dash glued to a closing parenthesis or to a name's last word
        "We introduce a false positive penalty (FPP)—is a term added to the loss. Another metric "
        "(KID)—a kernel distance—is reported.",
        # a capitalised English word the abstract also writes in lower case
        "Neural networks are wide. We propose Neural rules for pruning them, and neural pruning helps.",
        # a module of the method, not the paper: "a Semantic Sorting and NMS module"
        "Duplicate predictions hurt panoptic quality. We also propose a Semantic Sorting and NMS module "
        "to remove them, and Semantic Sorting removes most.",
        # a phrase fragment: "CLIP-based", "3D-aware"
        "We propose a CLIP-based detector and a 3D-aware renderer. The CLIP-based detector finds more.",
        # a repository's slug the abstract's words never use is no name
        "Depth from stereo and one image are two tasks. A unified network bridges them, trained on our "
        "data at https://github.com/someone/MS2-MultiSpectralStereoDataset.",
        # a model the paper works on, not its own: "post-training for PlasmidGPT, a foundation model"
        "We compare fine-tuning and reinforcement learning post-training for PlasmidGPT, a foundation "
        "model for plasmid generation. Reinforcement learning keeps more diversity.",
    ],
)
def test_no_name_rather_than_a_wrong_one(abstract: str) -> None:
    assert _named(abstract)[0] is None


@pytest.mark.parametrize(
    ("abstract", "title"),
    [
        (
            "We can indeed solve a family of blind inverse problems by building another network. It works.",
            "Solving a family of blind inverse problems by building another network",
        ),
        ("That neural network width matters is known. It is less clear why. Width changes features.", None),
        (
            "And so the problem remains open. We further show that existing methods fail.",
            "Existing methods fail",
        ),
        ("It is widely believed that depth helps. This is tested on ten tasks.", None),
        (
            "We show that, compared to normal training, sparse features transfer better. More follows.",
            "Compared to normal training, sparse features transfer better",
        ),
    ],
)
def test_titles_never_start_with_a_conjunction_or_pronoun(abstract: str, title: str | None) -> None:
    got = _named(abstract)[1]
    assert re.match(r"\W*(\w+)", got).group(1).lower() not in BAD_STARTS  # type: ignore[union-attr]
    if title is not None:
        assert got == title


def test_a_name_called_a_bare_noun_takes_the_sentence_that_says_what_it_does() -> None:
    """ "Slim-Depth: A hybrid architecture" would say nothing of depth."""
    name, title = _named(
        "Monocular depth estimation without ground truth needs heavy models. A hybrid architecture "
        "called Slim-Depth is presented. Slim-Depth runs on a phone."
    )
    assert name == "Slim-Depth"
    assert title.startswith("Slim-Depth: Monocular depth estimation")


def test_the_code_repository_names_the_paper_and_leads_its_title() -> None:
    name, title = _named(
        "Dense matching is slow. We design a kernel regression global matcher with warp refinement. "
        "Code is available at https://github.com/someone/KernMatch."
    )
    assert name == "KernMatch"
    assert title.startswith("KernMatch: ")


WORDS = st.sampled_from(
    [
        "We", "propose", "present", "introduce", "called", "dubbed", "namely", "Our", "method,", "a",
        "framework", "for", "short", "(", ")", "(ACRO)", "ACRO", "RACER", "STAR-KV", "X-based", "3D-aware",
        "FPP)—is", "MetaShift—a", "BERT~", "O((Md+dloglog", "Õ(Klog²Mlog", "AND", "That", "It", "This",
        "and", "that", "Neural", "neural", "module", ",", ".", "—", "–", "-", "~", "^2", "CLIP^2", "$x$",
        "https://github.com/u/Name-Net", "github.com/u/", "++", "Net", "Former", "(Long", "Form)", "is",
        "which", "the", "first", "approach", "ImageNet", "CIFAR-10", "NeRF", "NeRFs", "α", "∈", "(0,1)",
        "\u200b", "\t", "\n", "ǅ", "İ", "ſ", "K",
    ]
)  # fmt: skip
abstracts = st.one_of(st.lists(WORDS, max_size=120).map(" ".join), st.text(max_size=400))


def _first_word(title: str) -> str:
    m = re.match(r"\W*(\w+)", title)
    return m.group(1).lower() if m else ""


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(abstracts)
@example("We propose (FPP)—is a term. (KID)—a distance. MetaShift—a set. BERT~ and O((Md+dloglog T)).")
@example("AND AND AND. That That. We propose AND, a method. It is called AT.")
def test_a_name_is_never_garbage_and_a_title_never_starts_badly(text: str) -> None:
    readable = readable_text(text)
    name = find_short_name(readable)
    if name is not None:
        assert name in readable
        assert name_shaped(name, readable)
        assert not re.search(r"[()\[\]{}~—–,;:!?\"“”]", name), name
        assert name.upper() not in {"AND", "AT", "THAT", "THIS", "IT", "WE", "THE"}
        assert len(name) <= NAME_MAX
    title = derive_title(readable, name)
    assert 0 < len(title) <= TITLE_MAX
    assert title == "Untitled" or _first_word(title) not in BAD_STARTS


@pytest.mark.parametrize(
    "hostile",
    [
        "(" * 50_000,
        "We propose " * 8_000,
        "A-" * 25_000,
        ", a method " * 8_000,
        "github.com/u/" * 5_000,
        "X for short " * 8_000,
        "We propose RACER (" + "Long Form " * 8_000 + ").",
        "Neural " * 10_000 + "neural.",
        ("We introduce AB-CD" + "-EF" * 3_000 + ". ") * 3,
        "We propose ABC (ABC). " + "ABC-" * 20_000 + "X.",  # compounds of the name, each a long run
        "We propose ABC, a method. ABC is good. " + " ".join(f"ABC-x{i}" for i in range(20_000)),
    ],
)
def test_hostile_abstracts_take_bounded_time(hostile: str) -> None:
    """Each well under a second on a quiet machine; the bound leaves room for a loaded one."""
    start = time.process_time()
    readable = readable_text(hostile)
    derive_title(readable, find_short_name(readable))
    assert time.process_time() - start < 5.0
