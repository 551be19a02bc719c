"""Projective decoders over dense score arrays (numba): Eisner (1996) in McDonald et
al. (2005)'s formulation, first order, and McDonald & Pereira (2006)'s second-order
sibling extension, each with Viterbi decoding and max-plus inside-outside
(per-arc max-marginals) over the same chart.

Conventions
-----------
* Positions ``0..n``; 0 is ROOT.  ``S[h, d]`` scores the arc h -> d (``S[:, 0]`` and
  the diagonal are ignored).
* ``SIB[h, s, d]`` scores d as the next dependent of h after s on the same side
  (s between h and d, closer to h); ``SIB[h, h, d]`` scores d as h's *first*
  dependent on its side (no previous sibling).
* ``multi_root=False`` (single-root): ROOT has exactly one dependent -- ROOT's
  right complete span is blocked except at full length (SuPar's trick), which also
  keeps the chart shared with inside-outside.  ``multi_root=True``: ROOT may
  take several dependents (needed for CoNLL 2007 Basque).
* Items: ``Cr[s, t]`` complete span headed by s, ``Cl[s, t]`` headed by t,
  ``Ir[s, t]`` incomplete with arc s -> t, ``Il[s, t]`` incomplete with arc t -> s,
  ``Sb[s, t]`` (second order) adjacent siblings s < t sharing a head outside.
  Every arc is built by exactly one incomplete item of the (unambiguous)
  derivation, so its max-marginal is alpha + beta of that item.

The brute-force twins (enumerating every projective tree for n <= 7) are in
``tests/naive.py``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..config import NUMBA_CACHE

NEG = -np.inf


# ---------------------------------------------------------------------------------------------
# first order


@njit(cache=NUMBA_CACHE)
def _inside1(S, multi_root):
    N = S.shape[0]
    n = N - 1
    Cr = np.full((N, N), NEG)
    Cl = np.full((N, N), NEG)
    Ir = np.full((N, N), NEG)
    Il = np.full((N, N), NEG)
    bCr = np.zeros((N, N), np.int32)
    bCl = np.zeros((N, N), np.int32)
    bI = np.zeros((N, N), np.int32)
    for s in range(N):
        Cr[s, s] = 0.0
        Cl[s, s] = 0.0
    for k in range(1, N):
        for s in range(0, N - k):
            t = s + k
            best = NEG
            arg = s
            for r in range(s, t):
                v = Cr[s, r] + Cl[r + 1, t]
                if v > best:
                    best = v
                    arg = r
            bI[s, t] = arg
            Ir[s, t] = best + S[s, t]
            if s > 0:
                Il[s, t] = best + S[t, s]
            # complete, head t
            best = NEG
            arg = s
            for r in range(s, t):
                v = Cl[s, r] + Il[r, t]
                if v > best:
                    best = v
                    arg = r
            Cl[s, t] = best
            bCl[s, t] = arg
            # complete, head s
            if s == 0 and not multi_root and t < n:
                continue
            best = NEG
            arg = t
            for r in range(s + 1, t + 1):
                v = Ir[s, r] + Cr[r, t]
                if v > best:
                    best = v
                    arg = r
            Cr[s, t] = best
            bCr[s, t] = arg
    return Cr, Cl, Ir, Il, bCr, bCl, bI


@njit(cache=NUMBA_CACHE)
def _backtrack1(n, bCr, bCl, bI, heads):
    # stack of (kind, s, t): 0 = Cr, 1 = Cl, 2 = Ir, 3 = Il
    stack = np.empty((4 * (n + 2), 3), np.int64)
    top = 0
    stack[0, 0] = 0
    stack[0, 1] = 0
    stack[0, 2] = n
    top = 1
    while top > 0:
        top -= 1
        kind = stack[top, 0]
        s = stack[top, 1]
        t = stack[top, 2]
        if s == t:
            continue
        if kind == 0:
            r = bCr[s, t]
            stack[top, 0] = 2
            stack[top, 1] = s
            stack[top, 2] = r
            stack[top + 1, 0] = 0
            stack[top + 1, 1] = r
            stack[top + 1, 2] = t
            top += 2
        elif kind == 1:
            r = bCl[s, t]
            stack[top, 0] = 1
            stack[top, 1] = s
            stack[top, 2] = r
            stack[top + 1, 0] = 3
            stack[top + 1, 1] = r
            stack[top + 1, 2] = t
            top += 2
        else:
            if kind == 2:
                heads[t] = s
            else:
                heads[s] = t
            r = bI[s, t]
            stack[top, 0] = 0
            stack[top, 1] = s
            stack[top, 2] = r
            stack[top + 1, 0] = 1
            stack[top + 1, 1] = r + 1
            stack[top + 1, 2] = t
            top += 2


@njit(cache=NUMBA_CACHE)
def eisner1(S, multi_root):
    """Best projective tree under arc scores ``S``: (heads, score); ``heads[0] = -1``."""
    N = S.shape[0]
    heads = np.full(N, -1, np.int64)
    if N <= 1:
        return heads, 0.0
    Cr, Cl, Ir, Il, bCr, bCl, bI = _inside1(S, multi_root)
    _backtrack1(N - 1, bCr, bCl, bI, heads)
    return heads, Cr[0, N - 1]


@njit(cache=NUMBA_CACHE)
def _outside1(S, Cr, Cl, Ir, Il):
    """Max-plus outside scores of the first-order chart built by :func:`_inside1`:
    ``o*[s, t]`` is the best score of the rest of a tree around the item ``*[s, t]``
    (-inf where no tree uses it), so inside + outside is the item's max-marginal."""
    N = S.shape[0]
    n = N - 1
    oCr = np.full((N, N), NEG)
    oCl = np.full((N, N), NEG)
    oIr = np.full((N, N), NEG)
    oIl = np.full((N, N), NEG)
    oCr[0, n] = 0.0
    for k in range(n, 0, -1):
        for s in range(0, N - k):
            t = s + k
            # complete items first (they use incomplete items of the same width)
            b = oCr[s, t]
            if b > NEG and Cr[s, t] > NEG:
                for r in range(s + 1, t + 1):
                    v = b + Cr[r, t]
                    if v > oIr[s, r]:
                        oIr[s, r] = v
                    v = b + Ir[s, r]
                    if v > oCr[r, t]:
                        oCr[r, t] = v
            b = oCl[s, t]
            if b > NEG and Cl[s, t] > NEG:
                for r in range(s, t):
                    v = b + Il[r, t]
                    if v > oCl[s, r]:
                        oCl[s, r] = v
                    v = b + Cl[s, r]
                    if v > oIl[r, t]:
                        oIl[r, t] = v
            for kind in range(2):
                if kind == 0:
                    b = oIr[s, t]
                    a = S[s, t]
                    ok = Ir[s, t] > NEG
                else:
                    if s == 0:
                        continue
                    b = oIl[s, t]
                    a = S[t, s]
                    ok = Il[s, t] > NEG
                if b == NEG or not ok:
                    continue
                for r in range(s, t):
                    v = b + a + Cl[r + 1, t]
                    if v > oCr[s, r]:
                        oCr[s, r] = v
                    v = b + a + Cr[s, r]
                    if v > oCl[r + 1, t]:
                        oCl[r + 1, t] = v
    return oCr, oCl, oIr, oIl


