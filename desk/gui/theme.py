"""Light and dark: follow the system's colour scheme, and colours derived from the palette."""

from __future__ import annotations

import os
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

Role = QPalette.ColorRole
Group = QPalette.ColorGroup


def is_dark(palette: QPalette) -> bool:
    """Whether a palette draws light text on a dark window."""
    return palette.color(Role.Window).lightness() < 128


def blend(a: QColor, b: QColor, amount: float) -> QColor:
    """`amount` of a mixed with the rest of b."""
    return QColor(
        round(a.red() * amount + b.red() * (1 - amount)),
        round(a.green() * amount + b.green() * (1 - amount)),
        round(a.blue() * amount + b.blue() * (1 - amount)),
    )


def _dark_palette() -> QPalette:
    p = QPalette()
    colors = {
        Role.Window: "#232629",
        Role.WindowText: "#e6e6e6",
        Role.Base: "#1b1d20",
        Role.AlternateBase: "#26292d",
        Role.ToolTipBase: "#2f3337",
        Role.ToolTipText: "#e6e6e6",
        Role.PlaceholderText: "#8c9196",
        Role.Text: "#e6e6e6",
        Role.Button: "#2d3034",
        Role.ButtonText: "#e6e6e6",
        Role.BrightText: "#ff6b6b",
        Role.Light: "#3a3e43",
        Role.Midlight: "#33373b",
        Role.Mid: "#4a4f56",  # frames and button outlines: must show on the window colour
        Role.Dark: "#131517",
        Role.Shadow: "#000000",
        Role.Highlight: "#3d6fb4",
        Role.HighlightedText: "#ffffff",
        Role.Link: "#7fb4ff",
        Role.LinkVisited: "#b79cff",
    }
    for role, hex_ in colors.items():
        p.setColor(role, QColor(hex_))
    for role in (Role.WindowText, Role.Text, Role.ButtonText):
        p.setColor(Group.Disabled, role, QColor("#7a7f85"))
    return p


def _light_palette() -> QPalette:
    app = QApplication.instance()
    style = app.style() if isinstance(app, QApplication) else None
    return style.standardPalette() if style is not None else QPalette()


_chosen = {"scheme": "system"}  # what View → Appearance says ("system", "light", "dark")


def requested_scheme() -> Qt.ColorScheme:
    """The scheme to show: $DESK_COLOR_SCHEME (light/dark) if set, else the one chosen in the
    window (View → Appearance), else the system's."""
    forced = os.environ.get("DESK_COLOR_SCHEME", "").strip().lower() or _chosen["scheme"]
    if forced == "dark":
        return Qt.ColorScheme.Dark
    if forced == "light":
        return Qt.ColorScheme.Light
    system = QGuiApplication.styleHints().colorScheme()
    # A platform that does not say (Unknown) gets light: back from a dark choice, it is undone.
    return Qt.ColorScheme.Light if system == Qt.ColorScheme.Unknown else system


def choose_scheme(app: QApplication, choice: str) -> None:
    """Show `choice` ("system", "light" or "dark") from now on ($DESK_COLOR_SCHEME still wins)."""
    _chosen["scheme"] = choice if choice in ("light", "dark") else "system"
    apply_scheme(app)


def apply_scheme(app: QApplication, scheme: Qt.ColorScheme | None = None) -> None:
    """Use a palette matching the scheme when the platform does not supply one itself."""
    scheme = requested_scheme() if scheme is None else scheme
    dark_now = is_dark(app.palette())
    if scheme == Qt.ColorScheme.Dark and not dark_now:
        app.setPalette(_dark_palette())
    elif scheme == Qt.ColorScheme.Light and dark_now:
        app.setPalette(_light_palette())


def follow_system(app: QApplication) -> None:
    """Apply the scheme now and whenever the system switches."""
    apply_scheme(app)
    if not os.environ.get("DESK_COLOR_SCHEME"):
        app.styleHints().colorSchemeChanged.connect(lambda _scheme: apply_scheme(app))


@dataclass(frozen=True)
class Colors:
    """The few colours the delegate and the HTML views draw with."""

    hl_background: QColor
    hl_text: QColor
    star: QColor
    unread: QColor
    note: QColor
    muted: QColor
    badge_background: QColor
    badge_text: QColor
    warning: QColor


def colors(palette: QPalette) -> Colors:
    """Colours that read well on this palette (light or dark)."""
    muted = blend(palette.color(Role.Text), palette.color(Role.Base), 0.62)
    if is_dark(palette):
        return Colors(
            hl_background=QColor("#806000"),
            hl_text=QColor("#fff6d5"),
            star=QColor("#ffc53d"),
            unread=QColor("#6fa8ff"),
            note=QColor("#7fd18b"),
            muted=muted,
            badge_background=QColor("#34495e"),
            badge_text=QColor("#d6e6ff"),
            warning=QColor("#ffb357"),
        )
    return Colors(
        hl_background=QColor("#ffe066"),
        hl_text=QColor("#1a1a1a"),
        star=QColor("#d99100"),
        unread=QColor("#1f6feb"),
        note=QColor("#2e8b3e"),
        muted=muted,
        badge_background=QColor("#e3ecf8"),
        badge_text=QColor("#1f3b63"),
        warning=QColor("#9a4d00"),
    )


def mark_span(palette: QPalette) -> str:
    """An opening `<span>` marking a matched word where no style sheet reaches (a QLabel)."""
    c = colors(palette)
    return f'<span style="background-color: {c.hl_background.name()}; color: {c.hl_text.name()};">'


def html_style(palette: QPalette) -> str:
    """The default style sheet for the abstract and note views (highlights, links)."""
    c = colors(palette)
    link = palette.color(Role.Link).name()
    return (
        f".hl {{ background-color: {c.hl_background.name()}; color: {c.hl_text.name()}; }}\n"
        f"a {{ color: {link}; }}\n"
        f"code {{ font-family: monospace; }}\n"
    )
