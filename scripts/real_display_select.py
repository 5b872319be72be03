"""Acting on papers on a real X display (Xvfb, openbox, xdotool): select five, star, undo, tag.

The window starts on a new library (it imports the bundled sample lists on its first run), then
xdotool types as a user does and the command line reads the database back:

1. "learning" typed, ↓ into the list, Shift+↓ ×4, `s`: five papers starred (`desk list --json`),
   the five rows the window showed from the highlighted one down, and the query still "learning";
2. Ctrl+Z: all five unstarred at once;
3. `t`, "reading group", Enter: the tag on the same five (`desk tags --json`, `list --json`);
4. Ctrl+Q: the window closes cleanly.

Usage: python scripts/real_display_select.py [--display :92] [--library DIR]   (exit 0 when all hold)
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from real_display import ROOT, Display, Expectations, app_env, desk_window, eventually, main_for, wait_for

TAG = "reading group"


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


def papers(library: Path) -> list[dict[str, object]]:
    listed = cli(library, "list")["papers"]
    assert isinstance(listed, list)
    return listed


def starred(library: Path) -> set[int]:
    return {int(str(p["id"])) for p in papers(library) if p.get("starred")}


def tagged(library: Path) -> set[int]:
    return {int(str(p["id"])) for p in papers(library) if TAG in (p.get("tags") or [])}  # type: ignore[operator]


def check(display_name: str, library: Path, home: Path) -> list[str]:
    """Run the flow; what failed (empty: all good)."""
    expect = Expectations()
    failures = expect.failures
    env = app_env(display_name, home)
    with Display(display_name) as display, desk_window(library, env, failures) as app:
        wid = display.window(f"{library.name} — desk")
        display.activate(wid)
        # The first run imports the sample lists, then lists them: a count above 0 in the title.
        # (Only the title is polled: a command line opening the library meanwhile would slow the
        # window's import.)
        wait_for(lambda: re.match(r"[1-9][0-9,]* papers — ", display.title(wid)), 60, "the import")
        display.activate(wid)
        display.type("learning")
        display.listed(wid, "learning")
        display.key("Down", "shift+Down", "shift+Down", "shift+Down", "shift+Down", "s")
        eventually(lambda: len(starred(library)) >= 5, 20)
        five = starred(library)
        expect(len(five) == 5, f"↓ Shift+↓×4 s stars five papers ({sorted(five)})")

        display.key("ctrl+z")
        eventually(lambda: not starred(library), 20)
        expect(not starred(library), "Ctrl+Z unstars all five at once")

        display.key("t")
        display.type(TAG)
        display.key("Return")
        eventually(lambda: bool(tagged(library)), 20)
        tags = cli(library, "tags")["tags"]
        expect(tagged(library) == five, f"t “{TAG}” Enter tags the same five ({sorted(tagged(library))})")
        expect(
            isinstance(tags, list) and any(t.get("name") == TAG and t.get("count") == 5 for t in tags),
            f"desk tags --json: {tags}",
        )
        display.key("ctrl+q")
        app.wait(30)
    ini = home / "config" / "desk" / "desk.ini"
    text = ini.read_text(encoding="utf-8") if ini.exists() else ""
    expect("last_query=learning" in text, "the typed keys went to the search box only: last query 'learning'")
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--display", default=":92", help="the X display number to start Xvfb on")
    parser.add_argument("--library", type=Path, help="a new library folder (default: a temporary one)")

    def run(args: argparse.Namespace) -> list[str]:
        with tempfile.TemporaryDirectory(prefix="desk-real-select-") as tmp:
            return check(args.display, args.library or Path(tmp) / "selectlib", Path(tmp))

    return main_for(run, parser)


if __name__ == "__main__":
    sys.exit(main())
