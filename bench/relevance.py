"""The relevance test: desk beside a plain SQLite FTS5 table on the seeds.

Each query of bench/relevance_set.json names the (file, index) of the paper it should find. The
script imports seeds/ into a fresh desk library and the same abstracts (exact duplicates folded,
as desk folds them) into an FTS5 table (porter unicode61, bm25), and prints MRR@10 and recall@10
for desk and for FTS5 in two modes: OR of the query's words (the ranked OR-of-words query of
the headline comparison) and AND of them (FTS5's default). With 94 papers nearly any
engine finds nearly everything, so the same queries are run a second time with the seeds mixed
into synthetic abstracts from bench/corpus.py (distractors). Writes bench/out/relevance.json.

    python bench/relevance.py [--distractors 5000] [--seeds DIR] [--set FILE] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from corpus import Generator
from fts import Fts5, corpus_files, read_abstracts, to_match
from stats import ErrorLog

HERE = Path(__file__).resolve().parent
K = 10
DEEP = 50  # how far down a miss is looked for, to say where it ranked
DISTRACTORS = 5000  # synthetic abstracts mixed in for the second setting

Source = tuple[str, int]


def _key(text: str) -> str:
    return re.sub(r"\W+", "", text.lower())


def fts_ranks(folders: list[Path], queries: list[dict[str, Any]], work: Path) -> dict[str, list[int | None]]:
    """Rank (1-based, None beyond DEEP) of each query's paper in FTS5, per mode."""
    rows: dict[str, list[Source]] = {}
    texts: list[str] = []
    for path in [p for folder in folders for p in corpus_files(folder)]:
        for index, text in enumerate(read_abstracts(path)):
            key = _key(text)
            if key not in rows:
                rows[key] = []
                texts.append(text)
            rows[key].append((path.name, index))
    sources = [rows[_key(t)] for t in texts]  # rowid - 1 -> sources
    fts = Fts5(work / "relevance-fts.sqlite3")
    fts.create()
    fts.insert(texts)
    out: dict[str, list[int | None]] = {}
    for mode in ("or", "and"):
        ranks: list[int | None] = []
        for q in queries:
            hits = fts.search(to_match(q["query"], mode), limit=DEEP)
            ranks.append(_rank([sources[h.rowid - 1] for h in hits], (q["file"], q["index"])))
        out[f"fts5_{mode}"] = ranks
    fts.close()
    return out


def desk_ranks(folders: list[Path], queries: list[dict[str, Any]], work: Path) -> list[int | None]:
    """Rank of each query's paper in desk's search (Library.search)."""
    from desk.core.library.facade import Library

    errors = ErrorLog()
    logging.getLogger().addHandler(errors)
    with Library(work / "desk-library") as lib:
        lib.import_paths(folders)
        ranks: list[int | None] = []
        for q in queries:
            page = lib.search(q["query"], limit=DEEP)
            found = [[(s.file, s.index) for s in row.paper.sources] for row in page.rows]
            ranks.append(_rank(found, (q["file"], q["index"])))
    logging.getLogger().removeHandler(errors)
    for message in dict.fromkeys(errors.messages):
        print(f"desk logged an error: {message}", file=sys.stderr)
    return ranks


def _rank(found: list[list[Source]], target: Source) -> int | None:
    for position, sources in enumerate(found, start=1):
        if target in sources:
            return position
    return None


def metrics(ranks: list[int | None]) -> dict[str, float]:
    """MRR@K and recall@K."""
    n = len(ranks) or 1
    return {
        f"mrr@{K}": sum(1 / r for r in ranks if r is not None and r <= K) / n,
        f"recall@{K}": sum(1 for r in ranks if r is not None and r <= K) / n,
    }


def _show(rank: int | None) -> str:
    return "-" if rank is None else str(rank)


def evaluate(folders: list[Path], queries: list[dict[str, Any]]) -> dict[str, list[int | None]]:
    """Ranks of every query's paper for desk and both FTS5 modes over the abstracts in folders."""
    with tempfile.TemporaryDirectory(prefix="desk-relevance-") as tmp:
        ranks = {"desk": desk_ranks(folders, queries, Path(tmp))}
        ranks.update(fts_ranks(folders, queries, Path(tmp)))
    return ranks