@njit(cache=NUMBA_CACHE)
def max_marginals1(S, multi_root):
    """Max-marginals: ``M[h, d]`` = score of the best projective tree containing the
    arc h -> d (-inf where no tree can contain it); returns (M, best score)."""
    N = S.shape[0]
    n = N - 1
    M = np.full((N, N), NEG)
    if N <= 1:
        return M, 0.0
    Cr, Cl, Ir, Il, bCr, bCl, bI = _inside1(S, multi_root)
    oCr, oCl, oIr, oIl = _outside1(S, Cr, Cl, Ir, Il)
    for s in range(N):
        for t in range(s + 1, N):
            M[s, t] = Ir[s, t] + oIr[s, t]
            if s > 0:
                M[t, s] = Il[s, t] + oIl[s, t]
    return M, Cr[0, n]


# ---------------------------------------------------------------------------------------------
# second order (sibling)


@njit(cache=NUMBA_CACHE)
def _inside2(S, SIB, multi_root):
    N = S.shape[0]
    n = N - 1
    Cr = np.full((N, N), NEG)
    Cl = np.full((N, N), NEG)
    Ir = np.full((N, N), NEG)
    Il = np.full((N, N), NEG)
    Sb = np.full((N, N), NEG)
    bCr = np.zeros((N, N), np.int32)
    bCl = np.zeros((N, N), np.int32)
    bIr = np.zeros((N, N), np.int32)   # previous sibling r, or -1 for first dependent
    bIl = np.zeros((N, N), np.int32)
    bSb = np.zeros((N, N), np.int32)
    for s in range(N):
        Cr[s, s] = 0.0
        Cl[s, s] = 0.0
    for k in range(1, N):
        for s in range(0, N - k):
            t = s + k
            # sibling item
            if s > 0:
                best = NEG
                arg = s
                for r in range(s, t):
                    v = Cr[s, r] + Cl[r + 1, t]
                    if v > best:
                        best = v
                        arg = r
                Sb[s, t] = best
                bSb[s, t] = arg
            # arc s -> t
            best = Cl[s + 1, t] + SIB[s, s, t]
            arg = -1
            if s > 0 or multi_root:
                for r in range(s + 1, t):
                    v = Ir[s, r] + Sb[r, t] + SIB[s, r, t]
                    if v > best:
                        best = v
                        arg = r
            Ir[s, t] = best + S[s, t]
            bIr[s, t] = arg
            # arc t -> s
            if s > 0:
                best = Cr[s, t - 1] + SIB[t, t, s]
                arg = -1
                for r in range(s + 1, t):
                    v = Sb[s, r] + Il[r, t] + SIB[t, r, s]
                    if v > best:
                        best = v
                        arg = r
                Il[s, t] = best + S[t, s]
                bIl[s, t] = arg
            # complete items
            best = NEG
            arg = s
            for r in range(s, t):
                v = Cl[s, r] + Il[r, t]
                if v > best:
                    best = v
                    arg = r
            Cl[s, t] = best
            bCl[s, t] = arg
            if s == 0 and not multi_root and t < n:
                continue
            best = NEG
            arg = t
            for r in range(s + 1, t + 1):
                v = Ir[s, r] + Cr[r, t]
                if v > best:
                    best = v
                    arg = r
            Cr[s, t] = best
            bCr[s, t] = arg
    return Cr, Cl, Ir, Il, Sb, bCr, bCl, bIr, bIl, bSb


