"""`desk search --json` from a one-shot process gives the window's ranked search, JSON for JSON.

The command line searches on a lighter path: plain SQLite for the rows
(desk.core.library.quick_search), OpenBLAS started with one thread (blas.py), the cycle collector held
back (cli/main.py), Whoosh's unused modules stood in (light_imports.py), the vectors' CRCs read
only for files not as written (store.py), the acronyms file in its flat format. Each check runs
every query through ``desk.cli.main.main`` in a fresh interpreter and compares its JSON with
``page_json`` of the Library's own search (the window's façade), ``took_ms`` aside.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from dev_texts import DEV

from desk.cli.output import page_json
from desk.core.library.facade import Library

ROOT = Path(__file__).resolve().parents[2]

_RUN = (
    "import contextlib, io, json, sys\n"
    "from desk.cli.main import main\n"
    "library, queries = sys.argv[1], json.loads(sys.argv[2])\n"
    "pages = []\n"
    "for q in queries:\n"
    "    out = io.StringIO()\n"
    "    with contextlib.redirect_stdout(out):\n"
    "        assert main(['--library', library, 'search', q, '--limit', '50', '--json']) == 0\n"
    "    pages.append(json.loads(out.getvalue()))\n"
    "blas = __import__('os').environ.get('OPENBLAS_NUM_THREADS')\n"
    "opened = 'desk.core.library.facade' in sys.modules\n"
    "print(json.dumps({'pages': pages, 'library_opened': opened, 'numpy_one_thread': blas}))\n"
)


def _command_line(library: Path, queries: list[str]) -> dict[str, object]:
    """Every query's JSON from desk's command line in one fresh interpreter (its own start-up:
    OPENBLAS_NUM_THREADS is the command line's to set)."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    proc = subprocess.run(
        [sys.executable, "-c", _RUN, str(library), json.dumps(queries)],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
        check=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _without_clock(page: dict[str, object]) -> dict[str, object]:
    return {**page, "took_ms": 0}


def _same_as_the_library(library: Path, queries: list[str]) -> None:
    with Library(library) as lib:
        lib.discovery.ensure_vectors()
    with Library(library) as lib:  # as the window opens it: the vectors read from their store
        assert lib.discovery.ensure_vectors() is None
        expected = [page_json(lib.search(q, limit=50)) for q in queries]
    got = _command_line(library, queries)
    assert got["library_opened"] is False  # every query took the one-shot path
    assert got["numpy_one_thread"] == "1"
    pages = got["pages"]
    assert isinstance(pages, list) and len(pages) == len(queries)
    for query, mine, theirs in zip(queries, pages, expected, strict=True):
        assert _without_clock(mine) == _without_clock(json.loads(json.dumps(theirs))), query
    assert sum(bool(p["results"]) for p in expected) >= len(queries) // 2


SEED_QUERIES = [
    "policy",
    "reinforcement learning",
    '"language model"',
    "diffus*",
    "polcy gradint",
    "RLHF",
    "title:learning NOT policy",
    "is:unread transformer",
    "large language models reasoning",
    "OGPO",
]


def test_cli_search_json_is_the_librarys_on_the_seeds(seeded_dir: Path) -> None:
    _same_as_the_library(seeded_dir, SEED_QUERIES)


@pytest.mark.slow
def test_cli_search_json_is_the_librarys_on_the_dev_corpus_queries(tmp_path: Path) -> None:
    """The 159 judged queries of bench/dev_queries.json (words, acronyms, typos, paraphrases,
    partial titles) on a library of the dev corpus (../shared/dev-corpus/, read in place)."""
    if not DEV.is_file():
        pytest.skip("the dev corpus is not beside the repository")
    queries = [q["q"] for q in json.loads((ROOT / "bench" / "dev_queries.json").read_text())["queries"]]
    library = tmp_path / "library"
    with Library(library) as lib:
        report = lib.import_paths([DEV])
        assert not report.errors and report.added > 2000
    _same_as_the_library(library, queries)
