"""relevance_tune.py's variants on the dev papers imported from BibTeX with their real titles.

A bare list's titles are derived from its abstracts; a rich list's are the papers' own. This runs
the same known-item and researcher sets as ``relevance_tune.py`` on a library of the 2,359 dev
papers written as a PMLR-style ``.bib`` (tests/core/reader/rich_files.py), so a ranking setting
is judged on real titles too.

    python bench/realtitle_tune.py --library /tmp/realtitles --variant base= \
        --variant t2=schema.BOOSTS.title=2,schema.BOOSTS.short_name=2
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "core" / "reader"))

from relevance_dev import CORPUS, QUERIES, load_sets  # noqa: E402
from relevance_tune import evaluate_with, parse_variant  # noqa: E402
from rich_files import bibtex, dev_records  # noqa: E402

SETS = ("title", "4words", "rare", "researcher")
BIB = "cvpr2023.bib"


def main(argv: list[str] | None = None) -> int:
    """Build the library once (kept in --library), run each variant, print a line each."""
    from desk.core.library.facade import Library

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--library", type=Path, required=True, help="kept between runs (built when absent)")
    p.add_argument("--variant", action="append", default=[], help="NAME=module.CONST=value,...")
    args = p.parse_args(argv)
    variants = [parse_variant(v) for v in args.variant or ["base="]]
    fresh = not (args.library / "library.sqlite3").exists()
    lib = Library(args.library)
    if fresh:
        bib = args.library.parent / BIB
        bib.write_text(bibtex(dev_records()), encoding="utf-8")
        lib.import_paths([bib])
    lib.discovery.ensure_vectors()
    sets = {k: v for k, v in load_sets(CORPUS, QUERIES, titles=True).items() if k in SETS}
    index_of = {paper.id: s.index for paper in lib.list_papers() for s in paper.sources if s.file == BIB}
    lib.search_ids("warm up", limit=10)
    for name, settings in variants:
        results = evaluate_with(lib, sets, index_of, settings)
        row = "  ".join(f"{s} {r['even']['mrr']:.4f}/{r['odd']['mrr']:.4f}" for s, r in results.items())
        print(f"{name:<14} {row}", flush=True)
    lib.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