@njit(cache=NUMBA_CACHE)
def _backtrack2(n, bCr, bCl, bIr, bIl, bSb, heads):
    # kinds: 0 Cr, 1 Cl, 2 Ir, 3 Il, 4 Sb
    stack = np.empty((6 * (n + 2), 3), np.int64)
    stack[0, 0] = 0
    stack[0, 1] = 0
    stack[0, 2] = n
    top = 1
    while top > 0:
        top -= 1
        kind = stack[top, 0]
        s = stack[top, 1]
        t = stack[top, 2]
        if s == t:
            continue
        if kind == 0:
            r = bCr[s, t]
            stack[top, 0], stack[top, 1], stack[top, 2] = 2, s, r
            stack[top + 1, 0], stack[top + 1, 1], stack[top + 1, 2] = 0, r, t
            top += 2
        elif kind == 1:
            r = bCl[s, t]
            stack[top, 0], stack[top, 1], stack[top, 2] = 1, s, r
            stack[top + 1, 0], stack[top + 1, 1], stack[top + 1, 2] = 3, r, t
            top += 2
        elif kind == 2:
            heads[t] = s
            r = bIr[s, t]
            if r < 0:
                stack[top, 0], stack[top, 1], stack[top, 2] = 1, s + 1, t
                top += 1
            else:
                stack[top, 0], stack[top, 1], stack[top, 2] = 2, s, r
                stack[top + 1, 0], stack[top + 1, 1], stack[top + 1, 2] = 4, r, t
                top += 2
        elif kind == 3:
            heads[s] = t
            r = bIl[s, t]
            if r < 0:
                stack[top, 0], stack[top, 1], stack[top, 2] = 0, s, t - 1
                top += 1
            else:
                stack[top, 0], stack[top, 1], stack[top, 2] = 4, s, r
                stack[top + 1, 0], stack[top + 1, 1], stack[top + 1, 2] = 3, r, t
                top += 2
        else:
            r = bSb[s, t]
            stack[top, 0], stack[top, 1], stack[top, 2] = 0, s, r
            stack[top + 1, 0], stack[top + 1, 1], stack[top + 1, 2] = 1, r + 1, t
            top += 2


