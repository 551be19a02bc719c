"""Derivations of graphs in the one-endpoint-crossing deduction system.

:func:`derive` runs :func:`plgraph.rules._chart.count_derivations` on one
graph and returns a :class:`Derivation`: how many derivations the graph has
(1 for every acyclic 1EC graph without a locked chain, as the thesis claims
and the brute-force check of :mod:`plgraph.rules.bruteforce` verifies), and
the unique one as a list of rule applications, bottom-up.

Following the reference parser, a sentence's gold graph is
first reduced to its representable edges (:func:`plgraph.structure.representable_mask`,
the reference's ``dag1ecEdges``); self-loop traces live in spines and parallel
edges between the same ordered pair are one arc of the deduction system
(labels are attached to the arc).  ROOT is the last point.

Which of the two finds it — the reference's top-down
signature lookup or a chart — does not matter for the result: the derivation is
unique; the chart is used because it counts derivations and applies the rules with
the same library as the parser's chart (:mod:`plgraph.rules._apply`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..graph import Graph
from ..structure import classify_edges, representable_mask
from ._chart import C_A, C_B, C_C, C_KEY, C_KIND, C_O, C_P, C_Q, C_RULE, KIND_ARC, KIND_COMB, count_derivations
from .tables import RuleTables, full_tables, key_text


@dataclass
class Step:
    """One rule application: ``kind`` is ``"arc"`` or ``"combination"``; ``rule``
    indexes the tables' arc or combination rules; the item built is
    ``[p, q]`` with external point ``o`` (-1 none); ``edge`` is the (child,
    parent) positions an arc adds."""

    kind: str
    rule: int
    p: int
    q: int
    o: int
    key: int
    edge: tuple | None = None

    def item_text(self) -> str:
        ext = "" if self.o < 0 else f" . {self.o}"
        return f"[{self.p} {self.q}{ext}] {key_text(self.key)}"


@dataclass
class Derivation:
    """Result of :func:`derive`."""

    n_points: int
    edges: set          # (child, parent) positions of the graph that was derived
    count: int          # number of derivations
    steps: list = field(default_factory=list)
    reason: str | None = None

    @property
    def derived(self) -> bool:
        return self.count == 1

    def combination_rules(self) -> list[int]:
        return [s.rule for s in self.steps if s.kind == "combination"]

    def arc_rules(self) -> list[int]:
        return [s.rule for s in self.steps if s.kind == "arc"]

    def rebuilt_edges(self) -> set:
        """The edges the derivation's arc steps add (must equal :attr:`edges`)."""
        return {s.edge for s in self.steps if s.kind == "arc"}


def graph_points(graph: Graph, filtered: bool = True):
    """Unlabelled edge set of a graph as positions (words 0..n-1, ROOT n).

    With ``filtered`` the trace edges the reference removes to make the graph
    representable are dropped first.  Self-loops are dropped (they are part of
    a spine); parallel edges collapse.
    """
    n = len(graph.words)
    keep = representable_mask(graph) if filtered else np.ones(graph.n_edges, bool)
    c = graph.child.astype(np.int64) - 1
    p = np.where(graph.parent == 0, n, graph.parent - 1).astype(np.int64)
    return n + 1, {(int(a), int(b)) for a, b, k in zip(c, p, keep) if k and a != b}


def _adjacency(n_points: int, edges) -> np.ndarray:
    adj = np.zeros((n_points, n_points), dtype=np.uint8)
    for c, p in edges:
        adj[c, p] = 1
    return adj


def _why_not(n_points: int, edges) -> str:
    child = np.array([c for c, _ in edges], dtype=np.int64)
    parent = np.array([p for _, p in edges], dtype=np.int64)
    # classify_edges uses SHP numbering: words 1..n, ROOT 0
    n = n_points - 1
    s = classify_edges(n, child + 1, np.where(parent == n, 0, parent + 1))
    if s.cyclic:
        return "cycle"
    if not s.one_endpoint_crossing:
        return "not one-endpoint-crossing"
    if s.locked_chain:
        return "locked chain"
    return "no derivation (not a locked chain; see the brute-force check)"


def derive_edges(n_points: int, edges, tables: RuleTables | None = None, strict: bool = True) -> Derivation:
    """Derive the graph with ``edges`` ((child, parent) positions, ROOT = n_points-1)
    under ``tables`` (default: all rules; a pruned grammar is ``tables.subset(...)``);
    ``strict`` applies the parser-level conditions."""
    t = tables or full_tables()
    adj = _adjacency(n_points, edges)
    items, _, goal, goal_count = count_derivations(adj, t.kernel_args(), strict)
    d = Derivation(n_points, set(edges), int(goal_count))
    if goal_count == 0:
        d.reason = _why_not(n_points, edges)
        return d
    if goal_count > 1:
        d.reason = f"{goal_count} derivations"
    # read the (first) derivation off the back-pointers, children before parents
    order = []
    stack = [(int(goal), False)]
    while stack:
        it, done = stack.pop()
        if it < 0:
            continue
        if done:
            order.append(it)
            continue
        stack.append((it, True))
        for ch in (items[it, C_C], items[it, C_B], items[it, C_A]):
            if ch >= 0:
                stack.append((int(ch), False))
    for it in order:
        row = items[it]
        pts = (int(row[C_P]), int(row[C_Q]), int(row[C_O]))
        r = int(row[C_RULE])
        if row[C_KIND] == KIND_COMB:
            d.steps.append(Step("combination", r, *pts, int(row[C_KEY])))
        elif row[C_KIND] == KIND_ARC:
            edge = (pts[t.arc_child[r]], pts[t.arc_parent[r]])
            d.steps.append(Step("arc", r, *pts, int(row[C_KEY]), edge))
    return d


def derive(graph: Graph, tables: RuleTables | None = None, filtered: bool = True, strict: bool = True) -> Derivation:
    """Derivation of a sentence's graph (see the module docstring)."""
    n_points, edges = graph_points(graph, filtered)
    return derive_edges(n_points, edges, tables, strict)
