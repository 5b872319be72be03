"""The development benchmark: desk's ranking on 2,359 real CVPR 2023 abstracts beside FTS5.

The corpus is read from ``../shared/dev-corpus/`` (never copied into the repository; the script
says so and exits 0 when it is absent). Three sets of queries, judged by MRR@10, recall@10 and
nDCG@10 for every ranker and for SQLite FTS5 (porter unicode61, bm25) as OR and as AND of the
query's words, in the same run:

- ``title``: every real title as the query, its paper the one relevant answer (thousands of
  queries nobody chose);
- ``4words``: the first four content words of each title (stop words left out), the same answer;
- ``sentence``: a sentence of each abstract (drawn by the paper's index, never its first) as a
  reader half-remembers it: its content words, every other one dropped from a random start, 4-8
  kept — text nobody chose, from the abstract side rather than the title's;
- ``rare``: the 2-3 rarest content words of each real title (rarest by how many abstracts hold
  them; a word no abstract holds left out), in the title's order, as a researcher types the
  words that stuck;
- ``author``: the first author's family name and the first two content words of the title
  (``cvpr2023.json``'s authors; a reader remembering who wrote it and roughly what) — only when
  that file is there;
- ``researcher``: bench/dev_queries.json, queries a researcher would type (short topics,
  acronyms, misspellings, paraphrases, partial titles) with graded judgements written by reading
  the abstracts (3 = about exactly this, 2 = a main subject, 1 = relevant in part).

recall@10 is the share of a query's relevant papers in the first 10, out of at most 10 (so a topic
with 14 relevant papers can reach 1.0); ``hit@10`` is the share of queries with any relevant
paper there. nDCG@10 uses gains 2^grade - 1. Search latency is measured around each ranker's call
(desk: ``Library.search_ids(q, 50)``, hits with snippets) and FTS5's ranked query with ``snippet()``
on the title-free queries; the machine is shared, so compare within one run.

``--authors`` imports the corpus as JSON lines of the same abstracts with their authors (no
titles: desk derives them as from the bare list), so authors are in the index; without it the
bare list is imported, as before.

``--distractors N`` adds N abstracts recombined from the corpus's own sentences
(bench/realcorpus.py) to desk's library and to FTS5's table: the same queries then meet a bigger
library (the semantic vectors fitted on it too), and a distractor ranked above the paper counts
as a miss for every engine alike.

Other rankers plug in as ``--ranker NAME=module:function``: a function ``(library, query, k)`` ->
paper ids best first (see ``Ranker``), e.g. a fusion of BM25F with a semantic signal.

    python bench/relevance_dev.py [--ranker NAME=module:function ...] [--no-titles]
        [--distractors N] [--authors] [--out FILE]
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import random
import re
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fts import Fts5, read_abstracts, to_match
from stats import percentile

if TYPE_CHECKING:
    from desk.core.library.facade import Library

HERE = Path(__file__).resolve().parent
CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "dev-corpus"
QUERIES = HERE / "dev_queries.json"
K = 10
DEPTH = 50  # hits asked of every engine (the window's first page); ranks beyond are misses

#: A ranker: (library, query, k) -> paper ids, best first.
Ranker = Callable[["Library", str, int], Sequence[int]]

#: Function words left out of a title's "first four content words".
_STOP_TEXT = """a an and are as at be by can do does for from has have how in into is it its of on or our
over the their to towards toward via vs what when where which while who why with without
we us you your than that this these those through under up upon not no"""
STOP = frozenset(_STOP_TEXT.split())
_TITLE_WORD = re.compile(r"[\w]+(?:[-'’][\w]+)*")


def desk_ranker(lib: Library, query: str, k: int) -> list[int]:
    """desk as it ships: ``Library.search_ids`` (hits with snippets)."""
    return [h.id for h in lib.search_ids(query, limit=k).hits]


def load_ranker(spec: str) -> tuple[str, Ranker]:
    """``NAME=module:function`` -> (NAME, the function)."""
    name, _, target = spec.partition("=")
    module, _, attr = target.partition(":")
    if not (name and module and attr):
        raise SystemExit(f"--ranker wants NAME=module:function, not {spec!r}")
    fn: Ranker = getattr(importlib.import_module(module), attr)
    return name, fn


def four_words(title: str) -> str:
    """The first four content words of a title, as written."""
    words = [w for w in _TITLE_WORD.findall(title) if w.lower() not in STOP]
    return " ".join(words[:4])


#: More function words, left out of a sentence's words (a title rarely has them).
_SENTENCE_STOP_TEXT = """was were been being so too both however also such more most very each other
all some only then there thus here well further moreover furthermore even many much first second
while since because although between among across within about against after before during"""
_SENTENCE_STOP = STOP | frozenset(_SENTENCE_STOP_TEXT.split())


def _content(text: str, stop: frozenset[str] = STOP) -> list[str]:
    return [w for w in _TITLE_WORD.findall(text) if w.lower() not in stop and not w.isdigit()]


def sentence_query(abstract: str, index: int) -> str:
    """A sentence of the abstract (not the first), its content words thinned: every other one kept."""
    from realcorpus import split_sentences

    rng = random.Random(f"sentence/{index}")
    sentences = [
        s for s in split_sentences(abstract)[1:] if len(_content(s, _SENTENCE_STOP)) >= 8
    ] or split_sentences(abstract)
    words = _content(rng.choice(sentences), _SENTENCE_STOP)
    kept = words[rng.randrange(2) :: 2] if len(words) >= 8 else words
    return " ".join(kept[:8])


def rare_query(title: str, index: int, df: dict[str, int]) -> str:
    """The 2-3 content words of a title that the fewest abstracts (but one) hold, in the title's order."""
    words = list(dict.fromkeys(w for w in _content(title) if df.get(w.lower(), 0)))
    k = 2 + index % 2
    rarest = set(sorted(words, key=lambda w: (df.get(w.lower(), 0), w))[:k])
    return " ".join(w for w in words if w in rarest)


