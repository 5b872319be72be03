"""The labelled near-duplicate set made from real abstracts (``../shared/dev-corpus/cvpr2023.txt``).

The corpus is read from where it lies, never copied. Every abstract of it is in the set (the
background a false link could come from); for a sample of ``bases`` abstracts the set adds:

Positives (same paper), each paired with its base:

* ``truncated-head-P``: the first P % of the words (30, 40, 50), sometimes with "…" after;
  ``truncated-tail-P``: the last P %; ``truncated-middle-P``: P % from inside, both ends cut;
* ``revised-N``: a v2 with N sentences (2, 3, 4) rewritten (paraphrased: synonyms, words dropped
  and inserted, clauses swapped; one in five replaced by another paper's sentence), its numbers
  changed, and a sentence added (another paper's) or dropped;
* ``reordered``: the sentences after the first shuffled; ``boilerplate``: "Code is available
  at …", an acceptance note or a project page added.

Negatives (different papers):

* ``shared-opening``: another paper rewritten to open with the base's first two sentences,
  paired with the base and (``/copy``) with each of the base's variants;
* ``same-group``: the real pairs of the corpus that share the most (rare) words — the same
  group on the same problem (their titles differ);
* ``common-definition``: two papers on one topic, each given the same definition sentence(s).

Deterministic for a given ``seed``. Used by ``dedup_bench.py``.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from desk.core.dedup.shingles import normalize

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "dev-corpus" / "cvpr2023.txt"
TRUNCATION_SHARES = (30, 40, 50)
REWRITTEN = (2, 3, 4)
POSITIVE_KINDS = (
    *(f"truncated-{where}-{p}" for where in ("head", "tail", "middle") for p in TRUNCATION_SHARES),
    *(f"revised-{n}" for n in REWRITTEN),
    "reordered",
    "boilerplate",
)
NEGATIVE_KINDS = ("shared-opening", "same-group", "common-definition")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"“])")
_NUMBER = re.compile(r"(?<![\w/.])(\d+(?:\.\d+)?)(?![\w/])")
SYNONYMS = {
    "propose": "present", "novel": "new", "method": "approach", "approach": "method",
    "demonstrate": "show", "show": "demonstrate", "significantly": "substantially",
    "outperforms": "surpasses", "achieves": "attains", "achieve": "reach", "framework": "pipeline",
    "leverage": "exploit", "utilize": "use", "extensive": "comprehensive", "experiments": "evaluations",
    "performance": "accuracy", "existing": "prior", "however": "yet", "challenging": "difficult",
    "effective": "efficient", "improve": "boost", "improves": "boosts", "model": "network",
    "large": "big", "problem": "task", "task": "problem", "introduce": "present",
    "recent": "current", "results": "findings", "state-of-the-art": "leading", "learn": "acquire",
    "based": "built", "various": "diverse", "important": "crucial", "simple": "plain",
    "fundamental": "basic", "address": "tackle", "enables": "allows", "design": "devise",
}  # fmt: skip
FILLERS = ("further", "in practice", "notably", "in particular", "as a result", "moreover")
DEFINITIONS = {
    "nerf": "Neural radiance fields (NeRF) represent a scene as a continuous volumetric function, "
    "parameterized by a multilayer perceptron that maps a 3D position and a viewing direction to a "
    "density and a view-dependent color.",
    "diffusion": "Denoising diffusion probabilistic models learn to reverse a gradual noising process, "
    "generating samples by iteratively denoising pure Gaussian noise over many steps.",
    "domain adaptation": "Unsupervised domain adaptation aims to transfer knowledge learned from a "
    "labeled source domain to an unlabeled target domain whose data distribution differs.",
    "few-shot": "Few-shot learning aims to recognize novel categories from only a handful of labeled "
    "examples per class, by transferring knowledge from base categories with abundant annotations.",
    "point cloud": "A point cloud is an unordered set of 3D points sampled from the surfaces of "
    "objects, typically captured by LiDAR sensors or depth cameras.",
    "contrastive": "Contrastive learning pulls the representations of two augmented views of the same "
    "image together while pushing apart the representations of different images.",
    "knowledge distillation": "Knowledge distillation transfers the knowledge of a large teacher "
    "network to a compact student network by training the student to mimic the teacher's outputs.",
    "transformer": "Vision transformers split an image into a sequence of patches and model their "
    "interactions with stacked multi-head self-attention layers.",
}
BOILERPLATE = (
    "Code is available at https://github.com/{user}/{repo}.",
    "Our code and models are publicly available at https://github.com/{user}/{repo}.",
    "Project page: https://{user}.github.io/{repo}/",
    "This paper has been accepted to CVPR 2023.",
)


def read_corpus(path: Path = CORPUS) -> list[str]:
    """The abstracts of a list file (its first paragraph is the header)."""
    paragraphs = [" ".join(p.split()) for p in path.read_text(encoding="utf-8").split("\n\n")]
    return [p for p in paragraphs[1:] if p]


def sentences(text: str) -> list[str]:
    """The sentences of an abstract (a full stop, a space, a capital)."""
    return [s for s in _SENTENCE.split(text) if s]


@dataclass
class RealSet:
    """Texts as a list would hold them, their true paper and kind, and the labelled pairs."""

    raw: dict[int, str] = field(default_factory=dict)
    paper: dict[int, int] = field(default_factory=dict)
    kind: dict[int, str] = field(default_factory=dict)
    positives: list[tuple[int, int, str]] = field(default_factory=list)
    negatives: list[tuple[int, int, str]] = field(default_factory=list)

    def add(self, raw: str, paper: int, kind: str) -> int:
        doc = len(self.raw)
        self.raw[doc], self.paper[doc], self.kind[doc] = raw, paper, kind
        return doc

    def new_paper(self) -> int:
        return max(self.paper.values(), default=-1) + 1


# -- edits -------------------------------------------------------------------------------------


def truncate(text: str, share: int, where: str, rng: random.Random) -> str:
    """``share`` % of the words, from the start ("head"), the end ("tail") or inside ("middle")."""
    words = text.split()
    keep = max(1, round(len(words) * share / 100))
    if where == "head":
        start = 0
    elif where == "tail":
        start = len(words) - keep
    else:
        margin = max(1, round(0.1 * len(words)))
        start = rng.randint(margin, max(margin, len(words) - keep - margin))
    part = " ".join(words[start : start + keep])
    mark = rng.choice(["", "", " ...", "…"])
    if where != "head" and mark:
        part = "... " + part
    if where != "tail":
        part += mark
    return part


def rewrite(sentence: str, rng: random.Random, others: list[str]) -> str:
    """A sentence said another way: synonyms, a few words dropped or added, clauses swapped;
    one time in five, another paper's sentence in its place (rewritten from scratch)."""
    if rng.random() < 0.2:
        return rng.choice(others)
    words = sentence.rstrip(".").split()
    out: list[str] = []
    for i, w in enumerate(words):
        key = w.lower().strip(",;:")
        if key in SYNONYMS and rng.random() < 0.8:
            w = w.replace(key, SYNONYMS[key]) if w.islower() else SYNONYMS[key].capitalize() + w[len(key) :]
        elif i > 0 and len(w) <= 4 and rng.random() < 0.25:
            continue  # a small word dropped
        out.append(w)
        if rng.random() < 0.06:
            out.append(rng.choice(FILLERS) + ",")
    text = " ".join(out)
    if ", " in text and rng.random() < 0.5:  # the clauses around a comma swapped
        head, tail = text.split(", ", 1)
        text = tail[:1].upper() + tail[1:] + ", " + head[:1].lower() + head[1:]
    return text.rstrip(",") + "."


