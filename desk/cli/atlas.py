"""`desk map`: the library as a map — every paper a point laid out by meaning, in named clusters."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desk.cli.commands import json_flag, opened, progress_printer
from desk.cli.output import emit_json, say, warn
from desk.core.runtime.errors import DeskError

if TYPE_CHECKING:
    from desk.core.atlas.store import PaperMap


def map_args(p: argparse.ArgumentParser) -> None:
    json_flag(p)
    p.add_argument("--png", type=Path, metavar="FILE", help="draw the map into a PNG file")
    p.add_argument("--svg", type=Path, metavar="FILE", help="draw the map into an SVG file")


def map_json(made: PaperMap) -> dict[str, Any]:
    """The map as `desk map --json` prints it."""
    sizes = made.sizes()
    xy = made.xy.astype(float).round(5).tolist()
    return {
        "points": [
            {"id": int(i), "x": p[0], "y": p[1], "cluster": int(c)}
            for i, p, c in zip(made.ids.tolist(), xy, made.clusters.tolist(), strict=True)
        ],
        "clusters": [{"id": n, "label": label, "size": int(sizes[n])} for n, label in enumerate(made.labels)],
    }


def _draw(made: PaperMap, path: Path) -> None:
    """The map drawn offscreen into ``path`` (Qt is loaded for this alone)."""
    from desk.gui.map.painting import Scene
    from desk.gui.map.picture import save

    if not path.parent.is_dir():
        raise DeskError(f"cannot write {path}: its folder does not exist")
    try:
        save(Scene(made.xy, made.clusters, made.labels), path)
    except OSError as exc:
        raise DeskError(f"cannot write {path}: {exc.strerror or 'the file could not be written'}") from exc


def run_map(args: argparse.Namespace) -> int:
    """desk map [--json] [--png FILE] [--svg FILE]"""
    with opened(args) as lib:
        made = lib.atlas.ensure(progress_printer("Laying out the map"))
        if lib.atlas.unwritable:
            warn(f"desk: the map could not be kept ({lib.atlas.unwritable}); it is laid out again next time")
    for path in (args.png, args.svg):
        if path is not None:
            _draw(made, path)
    if args.json:
        emit_json(map_json(made))
        return 0
    sizes = made.sizes()
    say(f"{len(made):,} papers in {len(made.labels)} clusters")
    for n in sorted(range(len(made.labels)), key=lambda c: -sizes[c]):
        say(f"  {n:>3}  {sizes[n]:>6,}  {made.labels[n]}")
    return 0
