"""A small library of three topics written for the semantic tests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from desk.core.library.facade import Library

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


@contextmanager
def nerf_starred(root: Path, stars: int) -> Iterator[tuple[Library, list[int], dict[str, int]]]:
    """A library of ALL (vectors built) with the first ``stars`` NeRF papers starred and two
    speech papers read and left: (the library, the NeRF papers' ids with TARGET's last, id by text)."""
    with Library(root / "lib") as lib:
        lib.import_paths([write_list(root / "t.txt", ALL)])
        lib.discovery.ensure_vectors()
        by_text = {p.abstract: p.id for p in lib.papers(lib.paper_ids())}
        nerf = [by_text[t] for t in [*NERF, TARGET]]
        lib.set_starred(nerf[:stars], True)
        lib.set_read([by_text[t] for t in SPEECH[:2]], True)
        yield lib, nerf, by_text
