"""Numba kernel: the derivations of one graph in the 1EC deduction system.

:func:`count_derivations` is a chart over the rule tables that builds items bottom-up
(CKY order: widths 1..N-1; in each cell first every binary and ternary combination,
then arc steps in order of the number of direct edges among the item's points), but
only adds an edge that belongs to the given graph, and only combines items when every
point that becomes interior has all its edges already built (an edge can never be
added to an interior point later).  Each item carries the number of ways it was
derived (a counting semiring) and one back-pointer, so a graph's derivation count is
the goal's count and, when it is 1, its unique derivation is read off the
back-pointers.

What a rule does to items -- reference codes, roles and slots, the goal's external
point, arc end points, and the parser-level conditions applied when ``strict`` is set
-- comes from :mod:`plgraph.rules._apply`, the library the parser's chart uses too;
this module adds only the graph filter and the counting.  Positions are 0..N-1 with
ROOT = N-1; ``adj[c, p]`` is 1 for an edge c -> p.

Cache note: the kernel inlines :mod:`plgraph.rules._apply`; numba's cache only notices
edits to this file, so the guard at the end purges this module's cache files when
that source changes.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..config import NUMBA_CACHE
from ..files import _numba_cache
from . import _apply
from ._apply import (F_F_STATE, I_SPAN, KIND_ARC, KIND_COMB, KIND_INIT, N_KEYS, N_STATES, NO_ITEM, arc_externals,
                     arc_goal, arc_points, binary_external, goal_key, has_direct, interval_split_ok,
                     new_external_ok, role, ternary_external)


@njit(cache=NUMBA_CACHE)
def _edges_complete(adj, n_points, letters, v, sp, sq, so, sstate, nsub):
    """Are all edges of point ``v`` (about to become interior) built in one of the
    ``nsub`` sub-items (ends sp/sq, external so, state sstate)?"""
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
                if has_direct(letters, sstate[t], role(v, sp[t], sq[t], so[t]), role(m, sp[t], sq[t], so[t])):
                    ok = True
                    break
            if not ok:
                return False
        if e2:
            ok = False
            for t in range(nsub):
                if has_direct(letters, sstate[t], role(m, sp[t], sq[t], so[t]), role(v, sp[t], sq[t], so[t])):
                    ok = True
                    break
            if not ok:
                return False
    return True


# columns of the item table
C_P, C_Q, C_O, C_KEY, C_COUNT, C_KIND, C_RULE, C_A, C_B, C_C = range(10)


class BackPointer(NamedTuple):
    """How an item was built (int64 each, the item table's columns ``C_KIND .. C_C``):
    ``kind`` (``KIND_INIT``, ``KIND_COMB`` or ``KIND_ARC``), ``rule`` (-1 for the
    initial items) and the rows of its child items ``a``, ``b``, ``c`` (-1 where absent)."""

    kind: int
    rule: int
    a: int
    b: int
    c: int


@njit(cache=NUMBA_CACHE)
def _add(items, count, first, p, q, o, key, mult, back):
    """Add ``mult`` derivations of item (p, q, o, key) to the cell that starts at
    row ``first``: accumulate into an existing row or append one (growing the
    table).  The first way an item is built is kept as its :class:`BackPointer`
    ``back``."""
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
    items[count, C_KIND] = back.kind
    items[count, C_RULE] = back.rule
    items[count, C_A] = back.a
    items[count, C_B] = back.b
    items[count, C_C] = back.c
    return items, count + 1


@njit(cache=NUMBA_CACHE)
def count_derivations(adj, g, strict):
    """Count the derivations of the graph ``adj`` under the rules ``g``
    (:meth:`RuleTables.kernel_args() <plgraph.rules.tables.RuleTables.kernel_args>`);
    ``strict`` applies the parser-level conditions.

    Returns ``(items, n_items, goal_item, goal_count)``: ``items[:n_items]`` has one
    row per item with the columns ``C_P, C_Q, C_O`` (end points, external point or
    -1), ``C_KEY``, ``C_COUNT`` (number of derivations) and the back-pointer
    ``C_KIND, C_RULE, C_A, C_B, C_C`` (kind, rule, child rows or -1);
    ``goal_item`` is the goal's row (-1 if none) and ``goal_count`` the number of
    derivations of the graph.
    """
    n = adj.shape[0]
    root = n - 1
    letters = g.letters
    items = np.empty((256, 10), np.int64)
    count = 0
    cstart = np.zeros((n, n), np.int64)
    cend = np.zeros((n, n), np.int64)
    sp = np.empty(3, np.int64)
    sq = np.empty(3, np.int64)
    so = np.empty(3, np.int64)
    ss = np.empty(3, np.int64)

    for width in range(1, n):
        for p in range(0, n - width):
            q = p + width
            first = count
            cstart[p, q] = first
            if width == 1:
                items, count = _add(items, count, first, p, q, -1, I_SPAN * N_STATES + F_F_STATE, 1,
                                    BackPointer(KIND_INIT, -1, -1, -1, -1))
            for k in range(p + 1, q):
                for a in range(cstart[p, k], cend[p, k]):
                    ka = items[a, C_KEY]
                    oa = items[a, C_O]
                    # binary combinations
                    for b in range(cstart[k, q], cend[k, q]):
                        kb = items[b, C_KEY]
                        ob = items[b, C_O]
                        base = ka * N_KEYS + kb
                        for ridx in range(g.bin_start[base], g.bin_start[base + 1]):
                            r = g.bin_rules[ridx]
                            go = binary_external(g, r, oa, ob, p, k, q)
                            if go == NO_ITEM:
                                continue
                            if strict and not interval_split_ok(ka, kb, p, k):
                                continue
                            sp[0] = p; sq[0] = k; so[0] = oa; ss[0] = ka % N_STATES
                            sp[1] = k; sq[1] = q; so[1] = ob; ss[1] = kb % N_STATES
                            if not _edges_complete(adj, n, letters, k, sp, sq, so, ss, 2):
                                continue
                            items, count = _add(items, count, first, p, q, go, g.comb_goal[r],
                                                items[a, C_COUNT] * items[b, C_COUNT],
                                                BackPointer(KIND_COMB, r, a, b, -1))
                    # ternary combinations
                    if not g.has_ternary[ka]:
                        continue
                    for l in range(k + 1, q):
                        for b in range(cstart[k, l], cend[k, l]):
                            kb = items[b, C_KEY]
                            ob = items[b, C_O]
                            base = ka * N_KEYS + kb
                            if g.ter_start[base] == g.ter_start[base + 1]:
                                continue
                            for c2 in range(cstart[l, q], cend[l, q]):
                                kc = items[c2, C_KEY]
                                oc = items[c2, C_O]
                                for ridx in range(g.ter_start[base], g.ter_start[base + 1]):
                                    r = g.ter_rules[ridx]
                                    if g.comb_keys[r, 2] != kc:
                                        continue
                                    go = ternary_external(g, r, oa, ob, oc, p, k, l, q)
                                    if go == NO_ITEM:
                                        continue
                                    sp[0] = p; sq[0] = k; so[0] = oa; ss[0] = ka % N_STATES
                                    sp[1] = k; sq[1] = l; so[1] = ob; ss[1] = kb % N_STATES
                                    sp[2] = l; sq[2] = q; so[2] = oc; ss[2] = kc % N_STATES
                                    if not _edges_complete(adj, n, letters, k, sp, sq, so, ss, 3):
                                        continue
                                    if not _edges_complete(adj, n, letters, l, sp, sq, so, ss, 3):
                                        continue
                                    mult = items[a, C_COUNT] * items[b, C_COUNT] * items[c2, C_COUNT]
                                    items, count = _add(items, count, first, p, q, go, g.comb_goal[r], mult,
                                                        BackPointer(KIND_COMB, r, a, b, c2))
            # arc steps, in order of the number of direct edges among the points
            for d in range(0, 4):
                c = first
                while c < count:
                    key = items[c, C_KEY]
                    if g.n_direct[key % N_STATES] != d:
                        c += 1
                        continue
                    o0 = items[c, C_O]
                    for ridx in range(g.arc_start[key], g.arc_start[key + 1]):
                        r = g.arc_rules[ridx]
                        xcreate = g.arc_xcreate[r]
                        lo_o, hi_o = arc_externals(g, r, o0, n)
                        for o in range(lo_o, hi_o):
                            if xcreate and p <= o <= q:
                                continue
                            pp, cc = arc_points(g, r, p, q, o)
                            if pp < 0 or cc < 0 or adj[cc, pp] == 0 or cc == root:
                                continue  # not an edge of the graph (ROOT is never a child)
                            if xcreate and strict and not new_external_ok(g, r, o, p, q, root):
                                continue
                            gk, go = arc_goal(g, r, o, q, o0)
                            items, count = _add(items, count, first, p, q, go, gk, items[c, C_COUNT],
                                                BackPointer(KIND_ARC, r, c, -1, -1))
                    c += 1
            cend[p, q] = count

    # goal: an Interval over [0, ROOT] whose first point reaches ROOT; edge 0 -> ROOT as in the graph
    goal_item = -1
    goal_count = 0
    want = goal_key(adj[0, root] != 0)
    for c in range(cstart[0, root], cend[0, root]):
        if items[c, C_O] < 0 and items[c, C_KEY] == want:
            goal_item = c
            goal_count += items[c, C_COUNT]
    return items, count, goal_item, goal_count


if NUMBA_CACHE:
    # numba does not notice when the inlined rule-application code of plgraph.rules._apply changes
    _numba_cache.guard_cache(__file__, count_derivations, _apply.__file__)
