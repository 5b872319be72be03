"""Screenshots of the Duplicates review (light and dark) for the README.

Run from the repository: `python scripts/screenshot_duplicates.py` (offscreen; writes
resources/screenshots/duplicates.png and duplicates-dark.png).  The library is the seeds plus a
list with near-duplicate copies of three of them, built in a temporary folder.
"""

from __future__ import annotations

import sys
from typing import Any

from shots import ROOT, Session, session, wait

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


def shoot(s: Session, library: Any, scheme: str, name: str) -> None:
    window = s.window(library, scheme)
    wait(s.app, lambda: window.duplicates.count is not None)
    window.duplicates.open()
    dialog = window.duplicates.dialog
    assert dialog is not None
    dialog.resize(*SIZE)
    wait(s.app, dialog.idle)
    # The group with a sentence rewritten shows both kinds of marks.
    for _ in range(len(dialog.groups)):
        if "presents OGPO" in dialog.right.abstract.toPlainText():
            break
        dialog.step(1)
        wait(s.app, dialog.idle)
    s.save(dialog, name)
    dialog.close()
    window.close()


def main() -> int:
    with session() as s:
        variants = s.folder / "reading-group.txt"
        variants.write_text(variants_text(), encoding="utf-8")
        for scheme, name in (("light", "duplicates"), ("dark", "duplicates-dark")):
            shoot(s, s.library(name, [variants]), scheme, name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
