"""Keep the benchmark suite working: the corpus generator's format and a tiny runner smoke run.

No timing is asserted here: benchmarks are never unit tests.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"


def _run(*args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=BENCH, capture_output=True, text=True, timeout=timeout, check=False
    )


def test_corpus_files_parse_into_the_expected_abstracts(tmp_path: Path) -> None:
    """Size 120 split at 50 a file: three seed-format files holding 50, 50 and 20 abstracts."""
    proc = _run("corpus.py", "--size", "120", "--per-file", "50", "--out", str(tmp_path), timeout=60)
    assert proc.returncode == 0, proc.stderr
    files = sorted(tmp_path.glob("*.txt"))
    assert [f.name for f in files] == ["synthetic-000.txt", "synthetic-001.txt", "synthetic-002.txt"]
    counts = []
    for f in files:
        header, _, body = f.read_text(encoding="utf-8").partition("\n\n")
        assert header.startswith("Synthetic Conf ") and header.endswith(" Papers")
        abstracts = [p for p in body.split("\n\n") if p.strip()]
        assert all("\n" not in a.strip() for a in abstracts)
        assert all(140 <= len(a.split()) <= 280 for a in abstracts)
        counts.append(len(abstracts))
    assert counts == [50, 50, 20]

    from desk.core.reader import read_list_file

    parsed = [read_list_file(f) for f in files]
    assert [len(p.abstracts) for p in parsed] == [50, 50, 20]
    assert parsed[0].collection == "Synthetic Conf 2000 Papers"


def test_corpus_is_deterministic_and_prefix_stable(tmp_path: Path) -> None:
    """The same seed writes the same bytes, and a small corpus is the start of a larger one."""
    for name, size in (("a", "30"), ("b", "30"), ("c", "60")):
        assert _run("corpus.py", "--size", size, "--out", str(tmp_path / name), timeout=60).returncode == 0
    a = (tmp_path / "a" / "synthetic-000.txt").read_text()
    assert a == (tmp_path / "b" / "synthetic-000.txt").read_text()
    assert (tmp_path / "c" / "synthetic-000.txt").read_text().startswith(a.rstrip("\n"))


@pytest.mark.slow
def test_runner_smoke(tmp_path: Path) -> None:
    """bench/run.py at 300 abstracts, one pass, no window: a table and a results JSON."""
    out = tmp_path / "out"
    proc = _run(
        "run.py",
        "--quick",
        "--sizes",
        "300",
        "--no-window",
        "--work",
        str(tmp_path / "work"),
        "--out",
        str(out),
        "--timeout",
        "300",  # only a guard against a hang: a loaded 2-core machine takes minutes for the six processes
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "| figure" in proc.stdout and "import + index" in proc.stdout
    result = json.loads((out / "results-300.json").read_text())
    assert result["queries"] >= 50
    for engine in ("desk", "fts5"):
        assert result[engine]["import"]["abstracts"] == 300
        assert result[engine]["search"]["search_wall"]["n"] == result["queries"]
    assert result["desk"]["search"]["check_problems"] == 0
    assert "a folder of 200 one-abstract files" in proc.stdout  # many-small-files import
    assert result["desk"]["folder"]["files"] == result["desk"]["folder"]["added"] == 200


def test_real_text_corpus_is_real_sentences_deterministic_and_prefix_stable(tmp_path: Path) -> None:
    """realcorpus.py: every sentence of an abstract is (up to renamed acronyms and digits) a sentence
    of the development corpus; same seed, same bytes; a small corpus starts a larger one."""
    sys.path.insert(0, str(BENCH))
    try:
        import realcorpus
    finally:
        sys.path.remove(str(BENCH))
    if not realcorpus.available():
        import pytest

        pytest.skip(f"the development corpus is not at {realcorpus.DEV_CORPUS}")
    for name, size in (("a", "40"), ("b", "40"), ("c", "90")):
        proc = _run(
            "realcorpus.py", "--size", size, "--per-file", "50", "--out", str(tmp_path / name), timeout=60
        )
        assert proc.returncode == 0, proc.stderr
    a = (tmp_path / "a" / "real-000.txt").read_text()
    assert a == (tmp_path / "b" / "real-000.txt").read_text()
    assert (tmp_path / "c" / "real-000.txt").read_text().startswith(a.rstrip("\n"))

    from desk.core.reader import read_list_file

    parsed = read_list_file(tmp_path / "c" / "real-001.txt")
    assert len(parsed.abstracts) == 40 and parsed.collection == "Recombined CVPR 2001 Papers"
    text = realcorpus.RealText.load()
    shape = {realcorpus.sentence_shape(s) for sentences in text.abstracts for s in sentences}
    made = realcorpus.RealGenerator().abstract(3)
    assert all(realcorpus.sentence_shape(s) in shape for s in realcorpus.split_sentences(made))
    queries = realcorpus.RealGenerator().queries()
    assert len(queries) == 110 and sum(q["kind"] == "prefix" for q in queries) == 50


@pytest.mark.slow
def test_open_and_triage_benches_run_on_a_small_library(seeded_dir: Path, tmp_path: Path) -> None:
    """The scripts that measure the index's signature check and filters keep working."""
    opened = _run("open_bench.py", "--library", str(seeded_dir), "--reps", "1", timeout=300)
    assert opened.returncode == 0, opened.stderr
    figures = json.loads(opened.stdout)
    assert figures["check_signed_ms"]["median"] >= 0 and figures["search_ms"]["queries"] > 100
    out = tmp_path / "triage.json"
    args = ("--library", str(seeded_dir), "--reps", "1", "--size", "10", "--out", str(out))
    triage = _run("triage_bench.py", *args, timeout=300)
    assert triage.returncode == 0, triage.stderr
    result = json.loads(out.read_text())
    assert result["selection"] == 10 and "toggle_on" in result["to_searchable_s"]
    assert 'saved:"bench unread"' in result["search_ms"]


def test_the_window_probe_reports_its_own_memory_not_its_parents() -> None:
    """ru_maxrss survives execve: the probe's child said the runner's peak (606 MB at a million
    papers, the seeds' window too). Its figures are its own VmHWM and VmRSS."""
    sys.path.insert(0, str(BENCH))
    try:
        import coldstart
    finally:
        sys.path.remove(str(BENCH))
    assert "getrusage(" not in coldstart.CHILD and "import resource" not in coldstart.CHILD
    assert 'rss_mb=status_mb("VmHWM")' in coldstart.CHILD


@pytest.mark.slow
def test_the_rich_import_bench_runs_on_a_few_records(tmp_path: Path) -> None:
    """Two small files imported; skipped without the dev corpus (the script says so, exit 1)."""
    sys.path.insert(0, str(ROOT / "tests" / "core" / "reader"))
    from rich_files import DEV_JSON

    if not DEV_JSON.is_file():
        pytest.skip("needs ../shared/dev-corpus/cvpr2023.json")
    args = ("--bib", "20", "--jsonl", "30", "--baseline", "--parse-only", "--work", str(tmp_path))
    proc = _run("rich_import_bench.py", *args, timeout=300)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [(r["file"], r["added"]) for r in rows] == [
        ("bibtex", 20),
        ("same abstracts as .txt", 20),
        ("jsonl", 30),
        ("same abstracts as .txt", 30),
    ]
    assert all(r["load_before"] >= 0 and r["parse_seconds"] >= 0 for r in rows)
