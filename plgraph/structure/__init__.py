"""Structure classes of lexicalised graphs.

* **projective**: no two edges cross (edges are undirected spans; shared end
  points never cross; self-loops never cross anything);
* **one-endpoint-crossing (1EC)**: for every edge, all edges crossing it share
  an end point (Pitler et al. 2013, generalised to graphs);
* **tree**: as many edges as words, i.e. no trace edges apart from self-loops;
* **cycle**: a directed cycle following child -> parent links (self-loops are
  counted separately, they live inside a spine);
* **locked chain**: the crossing configuration the deduction system cannot build.

ROOT is a position on the line; ``root="end"`` (default) puts it after the last
word as the reference parser does, ``root="start"`` before the first word as the
reference converter's ``# Graph type`` line does.  One might expect
crossing status to depend on this choice; it cannot: ROOT lies outside every
word span at either end, so an edge (a, ROOT) crosses (c, d) iff c < a < d in
both cases, and crossing, 1EC, tree and cycle status are the same (a property
test checks this).  Only orientation-dependent checks (the locked-chain test,
and the deduction system itself) see the difference.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..graph import Graph, TRACE
from ._kernels import (crossing_flags, crossing_pairs, cycle_edges, greedy_representable, has_directed_cycle,
                       has_locked_chain, violating_edges)

__all__ = ["Structure", "classify", "classify_edges", "representable_mask", "crossing_flags",
           "has_directed_cycle", "has_locked_chain", "greedy_representable", "CATEGORIES", "warmup",
           "edge_problems", "EdgeProblems"]

#: Structure categories in the order of the thesis's table.
CATEGORIES = ("projective tree", "projective graph", "one-endpoint crossing", "other")


@dataclass(frozen=True)
class Structure:
    """Structural properties of one graph."""

    projective: bool
    one_endpoint_crossing: bool
    tree: bool
    cyclic: bool
    self_loops: int
    locked_chain: bool

    @property
    def category(self) -> str:
        """Row of the thesis's structure table (rows exclude the rows above)."""
        if self.projective:
            return CATEGORIES[0] if self.tree else CATEGORIES[1]
        return CATEGORIES[2] if self.one_endpoint_crossing else CATEGORIES[3]

    @property
    def representable(self) -> bool:
        """Acyclic and 1EC: what the coverage tables count as covered."""
        return self.one_endpoint_crossing and not self.cyclic

    @property
    def derivable(self) -> bool:
        """Representable and free of locked chains (what the deduction system builds)."""
        return self.representable and not self.locked_chain


def _as_points(n_words: int, child: np.ndarray, parent: np.ndarray, root: str):
    """Map SHP numbering (words 1..n, ROOT 0) to line positions."""
    child = np.asarray(child, dtype=np.int64)
    parent = np.asarray(parent, dtype=np.int64)
    if root == "end":
        return child - 1, np.where(parent == 0, n_words, parent - 1)
    if root == "start":
        return child, parent
    raise ValueError("root must be 'end' or 'start'")


def classify_edges(n_words: int, child, parent, kind=None, root: str = "end") -> Structure:
    """Classify a graph given as SHP-numbered edge arrays.

    Parameters
    ----------
    n_words : int
        Number of words; words are 1..n and ROOT is 0.
    child, parent : array-like of int
        Edge end points (parallel edges allowed).
    kind : array-like of int, optional
        0 structural, 1 trace; only used for validation.
    root : {"end", "start"}
        Where ROOT sits on the line.
    """
    child = np.asarray(child)
    parent = np.asarray(parent)
    if child.shape != parent.shape or child.ndim != 1:
        raise ValueError("child and parent must be 1-d arrays of equal length")
    if child.size and (child.min() < 1 or child.max() > n_words):
        raise ValueError(f"child indices must lie in 1..{n_words}")
    if parent.size and (parent.min() < 0 or parent.max() > n_words):
        raise ValueError(f"parent indices must lie in 0..{n_words}")
    c, p = _as_points(n_words, child, parent, root)
    loop = c == p
    c = c[~loop]
    p = p[~loop]
    lo = np.minimum(c, p)
    hi = np.maximum(c, p)
    proj, one_ec = crossing_flags(lo, hi)
    cyclic = has_directed_cycle(n_words + 1, c, p)
    locked = False if proj else has_locked_chain(lo, hi)
    return Structure(bool(proj), bool(one_ec), bool(c.shape[0] == n_words), bool(cyclic), int(loop.sum()),
                     bool(locked))


def classify(graph: Graph, root: str = "end") -> Structure:
    """Classify a :class:`~plgraph.graph.Graph` (all structural and trace edges)."""
    return classify_edges(len(graph.words), graph.child, graph.parent, graph.kind, root)


def representable_mask(graph: Graph) -> np.ndarray:
    """Which edges survive the greedy removal of trace edges that makes the
    graph acyclic and 1EC (the reference parser's ``dag1ecEdges``; ROOT after the
    last word).  Self-loop traces are always kept (they live in the spine)."""
    n = len(graph.words)
    c, p = _as_points(n, graph.child, graph.parent, "end")
    loop = c == p
    keep = np.ones(c.shape[0], dtype=bool)
    idx = np.flatnonzero(~loop)
    keep[idx] = greedy_representable(n, c[idx], p[idx], graph.kind[idx] == TRACE)
    return keep


@dataclass(frozen=True)
class EdgeProblems:
    """Per-edge structure of a graph (edge indices refer to the graph's arrays).

    ``crossing``: (k, 2) array of crossing edge pairs; ``violating``: edges whose
    crossers share no end point (1EC violations); ``on_cycle``: edges on a directed
    cycle.  Self-loops take part in none of them.
    """

    crossing: np.ndarray
    violating: np.ndarray
    on_cycle: np.ndarray


def edge_problems(graph: Graph, root: str = "end") -> EdgeProblems:
    """Which edges cross, violate 1EC, or lie on a cycle (for drawing and diagnosis)."""
    n = len(graph.words)
    c, p = _as_points(n, graph.child, graph.parent, root)
    idx = np.flatnonzero(c != p)
    lo = np.minimum(c[idx], p[idx])
    hi = np.maximum(c[idx], p[idx])
    pairs = idx[crossing_pairs(lo, hi)] if idx.size else np.empty((0, 2), np.int64)
    violating = np.zeros(c.shape[0], bool)
    on_cycle = np.zeros(c.shape[0], bool)
    if idx.size:
        violating[idx] = violating_edges(lo, hi)
        on_cycle[idx] = cycle_edges(n + 1, c[idx], p[idx])
    return EdgeProblems(pairs.reshape(-1, 2), violating, on_cycle)


def warmup() -> None:
    """Compile (or load from cache) every kernel on a three-word graph."""
    child = np.array([1, 2, 3, 1], np.int32)
    parent = np.array([2, 0, 2, 3], np.int32)
    classify_edges(3, child, parent)
    c, p = _as_points(3, child, parent, "end")
    greedy_representable(3, c, p, np.array([False, False, False, True]))
    lo, hi = np.minimum(c, p), np.maximum(c, p)
    crossing_pairs(lo, hi)
    violating_edges(lo, hi)
    cycle_edges(4, c, p)
