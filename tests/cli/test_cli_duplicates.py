"""`desk dupes` says what each group is; `desk distinct --undo`; `desk merge --all-kind` previewed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dedup_texts import PAPER, SAME_TOPIC, SECOND, head, reordered, shared_opening, tail

from desk.cli.main import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    return json.loads(out)


@pytest.fixture
def library(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    first = tmp_path / "venue.txt"
    first.write_text(
        "Venue 2026 Papers\n\n" + "\n\n".join([PAPER, SECOND, SAME_TOPIC, shared_opening(PAPER)]) + "\n"
    )
    second = tmp_path / "workshop.txt"
    second.write_text(
        "Workshop 2026 Papers\n\n"
        + "\n\n".join([head(PAPER, 0.4), tail(SECOND, 0.5), reordered(SAME_TOPIC)])
        + "\n"
    )
    lib = ["--library", str(tmp_path / "L")]
    assert run_json(capsys, *lib, "import", str(first), str(second), "--json")["added"] == 7
    return lib


def _ids_by_text(capsys: pytest.CaptureFixture[str], lib: list[str]) -> dict[str, int]:
    papers = run_json(capsys, *lib, "list", "--json")["papers"]
    return {run_json(capsys, *lib, "show", str(p["id"]), "--json")["abstract"]: p["id"] for p in papers}


def test_dupes_json_gives_kind_similarity_and_containment(capsys, library: list[str]) -> None:
    groups = run_json(capsys, *library, "dupes", "--json")["groups"]
    assert sorted(g["kind"] for g in groups) == ["revision", "truncation", "truncation"]
    for g in groups:
        assert set(g) >= {"ids", "similarity", "kind", "containment", "pairs"}
        assert len(g["ids"]) == 2 and 0 < g["similarity"] <= 1
    cut = next(g for g in groups if g["kind"] == "truncation" and abs(g["similarity"] - 0.4) < 0.05)
    assert cut["containment"] >= 0.99  # all of the cut copy is in the paper: not "100 % similar"
    [pair] = cut["pairs"]
    short, long = sorted(cut["ids"], key=lambda i: -i)  # the copy came from the second file
    assert (
        pair["description"]
        == f"#{short} is {int(pair['similarity'] * 100)} % of #{long}, all of it in #{long}"
    )
    moved = next(g for g in groups if g["kind"] == "revision")
    assert moved["pairs"][0]["description"].endswith("% of sentences shared, in another order")


def test_dupes_text_says_what_each_group_is(capsys, library: list[str]) -> None:
    code, out, _ = run(capsys, *library, "dupes")
    assert code == 0
    assert "truncation: #" in out and "all of it in #" in out
    assert "revision: #" in out and "of sentences shared" in out
    assert "% alike" not in out and "100 % similar" not in out


def test_distinct_can_be_undone(capsys, library: list[str]) -> None:
    groups = run_json(capsys, *library, "dupes", "--json")["groups"]
    a, b = groups[0]["ids"]
    assert run(capsys, *library, "distinct", str(a), str(b))[0] == 0
    assert [a, b] not in [g["ids"] for g in run_json(capsys, *library, "dupes", "--json")["groups"]]
    code, out, _ = run(capsys, *library, "distinct", "--undo", str(b), str(a))
    assert code == 0 and "again" in out
    assert [a, b] in [g["ids"] for g in run_json(capsys, *library, "dupes", "--json")["groups"]]
    code, _, err = run(capsys, *library, "distinct", "--undo", str(a), str(b))
    assert code == 1 and "not marked" in err
    assert run(capsys, *library, "undo")[0] == 0  # the general undo takes the --undo back
    assert [a, b] not in [g["ids"] for g in run_json(capsys, *library, "dupes", "--json")["groups"]]
    assert run(capsys, *library, "undo")[0] == 0  # ... and then the "not a duplicate" itself
    assert run(capsys, *library, "redo")[0] == 0
    assert [a, b] not in [g["ids"] for g in run_json(capsys, *library, "dupes", "--json")["groups"]]


def test_merge_all_truncations_is_previewed_then_done(capsys, library: list[str]) -> None:
    ids = _ids_by_text(capsys, library)
    full_paper, full_second = ids[PAPER], ids[SECOND]
    code, out, _ = run(capsys, *library, "merge", "--all-kind", "truncation", "--preview")
    assert code == 0 and out.count("keep ") == 2
    assert f"keep {full_paper} <- " in out and f"keep {full_second} <- " in out  # the full texts are kept
    assert "nothing changed" in out
    assert run_json(capsys, *library, "stats", "--json")["papers"] == 7
    code, _, err = run(
        capsys, *library, "merge", "--all-kind", "truncation"
    )  # not a terminal: asks for --yes
    assert code == 1 and "--yes" in err
    assert run_json(capsys, *library, "stats", "--json")["papers"] == 7
    with pytest.raises(SystemExit) as usage:
        main([*library, "merge", "--all-kind", "revision", "--yes"])  # revisions are reviewed one by one
    assert usage.value.code == 2
    capsys.readouterr()
    code, out, _ = run(capsys, *library, "merge", "--all-kind", "truncation", "--yes")
    assert code == 0 and "Merged 2 papers in 2 groups" in out
    assert run_json(capsys, *library, "stats", "--json")["papers"] == 5
    assert [g["kind"] for g in run_json(capsys, *library, "dupes", "--json")["groups"]] == ["revision"]
    sources = run_json(capsys, *library, "show", str(full_paper), "--json")["sources"]
    assert sorted(s["file"] for s in sources) == ["venue.txt", "workshop.txt"]
    assert run(capsys, *library, "undo")[0] == 0  # one step takes back every merge
    assert run_json(capsys, *library, "stats", "--json")["papers"] == 7
    assert run(capsys, *library, "redo")[0] == 0
    assert run_json(capsys, *library, "stats", "--json")["papers"] == 5
    assert run(capsys, *library, "unmerge", str(full_paper))[0] == 0  # or one merge alone
    assert run_json(capsys, *library, "stats", "--json")["papers"] == 6
    assert run(capsys, *library, "check")[0] == 0
