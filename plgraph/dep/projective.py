"""Projectivity, and pseudo-projective lifting (Nivre & Nilsson 2005).

Eisner decoding only builds projective trees.  Schiehlen & Spranger ignored
non-projective arcs (their Basque result suffered from it: 9.4 % non-projective
edges after their transformations).  Here training trees are *projectivised by
lifting*: while some arc is non-projective, the shortest such arc (leftmost on
ties) h -> d is lifted to h's head.  With ``encoding="head"`` (Nivre & Nilsson's
*Head* scheme) the lifted word's label becomes ``d↑h``, where ``h`` is the label of
its original head, so :func:`deprojectivise` can put the arc back after parsing: it
searches the subtree of the word's current head, breadth-first and left to right,
skipping the word's own subtree, for the first word labelled ``h``.  The scheme is
reversible up to that search (``projectivise_corpus`` reports how many training
trees come back exactly).  ``encoding="none"`` lifts without marking (not reversible;
the parser then simply never predicts the non-projective arcs).

Evaluation is always against the original (non-projective) trees.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from .taxonomy import LIFT


def _dominated(heads, h):
    """Boolean array: which positions does h dominate (h itself included)."""
    n = len(heads) - 1
    dom = np.zeros(n + 1, bool)
    dom[h] = True
    for d in range(1, n + 1):
        path = []
        v = d
        while v > 0 and not dom[v] and len(path) <= n:
            path.append(v)
            v = heads[v]
        if v >= 0 and dom[v]:
            dom[path] = True
    return dom


def nonprojective_words(heads) -> list:
    """Words d (1-based) whose arc heads[d] -> d is non-projective (some word between
    them is not dominated by the head).  ``heads[0]`` is ignored."""
    heads = np.asarray(heads)
    n = len(heads) - 1
    out = []
    cache = {}
    for d in range(1, n + 1):
        h = int(heads[d])
        lo, hi = min(h, d), max(h, d)
        if hi - lo < 2:
            continue
        if h not in cache:
            cache[h] = _dominated(heads, h)
        if not cache[h][lo + 1:hi].all():
            out.append(d)
    return out


def is_projective(heads) -> bool:
    return not nonprojective_words(heads)


def projectivise(heads, labels=None, encoding: str = "head"):
    """Lift non-projective arcs until the tree is projective.

    Parameters
    ----------
    heads : sequence of int
        ``heads[d]`` for words d = 1..n at positions 1..n (``heads[0]`` is ignored).
    labels : sequence of str, optional
        Same indexing; required for ``encoding="head"``.

    Returns
    -------
    (new_heads, new_labels, lifted) -- ``lifted`` = words whose head changed.
    """
    if encoding not in ("head", "none"):
        raise ValueError("encoding must be 'head' or 'none'")
    h = np.array(heads, np.int64)
    labs = list(labels) if labels is not None else None
    if encoding == "head" and labs is None:
        raise ValueError("encoding='head' needs labels")
    original = h.copy()
    while True:
        bad = nonprojective_words(h)
        if not bad:
            break
        d = min(bad, key=lambda w: (abs(int(h[w]) - w), min(int(h[w]), w)))
        h[d] = h[h[d]]
    lifted = [d for d in range(1, len(h)) if h[d] != original[d]]
    if labs is not None and encoding == "head":
        labs = list(labs)
        for d in lifted:
            labs[d] = f"{labs[d]}{LIFT}{labels[int(original[d])] if original[d] > 0 else 'root'}"
    return h, labs, lifted


def deprojectivise(heads, labels):
    """Undo ``encoding="head"`` lifting on a parse (labels lose their ``↑`` part)."""
    h = np.array(heads, np.int64)
    labs = list(labels)
    n = len(h) - 1
    base = [lab.split(LIFT)[0] if isinstance(lab, str) else lab for lab in labs]
    # process lifted words top-down (breadth-first from ROOT)
    children = [[] for _ in range(n + 1)]
    for d in range(1, n + 1):
        if 0 <= h[d] <= n:
            children[h[d]].append(d)
    order = []
    queue = deque([0])
    while queue:
        v = queue.popleft()
        order.append(v)
        queue.extend(sorted(children[v]))
    for d in order:
        if d == 0 or not isinstance(labs[d], str) or LIFT not in labs[d]:
            continue
        want = labs[d].split(LIFT, 1)[1]
        found = -1
        queue = deque(sorted(c for c in range(1, n + 1) if h[c] == h[d] and c != d))
        seen = set()
        while queue:
            v = queue.popleft()
            if v in seen:
                continue
            seen.add(v)
            if base[v] == want:
                found = v
                break
            queue.extend(sorted(c for c in range(1, n + 1) if h[c] == v and c != d))
        if found > 0:
            h[d] = found
        labs[d] = base[d]
    return h, [base[d] if d > 0 else labs[d] for d in range(n + 1)]


@dataclass
class ProjectiviseReport:
    """What projectivising a corpus did."""

    sentences: int
    words: int
    nonprojective_sentences: int
    lifted_arcs: int
    restored_exactly: int   # non-projective trees that deprojectivise() gives back exactly
    restored_arcs: int = 0  # lifted arcs that deprojectivise() puts back on their original head

    def __str__(self) -> str:
        pct = 100 * self.lifted_arcs / max(1, self.words)
        return (f"{self.lifted_arcs} of {self.words} arcs lifted ({pct:.2f}%) in {self.nonprojective_sentences} of "
                f"{self.sentences} sentences; deprojectivise restores {self.restored_arcs} of the lifted arcs and "
                f"{self.restored_exactly} of the {self.nonprojective_sentences} trees exactly")


def projectivise_corpus(heads_list, labels_list, encoding: str = "head"):
    """Projectivise every tree; returns (heads_list, labels_list, ProjectiviseReport).
    Trees are given with index 0 = ROOT (``heads[0]`` ignored)."""
    out_h, out_l = [], []
    n_np = lifted = restored = words = arcs_back = 0
    for hs, ls in zip(heads_list, labels_list):
        words += len(hs) - 1
        nh, nl, lf = projectivise(hs, ls, encoding)
        if lf:
            n_np += 1
            lifted += len(lf)
            if encoding == "head":
                bh, bl = deprojectivise(nh, nl)
                arcs_back += sum(1 for d in lf if bh[d] == hs[d])
                if np.array_equal(bh[1:], np.asarray(hs)[1:]) and list(bl[1:]) == list(ls[1:]):
                    restored += 1
        out_h.append(nh)
        out_l.append(nl if nl is not None else ls)
    return out_h, out_l, ProjectiviseReport(len(heads_list), words, n_np, lifted, restored, arcs_back)
