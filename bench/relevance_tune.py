"""Try ranking settings side by side on the dev corpus, tuned on even-numbered papers, reported on odd.

One library of the real abstracts (``../shared/dev-corpus/``, optionally among recombined
distractors) is built once, its semantic vectors too, and kept in ``--library`` for the next run.
Each variant sets module constants of desk's ranking for its run (``module.NAME=value``, modules
under ``desk.core.search`` or ``desk.core.semantic``) and answers every query of the sets of
bench/relevance_dev.py; the table gives MRR@10 and recall@10 of each set split by the paper's
index: even (where a setting is chosen) and odd (where it is checked). The researcher set is
split by the position of the query in bench/dev_queries.json. A variant that sets a constant of
``desk.core.semantic.lsa`` (``lsa.SINGULAR_POWER=1``, ``lsa.DIMENSIONS=300``) refits the
library's vectors in memory for its run; the store on disk is never changed, and is read back
after it.

    python bench/relevance_tune.py --library /tmp/devlib \
        --variant base= --variant coord2=ranking.COORD_WEIGHT=2 --sets 4words,rare
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from pathlib import Path
from typing import Any

from relevance_dev import CORPUS, DEPTH, QUERIES, Query, load_sets, metrics

SETS = ("title", "4words", "sentence", "rare", "researcher")


def parse_variant(spec: str) -> tuple[str, list[tuple[Any, str, Any]]]:
    """``NAME=mod.CONST=value,mod.DICT.key=value`` -> (NAME, [(module or dict, CONST or key, value)])."""
    name, _, rest = spec.partition("=")
    settings = []
    for item in filter(None, rest.split(",")):
        target, _, value = item.partition("=")
        module_name, const, *key = target.split(".")
        module = None
        for package in ("desk.core.search.", "desk.core.semantic."):
            try:
                module = importlib.import_module(package + module_name)
                break
            except ModuleNotFoundError:
                continue
        if module is None or not hasattr(module, const):
            raise SystemExit(f"no setting {target!r}")
        owner: Any = module
        if key:  # an entry of a dict (schema.BOOSTS.title)
            owner, const = getattr(module, const), key[0]
            current = owner[const]
        else:
            current = getattr(module, const)
        settings.append((owner, const, type(current)(json.loads(value))))
    return name, settings


def _get(owner: Any, name: str) -> Any:
    return owner[name] if isinstance(owner, dict) else getattr(owner, name)


def _set(owner: Any, name: str, value: Any) -> None:
    if isinstance(owner, dict):
        owner[name] = value
    else:
        setattr(owner, name, value)


def open_library(path: Path, corpus: Path, distractors: int) -> Any:
    """The dev library at ``path`` (imported on the first run), vectors built."""
    from desk.core.library.facade import Library

    fresh = not (path / "library.sqlite3").exists()
    lib = Library(path)
    if fresh:
        extra: list[Path] = []
        if distractors:
            from realcorpus import RealGenerator

            extra = RealGenerator(seed=7, folder=corpus).write(
                distractors, path.parent / f"{path.name}-distractors"
            )
        lib.import_paths([corpus / "cvpr2023.txt", *extra])
    lib.discovery.ensure_vectors()
    return lib


def refit_in_memory(lib: Any) -> None:
    """Fit the library's vectors again with the LSA settings now in force, kept in memory only."""
    import numpy as np

    from desk.core.semantic import vectors

    ids = np.asarray(sorted(lib.discovery._all_ids()), np.int64)
    lib.vectors._set(vectors._build(ids, lib.discovery._papers(), None))  # private on purpose: memory only


