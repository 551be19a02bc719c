"""Edge labels of passes 2 and 3 (the reference's "arg") and their candidate sets.

A :class:`Label` names what an edge joins, not only where it attaches:

* ``kind`` (0 structural, 1 trace) and ``trace`` (``_`` for structural edges, else the
  trace type: ``*``, ``*T*``, ``*ICH*``, ``=`` ...);
* the **child node** (the node of the child's spine the edge leaves from, ``NP-SBJ_0``;
  ``_`` for a word heading nothing) and its null flag;
* the **parent node** (``VP_1``, ``ROOT_0``) and its null flag;
* for structural edges, the **sibling**: the parent-spine node just below the
  attachment point, skipping null nodes, ``_`` when there is none (the reference's
  ``edgeHasTargetChild``, the thesis's "sibling symbol"; ``Model.addEdgePSG`` /
  ``getPartForEdge`` with delta -1).

Trace labels carry no sibling.  The thesis is silent here; this gives the measured
vocabulary of 1,423 labels on the sample's train split (1,304 structural and 119 trace),
which is what the reference builds when its
``featureDev`` flag 6 skips the refined edge definition for traces.  Node names carry
their null flags as the SHP file does (the reference's ``nullDepth`` > 0).

Candidates follow the reference's ``arcPassConstraint EITHER``: a pair (child c,
parent p) may take the labels seen in training with c's POS as child **or** with p's
POS as parent (ROOT's POS is :data:`ROOT_TAG`).  :meth:`LabelVocab.either_stats`
measures how large those sets are and how much dev gold they miss.

Positions here are the :class:`~plgraph.graph.Graph`'s (words 1..n, ROOT 0): labels are
read off graphs, and tables for the chart (ROOT = n) are built from the per-tag masks.
"""
from __future__ import annotations

import json
import re
from dataclasses import astuple, dataclass
from pathlib import Path

import numpy as np

from ...files.atomic import atomic_text
from ...errors import InputError
from ...graph import STRUCTURAL, Graph
from ...spine import parse_spine

#: the POS of ROOT in candidate lookups
ROOT_TAG = "ROOT"
#: label vocabulary file format
FORMAT = "plgraph-parser-labels"
#: the label back-off tiers an edge's features may also be conjoined with
#: (:meth:`LabelVocab.backoff_classes`)
BACKOFF_TIERS = ("kind", "cats", "nodes")
VERSION = 1


@dataclass(frozen=True, order=True)
class Label:
    """One edge label (see the module docstring); hashable and ordered."""

    kind: int
    trace: str
    child: str
    child_null: bool
    parent: str
    parent_null: bool
    sibling: str  # "" for trace labels

    def text(self) -> str:
        """One readable string, e.g. ``_ NP-SBJ_0 -> S_0 / VP_0`` or ``*T* WHNP_0 -> (NP-SBJ_0)``
        (null nodes in brackets)."""
        c = f"({self.child})" if self.child_null else self.child
        p = f"({self.parent})" if self.parent_null else self.parent
        tail = f" / {self.sibling}" if self.kind == STRUCTURAL else ""
        return f"{self.trace} {c} -> {p}{tail}"


def sibling_table(spine: str) -> dict[tuple[str, bool], str]:
    """``{(node name, is null): sibling}`` for every node of a spine string: the
    non-null node below the node's level (a null node sits with the level that hosts
    it), ``_`` at the bottom.  ``VP_VP_S``: ``VP_0 -> _``, ``VP_1 -> VP_0``, ``S_0 -> VP_1``;
    ``(NP_(*T*))_VP_S``: the null ``NP_0 -> _``."""
    levels, dangling = parse_spine(spine)
    out: dict[tuple[str, bool], str] = {}
    for i, level in enumerate(levels):
        below = levels[i - 1].name if i > 0 else "_"
        out[(level.name, False)] = below
        for group in level.nulls:
            for node in group.walk():
                if node.name:
                    out.setdefault((node.name, True), below)
    top = levels[-1].name if levels else "_"
    for group in dangling:
        for node in group.walk():
            if node.name:
                out.setdefault((node.name, True), top)
    return out


def bare_category(node: str) -> str:
    """A node name without function tags, co-indexation and level: ``NP-SBJ_0`` -> ``NP``,
    ``S-TPC-1_0`` -> ``S``, ``-NONE-_0`` -> ``-NONE-``; ``_`` (no node) stays ``_``."""
    if node == "_":
        return node
    name = node.rsplit("_", 1)[0]
    if name.startswith("-"):
        return name
    return re.split(r"[-=]", name, maxsplit=1)[0]


