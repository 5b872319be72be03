"""tag: and is: filters are answered by the database, kept until it changes (any writer's commit)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from desk.core.edits import tags as tagging
from desk.core.library.facade import Library


def test_answers_are_kept_until_the_database_changes(
    seeded_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str | None] = []
    real = tagging.paper_ids

    def counted(session: object, name: str | None) -> list[int]:
        asked.append(name)
        return real(session, name)  # type: ignore[arg-type]

    monkeypatch.setattr(tagging, "paper_ids", counted)
    with Library(seeded_dir) as lib:
        a, b, c = lib.paper_ids()[:3]
        lib.tags.add([a, b], "group")
        assert lib.search_ids("tag:group").total == 2
        assert lib.search_ids("tag:group diffusion").total <= 2  # typing on: the same answer
        assert lib.search_ids("tag:group OR tag:group").total == 2
        assert asked == ["group"]  # asked once while nothing changed
        lib.tags.add([c], "group")  # this process's commit
        assert lib.search_ids("tag:group").total == 3 and asked == ["group", "group"]
        lib.set_starred([a], True)
        assert lib.search_ids("is:starred").total == 1
        # Another process's commit is seen at once too.
        cmd = [sys.executable, "-m", "desk.cli.main", "--library", str(seeded_dir)]
        subprocess.run([*cmd, "star", str(b)], check=True, capture_output=True)
        subprocess.run([*cmd, "untag", str(a), "group"], check=True, capture_output=True)
        assert lib.search_ids("is:starred").total == 2
        assert lib.search_ids("is:unread -is:starred").total == lib.count() - 2
        assert sorted(h.id for h in lib.search_ids("tag:group").hits) == sorted([b, c])
