"""The sentence encoder on the dev corpus: 64 word pieces against 128, and rankings part-way through a build.

One library of the real abstracts (``../shared/dev-corpus/``, optionally among recombined
distractors) is kept in ``--library``. Its encoder store is computed once per word-piece cut
(timed, with the load average) and kept beside the library (``<library>-encoded-<N>``). Then
every query of bench/relevance_dev.py's sets is answered by ``Library.search_ids`` in each
configuration:

- ``words``: the words alone (neither LSA's vectors nor the encoder's: the moment an import of
  a big list returns, before the background builds);
- ``lsa``: words and LSA alone (no encoder vector: the build has not begun);
- ``cover-P-T``: P % of the papers, drawn at random (seed 7), have their vector at T pieces, as
  part-way through a build; the others wait for theirs (fusion.mixed_cosines estimates them);
- ``cover-100-T``: the build done.

MRR@10 per set (mean of the even and odd papers), printed as each configuration ends; ``--fts``
adds FTS5-OR and -AND over the same abstracts (distractors included) in the same run:

    nice -n 19 python bench/encoder_dev.py --library /tmp/enc-dev --tokens 128,64 --cover 0,25,50,100
    python bench/encoder_dev.py --library /tmp/e90/dev --distractors 90000 --tokens 128 \
        --cover 0,25,50,100 --fts --sets title,4words,rare,researcher
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from relevance_dev import CORPUS, DEPTH, QUERIES, load_sets
from relevance_tune import SETS, evaluate

HERE = Path(__file__).resolve().parent


class Subset:
    """``Papers`` (keys.py) of a library restricted to some ids: a store kept to them."""

    def __init__(self, papers: Any, ids: np.ndarray) -> None:
        self.papers, self.ids = papers, np.sort(ids)

    def keys(self) -> tuple[np.ndarray, np.ndarray]:
        ids, keys = self.papers.keys()
        keep = np.isin(ids, self.ids)
        return ids[keep], keys[keep]

    def texts(self, ids: Any) -> Any:
        return self.papers.texts(ids)


def open_library(path: Path, corpus: Path, distractors: int) -> Any:
    """The dev library (imported on the first run) with LSA's vectors built."""
    os.environ["DESK_SENTENCE_ENCODER"] = "1"
    from desk.core.library.facade import Library
    from desk.core.semantic.keys import DatabasePapers

    fresh = not (path / "library.sqlite3").exists()
    lib = Library(path)
    if fresh:
        extra: list[Path] = []
        if distractors:
            from realcorpus import RealGenerator

            generator = RealGenerator(seed=7, folder=corpus)
            extra = generator.write(distractors, path.parent / f"{path.name}-distractors")
        lib.import_paths([corpus / "cvpr2023.txt", *extra])
    lib.vectors.ensure(DatabasePapers(lib.db))
    return lib


def full_store(lib: Any, tokens: int) -> dict[str, Any]:
    """The library's encoder store at ``tokens`` pieces, from its copy or encoded now (timed)."""
    from desk.core.semantic import encoded, encoded_files
    from desk.core.semantic.keys import DatabasePapers

    encoded.MAX_TOKENS = tokens
    kept = lib.directory.parent / f"{lib.directory.name}-encoded-{tokens}"
    store = lib.encoded.directory
    info: dict[str, Any] = {"tokens": tokens}
    if (kept / encoded_files.MANIFEST_NAME).is_file():
        shutil.rmtree(store, ignore_errors=True)
        shutil.copytree(kept, store)
        info.update(json.loads((kept / "timing.json").read_text()))
    else:
        shutil.rmtree(store, ignore_errors=True)
        lib.encoded.ids = None
        papers = DatabasePapers(lib.db)
        n = len(papers.keys()[0])
        load0, t0, cpu0 = os.getloadavg()[0], time.perf_counter(), time.process_time()
        lib.encoded.ensure(papers)
        seconds, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        info.update(
            papers=n,
            seconds=seconds,
            cpu_seconds=cpu,
            per_s=n / seconds,
            load_before=load0,
            load_after=os.getloadavg()[0],
        )
        shutil.rmtree(kept, ignore_errors=True)
        shutil.copytree(store, kept)
        (kept / "timing.json").write_text(json.dumps(info), encoding="utf-8")
    assert lib.encoded.load()
    return info


def covered(lib: Any, share: float, seed: int = 7) -> int:
    """Keep the vectors of ``share`` of the papers (drawn at random); how many are kept."""
    from desk.core.semantic.keys import DatabasePapers

    papers = DatabasePapers(lib.db)
    ids = papers.keys()[0]
    chosen = np.array(sorted(random.Random(seed).sample(ids.tolist(), round(share * len(ids)))), np.int64)
    lib.encoded.ensure(Subset(papers, chosen))
    return len(chosen)


