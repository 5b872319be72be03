"""desk: an offline, keyboard-driven reading list for research-paper abstracts."""

from __future__ import annotations

from pathlib import Path


def version() -> str:
    """desk's version: pyproject.toml's, read from the checkout these modules sit in, else from the
    installed package's metadata (a wheel, a pipx/uv tool, the one-folder bundle).

    Looked up when asked, not at import: importlib.metadata costs a command ~20-60 ms.
    """
    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    if pyproject.is_file():  # a checkout: its file is the truth even when the metadata of an
        import tomllib  # editable install is older than the last version bump

        try:
            project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            project = {}
        if project.get("name") == "desk" and isinstance(project.get("version"), str):
            return str(project["version"])
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed_version

    try:
        return installed_version("desk")
    except PackageNotFoundError:
        return "unknown (not installed)"


def __getattr__(name: str) -> str:
    """``desk.__version__``, looked up on first use (see version)."""
    if name == "__version__":
        return version()
    raise AttributeError(f"module 'desk' has no attribute {name!r}")
