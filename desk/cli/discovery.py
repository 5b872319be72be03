"""Finding papers by meaning: `desk recommend`, and the semantic vectors the search commands use."""

from __future__ import annotations

import argparse

from desk.cli.commands import json_flag, opened, print_page, with_vectors


def recommend_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tag", metavar="T", default=None, help="recommend for this tag's papers")
    p.add_argument("--limit", type=int, default=20, metavar="N", help="how many (default 20)")
    json_flag(p)


def run_recommend(args: argparse.Namespace) -> int:
    """desk recommend [--tag T]"""
    with opened(args) as lib:
        with_vectors(lib)
        print_page(lib.discovery.recommend(tag=args.tag, limit=max(args.limit, 0)), args.json)
    return 0
