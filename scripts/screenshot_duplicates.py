"""Screenshots of the Duplicates review (light and dark) for the README.

Run from the repository: `python scripts/screenshot_duplicates.py` (offscreen; writes
resources/screenshots/duplicates.png and duplicates-dark.png).  The library is the seeds plus a
list with near-duplicate copies of three of them, built in a temporary folder.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication
from screenshots import OUT, ROOT, settle, wait

SIZE = (1180, 720)


def variants_text() -> str:
    """Copies of seed abstracts: one cut short, one with a sentence rewritten, one with the math spelt out."""
    paragraphs = (ROOT / "seeds" / "000_702a75ba5fd2766f.txt").read_text(encoding="utf-8").split("\n\n")[1:]
    seeds = [p.strip() for p in paragraphs if p.strip()]
    first = seeds[0].split()
    ogpo = next(p for p in seeds if "**OGPO**" in p)
    racer = next(p for p in seeds if r"$\alpha$-VOR" in p)
    sentences = ogpo.split(". ")
    sentences[1] = (
        "This paper presents OGPO, an off-policy algorithm for finetuning GCPs that keeps critics "
        "to reuse data and carries policy gradients through the whole generative process"
    )
    copies = [
        " ".join(first[: int(len(first) * 0.7)]),
        ". ".join(sentences),
        racer.replace(r"$\alpha$", "alpha"),
    ]
    return "Reading group, week 12\n\n" + "\n\n".join(copies) + "\n"


def shoot(app: QApplication, scheme: Qt.ColorScheme, library: Path, name: str) -> Path:
    from desk.gui import theme
    from desk.gui.main.window import MainWindow

    theme.apply_scheme(app, scheme)
    window = MainWindow(library, seeds=None)
    window.resize(1280, 800)
    window.show()
    wait(app, lambda: window.ready and not window.controller.pending())
    wait(app, lambda: window.duplicates.count is not None)
    window.duplicates.open()
    dialog = window.duplicates.dialog
    assert dialog is not None
    dialog.resize(*SIZE)
    wait(app, dialog.idle)
    # The group with a sentence rewritten shows both kinds of marks.
    for _ in range(len(dialog.groups)):
        if "presents OGPO" in dialog.right.abstract.toPlainText():
            break
        dialog.step(1)
        wait(app, dialog.idle)
    settle(app)
    path = OUT / f"{name}.png"
    dialog.grab().save(str(path))
    dialog.close()
    window.close()
    return path


def main() -> int:
    from desk.core.library import Library

    with tempfile.TemporaryDirectory(prefix="desk-shots-") as tmp:
        QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(Path(tmp) / "settings"))
        from desk.gui.app import application

        app = application()
        OUT.mkdir(parents=True, exist_ok=True)
        variants = Path(tmp) / "reading-group.txt"
        variants.write_text(variants_text(), encoding="utf-8")
        for scheme, name in ((Qt.ColorScheme.Light, "duplicates"), (Qt.ColorScheme.Dark, "duplicates-dark")):
            library = Path(tmp) / name
            with Library(library) as lib:
                lib.import_paths([ROOT / "seeds"])
                lib.import_paths([variants])
            print(shoot(app, scheme, library, name).relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
