"""The items of a gold graph's derivation, as the chart identifies them (training: the chart
marks them GOLD and lets them bypass the coarse checks).

The derivation is :func:`plgraph.rules.derive.derive_edges` of the gold graph's unlabelled
edges under the parser's rule subset.  Each item's flags follow from the gold graph and
the item alone: its edge set is every gold edge with both ends in ``[p, q] ∪ {o}`` and
one end strictly inside ``(p, q)`` (interior points are complete), plus the edges
between two of the visible points ``p, q, o`` whose state letter is *direct*.  From it:
``ROOT_EDGE`` (a structural edge into ROOT), ``SP_*`` (that point's structural parent
edge), ``XS_P`` / ``XS_Q`` / ``XS_IN`` (a structural edge between ``o`` and ``p`` / ``q`` /
an interior point) -- the definitions of :mod:`plgraph.parser.chart._kernel`.
"""
from __future__ import annotations

import numpy as np

from ...rules.derive import derive_edges
from ...rules.tables import N_STATES, RuleTables, item_key, state_letters
from ._kernel import ROOT_EDGE, SP_O, SP_P, SP_Q, XS_IN, XS_P, XS_Q, ident
from .tables import Gold

_SLOTS = ((0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1))   # (child role, parent role) per state slot


def item_flags(p: int, q: int, o: int, key: int, structural: set, root: int) -> int:
    """The flags of item ``[p, q]`` (external point ``o``, -1 none; ``key``) in a graph whose
    structural edges are ``structural`` ((child, parent) pairs): every flag is about
    structural edges."""
    vis = (p, q, o)
    letters = state_letters()[key % N_STATES]
    direct = {(vis[a], vis[b]) for s, (a, b) in enumerate(_SLOTS) if letters[s] == 2 and vis[a] >= 0 and vis[b] >= 0}

    def inside(e):
        c, par = e
        ends = {p, q} | ({o} if o >= 0 else set())
        inner = (p < c < q) or (p < par < q)
        return (inner and all(p <= x <= q or x in ends for x in e)) or e in direct

    E = {e for e in structural if inside(e)}
    flags = 0
    if any(par == root for _, par in E):
        flags |= ROOT_EDGE
    for v, bit in ((p, SP_P), (q, SP_Q), (o, SP_O)):
        if v >= 0 and any(c == v for c, _ in E):
            flags |= bit
    if o >= 0:
        for c, par in E:
            other = par if c == o else (c if par == o else None)
            if other is None:
                continue
            flags |= XS_P if other == p else (XS_Q if other == q else XS_IN)
    return flags


def gold_item_ids(gold: Gold, rules: RuleTables, strict: bool = True):
    """``(off, ids)`` for :attr:`plgraph.parser.chart.tables.ChartTables.gold_items`: per cell
    ``p * N + q`` the identities of the gold derivation's items, or None when the gold
    graph has no derivation under ``rules`` (then nothing is marked)."""
    N = gold.s.shape[0]
    root = N - 1
    structural = {(int(c), int(p)) for c, p in zip(*np.nonzero(gold.s >= 0))}
    trace = {(int(c), int(p)) for c, p in zip(*np.nonzero(gold.t >= 0))}
    d = derive_edges(N, structural | trace, rules, strict)
    if d.count < 1:
        return None
    sp = [max(int(x), 0) for x in gold.spine] + [0]
    items = [(w, w + 1, -1, item_key("___I", "F_F___")) for w in range(N - 1)]
    items += [(s.p, s.q, s.o, s.key) for s in d.steps]
    per_cell: dict = {}
    for p, q, o, key in items:
        fl = item_flags(p, q, o, key, structural, root)
        idn = int(ident(o, key, fl, sp[p], sp[q], sp[o] if o >= 0 else 0))
        per_cell.setdefault(p * N + q, set()).add(idn)
    off = np.zeros(N * N + 1, np.int64)
    ids = []
    for cell in range(N * N):
        got = sorted(per_cell.get(cell, ()))
        ids.extend(got)
        off[cell + 1] = off[cell] + len(got)
    return off, np.array(ids, np.int64)


__all__ = ["item_flags", "gold_item_ids"]
