"""Expansion of the deduction templates into concrete rules.

Every template is expanded over the 17 concrete span codes of its items and
goal and over the parent states consistent with each item's pattern; a
candidate is kept when (1) the merged child->parent relations of all visible
points have no directed cycle, (2) every point that becomes interior still
reaches a point that stays visible, (3) items sharing the goal's external point
put it on the goal's side, (4) an Exterval item has a direct edge between its
external point and an end, and (5) the goal state, computed by transitive
closure, matches the goal's pattern.  Rules are flagged ``graph`` when some
point has two parent links among the involved points, and ``1ec`` when some
item is not an Interval.

This follows the reference generator (``rule-generation/convert_templates_to_rules.py``,
read for its behaviour, not copied), including three of its quirks that decide
which rules exist and how they print: ``!F`` on a two-point item constrains
nothing; the goal state's direct/indirect letters come from the reference's
order of closure updates; arc rules that create an Exterval print their goal
as ``_ ___I``.  With them the expansion yields exactly the published
1,028 arc rules and 48,264 combination rules (49,292 in all).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .states import ParentState, three_point_states, two_point_states
from .templates import ARC_TEMPLATES, COMBINATION_TEMPLATES

#: the 17 concrete span codes: multiplicity (- single, = multi, _ n/a),
#: external point side (._ left, _. right, __ none), item type
SPAN_CODES = ("=._B", "=_.B", "-_.L", "=_.L", "-._L", "=._L", "-_.R", "=_.R", "-._R", "=._R",
              "-._N", "-_.N", "=._N", "=_.N", "__.X", "_._X", "___I")
SLOT_NAMES = ("ij", "ix", "ji", "jx", "xi", "xj")


@dataclass(frozen=True)
class ItemSpec:
    """A template item: allowed types, side, multiplicity, point symbols, slot patterns."""

    types: str
    side: str
    mult: str
    symbols: dict      # 'i'/'j'/'x' -> template symbol
    patterns: dict     # 'i'/'j'/'x' -> list of slot patterns

    @property
    def has_x(self) -> bool:
        return "x" in self.symbols

    @property
    def positions(self) -> int:
        return 3 if self.has_x else 2

    def uses(self, symbol: str) -> bool:
        return symbol in self.symbols.values()

    def position_of(self, symbol: str) -> str:
        for pos, sym in self.symbols.items():
            if sym == symbol:
                return pos
        raise KeyError(symbol)


def _parse_pattern(text: str, positions: int) -> list[str]:
    out = []
    bar = False
    for ch in text:
        if ch == "!":
            bar = True
            continue
        out.append("-" + ch if bar else ch)
        bar = False
    if len(out) < positions - 1 and not out[0].startswith("-"):
        out.append(out[0])
    return out


def _spec(raw) -> ItemSpec:
    types, side, mult, points, patterns = raw
    if points == "i+":
        symbols = {"i": "i", "j": "+"}
    elif points == "+j":
        symbols = {"i": "+", "j": "j"}
    else:
        symbols = {"i": points[0], "j": points[1]}
        if len(points) > 2:
            symbols["x"] = points[2]
    n = len(symbols)
    pats = {pos: _parse_pattern(p, n) for pos, p in zip(("i", "j", "x"), patterns)}
    return ItemSpec(types, side, mult, symbols, pats)


def _slot_ok(instance: str, pattern: list[str], num: int) -> bool:
    """Does a point's two-letter slice of a state satisfy slot ``num`` of its pattern?"""
    if num >= len(pattern):
        return True
    if pattern[0] == "-F":
        return instance != "FF"  # "has some parent"; always true for two-point states (reference quirk)
    p = pattern[num]
    c = instance[num]
    if p == ".":
        return True
    if p.startswith("-"):
        return c == "F" or c.islower()
    if p == "F":
        return c == "F"
    if p == c:
        return True
    return c.isupper() and c != "F"


