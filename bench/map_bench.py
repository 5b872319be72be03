"""The map's quality on real abstracts, and its time: `lib.atlas.ensure()` on the dev corpus and bigger.

Quality, on ``../shared/dev-corpus/`` (2,359 real CVPR 2023 abstracts; their real titles stay
outside the library: ``titles.tsv`` is read here only). A topic is a phrase of the real titles
("diffusion", "point cloud", "3D", ...); its papers are those whose title holds it. For each:

- ``main``: the share of the topic's papers in the cluster holding most of them (goal >= 0.5);
- ``lift``: the share of a topic paper's 10 nearest papers on the map (2D) that are of the topic,
  over the topic's share of the library (goal >= 10); ``max`` is the most a topic can reach
  (1 / its share: "3D" is in 11 % of the titles, so 8.9 is its ceiling);
- the number of clusters (8-80) and whether every label is distinct;
- the same two figures for every word of the real titles (none of a list of function words)
  that 25 titles or more hold and at most 15 % of them: topics nobody chose, a stand-in for
  another conference's. The summary counts those meeting each goal (the lift's goal is 10, or
  ``max`` when that is lower) and the geometric mean of their lifts.

Time: the map laid out from nothing (its file removed first), on the library as it is (the
sentence encoder's vectors when they cover it, else LSA's), and with ``--synthetic N`` on a
library of N abstracts recombined from real sentences (bench/realcorpus.py), LSA vectors.

    python bench/map_bench.py [--library DEV_LIB] [--synthetic 14000 ...] [--out FILE]

``--library`` reuses a library holding the dev corpus (imported from cvpr2023.txt, vectors
built): encoding its abstracts takes minutes, so the script builds one only when none is given.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from realcorpus import DEV_CORPUS

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
TOPICS = (
    "diffusion", "point cloud", "3D", "video", "segmentation", "detection", "radiance", "adversarial",
    "pose", "transformer", "few-shot", "federated", "human", "face", "super-resolution", "tracking",
    "language", "contrastive", "self-supervised",
)  # fmt: skip


#: Words of titles that name no topic (the title words' own stop list).
_TITLE_STOP = """a an the of for and in on with via to from by towards toward is are learning network
    networks using based deep neural model models beyond through"""
TITLE_STOP = frozenset(_TITLE_STOP.split())
MIN_TITLES, MAX_SHARE = 25, 0.15


def title_words(titles: list[str]) -> list[str]:
    """The words of the titles held by MIN_TITLES titles or more and at most MAX_SHARE of them,
    most frequent first (the named TOPICS left out)."""
    counts: dict[str, int] = {}
    for title in titles:
        for word in set(re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)*", title.lower())):
            if word not in TITLE_STOP and len(word) > 2:
                counts[word] = counts.get(word, 0) + 1
    named = {t.lower() for t in TOPICS}
    ranked = sorted(counts, key=lambda w: (-counts[w], w))
    return [w for w in ranked if MIN_TITLES <= counts[w] <= MAX_SHARE * len(titles) and w not in named]


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """How many topics meet each goal, and the geometric mean of their lifts."""
    lifts = np.array([max(r["lift"], 0.1) for r in rows])
    return {
        "topics": len(rows), "main_ok": sum(r["main"] >= 0.5 for r in rows),
        "lift_ok": sum(r["lift"] >= min(10.0, r["max"]) for r in rows),
        "mean_main": round(float(np.mean([r["main"] for r in rows])), 3),
        "geomean_lift": round(float(np.exp(np.log(lifts).mean())), 2),
    }  # fmt: skip


def titles_by_paper(library: Path, corpus: Path) -> dict[int, str]:
    """Each paper's real title, through its source's position in cvpr2023.txt."""
    with open(corpus / "titles.tsv", encoding="utf-8") as fh:
        real = {int(r["index"]): r["title"] for r in csv.DictReader(fh, delimiter="\t")}
    conn = sqlite3.connect(library / "library.sqlite3")
    try:
        rows = conn.execute("SELECT paper_id, \"index\" FROM source WHERE file = 'cvpr2023.txt'").fetchall()
    finally:
        conn.close()
    return {int(pid): real[int(i)] for pid, i in rows if int(i) in real}


def quality(
    ids: np.ndarray,
    xy: np.ndarray,
    clusters: np.ndarray,
    titles: dict[int, str],
    topics: tuple[str, ...] | list[str] = TOPICS,
) -> list[dict[str, Any]]:
    """Per topic: main-cluster share and the lift of the 10 nearest on the map."""
    from scipy.spatial import cKDTree  # type: ignore[import-untyped]

    near = cKDTree(xy).query(xy, 11)[1][:, 1:]
    out = []
    for topic in topics:
        pattern = re.compile(r"(?<![A-Za-z0-9])" + re.escape(topic) + r"(?![A-Za-z0-9])", re.I)
        has = np.array([bool(pattern.search(titles.get(int(i), ""))) for i in ids])
        if not has.any():
            continue
        share = float(has.mean())
        main = float(np.bincount(clusters[has]).max() / has.sum())
        lift = float(has[near[has]].mean() / share)
        out.append({"topic": topic, "papers": int(has.sum()), "main": round(main, 3),
                    "lift": round(lift, 1), "max": round(1 / share, 1)})  # fmt: skip
    return out


def timed_map(library: Path) -> tuple[Any, float]:
    """The library's map laid out from nothing (its file removed first), and the seconds it took."""
    from desk.core.atlas.store import FILE_NAME
    from desk.core.library.facade import Library
    from desk.core.runtime.paths import CACHE_DIR_NAME

    (library / CACHE_DIR_NAME / FILE_NAME).unlink(missing_ok=True)
    with Library(library) as lib:
        lib.discovery.ensure_vectors(detach=True)
        start = time.perf_counter()
        made = lib.atlas.ensure()
        return made, time.perf_counter() - start


