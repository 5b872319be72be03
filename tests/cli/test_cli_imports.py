"""A command loads what it runs (a CLI command starts in 0.2 s; bench/cli_start.py times it).

Each check runs the command in a fresh interpreter and reads ``sys.modules`` after it: no timing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# What reading the database's counts never needs: the near-duplicate detector (MinHash over
# numpy), the importer and its text analysis, the writers of the index, the query language
# and the ranking, the recommender, the Markdown export.
NOT_FOR_STATS = (
    "desk.core.dedup",
    "desk.core.dedup.finder",
    "desk.core.edits.merge_plan",
    "desk.core.importing.importer",
    "desk.core.text.analysis",
    "desk.core.text.titles",
    "desk.core.search.building",
    "desk.core.search.commits",
    "desk.core.search.searching",
    "desk.core.search.compiler",
    "desk.core.search.related",
    "desk.core.semantic.recommend",
    "desk.core.semantic.build",
    "desk.core.export",
    "scipy",
)

_RUN = (
    "import json, sys\n"
    "from desk.cli.main import main\n"
    "code = main(sys.argv[1:])\n"
    "print(json.dumps({'code': code, 'modules': sorted(sys.modules)}), file=sys.stderr)\n"
)


def _reported(script: str, library: Path, *args: str) -> dict:
    """What ``script`` (a command run in a fresh interpreter) printed last on stderr, as JSON."""
    proc = subprocess.run(
        [sys.executable, "-c", script, "--library", str(library), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    assert report["code"] == 0, proc.stderr
    return dict(report)


def _modules(library: Path, *args: str) -> set[str]:
    return set(_reported(_RUN, library, *args)["modules"])


# The near-duplicate detector: every module of desk.core.dedup but its cache's constants (which
# the lists read the saved links by) and the package's lazy __init__.
DETECTOR = tuple(
    f"desk.core.dedup.{p.stem}"
    for p in (ROOT / "desk" / "core" / "dedup").glob("*.py")
    if p.stem not in ("__init__", "cache_format")
)


def _loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return [n for n in names if n in modules or any(m.startswith(n + ".") for m in modules)]


def test_stats_loads_no_detector_importer_writer_or_ranking(seeded_dir: Path) -> None:
    assert _loaded(_modules(seeded_dir, "stats"), NOT_FOR_STATS) == []


def test_list_json_loads_no_detector_importer_or_writer(seeded_dir: Path) -> None:
    loaded = _loaded(_modules(seeded_dir, "list", "--json"), NOT_FOR_STATS)
    assert loaded == []


def test_search_loads_the_ranking_but_not_the_detector_or_importer(seeded_dir: Path) -> None:
    modules = _modules(seeded_dir, "search", "policy")
    assert "desk.core.search.searching" in modules  # the check sees what a command does load
    # (SciPy may load here: a search builds the semantic vectors when they are missing.)
    assert _loaded(modules, (*DETECTOR, "desk.core.importing.importer", "desk.core.text.analysis")) == []


def test_the_parser_names_the_kinds_merge_plan_merges() -> None:
    from desk.cli.duplicates import MERGE_KINDS
    from desk.core.edits.merge_plan import MERGEABLE_KINDS

    assert MERGE_KINDS == MERGEABLE_KINDS


# A command that only reads, on a library whose index is stamped current, reads it with plain
# sqlite3 (desk.core.library.quick): none of the ORM, Whoosh, numpy or the Library's open.
NOT_FOR_READS = (
    "sqlalchemy",
    "whoosh",
    "numpy",
    "desk.core.store.database",
    "desk.core.store.models",
    "desk.core.library.facade",
    "desk.core.search.index",
)


@pytest.mark.parametrize(
    "command", [("stats",), ("stats", "--json"), ("list", "--json"), ("show", "1", "--json"), ("tags",)]
)
def test_read_commands_load_neither_the_orm_nor_whoosh_nor_numpy(
    seeded_dir: Path, command: tuple[str, ...]
) -> None:
    assert _loaded(_modules(seeded_dir, *command), NOT_FOR_READS) == []


def test_a_read_command_on_a_stale_index_opens_the_whole_library_and_repairs(seeded_dir: Path) -> None:
    (seeded_dir / "index" / "desk-search.json").unlink()  # the index's version marker: a rebuild is due
    modules = _modules(seeded_dir, "stats")
    assert "desk.core.library.facade" in modules and "whoosh" in modules
    assert _loaded(_modules(seeded_dir, "stats"), NOT_FOR_READS) == []  # rebuilt and stamped


@pytest.mark.slow
def test_search_on_a_current_index_and_vectors_loads_no_orm(seeded_dir: Path) -> None:
    first = _modules(seeded_dir, "search", "policy")  # builds the semantic vectors: the whole Library
    assert "desk.core.library.facade" in first
    modules = _modules(seeded_dir, "search", "policy", "--json")
    assert "desk.core.search.searching" in modules  # it did search
    assert (
        _loaded(modules, ("sqlalchemy", "desk.core.store.models", "desk.core.library.facade", *DETECTOR))
        == []
    )
    # tag: is answered by the Library (tags fold their names there)
    assert "desk.core.library.facade" in _modules(seeded_dir, "search", "tag:x policy")


@pytest.mark.slow
def test_a_search_and_a_note_start_no_worker_machinery(seeded_dir: Path) -> None:
    """The index's worker-process side (desk.core.runtime.processes: multiprocessing, a process pool) is
    for imports and rebuilds: a search or a note's commit from the command line loads none of it."""
    _modules(seeded_dir, "search", "policy")  # builds the semantic vectors: the whole Library
    workers = ("multiprocessing", "concurrent.futures.process", "desk.core.runtime.processes")
    searched = _modules(seeded_dir, "search", "policy", "--json")
    assert "desk.core.search.searching" in searched and "desk.core.library.facade" not in searched
    assert _loaded(searched, workers) == []
    noted = _modules(seeded_dir, "note", "1", "--set", "policy gradients, read again")
    assert "desk.core.search.commits" in noted and "desk.core.library.facade" not in noted  # the quick commit
    assert _loaded(noted, workers) == []