def state_matches(spec: ItemSpec, state: ParentState) -> bool:
    code = state.code
    if not _slot_ok(code[0:2], spec.patterns["i"], 0) or not _slot_ok(code[2:4], spec.patterns["j"], 0):
        return False
    if spec.has_x:
        if not _slot_ok(code[0:2], spec.patterns["i"], 1) or not _slot_ok(code[2:4], spec.patterns["j"], 1):
            return False
        if not _slot_ok(code[4:6], spec.patterns["x"], 0) or not _slot_ok(code[4:6], spec.patterns["x"], 1):
            return False
    return True


def _states_for(spec: ItemSpec) -> list[ParentState]:
    pool = two_point_states() if "I" in spec.types else three_point_states()
    return [s for s in pool if state_matches(spec, s)]


def span_matches(code: str, spec: ItemSpec) -> bool:
    if spec.side == "<" and code[1] != ".":
        return False
    if spec.side == ">" and code[2] != ".":
        return False
    if spec.mult == "-" and code[0] != "-":
        return False
    if spec.mult == "~" and code[0] != "=":
        return False
    return code[-1] in spec.types


# ---------------------------------------------------------------------------------------
# combination rules
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CombinationRule:
    template: int
    goal_span: str
    goal_state: str
    spans: tuple
    states: tuple
    refs: tuple
    graph: bool
    crossing: bool

    def text(self) -> str:
        return (f"combination | {self.goal_span} {self.goal_state} | {' '.join(self.spans)} | "
                f"{' '.join(self.states)} | {' '.join(self.refs)} | {'graph' if self.graph else 'all'} | "
                f"{'1ec' if self.crossing else 'all'}")


@dataclass(frozen=True)
class ArcRule:
    goal_mult: str
    span: str
    goal_state: str
    state: str
    parent: str
    child: str
    graph: bool
    crossing: bool

    def text(self) -> str:
        return (f"arc | {self.goal_mult} {self.span} {self.goal_state} | {self.state} | p: {self.parent} | "
                f"c: {self.child} | {'graph' if self.graph else 'all'} | {'1ec' if self.crossing else 'all'}")


def _item_refs(items: list[ItemSpec]) -> tuple:
    mapping: dict[str, str] = {}
    for k, it in enumerate(items):
        mapping.setdefault(it.symbols["i"], f"i{k}")
        mapping.setdefault(it.symbols["j"], f"j{k}")
    mapping.setdefault("x", "xP")
    refs = []
    for it in items:
        if "+" in it.symbols["j"]:
            refs.append("i+")
        elif it.has_x:
            refs.append(mapping[it.symbols["x"]])
        else:
            refs.append("__")
    return tuple(refs)


def _merge(states, items):
    """Child->parent relation matrix over the rule's distinct points (direct overrides indirect)."""
    ids: dict[str, int] = {}
    adj = [["F"] * 4 for _ in range(4)]

    def idx(sym):
        if sym not in ids:
            ids[sym] = len(ids)
        return ids[sym]

    def put(c, p, letter):
        if adj[c][p] == "F" or (letter.isupper() and letter != "F"):
            adj[c][p] = letter

    for st, it in zip(states, items):
        code = st.code
        left = idx(it.symbols["i"])
        right = idx(it.symbols["j"])
        if it.has_x:
            x = idx(it.symbols["x"])
            put(left, x, code[1])
            put(right, x, code[3])
            put(x, left, code[4])
            put(x, right, code[5])
        put(left, right, code[0])
        put(right, left, code[2])
    return ids, adj


def _has_cycle(adj) -> bool:
    for start in range(4):
        stack = [start]
        done = set()
        while stack:
            cur = stack.pop()
            done.add(cur)
            for nxt in range(4):
                if adj[cur][nxt] != "F":
                    if nxt == start:
                        return True
                    if nxt not in done:
                        stack.append(nxt)
    return False


def _closes(items, ids, adj) -> bool:
    seq = [items[0].symbols["i"]] + [it.symbols["j"] for it in items]
    for sym in seq[1:-1]:
        stack = [ids[sym]]
        done = set()
        while stack:
            cur = stack.pop()
            done.add(cur)
            for nxt in range(4):
                if adj[cur][nxt] != "F" and nxt not in done:
                    stack.append(nxt)
        if not any(ids[s] in done and (s not in seq or s == seq[0] or s == seq[-1]) for s in ids):
            return False
    return True


