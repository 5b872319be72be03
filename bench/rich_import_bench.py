"""Rich lists imported end to end: a 2,000-entry BibTeX file and a 100k-record arXiv JSON-lines file.

Each run imports into a fresh library with ``Library.import_paths`` (read, parse, analyse on the
worker processes, store, index), as `desk import` does, and reports wall time and records/s,
with the one-minute load average before and after each run and the CPU seconds of the process
and its worker processes (less swayed by other jobs than the wall time);
``--parse-only`` adds the reader alone (bytes to entries), ``--cli`` the same import as a whole
`desk import` process (the interpreter's start and end, the workers' start-up included). The
BibTeX file holds the real dev papers written as PMLR/DBLP write them
(tests/core/reader/rich_files.py); the JSON lines hold abstracts of real sentences (realcorpus.py,
each one distinct) with the dev papers' titles and authors, in the arXiv snapshot's shape (wrapped
fields, authors in one string).

Usage: ``python bench/rich_import_bench.py [--bib 2000] [--jsonl 100000] [--reps 1] [--parse-only]
[--cli] [--baseline] [--work DIR]`` (``--baseline``: the JSON lines' abstracts as a bare list too)
(``DESK_DEV_CORPUS`` names the dev corpus's folder when it is not ../shared/dev-corpus).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "core" / "reader"))

from rich_files import arxiv_line, bibtex, dev_corpus_dir, dev_records  # noqa: E402

# desk itself is imported inside the functions that use it: the import's worker processes start
# with "spawn", which runs this file's top level again in each, and a real `desk import` does
# not make its workers load the Library (≈ 1.5 s of CPU a worker).


def write_bib(size: int, out: Path) -> Path:
    records = dev_records()
    path = out / f"pmlr-{size}.bib"
    if not path.exists():
        picked = [dict(records[i % len(records)], index=i) for i in range(size)]
        path.write_text(bibtex(picked), encoding="utf-8")
    return path


def write_plain(size: int, out: Path) -> Path:
    """The BibTeX file's abstracts as a bare list: the same import without the format's work."""
    records = dev_records()
    path = out / f"plain-{size}.txt"
    if not path.exists():
        body = "\n\n".join(records[i % len(records)]["abstract"] for i in range(size))
        path.write_text(f"CVPR 2023 Papers\n\n{body}\n", encoding="utf-8")
    return path


def write_jsonl(size: int, out: Path) -> Path:
    import realcorpus

    path = out / f"arxiv-{size}.jsonl"
    if path.exists():
        return path
    generator = realcorpus.RealGenerator(seed=7, folder=dev_corpus_dir())
    records = dev_records()
    with path.open("w", encoding="utf-8") as handle:
        for i in range(size):
            record = dict(records[i % len(records)], abstract=generator.abstract(i))
            handle.write(arxiv_line(record, i) + "\n")
    return path


def write_jsonl_plain(size: int, out: Path) -> Path:
    """The JSON lines' abstracts as bare lists (the baseline: the same import without the format), a
    folder of files of 10,000 (one file would pass the 32 MB a list file may hold), imported as
    JSON lines are: 10,000 a transaction."""
    import realcorpus

    folder = out / f"arxiv-plain-{size}"
    if not folder.exists():
        generator = realcorpus.RealGenerator(seed=7, folder=dev_corpus_dir())
        folder.mkdir()
        for start in range(0, size, 10_000):
            body = "\n\n".join(
                " ".join(generator.abstract(i).split()) for i in range(start, min(size, start + 10_000))
            )
            (folder / f"part-{start // 10_000:03d}.txt").write_text(
                f"arXiv Papers\n\n{body}\n", encoding="utf-8"
            )
    return folder


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (the import's worker processes)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed_import(path: Path, work: Path) -> tuple[float, int, float]:
    """(wall seconds, papers added, CPU seconds of the whole process tree) of one fresh import."""
    from desk.core.library.facade import Library

    library = work / "lib"
    shutil.rmtree(library, ignore_errors=True)
    cpu = _cpu()
    start = time.perf_counter()
    with Library(library) as lib:
        report = lib.import_paths([path])
    return time.perf_counter() - start, report.added, _cpu() - cpu


def timed_cli_import(path: Path, work: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process tree) of `desk --library DIR import PATH` as a
    whole process, as a user runs it: the interpreter's start and end included."""
    library = work / "cli-lib"
    shutil.rmtree(library, ignore_errors=True)
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's desk runs from its compiled modules
    env.setdefault("DESK_SENTENCE_ENCODER", "0")  # no encoder started after it: measured apart
    cpu = _cpu()
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "desk", "--library", str(library), "import", str(path)],
        check=True, env=env, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    return time.perf_counter() - start, _cpu() - cpu


def timed_parse(path: Path) -> float:
    from desk.core.reader import read_list_file, read_list_parts

    start = time.perf_counter()
    if path.is_dir():
        for each in sorted(path.iterdir()):
            read_list_file(each)
    elif path.suffix == ".jsonl":
        for _ in read_list_parts(path):
            pass
    else:
        read_list_file(path)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bib", type=int, default=2000, help="BibTeX entries (0: none)")
    parser.add_argument("--jsonl", type=int, default=100_000, help="JSON lines (0: none)")
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--parse-only", action="store_true", help="also time the reader alone")
    parser.add_argument("--cli", action="store_true", help="also time `desk import` as a whole process")
    parser.add_argument("--baseline", action="store_true", help="also the JSON lines' abstracts as a .txt")
    parser.add_argument(
        "--work", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "desk-rich-bench"
    )
    args = parser.parse_args(argv)
    if not (dev_corpus_dir() / "cvpr2023.json").is_file():
        print("needs the dev corpus (../shared/dev-corpus or DESK_DEV_CORPUS)", file=sys.stderr)
        return 1
    args.work.mkdir(parents=True, exist_ok=True)
    files = []
    if args.bib:
        files.append(("bibtex", write_bib(args.bib, args.work)))
        files.append(("same abstracts as .txt", write_plain(args.bib, args.work)))
    if args.jsonl:
        files.append(("jsonl", write_jsonl(args.jsonl, args.work)))
        if args.baseline:
            files.append(("same abstracts as .txt", write_jsonl_plain(args.jsonl, args.work)))
    results = []
    for name, path in files:
        for rep in range(args.reps):
            load = os.getloadavg()[0]  # the machine may be shared: every figure beside its load
            seconds, added, cpu = timed_import(path, args.work)
            row = {"file": name, "rep": rep, "seconds": round(seconds, 2), "cpu_seconds": round(cpu, 2),
                   "added": added, "per_second": round(added / seconds), "load_before": round(load, 1),
                   "load_after": round(os.getloadavg()[0], 1)}  # fmt: skip
            if args.cli:
                wall, cli_cpu = timed_cli_import(path, args.work)
                row.update(cli_seconds=round(wall, 2), cli_cpu_seconds=round(cli_cpu, 2),
                           cli_per_second=round(added / wall))  # fmt: skip
            if args.parse_only:
                row["parse_seconds"] = round(timed_parse(path), 2)
            results.append(row)
            print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
