"""Groups of papers from verified links: strongest links first, ruled-out pairs never together."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field

from desk.core.dedup.verify import EXACT, REVISION, TRUNCATION, Match, describe_link


@dataclass(frozen=True)
class Link:
    """Two papers found alike, and how (``match.a_is_shorter`` speaks of ``a``)."""

    a: int
    b: int
    match: Match


@dataclass(frozen=True)
class Candidate:
    """Papers that look like one paper."""

    ids: tuple[int, ...]
    """Sorted, two or more."""
    similarity: float
    """The lowest similarity among the group's links (``Match.similarity``: what they share)."""
    exact_after_cleanup: bool
    """All texts are equal after cleanup (case, punctuation, markup, math rendering): safe to merge."""
    kind: str = EXACT
    """"exact" when every text is equal after cleanup, "truncation" when every link is one text
    cut from another (or exact), else "revision"."""
    containment: float = 1.0
    """The lowest share of a shorter text found in the longer one, over the group's links."""
    links: tuple[Link, ...] = field(default=(), compare=False)
    """The verified links that hold the group together, strongest first."""


def describe_group(group: Candidate) -> str:
    """What a group is, in words: each of its links, papers named by id."""
    if group.kind == EXACT:
        return "the same text after cleanup"
    return "; ".join(describe_link(link.a, link.b, link.match) for link in group.links)


def ambiguous(links: Mapping[int, Mapping[int, Match]]) -> list[tuple[int, int]]:
    """Pairs of papers not linked to each other that one shorter text is a truncation of."""
    out = []
    for peers in links.values():
        longer = [b for b, m in peers.items() if m.kind == TRUNCATION and m.a_is_shorter]
        for i, a in enumerate(longer):
            out += [(a, b) for b in longer[i + 1 :] if b not in links.get(a, {})]
    return out


def join(
    links: Mapping[int, Mapping[int, Match]],
    fingerprint: Callable[[int], int],
    exclude_pairs: Collection[tuple[int, int]] = (),
) -> list[Candidate]:
    """All groups of linked papers, best first; no group holds a pair of ``exclude_pairs``.

    Groups are the connected components of the verified links; where an excluded pair would
    end up in one component, links are joined strongest first and a link that would bring an
    excluded pair together is left out. A text cut from two papers that are not alike
    themselves (a copy of a shared opening) joins only the one it matches best.
    ``fingerprint(id)``: the paper's cleanup fingerprint (equal for texts equal after cleanup).
    """
    banned: dict[int, set[int]] = {}
    for a, b in [*exclude_pairs, *ambiguous(links)]:
        banned.setdefault(a, set()).add(b)
        banned.setdefault(b, set()).add(a)
    ordered = sorted(
        (-m.score, a, b)
        for a, peers in links.items()
        for b, m in peers.items()
        if a < b and b not in banned.get(a, ())
    )
    members: dict[int, set[int]] = {}
    joined: list[tuple[int, int]] = []
    for _, a, b in ordered:
        group_a = members.get(a) or {a}
        group_b = members.get(b) or {b}
        if group_a is group_b or (banned and any(banned.get(m, set()) & group_b for m in group_a)):
            continue
        joined.append((a, b))
        if len(group_a) < len(group_b):
            group_a, group_b = group_b, group_a
        group_a |= group_b
        for m in group_a:
            members[m] = group_a
    found = {id(g): g for g in members.values()}
    links_of: dict[int, list[Link]] = {key: [] for key in found}
    for a, b in joined:
        links_of[id(members[a])].append(Link(a, b, links[a][b]))
    out = []
    for key, group in found.items():
        held = sorted(links_of[key], key=lambda x: (-x.match.score, x.a, x.b))
        kinds = {link.match.kind for link in held}
        exact = len({fingerprint(i) for i in group}) == 1
        kind = EXACT if exact else TRUNCATION if kinds <= {EXACT, TRUNCATION} else REVISION
        out.append(
            Candidate(
                tuple(sorted(group)),
                min(link.match.similarity for link in held),
                exact,
                kind,
                min(link.match.containment for link in held),
                tuple(held),
            )
        )
    return sorted(out, key=lambda c: (-c.similarity, c.ids))