def author_query(authors: Sequence[str], title: str) -> str:
    """The first author's family name (the name's last word) and the title's first two content words."""
    words = four_words(title).split()[:2]
    if not authors or not words or not str(authors[0]).split():
        return ""
    return " ".join([str(authors[0]).split()[-1], *words])


def authors_file(corpus: Path, out: Path) -> Path:
    """JSON lines of the corpus's abstracts with their authors, in the bare list's order (no titles)."""
    records = sorted(
        json.loads((corpus / "cvpr2023.json").read_text(encoding="utf-8")), key=lambda r: r["index"]
    )
    with out.open("w", encoding="utf-8") as f:
        for r in records:
            f.write(
                json.dumps({"abstract": r["abstract"], "authors": r["authors"]}, ensure_ascii=False) + "\n"
            )
    return out


@dataclass
class Query:
    """One query with its judged papers (corpus index -> grade)."""

    text: str
    kind: str
    relevant: dict[int, int]
    ranks: dict[str, list[int]] = field(default_factory=dict)  # engine -> corpus indexes, best first


def load_sets(corpus: Path, queries_file: Path, titles: bool) -> dict[str, list[Query]]:
    """The three query sets (``title`` and ``4words`` left out when not ``titles``)."""
    sets: dict[str, list[Query]] = {}
    if titles:
        rows = [
            line.split("\t") for line in (corpus / "titles.tsv").read_text(encoding="utf-8").splitlines()[1:]
        ]
        sets["title"] = [Query(t.strip(), "title", {int(i): 1}) for _, i, t in rows]
        sets["4words"] = [Query(four_words(t), "4words", {int(i): 1}) for _, i, t in rows if four_words(t)]
        abstracts = read_abstracts(corpus / "cvpr2023.txt")
        sets["sentence"] = [Query(sentence_query(a, i), "sentence", {i: 1}) for i, a in enumerate(abstracts)]
        df: dict[str, int] = {}
        for a in abstracts:
            for w in {w.lower() for w in _TITLE_WORD.findall(a)}:
                df[w] = df.get(w, 0) + 1
        sets["rare"] = [Query(q, "rare", {int(i): 1}) for _, i, t in rows if (q := rare_query(t, int(i), df))]
        records = corpus / "cvpr2023.json"
        if records.is_file():
            by_index = {int(r["index"]): r for r in json.loads(records.read_text(encoding="utf-8"))}
            sets["author"] = [
                Query(q, "author", {int(i): 1})
                for _, i, t in rows
                if (q := author_query(by_index.get(int(i), {}).get("authors") or [], t))
            ]
    data = json.loads(queries_file.read_text(encoding="utf-8"))
    sets["researcher"] = [
        Query(q["q"], q["kind"], {int(i): int(g) for i, g in q["rel"].items()}) for q in data["queries"]
    ]
    return sets


