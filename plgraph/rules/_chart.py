"""Numba kernel: the 1EC deduction system's chart restricted to one graph.

The chart builds items bottom-up (CKY order: widths 1..N-1; in each cell first
every binary and ternary combination, then arc steps in order of the number of
direct edges among the item's points) using the rule tables, but only adds an
edge that belongs to the given graph, and only combines items when every point
that becomes interior has all its edges already built (an edge can never be
added to an interior point later).  Each item carries the number of ways it was
derived (a counting semiring) and one back-pointer, so a graph's derivation
count is the goal's count and, when it is 1, its unique derivation is read off
the back-pointers.

Positions are 0..N-1 with ROOT = N-1.  ``adj[c, p]`` is 1 for an edge c -> p.
Parser-level conditions from the reference implementation (design notes §4.3,
§4.6) are applied when ``strict`` is set: an Exterval's external point may not be
the point just left of the span unless the new edge touches the right end (and
symmetrically), ROOT is an external point only as a parent, and an Interval
with no parent links and width > 1 may not be the left child of an
Interval + Interval combination.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..config import NUMBA_CACHE

N_STATES = 90
I_SPAN = 16
X_RIGHT = 14   # "__.X"
X_LEFT = 15    # "_._X"
REF_NONE, REF_XP, REF_I0, REF_J0, REF_I1, REF_J1, REF_J2, REF_IPLUS = 0, 1, 2, 3, 4, 5, 6, 7
F_F_STATE = 4  # "F_F___" among the two-point states
KIND_INIT, KIND_COMB, KIND_ARC = 0, 1, 2


@njit(cache=NUMBA_CACHE)
def _ref_ok(ref, o, p, k, l, q, ternary):
    """Does an item's external point ``o`` match reference code ``ref``?  For
    REF_XP only "outside [p, q]" is checked here."""
    if ref == REF_NONE or ref == REF_IPLUS:
        return o < 0
    if ref == REF_XP:
        return o >= 0 and (o < p or o > q)
    if ref == REF_I0:
        return o == p
    if ref == REF_J0:
        return o == k
    if ref == REF_J1:
        return o == (l if ternary else q)
    if ref == REF_J2:
        return o == q
    return False


@njit(cache=NUMBA_CACHE)
def _role(v, a, b, o):
    if v == a:
        return 0
    if v == b:
        return 1
    if o >= 0 and v == o:
        return 2
    return -1


@njit(cache=NUMBA_CACHE)
def _has_direct(letters, state, ra, rb):
    """Does the point in role ra have the point in role rb as direct parent?"""
    if ra == rb or ra < 0 or rb < 0:
        return False
    # slot order: (i,j),(i,x),(j,i),(j,x),(x,i),(x,j)
    if ra == 0:
        slot = 0 if rb == 1 else 1
    elif ra == 1:
        slot = 2 if rb == 0 else 3
    else:
        slot = 4 if rb == 0 else 5
    return letters[state, slot] == 2


@njit(cache=NUMBA_CACHE)
def _edges_complete(adj, n_points, letters, v, lo, hi, sp, sq, so, sstate, nsub):
    """Are all edges of point ``v`` (about to become interior of [lo, hi]) built
    in one of the ``nsub`` sub-items (ends sp/sq, external so, state sstate)?"""
    for m in range(n_points):
        e1 = adj[v, m] != 0
        e2 = adj[m, v] != 0
        if not e1 and not e2:
            continue
        inside = False
        for t in range(nsub):
            if sp[t] < m < sq[t]:
                inside = True
                break
        if inside:
            continue
        if e1:
            ok = False
            for t in range(nsub):
                if _has_direct(letters, sstate[t], _role(v, sp[t], sq[t], so[t]), _role(m, sp[t], sq[t], so[t])):
                    ok = True
                    break
            if not ok:
                return False
        if e2:
            ok = False
            for t in range(nsub):
                if _has_direct(letters, sstate[t], _role(m, sp[t], sq[t], so[t]), _role(v, sp[t], sq[t], so[t])):
                    ok = True
                    break
            if not ok:
                return False
    return True


# columns of the item table
C_P, C_Q, C_O, C_KEY, C_COUNT, C_KIND, C_RULE, C_A, C_B, C_C = range(10)


@njit(cache=NUMBA_CACHE)
def _add(items, count, first, p, q, o, key, mult, kind, rule, a, b, c):
    """Add ``mult`` derivations of item (p, q, o, key) to the cell that starts at
    row ``first``: accumulate into an existing row or append one (growing the
    table).  The first way an item is built is kept as its back-pointer."""
    for r in range(first, count):
        if items[r, C_O] == o and items[r, C_KEY] == key:
            items[r, C_COUNT] += mult
            return items, count
    if count >= items.shape[0]:
        bigger = np.empty((2 * items.shape[0], items.shape[1]), np.int64)
        bigger[:count] = items[:count]
        items = bigger
    items[count, C_P] = p
    items[count, C_Q] = q
    items[count, C_O] = o
    items[count, C_KEY] = key
    items[count, C_COUNT] = mult
    items[count, C_KIND] = kind
    items[count, C_RULE] = rule
    items[count, C_A] = a
    items[count, C_B] = b
    items[count, C_C] = c
    return items, count + 1


@njit(cache=NUMBA_CACHE)
def graph_chart(adj, letters, comb_n, comb_keys, comb_refs, comb_goal, comb_ok, bin_start, bin_rules, ter_start,
                ter_rules, has_ternary, arc_in, arc_goal, arc_parent, arc_child, arc_xcreate, arc_ok, arc_start,
                arc_rules, strict):
    """Run the chart for one graph.

    Returns ``(items, n_items, goal_item, goal_count)``: ``items[:n_items]`` has one
    row per item with the columns ``C_P, C_Q, C_O`` (end points, external point or
    -1), ``C_KEY``, ``C_COUNT`` (number of derivations) and the back-pointer
    ``C_KIND, C_RULE, C_A, C_B, C_C`` (kind, rule, child rows or -1);
    ``goal_item`` is the goal's row (-1 if none) and ``goal_count`` the number of
    derivations of the graph.
    """
    n = adj.shape[0]
    n_keys = 17 * N_STATES
    items = np.empty((256, 10), np.int64)
    count = 0
    cstart = np.zeros((n, n), np.int64)
    cend = np.zeros((n, n), np.int64)
    sp = np.empty(3, np.int64)
    sq = np.empty(3, np.int64)
    so = np.empty(3, np.int64)
    ss = np.empty(3, np.int64)
    ndirect = np.zeros(N_STATES, np.int64)
    for s in range(N_STATES):
        for t in range(6):
            if letters[s, t] == 2:
                ndirect[s] += 1

    for width in range(1, n):
        for p in range(0, n - width):
            q = p + width
            first = count
            cstart[p, q] = first
            if width == 1:
                items, count = _add(items, count, first, p, q, -1, I_SPAN * N_STATES + F_F_STATE, 1, KIND_INIT,
                                    -1, -1, -1, -1)
            for k in range(p + 1, q):
                for a in range(cstart[p, k], cend[p, k]):
                    ka = items[a, C_KEY]
                    oa = items[a, C_O]
                    # binary combinations
                    for b in range(cstart[k, q], cend[k, q]):
                        kb = items[b, C_KEY]
                        ob = items[b, C_O]
                        base = ka * n_keys + kb
                        for ridx in range(bin_start[base], bin_start[base + 1]):
                            r = bin_rules[ridx]
                            if not comb_ok[r]:
                                continue
                            ra = comb_refs[r, 0]
                            rb = comb_refs[r, 1]
                            if ra == REF_IPLUS and k != p + 1:
                                continue
                            if not _ref_ok(ra, oa, p, k, -1, q, False) or not _ref_ok(rb, ob, p, k, -1, q, False):
                                continue
                            go = oa if ra == REF_XP else -1
                            if rb == REF_XP:
                                if go >= 0 and go != ob:
                                    continue
                                go = ob
                            if strict and ka // N_STATES == I_SPAN and kb // N_STATES == I_SPAN:
                                if ka % N_STATES == F_F_STATE and k - p > 1:
                                    continue
                            sp[0] = p; sq[0] = k; so[0] = oa; ss[0] = ka % N_STATES
                            sp[1] = k; sq[1] = q; so[1] = ob; ss[1] = kb % N_STATES
                            if not _edges_complete(adj, n, letters, k, p, q, sp, sq, so, ss, 2):
                                continue
                            items, count = _add(items, count, first, p, q, go, comb_goal[r],
                                                items[a, C_COUNT] * items[b, C_COUNT], KIND_COMB, r, a, b, -1)
                    # ternary combinations
                    if not has_ternary[ka]:
                        continue
                    for l in range(k + 1, q):
                        for b in range(cstart[k, l], cend[k, l]):
                            kb = items[b, C_KEY]
                            ob = items[b, C_O]
                            base = ka * n_keys + kb
                            if ter_start[base] == ter_start[base + 1]:
                                continue
                            for c2 in range(cstart[l, q], cend[l, q]):
                                kc = items[c2, C_KEY]
                                oc = items[c2, C_O]
                                for ridx in range(ter_start[base], ter_start[base + 1]):
                                    r = ter_rules[ridx]
                                    if not comb_ok[r] or comb_keys[r, 2] != kc:
                                        continue
                                    r0 = comb_refs[r, 0]
                                    r1 = comb_refs[r, 1]
                                    r2 = comb_refs[r, 2]
                                    if not (_ref_ok(r0, oa, p, k, l, q, True) and _ref_ok(r1, ob, p, k, l, q, True)
                                            and _ref_ok(r2, oc, p, k, l, q, True)):
                                        continue
                                    go = -1
                                    bad = False
                                    for ref, oo in ((r0, oa), (r1, ob), (r2, oc)):
                                        if ref == REF_XP:
                                            if go >= 0 and go != oo:
                                                bad = True
                                            go = oo
                                    if bad:
                                        continue
                                    sp[0] = p; sq[0] = k; so[0] = oa; ss[0] = ka % N_STATES
                                    sp[1] = k; sq[1] = l; so[1] = ob; ss[1] = kb % N_STATES
                                    sp[2] = l; sq[2] = q; so[2] = oc; ss[2] = kc % N_STATES
                                    if not _edges_complete(adj, n, letters, k, p, q, sp, sq, so, ss, 3):
                                        continue
                                    if not _edges_complete(adj, n, letters, l, p, q, sp, sq, so, ss, 3):
                                        continue
                                    mult = items[a, C_COUNT] * items[b, C_COUNT] * items[c2, C_COUNT]
                                    items, count = _add(items, count, first, p, q, go, comb_goal[r], mult,
                                                        KIND_COMB, r, a, b, c2)
            # arc steps, in order of the number of direct edges among the points
            for d in range(0, 4):
                c = first
                while c < count:
                    key = items[c, C_KEY]
                    if ndirect[key % N_STATES] != d:
                        c += 1
                        continue
                    o0 = items[c, C_O]
                    for ridx in range(arc_start[key], arc_start[key + 1]):
                        r = arc_rules[ridx]
                        if not arc_ok[r]:
                            continue
                        xcreate = arc_xcreate[r]
                        lo_o, hi_o = (0, n) if xcreate else (o0, o0 + 1)
                        par = arc_parent[r]
                        chd = arc_child[r]
                        for o in range(lo_o, hi_o):
                            if xcreate and p <= o <= q:
                                continue
                            pp = p if par == 0 else (q if par == 1 else o)
                            cc = p if chd == 0 else (q if chd == 1 else o)
                            if pp < 0 or cc < 0 or adj[cc, pp] == 0 or cc == n - 1:
                                continue  # not an edge of the graph (ROOT is never a child)
                            if xcreate and strict:
                                if o == n - 1 and par != 2:
                                    continue
                                if o == p - 1 and par != 1 and chd != 1:
                                    continue
                                if o == q + 1 and par != 0 and chd != 0:
                                    continue
                            if xcreate:
                                gk = (X_RIGHT if o > q else X_LEFT) * N_STATES + arc_goal[r]
                                go = o
                            else:
                                gk = arc_goal[r]
                                go = o0
                            items, count = _add(items, count, first, p, q, go, gk, items[c, C_COUNT], KIND_ARC,
                                                r, c, -1, -1)
                    c += 1
            cend[p, q] = count

    # goal: an Interval over [0, ROOT] whose first point reaches ROOT; edge 0 -> ROOT as in the graph
    goal_item = -1
    goal_count = 0
    want = 0 if adj[0, n - 1] != 0 else 1  # J_F___ (id 0) or j_F___ (id 1)
    for c in range(cstart[0, n - 1], cend[0, n - 1]):
        if items[c, C_O] < 0 and items[c, C_KEY] == I_SPAN * N_STATES + want:
            goal_item = c
            goal_count += items[c, C_COUNT]
    return items, count, goal_item, goal_count
