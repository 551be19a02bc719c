"""The lexicalised graph of a sentence: spines, structural edges and trace edges.

Conventions (shared with the SHP format, :mod:`plgraph.shp`):

* words are numbered 1..n; ``0`` is ROOT;
* every edge goes from a ``child`` to a ``parent``; the *effective* direction is
  stored (what a parser builds): ordinary traces point from the antecedent
  (child) to the null element's word (parent); gapping edges from the remnant
  (child) to the correlate (parent); with null reversal, null–null edges from
  the null element's word (child) to the null antecedent's word (parent);
* ``label`` is the node of the parent's spine the edge attaches to
  (``VP_1``, ``ROOT_0``), ``child_label`` the node of the child's spine;
* ``kind`` is 0 for structural edges and 1 for trace edges; ``trace`` is ``_``
  for structural edges and the trace type (``*``, ``*T*``, ``*ICH*``, ``=`` ...)
  otherwise.

Self-loop traces (both ends in one word's spine) are kept in the edge arrays
(``child == parent``); :attr:`Graph.spine_traces` gives them per word, which is
how the parser treats them (as part of the spine's identity).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

STRUCTURAL = 0
TRACE = 1
ROOT = 0


@dataclass
class NullRecord:
    """Where a null subtree sat in its host constituent (for exact round trips).

    ``word`` is the 1-based word whose spine hosts it, ``host`` the host node
    name (``VP_0``), ``k`` the number of overt children of the host before it.
    ``text`` is set (PTB brackets) for null subtrees the converter dropped from
    the spine (a reference index with no antecedent).
    """

    word: int
    host: str
    k: int
    text: str | None = None


@dataclass
class OrphanIndex:
    """A co-index that produces no edge (identity without reference, gapping
    remnant without correlate): ``word``/``node``/``null`` name the node,
    ``kind`` is ``-`` or ``=``."""

    word: int
    node: str
    null: bool
    kind: str


@dataclass
class Graph:
    """A sentence as a lexicalised graph; edges as parallel numpy arrays."""

    words: list[str]
    tags: list[str]
    spines: list[str]
    child: np.ndarray
    parent: np.ndarray
    kind: np.ndarray
    label: np.ndarray
    parent_null: np.ndarray
    child_label: np.ndarray
    child_null: np.ndarray
    trace: np.ndarray
    id: str | None = None
    options: dict = field(default_factory=dict)
    nulls: list[NullRecord] = field(default_factory=list)
    orphans: list[OrphanIndex] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    source_tree: object = None  # the (edited) Tree the graph was built from, if any

    # -- construction -----------------------------------------------------------------
    @classmethod
    def from_edges(cls, words, tags, spines, edges, **kwargs) -> "Graph":
        """Build from a list of edge tuples
        ``(child, parent, kind, label, parent_null, child_label, child_null, trace)``."""
        if edges:
            c, p, k, lab, pn, cl, cn, tr = zip(*edges)
        else:
            c = p = k = lab = pn = cl = cn = tr = ()
        return cls(
            list(words), list(tags), list(spines),
            np.asarray(c, dtype=np.int32), np.asarray(p, dtype=np.int32),
            np.asarray(k, dtype=np.int8), np.asarray(lab, dtype=object),
            np.asarray(pn, dtype=bool), np.asarray(cl, dtype=object),
            np.asarray(cn, dtype=bool), np.asarray(tr, dtype=object),
            **kwargs,
        )

    # -- views -------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.words)

    @property
    def n_edges(self) -> int:
        return int(self.child.shape[0])

    @property
    def is_structural(self) -> np.ndarray:
        return self.kind == STRUCTURAL

    @property
    def is_trace(self) -> np.ndarray:
        return self.kind == TRACE

    @property
    def is_self_loop(self) -> np.ndarray:
        return self.child == self.parent

    def heads(self) -> np.ndarray:
        """Structural parent of each word (1-based words; 0 = ROOT), shape (n,)."""
        out = np.zeros(len(self.words), dtype=np.int32)
        m = self.kind == STRUCTURAL
        out[self.child[m] - 1] = self.parent[m]
        return out

    def structural_problem(self) -> tuple[int, str] | None:
        """``None`` when the structural edges form one tree under ROOT, else
        ``(word, message)`` for the first problem (see :func:`structural_problem`)."""
        m = self.kind == STRUCTURAL
        return structural_problem(len(self.words), self.child[m].tolist(), self.parent[m].tolist())

    def edge_tuples(self) -> list[tuple]:
        return list(zip(self.child.tolist(), self.parent.tolist(), self.kind.tolist(), self.label.tolist(),
                        self.parent_null.tolist(), self.child_label.tolist(), self.child_null.tolist(),
                        self.trace.tolist()))

    @property
    def spine_traces(self) -> list[list[str]]:
        """Self-loop traces per word, as ``parentnode:T|F:childnode:T|F:type`` strings."""
        out: list[list[str]] = [[] for _ in self.words]
        for i in np.flatnonzero(self.is_self_loop):
            out[self.child[i] - 1].append(
                f"{self.label[i]}:{'T' if self.parent_null[i] else 'F'}:"
                f"{self.child_label[i]}:{'T' if self.child_null[i] else 'F'}:{self.trace[i]}")
        return out

    def positions(self, root: str = "end") -> tuple[np.ndarray, np.ndarray]:
        """Edge end points as positions on a line that includes ROOT.

        ``root="end"`` (default, as the reference parser): words 0..n-1, ROOT n.
        ``root="start"``: ROOT 0, words 1..n (as in the SHP file).
        """
        n = len(self.words)
        if root == "end":
            c = self.child - 1
            p = np.where(self.parent == ROOT, n, self.parent - 1).astype(np.int32)
            return c.astype(np.int32), p
        if root == "start":
            return self.child.copy(), self.parent.copy()
        raise ValueError("root must be 'end' or 'start'")

    def trace_edges(self) -> list[tuple[int, int, str]]:
        m = np.flatnonzero(self.kind == TRACE)
        return [(int(self.child[i]), int(self.parent[i]), str(self.trace[i])) for i in m]

    def __repr__(self) -> str:
        n_tr = int((self.kind == TRACE).sum())
        return f"Graph(id={self.id!r}, words={len(self.words)}, traces={n_tr})"

    def _repr_html_(self):  # pragma: no cover - rich display in notebooks
        import html
        rows = "".join(
            f"<tr><td>{i + 1}</td><td>{html.escape(w)}</td><td>{html.escape(t)}</td><td>{html.escape(s)}</td></tr>"
            for i, (w, t, s) in enumerate(zip(self.words, self.tags, self.spines)))
        return f"<b>{html.escape(repr(self))}</b><table>{rows}</table>"


def structural_problem(n: int, children, parents) -> tuple[int, str] | None:
    """Check that structural edges ``children[i] -> parents[i]`` form one tree under ROOT.

    The contract of a :class:`Graph` (and of an SHP block): every word 1..n has
    exactly one structural parent in 0..n, no word is its own parent, exactly one
    word attaches to ROOT (0), and following parents from any word reaches ROOT
    (no head cycle).  Returns ``None`` when all holds, otherwise ``(word, message)``
    naming the first offending word (1-based; for a cycle its smallest word).
    Runs in O(n + edges), without recursion.
    """
    head = [-1] * (n + 1)
    for c, p in zip(children, parents):
        c, p = int(c), int(p)
        if not 1 <= c <= n:
            return (max(1, min(c, n)), f"structural edge from word {c}, outside 1..{n}")
        if not 0 <= p <= n:
            return (c, f"structural parent {p} of word {c} outside 0..{n}")
        if head[c] != -1:
            return (c, f"word {c} has two structural parents ({head[c]} and {p})")
        if p == c:
            return (c, f"word {c} is its own structural parent")
        head[c] = p
    for w in range(1, n + 1):
        if head[w] == -1:
            return (w, f"word {w} has no structural parent")
    roots = [w for w in range(1, n + 1) if head[w] == 0]
    if len(roots) > 1:
        return (roots[1], f"words {roots[0]} and {roots[1]} both attach to ROOT; a sentence has one root word")
    state = [0] * (n + 1)  # 0 unseen, 1 on the current path, 2 known to reach ROOT
    state[0] = 2
    for w in range(1, n + 1):
        path = []
        cur = w
        while state[cur] == 0:
            state[cur] = 1
            path.append(cur)
            cur = head[cur]
        if state[cur] == 1:  # back on the current path: a cycle through cur
            cycle = path[path.index(cur):]
            text = " -> ".join(str(x) for x in cycle + [cur])
            return (min(cycle), f"structural parents form a cycle ({text}) that never reaches ROOT")
        for x in path:
            state[x] = 2
    if not roots:
        return (1, "no word attaches to ROOT")
    return None