def metrics(q: Query, ranked: Sequence[int]) -> dict[str, float]:
    """MRR@K, recall@K (of at most K relevant), hit@K and nDCG@K of one ranking."""
    top = list(ranked[:K])
    rr = next((1 / (i + 1) for i, d in enumerate(top) if d in q.relevant), 0.0)
    found = sum(1 for d in top if d in q.relevant)
    dcg = sum((2 ** q.relevant.get(d, 0) - 1) / math.log2(i + 2) for i, d in enumerate(top))
    ideal = sorted(q.relevant.values(), reverse=True)[:K]
    idcg = sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(ideal)) or 1.0
    return {
        "mrr": rr,
        "recall": found / min(K, len(q.relevant)),
        "hit": float(found > 0),
        "ndcg": dcg / idcg,
    }


def mean_metrics(queries: Sequence[Query], engine: str) -> dict[str, float]:
    """Each metric averaged over queries."""
    n = len(queries) or 1
    total: dict[str, float] = {"mrr": 0.0, "recall": 0.0, "hit": 0.0, "ndcg": 0.0}
    for q in queries:
        for name, value in metrics(q, q.ranks[engine]).items():
            total[name] += value
    return {name: value / n for name, value in total.items()}


def run_desk(
    corpus_file: Path,
    sets: dict[str, list[Query]],
    rankers: dict[str, Ranker],
    work: Path,
    distractors: Sequence[Path] = (),
) -> tuple[dict[str, list[float]], float]:
    """Import the corpus (and distractors) into a fresh library; every ranker answers every query.

    Returns latencies. A paper not of the corpus (a distractor) ranks as -1: it is never relevant.
    """
    from desk.core.library.facade import Library

    latencies: dict[str, list[float]] = {name: [] for name in rankers}
    with Library(work / "desk-library") as lib:
        started = time.perf_counter()
        lib.import_paths([corpus_file, *distractors])
        import_s = time.perf_counter() - started
        index_of = {p.id: s.index for p in lib.list_papers() for s in p.sources if s.file == corpus_file.name}
        for name, ranker in rankers.items():
            ranker(lib, "warm up", DEPTH)
            for set_name, queries in sets.items():
                for q in queries:
                    t0 = time.perf_counter()
                    ids = ranker(lib, q.text, DEPTH)
                    if set_name != "title":
                        latencies[name].append((time.perf_counter() - t0) * 1000)
                    q.ranks[name] = [index_of.get(i, -1) for i in ids]
    return latencies, import_s


def run_fts(
    corpus_file: Path, sets: dict[str, list[Query]], work: Path, distractors: Sequence[Path] = ()
) -> dict[str, list[float]]:
    """FTS5 over the same abstracts (rowid = corpus index + 1), OR and AND of the query's words."""
    fts = Fts5(work / "fts.sqlite3")
    fts.create()
    own = read_abstracts(corpus_file)
    fts.insert(own + [a for path in distractors for a in read_abstracts(path)])
    latencies: dict[str, list[float]] = {"fts5_or": [], "fts5_and": []}
    for mode in ("or", "and"):
        engine = f"fts5_{mode}"
        for set_name, queries in sets.items():
            for q in queries:
                t0 = time.perf_counter()
                rows = fts.search(to_match(q.text, mode), limit=DEPTH)
                if set_name != "title":
                    latencies[engine].append((time.perf_counter() - t0) * 1000)
                q.ranks[engine] = [r.rowid - 1 if r.rowid <= len(own) else -1 for r in rows]
    fts.close()
    return latencies


def table(sets: dict[str, list[Query]], engines: list[str]) -> tuple[list[str], dict[str, Any]]:
    """Markdown lines of the one table, and its figures."""
    rows: list[tuple[str, list[Query]]] = []
    for name, queries in sets.items():
        rows.append((name, queries))
        if name == "researcher":
            for kind in sorted({q.kind for q in queries}):
                rows.append((f"  {kind}", [q for q in queries if q.kind == kind]))
    head = ["set", "n"] + [f"{m} {e}" for m in ("MRR@10", "R@10", "nDCG@10") for e in engines]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    figures: dict[str, Any] = {}
    for label, queries in rows:
        per = {e: mean_metrics(queries, e) for e in engines}
        figures[label.strip()] = {"n": len(queries), **per}
        cells = [label, str(len(queries))]
        cells += [f"{per[e][m]:.3f}" for m in ("mrr", "recall", "ndcg") for e in engines]
        lines.append("| " + " | ".join(cells) + " |")
    return lines, figures


