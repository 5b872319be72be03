"""The paper's own name, not its field's: acronyms an abstract defines before saying what it brings.

Real abstracts (the CVPR development corpus, bench/names_dev.py) often open on their field —
"Neural radiance fields (NeRF) …", "Federated Learning (FL) …" — and name their method later.
The abstracts below are written here in those shapes (none is copied from anywhere).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from desk.core.text import derive_title, find_short_name, readable_text

CASES = [
    # the field's acronym first, in a sentence that brings nothing; the name in "we present"
    (
        "View synthesis from few images is hard for neural radiance fields (NeRF). Prior work adds "
        "depth priors to NeRF. In this paper, we present Sparse-view regularized NeRF (SparNeRF), a "
        "simple baseline that outperforms NeRF with few views. SparNeRF needs one line of code.",
        "SparNeRF",
    ),
    # "novel" in the field's own words is not the authors bringing something
    (
        "Novel view synthesis is a core problem for neural radiance fields (NeRF). We introduce "
        "GridNeRF, a grid-based model that trains NeRF in minutes. GridNeRF matches NeRF quality.",
        "GridNeRF",
    ),
    # the name after a descriptive window: "a novel … framework, NAME, which …"
    (
        "Human-object interaction (HOI) detection finds pairs of people and things. HOI models "
        "need many labels. We propose a novel weakly supervised HOI framework, WeakHOI, which "
        "learns from captions. WeakHOI beats supervised HOI baselines on two benchmarks.",
        "WeakHOI",
    ),
    (
        "Federated Learning (FL) trains models across clients. FL is open to poisoned updates. "
        "We propose a new robust aggregation rule, named TrimAgg, that drops outlying updates "
        "before averaging. TrimAgg keeps FL accurate under attack.",
        "TrimAgg",
    ),
    # a capitalised word used as a name: never written in lower case, used again
    (
        "We present Orchard, a large-scale simulator for robot picking in farms. Orchard renders "
        "ten thousand frames per second on one GPU, and Orchard scenes are procedurally made.",
        "Orchard",
    ),
]


@pytest.mark.parametrize(("abstract", "name"), CASES, ids=[c[1] for c in CASES])
def test_the_method_is_named_not_the_field(abstract: str, name: str) -> None:
    readable = readable_text(abstract)
    assert find_short_name(readable) == name
    assert name in derive_title(readable, name)


def test_an_abstract_naming_nothing_of_its_own_gets_no_field_acronym() -> None:
    """The field's acronym is not shown as the paper's name when the paper coins none."""
    readable = readable_text(
        "Federated learning (FL) trains one model across many clients without sharing their data. "
        "Client drift slows FL when data differ between clients. We study how often clients should "
        "synchronise, and show that adaptive schedules halve the rounds needed on three benchmarks."
    )
    assert find_short_name(readable) is None


def test_a_word_the_abstract_only_spells_out_carries_no_name_weight(tmp_path: Path) -> None:
    """The long form's first word ("Neural" of "Nougat (Neural Optical …)") was once taken for the
    paper's name and carried the short-name field's weight: "graph neural networks" then ranked
    that paper above the ones about graph neural networks."""
    from desk.core.library.facade import Library

    papers = [
        "Scientific knowledge sits in PDF files. We propose Nougat (Neural Optical Understanding for "
        "Academic Documents), a Visual Transformer model that reads pages into markup. Neural OCR "
        "lags behind on math.",
        "Message passing on graphs loses long-range signal. We study graph neural networks with "
        "rewired edges, and show that rewiring lets graph networks see distant nodes.",
        "Graph neural networks oversmooth when deep. We show that residual graph networks keep node "
        "features apart at sixty layers.",
    ]
    listing = tmp_path / "list.txt"
    listing.write_text("Test 2026 Papers\n\n" + "\n\n".join(papers) + "\n", encoding="utf-8")
    with Library(tmp_path / "lib") as lib:
        lib.import_paths([listing])
        rows = lib.search("graph neural netw").rows
        nougat = next(p.id for p in lib.list_papers() if p.title.startswith("Nougat: "))
        assert lib.paper(nougat).short_name == "Nougat"  # the name it spells out, not its first word
        assert rows and rows[0].paper.id != nougat
        assert nougat not in [r.paper.id for r in rows[:2]]
