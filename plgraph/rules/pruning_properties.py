"""The thesis's three observations about the rules its training derivations use, checked
on a :class:`~plgraph.rules.usage.RuleUsage` (thesis §"Algorithm rule pruning", the list
after Figure rules-to-prune):

1. B items are never created;
2. L and R items are always immediately combined with other items to create an I;
3. the external point can be a parent or child when an X is created, but additional edges
   always have it as the parent, and are only added in N items, not L or R items.

Each check reads only the rules applied at least once and reports the counts behind its
verdict, so a reader can see by how much a claim fails.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .generate import SPAN_CODES
from .tables import N_STATES, RuleTables, full_tables
from .usage import RuleUsage

POINTS = "ijx"


@dataclass(frozen=True)
class PropertyCheck:
    """One observation: ``claim`` (the thesis's words), whether it ``holds`` on the
    derivations, and the ``evidence`` (counts of rule applications) it rests on."""

    name: str
    claim: str
    holds: bool
    evidence: str


def _type(key: int) -> str:
    return SPAN_CODES[int(key) // N_STATES][-1]


def _listing(counts: Counter) -> str:
    return ", ".join(f"{k}: {v:,}" for k, v in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def check_properties(usage: RuleUsage, tables: RuleTables | None = None) -> tuple[PropertyCheck, ...]:
    """The three observations on ``usage`` (rule indices refer to ``tables``, default the
    full tables), in the thesis's order."""
    t = tables or full_tables()
    comb = {r: c for r, c in usage.combination.items() if c > 0}
    arcs = {a: c for a, c in usage.arc.items() if c > 0}
    n_comb = sum(comb.values())

    make_b = sum(c for r, c in comb.items() if _type(t.comb_goal[r]) == "B")
    arc_b = sum(c for a, c in arcs.items() if not t.arc_xcreate[a] and _type(t.arc_in[a]) == "B")
    b_check = PropertyCheck(
        "b-never-created", "B items are never created.", make_b == 0 and arc_b == 0,
        f"{make_b:,} of {n_comb:,} combination-rule applications create a B item; "
        f"{arc_b:,} edges are added to B items")

    lr_total = 0
    lr_not_i: Counter = Counter()
    for r, c in comb.items():
        premises = [_type(t.comb_keys[r, p]) for p in range(int(t.comb_n[r]))]
        if any(p in "LR" for p in premises):
            lr_total += c
            goal = _type(t.comb_goal[r])
            if goal != "I":
                lr_not_i[f"T{int(t.comb_template[r])} -> {goal}"] += c
    bad = sum(lr_not_i.values())
    lr_check = PropertyCheck(
        "lr-into-i", "L and R items are always immediately combined with other items to create an I.", bad == 0,
        f"{lr_total:,} combination-rule applications take an L or R item; {bad:,} of them make an item that is "
        f"not an I" + (f" ({_listing(lr_not_i)})" if bad else ""))

    at_x: Counter = Counter()     # X creation: is x the parent or the child
    later: Counter = Counter()    # further edges touching x: (item type, x parent/child)
    for a, c in arcs.items():
        parent, child = POINTS[int(t.arc_parent[a])], POINTS[int(t.arc_child[a])]
        if "x" not in (parent, child):
            continue
        role = "x parent" if parent == "x" else "x child"
        if t.arc_xcreate[a]:
            at_x[role] += c
        else:
            later[f"{_type(t.arc_in[a])} item, {role}"] += c
    later_ok = all(k.startswith("N item, x parent") for k in later)
    x_ok = at_x["x parent"] > 0 and at_x["x child"] > 0
    x_check = PropertyCheck(
        "x-edges", "The external point can be a parent or child when an X is created, but additional edges "
        "always have it as the parent, and are only added in N items, not L or R items.", x_ok and later_ok,
        f"X creation: x the parent {at_x['x parent']:,} times, the child {at_x['x child']:,} times; "
        f"later edges touching x: " + (_listing(later) if later else "none"))
    return b_check, lr_check, x_check