def _goal_state(adj, ids) -> str:
    """Transitive closure of the merged relations, in the reference's update order."""
    conn = [[" "] * 4 for _ in range(4)]
    for start in range(4):
        stack = [start]
        done = {start}
        while stack:
            cur = stack.pop()
            for nxt in range(4):
                if adj[cur][nxt] != "F":
                    conn[cur][nxt] = "-" if adj[cur][nxt].isupper() else "_"
                    if cur != start:
                        conn[start][nxt] = "_"
                    if nxt not in done:
                        stack.append(nxt)
                        done.add(nxt)
    out = []
    for a, b in SLOT_NAMES:
        if "x" in (a, b) and "x" not in ids:
            out.append("_")
            continue
        c = conn[ids[a]][ids[b]]
        out.append("F" if c == " " else (b if c == "_" else b.upper()))
    return "".join(out)


def _expand_combination(t: int, goal: ItemSpec, items: list[ItemSpec]):
    refs = _item_refs(items)
    options = [_states_for(it) for it in items]
    goal_codes = [c for c in SPAN_CODES if span_matches(c, goal)]
    item_codes = [[c for c in SPAN_CODES if span_matches(c, it)] for it in items]
    if len(items) == 2:
        code_combos = [(a, b) for a in item_codes[0] for b in item_codes[1]]
    else:
        code_combos = [(a, m, b) for a in item_codes[0] for b in item_codes[2] for m in item_codes[1]]
    from itertools import product

    # states do not depend on span codes except through the dot check and the X check
    valid = []
    for states in product(*options):
        ids, adj = _merge(states, items)
        if _has_cycle(adj) or not _closes(items, ids, adj):
            continue
        graph = any(sum(1 for v in row if v != "F") > 1 for row in adj)
        gstate = _goal_state(adj, ids)
        if not (_slot_ok(gstate[0:2], goal.patterns["i"], 0) and _slot_ok(gstate[2:4], goal.patterns["j"], 0)
                and (not goal.has_x or (_slot_ok(gstate[0:2], goal.patterns["i"], 1)
                                        and _slot_ok(gstate[2:4], goal.patterns["j"], 1)
                                        and _slot_ok(gstate[4:6], goal.patterns["x"], 0)
                                        and _slot_ok(gstate[4:6], goal.patterns["x"], 1)))):
            continue
        valid.append((states, graph, gstate))
    out = []
    for gcode in goal_codes:
        for codes in code_combos:
            ordered = codes if len(codes) == 2 else (codes[0], codes[1], codes[2])
            # the goal's external point keeps its side in every item that shares it
            if any(it.uses("x") and (c[1], c[2]) != (gcode[1], gcode[2]) for it, c in zip(items, ordered)):
                continue
            for states, graph, gstate in valid:
                if any("X" in c and not any(ch.isupper() and ch != "F" for ch in (st.code[1], st.code[3], st.code[4], st.code[5]))
                       for c, st in zip(ordered, states)):
                    continue
                out.append(CombinationRule(t, gcode, gstate, tuple(ordered), tuple(s.code for s in states), refs,
                                           graph, any("I" not in c for c in ordered)))
    return out


# ---------------------------------------------------------------------------------------
# arc rules
# ---------------------------------------------------------------------------------------
_SLOT_INDEX = {"ij": 0, "ix": 1, "ji": 2, "jx": 3, "xi": 4, "xj": 5}
# adding child->parent also makes links implied through one existing link:
# (existing slot, implied slot)
_IMPLIED = {
    "ij": (("xi", "xj"), ("jx", "ix")),
    "ix": (("ji", "jx"), ("xj", "ij")),
    "ji": (("xj", "xi"), ("ix", "jx")),
    "jx": (("ij", "ix"), ("xi", "ji")),
    "xi": (("jx", "ji"), ("ij", "xj")),
    "xj": (("ix", "ij"), ("ji", "xi")),
}


