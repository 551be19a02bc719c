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


@njit(cache=NUMBA_CACHE)
def _grow(arr, size):
    out = np.empty(size, arr.dtype)
    out[: arr.shape[0]] = arr
    return out


@njit(cache=NUMBA_CACHE)
def graph_chart(adj, letters, comb_n, comb_keys, comb_refs, comb_goal, comb_ok, bin_start, bin_rules, ter_start,
                ter_rules, has_ternary, arc_in, arc_goal, arc_parent, arc_child, arc_xcreate, arc_ok, arc_start,
                arc_rules, strict):
    """Run the chart for one graph.

    Returns ``(n_items, ip, iq, io, ikey, icount, bkind, brule, bc0, bc1, bc2,
    goal_item, goal_count)``: item end points, external point (-1 none), key,
    derivation count, and back-pointer (kind, rule, child items); ``goal_item``
    is the goal item (-1 if none) and ``goal_count`` the number of derivations.
    """
    n = adj.shape[0]
    n_keys = 17 * N_STATES
    cap = 256
    ip = np.empty(cap, np.int64)
    iq = np.empty(cap, np.int64)
    io = np.empty(cap, np.int64)
    ikey = np.empty(cap, np.int64)
    icount = np.empty(cap, np.int64)
    bkind = np.empty(cap, np.int64)
    brule = np.empty(cap, np.int64)
    bc0 = np.empty(cap, np.int64)
    bc1 = np.empty(cap, np.int64)
    bc2 = np.empty(cap, np.int64)
    cstart = np.zeros((n, n), np.int64)
    cend = np.zeros((n, n), np.int64)
    count = 0
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
            cstart[p, q] = count
            # ---- add(item) is inlined as: find existing (o, key) in this cell or append
            if width == 1:
                if count >= cap:
                    cap *= 2
                    ip = _grow(ip, cap); iq = _grow(iq, cap); io = _grow(io, cap); ikey = _grow(ikey, cap)
                    icount = _grow(icount, cap); bkind = _grow(bkind, cap); brule = _grow(brule, cap)
                    bc0 = _grow(bc0, cap); bc1 = _grow(bc1, cap); bc2 = _grow(bc2, cap)
                ip[count] = p; iq[count] = q; io[count] = -1; ikey[count] = I_SPAN * N_STATES + F_F_STATE
                icount[count] = 1; bkind[count] = KIND_INIT; brule[count] = -1
                bc0[count] = -1; bc1[count] = -1; bc2[count] = -1
                count += 1
            else:
                for k in range(p + 1, q):
                    for a in range(cstart[p, k], cend[p, k]):
                        ka = ikey[a]
                        # binary combinations
                        for b in range(cstart[k, q], cend[k, q]):
                            kb = ikey[b]
                            base = ka * n_keys + kb
                            for ridx in range(bin_start[base], bin_start[base + 1]):
                                r = bin_rules[ridx]
                                if not comb_ok[r]:
                                    continue
                                ra = comb_refs[r, 0]
                                rb = comb_refs[r, 1]
                                if ra == REF_IPLUS and k != p + 1:
                                    continue
                                if not _ref_ok(ra, io[a], p, k, -1, q, False):
                                    continue
                                if not _ref_ok(rb, io[b], p, k, -1, q, False):
                                    continue
                                go = -1
                                if ra == REF_XP:
                                    go = io[a]
                                if rb == REF_XP:
                                    if go >= 0 and go != io[b]:
                                        continue
                                    go = io[b]
                                if strict and ka // N_STATES == I_SPAN and kb // N_STATES == I_SPAN:
                                    if ka % N_STATES == F_F_STATE and k - p > 1:
                                        continue
                                sp[0] = p; sq[0] = k; so[0] = io[a]; ss[0] = ka % N_STATES
                                sp[1] = k; sq[1] = q; so[1] = io[b]; ss[1] = kb % N_STATES
                                if not _edges_complete(adj, n, letters, k, p, q, sp, sq, so, ss, 2):
                                    continue
                                gk = comb_goal[r]
                                mult = icount[a] * icount[b]
                                found = -1
                                for c in range(cstart[p, q], count):
                                    if io[c] == go and ikey[c] == gk:
                                        found = c
                                        break
                                if found >= 0:
                                    icount[found] += mult
                                else:
                                    if count >= cap:
                                        cap *= 2
                                        ip = _grow(ip, cap); iq = _grow(iq, cap); io = _grow(io, cap)
                                        ikey = _grow(ikey, cap); icount = _grow(icount, cap)
                                        bkind = _grow(bkind, cap); brule = _grow(brule, cap)
                                        bc0 = _grow(bc0, cap); bc1 = _grow(bc1, cap); bc2 = _grow(bc2, cap)
                                    ip[count] = p; iq[count] = q; io[count] = go; ikey[count] = gk
                                    icount[count] = mult; bkind[count] = KIND_COMB; brule[count] = r
                                    bc0[count] = a; bc1[count] = b; bc2[count] = -1
                                    count += 1
                        # ternary combinations
                        if not has_ternary[ka]:
                            continue
                        for l in range(k + 1, q):
                            for b in range(cstart[k, l], cend[k, l]):
                                kb = ikey[b]
                                base = ka * n_keys + kb
                                if ter_start[base] == ter_start[base + 1]:
                                    continue
                                for c2 in range(cstart[l, q], cend[l, q]):
                                    kc = ikey[c2]
                                    for ridx in range(ter_start[base], ter_start[base + 1]):
                                        r = ter_rules[ridx]
                                        if not comb_ok[r] or comb_keys[r, 2] != kc:
                                            continue
                                        r0 = comb_refs[r, 0]
                                        r1 = comb_refs[r, 1]
                                        r2 = comb_refs[r, 2]
                                        if not _ref_ok(r0, io[a], p, k, l, q, True):
                                            continue
                                        if not _ref_ok(r1, io[b], p, k, l, q, True):
                                            continue
                                        if not _ref_ok(r2, io[c2], p, k, l, q, True):
                                            continue
                                        go = -1
                                        bad = False
                                        for ref, oo in ((r0, io[a]), (r1, io[b]), (r2, io[c2])):
                                            if ref == REF_XP:
                                                if go >= 0 and go != oo:
                                                    bad = True
                                                go = oo
                                        if bad:
                                            continue
                                        sp[0] = p; sq[0] = k; so[0] = io[a]; ss[0] = ka % N_STATES
                                        sp[1] = k; sq[1] = l; so[1] = io[b]; ss[1] = kb % N_STATES
                                        sp[2] = l; sq[2] = q; so[2] = io[c2]; ss[2] = kc % N_STATES
                                        if not _edges_complete(adj, n, letters, k, p, q, sp, sq, so, ss, 3):
                                            continue
                                        if not _edges_complete(adj, n, letters, l, p, q, sp, sq, so, ss, 3):
                                            continue
                                        gk = comb_goal[r]
                                        mult = icount[a] * icount[b] * icount[c2]
                                        found = -1
                                        for c in range(cstart[p, q], count):
                                            if io[c] == go and ikey[c] == gk:
                                                found = c
                                                break
                                        if found >= 0:
                                            icount[found] += mult
                                        else:
                                            if count >= cap:
                                                cap *= 2
                                                ip = _grow(ip, cap); iq = _grow(iq, cap); io = _grow(io, cap)
                                                ikey = _grow(ikey, cap); icount = _grow(icount, cap)
                                                bkind = _grow(bkind, cap); brule = _grow(brule, cap)
                                                bc0 = _grow(bc0, cap); bc1 = _grow(bc1, cap); bc2 = _grow(bc2, cap)
                                            ip[count] = p; iq[count] = q; io[count] = go; ikey[count] = gk
                                            icount[count] = mult; bkind[count] = KIND_COMB; brule[count] = r
                                            bc0[count] = a; bc1[count] = b; bc2[count] = c2
                                            count += 1
            # ---- arc steps, in order of the number of direct edges among the points
            for d in range(0, 4):
                c = cstart[p, q]
                while c < count:
                    if ndirect[ikey[c] % N_STATES] != d:
                        c += 1
                        continue
                    key = ikey[c]
                    o0 = io[c]
                    for ridx in range(arc_start[key], arc_start[key + 1]):
                        r = arc_rules[ridx]
                        if not arc_ok[r]:
                            continue
                        if arc_xcreate[r]:
                            lo_o, hi_o = 0, n
                        else:
                            lo_o, hi_o = o0, o0 + 1
                        for o in range(lo_o, hi_o):
                            if arc_xcreate[r]:
                                if p <= o <= q:
                                    continue
                            pts0 = p
                            pts1 = q
                            par = arc_parent[r]
                            chd = arc_child[r]
                            pp = pts0 if par == 0 else (pts1 if par == 1 else o)
                            cc = pts0 if chd == 0 else (pts1 if chd == 1 else o)
                            if pp < 0 or cc < 0 or adj[cc, pp] == 0:
                                continue
                            if cc == n - 1:
                                continue  # ROOT is never a child
                            if arc_xcreate[r] and strict:
                                if o == n - 1 and par != 2:
                                    continue
                                if o == p - 1 and par != 1 and chd != 1:
                                    continue
                                if o == q + 1 and par != 0 and chd != 0:
                                    continue
                            if arc_xcreate[r]:
                                gk = (X_RIGHT if o > q else X_LEFT) * N_STATES + arc_goal[r]
                                go = o
                            else:
                                gk = arc_goal[r]
                                go = o0
                            found = -1
                            for e in range(cstart[p, q], count):
                                if io[e] == go and ikey[e] == gk:
                                    found = e
                                    break
                            if found >= 0:
                                icount[found] += icount[c]
                            else:
                                if count >= cap:
                                    cap *= 2
                                    ip = _grow(ip, cap); iq = _grow(iq, cap); io = _grow(io, cap)
                                    ikey = _grow(ikey, cap); icount = _grow(icount, cap)
                                    bkind = _grow(bkind, cap); brule = _grow(brule, cap)
                                    bc0 = _grow(bc0, cap); bc1 = _grow(bc1, cap); bc2 = _grow(bc2, cap)
                                ip[count] = p; iq[count] = q; io[count] = go; ikey[count] = gk
                                icount[count] = icount[c]; bkind[count] = KIND_ARC; brule[count] = r
                                bc0[count] = c; bc1[count] = -1; bc2[count] = -1
                                count += 1
                    c += 1
            cend[p, q] = count

    # goal: an Interval over [0, ROOT] whose first point reaches ROOT; edge 0 -> ROOT as in the graph
    goal_item = -1
    goal_count = 0
    want = 0 if adj[0, n - 1] != 0 else 1  # J_F___ (id 0) or j_F___ (id 1)
    for c in range(cstart[0, n - 1], cend[0, n - 1]):
        if io[c] < 0 and ikey[c] == I_SPAN * N_STATES + want:
            goal_item = c
            goal_count += icount[c]
    return (count, ip, iq, io, ikey, icount, bkind, brule, bc0, bc1, bc2, goal_item, goal_count)
