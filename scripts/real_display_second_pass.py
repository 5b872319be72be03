"""A new researcher's keys on a real X display (Xvfb, openbox, xdotool), the database read back.

The library is the sample lists imported by `desk import` (no semantic vectors yet: the window
builds them a moment after it opens). Then, as a user types:

1. "policy" typed at once, ↓ ↓; the vectors land meanwhile; ↓ `s` stars the fourth hit of the
   list as it was on screen before meaning joined (the list never reorders by itself);
2. Esc (list → search box), Ctrl+Z: the star is taken back, not the query;
3. ↓ Enter (read the next hit), `e`, `s`: that paper is done (read, not starred) and the one
   after it is starred (`e` in the reading pane moves on);
4. F6, End, Home, ↓ ×4 (headings are no stops: the first collection), Enter, Ctrl+Shift+S,
   "first", Enter: the saved search is that collection (with "policy"); then Ctrl+K, `in:"<the other one>"`
   typed, Ctrl+Shift+S, "typed", Enter: saved as the typed `in:` alone (it replaced the
   sidebar's; not both at once);
5. Ctrl+Q: the window closes; its last query is the typed one.

Usage: python scripts/real_display_second_pass.py [--display :97]   (exit 0 when all hold)
Needs Xvfb, openbox and xdotool (scripts/install-system-deps.sh installs them).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from real_display import ROOT, Display, Expectations, app_env, desk_window, eventually, main_for

SEEDS = ROOT / "seeds"
QUERY = "policy"


def cli(library: Path, *args: str) -> dict[str, object]:
    """One `desk ... --json` command's answer."""
    out = subprocess.run(
        [sys.executable, "-m", "desk", "--library", str(library), *args, "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return dict(json.loads(out.stdout))


def flags(library: Path) -> dict[int, tuple[bool, bool]]:
    """(starred, read) of every paper."""
    listed = cli(library, "list")["papers"]
    assert isinstance(listed, list)
    return {int(p["id"]): (bool(p["starred"]), bool(p["read"])) for p in listed}


def starred(library: Path) -> set[int]:
    return {i for i, (star, _read) in flags(library).items() if star}


def saved(library: Path) -> dict[str, str]:
    found = cli(library, "saved")
    entries = found.get("saved", found.get("searches", []))
    assert isinstance(entries, list)
    return {str(s["name"]): str(s["query"]) for s in entries}


def words_only_order(library: Path, scratch: Path) -> list[int]:
    """The hits of QUERY as the window lists them before its vectors exist: a copy searched
    by words alone (the library itself is left as the import made it)."""
    from desk.core.library.facade import Library

    copy = scratch / "words-only"
    shutil.copytree(library, copy)
    with Library(copy) as lib:
        assert lib.vectors.current is None
        return [h.id for h in lib.search_ids(QUERY, limit=20, typing=True).hits]


def vectors_built(library: Path) -> bool:
    from desk.core.semantic import store
    from desk.core.semantic.store import StoreState

    return store.state(library / store.DIR_NAME) is StoreState.OK


def check(display_name: str, scratch: Path) -> list[str]:
    """Run the flow; what failed (empty: all good)."""
    expect = Expectations()
    failures = expect.failures
    library = scratch / "secondpass"
    subprocess.run(
        [sys.executable, "-m", "desk", "--library", str(library), "import", str(SEEDS)],
        cwd=ROOT,
        capture_output=True,
        check=True,
        timeout=300,
    )
    expect(not vectors_built(library), "the import leaves the semantic vectors to the window")
    order = words_only_order(library, scratch)
    collections = sorted(dict(cli(library, "stats")["collections"]), key=str.casefold)  # type: ignore[arg-type]
    env = app_env(display_name, scratch)
    with Display(display_name) as display, desk_window(library, env, failures) as app:
        wid = display.window(f"{library.name} — desk")
        display.activate(wid)
        # 1. Typed before the vectors land; ↓ once they did: the list as it was on screen.
        display.type(QUERY)
        display.key("Down", "Down")
        came = eventually(lambda: vectors_built(library), 60)
        expect(came, "the window builds the vectors in the background")
        # A pause as a reader's: the window hears they landed (nothing on screen may move, so
        # there is no change to wait for; this is the time the window has to get it wrong).
        time.sleep(2.0)
        display.key("Down", "s")
        eventually(lambda: bool(starred(library)), 20)
        got = starred(library)
        expect(got == {order[3]}, f"↓↓, vectors land, ↓ s stars the 4th hit as shown ({got} vs {order[3]})")

        # 2. Esc to the box, Ctrl+Z: the star goes, the query stays.
        display.key("Escape", "ctrl+z")
        eventually(lambda: not starred(library), 20)
        expect(not starred(library), "Esc Ctrl+Z in the search box takes the star back")

        # 3. ↓ (the fifth hit) Enter e s: done with it, the sixth starred.
        # X delivers the keys in order and each acts on the UI thread: e and s follow Enter.
        display.key("Down", "Return", "e", "s")
        eventually(lambda: bool(starred(library)), 20)
        done, got = flags(library)[order[4]], starred(library)
        expect(done == (False, True), f"Enter e marks the paper read and unstarred ({done})")
        expect(got == {order[5]}, f"…and s stars the next one ({got} vs {order[5]})")

        # 4. The sidebar by keys, and a typed in: in place of the sidebar's.
        display.key("F6", "End", "Home", "Down", "Down", "Down", "Down", "Return", "ctrl+shift+s")
        display.type("first")
        display.key("Return")
        eventually(lambda: "first" in saved(library), 20)
        first = saved(library).get("first", "")
        wanted = f'in:"{collections[0]}" {QUERY}'  # the entry in view and the words typed
        expect(first == wanted, f"F6 End Home ↓×4 Enter chooses the first collection ({first})")
        display.key("ctrl+k")
        typed = f'in:"{collections[1]}"'
        display.type(typed)
        display.listed(wid, typed)
        display.key("ctrl+shift+s")
        display.type("typed")
        display.key("Return")
        eventually(lambda: "typed" in saved(library), 20)
        other = saved(library).get("typed", "")
        expect(other == typed, f"a typed in: replaces the sidebar's: saved as {other!r}")
        display.key("ctrl+q")
        app.wait(30)
    ini = scratch / "config" / "desk" / "desk.ini"
    text = ini.read_text(encoding="utf-8") if ini.exists() else ""
    expect("last_query=in:" in text, "the window closed on the typed query")
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--display", default=":97", help="the X display number to start Xvfb on")

    def run(args: argparse.Namespace) -> list[str]:
        with tempfile.TemporaryDirectory(prefix="desk-real-second-") as tmp:
            return check(args.display, Path(tmp))

    return main_for(run, parser)


if __name__ == "__main__":
    sys.exit(main())
