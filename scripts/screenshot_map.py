"""The README's picture of the map: the dev corpus's 2,359 real CVPR 2023 abstracts, drawn as
`desk map --png` draws them, and the same map with a search's hits lit (the window's look).

Run from the repository: `python scripts/screenshot_map.py --library DEV_LIB` (offscreen; writes
resources/screenshots/map.png and map-search.png). DEV_LIB holds ../shared/dev-corpus/cvpr2023.txt
(bench/map_bench.py builds one); its map is laid out when it has none.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "resources" / "screenshots"
QUERY = "point cloud"


def main(argv: list[str] | None = None) -> int:
    from desk.core.library.facade import Library
    from desk.gui.map.painting import Scene
    from desk.gui.map.picture import save

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--library", type=Path, required=True)
    args = p.parse_args(argv)
    with Library(args.library) as lib:
        made = lib.atlas.ensure()
        hits = np.array([h.id for h in lib.search_ids(QUERY, limit=100_000).hits], np.int64)
    save(Scene(made.xy, made.clusters, made.labels), OUT / "map.png", 1400, 1050)
    lit = Scene(made.xy, made.clusters, made.labels, lit=np.isin(made.ids, hits))
    save(lit, OUT / "map-search.png", 1400, 1050)
    print(f"wrote {OUT / 'map.png'} and {OUT / 'map-search.png'} ({len(made):,} papers, {len(hits)} hits)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
