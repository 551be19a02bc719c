"""Numba kernels for graph structure: crossings, one-endpoint-crossing, cycles,
locked chains and the greedy trace-edge removal (``dag1ecEdges``).

All kernels take flat int32 arrays of edge end points on one line of positions
(words and ROOT), with self-loops already removed.  They know nothing about
words or labels; :mod:`plgraph.structure` validates input and calls them.
The slow twins live in ``tests/naive.py``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..config import NUMBA_CACHE


@njit(cache=NUMBA_CACHE)
def _cross(a1, b1, a2, b2):
    """Do spans [a1,b1] and [a2,b2] (a<=b) cross strictly?"""
    return (a1 < a2 < b1 < b2) or (a2 < a1 < b2 < b1)


@njit(cache=NUMBA_CACHE)
def _crossers(lo, hi, i, mark_in, mark_out):
    """Edges crossing edge ``i``: (count, distinct inside end points, distinct
    outside end points).  ``mark_in``/``mark_out`` are scratch arrays over
    positions that must not hold ``i`` on entry."""
    l = lo[i]
    r = hi[i]
    n_cross = 0
    n_in = 0
    n_out = 0
    for j in range(lo.shape[0]):
        a = lo[j]
        b = hi[j]
        if l < a < r < b:
            ins, outs = a, b
        elif a < l < b < r:
            ins, outs = b, a
        else:
            continue
        n_cross += 1
        if mark_in[ins] != i:
            mark_in[ins] = i
            n_in += 1
        if mark_out[outs] != i:
            mark_out[outs] = i
            n_out += 1
    return n_cross, n_in, n_out


@njit(cache=NUMBA_CACHE)
def _scratch(hi):
    maxpos = 0
    for i in range(hi.shape[0]):
        if hi[i] > maxpos:
            maxpos = hi[i]
    return np.full(maxpos + 1, -1, np.int64), np.full(maxpos + 1, -1, np.int64)


@njit(cache=NUMBA_CACHE)
def crossing_flags(lo, hi):
    """(projective, one_endpoint_crossing) for undirected spans ``lo[i] <= hi[i]``.

    1EC (Pitler et al. 2013, generalised to graphs as in the reference): for
    every edge, the end points of its crossers that lie inside it, and those
    that lie outside it, must not both take two or more distinct values.
    """
    if lo.shape[0] == 0:
        return True, True
    mark_in, mark_out = _scratch(hi)
    projective = True
    for i in range(lo.shape[0]):
        n_cross, n_in, n_out = _crossers(lo, hi, i, mark_in, mark_out)
        if n_cross:
            projective = False
        if n_in > 1 and n_out > 1:
            return False, False
    return projective, True


@njit(cache=NUMBA_CACHE)
def has_directed_cycle(n_points, child, parent):
    """True if following child->parent links returns to a start point
    (cycles of length >= 2; self-loops must be removed beforehand)."""
    m = child.shape[0]
    indeg = np.zeros(n_points, np.int64)
    # out-adjacency child -> parent in CSR form
    count = np.zeros(n_points + 1, np.int64)
    for e in range(m):
        count[child[e] + 1] += 1
        indeg[parent[e]] += 1
    for v in range(n_points):
        count[v + 1] += count[v]
    adj = np.empty(m, np.int64)
    fill = count[:-1].copy()
    for e in range(m):
        adj[fill[child[e]]] = parent[e]
        fill[child[e]] += 1
    # Kahn: repeatedly remove points nothing points to
    stack = np.empty(n_points, np.int64)
    top = 0
    for v in range(n_points):
        if indeg[v] == 0:
            stack[top] = v
            top += 1
    removed = 0
    while top > 0:
        top -= 1
        v = stack[top]
        removed += 1
        for k in range(count[v], count[v + 1]):
            u = adj[k]
            indeg[u] -= 1
            if indeg[u] == 0:
                stack[top] = u
                top += 1
    return removed < n_points


@njit(cache=NUMBA_CACHE)
def _chain_search(lo, hi, crossed, first, first_left, target):
    """Is there a chain first=e0, e1, ..., ek=target where e(j+1) starts at
    ``left(j)`` and crosses e(j) from the right, with left(0) = first_left and
    left(j+1) = right end of e(j-1)?  Search over states (edge, next left end)."""
    m = lo.shape[0]
    maxpos = 0
    for e in range(m):
        if hi[e] > maxpos:
            maxpos = hi[e]
    visited = np.zeros((m, maxpos + 1), np.bool_)
    stack_e = np.empty(m * (maxpos + 1) + 1, np.int64)
    stack_l = np.empty(m * (maxpos + 1) + 1, np.int64)
    top = 0
    stack_e[0] = first
    stack_l[0] = first_left
    top = 1
    visited[first, first_left] = True
    while top > 0:
        top -= 1
        cur = stack_e[top]
        nl = stack_l[top]
        if lo[cur] == lo[target] and hi[cur] == hi[target]:
            return True
        for e in range(m):
            if not crossed[e] or lo[e] != nl:
                continue
            if lo[cur] < lo[e] < hi[cur] < hi[e]:
                if not visited[e, hi[cur]]:
                    visited[e, hi[cur]] = True
                    stack_e[top] = e
                    stack_l[top] = hi[cur]
                    top += 1
    return False


@njit(cache=NUMBA_CACHE)
def has_locked_chain(lo, hi):
    """Locked chain test over undirected spans (a structure the 1EC deduction
    system cannot derive).

    Follows ``properties/check_for_locked_chain.py`` of the reference, except
    that the final chain walk tries every candidate edge (the reference takes
    the last candidate in Python set order and misses the chain in its own
    ``example.shp``; the intended test is the search).
    """
    m = lo.shape[0]
    crossed = np.zeros(m, np.bool_)
    for i in range(m):
        for j in range(m):
            if lo[i] < lo[j] < hi[i] < hi[j]:
                crossed[i] = True
                crossed[j] = True
    # distinct crossed spans
    n_crossed = 0
    for i in range(m):
        if crossed[i]:
            dup = False
            for j in range(i):
                if crossed[j] and lo[j] == lo[i] and hi[j] == hi[i]:
                    dup = True
                    break
            if dup:
                crossed[i] = False
            else:
                n_crossed += 1
    if n_crossed < 5:
        return False
    for bl in range(m):
        if not crossed[bl]:
            continue
        # (a) not crossed from the left; exactly two right-crossers sharing the outer end
        ok = True
        r1 = -1
        r2 = -1
        n_right = 0
        for e in range(m):
            if not crossed[e]:
                continue
            if lo[e] < lo[bl] < hi[e] < hi[bl]:
                ok = False
                break
            if lo[bl] < lo[e] < hi[bl] < hi[e]:
                n_right += 1
                if r1 < 0:
                    r1 = e
                else:
                    r2 = e
        if not ok or n_right != 2 or hi[r1] != hi[r2]:
            continue
        if lo[r1] < lo[r2]:
            big_right, little_right = r1, r2
        else:
            big_right, little_right = r2, r1
        # (c) big_right: not crossed from the right; exactly two left-crossers sharing the outer end
        l1 = -1
        l2 = -1
        n_left = 0
        for e in range(m):
            if not crossed[e]:
                continue
            if lo[big_right] < lo[e] < hi[big_right] < hi[e]:
                ok = False
                break
            if lo[e] < lo[big_right] < hi[e] < hi[big_right]:
                n_left += 1
                if l1 < 0:
                    l1 = e
                else:
                    l2 = e
        if not ok or n_left != 2 or lo[l1] != lo[l2]:
            continue
        little_left = l1 if hi[l1] < hi[l2] else l2
        # (e) a chain of crossing edges from little_left to little_right
        if _chain_search(lo, hi, crossed, little_left, lo[big_right], little_right):
            return True
    return False


@njit(cache=NUMBA_CACHE)
def greedy_representable(n_words, src, tgt, is_trace):
    """Greedy removal of trace edges until the graph is acyclic and 1EC.

    Re-implements the reference parser's ``Graph.dag1ecEdges``:
    positions are words ``0..n_words-1`` with ROOT at ``n_words``; edges
    go ``src`` (child) -> ``tgt`` (parent); no self-loops.  Each round
    (1) gives +1 to every trace edge that violates 1EC and to every trace edge
    crossing a violating structural edge, (2) counts, for each trace edge, the
    edges that lead back to its child from a breadth-first walk starting at its
    parent (ROOT is never expanded), and (3) removes the trace edge maximising
    ``count/maxCount + cycles/maxCycles``.  Ties go to the earliest edge (the
    reference's choice depends on hash order).  Returns a keep mask.
    """
    m = src.shape[0]
    npos = n_words + 1
    excluded = np.zeros(m, np.bool_)
    lo = np.empty(m, np.int64)
    hi = np.empty(m, np.int64)
    for e in range(m):
        lo[e] = min(src[e], tgt[e])
        hi[e] = max(src[e], tgt[e])
    # out-edges per source point (CSR)
    start = np.zeros(npos + 1, np.int64)
    for e in range(m):
        start[src[e] + 1] += 1
    for v in range(npos):
        start[v + 1] += start[v]
    out = np.empty(m, np.int64)
    fill = start[:-1].copy()
    for e in range(m):
        out[fill[src[e]]] = e
        fill[src[e]] += 1
    mark_in = np.full(npos, -1, np.int64)
    mark_out = np.full(npos, -1, np.int64)
    seen = np.full(npos, -1, np.int64)
    queue = np.empty(2 * npos + 2, np.int64)
    count = np.zeros(m, np.int64)
    found = np.zeros(m, np.int64)
    problem = np.zeros(m, np.bool_)
    stamp = 0
    while True:
        count[:] = 0
        found[:] = 0
        problem[:] = False
        # (1) one-endpoint-crossing violations
        for e in range(m):
            if excluded[e]:
                continue
            l = lo[e]
            r = hi[e]
            stamp += 1
            n_in = 0
            n_out = 0
            for f in range(m):
                if excluded[f] or not _cross(l, r, lo[f], hi[f]):
                    continue
                if l < src[f] < r:
                    ins, outs = src[f], tgt[f]
                else:
                    ins, outs = tgt[f], src[f]
                if mark_in[ins] != stamp:
                    mark_in[ins] = stamp
                    n_in += 1
                if mark_out[outs] != stamp:
                    mark_out[outs] = stamp
                    n_out += 1
            if n_in > 1 and n_out > 1:
                if is_trace[e]:
                    count[e] += 1
                    problem[e] = True
                else:
                    for f in range(m):
                        if excluded[f] or not is_trace[f]:
                            continue
                        if _cross(l, r, lo[f], hi[f]):
                            count[f] += 1
                            problem[f] = True
        # (2) cycles through each trace edge
        for t in range(m):
            if excluded[t] or not is_trace[t]:
                continue
            stamp += 1
            seen[src[t]] = stamp
            head = 0
            tail = 0
            queue[tail] = tgt[t]
            tail += 1
            nfound = 0
            while head < tail:
                cur = queue[head]
                head += 1
                if cur >= n_words:
                    continue
                for k in range(start[cur], start[cur + 1]):
                    e2 = out[k]
                    if excluded[e2]:
                        continue
                    p = tgt[e2]
                    if p == src[t]:
                        nfound += 1
                    if seen[p] != stamp:
                        seen[p] = stamp
                        if tail < queue.shape[0]:
                            queue[tail] = p
                            tail += 1
            if nfound > 0:
                found[t] = nfound
                problem[t] = True
        # (3) remove the worst trace edge, or stop
        max_count = 0
        max_found = 0
        any_problem = False
        for e in range(m):
            if problem[e]:
                any_problem = True
                if count[e] > max_count:
                    max_count = count[e]
                if found[e] > max_found:
                    max_found = found[e]
        if not any_problem:
            break
        best = -1
        best_score = 0.0
        for e in range(m):
            if not problem[e]:
                continue
            cs = 1.0 if max_count == 0 else count[e] / max_count
            fs = 1.0 if max_found == 0 else found[e] / max_found
            score = cs + fs
            if score > best_score:
                best_score = score
                best = e
        excluded[best] = True
    keep = np.empty(m, np.bool_)
    for e in range(m):
        keep[e] = not excluded[e]
    return keep


@njit(cache=NUMBA_CACHE)
def crossing_pairs(lo, hi):
    """All pairs (a, b), a < b, of edges whose spans cross; shape (k, 2)."""
    m = lo.shape[0]
    count = 0
    for a in range(m):
        for b in range(a + 1, m):
            if _cross(lo[a], hi[a], lo[b], hi[b]):
                count += 1
    out = np.empty((count, 2), np.int64)
    t = 0
    for a in range(m):
        for b in range(a + 1, m):
            if _cross(lo[a], hi[a], lo[b], hi[b]):
                out[t, 0] = a
                out[t, 1] = b
                t += 1
    return out


@njit(cache=NUMBA_CACHE)
def violating_edges(lo, hi):
    """Mask of edges whose crossers do not all share an end point (1EC violations)."""
    m = lo.shape[0]
    out = np.zeros(m, np.bool_)
    if m == 0:
        return out
    mark_in, mark_out = _scratch(hi)
    for i in range(m):
        _, n_in, n_out = _crossers(lo, hi, i, mark_in, mark_out)
        out[i] = n_in > 1 and n_out > 1
    return out


@njit(cache=NUMBA_CACHE)
def cycle_edges(n_points, child, parent):
    """Mask of edges that lie on a directed cycle (child -> parent links):
    an edge c -> p is on a cycle iff c is reachable from p."""
    m = child.shape[0]
    start = np.zeros(n_points + 1, np.int64)
    for e in range(m):
        start[child[e] + 1] += 1
    for v in range(n_points):
        start[v + 1] += start[v]
    adj = np.empty(m, np.int64)
    fill = start[:-1].copy()
    for e in range(m):
        adj[fill[child[e]]] = parent[e]
        fill[child[e]] += 1
    # reach[v, u]: u reachable from v
    reach = np.zeros((n_points, n_points), np.bool_)
    stack = np.empty(n_points + m + 1, np.int64)
    for v in range(n_points):
        top = 0
        stack[top] = v
        top += 1
        while top > 0:
            top -= 1
            u = stack[top]
            for k in range(start[u], start[u + 1]):
                w = adj[k]
                if not reach[v, w]:
                    reach[v, w] = True
                    stack[top] = w
                    top += 1
    out = np.zeros(m, np.bool_)
    for e in range(m):
        out[e] = child[e] != parent[e] and reach[parent[e], child[e]]
    return out


# these kernels call only this module's: no other file can leave their cached code stale
from ..files import _numba_cache  # noqa: E402

if NUMBA_CACHE:
    _numba_cache.guard_cache(__file__, crossing_flags)
