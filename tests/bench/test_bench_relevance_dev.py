"""Keep bench/relevance_dev.py working on a tiny corpus written here (the real one is ../shared's)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"

ABSTRACTS = [
    "We propose neural radiance fields (NeRF) for novel view synthesis of complex scenes from a few "
    "posed images. Our method optimizes a continuous volumetric scene function.",
    "Federated learning (FL) trains a shared model across many clients without collecting their data. "
    "We study client heterogeneity and communication cost in federated optimization.",
    "We present a knowledge distillation method in which a small student network mimics the logits "
    "of a large teacher network, improving compact image classifiers.",
]
TITLES = [
    "Neural Radiance Fields for View Synthesis",
    "Heterogeneous Clients in Federated Learning",
    "Logit Distillation for Compact Students",
]


def _corpus(tmp: Path) -> tuple[Path, Path]:
    corpus = tmp / "dev-corpus"
    corpus.mkdir()
    (corpus / "cvpr2023.txt").write_text(
        "Tiny 2023 Papers\n\n" + "\n\n".join(ABSTRACTS) + "\n", encoding="utf-8"
    )
    rows = "".join(f"cvpr2023.txt\t{i}\t{t}\n" for i, t in enumerate(TITLES))
    (corpus / "titles.tsv").write_text("file\tindex\ttitle\n" + rows, encoding="utf-8")
    queries = tmp / "queries.json"
    queries.write_text(
        json.dumps(
            {
                "queries": [
                    {"q": "nerf", "kind": "acronym", "rel": {"0": 3}},
                    {"q": "federated clients", "kind": "topic", "rel": {"1": 3, "2": 1}},
                ]
            }
        ),
        encoding="utf-8",
    )
    return corpus, queries


@pytest.mark.slow
def test_dev_benchmark_reports_every_engine_on_every_set(tmp_path: Path) -> None:
    """Titles, their four-word forms and the judged queries, for desk and both FTS5 modes."""
    corpus, queries = _corpus(tmp_path)
    out = tmp_path / "out.json"
    args = ["relevance_dev.py", "--corpus", str(corpus), "--queries", str(queries), "--out", str(out)]
    proc = subprocess.run(
        [sys.executable, *args], cwd=BENCH, capture_output=True, text=True, timeout=300, check=False
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["engines"] == ["desk", "fts5_or", "fts5_and"]
    figures = report["figures"]
    assert {"title", "4words", "researcher", "acronym", "topic"} <= set(figures)
    assert figures["title"]["n"] == 3 and figures["researcher"]["n"] == 2
    assert figures["title"]["desk"]["mrr"] == 1.0  # three distinct papers: each title finds its own
    for engine in report["engines"]:
        assert set(figures["researcher"][engine]) == {"mrr", "recall", "hit", "ndcg"}
        assert all(0.0 <= v <= 1.0 for v in figures["researcher"][engine].values())
    assert "| set | n |" in proc.stdout


def test_dev_benchmark_skips_without_the_corpus(tmp_path: Path) -> None:
    """No corpus folder: a plain 'skipped' line and exit 0 (CI without ../shared)."""
    proc = subprocess.run(
        [sys.executable, "relevance_dev.py", "--corpus", str(tmp_path / "absent")],
        cwd=BENCH,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("skipped: no dev corpus")