def evaluate(lib: Any, sets: dict[str, list[Query]], index_of: dict[int, int]) -> dict[str, Any]:
    """MRR@10 / recall@10 per set, even and odd, and the per-query reciprocal ranks."""
    out: dict[str, Any] = {}
    for name, queries in sets.items():
        split: dict[str, list[dict[str, float]]] = {"even": [], "odd": []}
        for pos, q in enumerate(queries):
            ids = [h.id for h in lib.search_ids(q.text, limit=DEPTH).hits]
            ranked = [index_of.get(i, -1) for i in ids]
            key = pos if name == "researcher" else next(iter(q.relevant))
            split["even" if key % 2 == 0 else "odd"].append(metrics(q, ranked))
        out[name] = {
            half: {m: sum(r[m] for r in rows) / max(1, len(rows)) for m in ("mrr", "recall", "ndcg")}
            for half, rows in split.items()
        }
    return out


def evaluate_with(
    lib: Any, sets: dict[str, list[Query]], index_of: dict[int, int], settings: list[tuple[Any, str, Any]]
) -> dict[str, Any]:
    """``evaluate`` with a variant's settings in force (vectors refitted in memory for an LSA
    setting), every setting put back after it."""
    saved = [(m, c, _get(m, c)) for m, c, _ in settings]
    for m, c, v in settings:
        _set(m, c, v)
    refit = any(getattr(m, "__name__", "") == "desk.core.semantic.lsa" for m, _, _ in settings)
    try:
        if refit:
            refit_in_memory(lib)
        return evaluate(lib, sets, index_of)
    finally:
        for m, c, v in saved:
            _set(m, c, v)
        if refit:
            lib.vectors.load()  # the store on disk, as built with the shipped settings


def main(argv: list[str] | None = None) -> int:
    """Run each variant; print one table."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--library", type=Path, required=True, help="kept between runs (built when absent)")
    p.add_argument("--corpus", type=Path, default=CORPUS)
    p.add_argument("--variant", action="append", default=[], help="NAME=module.CONST=value,...")
    p.add_argument("--sets", default=",".join(SETS))
    p.add_argument("--distractors", type=int, default=0, help="only when the library is first built")
    p.add_argument("--fts", action="store_true", help="also FTS5-OR and -AND on the same abstracts")
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    if not (args.corpus / "cvpr2023.txt").is_file():
        print(f"skipped: no dev corpus at {args.corpus.resolve()}")
        return 0
    variants = [parse_variant(v) for v in args.variant or ["base="]]
    wanted = args.sets.split(",")
    sets = {k: v for k, v in load_sets(args.corpus, QUERIES, titles=True).items() if k in wanted}
    lib = open_library(args.library, args.corpus, args.distractors)
    index_of = {p.id: s.index for p in lib.list_papers() for s in p.sources if s.file == "cvpr2023.txt"}
    lib.search_ids("warm up", limit=DEPTH)
    results: dict[str, Any] = {}
    if args.fts:
        import tempfile

        from relevance_dev import mean_metrics, run_fts

        extra = sorted((args.library.parent / f"{args.library.name}-distractors").rglob("*.txt"))
        with tempfile.TemporaryDirectory() as tmp:
            run_fts(args.corpus / "cvpr2023.txt", sets, Path(tmp), extra)
        for engine in ("fts5_or", "fts5_and"):
            results[engine] = {name: {"all": mean_metrics(qs, engine)} for name, qs in sets.items()}
            row = "  ".join(
                f"{s} {r['all']['mrr']:.4f} R {r['all']['recall']:.3f}" for s, r in results[engine].items()
            )
            print(f"{engine:<14} {row}", flush=True)
    for name, settings in variants:
        t0 = time.perf_counter()
        results[name] = evaluate_with(lib, sets, index_of, settings)
        took = time.perf_counter() - t0
        row = "  ".join(
            f"{s} {r['even']['mrr']:.4f}/{r['odd']['mrr']:.4f}"
            f" R {r['even']['recall']:.3f}/{r['odd']['recall']:.3f}"
            for s, r in results[name].items()
        )
        print(f"{name:<14} {row}  ({took:.0f} s)", flush=True)
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    lib.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
