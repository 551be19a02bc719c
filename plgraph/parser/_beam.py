"""Numba kernels: the beam machinery of the graph parser's chart (design notes
``1ec-parser.md`` §5) -- top-K selection per sub-beam and the priority heap of cube pruning.

Nothing here knows items or rules: :func:`group_top_k` ranks rows by (group key, score
descending, identity ascending) and marks the best ``K`` of every group;
:func:`heap_push` / :func:`heap_pop` keep a binary max-heap of entry numbers ordered by
``(priority descending, entry number ascending)``.  Both orders are total, so results
never depend on the order in which equal-scored items or entries were made.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .. import _numba_cache
from ..config import NUMBA_CACHE


@njit(cache=NUMBA_CACHE)
def group_top_k(gkey, score, ident, K, keep):
    """Sort positions ``0..m-1`` by (``gkey`` ascending, ``score`` descending, ``ident``
    ascending) and set ``keep[i]`` for the first ``K`` positions of every ``gkey`` group
    (all of them when ``K <= 0``).  Returns the sorted order (int64 array)."""
    m = gkey.shape[0]
    if m <= 32:
        order = np.arange(m)
        for i in range(1, m):
            x = order[i]
            j = i - 1
            while j >= 0 and _after(gkey, score, ident, order[j], x):
                order[j + 1] = order[j]
                j -= 1
            order[j + 1] = x
        _mark_top_k(gkey, order, K, keep)
        return order
    o1 = np.argsort(ident, kind="mergesort")
    neg = np.empty(m, np.float64)
    for i in range(m):
        neg[i] = -score[o1[i]]
    o2 = o1[np.argsort(neg, kind="mergesort")]
    kk = np.empty(m, np.int64)
    for i in range(m):
        kk[i] = gkey[o2[i]]
    order = o2[np.argsort(kk, kind="mergesort")]
    _mark_top_k(gkey, order, K, keep)
    return order


@njit(cache=NUMBA_CACHE)
def _after(gkey, score, ident, a, b):
    """Does position ``a`` sort after ``b`` in (gkey asc, score desc, ident asc)?"""
    if gkey[a] != gkey[b]:
        return gkey[a] > gkey[b]
    if score[a] != score[b]:
        return score[a] < score[b]
    return ident[a] > ident[b]


@njit(cache=NUMBA_CACHE)
def _mark_top_k(gkey, order, K, keep):
    m = order.shape[0]
    z = 0
    while z < m:
        e = z
        g = gkey[order[z]]
        while e < m and gkey[order[e]] == g:
            if K <= 0 or e - z < K:
                keep[order[e]] = True
            e += 1
        z = e


@njit(cache=NUMBA_CACHE, inline="always")
def _before(pri, x, y):
    return pri[x] > pri[y] or (pri[x] == pri[y] and x < y)


@njit(cache=NUMBA_CACHE, inline="always")
def heap_push(heap, hn, pri, x):
    """Push entry ``x`` (its priority is ``pri[x]``) on the heap ``heap[:hn]``; returns the new size."""
    heap[hn] = x
    i = hn
    while i > 0:
        par = (i - 1) // 2
        if _before(pri, heap[i], heap[par]):
            t = heap[i]
            heap[i] = heap[par]
            heap[par] = t
            i = par
        else:
            break
    return hn + 1


@njit(cache=NUMBA_CACHE, inline="always")
def heap_pop(heap, hn, pri):
    """Remove the best entry of ``heap[:hn]``; returns (entry, new size)."""
    top = heap[0]
    hn -= 1
    heap[0] = heap[hn]
    i = 0
    while True:
        a = 2 * i + 1
        if a >= hn:
            break
        b = a + 1
        c = b if b < hn and _before(pri, heap[b], heap[a]) else a
        if _before(pri, heap[c], heap[i]):
            t = heap[i]
            heap[i] = heap[c]
            heap[c] = t
            i = c
        else:
            break
    return top, hn


if NUMBA_CACHE:
    # these kernels call only this module's; the guard is here to be given a file the day one calls another's
    _numba_cache.guard_cache(__file__, group_top_k)
