"""Short names and derived titles, on the real seeds and on crafted abstracts."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from desk.core.text import derive_title, find_short_name, readable_text
from desk.core.text.acronyms import GENERIC
from desk.core.text.sentences import split_sentences
from desk.core.text.titles import fit_title, gerund

SEEDS = Path(__file__).resolve().parents[3] / "seeds"


def seed_abstracts() -> dict[tuple[str, int], str]:
    """(file prefix, index) → readable abstract, for every seed paragraph."""
    out: dict[tuple[str, int], str] = {}
    for path in sorted(SEEDS.glob("*.txt")):
        body = path.read_text(encoding="utf-8").split("\n", 1)[1]
        paragraphs = [p.strip() for p in re.split(r"\n\s*\n", body) if p.strip()]
        for i, raw in enumerate(paragraphs):
            out[(path.name[:3], i)] = readable_text(raw)
    return out


ABSTRACTS = seed_abstracts()


def _find(prefix: str, needle: str) -> str:
    hits = [t for (p, _), t in ABSTRACTS.items() if p == prefix and needle in t]
    assert hits, needle
    return hits[0]


@pytest.mark.parametrize(
    ("prefix", "needle", "name"),
    [
        ("000", "routing queries to the optimal large language model", "RACER"),
        ("000", "Low-rank projection has emerged", "STAR-KV"),
        ("000", "Generative control policies (GCPs)", "OGPO"),
        ("001", "Most visual generative models compress images", "DMVAE"),
        ("000", "online multiple hypothesis testing", "SCORE"),
        ("000", "conformal risk control (CRC)", "Conf-Gen"),
        ("002", "Multi-task vehicle routing solvers", "PoMtVRS"),
        ("001", "Offline meta reinforcement learning", "D²TR"),
        ("002", "POPGym Arcade", "POPGym Arcade"),
        ("002", "Knapsack RL", "Knapsack RL"),
        ("004", "SWE-rebench V2", "SWE-rebench V2"),
        ("002", "Multimodal Large Language Models", "HiDe"),
        ("003", "Randomized controlled trials", "DLPT"),
    ],
)
def test_short_names_on_seeds(prefix: str, needle: str, name: str) -> None:
    assert find_short_name(_find(prefix, needle)) == name


@pytest.mark.parametrize(
    ("prefix", "needle"),
    [
        ("000", "Safe offline reinforcement learning (RL) requires"),
        ("000", "An agent must try new behaviors"),
        ("000", "Spiking Neural Networks (SNNs)"),
        ("000", "Off-policy evaluation (OPE) is essential"),
        ("000", "Selective State Space Models (SSMs)"),
        ("001", "Generalized Bayesian Inference (GBI)"),
        ("001", "Diffusion models do not recover semantic structure"),
        ("002", "Given a question, a language model (LM)"),
        ("002", "supervised fine-tuning (SFT) and reinforcement learning (RL) post-training for PlasmidGPT"),
        ("003", "Optimizing Conditional Value-at-risk (CVaR)"),
        ("004", "Neural networks are typically trained with a single learning rate"),
    ],
)
def test_no_false_names_on_seeds(prefix: str, needle: str) -> None:
    assert find_short_name(_find(prefix, needle)) is None


def test_the_repository_of_the_papers_code_names_it() -> None:
    """The abstract defines no name in its sentences, but gives its code's address: the
    repository is named after the work."""
    text = _find("003", "Despite the high accuracy of EEG-based emotion recognition")
    assert find_short_name(text) == "SeeEmotion"
    assert derive_title(text, "SeeEmotion") == "SeeEmotion: Facial Emoji Proxy Modeling"


def test_seed_names_are_never_generic_acronyms() -> None:
    for text in ABSTRACTS.values():
        name = find_short_name(text)
        if name is not None:
            assert name.upper() not in GENERIC
            assert name in text


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("We propose FooNet, a network for bar. FooNet beats baselines.", "FooNet"),
        ("We introduce Grounded Rollout Search (GRS) for planning. GRS is fast.", "GRS"),
        ("This paper presents XYZ-2, a toolkit. Experiments show XYZ-2 helps.", "XYZ-2"),
        ("We train an LLM with RL on an MDP and a GNN. The LLM and RL and GNN and MDP work.", None),
        ("Large language models (LLMs) are strong. We study LLMs. LLMs are good.", None),
        ("The ImageNet benchmark is used. ImageNet results on ImageNet improve.", None),
        ("", None),
        ("no capitals at all here.", None),
    ],
)
def test_short_names_crafted(text: str, name: str | None) -> None:
    assert find_short_name(text) == name


def test_titles_on_seeds_are_short_clean_and_distinct() -> None:
    titles: dict[str, str] = {}
    for text in ABSTRACTS.values():
        title = derive_title(text, find_short_name(text))
        assert 0 < len(title) <= 120
        assert not any(bad in title for bad in ("$", "\\", "**", "  "))
        assert title == title.strip()
        titles.setdefault(title, text)
        assert titles[title] == text, f"two different abstracts share the title {title!r}"
    assert len(titles) == 94


@pytest.mark.parametrize(
    ("prefix", "needle", "title"),
    [
        (
            "000",
            "routing queries to the optimal large language model",
            "RACER: Extending base routers to output model sets that can be subsequently aggregated "
            "for improved output",
        ),
        (
            "000",
            "Low-rank projection has emerged",
            "STAR-KV: An adaptive low-rank KV cache compression framework with fine-grained rank control",
        ),
        (
            "000",
            "online multiple hypothesis testing",
            "SCORE: Sequential Control with Overshoot Refund for E-values",
        ),
        (
            "000",
            "An agent must try new behaviors",
            "How to use any safe reference policy as a probabilistic regulator "
            "for any optimized but untested policy",
        ),
        (
            "003",
            "Optimizing Conditional Value-at-risk (CVaR)",
            "Augmenting CVaR with an expected quantile term",
        ),
        (
            "003",
            "We study offline policy optimization over exponentially large",
            "Offline policy optimization over exponentially large factorial action spaces "
            "from randomized preference data",
        ),
        (
            "001",
            "When does learning elicit",
            "When does learning elicit existing knowledge, "
            "and when does it primarily teach new capabilities?",
        ),
    ],
)
def test_seed_title_shapes(prefix: str, needle: str, title: str) -> None:
    text = _find(prefix, needle)
    assert derive_title(text, find_short_name(text)) == title


def test_title_cut_at_word_with_ellipsis() -> None:
    text = "We propose " + " ".join(f"word{i}" for i in range(80)) + "."
    title = derive_title(text, None)
    assert len(title) <= 120 and title.endswith("…")
    assert re.fullmatch(r"[\w ]+…", title)
    assert fit_title("short title") == "short title"
    assert fit_title("a " * 100).endswith("…")


def test_title_without_verbs_uses_first_sentence() -> None:
    assert derive_title("Graphs are everywhere. They matter.", None) == "Graphs are everywhere"
    assert derive_title("", None) == "Untitled"
    assert derive_title("   ", "X") == "Untitled"


def test_title_with_name_not_in_text_ignores_it() -> None:
    assert derive_title("We propose a method for graphs.", "ZZZ") == "A method for graphs"


def test_helpers() -> None:
    assert gerund("reframes") == "Reframing"
    assert gerund("applies") == "Applying"
    assert gerund("extending") == "Extending"
    assert gerund("use") == "Using"
    assert split_sentences("We use e.g. this. Then Fig. 2 shows it. Done.") == (
        "We use e.g. this.",
        "Then Fig. 2 shows it.",
        "Done.",
    )
    assert split_sentences("One pipeline.Experiments follow. 中文。下一句") == (
        "One pipeline.",
        "Experiments follow.",
        "中文。",
        "下一句",
    )


def test_a_failure_inside_title_or_short_name_finding_is_logged_not_raised(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from desk.core.text import short_names, titles

    def broken(*args: object) -> None:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(titles, "_derive_title", broken)
    monkeypatch.setattr(short_names, "_find_short_name", broken)
    text = "We propose RACER, a router for sparse experts. It is fast."
    with caplog.at_level(logging.WARNING, logger=titles.__name__):
        assert find_short_name(text) is None
        # The plain text, fitted, started as a title is: not with "We".
        assert derive_title(text, None) == "Proposing RACER, a router for sparse experts. It is fast"
    assert [r.exc_info[0] for r in caplog.records if r.exc_info] == [RecursionError, RecursionError]
    assert "We propose RACER" in caplog.records[0].getMessage()


@pytest.mark.parametrize(
    ("abstract", "title"),
    [
        # an adverb before the verb: "Deeply coupling", not "Deeplying couples"
        (
            "Depth completion needs local and global cues. We propose JointNet, which deeply couples "
            "convolutions and attention in one block. JointNet runs in real time.",
            "JointNet: Deeply coupling convolutions and attention in one block",
        ),
        # a verb whose last consonant doubles
        (
            "Labels are scarce in new domains. We propose RelTrans, which transfers the class "
            "relationship between domains. RelTrans needs no source data.",
            "RelTrans: Transferring the class relationship between domains",
        ),
    ],
)
def test_titles_turn_the_verb_into_an_ing_form_a_reader_would_write(abstract: str, title: str) -> None:
    readable = readable_text(abstract)
    assert derive_title(readable, find_short_name(readable)) == title


def test_a_clause_that_starts_with_no_verb_is_not_made_one() -> None:
    """ "NAME, which our method …" is no "Ouring method"; the title is worded another way."""
    readable = readable_text(
        "Explaining 3D networks is hard. We present ConceptX, which our experiments show finds "
        "global concepts at several levels. ConceptX needs no labels."
    )
    title = derive_title(readable, find_short_name(readable))
    assert "Ouring" not in title and title.startswith("ConceptX")


def test_a_pronoun_after_we_show_is_not_a_title() -> None:
    """ "We demonstrate it to outperform …" alone names nothing: "It to outperform" is no title."""
    readable = readable_text(
        "Personalising diffusion models needs many images. Few-shot tuning is brittle. "
        "We demonstrate it to outperform the latest alternatives on ten styles."
    )
    assert not derive_title(readable, find_short_name(readable)).startswith("It ")
