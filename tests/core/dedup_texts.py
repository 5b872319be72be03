"""Abstracts written for the near-duplicate tests, and the copies and look-alikes made from them."""

from __future__ import annotations

import re

PAPER = (
    "Estimating the depth of transparent objects from a single image remains difficult, because "
    "glass and plastic surfaces violate the photometric assumptions that most networks rely on. "
    "Existing monocular methods either ignore refraction entirely or require a calibrated background "
    "pattern that is rarely available outside the laboratory. We present GlassDepth, a refraction-aware "
    "network that predicts a depth map together with a dense field of surface normals for every pixel. "
    "A differentiable ray tracer renders the predicted geometry back into the image, and the "
    "discrepancy with the observed background supervises both outputs without any extra sensors. "
    "To train the model at scale we collect TransScene, a dataset of 41,000 synthetic and 2,300 real "
    "captures of cups, bottles and windows under varied lighting. On the ClearGrasp benchmark GlassDepth "
    "lowers the absolute relative error from 0.172 to 0.118 and improves normal accuracy by 9.4 points. "
    "Robotic grasping experiments show that the recovered geometry raises the success rate on unseen "
    "transparent objects from 61% to 83%. Code and data are released to foster further research."
)
SECOND = (
    "Federated learning lets hospitals train a shared model without moving patient records off site. "
    "However, the scanners, protocols and patient populations of different sites produce strongly "
    "heterogeneous data, and a single global model often underperforms on every individual hospital. "
    "We propose FedAnchor, a personalization scheme in which each client keeps a small set of anchor "
    "prototypes that summarize its local feature distribution. During aggregation the server aligns "
    "client updates through these anchors, so that shared layers learn site-invariant features while "
    "the classifier heads remain local. We further derive a convergence bound that depends on the "
    "distance between anchor sets rather than on the raw gradient dissimilarity. Across four multi-site "
    "segmentation and classification tasks, FedAnchor improves the mean Dice score by 3.1 points over "
    "FedAvg and by 1.6 points over the strongest personalized baseline. Communication per round grows by "
    "less than two percent, making the method practical for bandwidth-limited clinical networks."
)
DIFFERENT_BODY = (
    "We instead study how the same surfaces can be segmented in video, where motion parallax offers "
    "a cue that single frames lack. Our tracker propagates instance masks with an optical flow model "
    "fine-tuned on refractive materials and corrects drift with a memory of past appearances. A new "
    "benchmark of 320 annotated clips shows gains of 12 points in J&F over video object segmentation "
    "baselines. The tracker runs at 24 frames per second on a single consumer GPU and is robust to "
    "changing illumination, specular highlights and partial occlusion by hands."
)
DEFINITION = (
    "Federated learning trains a shared model across many clients that keep their data local and "
    "exchange only model updates with a central server."
)
SAME_TOPIC = (
    "Medical imaging models trained on one hospital rarely transfer to another. "
    + DEFINITION
    + " We study the problem of label noise in such settings, where each site annotates with its own "
    "protocol and some sites have far noisier labels than others. Our method, NoisyFed, estimates a "
    "per-client transition matrix from a small trusted subset and corrects the local loss before "
    "aggregation. On chest X-ray classification with six simulated sites, NoisyFed recovers most of the "
    "accuracy lost to noise and outperforms robust aggregation rules such as the coordinate-wise median."
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def sentences(text: str) -> list[str]:
    return _SENTENCE.split(text)


def head(text: str, share: float) -> str:
    """The first ``share`` of the words, cut mid-sentence, with an ellipsis."""
    words = text.split()
    return " ".join(words[: round(len(words) * share)]) + " ..."


def tail(text: str, share: float) -> str:
    words = text.split()
    return "... " + " ".join(words[-round(len(words) * share) :])


def middle(text: str, share: float) -> str:
    words = text.split()
    keep = round(len(words) * share)
    start = (len(words) - keep) // 2
    return " ".join(words[start : start + keep])


def revised(text: str) -> str:
    """A v2: three sentences reworded, the numbers updated, the last sentence dropped."""
    parts = sentences(text)
    parts[0] = parts[0].replace("remains difficult", "is still hard").replace("most networks", "most models")
    parts[2] = parts[2].replace("We present", "This paper introduces").replace("together with", "and")
    parts[5] = parts[5].replace("0.172 to 0.118", "0.172 to 0.109").replace("9.4 points", "10.2 points")
    parts[6] = parts[6].replace("61% to 83%", "61% to 86%").replace("raises", "lifts")
    return " ".join(parts[:-1])


def reordered(text: str) -> str:
    parts = sentences(text)
    return " ".join([parts[0], parts[2], parts[1], *parts[4:], parts[3]])


def shared_opening(text: str) -> str:
    """Another paper that opens with ``text``'s first two sentences."""
    return " ".join(sentences(text)[:2]) + " " + DIFFERENT_BODY
