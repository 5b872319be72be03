"""Keep bench/titles_bench.py working on a tiny corpus written here, and hold the dev corpus's
figures where ../shared/dev-corpus/ is present (skipped otherwise)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
DEV = ROOT.parent / "shared" / "dev-corpus"

ABSTRACTS = [
    "Routing queries between models wastes compute. We propose LANTERN, a router that sends each "
    "query to the cheapest model. LANTERN halves the cost.",
    "Graph neural networks (GNNs) oversmooth. We show that a residual scheme keeps node features apart.",
    "We introduce a pruning rule (PRX) for transformers. PRX removes half the weights.",
    "Sparse attention is hard. We present Long Sparse Attention (LSA) for documents.",
]
TITLES = [
    "LANTERN: Routing Queries to the Cheapest Model",
    "Residual Schemes Against Oversmoothing in GNNs",
    "KEEPER: Pruning Half of a Transformer",
    "Long Sparse Attention for Documents",
]


def _run(*args: str) -> dict[str, dict[str, object]]:
    proc = subprocess.run(
        [sys.executable, "titles_bench.py", "--json", "--reps", "1", *args],
        cwd=BENCH,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    figures: dict[str, dict[str, object]] = json.loads(proc.stdout)
    return figures


def test_the_titles_bench_measures_a_tiny_corpus(tmp_path: Path) -> None:
    corpus = tmp_path / "dev-corpus"
    corpus.mkdir()
    (corpus / "cvpr2023.txt").write_text(
        "Tiny 2023 Papers\n\n" + "\n\n".join(ABSTRACTS) + "\n", encoding="utf-8"
    )
    rows = "".join(f"cvpr2023.txt\t{i}\t{t}\n" for i, t in enumerate(TITLES))
    (corpus / "titles.tsv").write_text("file\tindex\ttitle\n" + rows, encoding="utf-8")
    figures = _run("--corpus", str(corpus))
    assert set(figures) == {"even", "odd", "all"}
    # Even half: LANTERN (named, found) and PRX (the title names KEEPER: a different name).
    assert figures["even"]["named"] == 2 and figures["even"]["recall"] == 0.5
    assert figures["even"]["wrong"] == 0.5
    assert figures["all"]["garbage"] == 0 and figures["all"]["bad_starts"] == 0
    assert 0 < float(figures["all"]["coverage"]) <= 1  # type: ignore[arg-type]


@pytest.mark.slow
@pytest.mark.skipif(
    not (DEV / "cvpr2023.txt").is_file(), reason="needs ../shared/dev-corpus/ beside the repository"
)
def test_on_the_dev_corpus_names_are_never_garbage_and_titles_never_start_badly() -> None:
    figures = _run("--corpus", str(DEV))
    for half in ("even", "odd"):
        assert figures[half]["garbage"] == 0
        assert figures[half]["bad_starts"] == 0
        assert float(figures[half]["wrong"]) <= 0.10  # type: ignore[arg-type]
        assert float(figures[half]["coverage"]) >= 0.40  # type: ignore[arg-type]
