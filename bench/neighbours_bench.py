"""Nearest neighbours of the sentence encoder's vectors at scale: what int8 storage costs, and the
exact products against an approximate index (numpy IVF; usearch's HNSW when it is installed).

The vectors have the structure of real ones: each is a mix of two of the dev corpus's real MiniLM
vectors (an encoded dev library's store, ``--store``) with a random weight, plus Gaussian noise,
made unit; a million of them are written straight into int8 rows (rows8.py), never as floats.
A query is a stored row (the "related papers" case), its own row left out of both answers.
Recall@10: the share of the exact top 10 (float32 rows where they are kept, else the exact
int8 products) the other answer finds. Times are one query at a time on one BLAS thread.

    python bench/neighbours_bench.py --store LIB/encoded --sizes 200000,1000000 [--queries 200]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from desk.core.semantic import neighbours, rows8  # noqa: E402
from desk.core.semantic.encoded import EncodedVectors  # noqa: E402

K = 10
NOISE = 0.35  # the noise's norm beside a unit mix of two real vectors
CHUNK = 50_000


def real_vectors(store: Path) -> np.ndarray:
    """The unit float32 rows of an encoded store of either format (int16 or int8), read as is."""
    raw = np.load(store / "vectors.npy", allow_pickle=False)
    if raw.dtype == rows8.ROW:
        return rows8.floats(raw)
    return raw.astype(np.float32) / np.float32(32767.0)


def synthesize(
    real: np.ndarray, n: int, seed: int, keep_floats: bool
) -> tuple[np.ndarray, np.ndarray | None]:
    """``n`` int8 rows (and their float32 rows when ``keep_floats``) mixed from ``real``."""
    rng = np.random.default_rng(seed)
    rows = np.zeros(n, rows8.ROW)
    floats = np.empty((n, real.shape[1]), np.float32) if keep_floats else None
    for lo in range(0, n, CHUNK):
        m = min(CHUNK, n - lo)
        a, b = rng.integers(0, len(real), m), rng.integers(0, len(real), m)
        w = rng.uniform(0.5, 1.0, m).astype(np.float32)[:, None]
        x = w * real[a] + (1 - w) * real[b]
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        x += rng.standard_normal(size=x.shape, dtype=np.float32) * np.float32(NOISE / np.sqrt(real.shape[1]))
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        rows[lo : lo + m] = rows8.quantize(x)
        if floats is not None:
            floats[lo : lo + m] = x
    return rows, floats


def truth(matrix_rows: np.ndarray | None, rows: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """The exact top K (self left out) of each query row, by float32 rows when given else int8."""
    q = rows8.floats(rows[queries]) if matrix_rows is None else matrix_rows[queries]
    best = np.full((len(queries), K + 1), -2.0, np.float32)
    where = np.zeros((len(queries), K + 1), np.int64)
    for lo in range(0, len(rows), 16_384):
        block = rows8.floats(rows[lo : lo + 16_384]) if matrix_rows is None else matrix_rows[lo : lo + 16_384]
        s = block @ q.T  # rows × queries
        both = np.concatenate([best, s.T], axis=1)
        ids = np.concatenate([where, np.arange(lo, lo + len(s))[None, :].repeat(len(queries), 0)], axis=1)
        pick = np.argpartition(-both, K, axis=1)[:, : K + 1]
        best = np.take_along_axis(both, pick, 1)
        where = np.take_along_axis(ids, pick, 1)
    out = np.zeros((len(queries), K), np.int64)
    for i, qi in enumerate(queries.tolist()):
        order = np.argsort(-best[i])
        kept = [int(r) for r in where[i][order] if int(r) != qi][:K]
        out[i] = kept
    return out


def recall(found: list[np.ndarray], exact: np.ndarray) -> float:
    return float(
        np.mean([len(set(f.tolist()) & set(e.tolist())) / K for f, e in zip(found, exact, strict=True)])
    )


#: CPU ms a query, by what was timed (``timed``): on a machine at load 20 a process gets a tenth
#: of a core, and wall times say more about the other jobs than about the query.
CPU_MS: dict[str, float] = {}


def timed(fn, queries: np.ndarray, label: str = "") -> tuple[list[np.ndarray], float, float]:
    """Each query's top K (self left out), p50 and p95 wall ms (the mean CPU ms in CPU_MS)."""
    found, times = [], []
    cpu = time.process_time()
    for qi in queries.tolist():
        started = time.perf_counter()
        got = fn(qi)
        times.append((time.perf_counter() - started) * 1000)
        found.append(np.array([r for r in got.tolist() if r != qi][:K], np.int64))
    CPU_MS[label] = round((time.process_time() - cpu) * 1000 / max(1, len(queries)), 2)
    return found, float(np.percentile(times, 50)), float(np.percentile(times, 95))