def summarize(
    label: str, queries: list[dict[str, Any]], ranks: dict[str, list[int | None]]
) -> dict[str, Any]:
    """Print one setting's figures and misses; return them for the JSON."""
    engines = list(ranks)
    overall = {e: metrics(r) for e, r in ranks.items()}
    by_kind: dict[str, dict[str, dict[str, float]]] = defaultdict(dict)
    for kind in sorted({q["kind"] for q in queries}):
        picked = [i for i, q in enumerate(queries) if q["kind"] == kind]
        for e in engines:
            by_kind[kind][e] = metrics([ranks[e][i] for i in picked])
    papers = len({(q["file"], q["index"]) for q in queries})
    print(f"## {label}: {len(queries)} queries for {papers} papers")
    print(f"| engine | MRR@{K} | recall@{K} |")
    print("|---|---|---|")
    for e in engines:
        print(f"| {e} | {overall[e][f'mrr@{K}']:.3f} | {overall[e][f'recall@{K}']:.3f} |")
    print(f"MRR@{K} by kind of query ({' / '.join(engines)}):")
    for kind, m in by_kind.items():
        n = sum(1 for q in queries if q["kind"] == kind)
        cells = " / ".join(f"{m[e][f'mrr@{K}']:.3f}" for e in engines)
        print(f"  {kind:<12} ({n:>3}) {cells}")
    deltas = {}
    for e in engines[1:]:
        d = overall["desk"][f"mrr@{K}"] - overall[e][f"mrr@{K}"]
        r = overall["desk"][f"recall@{K}"] - overall[e][f"recall@{K}"]
        deltas[e] = {f"mrr@{K}": d, f"recall@{K}": r}
        print(f"desk - {e}: MRR@{K} {d:+.3f}, recall@{K} {r:+.3f}")
    misses = [
        {"query": q["query"], "kind": q["kind"], "file": q["file"], "index": q["index"]}
        | {f"{e}_rank": ranks[e][i] for e in engines}
        for i, q in enumerate(queries)
        if ranks["desk"][i] is None or ranks["desk"][i] > 1
    ]
    print(f"queries where desk does not rank the paper first (rank; '-' = not in top {DEEP}):")
    for m in sorted(misses, key=lambda m: -(m["desk_rank"] or DEEP + 1)):
        cells = "  ".join(f"{e}={_show(m[f'{e}_rank'])}" for e in engines)
        print(f"  {cells}  [{m['kind']}] {m['query']!r} -> {m['file'][:3]}#{m['index']}")
    print()
    per_query = [q | {f"{e}_rank": ranks[e][i] for e in engines} for i, q in enumerate(queries)]
    return {
        "overall": overall,
        "desk_minus": deltas,
        "by_kind": by_kind,
        "not_first_in_desk": misses,
        "per_query": per_query,
    }


def main(argv: list[str] | None = None) -> int:
    """Run the comparison on the seeds alone and among synthetic distractors; print; write JSON."""
    p = argparse.ArgumentParser(description="desk vs FTS5 relevance on the seeds")
    p.add_argument("--seeds", type=Path, default=HERE.parent / "seeds")
    p.add_argument("--set", type=Path, default=HERE / "relevance_set.json")
    p.add_argument("--out", type=Path, default=HERE / "out" / "relevance.json")
    p.add_argument("--distractors", type=int, default=DISTRACTORS, help="synthetic abstracts added (0: none)")
    args = p.parse_args(argv)
    queries: list[dict[str, Any]] = json.loads(args.set.read_text(encoding="utf-8"))["queries"]
    report: dict[str, Any] = {
        "k": K,
        "queries": len(queries),
        "fts5_modes": {
            "fts5_or": "OR of the query's words, ranked by bm25 (the headline comparison)",
            "fts5_and": "AND of the query's words (FTS5's default), ranked by bm25",
        },
        "settings": {},
    }
    report["settings"]["seeds"] = summarize("seeds (94 papers)", queries, evaluate([args.seeds], queries))
    if args.distractors:
        with tempfile.TemporaryDirectory(prefix="desk-distractors-") as tmp:
            Generator().write(args.distractors, Path(tmp))
            label = f"seeds + {args.distractors:,} synthetic distractors"
            report["settings"]["seeds+distractors"] = summarize(
                label, queries, evaluate([args.seeds, Path(tmp)], queries)
            )
        report["distractors"] = args.distractors
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"JSON: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