@njit(cache=NUMBA_CACHE)
def eisner2(S, SIB, multi_root):
    """Best projective tree under arc scores ``S`` and sibling scores ``SIB``:
    (heads, score); ``heads[0] = -1``."""
    N = S.shape[0]
    heads = np.full(N, -1, np.int64)
    if N <= 1:
        return heads, 0.0
    Cr, Cl, Ir, Il, Sb, bCr, bCl, bIr, bIl, bSb = _inside2(S, SIB, multi_root)
    _backtrack2(N - 1, bCr, bCl, bIr, bIl, bSb, heads)
    return heads, Cr[0, N - 1]


@njit(cache=NUMBA_CACHE)
def max_marginals2(S, SIB, multi_root):
    """Second-order max-marginals ``M[h, d]`` (best tree containing h -> d) and the
    best score."""
    N = S.shape[0]
    n = N - 1
    M = np.full((N, N), NEG)
    if N <= 1:
        return M, 0.0
    Cr, Cl, Ir, Il, Sb, bCr, bCl, bIr, bIl, bSb = _inside2(S, SIB, multi_root)
    oCr = np.full((N, N), NEG)
    oCl = np.full((N, N), NEG)
    oIr = np.full((N, N), NEG)
    oIl = np.full((N, N), NEG)
    oSb = np.full((N, N), NEG)
    oCr[0, n] = 0.0
    for k in range(n, 0, -1):
        for s in range(0, N - k):
            t = s + k
            b = oCr[s, t]
            if b > NEG and Cr[s, t] > NEG:
                for r in range(s + 1, t + 1):
                    v = b + Cr[r, t]
                    if v > oIr[s, r]:
                        oIr[s, r] = v
                    v = b + Ir[s, r]
                    if v > oCr[r, t]:
                        oCr[r, t] = v
            b = oCl[s, t]
            if b > NEG and Cl[s, t] > NEG:
                for r in range(s, t):
                    v = b + Il[r, t]
                    if v > oCl[s, r]:
                        oCl[s, r] = v
                    v = b + Cl[s, r]
                    if v > oIl[r, t]:
                        oIl[r, t] = v
            # arc s -> t
            b = oIr[s, t]
            if b > NEG and Ir[s, t] > NEG:
                a = b + S[s, t]
                v = a + SIB[s, s, t]
                if v > oCl[s + 1, t]:
                    oCl[s + 1, t] = v
                if s > 0 or multi_root:
                    for r in range(s + 1, t):
                        c = a + SIB[s, r, t]
                        v = c + Sb[r, t]
                        if v > oIr[s, r]:
                            oIr[s, r] = v
                        v = c + Ir[s, r]
                        if v > oSb[r, t]:
                            oSb[r, t] = v
            # arc t -> s
            if s > 0:
                b = oIl[s, t]
                if b > NEG and Il[s, t] > NEG:
                    a = b + S[t, s]
                    v = a + SIB[t, t, s]
                    if v > oCr[s, t - 1]:
                        oCr[s, t - 1] = v
                    for r in range(s + 1, t):
                        c = a + SIB[t, r, s]
                        v = c + Il[r, t]
                        if v > oSb[s, r]:
                            oSb[s, r] = v
                        v = c + Sb[s, r]
                        if v > oIl[r, t]:
                            oIl[r, t] = v
            # sibling item
            b = oSb[s, t]
            if s > 0 and b > NEG and Sb[s, t] > NEG:
                for r in range(s, t):
                    v = b + Cl[r + 1, t]
                    if v > oCr[s, r]:
                        oCr[s, r] = v
                    v = b + Cr[s, r]
                    if v > oCl[r + 1, t]:
                        oCl[r + 1, t] = v
    for s in range(N):
        for t in range(s + 1, N):
            M[s, t] = Ir[s, t] + oIr[s, t]
            if s > 0:
                M[t, s] = Il[s, t] + oIl[s, t]
    return M, Cr[0, n]
