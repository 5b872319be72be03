"""Cold start of the window to its first painted results, offscreen, in a fresh interpreter.

The child process installs two hooks before importing ``desk.gui.app`` (the first results reaching
``SearchController.searched`` or ``ResultsModel.reset``), runs the app's ``main`` on the library,
forces a paint of the visible windows once results are in, prints one JSON line and quits. The
parent measures from just before it spawns the interpreter. When ``desk.gui.app`` is not there
yet the result is ``{"error": ...}`` and the runner shows "n/a".

With ``queries``, the window is then left to settle (its background work after the first results:
the near-duplicate count, the semantic vectors' check and load) until its RSS holds still, and
the queries are typed into the search box one after another, each waited for: ``settled_rss_mb``
and ``searched_rss_mb`` are the memory a user's window holds, ``peak_rss_mb`` the most it held.
The first-results RSS alone said 159 MB at 100k when the settled window held 433.

Every figure is the child's own, read from its ``/proc/self/status``: ``rss_mb`` is its VmHWM
when the first results are painted, ``settled_rss_mb`` and ``searched_rss_mb`` its VmRSS then,
``peak_rss_mb`` its VmHWM at the end. ``getrusage(RUSAGE_SELF).ru_maxrss`` is not used: Linux
carries it across ``execve``, so the child reported the parent's peak when that was higher (the
runner's 606 MB at a million papers, for the seeds' window as for the library's).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from desk.core.runtime.secret import KEY_DIR_ENV, key_path

CHILD = r"""
import json, os, sys, time
T0 = float(os.environ["BENCH_T0"])
out = {}
def emit(**kw):
    out.update(kw)
    print("BENCH " + json.dumps(out), flush=True)
try:
    from PySide6.QtCore import QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication, QLineEdit
    from desk.gui.search import controller as search_controller, model as results_model
    import desk.gui.app as app
except Exception as exc:
    emit(error=f"desk.gui.app not importable: {type(exc).__name__}: {exc}")
    sys.exit(0)
out["imported_s"] = time.time() - T0

QUERIES = json.loads(os.environ.get("BENCH_QUERIES") or "[]")
resets = [0]

def status_mb(field):
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return round(int(line.split()[1]) / 1024, 1)
    return None

def settle(then, started=None, last=None, still=0):
    # then(rss) once the RSS has held within 1 MB for 3 s (at least 5 s, at most 90 s)
    started = time.time() if started is None else started
    now = status_mb("VmRSS")
    still = still + 1 if last is not None and now is not None and abs(now - last) < 1.0 else 0
    waited = time.time() - started
    if (still >= 6 and waited >= 5.0) or waited >= 90.0:
        then(now)
    else:
        QTimer.singleShot(500, lambda: settle(then, started, now, still))

def search_all(settled):
    out["settled_rss_mb"] = settled
    out["settled_s"] = time.time() - T0
    box = None
    for w in QApplication.topLevelWidgets():
        box = box or w.findChild(QLineEdit, "searchBox")
    if box is None:
        emit(error="no search box")
        QTimer.singleShot(0, QApplication.quit)
        return
    def typed(k, seen, asked):
        if k == len(QUERIES):
            settle(done)
            return
        if resets[0] > seen or time.time() - asked > 30.0:
            box.clear()
            QTest.keyClicks(box, QUERIES[k])  # typed: textEdited, as a user's keys
            QTimer.singleShot(20, lambda: typed(k + 1, resets[0], time.time()))
        else:
            QTimer.singleShot(20, lambda: typed(k, seen, asked))
    typed(0, resets[0] - 1, time.time())

def done(rss):
    emit(searched_rss_mb=rss, peak_rss_mb=status_mb("VmHWM"), searches=len(QUERIES))
    QTimer.singleShot(0, QApplication.quit)

def finish(rows, total):
    if "painted_s" in out:
        return
    for w in QApplication.topLevelWidgets():
        if w.isVisible():
            w.repaint()
    # The child's own high-water mark: getrusage's ru_maxrss survives execve, so it said the
    # runner's own peak (606 MB at 1M, the seeds' window too) whenever that was higher.
    emit(painted_s=time.time() - T0, rows=rows, total=total, rss_mb=status_mb("VmHWM"))
    if QUERIES:
        settle(search_all)
    else:
        QTimer.singleShot(0, QApplication.quit)

_reset = results_model.ResultsModel.reset
def reset(self, hits, total, summaries, *rest):
    _reset(self, hits, total, summaries, *rest)
    resets[0] += 1
    if hits or total == 0:
        QTimer.singleShot(0, lambda: finish(self.rowCount(), total))
results_model.ResultsModel.reset = reset

main = getattr(app, "main", None)
if main is None:
    emit(error="desk.gui.app has no main()")
    sys.exit(0)
sys.argv = ["desk", "--library", sys.argv[1]]
try:
    main()
except SystemExit:
    pass
if "painted_s" not in out:
    emit(error="the window closed without showing results")
"""


def probe(library: Path, timeout: float = 60.0, queries: Sequence[str] = ()) -> dict[str, Any]:
    """Start the window on library; seconds to first painted results, rows shown, peak RSS
    (with ``queries``: also the RSS settled, after typing each query, and the peak)."""
    with tempfile.TemporaryDirectory(prefix="desk-bench-home-") as home:
        # Bytecode cached as an installed desk has it: with PYTHONDONTWRITEBYTECODE every start
        # would compile each module changed since its cached bytecode was last written.
        env = {
            **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
            "QT_QPA_PLATFORM": "offscreen",
            "DESK_LIBRARY": str(library),
            "XDG_CONFIG_HOME": str(Path(home) / "config"),
            "XDG_DATA_HOME": str(Path(home) / "data"),
            "XDG_CACHE_HOME": str(Path(home) / "cache"),
        }
        # The same user as the process that built the library: a fresh config folder alone would
        # hold a fresh index key, and the window would rebuild the whole index as for a library
        # from another machine (its signature) before its first results.
        env[KEY_DIR_ENV] = os.environ.get(KEY_DIR_ENV) or str(key_path().parent)
        env["BENCH_QUERIES"] = json.dumps(list(queries))
        env["BENCH_T0"] = repr(time.time())
        try:
            proc = subprocess.run(
                [sys.executable, "-c", CHILD, str(library)],
                env=env,
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            return {"error": f"no results painted within {timeout:.0f} s"}
    lines = [line[6:] for line in proc.stdout.splitlines() if line.startswith("BENCH ")]
    if not lines:
        tail = (proc.stderr or "").strip().splitlines()[-3:]
        return {"error": f"exit {proc.returncode}: " + " | ".join(tail)}
    result: dict[str, Any] = json.loads(lines[-1])
    return result


if __name__ == "__main__":
    print(json.dumps(probe(Path(sys.argv[1]), 600.0, sys.argv[2:])))
