"""More of the ways authors name their method, each in an abstract written for the test.

Each pattern is one real abstracts use ("referred to as NAME", "our NAME model", "(i.e., NAME)",
a name in lower case first like "iDisc"), and each case once gave no name or another one. Beside
them, the near misses that must stay nameless: a capitalised English word after the cue, a
baseline the method surpasses, an acronym of a tool the method is built on.
"""

from __future__ import annotations

import pytest

from desk.core.text import derive_title, find_short_name, readable_text


def _name(abstract: str) -> str | None:
    return find_short_name(readable_text(abstract))


@pytest.mark.parametrize(
    ("abstract", "name"),
    [
        (  # "referred to as NAME"
            "Contrastive learning of shapes is slow. We propose a recycling scheme for contrastive "
            "learning, referred to as ReCyc. Different from earlier methods, ReCyc keeps past views.",
            "ReCyc",
        ),
        (  # "we refer to … as NAME"
            "Image quality needs content and distortion cues. We refer to the framework that trains the "
            "two encoders as Dual-IQ. For quality in the wild, the two views feed a linear regressor.",
            "Dual-IQ",
        ),
        (  # "we denote this … as NAME"
            "Cones approximate pixels poorly. We use pyramids instead, and we denote this formulation as "
            "Pyra-NeRF, an exact integral over the pixel's frustum.",
            "Pyra-NeRF",
        ),
        (  # "(abbreviated as NAME)" after a long form that spells it in lower case
            "Anomalies in chest images are rare. We propose memory queues for in-painting and detecting "
            "anomalies (abbreviated as MQID). We show that MQID finds recurring patterns.",
            "MQID",
        ),
        (  # "called the NAME"
            "Noisy labels hurt training. We revisit sample selection and propose a new method, called "
            "the Wass-Select. The Wass-Select keeps the geometry of the distribution.",
            "Wass-Select",
        ),
        (  # "called" a long form in lower case, then "(NAME)"
            "Coarse labels are cheap. We propose a learning method, called masked contrastive pairing "
            "(MaskPair) to learn fine features from coarse labels.",
            "MaskPair",
        ),
        (  # "our NAME model", with no cue verb
            "Clipped colours are lost when an image is stored in a small gamut. A tiny network restores "
            "them in two seconds. The small size lets our GamutNet model travel as metadata, and GamutNet "
            "needs no training data.",
            "GamutNet",
        ),
        (  # "the proposed NAME"
            "Dual-pixel pairs blur out of focus. We estimate kernels from the disparity between the two "
            "views. Experiments on four datasets show that the proposed KDP3 is better than earlier "
            "methods, and KDP3 is smaller.",
            "KDP3",
        ),
        (  # a coined word after "named", used once
            "Depth maps from sparse views are coarse. This paper tackles the problem with a new "
            "reconstruction framework named Zephyrus. Its core idea is to pick depth candidates per pixel.",
            "Zephyrus",
        ),
        (  # a coined word after "introduce", then "…, a single model …"
            "Medical image tools are trained per task. We introduce Brainwell, a single model that "
            "generalises to unseen imaging tasks without training.",
            "Brainwell",
        ),
        (  # a quoted word after the cue
            "Hand models lack appearance. In this work we propose “Palmer”, a large-scale model of the "
            "human hand that captures shape and texture.",
            "Palmer",
        ),
        (  # a name that starts in lower case
            "Scenes hold few high-level patterns. We propose iQuant to learn those patterns with "
            "internal discrete representations. iQuant sets a new state of the art on two benchmarks.",
            "iQuant",
        ),
        (  # "(i.e., NAME)"
            "Audio and video are generated apart. We propose a novel multi-modal diffusion model (i.e., "
            "AV-Diff), with two coupled denoising autoencoders. AV-Diff keeps sound and frames aligned.",
            "AV-Diff",
        ),
        (  # "… (NAME) is proposed": the passive
            "Saliency in videos depends on sound. In this study, a consistency-aware audio-visual "
            "saliency network (CAVS-Net) is proposed, which weighs both senses.",
            "CAVS-Net",
        ),
        (  # "Our Long Form (NAME)" with no cue verb
            "Implicit representations trade accuracy for robustness. Our Gabor Wavelet Implicit "
            "Representation (GWIR) uses a complex wavelet as its activation.",
            "GWIR",
        ),
        (  # "This paper … and proposes": the paper is the subject of "proposes"
            "Diffusion models generate images well. This paper explores them for layout generation and "
            "proposes Transformer-based Layout Diffusion (LayDiff) for conditional layouts.",
            "LayDiff",
        ),
    ],
)
def test_a_way_authors_name_their_method_is_read(abstract: str, name: str) -> None:
    assert _name(abstract) == name
    assert name in derive_title(readable_text(abstract), name)


