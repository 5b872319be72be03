"""A package's names loaded from their modules on first use (PEP 562's module ``__getattr__``).

A command that needs one light module of a package (the stemmer of ``text``, the id digest of
``store``) then loads neither the package's heavy modules nor what they import.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def names_from(package: str, home: Mapping[str, str], namespace: dict[str, Any]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``: ``home`` maps each name to the module (relative to the
    package) that defines it; a name is imported once, then kept in ``namespace`` (its globals)."""

    def __getattr__(name: str) -> Any:
        module = home.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    return __getattr__