def misses(queries: Sequence[Query], engine: str, titles: dict[int, str]) -> list[dict[str, Any]]:
    """Researcher queries whose first answer is not a relevant paper."""
    out = []
    for q in queries:
        ranked = q.ranks[engine]
        if ranked and ranked[0] in q.relevant:
            continue
        first = next((i + 1 for i, d in enumerate(ranked) if d in q.relevant), None)
        out.append(
            {
                "query": q.text,
                "kind": q.kind,
                "first_relevant_rank": first,
                "top3": [f"{d} {titles.get(d, '')[:60]}" for d in ranked[:3]],
            }
        )
    return out


def main(argv: list[str] | None = None) -> int:
    """Run every engine on every set; print the table; write JSON."""
    p = argparse.ArgumentParser(description="desk vs FTS5 relevance on the real-abstract dev corpus")
    p.add_argument("--corpus", type=Path, default=CORPUS)
    p.add_argument("--queries", type=Path, default=QUERIES)
    p.add_argument("--ranker", action="append", default=[], help="NAME=module:function, added to desk")
    p.add_argument("--no-titles", action="store_true", help="researcher queries only (fast)")
    p.add_argument("--misses", action="store_true", help="print researcher queries desk does not get first")
    p.add_argument("--distractors", type=int, default=0, help="recombined abstracts added (realcorpus.py)")
    p.add_argument("--sets", default="", help="comma-separated sets to run (default: all)")
    p.add_argument(
        "--authors", action="store_true", help="import the abstracts with their authors (JSON lines)"
    )
    p.add_argument("--out", type=Path, default=HERE / "out" / "relevance_dev.json")
    args = p.parse_args(argv)
    corpus_file = args.corpus / "cvpr2023.txt"
    if not corpus_file.is_file():
        print(f"skipped: no dev corpus at {args.corpus.resolve()} (it is never copied into the repository)")
        return 0
    if args.authors and not (args.corpus / "cvpr2023.json").is_file():
        print(f"--authors needs {args.corpus / 'cvpr2023.json'}", file=sys.stderr)
        return 2
    sets = load_sets(args.corpus, args.queries, titles=not args.no_titles)
    rankers: dict[str, Ranker] = {"desk": desk_ranker}
    rankers.update(load_ranker(spec) for spec in args.ranker)
    if args.sets:
        sets = {name: qs for name, qs in sets.items() if name in args.sets.split(",")}
    with tempfile.TemporaryDirectory(prefix="desk-relevance-dev-") as tmp:
        extra: list[Path] = []
        if args.distractors:
            from realcorpus import RealGenerator

            generator = RealGenerator(seed=7, folder=args.corpus)
            extra = generator.write(args.distractors, Path(tmp) / "distractors")
        imported = authors_file(args.corpus, Path(tmp) / "cvpr2023.jsonl") if args.authors else corpus_file
        latencies, import_s = run_desk(imported, sets, rankers, Path(tmp), extra)
        latencies.update(run_fts(corpus_file, sets, Path(tmp), extra))
    engines = [*rankers, "fts5_or", "fts5_and"]
    lines, figures = table(sets, engines)
    print(f"## dev corpus: {corpus_file.name}, K={K}")
    print("\n".join(lines))
    print()
    speed = {
        e: {"p50": percentile(v, 50), "p95": percentile(v, 95), "n": len(v)} for e, v in latencies.items()
    }
    print("search latency, ms (4-word + researcher queries, top 50 with snippets; shared machine):")
    for e, s in speed.items():
        print(f"  {e:<10} p50 {s['p50']:.2f}  p95 {s['p95']:.2f}  (n={s['n']})")
    titles = {
        int(i): t
        for _, i, t in (
            line.split("\t")
            for line in (args.corpus / "titles.tsv").read_text(encoding="utf-8").splitlines()[1:]
        )
    }
    missed = {e: misses(sets.get("researcher", []), e, titles) for e in rankers}
    if args.misses:
        for e, rows in missed.items():
            print(f"\nresearcher queries {e} does not answer first with a relevant paper:")
            for m in rows:
                first = m["first_relevant_rank"]
                print(f"  [{m['kind']}] {m['query']!r}: first relevant at {first}; {m['top3'][:1]}")
    report = {
        "k": K,
        "corpus": corpus_file.name,
        "distractors": args.distractors,
        "authors": args.authors,
        "import_seconds": import_s,
        "engines": engines,
        "figures": figures,
        "latency_ms": speed,
        "misses": missed,
        "per_query": {
            e: [
                {"query": q.text, "kind": q.kind, "ranks": q.ranks[e][:K]} for q in sets.get("researcher", [])
            ]
            for e in engines
        },
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"JSON: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
