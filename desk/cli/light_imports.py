"""Whoosh imported by a one-shot command without the modules it loads and desk never calls.

whoosh-reloaded 2.7.5 (the version desk pins) loads, the first time any of it is imported,
``urllib.request`` (``whoosh.compat`` imports ``urlretrieve`` for a model downloader; it brings
``http.client``, ``email`` and ``ssl``) and the ``cached_property`` package (``whoosh.reading``
decorates one reader property with it; the package imports ``asyncio``): ≈ 30 ms of a
`desk note` or `desk search` process that loads Whoosh (``python -X importtime``), out of a
0.2 s target. :func:`install` lets those two Whoosh modules run with stand-ins present only
while each of them is executed: ``urlretrieve`` as a function that imports the real one when
called, and ``cached_property`` as :func:`functools.cached_property` (the same caching in the
instance's ``__dict__``). Every other import of ``urllib.request`` or ``asyncio``, before or
after, gets the real module. Only the command line installs this (one thread, at start-up);
the window imports Whoosh as it is.

Likewise ``whoosh.lang.morph_en`` (≈ 5 ms: it compiles its table of English word endings),
which ``whoosh.query.terms`` imports for the ``Variations`` query desk never builds: while that
module runs, ``variations`` is a function that imports the real one when called. And, ≈ 5 ms
of CPU of a `desk note` together: the Porter stemmer and the double metaphone that
``whoosh.analysis`` imports for its default stemmer and a filter desk does not use (desk's
stemmed fields stem with desk.core.text.stemming), ``calendar`` that ``whoosh.util.times`` imports
for date fields desk has none of, and ``html`` that ``whoosh.compat`` imports for highlighting
desk does itself: each stand-in is the function Whoosh uses, importing the real one when called.

:func:`after_import` runs a function on a module as soon as anything imports it: the command
line configures ``logging`` so (≈ 4 ms with ``traceback`` and ``string``, imported only when
something is logged: desk.core.runtime.logs).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.machinery
import sys
import types
from collections.abc import Callable, Sequence
from typing import Any


def _urllib_request() -> types.ModuleType:
    module = types.ModuleType("urllib.request")

    def urlretrieve(*args: Any, **kwargs: Any) -> Any:
        """urllib.request.urlretrieve, imported when first called."""
        from urllib.request import urlretrieve as real

        return real(*args, **kwargs)

    module.urlretrieve = urlretrieve  # type: ignore[attr-defined]
    return module


def _morph_en() -> types.ModuleType:
    module = types.ModuleType("whoosh.lang.morph_en")

    def variations(word: str) -> Any:
        """whoosh.lang.morph_en.variations, imported when first called."""
        from whoosh.lang.morph_en import variations as real

        return real(word)

    module.variations = variations  # type: ignore[attr-defined]
    return module


def _deferred(module_name: str, function: str) -> Callable[[], types.ModuleType]:
    """A stand-in for ``module_name`` holding ``function``, which imports the real one when called."""

    def make() -> types.ModuleType:
        module = types.ModuleType(module_name)

        def call(*args: Any, **kwargs: Any) -> Any:
            real = getattr(importlib.import_module(module_name), function)
            return real(*args, **kwargs)

        call.__name__ = call.__qualname__ = function
        call.__doc__ = f"{module_name}.{function}, imported when first called."
        setattr(module, function, call)
        return module

    return make


def _cached_property() -> types.ModuleType:
    module = types.ModuleType("cached_property")
    module.cached_property = functools.cached_property  # type: ignore[attr-defined]
    return module


# The finders and loaders below are what the import system calls (find_spec; create_module and
# exec_module), without importlib.abc's base classes: importing importlib.abc (it brings
# importlib.resources) was ≈ 1 ms of every command, and nothing else a command runs imports it.

#: Whoosh module -> the modules stood in for while it runs.
STAND_INS: dict[str, dict[str, Callable[[], types.ModuleType]]] = {
    "whoosh.compat": {"urllib.request": _urllib_request, "html": _deferred("html", "escape")},
    "whoosh.reading": {"cached_property": _cached_property},
    "whoosh.query.terms": {"whoosh.lang.morph_en": _morph_en},
    "whoosh.analysis.morph": {
        "whoosh.lang.porter": _deferred("whoosh.lang.porter", "stem"),
        "whoosh.lang.dmetaphone": _deferred("whoosh.lang.dmetaphone", "double_metaphone"),
    },
    "whoosh.analysis.analyzers": {"whoosh.lang.porter": _deferred("whoosh.lang.porter", "stem")},
    "whoosh.util.times": {"calendar": _deferred("calendar", "monthrange")},
}


class _StandInLoader:
    """The real loader of a Whoosh module, run with stand-ins in sys.modules meanwhile."""

    def __init__(self, real: Any, stand_ins: dict[str, Callable[[], types.ModuleType]]) -> None:
        self.real = real
        self.stand_ins = stand_ins

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return self.real.create_module(spec)  # type: ignore[no-any-return]

    def exec_module(self, module: types.ModuleType) -> None:
        placed = {name: make() for name, make in self.stand_ins.items() if name not in sys.modules}
        sys.modules.update(placed)
        try:
            self.real.exec_module(module)
        finally:
            for name, stand_in in placed.items():
                if sys.modules.get(name) is stand_in:
                    del sys.modules[name]


class _Finder:
    """Finds the modules of STAND_INS as the path finder does, with their loader wrapped."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        stand_ins = STAND_INS.get(fullname)
        if stand_ins is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or spec.loader is None:
            return spec
        spec.loader = _StandInLoader(spec.loader, stand_ins)  # type: ignore[assignment]  # no importlib.abc (above STAND_INS)
        return spec


class _ThenLoader:
    """The real loader of a module, then ``then`` on the module executed."""

    def __init__(self, real: Any, then: Callable[[types.ModuleType], None]) -> None:
        self.real = real
        self.then = then

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return self.real.create_module(spec)  # type: ignore[no-any-return]

    def exec_module(self, module: types.ModuleType) -> None:
        self.real.exec_module(module)
        self.then(module)


class _AfterFinder:
    """Finds the module ``name`` as the path finder does (once), with its loader wrapped."""

    def __init__(self, name: str, then: Callable[[types.ModuleType], None]) -> None:
        self.name = name
        self.then = then

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name:
            return None
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or spec.loader is None:
            return spec
        spec.loader = _ThenLoader(spec.loader, self.then)  # type: ignore[assignment]  # no importlib.abc (above STAND_INS)
        return spec


def after_import(name: str, then: Callable[[types.ModuleType], None]) -> None:
    """``then(module)`` as soon as the top-level module ``name`` is imported (by anything, before
    the importer sees it), or now when it is imported already."""
    module = sys.modules.get(name)
    if module is not None:
        then(module)
    elif not any(isinstance(f, _AfterFinder) and (f.name, f.then) == (name, then) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterFinder(name, then))


def install() -> None:
    """Let Whoosh load without urllib.request and asyncio in this process (once; nothing when
    Whoosh is loaded already)."""
    if "whoosh.compat" in sys.modules or any(isinstance(f, _Finder) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _Finder())