def usearch_index(rows: np.ndarray, threads: int):
    """usearch's HNSW over the int8 rows (cosine), or None when it is not installed."""
    try:
        from usearch.index import Index
    except ImportError:
        return None
    index = Index(ndim=rows8.DIMENSIONS, metric="cos", dtype="i8")
    for lo in range(0, len(rows), CHUNK):
        block = rows8.floats(rows[lo : lo + CHUNK])
        index.add(np.arange(lo, lo + len(block)), block, threads=threads)
    return index


@contextlib.contextmanager
def patched_exact_max(value: int) -> Iterator[None]:
    saved = neighbours.EXACT_MAX
    neighbours.EXACT_MAX = value
    try:
        yield
    finally:
        neighbours.EXACT_MAX = saved


def rss_child(folder: Path, n: int) -> dict[str, float]:
    """VmRSS / VmHWM (MB) of a fresh process that opens the store and answers queries."""
    proc = subprocess.run(
        [sys.executable, __file__, "--store", str(folder), "--rss-child", str(folder), "--sizes", str(n)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _status() -> dict[str, float]:
    out = {}
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:", "RssFile:", "RssAnon:")):
                out[line.split(":")[0]] = round(int(line.split()[1]) / 1024, 1)
    return out


def rss_probe(folder: Path, n: int) -> None:
    """In the child: open the store as a window does (CRC checked, rows mapped), then answer
    related papers' nearest-neighbour queries (the index, since n > EXACT_MAX), queries over
    every paper (a search's joiners, the "recommended" sort's product) and each paper's vector."""
    out: dict[str, object] = {"start": _status()}
    store = EncodedVectors(folder, model_folder=None)
    started = time.perf_counter()
    assert store.load() and store.ids is not None
    out["load_s"] = round(time.perf_counter() - started, 2)
    out["opened"] = _status()
    rng = np.random.default_rng(3)
    with patched_exact_max(n - 1):
        for pid in rng.choice(store.ids, 100).tolist():
            vec = store.vector_of(int(pid))
            assert vec is not None
            store.nearest(vec, 200)
    out["after_100_index_queries"] = _status()
    started = time.perf_counter()
    cpu = time.process_time()
    for pid in rng.choice(store.ids, 5).tolist():
        vec = store.vector_of(int(pid))
        assert vec is not None
        store.cosines_of(vec, store.ids)  # one pass over every row, the pages given back
    out["full_product_ms"] = round((time.perf_counter() - started) * 200, 1)
    out["full_product_cpu_ms"] = round((time.process_time() - cpu) * 200, 1)
    out["after_5_full_products"] = _status()
    print(json.dumps(out))


def measure(
    real: np.ndarray, n: int, queries_n: int, probes: list[int], use_usearch: bool, rss: bool = False
) -> dict[str, object]:
    keep = n <= 200_000
    started = time.perf_counter()
    rows, floats = synthesize(real, n, 5, keep)
    made_s = time.perf_counter() - started
    queries = np.random.default_rng(9).choice(n, queries_n, replace=False)
    out: dict[str, object] = {"rows": n, "queries": queries_n, "load_before": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory(prefix="desk-neighbours-") as tmp:
        folder = Path(tmp) / "encoded"  # a library's encoder store, as the builder writes it
        ids = np.arange(1, n + 1, dtype=np.int64)
        EncodedVectors(folder, model_folder=None)._write(ids, ids, rows)
        out["store_bytes"] = sum(p.stat().st_size for p in folder.glob("*.npy"))
        out["vectors_bytes"] = (folder / "vectors.npy").stat().st_size
        del rows
        store = EncodedVectors(folder, model_folder=None)
        assert store.load() and store.vectors is not None
        rows, pages = store.vectors, store._pages
        started = time.perf_counter()
        exact_int8 = truth(None, rows, queries)
        out["truth_s"] = round(time.perf_counter() - started, 1)
        if floats is not None:
            exact_f32 = truth(floats, rows, queries)
            out["int8_recall10_vs_float32"] = recall(list(exact_int8), exact_f32)
            del floats
        else:
            exact_f32 = None
        found, p50, p95 = timed(
            lambda qi: neighbours.exact(rows, rows8.floats(rows[qi : qi + 1])[0], K + 1, pages)[0],
            queries[:50],
            "exact",
        )
        out["exact_ms_p50"], out["exact_ms_p95"] = round(p50, 2), round(p95, 2)
        out["exact_cpu_ms"] = CPU_MS["exact"]
        started = time.perf_counter()
        cpu = time.process_time()
        with patched_exact_max(n - 1):  # the index is wanted whatever the size measured
            store.ensure_neighbours()
            ivf = store.neighbours.index(store.stamp, n)
        assert ivf is not None
        out["ivf_build_s"] = round(time.perf_counter() - started, 1)
        out["ivf_build_cpu_s"] = round(time.process_time() - cpu, 1)
        sizes = np.diff(ivf.starts)
        out["ivf_list_rows_p50_max"] = [int(np.median(sizes)), int(sizes.max())]
        out["ivf_files_bytes"] = sum(p.stat().st_size for p in (folder / neighbours.DIR_NAME).glob("*.npy"))
        if rss:
            out["rss"] = rss_child(folder, n)
        out["ivf_lists"] = len(ivf.centroids)
        out["ivf_bytes"] = int(ivf.centroids.nbytes + ivf.order.nbytes + ivf.starts.nbytes + ivf.rows.nbytes)
        for probe in probes:
            found, p50, p95 = timed(
                lambda qi, probe=probe: ivf.search(rows8.floats(rows[qi : qi + 1])[0], K + 1, probe)[0],
                queries,
                "ivf",
            )
            entry = {"recall10": recall(found, exact_int8), "ms_p50": round(p50, 2), "ms_p95": round(p95, 2)}
            entry["cpu_ms"] = CPU_MS["ivf"]
            if exact_f32 is not None:
                entry["recall10_vs_float32"] = recall(found, exact_f32)
            out[f"ivf_probes_{probe}"] = entry
        if use_usearch:
            started = time.perf_counter()
            index = usearch_index(rows, threads=os.cpu_count() or 1)
            if index is not None:
                out["usearch_build_s"] = round(time.perf_counter() - started, 1)
                saved = Path(tmp) / "usearch.index"
                index.save(str(saved))
                out["usearch_bytes"] = saved.stat().st_size

                def ann(qi: int) -> np.ndarray:
                    got = index.search(rows8.floats(rows[qi : qi + 1])[0], K + 1, threads=1)
                    return np.asarray(got.keys, np.int64)

                found, p50, p95 = timed(ann, queries, "usearch")
                entry = {
                    "recall10": recall(found, exact_int8),
                    "ms_p50": round(p50, 3),
                    "ms_p95": round(p95, 3),
                }
                if exact_f32 is not None:
                    entry["recall10_vs_float32"] = recall(found, exact_f32)
                entry["cpu_ms"] = CPU_MS["usearch"]
                out["usearch"] = entry
        out["synthesize_s"] = round(made_s, 1)
        out["load_after"] = os.getloadavg()[0]
    return out


def main(argv: list[str] | None = None) -> int:
    """Measure, print a table, write JSON."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--store", type=Path, required=True, help="an encoded dev library's encoded/ folder")
    p.add_argument("--sizes", default="200000,1000000")
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--probes", default="8,16,24,32")
    p.add_argument("--no-usearch", action="store_true")
    p.add_argument("--rss", action="store_true", help="also the RSS of a process answering queries")
    p.add_argument("--rss-child", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "neighbours.json")
    args = p.parse_args(argv)
    from threadpoolctl import threadpool_limits

    if args.rss_child:
        with threadpool_limits(1):
            rss_probe(args.rss_child, int(args.sizes))
        return 0

    real = real_vectors(args.store)
    results: dict[str, object] = {"real_vectors": len(real)}
    with threadpool_limits(1):  # a window's query runs on one BLAS thread (vectors.one_blas_thread)
        dev = rows8.quantize(real)
        q = np.arange(len(real))
        results["dev_int8_recall10_vs_float32"] = recall(list(truth(None, dev, q)), truth(real, dev, q))
    for n in [int(s) for s in args.sizes.split(",")]:
        with threadpool_limits(1):
            probes = [int(s) for s in args.probes.split(",")]
            results[str(n)] = measure(real, n, args.queries, probes, not args.no_usearch, rss=args.rss)
        print(json.dumps(results[str(n)], indent=1), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1), encoding="utf-8")
    print(f"dev vectors: int8 recall@10 against float32 {results['dev_int8_recall10_vs_float32']:.4f}")
    print("| rows | exact ms p50/p95 | IVF probes: recall@10, ms p50/p95 | usearch recall@10, ms p50/p95 |")
    print("|---|---|---|---|")
    for n in args.sizes.split(","):
        r = results[n]
        assert isinstance(r, dict)
        ivf = "; ".join(
            f"{k.split('_')[-1]}: {v['recall10']:.3f}, {v['ms_p50']}/{v['ms_p95']}"
            for k, v in r.items()
            if k.startswith("ivf_probes")
        )
        us = r.get("usearch")
        us_text = (
            f"{us['recall10']:.3f}, {us['ms_p50']}/{us['ms_p95']}" if isinstance(us, dict) else "not run"
        )
        print(f"| {n} | {r['exact_ms_p50']}/{r['exact_ms_p95']} | {ivf} | {us_text} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
