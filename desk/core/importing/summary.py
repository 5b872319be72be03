"""An import's outcome in plain words, for the command line and the window alike."""

from __future__ import annotations

from desk.core.records.detail import ImportReport


def count(n: int, one: str, many: str) -> str:
    """ "1 file", "2 files": the number with the word that fits it."""
    return f"{n} {one if n == 1 else many}"


def import_summary(report: ImportReport, *, review: str) -> list[str]:
    """The lines saying what an import did (errors apart); `review` says how to see near-duplicates.

    A file that was skipped is not counted as imported; a file imported before is said as such.
    """
    lines: list[str] = []
    if report.cancelled:
        lines.append("The import was cancelled; the files finished before that are kept.")
    read = report.files - report.skipped_files
    fresh = read - report.already_imported
    if fresh > 0:
        line = (
            f"Added {count(report.added, 'paper', 'papers')} from {count(fresh, 'file', 'files')} "
            f"({count(report.paragraphs, 'abstract', 'abstracts')} read)."
        )
        lines.append(line)
    elif read > 0 and not report.already_imported:
        lines.append(f"Added 0 papers from {count(read, 'file', 'files')}.")
    if report.merged:
        lines.append(
            f"{count(report.merged, 'abstract was', 'abstracts were')} already in the library under "
            f"another file and {'was' if report.merged == 1 else 'were'} joined to "
            f"{'that paper' if report.merged == 1 else 'those papers'}."
        )
    if report.already_imported:
        them = "it" if report.already_imported == 1 else "them"
        lines.append(
            f"Added 0 papers: {count(report.already_imported, 'file was', 'files were')} imported "
            f"before; nothing changed for {them}."
            if fresh <= 0
            else f"{count(report.already_imported, 'file was', 'files were')} imported before; "
            f"nothing changed for {them}."
        )
    if report.near_duplicates:
        lines.append(
            f"{count(report.near_duplicates, 'paper looks', 'papers look')} like a near-duplicate "
            f"of another; review {'it' if report.near_duplicates == 1 else 'them'} with {review}."
        )
    if not lines and report.skipped_files:
        skipped = count(report.skipped_files, "file was", "files were")
        lines.append(f"Nothing was imported: {skipped} skipped.")
    return lines