def fts_results(library: Path, corpus: Path, sets: dict[str, Any]) -> dict[str, Any]:
    """FTS5-OR's and -AND's MRR@10 (recall@10, nDCG@10) per set over the library's abstracts."""
    import tempfile

    from relevance_dev import mean_metrics, run_fts

    extra = sorted((library.parent / f"{library.name}-distractors").rglob("*.txt"))
    with tempfile.TemporaryDirectory() as tmp:
        run_fts(corpus / "cvpr2023.txt", sets, Path(tmp), extra)
    out: dict[str, Any] = {}
    for engine in ("fts5_or", "fts5_and"):
        out[engine] = {name: mean_metrics(qs, engine) for name, qs in sets.items()}
        print(f"{engine:<14} " + "  ".join(f"{s} {r['mrr']:.4f}" for s, r in out[engine].items()), flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    """Run each configuration; print one line each; write JSON."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--library", type=Path, required=True)
    p.add_argument("--corpus", type=Path, default=CORPUS)
    p.add_argument(
        "--tokens",
        default="128,64",
        help="word-piece cuts, each at 100 %% coverage (0: words and LSA alone)",
    )
    p.add_argument("--cover", default="0,25,50,100", help="coverages (%%) at the first cut")
    p.add_argument("--sets", default=",".join(SETS))
    p.add_argument("--distractors", type=int, default=0)
    p.add_argument("--fts", action="store_true", help="also FTS5-OR and -AND on the same abstracts")
    p.add_argument("--out", type=Path, default=HERE / "out" / "encoder_dev.json")
    args = p.parse_args(argv)
    if not (args.corpus / "cvpr2023.txt").is_file():
        print(f"skipped: no dev corpus at {args.corpus.resolve()}")
        return 0
    wanted = args.sets.split(",")
    sets = {k: v for k, v in load_sets(args.corpus, QUERIES, titles=True).items() if k in wanted}
    lib = open_library(args.library, args.corpus, args.distractors)
    index_of = {p.id: s.index for p in lib.list_papers() for s in p.sources if s.file == "cvpr2023.txt"}
    tokens = [int(t) for t in args.tokens.split(",") if int(t)]
    covers = [int(c) for c in args.cover.split(",")]
    results: dict[str, Any] = {"library": {"papers": lib.count(), "distractors": args.distractors}}
    if args.fts:
        results.update(fts_results(args.library, args.corpus, sets))
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")

    def run(name: str, extra: dict[str, Any]) -> None:
        load0, t0 = os.getloadavg()[0], time.perf_counter()
        lib.search_ids("warm up", limit=DEPTH)
        found = evaluate(lib, sets, index_of)
        mrr = {s: (r["even"]["mrr"] + r["odd"]["mrr"]) / 2 for s, r in found.items()}
        results[name] = {
            "mrr": mrr,
            "halves": found,
            **extra,
            "eval_s": time.perf_counter() - t0,
            "load": [load0, os.getloadavg()[0]],
        }
        print(
            f"{name:<14} "
            + "  ".join(f"{s} {v:.4f}" for s, v in mrr.items())
            + f"  ({time.perf_counter() - t0:.0f} s, load {load0:.1f}) {extra}",
            flush=True,
        )
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")

    if not tokens:  # --tokens 0: no encoder store (minutes at 100k): the words, then words + LSA
        semantic, encoded = lib.index.semantic, lib.index.encoded
        lib.index.encoded = None
        try:
            lib.index.semantic = None
            run("words", {})
            lib.index.semantic = semantic
            run("lsa", {})
        finally:
            lib.index.semantic, lib.index.encoded = semantic, encoded
    for n, cut in enumerate(tokens):
        info = full_store(lib, cut)
        print(f"encoded at {cut} pieces: {info}", flush=True)
        for share in covers if n == 0 else [100]:
            if share == 0:
                semantic, encoded = lib.index.semantic, lib.index.encoded
                lib.index.semantic = lib.index.encoded = None
                try:
                    run("words", {})
                finally:
                    lib.index.semantic, lib.index.encoded = semantic, encoded
                encoded, lib.index.encoded = lib.index.encoded, None
                try:
                    run("lsa", {})
                finally:
                    lib.index.encoded = encoded
                continue
            if share < 100:
                full_store(lib, cut)  # from the copy: every configuration starts from the whole store
                kept = covered(lib, share / 100)
            else:
                full_store(lib, cut)
                kept = len(lib.encoded.ids)
            run(f"cover-{share}-{cut}", {"vectors": kept, **({"encode": info} if share == 100 else {})})
    lib.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
