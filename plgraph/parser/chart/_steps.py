"""The chart's combination and arc-step helpers (numba, called from
:func:`plgraph.parser.chart._kernel.chart`): reference points, sub-beam lookups, the
loss a combination charges (:func:`comb_loss`), the flags of a combination
(:func:`combine_flags`) and its spine correction, the crossing tables of the arc steps,
the goal's extra loss and the buffer reservation before each phase.

:func:`comb_loss` and :func:`reserve` take their arrays packed by what they are
(:class:`MissLoss`, :class:`ChildSpans`, :class:`~plgraph.parser.chart._items.CellScratch`),
built once per sentence; the helpers called per pop (:func:`combine_flags`,
:func:`spine_correction`) take theirs as plain arguments, as the chart's loop holds them;
a combination's shape is one tuple of scalars (:class:`Combo`).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ...files import _numba_cache
from ...config import NUMBA_CACHE
from ...rules import _apply
from . import _items
from ...rules._apply import (I_SPAN, J_F_STATE, N_STATES, REF_I0, REF_IPLUS, REF_J0, REF_J1, REF_J2, REF_NONE, REF_XP,
                             has_direct, j_F_STATE, role)
from ._items import (NEG, ROOT_EDGE, SP_P, SP_Q, SP_O, XS_P, XS_Q, XS_IN, O_SLOTS, SPN, P, Q, O, KEY, FLG, SP, SQ, SO,
                     CellScratch, grow_rows, grow_vec, rehash, end_units)


class SpineOptions(NamedTuple):
    """Each point's spine options: point w's are ``sp_off[w] .. sp_off[w+1]-1`` (``sp_off``
    (N+1,) int64) with scores ``sp_score`` (float64; loss-augmented in training) --
    those of :class:`plgraph.parser.chart.tables.ScoreArgs`."""

    sp_off: np.ndarray
    sp_score: np.ndarray


class MissLoss(NamedTuple):
    """What the missed-edge loss of a combination reads (:func:`comb_loss`): ``gw``
    (N*N,) the gold (kind, direction) edges between two points, ``gps`` ((N+1)*(N+1),)
    their 2-D prefix sums (both of :class:`plgraph.parser.chart.tables.ScoreArgs`), the
    weight ``miss`` of a missed edge (0 outside training) and the number of points ``N``."""

    gw: np.ndarray
    gps: np.ndarray
    miss: float
    N: int


class ChildSpans(NamedTuple):
    """A combination's children as :func:`comb_loss` reads them, before their items are
    chosen: child t (< the combination's arity) spans ``cp[t] .. cq[t]`` with external
    point ``co[t]`` (-1: none) and key ``ck[t]``.  Arrays of 3 int64, filled per
    combination by the chart."""

    cp: np.ndarray
    cq: np.ndarray
    co: np.ndarray
    ck: np.ndarray


class Combo(NamedTuple):
    """The shape of a combination: ``nc`` children (2 or 3) over the goal span [p, q],
    split at ``k`` and, when ``nc`` is 3, at ``l`` (else -1); ``go`` the goal's external
    point (-1: none).  Scalars only: built per combination at no cost."""

    nc: int
    p: int
    q: int
    k: int
    l: int
    go: int


# -- combinations -------------------------------------------------------------------------------
@njit(cache=NUMBA_CACHE)
def ref_point(ref, p, k, l, q, ternary):
    """The external point a reference code asks of a child: a position, -1 (none), -2 (any
    point outside the goal span: the goal's external point) or -3 (never matches)."""
    if ref == REF_NONE or ref == REF_IPLUS:
        return -1
    if ref == REF_XP:
        return -2
    if ref == REF_I0:
        return p
    if ref == REF_J0:
        return k
    if ref == REF_J1:
        return l if ternary else q
    if ref == REF_J2:
        return q
    return -3


@njit(cache=NUMBA_CACHE)
def sb_lower(sb_key, lo, hi, x):
    """First index in the sorted ``sb_key[lo:hi]`` whose key is >= ``x``."""
    a, b = lo, hi
    while a < b:
        m = (a + b) // 2
        if sb_key[m] < x:
            a = m + 1
        else:
            b = m
    return a


@njit(cache=NUMBA_CACHE)
def sb_candidates(sb_key, lo, hi, key, want):
    """Sub-beams (index range) of one cell index with item key ``key`` whose external point
    may be ``want`` (a position or -1: the one sub-beam group; -2: every group of the
    key, the caller filters)."""
    if want >= -1:
        base = (np.int64(key) * O_SLOTS + want + 1) * SPN
        return sb_lower(sb_key, lo, hi, base), sb_lower(sb_key, lo, hi, base + SPN)
    base = np.int64(key) * O_SLOTS * SPN
    return sb_lower(sb_key, lo, hi, base), sb_lower(sb_key, lo, hi, base + O_SLOTS * SPN)


@njit(cache=NUMBA_CACHE)
def pair_linked(letters, key, pt, qt, ot, x, y):
    """Does a child item (span pt..qt, external point ot, ``key``) hold an edge between
    points x and y (either direction)?"""
    rx = role(x, pt, qt, ot)
    ry = role(y, pt, qt, ot)
    if rx < 0 or ry < 0:
        return False
    st = key % N_STATES
    return has_direct(letters, st, rx, ry) or has_direct(letters, st, ry, rx)


@njit(cache=NUMBA_CACHE)
def gold_between(gps, N, a1, a2, b1, b2):
    """Gold (kind, direction) edges between the points ``a1..a2-1`` and ``b1..b2-1``
    (disjoint ranges), from the prefix sums ``gps``."""
    if a1 >= a2 or b1 >= b2:
        return 0
    M = N + 1
    return gps[a2 * M + b2] - gps[a1 * M + b2] - gps[a2 * M + b1] + gps[a1 * M + b1]


@njit(cache=NUMBA_CACHE)
def comb_loss(letters, loss, kids, combo):
    """Missed-edge loss a combination charges (module docstring), from the state letters
    ``letters`` of the rule tables and ``loss`` (:class:`MissLoss`): the children ``kids``
    (:class:`ChildSpans`) of the combination ``combo`` (:class:`Combo`: ``nc`` children,
    splits k (and l) over the goal [p, q] with external point ``go``).

    An item's *points* are its span and its external point.  A gold pair is charged at the
    combination where it becomes *newly dead*: both ends are points of the goal, one lies
    strictly inside the goal's span, no child holds both as points with one of them
    strictly inside its span (then it died, or was linked, below), and it is not linked.
    Every unlinked gold pair but (0, ROOT) dies exactly once in a derivation (an item's
    points contain its children's, what is interior stays interior, and an arc step that
    adds a point charges that point's pairs itself), so the telescoping sum charges it
    once.  The cases: (A) a split and a visible point of the goal (an end, the external
    point, the other split) -- linked iff some child holds both as visible points with a
    direct letter between them; (A') in a ternary combination, a split and a point
    strictly inside the child it does not touch; (B) a point strictly inside a child and a
    goal point that child does not hold (a point strictly inside another child, an end,
    the external point) -- never linked, since an edge's item is below the child."""
    gw, gps, miss, N = loss
    cp, cq, co, ck = kids
    nc, p, q, k, l, go = combo
    tot = 0
    for si in range(nc - 1):
        s = k if si == 0 else l
        for j in range(4):
            if j == 0:
                m = p
            elif j == 1:
                m = q
            elif j == 2:
                m = go
            else:
                m = l if (si == 0 and nc == 3) else -1
            if m < 0 or m == s:
                continue
            w = gw[s * N + m]
            if w == 0:
                continue
            linked = False
            for t in range(nc):
                if pair_linked(letters, ck[t], cp[t], cq[t], co[t], s, m):
                    linked = True
            if not linked:
                tot += w
    if nc == 3:
        if co[2] != k:
            tot += gold_between(gps, N, k, k + 1, l + 1, q)
        if co[0] != l:
            tot += gold_between(gps, N, l, l + 1, p + 1, k)
    for t in range(nc):
        a1 = cp[t] + 1
        a2 = cq[t]
        if a1 >= a2:
            continue
        for u in range(t + 1, nc):
            tot += gold_between(gps, N, a1, a2, cp[u] + 1, cq[u])
        for j in range(3):
            b = p if j == 0 else (q if j == 1 else go)
            if b < 0 or b == cp[t] or b == cq[t] or b == co[t]:
                continue
            tot += gold_between(gps, N, a1, a2, b, b + 1)
    return miss * tot


@njit(cache=NUMBA_CACHE)
def inner_bit(bit, sp, sq):
    """Doubled coordinate of the inner end of an external structural edge (bit XS_*)."""
    if bit == XS_P:
        return 2 * sp
    if bit == XS_Q:
        return 2 * sq
    return 2 * sp + 1


@njit(cache=NUMBA_CACHE)
def crosses(a1, b1, a2, b2):
    if a1 > b1:
        a1, b1 = b1, a1
    if a2 > b2:
        a2, b2 = b2, a2
    return (a1 < a2 < b1 < b2) or (a2 < a1 < b2 < b1)


@njit(cache=NUMBA_CACHE)
def combine_flags(it, sp_off, sp_score, r0, r1, r2, combo, root, pts, out):
    """The goal of combining children ``r0, r1`` (and ``r2`` when ``combo.nc`` is 3;
    permanent rows of the item table ``it``) as ``combo`` (:class:`Combo`: over [p, q]
    split at k (and l), external point ``go``), with the spine options ``sp_off`` /
    ``sp_score`` (as in :class:`SpineOptions`) and ROOT ``root``: returns its flags, -1 when a parser-level
    condition fails, and leaves its spines of p, q, o in ``pts[4, :3]`` and its spine
    correction in ``out[0]``.  (The chart inlines the common case of two Intervals
    without external points itself.)  ``pts`` (5, 9) is scratch: per point seen, its
    position, structural-parent count, spine and the spine half-units counted (one 2-D
    array rather than four: a row view per call would cost numba a reference count).
    Called per pop: its arrays are plain arguments, not packed, as the chart holds them."""
    nc, p, q, k, l, go = combo
    npt = 0
    roots = 0
    for t in range(nc):
        r = r0 if t == 0 else (r1 if t == 1 else r2)
        f = it[r, FLG]
        if f & ROOT_EDGE:
            roots += 1
        for j in range(3):
            if j == 0:
                v = it[r, P]
                bit = SP_P
                s = it[r, SP]
                u = end_units(v, root)
            elif j == 1:
                v = it[r, Q]
                bit = SP_Q
                s = it[r, SQ]
                u = end_units(v, root)
            else:
                v = it[r, O]
                if v < 0:
                    continue
                bit = SP_O
                s = it[r, SO]
                u = 2
            has = 1 if f & bit else 0
            found = -1
            for z in range(npt):
                if pts[0, z] == v:
                    found = z
                    break
            if found >= 0:
                if pts[2, found] != s:
                    return -1
                pts[1, found] += has
                pts[3, found] += u
            else:
                pts[0, npt] = v
                pts[1, npt] = has
                pts[2, npt] = s
                pts[3, npt] = u
                npt += 1
    if roots > 1:
        return -1
    fl = ROOT_EDGE if roots == 1 else 0
    corr = 0.0
    gsp = 0
    gsq = 0
    gso = 0
    for z in range(npt):
        v = pts[0, z]
        cnt = pts[1, z]
        if cnt > 1:
            return -1
        if v == k or (nc == 3 and v == l):
            if cnt != 1:
                return -1
            want = 2
        elif v == p:
            want = end_units(v, root)
            gsp = pts[2, z]
            if cnt:
                fl |= SP_P
        elif v == q:
            want = end_units(v, root)
            gsq = pts[2, z]
            if cnt:
                fl |= SP_Q
        elif v == go:
            want = 2
            gso = pts[2, z]
            if cnt:
                fl |= SP_O
        else:
            return -1   # a child's external point the goal cannot see
        if pts[3, z] != want:
            corr += 0.5 * (pts[3, z] - want) * sp_score[sp_off[v] + pts[2, z]]
    # external structural edges of children with different external points must not cross
    for t1 in range(nc):
        ra = r0 if t1 == 0 else (r1 if t1 == 1 else r2)
        o1 = it[ra, O]
        x1 = it[ra, FLG] & (XS_P | XS_Q | XS_IN)
        if o1 < 0 or x1 == 0:
            continue
        for t2 in range(t1 + 1, nc):
            rb = r1 if t2 == 1 else r2
            o2 = it[rb, O]
            x2 = it[rb, FLG] & (XS_P | XS_Q | XS_IN)
            if o2 < 0 or x2 == 0 or o2 == o1:
                continue
            for i1 in range(3):
                b1 = XS_P << i1
                if not x1 & b1:
                    continue
                e1 = inner_bit(b1, it[ra, P], it[ra, Q])
                for i2 in range(3):
                    b2 = XS_P << i2
                    if x2 & b2 and crosses(2 * o1, e1, 2 * o2, inner_bit(b2, it[rb, P], it[rb, Q])):
                        return -1
    # the goal's external structural edges: those of children sharing its external point
    if go >= 0:
        for t in range(nc):
            r = r0 if t == 0 else (r1 if t == 1 else r2)
            if it[r, O] != go:
                continue
            f = it[r, FLG]
            if f & XS_P:
                fl |= XS_P if it[r, P] == p else XS_IN
            if f & XS_Q:
                fl |= XS_Q if it[r, Q] == q else XS_IN
            if f & XS_IN:
                fl |= XS_IN
    pts[4, 0] = gsp
    pts[4, 1] = gsq
    pts[4, 2] = gso
    out[0] = corr
    return fl


@njit(cache=NUMBA_CACHE)
def spine_correction(it, sp_off, sp_score, rows, nc, root):
    """The spine correction of :func:`combine_flags` alone (for cube priorities): for each
    child's external point among the ``nc`` children ``rows`` (rows of ``it``), what the
    children count beyond what the goal keeps (spine options ``sp_off`` / ``sp_score``)."""
    corr = 0.0
    for t in range(nc):
        o = it[rows[t], O]
        if o < 0:
            continue
        seen = False
        for t0 in range(t):
            if it[rows[t0], O] == o:
                seen = True
        if seen:
            continue
        units = 0
        for t2 in range(nc):
            r2 = rows[t2]
            if it[r2, O] == o:
                units += 2
            if it[r2, P] == o or it[r2, Q] == o:
                units += end_units(o, root)
        # an end of the goal keeps its end units, anything else (interior, goal's o) two
        want = 2
        if it[rows[0], P] == o or it[rows[nc - 1], Q] == o:
            want = end_units(o, root)
        if units != want:
            corr += 0.5 * (units - want) * sp_score[sp_off[o] + it[rows[t], SO]]
    return corr



# -- arc steps ----------------------------------------------------------------------------------
@njit(cache=NUMBA_CACHE)
def cross_tables(sp_off, pair_off, st_best):
    """Range tables of who can cross what (the reference's ``crossingSet``),
    from the allowed edges: ``rng[t, a, b]`` over points a..b of the smallest (t = 0, 2)
    and largest (t = 1, 3) partner of an allowed trace edge (0, 1) or of any allowed edge
    (2, 3), either direction; empty ranges and points without partners give N / -1."""
    N = sp_off.shape[0] - 1
    lo = np.full((2, N), N, np.int64)
    hi = np.full((2, N), -1, np.int64)
    for c in range(N):
        for pp in range(N):
            off = pair_off[c * N + pp]
            if off < 0:
                continue
            m = (sp_off[c + 1] - sp_off[c]) * (sp_off[pp + 1] - sp_off[pp])
            trace = False
            anyk = False
            for f in range(off, off + m):
                if st_best[1, f] > NEG:
                    trace = True
                    anyk = True
                if st_best[0, f] > NEG:
                    anyk = True
            for kind in range(2):
                if (trace if kind == 0 else anyk):
                    lo[kind, c] = min(lo[kind, c], pp)
                    hi[kind, c] = max(hi[kind, c], pp)
                    lo[kind, pp] = min(lo[kind, pp], c)
                    hi[kind, pp] = max(hi[kind, pp], c)
    rng = np.empty((4, N, N), np.int64)
    for kind in range(2):
        for a in range(N):
            mn = N
            mx = -1
            for b in range(N):
                if b >= a:
                    mn = min(mn, lo[kind, b])
                    mx = max(mx, hi[kind, b])
                rng[2 * kind, a, b] = mn if b >= a else N
                rng[2 * kind + 1, a, b] = mx if b >= a else -1
    return rng


@njit(cache=NUMBA_CACHE)
def crossable(rng, kind, lo, hi, a1, b1, a2, b2):
    """Has some point among a1..b1 or a2..b2 (empty when a > b) an allowed edge (kind 0:
    trace, 1: any) to a point below ``lo`` or above ``hi``?"""
    if a1 <= b1 and (rng[2 * kind, a1, b1] < lo or rng[2 * kind + 1, a1, b1] > hi):
        return True
    return a2 <= b2 and (rng[2 * kind, a2, b2] < lo or rng[2 * kind + 1, a2, b2] > hi)


@njit(cache=NUMBA_CACHE)
def goal_extra(it, r, root, miss, gold_root):
    """-inf unless row ``r`` is a goal item; else what the goal adds: the missed-edge loss
    of an unlinked gold ``0 -> ROOT`` (state ``j_F___``; ``gold_root`` is 1 when gold has
    that edge)."""
    if it[r, P] != 0 or it[r, Q] != root or it[r, O] >= 0:
        return NEG
    key = it[r, KEY]
    st = key % N_STATES
    if key // N_STATES != I_SPAN or (st != J_F_STATE and st != j_F_STATE):
        return NEG
    if (it[r, FLG] & (ROOT_EDGE | SP_P)) != (ROOT_EDGE | SP_P):
        return NEG
    if st == j_F_STATE:
        return miss * gold_root
    return 0.0


@njit(cache=NUMBA_CACHE)
def reserve(scratch, sn, ln, gen, extra, log):
    """``scratch`` (:class:`~plgraph.parser.chart._items.CellScratch`, ``sn`` rows and
    ``ln`` log entries used, hash generation ``gen``) with its rows, hash table (kept at
    most half full) and -- when ``log`` -- its log grown for ``extra`` more items; called
    only when one of them is too small."""
    sit, sins, sidn, hk, hv, hg, slg, slw = scratch
    need = sn + extra
    sit = grow_rows(sit, need)
    sins = grow_vec(sins, need)
    sidn = grow_vec(sidn, need)
    if 2 * need > hk.shape[0]:
        size = hk.shape[0]
        while 2 * need > size:
            size *= 2
        hk, hv, hg = rehash(sidn, sn, gen, size)
    if log:
        slg = grow_rows(slg, ln + extra)
        slw = grow_rows(slw, ln + extra)
    return CellScratch(sit, sins, sidn, hk, hv, hg, slg, slw)


if NUMBA_CACHE:
    _numba_cache.guard_cache(__file__, combine_flags, _apply.__file__, _items.__file__)
