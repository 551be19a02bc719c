"""Numba kernel: the max-marginals of every first-order Eisner chart item, for
pruning chart cells as well as arcs.

Positions 0..n, 0 = ROOT; ``S[h, d]`` scores the arc h -> d; single root (ROOT has
exactly one dependent).  The chart, its inside pass and its max-plus outside pass are
the dependency parser's (:func:`plgraph.dep._eisner._inside1` and ``_outside1``): items
``Cr[s, t]`` complete, head s; ``Cl[s, t]`` complete, head t; ``Ir[s, t]`` incomplete
with arc s -> t; ``Il[s, t]`` incomplete with arc t -> s.  The max-marginal of an item
is the best score of a tree whose (unique) derivation uses it; a chart cell [s, t] is
the best of its four items.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..config import NUMBA_CACHE
from ..dep import _eisner
from ..dep._eisner import _inside1, _outside1
from ..files import _numba_cache as _cache

NEG = -np.inf


@njit(cache=NUMBA_CACHE)
def span_max_marginals(S):
    """Returns ``(arc_mm, cell_mm, best)``: ``arc_mm[h, d]`` the best tree score with
    the arc h -> d, ``cell_mm[s, t]`` (s < t) the best tree score using an item over
    [s, t], ``best`` the best tree's score."""
    N = S.shape[0]
    arc = np.full((N, N), NEG)
    cell = np.full((N, N), NEG)
    if N <= 1:
        return arc, cell, 0.0
    Cr, Cl, Ir, Il, _bCr, _bCl, _bI = _inside1(S, False)
    oCr, oCl, oIr, oIl = _outside1(S, Cr, Cl, Ir, Il)
    for s in range(N):
        for t in range(s + 1, N):
            arc[s, t] = Ir[s, t] + oIr[s, t]
            if s > 0:
                arc[t, s] = Il[s, t] + oIl[s, t]
            m = Ir[s, t] + oIr[s, t]
            for v in (Il[s, t] + oIl[s, t], Cr[s, t] + oCr[s, t], Cl[s, t] + oCl[s, t]):
                if v > m:
                    m = v
            cell[s, t] = m
    return arc, cell, Cr[0, N - 1]


# numba does not notice when the inlined chart code of plgraph.dep._eisner changes
_cache.guard_cache(__file__, span_max_marginals, _eisner.__file__)
