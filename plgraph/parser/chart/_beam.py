"""Numba kernels: ranking a chart cell's items into sub-beams.

:func:`rank_rows` sorts a cell's items by (sub-beam key, inside score descending, identity)
and marks the best ``K`` of every sub-beam: the order is total, so what a beam keeps never
depends on the order in which equal-scored items were made.  (The cube's heap lives inside
:func:`plgraph.parser.chart._kernel.chart`, written out: see that module's speed notes.)
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ...files import _numba_cache
from ...config import NUMBA_CACHE


@njit(cache=NUMBA_CACHE)
def rank_rows(sins, sidn, rows, m, gkey, K, keep, order):
    """Sort scratch rows ``rows[:m]`` by (``gkey[row]``, score descending, identity) into
    ``order[:m]`` and set ``keep[row]`` for the best ``K`` of every group (all: K <= 0)."""
    if m <= 48:
        for i in range(m):
            x = rows[i]
            j = i - 1
            while j >= 0 and _row_after(gkey, sins, sidn, order[j], x):
                order[j + 1] = order[j]
                j -= 1
            order[j + 1] = x
        z = 0
        while z < m:
            e = z
            gz = gkey[order[z]]
            while e < m and gkey[order[e]] == gz:
                if K <= 0 or e - z < K:
                    keep[order[e]] = True
                e += 1
            z = e
        return
    # larger sets: one sort by group key, then each group (small: sub-beams are narrow)
    # by insertion on (score, identity)
    gk = np.empty(m, np.int64)
    for i in range(m):
        gk[i] = gkey[rows[i]]
    o = np.argsort(gk, kind="mergesort")
    for i in range(m):
        order[i] = rows[o[i]]
    z = 0
    while z < m:
        e = z + 1
        gz = gkey[order[z]]
        while e < m and gkey[order[e]] == gz:
            e += 1
        if e - z <= 64:
            for y in range(z + 1, e):
                x = order[y]
                j = y - 1
                while j >= z and _row_after(gkey, sins, sidn, order[j], x):
                    order[j + 1] = order[j]
                    j -= 1
                order[j + 1] = x
        else:
            # a wide group: sort it by (score descending, identity) with two stable sorts
            sc = np.empty(e - z, np.float64)
            idn = np.empty(e - z, np.int64)
            grp = order[z:e].copy()
            for i in range(e - z):
                sc[i] = -sins[grp[i]]
                idn[i] = sidn[grp[i]]
            o1 = np.argsort(idn, kind="mergesort")
            o2 = o1[np.argsort(sc[o1], kind="mergesort")]
            for i in range(e - z):
                order[z + i] = grp[o2[i]]
        for y in range(z, e):
            if K <= 0 or y - z < K:
                keep[order[y]] = True
        z = e


@njit(cache=NUMBA_CACHE)
def _row_after(gkey, sins, sidn, a, b):
    if gkey[a] != gkey[b]:
        return gkey[a] > gkey[b]
    if sins[a] != sins[b]:
        return sins[a] < sins[b]
    return sidn[a] > sidn[b]


if NUMBA_CACHE:
    # these kernels call only this module's; the guard is here to be given a file the day one calls another's
    _numba_cache.guard_cache(__file__, rank_rows)
