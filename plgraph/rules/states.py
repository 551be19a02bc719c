"""Parent states of the visible points of a deduction-system item.

For every ordered pair (a, b) of an item's visible points the state records
whether a has b as a **direct** parent (an edge a -> b inside the item), only as
an **indirect** ancestor (a path through other points), or **neither**.  The
six-letter code lists, in order, (i wrt j, i wrt x, j wrt i, j wrt x, x wrt i,
x wrt j): the other point's letter upper-case = direct, lower-case = indirect,
``F`` = neither, ``_`` = slot not applicable (two-point items: ``A_B___``).

The valid states are *enumerated*, not typed in: each pair of points takes one
of five relations (a below b directly or indirectly, b below a directly or
indirectly, unrelated), and a combination is kept when "descends from" is
transitive and acyclic.  This leaves 5 two-point and 85 three-point states
(the reference's feasible_parents.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import product

#: relation of a pair (a, b): (a descends from b, b descends from a, direct?)
_PAIR_OPTIONS = (
    ("below", True),   # a -> b directly  (arrow "<-" for pair ab)
    ("below", False),  # a below b indirectly ("<_")
    ("above", True),   # b -> a directly  ("->")
    ("above", False),  # b below a indirectly ("_>")
    (None, None),      # unrelated ("__")
)
_ARROWS = {("below", True): "<-", ("below", False): "<_", ("above", True): "->",
           ("above", False): "_>", (None, None): "__"}


@dataclass(frozen=True)
class ParentState:
    """One valid parent state.

    ``code`` is the six-letter string; ``arrows`` the reference's arrow form
    for the pairs (ij, ix, jx); ``parents[p]`` the set of points p has a parent
    link to (direct or indirect) among the visible points.
    """

    code: str
    points: int
    arrows: tuple
    parents: dict

    @property
    def direct_edges(self) -> int:
        return sum(1 for ch in self.code if ch.isupper() and ch != "F")


def _letter(rel, direct_to: str) -> str:
    return direct_to.upper() if rel else direct_to


def _encode(points: int, rels: dict) -> ParentState:
    """rels[(a, b)] = (kind, direct) for a below/above b."""
    par: dict[str, dict[str, bool]] = {p: {} for p in "ijx"[:points]}
    for (a, b), (kind, direct) in rels.items():
        if kind == "below":
            par[a][b] = direct
        elif kind == "above":
            par[b][a] = direct
    slots = (("i", "j"), ("i", "x"), ("j", "i"), ("j", "x"), ("x", "i"), ("x", "j"))
    code = []
    for a, b in slots:
        if a not in par or b not in par:
            code.append("_")
        elif b in par[a]:
            code.append(b.upper() if par[a][b] else b)
        else:
            code.append("F")
    arrows = tuple(_ARROWS[rels[pair]] if pair in rels else None for pair in (("i", "j"), ("i", "x"), ("j", "x")))
    parents = {p: frozenset(par[p]) for p in par}
    return ParentState("".join(code), points, arrows, parents)


def _transitive_and_acyclic(rels: dict, names: str) -> bool:
    below = {(a, b) for (a, b), (kind, _) in rels.items() if kind == "below"}
    below |= {(b, a) for (a, b), (kind, _) in rels.items() if kind == "above"}
    for a, b in below:
        if (b, a) in below:
            return False
        for c in names:
            if (b, c) in below and c != a and (a, c) not in below:
                return False
            if (b, c) in below and c == a:
                return False
    return True


@lru_cache(maxsize=None)
def two_point_states() -> tuple[ParentState, ...]:
    """The 5 states of an Interval's two points."""
    return tuple(_encode(2, {("i", "j"): opt}) for opt in _PAIR_OPTIONS)


@lru_cache(maxsize=None)
def three_point_states() -> tuple[ParentState, ...]:
    """The 85 states of three points (i, j and the external point x)."""
    out = []
    for ij, ix, jx in product(_PAIR_OPTIONS, repeat=3):
        rels = {("i", "j"): ij, ("i", "x"): ix, ("j", "x"): jx}
        if _transitive_and_acyclic(rels, "ijx"):
            out.append(_encode(3, rels))
    return tuple(out)


@lru_cache(maxsize=None)
def all_states() -> tuple[ParentState, ...]:
    """Two-point states first (ids 0-4), then three-point states (ids 5-89)."""
    return two_point_states() + three_point_states()


@lru_cache(maxsize=None)
def state_ids() -> dict[str, int]:
    return {s.code: k for k, s in enumerate(all_states())}
