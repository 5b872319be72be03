"""A small library of three topics written for the semantic tests."""

from __future__ import annotations

from pathlib import Path

# Three topics; the NeRF papers share "radiance", "view" and "synthesis" with each other, and the
# last one never says "radiance": only meaning connects it to the query "radiance".
NERF = [
    "Neural radiance fields render novel view synthesis of scenes from posed images with volume rendering.",
    "We speed up neural radiance fields for novel view synthesis with a sparse voxel grid, volume rendering.",
    "Radiance fields from few images: a depth prior regularizes novel view synthesis and volume rendering.",
    "Dynamic radiance fields model moving scenes for novel view synthesis with a deformation field.",
    "Editing neural radiance fields with text prompts keeps novel view synthesis consistent across views.",
]
TARGET = (
    "A NeRF of a moving human gives novel view synthesis of the scene with volume rendering from a video."
)
POINTS = [
    "Point cloud completion recovers missing geometry of partial scans with a transformer over points.",
    "Self-supervised point cloud learning with masked autoencoders improves segmentation of points.",
    "Point cloud registration aligns two partial scans with correspondences between points.",
    "A point cloud upsampling network densifies sparse scans while keeping geometry of points.",
    "Semantic segmentation of large point cloud scenes with sparse convolution over points.",
]
SPEECH = [
    "Speech recognition with a conformer encoder transcribes noisy audio into text tokens.",
    "Text to speech synthesis with a diffusion decoder produces natural audio from text tokens.",
    "Speaker diarization segments long audio recordings by speaker with an encoder of audio.",
    "Keyword spotting on device detects short spoken commands in streaming audio with a small encoder.",
    "Speech translation maps spoken audio in one language to text tokens in another.",
]


def write_list(path: Path, abstracts: list[str]) -> Path:
    path.write_text("Test 2026 Papers\n\n" + "\n\n".join(abstracts) + "\n", encoding="utf-8")
    return path


ALL = [*NERF, TARGET, *POINTS, *SPEECH]
