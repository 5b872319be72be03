"""A module's logger without importing ``logging`` until something is logged.

``logging`` (with the ``traceback`` and ``string`` modules it imports) is ≈ 4 ms of a `desk
search` or `desk note` process, which logs nothing unless something went wrong. ``log =
logger(__name__)`` stands for ``logging.getLogger(__name__)``: each use asks the real logger, so
levels, handlers and pytest's caplog apply as to any logger. The command line configures the
format when ``logging`` is first imported (desk.cli.light_imports.after_import).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import logging


class _Logger:
    """``logging.getLogger(name)``, looked up (and ``logging`` imported) at each use."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        import logging

        return getattr(logging.getLogger(self._name), attr)


def logger(name: str) -> logging.Logger:
    """The logger ``name`` as ``logging.getLogger`` gives it, ``logging`` imported when first used."""
    return _Logger(name)  # type: ignore[return-value]
