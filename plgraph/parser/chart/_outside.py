"""After the chart: outside scores over the hyperedge log and the back-trace of the
best derivation (numba kernels of :mod:`plgraph.parser.chart._kernel`'s chart).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ...files import _numba_cache
from ...config import NUMBA_CACHE
from ...rules import _apply
from . import _items, _steps
from ...rules._apply import KIND_ARC, KIND_COMB, role_points
from ._items import (NEG, P, Q, O, SP, SQ, SO, KIND, RULE, A, B, C, AUX, MODE, LG_GOAL, LG_A, LG_B, LG_C, LG_PAIR,
                     LW_W, LW_S, LW_T)
from ._steps import goal_extra


@njit(cache=NUMBA_CACHE, nogil=True)
def outside(it, ins, n_items, lg, lw, n_log, tb):
    """Outside scores from the hyperedge log of :func:`chart` (reverse order; every goal
    item's outside is its :func:`goal_extra`).  Returns ``(out, mm_s, mm_t)``: per-item
    outside scores and the arc max-marginals per ``c * N + p`` of structural and trace
    edges (-inf: no complete derivation has the edge)."""
    N = tb.sp_off.shape[0] - 1
    root = N - 1
    miss = tb.miss
    gold_root = tb.gold_s[root] if N >= 2 else 0
    out = np.full(n_items, NEG)
    mm_s = np.full(N * N, NEG)
    mm_t = np.full(N * N, NEG)
    for r in range(n_items):
        out[r] = goal_extra(it, r, root, miss, gold_root)
    for e in range(n_log - 1, -1, -1):
        og = out[lg[e, LG_GOAL]]
        if og == NEG:
            continue
        a = lg[e, LG_A]
        pair = lg[e, LG_PAIR]
        if pair >= 0:
            v = og + lw[e, LW_W]
            if v > out[a]:
                out[a] = v
            base = og + ins[a]
            if base + lw[e, LW_S] > mm_s[pair]:
                mm_s[pair] = base + lw[e, LW_S]
            if base + lw[e, LW_T] > mm_t[pair]:
                mm_t[pair] = base + lw[e, LW_T]
            continue
        b = lg[e, LG_B]
        c = lg[e, LG_C]
        tot = og + lw[e, LW_W] + ins[a] + ins[b]
        if c >= 0:
            tot += ins[c]
        if tot - ins[a] > out[a]:
            out[a] = tot - ins[a]
        if tot - ins[b] > out[b]:
            out[b] = tot - ins[b]
        if c >= 0 and tot - ins[c] > out[c]:
            out[c] = tot - ins[c]
    return out, mm_s, mm_t


@njit(cache=NUMBA_CACHE, nogil=True)
def backtrace(g, it, goal, N):
    """The derivation below ``goal``: ``(edges, n_edges, spines)`` with one row (child,
    parent, mode, flat score index) per arc step and each point's spine option."""
    arc_parent = g.arc_parent
    arc_child = g.arc_child
    edges = np.empty((N * N, 4), np.int64)
    ne = 0
    spines = np.full(N, -1, np.int64)
    stack = np.empty(4 * N * N + 16, np.int64)
    top = 0
    if goal >= 0:
        stack[0] = goal
        top = 1
    while top > 0:
        top -= 1
        r = stack[top]
        spines[it[r, P]] = it[r, SP]
        spines[it[r, Q]] = it[r, SQ]
        if it[r, O] >= 0:
            spines[it[r, O]] = it[r, SO]
        kind = it[r, KIND]
        if kind == KIND_ARC:
            rule = it[r, RULE]
            pp, cc = role_points(arc_parent[rule], arc_child[rule], it[r, P], it[r, Q], it[r, O])
            edges[ne, 0] = cc
            edges[ne, 1] = pp
            edges[ne, 2] = it[r, MODE]
            edges[ne, 3] = it[r, AUX]
            ne += 1
            stack[top] = it[r, A]
            top += 1
        elif kind == KIND_COMB:
            for col in (A, B, C):
                if it[r, col] >= 0:
                    stack[top] = it[r, col]
                    top += 1
    return edges, ne, spines


if NUMBA_CACHE:
    _numba_cache.guard_cache(__file__, outside, _apply.__file__, _items.__file__, _steps.__file__)