@pytest.mark.slow
def test_a_note_commits_without_the_searcher_or_numpy(seeded_dir: Path) -> None:
    """`desk note --set` writes one small segment and exits: the searcher, the posting arrays and
    the ranking (numpy, whoosh.searching and the query classes it brings) are for searching."""
    reading = (
        "urllib.request",  # whoosh.compat's, and cached_property's asyncio: desk/cli/light_imports.py
        "asyncio",
        "cached_property",
        "numpy",
        "whoosh.searching",
        "whoosh.query",
        "desk.core.search.query",  # the query language: a note's words are counted, not corrected
        "desk.core.search.postings",
        "desk.core.search.posting_decode",
        "desk.core.search.ranking",
    )
    noted = _modules(seeded_dir, "note", "1", "--set", "policy gradients, read again")
    assert "desk.core.search.commits" in noted and "desk.core.library.facade" not in noted  # the quick commit
    assert _loaded(noted, reading) == []
    retitled = _modules(seeded_dir, "retitle", "1", "Gradients of policies")
    assert "desk.core.search.commits" in retitled and _loaded(retitled, reading) == []
    # ... and the note is searchable by the next command, which loads the searcher itself
    found = subprocess.run(
        [sys.executable, "-m", "desk", "--library", str(seeded_dir), "search", "note:gradients", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert [r["id"] for r in json.loads(found.stdout)["results"]] == [1]


@pytest.mark.slow
def test_a_search_and_a_note_create_only_the_records_they_use(seeded_dir: Path) -> None:
    """desk.core.records.page defines the records of a search's page; the others (a paper in full,
    counts, an import's report, ...) wait in desk.core.records.detail until asked for: eleven frozen
    dataclasses a `desk search` or a `desk note` would create for nothing (≈ 4 ms)."""
    _modules(seeded_dir, "search", "policy")  # builds the semantic vectors: the whole Library
    searched = _modules(seeded_dir, "search", "policy", "--json")
    assert "desk.core.search.searching" in searched and "desk.core.library.facade" not in searched
    assert "desk.core.records.page" in searched and "desk.core.records.detail" not in searched
    noted = _modules(seeded_dir, "note", "1", "--set", "policy gradients, read again")
    assert "desk.core.search.commits" in noted and "desk.core.records.detail" not in noted
    assert "desk.core.records.detail" in _modules(seeded_dir, "stats")  # Stats is one of them


@pytest.mark.slow
def test_a_search_and_a_note_import_neither_logging_nor_importlib_abc(seeded_dir: Path) -> None:
    """They log nothing unless something went wrong: ``logging`` (with ``traceback`` and
    ``string``, ≈ 4 ms) is imported by desk.core.runtime.logs' loggers when a record is made; nor do they
    need importlib.abc (≈ 1 ms with importlib.resources) for light_imports' finders and loaders."""
    _modules(seeded_dir, "search", "policy")  # builds the semantic vectors: the whole Library
    for command in (("search", "policy", "--json"), ("note", "1", "--set", "read again"), ("stats",)):
        unused = ("logging", "traceback", "importlib.abc", "importlib.resources")
        assert _loaded(_modules(seeded_dir, *command), unused) == [], command


_LOGGED = (
    "import sys\n"
    "from desk.cli.main import main\n"
    "assert main(sys.argv[1:]) == 0\n"
    "assert 'logging' not in sys.modules\n"
    "from desk.core.runtime.logs import logger\n"
    "log = logger('desk.core.runtime.secret')\n"
    "log.info('not shown')\n"
    "log.warning('the key file %s is not usable', 'k')\n"
    "import logging\n"
    "assert log.getEffectiveLevel() == logging.WARNING and log.name == 'desk.core.runtime.secret'\n"
    "logging.getLogger('other').error('from %s', 'elsewhere')\n"
)


def test_the_command_line_formats_what_is_logged_once_logging_is_imported(seeded_dir: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _LOGGED, "--library", str(seeded_dir), "stats"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert proc.stderr == "desk: the key file k is not usable\ndesk: from elsewhere\n"


def test_after_import_runs_once_the_module_is_imported() -> None:
    code = (
        "import sys\n"
        "from desk.cli.light_imports import after_import\n"
        "seen = []\n"
        "after_import('colorsys', seen.append)\n"
        "after_import('colorsys', seen.append)  # once, not twice\n"
        "assert seen == [] and 'colorsys' not in sys.modules\n"
        "import colorsys\n"
        "assert seen == [colorsys] and colorsys.rgb_to_hsv(1, 0, 0)[2] == 1\n"
        "after_import('colorsys', seen.append)  # imported already: now\n"
        "assert seen == [colorsys, colorsys]\n"
        "assert not [f for f in sys.meta_path if type(f).__name__ == '_AfterFinder']\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


_STAND_INS = (
    "import sys\n"
    "from desk.cli.light_imports import install\n"
    "install()\n"
    "import whoosh.compat, whoosh.reading, whoosh.query, whoosh.fields, whoosh.analysis.morph as morph\n"
    "stood_in = {'urllib.request', 'asyncio', 'cached_property', 'whoosh.lang.morph_en', 'html',\n"
    "            'calendar', 'whoosh.lang.porter', 'whoosh.lang.dmetaphone'}\n"
    "assert not stood_in & set(sys.modules), sorted(stood_in & set(sys.modules))\n"
    "import html, calendar, whoosh.util.times\n"
    "from whoosh.lang.porter import stem\n"
    "from whoosh.lang.dmetaphone import double_metaphone\n"
    "assert whoosh.compat.htmlescape('<a href=\"x\">') == html.escape('<a href=\"x\">')\n"
    "assert whoosh.util.times.calendar.monthrange(2024, 2) == calendar.monthrange(2024, 2)\n"
    "assert morph.StemFilter().stemfn('rendering') == stem('rendering') == 'render'\n"
    "assert [t.text for t in whoosh.analysis.StemmingAnalyzer()('rendered')] == ['render']  # Porter's\n"
    "assert morph.double_metaphone('Thompson') == double_metaphone('Thompson')\n"
    "import functools, urllib.request\n"
    "assert whoosh.reading.cached_property is functools.cached_property\n"
    "assert urllib.request.urlopen  # the real module, imported now\n"
    "whoosh.compat.urlretrieve(sys.argv[1], sys.argv[2])  # the stand-in calls the real one\n"
    "found = whoosh.query.terms.variations('rendering')  # what Variations calls: the stand-in\n"
    "from whoosh.lang.morph_en import variations  # the real module, imported now\n"
    "assert sorted(found) == sorted(variations('rendering')) and 'render' in found, found\n"
)


def test_whoosh_loads_without_what_desk_never_calls_and_it_stays_importable(tmp_path: Path) -> None:
    source = tmp_path / "a.txt"
    source.write_text("kept", encoding="utf-8")
    subprocess.run(
        [sys.executable, "-c", _STAND_INS, source.as_uri(), str(tmp_path / "b.txt")],
        check=True,
        timeout=120,
    )
    assert (tmp_path / "b.txt").read_text(encoding="utf-8") == "kept"


_BLAS = (
    "import sys\n"
    "from desk.core.semantic import blas\n"
    "if sys.argv[1] == 'numpy first':\n"
    "    import numpy\n"
    "pinned = blas.pin_to_one_thread()\n"
    "import numpy\n"
    "alone = blas.pinned()\n"
    "import threadpoolctl\n"
    "info = threadpoolctl.threadpool_info()\n"
    "threads = sorted({i['num_threads'] for i in info if i['user_api'] == 'blas'})\n"
    "print(pinned, alone, blas.pinned(), threads)\n"
)


@pytest.mark.parametrize(
    ("case", "variable", "expected"),
    [
        ("pinned", None, "True True False [1]"),  # threadpoolctl loaded: limits apply again
        ("the user's value", "2", "False False False [2]"),
        ("numpy first", None, "False False False"),  # too late: OpenBLAS started its pool as it likes
    ],
)
def test_the_command_line_starts_openblas_with_one_thread(
    case: str, variable: str | None, expected: str
) -> None:
    import os

    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if variable is not None:
        env["OPENBLAS_NUM_THREADS"] = variable
    out = subprocess.run(
        [sys.executable, "-c", _BLAS, case], capture_output=True, text=True, env=env, check=True, timeout=120
    ).stdout
    assert out.startswith(expected), out


def test_a_search_needs_no_threadpoolctl_once_blas_has_one_thread(seeded_dir: Path) -> None:
    """The command line pinned OpenBLAS to one thread before numpy loaded (blas.py): the query's
    product needs no limit around it, so threadpoolctl (which lists every loaded library) stays out."""
    _modules(seeded_dir, "search", "policy")  # builds the semantic vectors: the whole Library
    modules = _modules(seeded_dir, "search", "policy", "--json")
    assert "desk.core.semantic.vectors" in modules and "numpy" in modules  # it did fuse the vectors
    assert "threadpoolctl" not in modules


def test_a_command_runs_with_fewer_collections_and_puts_the_thresholds_back(
    seeded_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gc

    from desk.cli.main import GC_THRESHOLD, main
    from desk.core.library.quick import QuickLibrary

    seen: list[tuple[int, ...]] = []
    real = QuickLibrary.stats

    def stats(self: QuickLibrary) -> object:
        seen.append(gc.get_threshold())
        return real(self)

    monkeypatch.setattr(QuickLibrary, "stats", stats)
    before = gc.get_threshold()
    assert main(["--library", str(seeded_dir), "stats"]) == 0
    assert seen and seen[0][0] == GC_THRESHOLD  # while the command ran
    assert gc.get_threshold() == before


def test_a_command_leaves_no_collection_over_everything_it_made(seeded_dir: Path) -> None:
    """With the threshold back at CPython's 700, the objects a command made (GC_THRESHOLD lets
    tens of thousands pile up) were collected all at once as it returned: a collection never starts
    over more young objects than the threshold in force lets pile up."""
    import gc

    from desk.cli.main import main

    piled: list[tuple[int, int]] = []

    def watch(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            piled.append((gc.get_count()[0], gc.get_threshold()[0]))

    gc.callbacks.append(watch)
    try:
        assert main(["--library", str(seeded_dir), "note", "1", "--set", "read with the group"]) == 0
    finally:
        gc.callbacks.remove(watch)
    assert [(young, limit) for young, limit in piled if young > limit + 10] == []


def test_an_import_loads_no_map_layout(tmp_path: Path, seeds_dir: Path) -> None:
    """The map's layout (SciPy's sparse graphs) is loaded where a map is made or checked, not by
    every Library that opens: an import does not need it."""
    modules = _modules(tmp_path / "lib", "import", str(seeds_dir))
    assert "desk.core.importing.importer" in modules  # it did import
    assert _loaded(modules, ("desk.core.atlas.build", "desk.core.atlas.layout")) == []


_WORKERS_FIRST = (
    "import json, sys\n"
    "import desk.core.runtime.processes as processes\n"
    "seen = []\n"
    "start = processes.WorkerPool.start\n"
    "def recorded(self):\n"
    "    seen.append('desk.core.library.facade' in sys.modules)\n"
    "    start(self)\n"
    "processes.WorkerPool.start = recorded\n"
    "from desk.cli.main import main\n"
    "code = main(sys.argv[1:])\n"
    "print(json.dumps({'code': code, 'facade_loaded_at_start': seen}), file=sys.stderr)\n"
)


def test_a_big_import_starts_its_workers_before_it_loads_the_library(tmp_path: Path) -> None:
    """The workers' start-up (a new interpreter each) overlaps this process loading the
    library's code and opening it, instead of following it; a small list starts none."""

    def run(lines: int) -> list[bool]:
        src = tmp_path / f"list-{lines}.txt"
        text = "".join(f"Paper {n} studies graph {n % 97} routing with {n} words.\n\n" for n in range(lines))
        src.write_text(text, encoding="utf-8")
        return list(
            _reported(_WORKERS_FIRST, tmp_path / f"lib-{lines}", "import", str(src))["facade_loaded_at_start"]
        )

    from desk.core.runtime.tuning import DEFAULT

    big = DEFAULT.start_workers_from_bytes // 40  # lines of over 40 bytes: over the threshold
    assert run(big)[:1] == [False]  # started first, before the façade was imported
    assert run(20) == []  # a small list: no workers
