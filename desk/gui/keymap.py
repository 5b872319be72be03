"""Every action of the window with its keys, the review's keys, and the menus built from them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QMainWindow,
    QWidget,
)


@dataclass(frozen=True)
class ActionSpec:
    """One thing a user can do, where it lives in the menus, and its keys (first one shown there)."""

    name: str
    menu: str
    text: str
    keys: tuple[str, ...] = ()
    # Single letters are window-wide: a text field being typed in takes them first (Qt
    # gives editors printable keys before shortcuts), so `s` types an s in the note.
    local: bool = False  # only while the search box or the result list has the focus
    list_only: bool = False  # only while the result list has the focus (Ctrl+C in the box copies text)


MENUS = ("&File", "&Edit", "&Search", "&Paper", "&Help")

ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec("import_files", "&File", "&Import files…", ("Ctrl+I",)),
    ActionSpec("import_folder", "&File", "Import &folder…", ("Ctrl+Shift+I",)),
    ActionSpec("export", "&File", "&Export…", ("Ctrl+E",)),
    ActionSpec("quit", "&File", "&Quit", ("Ctrl+Q",)),
    ActionSpec("undo", "&Edit", "&Undo the last change", ("Ctrl+Z",)),
    ActionSpec("redo", "&Edit", "&Redo", ("Ctrl+Shift+Z", "Ctrl+Y")),
    ActionSpec("copy", "&Edit", "&Copy the selected papers as Markdown", ("Ctrl+C",), list_only=True),
    ActionSpec("copy_titles", "&Edit", "Copy their &titles", ("Ctrl+Shift+C",), list_only=True),
    ActionSpec("select_all", "&Edit", "Select &all results", ("Ctrl+A",), list_only=True),
    ActionSpec("focus_search", "&Search", "&Find…", ("Ctrl+K", "/")),
    ActionSpec("filter_all", "&Search", "&All papers", ("Ctrl+1",)),
    ActionSpec("filter_starred", "&Search", "&Starred", ("Ctrl+2",)),
    ActionSpec("filter_unread", "&Search", "&Unread", ("Ctrl+3",)),
    ActionSpec("filter_notes", "&Search", "With &notes", ("Ctrl+4",)),
    ActionSpec("use_suggestion", "&Search", "Use the suggested &spelling", ("Ctrl+D",)),
    ActionSpec("save_search", "&Search", "Sa&ve this search…", ("Ctrl+Shift+S",)),
    ActionSpec("cycle_sort", "&Search", "Next s&ort order (Sort by…)", ("Ctrl+Shift+O",)),
    ActionSpec("toggle_sidebar", "&Search", "Show the side&bar", ("Ctrl+B",)),
    ActionSpec("focus_sidebar", "&Search", "Go to the sidebar", ("F6", "Ctrl+Shift+B")),
    ActionSpec("open", "&Paper", "&Open", ("Return", "Enter"), local=True),
    ActionSpec("next", "&Paper", "&Next result", ("J",)),
    ActionSpec("previous", "&Paper", "&Previous result", ("K",)),
    ActionSpec("star", "&Paper", "S&tar / unstar", ("S",)),
    ActionSpec("read", "&Paper", "Mark &read / unread", ("R",)),
    ActionSpec("done", "&Paper", "Mark done (read) and &go on", ("E",)),
    ActionSpec("tag", "&Paper", "T&ag…", ("T",)),
    ActionSpec("delete", "&Paper", "Move to the tras&h", ("Del",), list_only=True),
    ActionSpec("paper_back", "&Paper", "Paper read be&fore", ("Alt+Left",)),
    ActionSpec("paper_forward", "&Paper", "Paper read after (for&ward)", ("Alt+Right",)),
    ActionSpec("note", "&Paper", "&Edit note", ("N", "Ctrl+Return")),
    ActionSpec("preview", "&Paper", "Pre&view note", ("Ctrl+Shift+P",)),
    ActionSpec("triage", "&Paper", "Tr&iage unread (one key a paper)", ("Ctrl+T",)),
    ActionSpec("rename", "&Paper", "Rena&me…", ("F2",)),
    ActionSpec("related", "&Paper", "Re&lated papers", ("Ctrl+R",)),
    ActionSpec("open_link", "&Paper", "Open its lin&k in the browser", ("Ctrl+O",)),
    ActionSpec("by_author", "&Paper", "Papers by its a&uthors…", ("A",)),
    ActionSpec("duplicates", "&Paper", "Review &duplicates…", ("Ctrl+Shift+D",)),
    ActionSpec("back", "&Paper", "&Back to search", ("Esc",)),
    ActionSpec("shortcuts", "&Help", "&Keyboard shortcuts", ("?", "F1")),
    ActionSpec("about", "&Help", "&About desk", ()),
)

# Keys that are not menu actions, shown on the sheet too: (what, keys).
OTHER_KEYS: tuple[tuple[str, str], ...] = (
    ("Into the results from the search box, and through them", "↓ / ↑, Page Down / Page Up"),
    ("Back to the search box with what you type", "any other letter, Backspace"),
    ("Open the highlighted paper", "Enter"),
    ("Open a paper from the related list", "Enter"),
    ("Leave the note (it is saved as you type)", "Tab"),
    ("Toggle the first nine tags (in the order they were made)", "1 … 9"),
    ("Select a range of results / more results", "Shift+↓ / Shift+↑, Shift+click, Ctrl+click"),
    (
        "Undo / redo the library's last change from any pane; in a text box typed in since it got"
        " the keys, the typing",
        "Ctrl+Z / Ctrl+Shift+Z, Ctrl+Y",
    ),
    ("In the trash (Removed papers): restore, empty (asked first), leave", "Enter or r, Shift+Delete, Esc"),
    ("In triage: star and next, done and next, back and undo, leave", "s, e or x, u, Esc"),
    ("Sidebar: choose an entry, go to its list, delete it (saved search, list)", "↑ / ↓, Enter, Delete"),
    ("Import lists", "drop files or a folder"),
)

REVIEW = "Duplicates review"
# The keys of the Duplicates review (Paper → Review duplicates); its actions are built from these.
REVIEW_ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec("merge_left", REVIEW, "Merge, keeping the left paper", ("M",)),
    ActionSpec("merge_right", REVIEW, "Merge, keeping the right paper", ("Shift+M",)),
    ActionSpec("distinct", REVIEW, "Not a duplicate (never offered again)", ("D",)),
    ActionSpec("next_group", REVIEW, "Skip to the next group", ("N", "Right", "Space")),
    ActionSpec("previous_group", REVIEW, "Previous group", ("P", "Left")),
    ActionSpec("next_other", REVIEW, "Compare with the next paper of a larger group", ("Down",)),
    ActionSpec("previous_other", REVIEW, "Compare with the previous paper of the group", ("Up",)),
    ActionSpec("scroll_down", REVIEW, "Scroll both abstracts down", ("PgDown",)),
    ActionSpec("scroll_up", REVIEW, "Scroll both abstracts up", ("PgUp",)),
    ActionSpec(
        "undo_merge", REVIEW, "Undo the last merge or “not a duplicate” of the review", ("U", "Ctrl+Z")
    ),
    ActionSpec("merge_exact", REVIEW, "Merge all exact-after-cleanup groups…", ("Ctrl+Shift+M",)),
    ActionSpec("merge_truncations", REVIEW, "Merge all truncated copies (previewed)…", ("Ctrl+Shift+T",)),
    ActionSpec("close_review", REVIEW, "Close the review", ("Esc",)),
)


def build_actions(
    window: QMainWindow, handlers: Mapping[str, Callable[[], object]], local_widgets: tuple[QWidget, ...]
) -> dict[str, QAction]:
    """Create the actions and the menus; `local` actions fire only in `local_widgets`, `list_only`
    ones in the last of them (the result list)."""
    menus = {title: window.menuBar().addMenu(title) for title in MENUS}
    actions: dict[str, QAction] = {}
    for spec in ACTIONS:
        action = QAction(spec.text, window)
        action.setObjectName(f"action_{spec.name}")
        action.setShortcuts([QKeySequence(k) for k in spec.keys])
        if spec.local or spec.list_only:
            action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
            for w in local_widgets[-1:] if spec.list_only else local_widgets:
                w.addAction(action)
        else:
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            window.addAction(action)  # keys work while the menu bar is hidden too
        action.triggered.connect(lambda _checked=False, fn=handlers[spec.name]: fn())
        menus[spec.menu].addAction(action)
        if spec.name in ("export", "use_suggestion", "focus_sidebar", "preview", "duplicates"):
            menus[spec.menu].addSeparator()
        actions[spec.name] = action
    return actions


def shown_key(sequence: QKeySequence) -> str:
    """One key as the platform writes it; a lone letter in lowercase ("s", not "S", read as Shift+S)."""
    text = sequence.toString(QKeySequence.SequenceFormat.NativeText)
    return text.lower() if len(text) == 1 and text.isalpha() else text


def key_text(action: QAction) -> str:
    """The action's keys as the platform writes them, e.g. "Ctrl+K, /" or "s"."""
    return ", ".join(shown_key(k) for k in action.shortcuts())


def native_keys(keys: tuple[str, ...]) -> str:
    """Portable key names as the platform writes them, e.g. "Shift+M", "m" or "PgDown"."""
    return ", ".join(shown_key(QKeySequence(k)) for k in keys)
