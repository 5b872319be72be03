"""The shape of desk/gui, read from its source: no import cycles, no SQL, no reaching into others.

Every import counts, also those inside functions and behind `TYPE_CHECKING`: a cycle is a cycle.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from test_layers import strongly_connected

GUI = Path(__file__).resolve().parents[2] / "desk" / "gui"
ROOT = GUI.parents[1]
FORBIDDEN = ("sqlite3", "sqlalchemy", "whoosh")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(GUI.rglob("*.py"))}


def imported(path: Path, known: set[str]) -> Iterator[str]:
    """Every module `path` imports (a `from x import y` names x.y when that is a module)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module
            for alias in node.names:
                if f"{node.module}.{alias.name}" in known:
                    yield f"{node.module}.{alias.name}"


def import_graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    return {
        name: {m for m in imported(path, known) if m in known and m != name} for name, path in found.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (tests/test_layers.py's Tarjan)."""
    return strongly_connected(graph)


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_in_desk_gui_not_even_behind_type_checking() -> None:
    graph = import_graph()
    assert graph.get("desk.gui.main.window")
    assert cycles(graph) == []


def test_desk_gui_never_touches_the_database_or_the_index_itself() -> None:
    known = set(modules())
    offenders = [
        (name, m)
        for name, path in modules().items()
        for m in imported(path, known)
        if m.split(".")[0] in FORBIDDEN
    ]
    assert offenders == []


def test_the_panes_are_packages_and_the_old_flat_prefixes_are_gone() -> None:
    for package in ("main", "search", "reading", "duplicates", "dialogs"):
        assert (GUI / package / "__init__.py").is_file()
        assert ast.get_docstring(ast.parse((GUI / package / "__init__.py").read_text())), package
    flat = sorted(p.name for p in GUI.glob("*.py"))
    assert not [n for n in flat if n.startswith(("window_", "duplicates_"))], flat


def foreign_private_attributes(path: Path) -> Iterator[str]:
    """`x._name` where x is not self/cls/super(): another object's private state."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        attr = node.attr
        if not attr.startswith("_") or attr.startswith("__"):
            continue
        owner = node.value
        if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
            continue
        if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super":
            continue
        yield f"{path.relative_to(ROOT)}:{node.lineno}: .{attr}"


def window_reach_backs(path: Path) -> Iterator[str]:
    """`self.window.<anything>`: a piece working the main window's widgets instead of its own."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Attribute)
            and isinstance(node.value.value, ast.Name)
            and node.value.value.id == "self"
            and node.value.attr == "window"
        ):
            yield f"{path.relative_to(ROOT)}:{node.lineno}: self.{node.value.attr}.{node.attr}"


def test_no_piece_reaches_into_another_ones_private_state_or_the_main_window() -> None:
    found = [hit for path in modules().values() for hit in foreign_private_attributes(path)]
    found += [hit for path in modules().values() for hit in window_reach_backs(path)]
    assert found == []