def dev_library(where: Path, corpus: Path) -> Path:
    """A library holding the dev corpus, its vectors built (the sentence encoder's: minutes)."""
    from desk.core.library.facade import Library

    with Library(where) as lib:
        if not lib.count():
            lib.import_paths([corpus / "cvpr2023.txt"])
        lib.discovery.ensure_vectors(detach=False)
    return where


def synthetic(size: int, scratch: Path, corpus: Path) -> dict[str, Any]:
    """The map's time on ``size`` abstracts recombined from real sentences (LSA's vectors)."""
    from realcorpus import RealGenerator

    from desk.core.library.facade import Library

    files = RealGenerator(folder=corpus).write(size, scratch / f"corpus-{size}")
    library = scratch / f"lib-{size}"
    os.environ["DESK_SENTENCE_ENCODER"] = "0"  # LSA's vectors: encoding 100k abstracts takes hours
    with Library(library) as lib:
        start = time.perf_counter()
        lib.import_paths(files)
        imported = time.perf_counter() - start
    made, seconds = timed_map(library)
    return {
        "papers": len(made), "clusters": len(made.labels),
        "distinct": len(set(made.labels)) == len(made.labels), "import_s": round(imported, 1),
        "map_s": round(seconds, 1), "source": made.source,
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--library", type=Path, help="a library holding the dev corpus (else one is built)")
    p.add_argument(
        "--synthetic", type=int, nargs="*", default=[], metavar="N", help="also time N-abstract libraries"
    )
    p.add_argument("--corpus", type=Path, default=DEV_CORPUS, help="the dev corpus's folder")
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    if not (args.corpus / "titles.tsv").is_file():
        print("map_bench: ../shared/dev-corpus/ is not beside the repository; nothing measured")
        return 0
    report: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="desk-map-bench-") as tmp:
        library = args.library or dev_library(Path(tmp) / "dev", args.corpus)
        made, seconds = timed_map(library)
        titles = titles_by_paper(library, args.corpus)
        topics = quality(made.ids, made.xy, made.clusters, titles)
        words = quality(
            made.ids, made.xy, made.clusters, titles, title_words([titles.get(int(i), "") for i in made.ids])
        )
        sizes = np.bincount(made.clusters, minlength=len(made.labels))
        report["dev"] = {
            "papers": len(made), "source": made.source, "seconds": round(seconds, 1),
            "clusters": len(made.labels), "distinct": len(set(made.labels)) == len(made.labels),
            "labels": [f"{label} ({int(sizes[n])})" for n, label in enumerate(made.labels)], "topics": topics,
            "title_words": words, "summary": {"topics": summary(topics), "title_words": summary(words)},
        }  # fmt: skip
        print(f"dev corpus: {len(made):,} papers ({made.source}), {len(made.labels)} clusters, "
              f"labels distinct: {report['dev']['distinct']}, {seconds:.1f} s")  # fmt: skip
        for label in report["dev"]["labels"]:
            print(f"   {label}")
        print(f"{'topic':<18}{'papers':>7}{'main':>7}{'lift':>7}{'max':>7}")
        for t in topics:
            print(f"{t['topic']:<18}{t['papers']:>7}{t['main']:>7.2f}{t['lift']:>7.1f}{t['max']:>7.1f}")
        for name, got in report["dev"]["summary"].items():
            print(f"{name}: {got}")
        for size in args.synthetic:
            got = report[f"synthetic-{size}"] = synthetic(size, Path(tmp), args.corpus)
            print(f"synthetic {size:,}: {got}")
    if args.out:
        args.out.write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
