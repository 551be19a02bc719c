"""The one-endpoint-crossing dynamic program as a listing of deduction rules, and what a
set of gold derivations uses of it (thesis §"Algorithm rule pruning": Figure
rules-to-prune, the complete program with the rules unseen in training boxed, and Figure
rules-pruned, the rules seen, with the tighter parent constraints observed).

The listing (:func:`program_rules`) has one :class:`DeductionRule` per template of the
complete program, in the order of the thesis's template figure (the reference's
``rule-generation/templates_used.tex``): the 22 arc templates -- edges added to L (4),
R (4), N (6) and B (2) items, to an Interval (2) and the 4 that create an Exterval --
then the 47 combination templates T0-T46 (:data:`plgraph.rules.templates.COMBINATION_TEMPLATES`,
numbered as there), grouped by goal.  Every concrete rule of a :class:`RuleTables` belongs
to exactly one entry (:func:`concrete_keys`).

:func:`program_use` says, per entry, how often a :class:`RuleUsage`'s derivations applied
its concrete rules and which item variants (span codes: type, side of the external point,
multiplicity; parent states) those rules have in each premise.  :func:`observed_view`
turns those variants into the tightest pattern of the notation that admits all of them --
the "further constraints on parents based on the observed rules" of Figure rules-pruned;
:func:`template_view` renders the template's own pattern, with the item types no used rule
has marked for boxing (Figure rules-to-prune boxes such letters, e.g. the B of BLRN).

Item notation is :mod:`plgraph.rules.templates`'s ``(types, side, mult, points,
patterns)``; an :class:`ItemView` is its display form (:mod:`plgraph.rules.notation`
writes it as LaTeX or matplotlib mathtext).
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import lru_cache

from .generate import SPAN_CODES
from .states import all_states
from .tables import N_STATES, RuleTables, full_tables
from .templates import ARC_TEMPLATES, COMBINATION_TEMPLATES, I, item
from .usage import RuleUsage

#: the arcs of an Interval (thesis: I[ij F I] <- A[i j] I[ij F !I], I[ij J F] <- A[j i] I[ij !J F])
I_ARC_TEMPLATES = (
    (I("ij", "F", "I"), I("ij", "F", "!I"), ("i", "j")),
    (I("ij", "J", "F"), I("ij", "!J", "F"), ("j", "i")),
)
#: the arcs that create an Exterval from an Interval: an edge between the new external
#: point x and one end, x the parent or the child
X_ARC_TEMPLATES = (
    (item("X", "ijx", ".X", ".!X", "F"), I("ij"), ("x", "i")),
    (item("X", "ijx", ".!X", ".!X", "I!J"), I("ij"), ("i", "x")),
    (item("X", "ijx", ".!X", ".X", "F"), I("ij"), ("x", "j")),
    (item("X", "ijx", ".!X", ".!X", "!IJ"), I("ij"), ("j", "x")),
)
#: arc groups in the order of the thesis's figure, with their headings
ARC_GROUPS = (("L", "edges added to L items"), ("R", "edges added to R items"), ("N", "edges added to N items"),
              ("B", "edges added to B items"), ("I", "edges added to an Interval"),
              ("X", "edges that create an Exterval"))
POINTS = "ijx"
#: state-code slot of (point, other point)
SLOT = {("i", "j"): 0, ("i", "x"): 1, ("j", "i"): 2, ("j", "x"): 3, ("x", "i"): 4, ("x", "j"): 5}


@dataclass(frozen=True)
class DeductionRule:
    """One template of the complete program.

    ``key``: ``"T<n>"`` for combination template n, ``"<type> A[<parent> <child>]"`` for
    an arc template (``type``: the premise's item type, ``X`` for the arcs creating an
    Exterval); ``group``: the heading it is listed under (arc group or goal); ``goal`` and
    ``premises``: item tuples; ``edge``: (parent, child) in the goal's point names for an
    arc template, None for a combination."""

    key: str
    group: str
    goal: tuple
    premises: tuple
    edge: tuple | None = None

    @property
    def is_arc(self) -> bool:
        return self.edge is not None

    @property
    def template(self) -> int | None:
        """The combination template number (None for an arc template)."""
        return None if self.is_arc else int(self.key[1:])

    def condition(self) -> str:
        """The order of the points a combination template spans, e.g. ``i<l<k<j`` (split
        points strictly inside the goal's span); ``""`` for arc templates and T0, whose split
        is fixed at i+1."""
        if self.is_arc or any("+" in p[3] for p in self.premises):
            return ""
        seq = [self.premises[0][3][0]] + [p[3][1] for p in self.premises]
        return "<".join(seq)


def arc_key(typ: str, parent: str, child: str) -> str:
    """The key of the arc template adding the edge child -> parent to an item of ``typ``."""
    return f"{typ} A[{parent} {child}]"


def _goal_label(goal: tuple) -> str:
    types, side, mult, points, patterns = goal
    return f"{mult}{side}{types}[{points} {' '.join(patterns)}]"


@lru_cache(maxsize=None)
def program_rules() -> tuple[DeductionRule, ...]:
    """Every template of the complete program (69: 22 arc, 47 combination), in the
    thesis's order."""
    out = []
    arcs = defaultdict(list)
    for goal, prem, edge in ARC_TEMPLATES:
        arcs[prem[0]].append((goal, prem, edge))
    arcs["I"] = list(I_ARC_TEMPLATES)
    arcs["X"] = list(X_ARC_TEMPLATES)
    for typ, heading in ARC_GROUPS:
        for goal, prem, (parent, child) in arcs[typ]:
            out.append(DeductionRule(arc_key(typ, parent, child), heading, goal, (prem,), (parent, child)))
    for t, (goal, items) in enumerate(COMBINATION_TEMPLATES):
        out.append(DeductionRule(f"T{t}", _goal_label(goal), goal, tuple(items)))
    return tuple(out)


def concrete_keys(tables: RuleTables) -> tuple[list[str], list[str]]:
    """The :class:`DeductionRule` key of every combination rule and every arc rule of
    ``tables`` (two lists, indexed like the tables' rules).  Raises ValueError for an arc
    rule that fits no arc template."""
    comb = [f"T{int(t)}" for t in tables.comb_template]
    known = {r.key for r in program_rules()}
    arcs = []
    for a in range(tables.n_arc):
        typ = "X" if tables.arc_xcreate[a] else SPAN_CODES[int(tables.arc_in[a]) // N_STATES][-1]
        key = arc_key(typ, POINTS[int(tables.arc_parent[a])], POINTS[int(tables.arc_child[a])])
        if key not in known:
            raise ValueError(f"arc rule {a} ({tables.arc_text[a]}) fits no arc template of the program")
        arcs.append(key)
    return comb, arcs


@dataclass(frozen=True)
class Observed:
    """The variants of one premise (or goal) position among the used concrete rules of a
    template: the span codes and the parent-state codes seen there (empty when none)."""

    spans: frozenset = frozenset()
    states: frozenset = frozenset()


@dataclass(frozen=True)
class RuleUse:
    """What a set of derivations used of one template: ``applications`` of its concrete
    rules, ``used`` of its ``total`` concrete rules applied at least once, and the variants
    of each premise position among the used ones (:class:`Observed`, in premise order)."""

    rule: DeductionRule
    applications: int
    used: int
    total: int
    premises: tuple

    @property
    def seen(self) -> bool:
        return self.applications > 0


def _split_key(key: int) -> tuple[str, str]:
    return SPAN_CODES[key // N_STATES], all_states()[key % N_STATES].code


def program_use(usage: RuleUsage, tables: RuleTables | None = None) -> tuple[RuleUse, ...]:
    """Per template of :func:`program_rules` (same order), what the derivations counted in
    ``usage`` used of it (rule indices of ``usage`` refer to ``tables``, default the full
    tables)."""
    t = tables or full_tables()
    comb_keys, arc_keys = concrete_keys(t)
    total = Counter(comb_keys) + Counter(arc_keys)
    apps: Counter = Counter()
    used: Counter = Counter()
    seen: dict = defaultdict(lambda: defaultdict(lambda: (set(), set())))
    def note(key, count: int, item_keys) -> None:
        """A concrete rule of template ``key`` applied ``count`` times to items ``item_keys``."""
        apps[key] += count
        used[key] += 1
        for pos, item_key in enumerate(item_keys):
            span, state = _split_key(int(item_key))
            seen[key][pos][0].add(span)
            seen[key][pos][1].add(state)

    for r, c in usage.combination.items():
        if c > 0:
            note(comb_keys[r], c, t.comb_keys[r, :int(t.comb_n[r])])
    for a, c in usage.arc.items():
        if c > 0:
            note(arc_keys[a], c, (t.arc_in[a],))
    out = []
    for rule in program_rules():
        obs = tuple(Observed(frozenset(seen[rule.key][p][0]), frozenset(seen[rule.key][p][1]))
                    if rule.key in seen else Observed() for p in range(len(rule.premises)))
        out.append(RuleUse(rule, apps[rule.key], used[rule.key], total[rule.key], obs))
    return tuple(out)


# -- display form of items ------------------------------------------------------------------
@dataclass(frozen=True)
class ItemView:
    """An item as the figures show it.

    ``types``: (letter, boxed) per item type, boxed = shown as unseen; ``side``: ``<``
    external point left of the span, ``>`` right, ``""`` either; ``mult``: ``~`` more than
    one edge from the external point into the span, ``-`` exactly one, ``""`` either;
    ``points``: display names of the left end, right end (and external point);
    ``patterns``: per point its symbols, each (text, negated): ``F`` no relation, ``.``
    anything, an upper-case letter the direct parent, a lower-case one an indirect
    ancestor; negated = "not that" (``!J``: not a direct child of J; ``!F``: some parent
    link; ``!j``: not an indirect descendant).  A point with one symbol: it stands for
    every relation of the point."""

    types: tuple
    side: str
    mult: str
    points: tuple
    patterns: tuple


def _display_points(points: str) -> tuple:
    if points == "i+":
        return ("i", "i{+}1")
    if points == "+j":
        return ("i{+}1", "j")
    return tuple(points)


def _symbols(text: str) -> tuple:
    out = []
    neg = False
    for ch in text:
        if ch == "!":
            neg = True
            continue
        out.append((ch, neg))
        neg = False
    return tuple(out)


def template_view(spec: tuple, unseen_types: frozenset = frozenset()) -> ItemView:
    """The item tuple ``spec`` as written in the template; the letters of ``unseen_types``
    are marked boxed."""
    types, side, mult, points, patterns = spec
    return ItemView(tuple((ch, ch in unseen_types) for ch in types), side, mult, _display_points(points),
                    tuple(_symbols(p) for p in patterns))


def _span_side(code: str) -> str:
    return {"._": "<", "_.": ">"}.get(code[1:3], "")


def _letter(point_symbol: str) -> str:
    return "I{+}1" if point_symbol == "+" else point_symbol.upper()


def _slot_symbol(categories: set, other: str) -> tuple:
    """The tightest symbol admitting the observed relation categories (``F`` none, ``I``
    indirect, ``D`` direct) of one slot."""
    up = _letter(other)
    low = up.lower()
    table = {frozenset("F"): ("F", False), frozenset("D"): (up, False), frozenset("I"): (low, False),
             frozenset("FI"): (up, True), frozenset("DI"): ("F", True), frozenset("FD"): (low, True)}
    return table.get(frozenset(categories), (".", False))


def observed_view(spec: tuple, obs: Observed) -> ItemView:
    """The tightest display of the item tuple ``spec`` that admits every variant in
    ``obs`` (which must not be empty): only the item types seen; the template's side and
    multiplicity, else the one every variant shares (none when they differ); per relation
    slot the tightest of F, direct (``J``), indirect (``j``), not direct (``!J``), some
    link (``!F``), not indirect (``!j``), anything (``.``) -- a point whose two slots are
    both ``F`` (or both ``.``) shows one symbol."""
    if not obs.spans:
        raise ValueError("no observed variants to tighten to")
    types, side, mult, points, _patterns = spec
    letters = {code[-1] for code in obs.spans}
    shown = tuple((ch, False) for ch in types if ch in letters)
    if not side:
        sides = {_span_side(code) for code in obs.spans}
        side = sides.pop() if len(sides) == 1 else ""
    if not mult:
        mults = {code[0] for code in obs.spans}
        mult = {frozenset("="): "~", frozenset("-"): "-"}.get(frozenset(mults), "")
    positions = "ijx"[:len(points)]
    symbols = dict(zip(positions, points))  # position -> the template's name of that point
    pats = []
    for p in positions:
        slots = []
        for other in positions:
            if other == p:
                continue
            cats = set()
            for state in obs.states:
                ch = state[SLOT[(p, other)]]
                cats.add("F" if ch == "F" else ("D" if ch.isupper() else "I"))
            slots.append(_slot_symbol(cats, symbols[other]))
        if len(slots) == 2 and slots[0] == slots[1] and slots[0] in (("F", False), (".", False)):
            slots = slots[:1]
        pats.append(tuple(slots))
    return ItemView(shown, side, mult, _display_points(points), tuple(pats))


def unseen_types(use: RuleUse) -> tuple:
    """Per premise, the item-type letters of the template that no used concrete rule has
    there (all empty for a template not used at all: the whole rule is unseen)."""
    if not use.seen:
        return tuple(frozenset() for _ in use.rule.premises)
    out = []
    for spec, obs in zip(use.rule.premises, use.premises):
        letters = {code[-1] for code in obs.spans}
        out.append(frozenset(ch for ch in spec[0] if ch not in letters))
    return tuple(out)
