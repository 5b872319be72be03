"""The layers of desk, read from its source: packages import downwards only, no cycles, no private names.

Every import counts, also those inside functions and behind ``TYPE_CHECKING``: a cycle is a cycle.
The layers, bottom first (a package may import those below it, never those above):

    runtime → text → reader, store → semantic, dedup → search → atlas, records → edits → importing
    → export → library → gui → cli (`desk` with no command opens the window)

``desk.core`` never imports Qt; ``desk.gui`` never imports SQL or Whoosh (tests/gui/test_structure.py).
No module is longer than MODULE_MAX_LINES: a file a reader can hold in their head, split along a
seam of meaning when it grows past that.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Each layer and the layers it may import (besides itself); a package's modules import each other freely
#: but for cycles.
ALLOWED: dict[str, set[str]] = {
    "runtime": set(),
    "text": {"runtime"},
    "reader": {"runtime", "text"},
    "store": {"runtime", "text"},
    "semantic": {"runtime", "text", "store"},
    "dedup": {"runtime", "text", "store"},
    "search": {"runtime", "text", "store", "semantic"},
    "records": {"runtime", "text", "store", "search"},
    "edits": {"runtime", "text", "store", "semantic", "dedup", "search", "records"},
    "importing": {"runtime", "text", "reader", "store", "semantic", "dedup", "search", "records", "edits"},
}
ALLOWED["atlas"] = {"runtime", "text", "store", "semantic", "search"}
ALLOWED["export"] = {"runtime", "text", "records"}
ALLOWED["obsidian"] = {"runtime", "text", "records"}  # desk/core/obsidian.py: the vault export
ALLOWED["library"] = set(ALLOWED) | {"importing"}
ALLOWED["desktop"] = {"runtime"}
CORE = set(ALLOWED)
ALLOWED["gui"] = CORE | {"main"}
ALLOWED["cli"] = CORE | {"main", "gui"}  # `desk` with no command opens the window
ALLOWED["main"] = CORE | {"cli", "gui"}  # desk/__main__.py
ALLOWED["root"] = set()

#: The most lines a module of desk/ may have.
MODULE_MAX_LINES = 600


@dataclass(frozen=True)
class Import:
    """One import in a module: what it names, and the names it takes from it."""

    source: str  # the importing module
    target: str  # the module imported
    names: tuple[str, ...]
    line: int


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root: Path) -> dict[str, Path]:
    """Every module of the ``desk`` package under ``root``, by dotted name."""
    return {module_name(p, root): p for p in sorted((root / "desk").rglob("*.py"))}


def imports(name: str, path: Path, known: set[str]) -> Iterator[Import]:
    """Every import of desk's own modules in one file (``from x import y`` names x.y when y is a module)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known:
                    yield Import(name, alias.name, (), node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            plain: list[str] = []
            for alias in node.names:
                full = f"{target}.{alias.name}"
                if full in known:
                    yield Import(name, full, (), node.lineno)
                else:
                    plain.append(alias.name)
            if target in known and (plain or not node.names):
                yield Import(name, target, tuple(plain), node.lineno)


def all_imports(root: Path) -> list[Import]:
    found = modules(root)
    known = set(found)
    return [i for name, path in found.items() for i in imports(name, path, known) if i.target != name]


def layer(module: str) -> str:
    """The layer a module belongs to: its package under desk.core, else cli / gui / main."""
    if module == "desk":
        return "root"  # desk/__init__.py: the version, imported by any layer
    parts = module.split(".")
    if parts[:2] == ["desk", "core"] and len(parts) > 2:
        return parts[2]
    if len(parts) > 1 and parts[1] in ("cli", "gui"):
        return parts[1]
    return "main"


def layer_violations(found: list[Import]) -> list[str]:
    """Imports that go up (or sideways) between layers."""
    bad = []
    for i in found:
        a, b = layer(i.source), layer(i.target)
        if i.target in ("desk", "desk.core"):
            continue  # the version, the core package's docstring
        if a != b and b not in ALLOWED.get(a, set()):
            bad.append(f"{i.source}:{i.line} imports {i.target} ({a} may not import {b})")
    return bad


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Components of more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def module_cycles(found: list[Import]) -> list[list[str]]:
    graph: dict[str, set[str]] = {}
    for i in found:
        if i.target.startswith(i.source + "."):
            continue  # a package's __init__ naming its own module is not a cycle back to it
        graph.setdefault(i.source, set()).add(i.target)
    return strongly_connected(graph)


def package_cycles(found: list[Import]) -> list[list[str]]:
    graph: dict[str, set[str]] = {}
    for i in found:
        a, b = layer(i.source), layer(i.target)
        if a != b:
            graph.setdefault(a, set()).add(b)
    return strongly_connected(graph)


def private_names(found: list[Import], root: Path) -> list[str]:
    """A name starting with one underscore taken from another module (by import or as an attribute)."""
    bad = [
        f"{i.source}:{i.line} takes {i.target}.{n}"
        for i in found
        for n in i.names
        if n.startswith("_") and not n.startswith("__")
    ]
    mods = modules(root)
    for name, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in mods and alias.asname:
                        aliases[alias.asname] = alias.name
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                for alias in node.names:
                    if f"{node.module}.{alias.name}" in mods:
                        aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and aliases[node.value.id] != name
            ):
                bad.append(f"{name}:{node.lineno} takes {aliases[node.value.id]}.{node.attr}")
    return bad