def add_edge(code: str, parent: str, child: str) -> str:
    """State after adding the direct edge child -> parent (one step of closure)."""
    out = list(code)
    slot = child + parent
    out[_SLOT_INDEX[slot]] = parent.upper()
    for present, create in _IMPLIED[slot]:
        if out[_SLOT_INDEX[present]] != "F" and out[_SLOT_INDEX[create]] == "F":
            out[_SLOT_INDEX[create]] = create[1]
    return "".join(out)


def _arc_creates_cycle(state: ParentState, parent: str, child: str) -> bool:
    ij, ix, jx = state.arrows
    new = {"ij": ij, "ix": ix, "jx": jx}
    pair = {("i", "j"): ("ij", "->"), ("j", "i"): ("ij", "<-"), ("i", "x"): ("ix", "->"),
            ("x", "i"): ("ix", "<-"), ("j", "x"): ("jx", "->"), ("x", "j"): ("jx", "<-")}[(parent, child)]
    new[pair[0]] = pair[1]
    if new["ij"][1] == new["jx"][1] == ">" and new["ix"][0] == "<":
        return True
    if new["ij"][0] == new["jx"][0] == "<" and new["ix"][1] == ">":
        return True
    for name, old in (("ij", ij), ("ix", ix), ("jx", jx)):
        if ("<" in new[name] and ">" in old) or (">" in new[name] and "<" in old):
            return True
    return False


def _expand_arcs() -> list[ArcRule]:
    out = []
    two = {s.code: s for s in two_point_states()}
    for code in SPAN_CODES:
        if "I" in code:
            out.append(ArcRule("_", "___I", "F_I___", "F_F___", "i", "j", False, False))
            out.append(ArcRule("_", "___I", "J_F___", "F_F___", "j", "i", False, False))
            out.append(ArcRule("_", "___I", "F_I___", "F_i___", "i", "j", True, False))
            out.append(ArcRule("_", "___I", "J_F___", "j_F___", "j", "i", True, False))
        elif "X" in code:
            if code[1] == ".":
                continue  # the reference prints each Exterval-creating arc once, for "__.X"
            for st, graph_arc in (("F_F___", None), ("F_i___", "xj"), ("j_F___", "xi"), ("F_I___", "xj"),
                                  ("J_F___", "xi")):
                assert st in two
                for arc in ("jx", "ix", "xi", "xj"):
                    child, parent = arc[0], arc[1]
                    goal = add_edge(st.replace("_", "F"), parent, child)
                    out.append(ArcRule("_", "___I", goal, st, parent, child, arc == graph_arc, True))
        else:
            for goal_raw, item_raw, (parent, child) in ARC_TEMPLATES:
                goal, it = _spec(goal_raw), _spec(item_raw)
                if not span_matches(code, it):
                    continue
                for st in _states_for(it):
                    if _arc_creates_cycle(st, parent, child):
                        continue
                    c = st.code
                    graph = ((c[0] != "F" and c[1] != "F") or (c[2] != "F" and c[3] != "F")
                             or (c[4] != "F" and c[5] != "F") or len(st.parents[child]) > 0)
                    mult = "-" if goal.mult == "-" else ("=" if goal.mult == "~" else code[0])
                    out.append(ArcRule(mult, code, add_edge(c, parent, child), c, parent, child, graph, True))
    return out


@lru_cache(maxsize=None)
def generate_rules() -> tuple[tuple[ArcRule, ...], tuple[CombinationRule, ...]]:
    """All arc rules and all combination rules (cached)."""
    combos: list[CombinationRule] = []
    for t, (goal_raw, items_raw) in enumerate(COMBINATION_TEMPLATES):
        combos.extend(_expand_combination(t, _spec(goal_raw), [_spec(r) for r in items_raw]))
    return tuple(_expand_arcs()), tuple(combos)


def rules_text() -> list[str]:
    """Every rule as a line of the reference's rules.txt format, sorted."""
    arcs, combos = generate_rules()
    return sorted([r.text() for r in arcs] + [r.text() for r in combos])