def change_numbers(text: str, rng: random.Random) -> str:
    """Every number a little different (as a v2's updated results are)."""

    def changed(m: re.Match[str]) -> str:
        value = m.group(1)
        if "." in value:
            places = len(value.split(".")[1])
            return f"{float(value) + rng.choice([-1, 1]) * rng.uniform(0.1, 2.0):.{places}f}"
        return str(max(1, int(value) + rng.choice([-2, -1, 1, 2, 3])))

    return _NUMBER.sub(changed, text)


def revise(text: str, rewritten: int, rng: random.Random, others: list[str]) -> str:
    """A v2: ``rewritten`` sentences rewritten, numbers changed, a sentence added or dropped."""
    parts = sentences(text)
    for at in rng.sample(range(len(parts)), min(rewritten, len(parts))):
        parts[at] = rewrite(parts[at], rng, others)
    if rng.random() < 0.5 and len(parts) > 3:
        parts.pop(rng.randrange(1, len(parts)))
    else:
        parts.insert(rng.randint(1, len(parts)), rng.choice(others))
    return change_numbers(" ".join(parts), rng)


def reorder(text: str, rng: random.Random) -> str:
    parts = sentences(text)
    rest = parts[1:]
    for _ in range(5):
        rng.shuffle(rest)
        if rest != parts[1:] or len(rest) < 2:
            break
    return " ".join([parts[0], *rest])


