"""Realistic synthetic paper abstracts in the seed format, deterministic by seed.

The vocabulary is Zipf-distributed over tens of thousands of words (real ML/English words at the
head, generated technical terms in the tail); ~200 topics each have their own word distribution;
each abstract is drawn from one or two topics and follows the moves of a real abstract (context,
gap, proposal, method, theory, experiments, code) with a method name (STAR-KV, ScaleMoE, ...), some
LaTeX, Markdown emphasis and URLs. Abstract ``i`` depends only on ``(seed, i)``, so a small corpus
is a prefix of a larger one and queries derived from the first abstracts fit every size.

Usage: ``python bench/corpus.py --size 10000 --out DIR [--seed 7] [--per-file 5000]``
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import random
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import templates as T
import vocab

PER_FILE = 5000
N_TOPICS = 200
N_TECH = 40_000
_SLOT = re.compile(r"\{(np|nps|n|ns|a|v|vs|ving|ved|field|M|Mintro|base|math|pct|num|x|emph|url)\}")
_ARTICLE = re.compile(r"\b([Aa]) ([aeiouAEIOU])")
_HYPHEN_SUFFIXES = vocab.words("based aware driven free guided agnostic efficient level conditioned specific")
_WELL_KNOWN = vocab.words(
    "PPO SAC TD3 GRPO DPO LoRA BERT ResNet ViT CLIP DDPM MAML DQN IQL CQL MoE GCN GAT SimCLR MAE "
    "Adam SGD RLHF GPT-4 Llama-3 Mamba Transformer-XL U-Net NeRF PointNet XGBoost"
)


@dataclass(frozen=True)
class Abstract:
    """One generated abstract and what queries can be derived from it."""

    index: int
    text: str
    method: str  # the short name as a user would type it ("STAR-KV"), "" when not typeable
    long_name: str  # "Spectral Token Adaptive Routing"
    field: str  # the research area of the main topic
    topics: tuple[int, ...]
    focus: tuple[str, ...]  # content words the abstract keeps coming back to


class Zipf:
    """Draw items with probability proportional to 1 / (rank + offset) ** s."""

    def __init__(self, items: list[str], s: float = 1.05, offset: float = 2.7) -> None:
        self.items = items
        weights = [1.0 / (r + offset) ** s for r in range(len(items))]
        self.cum = list(itertools.accumulate(weights))

    def draw(self, rng: random.Random) -> str:
        """One item."""
        return self.items[bisect.bisect_left(self.cum, rng.random() * self.cum[-1])]


@dataclass(frozen=True)
class Topic:
    """A research topic: its area and its own noun and adjective distributions."""

    field: str
    nouns: Zipf
    adjectives: Zipf


class Generator:
    """Builds the vocabulary and topics for a seed, then any abstract by index."""

    def __init__(self, seed: int = 7) -> None:
        self.seed = seed
        rng = random.Random(seed)
        tech_nouns, tech_adjs = vocab.technical_terms(rng, N_TECH)
        real_nouns = list(dict.fromkeys(vocab.NOUNS))
        real_adjs = list(dict.fromkeys(vocab.ADJECTIVES))
        rng.shuffle(real_nouns)
        rng.shuffle(real_adjs)
        self.tech_nouns = tech_nouns
        self.real_nouns = Zipf(real_nouns, s=0.9)
        self.nouns = Zipf(real_nouns + tech_nouns)  # the long tail of jargon
        self.real_adjectives = Zipf(real_adjs, s=0.8)
        self.adjectives = Zipf(real_adjs + tech_adjs)
        self.verbs = Zipf(list(dict.fromkeys(vocab.VERBS)), s=0.8)
        self.baselines = Zipf(_WELL_KNOWN + [self._acronym(rng) for _ in range(400)], s=1.1)
        self.users = [self._pseudo_word(rng) for _ in range(500)]
        fields = list(vocab.FIELDS)
        self.topics: list[Topic] = []
        for t in range(N_TOPICS):
            field = fields[t % len(fields)]
            nouns = list(dict.fromkeys(vocab.FIELDS[field] + rng.sample(real_nouns, 25)))
            nouns += rng.sample(tech_nouns[200:20_000], 15)
            adjs = rng.sample(real_adjs, 12) + rng.sample(tech_adjs, 2)
            self.topics.append(Topic(field, Zipf(nouns, s=0.9), Zipf(adjs, s=0.9)))

    # ---- names -------------------------------------------------------------------------------
    @staticmethod
    def _acronym(rng: random.Random) -> str:
        return "".join(rng.choice("ABCDEFGHIKLMNOPRSTUVW") for _ in range(rng.randint(2, 5)))

    @staticmethod
    def _pseudo_word(rng: random.Random) -> str:
        syll = ["ka", "lo", "mi", "ren", "sa", "tu", "vo", "zen", "qi", "ba", "dor", "fel", "gim", "hu"]
        return "".join(rng.choice(syll) for _ in range(rng.randint(2, 3)))

    def _method(self, rng: random.Random, topic: Topic) -> tuple[str, str, str]:
        """(introduction as written, short name as typed, long name)."""
        words = [self._draw_noun_or_adj(rng, topic) for _ in range(rng.randint(2, 4))]
        parts = [p for w in words for p in w.split("-")]
        long_name = " ".join(p.capitalize() for p in parts)
        acr = "".join(p[0].upper() for p in parts)
        style = rng.random()
        if style < 0.35:
            return f"{long_name} ({acr})", acr, long_name
        if style < 0.50:
            tail = "".join(rng.choice("ABCDEFGHKLMNPRSTVXZ") for _ in range(2))
            return f"{acr}-{tail}", f"{acr}-{tail}", long_name
        if style < 0.65:
            camel = parts[0].capitalize() + self._acronym(rng)
            return camel, camel, long_name
        if style < 0.75:
            spelled = " ".join(f"\\textbf{{{p[0].upper()}}}{p[1:]}" for p in parts)
            return f"{spelled} ({acr})", acr, long_name
        if style < 0.85:
            return f"{long_name} (**{acr}**)", acr, long_name
        if style < 0.93:
            latexed = f"{acr[0]}$^{rng.randint(2, 3)}${acr[1:] or 'X'}"
            return latexed, "", long_name
        hyph = f"{parts[0][:4].capitalize()}-{parts[-1][:3].capitalize()}"
        return hyph, hyph, long_name

    # ---- words -------------------------------------------------------------------------------
    def _draw_noun_or_adj(self, rng: random.Random, topic: Topic) -> str:
        return topic.nouns.draw(rng) if rng.random() < 0.7 else topic.adjectives.draw(rng)

    def abstract(self, index: int) -> Abstract:
        """The abstract with this index (the same for every corpus size)."""
        rng = random.Random(self.seed * 1_000_003 + index)
        topics = [rng.randrange(N_TOPICS)]
        if rng.random() < 0.45:
            topics.append(rng.randrange(N_TOPICS))
        main = self.topics[topics[0]]
        focus = list(dict.fromkeys(main.nouns.draw(rng) for _ in range(4)))
        intro, method, long_name = self._method(rng, main)
        state = _State(self, rng, [self.topics[t] for t in topics], focus, intro, method or intro, long_name)
        text = state.compose(rng.randint(150, 250))
        return Abstract(index, text, method, long_name, main.field, tuple(topics), tuple(focus))

    def write(self, size: int, out: Path, per_file: int = PER_FILE) -> list[Path]:
        """Write abstracts 0..size-1 as seed-format files of at most per_file abstracts each."""
        out.mkdir(parents=True, exist_ok=True)
        paths: list[Path] = []
        for part, start in enumerate(range(0, size, per_file)):
            path = out / f"synthetic-{part:03d}.txt"
            body = "\n\n".join(self.abstract(i).text for i in range(start, min(size, start + per_file)))
            path.write_text(f"Synthetic Conf {2000 + part % 100:04d} Papers\n\n{body}\n", encoding="utf-8")
            paths.append(path)
        return paths


class _State:
    """Fills the templates of one abstract."""

    def __init__(
        self,
        gen: Generator,
        rng: random.Random,
        topics: list[Topic],
        focus: list[str],
        intro: str,
        method: str,
        long_name: str,
    ) -> None:
        self.gen, self.rng, self.topics, self.focus = gen, rng, topics, focus
        self.intro, self.method, self.long_name = intro, method, long_name
        self.introduced = False

    def topic(self) -> Topic:
        return self.topics[0] if len(self.topics) == 1 or self.rng.random() < 0.7 else self.topics[1]

    def noun(self) -> str:
        r = self.rng.random()
        if r < 0.15:
            return self.rng.choice(self.focus)
        if r < 0.62:
            return self.topic().nouns.draw(self.rng)
        return (self.gen.nouns if r > 0.9 else self.gen.real_nouns).draw(self.rng)

    def adjective(self) -> str:
        r = self.rng.random()
        if r < 0.35:
            return self.topic().adjectives.draw(self.rng)
        return (self.gen.adjectives if r > 0.93 else self.gen.real_adjectives).draw(self.rng)

    def noun_phrase(self, plural: bool) -> str:
        head = self.noun()
        head = vocab.plural(head) if plural else head
        r = self.rng.random()
        if r < 0.2:
            return head
        if r < 0.5:
            return f"{self.adjective()} {head}"
        if r < 0.7:
            return f"{self.noun()} {head}"
        if r < 0.8:
            return f"{self.adjective()} {self.noun()} {head}"
        if r < 0.9:
            return f"{head} of {vocab.plural(self.noun())}"
        return f"{self.noun()}-{self.rng.choice(_HYPHEN_SUFFIXES)} {head}"

    def fill(self, slot: str) -> str:
        rng = self.rng
        match slot:
            case "np" | "nps":
                return self.noun_phrase(slot == "nps")
            case "n":
                return self.noun()
            case "ns":
                return vocab.plural(self.noun())
            case "a":
                return self.adjective()
            case "v" | "vs" | "ving" | "ved":
                verb = self.gen.verbs.draw(rng)
                form = {"v": str, "vs": vocab.third_person, "ving": vocab.gerund, "ved": vocab.past}[slot]
                return form(verb)
            case "field":
                return self.topic().field
            case "M":
                return f"**{self.method}**" if rng.random() < 0.15 else self.method
            case "Mintro":
                self.introduced = True
                return self.intro
            case "base":
                return self.gen.baselines.draw(rng)
            case "math":
                return rng.choice(T.MATH)
            case "pct":
                return f"{rng.uniform(1, 40):.1f}%"
            case "num":
                return str(rng.choice([3, 4, 5, 6, 8, 10, 12, 15, 20, 27, 50]))
            case "x":
                return f"{rng.uniform(1.2, 12):.1f}$\\times$"
            case "emph":
                return _SLOT.sub(lambda m: self.fill(m.group(1)), rng.choice(T.EMPHASIS))
            case "url":
                user = rng.choice(self.gen.users)
                repo = re.sub(r"[^a-z0-9]+", "-", (self.method or self.long_name).lower()).strip("-")
                return f"https://github.com/{user}/{repo or 'code'}"
        raise KeyError(slot)

    def sentence(self, template: str) -> str:
        text = _SLOT.sub(lambda m: self.fill(m.group(1)), template)
        return text[0].upper() + text[1:]

    def compose(self, target: int) -> str:
        """Sentences in the order of a real abstract, about target words long (150-250)."""
        rng = self.rng
        plan = [rng.choice(T.CONTEXT) for _ in range(rng.randint(1, 2))]
        plan += [rng.choice(T.GAP) for _ in range(rng.randint(1, 2))]
        plan.append(rng.choice(T.PROPOSAL))
        details = rng.sample(T.DETAIL, len(T.DETAIL))
        tail = [rng.choice(T.THEORY) for _ in range(rng.randint(0, 2))]
        tail += [rng.choice(T.EXPERIMENT) for _ in range(rng.randint(1, 2))]
        tail += [rng.choice(T.CLOSING)] if rng.random() < 0.5 else []
        tail += [rng.choice(T.CODE)] if rng.random() < 0.25 else []
        head = [self.sentence(t) for t in plan]
        end = [self.sentence(t) for t in tail]
        words = sum(len(s.split()) for s in head + end)
        middle: list[str] = []
        for template in itertools.cycle(details):
            if words >= target - 12 and middle:
                break
            s = self.sentence(template)
            middle.append(s)
            words += len(s.split())
        while words > 250 and len(middle) > 1:
            words -= len(middle.pop().split())
        while words < 150:
            s = self.sentence(rng.choice(T.DETAIL))
            middle.append(s)
            words += len(s.split())
        return _ARTICLE.sub(r"\1n \2", " ".join(head + middle + end))


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, required=True, help="number of abstracts")
    parser.add_argument("--out", type=Path, required=True, help="folder to write the files into")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--per-file", type=int, default=PER_FILE)
    args = parser.parse_args(argv)
    paths = Generator(args.seed).write(args.size, args.out, args.per_file)
    print(f"wrote {args.size} abstracts in {len(paths)} files to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