@pytest.mark.parametrize(
    "abstract",
    [
        # a capitalised English word after "we propose" is no name, even never written in lower case
        "Real fisheye images are distorted. In this paper, we propose Fisheye downsampling, which mimics "
        "the imaging process. Downsampled images train better models.",
        # a word of a long form after a naming word ("titled Complexity, Action, and …")
        "Web data is noisy. First, we propose a simple filtering strategy titled Complexity, Action, and "
        "Text (CAT) that removes most pairs.",
        # a baseline the method surpasses, though an apposition follows it
        "Masked image modelling learns local features. Moreover, our encoder surpasses xBOT, a strong "
        "method combined with instance discrimination, while training twice as fast.",
        # an acronym of a tool "our" method is built on
        "Sparse points give coarse surfaces. We mine supervision from them, and our thin plate splines "
        "(TPS) based network infers signed distances as smooth functions.",
        # a part of the method, said in the passive
        "Domains differ in style. Furthermore, to bridge them, a dynamic domain generator (DDGen) module "
        "is proposed to build transitional samples.",
    ],
)
def test_no_name_from_the_near_misses(abstract: str) -> None:
    assert _name(abstract) is None


@pytest.mark.parametrize(
    ("abstract", "name"),
    [
        (  # the name after a colon that closes the cue's description
            "Two-branch networks blur small details. To fix this, we propose a novel three-branch network "
            "architecture: TriSeg, which parses detail, context and boundary apart.",
            "TriSeg",
        ),
        (  # "We introduce the Long Form, NAME, to …": the name after "the"
            "We introduce the MAsked Video Generative Transformer, MAVGIT, to tackle many video "
            "synthesis tasks with one model. MAVGIT is fast, and masked tokens are predicted in parallel.",
            "MAVGIT",
        ),
        (  # a name a cue brought in stays the paper's when a later sentence defines it again
            "Cones approximate pixels poorly. We denote this pyramid formulation as Pyra-NeRF. Our "
            "study shows that such an exact formulation (Pyra-NeRF) matches the accuracy of cones.",
            "Pyra-NeRF",
        ),
        (  # an acronym defined in the plural names the method in the singular
            "Weak labels are cheap. As such, the method is named as dense label fields (DLFs). DLFs "
            "produce features for any sub-pixel location.",
            "DLF",
        ),
        (  # the last part of the project page's path
            "Radiance fields of many dimensions are costly. We factor them into planes. Videos and code: "
            "https://someone.github.io/Q-Planes.",
            "Q-Planes",
        ),
        (  # a repository's name, the venue's suffix left out
            "Radiance fields of many dimensions are costly. We factor them into planes. Code: "
            "https://github.com/someone/QPlanes-CVPR2023.",
            "QPlanes",
        ),
    ],
)
def test_more_places_a_name_stands(abstract: str, name: str) -> None:
    assert _name(abstract) == name


@pytest.mark.parametrize(
    "abstract",
    [
        # the capitals of a long form on English words the abstract also writes plainly
        "Video prediction mixes motion and scenes. We propose a two-stage MOtion, Scene and Object "
        "framework for video prediction, and motion is learned first.",
        # a quantity is no name
        "We track unknown objects at 10Hz from a single camera. We propose a pipeline at 10Hz, and "
        "10Hz is enough for grasping.",
    ],
)
def test_no_name_from_capitals_or_quantities(abstract: str) -> None:
    assert _name(abstract) is None