def graph_labels(graph: Graph) -> list[Label]:
    """The label of every edge of ``graph``, in its edge order (self-loop traces
    included: they name labels the spine pass can build).  Raises InputError naming
    the sentence when an edge attaches to a node its parent's spine does not have."""
    tables: dict[int, dict] = {}
    out = []
    for e in range(graph.n_edges):
        c, p, k = int(graph.child[e]), int(graph.parent[e]), int(graph.kind[e])
        parent, pnull = str(graph.label[e]), bool(graph.parent_null[e])
        if k == STRUCTURAL:
            if p == 0:
                sib = "_"
            else:
                if p not in tables:
                    tables[p] = sibling_table(graph.spines[p - 1])
                sib = tables[p].get((parent, pnull))
                if sib is None:
                    raise InputError(f"edge {c} -> {p} attaches to {parent!r}, which word {p}'s spine "
                                     f"{graph.spines[p - 1]!r} does not have", sentence=graph.id)
        else:
            sib = ""
        out.append(Label(k, str(graph.trace[e]), str(graph.child_label[e]), bool(graph.child_null[e]),
                         parent, pnull, sib))
    return out


def _tag(graph: Graph, i: int) -> str:
    return ROOT_TAG if i == 0 else graph.tags[i - 1]


@dataclass
class LabelVocab:
    """The labels seen in training, numbered by falling frequency (ties by text, so the
    numbering is reproducible), with the tags each was seen with.

    ``labels[l]`` is label ``l``; ``kind`` (int8, L) their kinds; ``child_tags`` /
    ``parent_tags`` map a POS to the sorted ids of the labels seen with it as child /
    parent on an edge between two positions (self-loop traces name labels but give no
    pair candidates: they are part of a spine)."""

    labels: list[Label]
    counts: np.ndarray
    child_tags: dict[str, np.ndarray]
    parent_tags: dict[str, np.ndarray]

    def __post_init__(self):
        self.index = {lab: i for i, lab in enumerate(self.labels)}
        self.kind = np.array([lab.kind for lab in self.labels], np.int8)
        self.tags = sorted(set(self.child_tags) | set(self.parent_tags))
        self._masks = None

    def __len__(self) -> int:
        return len(self.labels)

    @property
    def n_structural(self) -> int:
        return int((self.kind == STRUCTURAL).sum())

    @property
    def n_trace(self) -> int:
        return len(self) - self.n_structural

    @classmethod
    def from_graphs(cls, graphs) -> "LabelVocab":
        """Collect the labels of ``graphs`` (the train split)."""
        counts: dict[Label, int] = {}
        by_child: dict[str, set] = {}
        by_parent: dict[str, set] = {}
        seen = []
        for g in graphs:
            for e, lab in enumerate(graph_labels(g)):
                counts[lab] = counts.get(lab, 0) + 1
                c, p = int(g.child[e]), int(g.parent[e])
                if c != p:        # a self-loop trace is part of a spine, never a pair's label
                    seen.append((lab, _tag(g, c), _tag(g, p)))
        order = sorted(counts, key=lambda lab: (-counts[lab], lab.text(), astuple(lab)))
        index = {lab: i for i, lab in enumerate(order)}
        for lab, ct, pt in seen:
            by_child.setdefault(ct, set()).add(index[lab])
            by_parent.setdefault(pt, set()).add(index[lab])
        as_arrays = lambda d: {t: np.array(sorted(s), np.int32) for t, s in sorted(d.items())}  # noqa: E731
        return cls(order, np.array([counts[lab] for lab in order], np.int64), as_arrays(by_child),
                   as_arrays(by_parent))

    # -- lookups -----------------------------------------------------------------------
    def ids(self, graph: Graph) -> np.ndarray:
        """Label id of every edge of ``graph`` (-1 where the label was never seen)."""
        return np.array([self.index.get(lab, -1) for lab in graph_labels(graph)], np.int64)

    def tag_masks(self) -> tuple[dict[str, int], np.ndarray, np.ndarray]:
        """(tag -> row, child mask [T+1, L], parent mask [T+1, L]) as bool arrays; the
        last row is for tags never seen (no labels)."""
        if self._masks is None:
            row = {t: i for i, t in enumerate(self.tags)}
            C = np.zeros((len(self.tags) + 1, len(self)), bool)
            P = np.zeros_like(C)
            for t, ids in self.child_tags.items():
                C[row[t], ids] = True
            for t, ids in self.parent_tags.items():
                P[row[t], ids] = True
            self._masks = (row, C, P)
        return self._masks

    def candidates(self, child_tag: str, parent_tag: str) -> np.ndarray:
        """Sorted ids of the labels a (child, parent) pair of these POS may take (EITHER)."""
        row, C, P = self.tag_masks()
        unseen = len(self.tags)
        return np.flatnonzero(C[row.get(child_tag, unseen)] | P[row.get(parent_tag, unseen)])

    def candidate_counts(self, tags: list[str], kind: int | None = None) -> np.ndarray:
        """``out[c, p]`` = number of candidate labels of child ``c`` and parent ``p``
        (Graph positions: words 1..n, ROOT 0; the diagonal and column 0 are 0); with
        ``kind`` only the structural (0) or trace (1) ones."""
        row, C, P = self.tag_masks()
        if kind is not None:
            C, P = C & (self.kind == kind), P & (self.kind == kind)
        unseen = len(self.tags)
        r = np.array([row.get(ROOT_TAG, unseen)] + [row.get(t, unseen) for t in tags])
        n = len(tags)
        out = np.zeros((n + 1, n + 1), np.int64)
        for c in range(1, n + 1):
            out[c] = (C[r[c]][None, :] | P[r]).sum(axis=1)
            out[c, c] = 0
        return out

    def either_stats(self, graphs) -> dict:
        """EITHER candidate sets on ``graphs`` (the dev split): mean candidates per
        ordered pair (child a word, parent another word or ROOT), and gold edges (self-loop
        traces excluded: they are part of a spine) whose label is not a candidate of its
        pair, whether unseen in training or seen with neither POS."""
        total = pairs = gold = missed = never_seen = 0
        for g in graphs:
            n = len(g)
            total += int(self.candidate_counts(g.tags).sum())
            pairs += n * n
            for e, lab in enumerate(graph_labels(g)):
                c, p = int(g.child[e]), int(g.parent[e])
                if c == p:
                    continue
                gold += 1
                i = self.index.get(lab, -1)
                if i < 0:
                    never_seen += 1
                    missed += 1
                elif i not in set(self.candidates(_tag(g, c), _tag(g, p)).tolist()):
                    missed += 1
        return {"sentences": len(graphs), "labels": len(self), "labels_per_pair": total / max(pairs, 1),
                "gold_edges": gold, "gold_not_candidate": missed, "gold_label_unseen": never_seen,
                "gold_not_candidate_pct": 100.0 * missed / max(gold, 1)}

    def backoff_classes(self, spec: str) -> np.ndarray:
        """Back-off classes of every label, ``(L, B)`` int64 (class ids from 0, unique
        across tiers), one column per tier of ``spec``: ``"none"`` (B = 0), or tiers of
        :data:`BACKOFF_TIERS` joined by ``+``:

        * ``kind``: structural or trace (the edge without its label);
        * ``cats``: the kind, trace type and the child and parent nodes' bare categories
          (:func:`bare_category`: ``NP-SBJ_0`` -> ``NP``);
        * ``nodes``: the kind, trace type and the child and parent node names without
          null flags and without the sibling.

        plgraph's, not the reference's (which conjoins every arc feature with the whole
        label only and trains on 40,000 sentences): on the sample's 2,831 training
        sentences a whole label is seen a few times, so each edge feature is also
        conjoined with its label's classes (``docs/results.md``)."""
        tiers = [] if spec == "none" else spec.split("+")
        bad = [t for t in tiers if t not in BACKOFF_TIERS]
        if bad or len(set(tiers)) != len(tiers):
            raise ValueError(f"label back-off {spec!r}: expected 'none' or tiers of {BACKOFF_TIERS} joined by '+'")
        out = np.zeros((len(self), len(tiers)), np.int64)
        start = 0
        for b, tier in enumerate(tiers):
            if tier == "kind":
                keys = [lab.kind for lab in self.labels]
            elif tier == "cats":
                keys = [(lab.kind, lab.trace, bare_category(lab.child), bare_category(lab.parent))
                        for lab in self.labels]
            else:
                keys = [(lab.kind, lab.trace, lab.child, lab.parent) for lab in self.labels]
            ids: dict = {}
            for i, key in enumerate(keys):
                out[i, b] = start + ids.setdefault(key, len(ids))
            start += len(ids)
        return out

    # -- files ---------------------------------------------------------------------------
    def to_json(self) -> dict:
        return {"format": FORMAT, "version": VERSION,
                "labels": [list(astuple(lab)) for lab in self.labels], "counts": self.counts.tolist(),
                "child_tags": {t: v.tolist() for t, v in self.child_tags.items()},
                "parent_tags": {t: v.tolist() for t, v in self.parent_tags.items()}}

    def save(self, path) -> None:
        """Write the vocabulary as JSON (atomically)."""
        atomic_text(Path(path), json.dumps(self.to_json(), separators=(",", ":")))

    @classmethod
    def load(cls, path) -> "LabelVocab":
        """Read a vocabulary written by :meth:`save`; a damaged file is an InputError
        naming it."""
        path = Path(path)
        try:
            doc = json.loads(path.read_text())
            if doc.get("format") != FORMAT or doc.get("version") != VERSION:
                raise ValueError(f"not a {FORMAT} version {VERSION} file")
            labels = [Label(int(k), str(t), str(c), bool(cn), str(p), bool(pn), str(s))
                      for k, t, c, cn, p, pn, s in doc["labels"]]
            L = len(labels)
            arrays = {}
            for key in ("child_tags", "parent_tags"):
                arrays[key] = {str(t): np.array(v, np.int32) for t, v in doc[key].items()}
                if any(((a < 0) | (a >= L)).any() for a in arrays[key].values()):
                    raise ValueError(f"{key} names a label id outside 0..{L - 1}")
            counts = np.array(doc["counts"], np.int64)
            if counts.shape != (L,):
                raise ValueError(f"{len(counts)} counts for {L} labels")
        except (OSError, ValueError, KeyError, TypeError) as err:
            raise InputError(f"parser label vocabulary is damaged: {err}", str(path)) from None
        return cls(labels, counts, arrays["child_tags"], arrays["parent_tags"])