def problems(root: Path) -> list[str]:
    """Everything wrong with the layering of the tree at ``root`` (empty when sound)."""
    found = all_imports(root)
    out = layer_violations(found)
    out += [f"modules in a cycle: {' ↔ '.join(c)}" for c in module_cycles(found)]
    out += [f"layers in a cycle: {' ↔ '.join(c)}" for c in package_cycles(found)]
    out += private_names(found, root)
    unknown = {layer(m) for m in modules(root)} - set(ALLOWED)
    out += [
        f"desk/core/{u} is in no layer (add it to tests/test_layers.py's ALLOWED)" for u in sorted(unknown)
    ]
    return out


@pytest.mark.slow
def test_desk_imports_only_downwards_with_no_cycle_and_no_private_name() -> None:
    assert problems(ROOT) == []


def test_the_core_has_few_loose_modules_and_every_package_says_what_it_may_import() -> None:
    core = ROOT / "desk" / "core"
    loose = [p.name for p in core.glob("*.py") if p.name != "__init__.py"]
    assert len(loose) <= 12, loose
    for init in core.glob("*/__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        assert "May import:" in doc, f"{init} does not say what its package may import"


def long_modules(root: Path, most: int = MODULE_MAX_LINES) -> list[str]:
    """The modules under ``root``/desk longer than ``most`` lines, with their lengths."""
    found = []
    for path in sorted((root / "desk").rglob("*.py")):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > most:
            found.append(f"{path.relative_to(root)}: {lines} lines (at most {most})")
    return found


def test_no_module_is_longer_than_a_reader_holds_in_their_head() -> None:
    assert long_modules(ROOT) == []


def test_a_planted_long_module_is_caught(tmp_path: Path) -> None:
    root = _plant(
        tmp_path,
        {
            "desk/core/text/long.py": "x = 1\n" * (MODULE_MAX_LINES + 1),
            "desk/core/text/short.py": "x = 1\n" * MODULE_MAX_LINES,
        },
    )
    expected = f"desk/core/text/long.py: {MODULE_MAX_LINES + 1} lines (at most {MODULE_MAX_LINES})"
    assert long_modules(root) == [expected]


def _plant(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (  # a cycle between two modules, one side inside a function
            {
                "desk/core/search/a.py": "from desk.core.search import b\n",
                "desk/core/search/b.py": "def f():\n    from desk.core.search import a\n",
            },
            "modules in a cycle",
        ),
        (  # a cycle behind TYPE_CHECKING
            {
                "desk/core/text/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                "    from desk.core.text.b import X\n",
                "desk/core/text/b.py": "from desk.core.text.a import Y\n",
            },
            "modules in a cycle",
        ),
        (  # the store reaching up into the search index
            {"desk/core/store/a.py": "from desk.core.search.b import f\n", "desk/core/search/b.py": ""},
            "store may not import search",
        ),
        (  # a private name taken from another module
            {"desk/core/text/a.py": "from desk.core.text.b import _helper\n", "desk/core/text/b.py": ""},
            "takes desk.core.text.b._helper",
        ),
        (  # a private name reached through the module
            {"desk/core/text/a.py": "from desk.core.text import b\nb._helper()\n", "desk/core/text/b.py": ""},
            "takes desk.core.text.b._helper",
        ),
    ],
)
def test_a_planted_cycle_upward_import_or_private_name_is_caught(
    tmp_path: Path, files: dict[str, str], expected: str
) -> None:
    root = _plant(tmp_path, {"desk/__init__.py": "", "desk/core/__init__.py": "", **files})
    for package in {Path(rel).parent for rel in files}:
        (root / package / "__init__.py").touch()
    found = problems(root)
    assert any(expected in p for p in found), found