def add_boilerplate(text: str, rng: random.Random) -> str:
    line = rng.choice(BOILERPLATE).format(user=f"lab{rng.randint(1, 99)}", repo=f"proj{rng.randint(1, 999)}")
    return f"{line} {text}" if "accepted" in line and rng.random() < 0.5 else f"{text} {line}"


# -- the set -----------------------------------------------------------------------------------


def same_group_pairs(abstracts: list[str], count: int) -> list[tuple[int, int]]:
    """The ``count`` pairs of abstracts whose rare words overlap most (idf-weighted cosine)."""
    import numpy as np

    vocab: dict[str, int] = {}
    docs = [{vocab.setdefault(w, len(vocab)) for w in normalize(a).split()} for a in abstracts]
    matrix = np.zeros((len(docs), len(vocab)), dtype=np.float32)
    for i, words in enumerate(docs):
        matrix[i, list(words)] = 1.0
    idf = np.log(len(docs) / matrix.sum(axis=0))
    matrix *= idf
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    sims = matrix @ matrix.T
    np.fill_diagonal(sims, 0.0)
    upper = np.triu_indices(len(docs), 1)
    best = np.argsort(-sims[upper])[:count]
    return [(int(upper[0][k]), int(upper[1][k])) for k in best]


def build(seed: int = 0, bases: int = 60, path: Path = CORPUS, same_group: int = 40) -> RealSet:
    """The labelled set: every corpus abstract, ``bases`` of them with a variant of each kind."""
    rng = random.Random(seed)
    abstracts = read_corpus(path)
    # Papers that lend their body to a shared-opening negative are left out of the set: the
    # negative would be a revision of them.
    picked = rng.sample([k for k, t in enumerate(abstracts) if len(sentences(t)) >= 5], 2 * bases)
    chosen_at, donors = picked[:bases], picked[bases:]
    out = RealSet()
    doc_of = {k: out.add(text, k, "original") for k, text in enumerate(abstracts) if k not in set(donors)}
    originals = list(doc_of.values())
    chosen = [doc_of[k] for k in chosen_at]
    all_sentences = [s for text in abstracts for s in sentences(text) if len(s.split()) >= 8]
    copies: dict[int, list[int]] = defaultdict(list)
    for base in chosen:
        text, paper = out.raw[base], out.paper[base]
        made: dict[str, str] = {}
        for where in ("head", "tail", "middle"):
            for share in TRUNCATION_SHARES:
                made[f"truncated-{where}-{share}"] = truncate(text, share, where, rng)
        for n in REWRITTEN:
            made[f"revised-{n}"] = revise(text, n, rng, all_sentences)
        made["reordered"] = reorder(text, rng)
        made["boilerplate"] = add_boilerplate(text, rng)
        for kind, variant in made.items():
            doc = out.add(variant, paper, kind)
            copies[base].append(doc)
            out.positives.append((base, doc, kind))
    # Different papers opening with the same two sentences: another paper's body after the base's.
    for base, donor in zip(chosen, donors, strict=True):
        opening = sentences(out.raw[base])[:2]
        body = sentences(abstracts[donor])[2:]
        doc = out.add(" ".join([*opening, *body]), out.new_paper(), "shared-opening")
        out.negatives.append((base, doc, "shared-opening"))
        shared = set(normalize(" ".join(opening)).split())
        for c in copies[base]:  # a copy cut inside the shared opening is either paper's
            inside = set(normalize(out.raw[c]).split()) <= shared
            out.negatives.append((c, doc, "shared-opening/" + ("ambiguous" if inside else "copy")))
    others = [d for d in originals if d not in set(chosen)]
    out.negatives += [
        (doc_of[a], doc_of[b], "same-group")
        for a, b in same_group_pairs(abstracts, same_group)
        if a in doc_of and b in doc_of
    ]
    # Two papers on one topic quoting the same definition (after their first sentence).
    for topic, definition in DEFINITIONS.items():
        on_topic = [d for d in others if topic in out.raw[d].lower()]
        for _ in range(min(3, len(on_topic) // 2)):
            a, b = rng.sample(on_topic, 2)
            docs = []
            for d in (a, b):
                parts = sentences(out.raw[d])
                docs.append(out.add(" ".join([parts[0], definition, *parts[1:]]), out.paper[d], "definition"))
            out.negatives.append((docs[0], docs[1], "common-definition"))
    return out
