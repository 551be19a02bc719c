"""Slow, obviously-correct twins of the numba kernels (compared on small inputs)."""
from __future__ import annotations

from collections import deque


def crosses(e, f) -> bool:
    (a, b), (c, d) = sorted(e), sorted(f)
    return a < c < b < d or c < a < d < b


def crossing_flags(spans):
    """(projective, 1EC) with 1EC as "all edges crossing an edge share an end point"."""
    projective = True
    one_ec = True
    for e in spans:
        crossers = [f for f in spans if crosses(e, f)]
        if crossers:
            projective = False
            common = set(crossers[0])
            for f in crossers[1:]:
                common &= set(f)
            if not common:
                one_ec = False
    return projective, one_ec


def has_directed_cycle(edges) -> bool:
    """Is some point reachable from itself through one or more child->parent links
    (self-loops ignored)?"""
    succ = {}
    for c, p in edges:
        if c != p:
            succ.setdefault(c, set()).add(p)
    for start in succ:
        stack = list(succ[start])
        seen = set()
        while stack:
            v = stack.pop()
            if v == start:
                return True
            if v in seen:
                continue
            seen.add(v)
            stack.extend(succ.get(v, ()))
    return False


def has_locked_chain(spans) -> bool:
    """Locked chain: the steps of the reference's check_for_locked_chain.py, with
    every candidate tried in the chain walk."""
    spans = [tuple(sorted(s)) for s in spans]
    crossed = set()
    for e in spans:
        for f in spans:
            if e[0] < f[0] < e[1] < f[1]:
                crossed.add(e)
                crossed.add(f)
    if len(crossed) < 5:
        return False
    for big_left in crossed:
        if any(e[0] < big_left[0] < e[1] < big_left[1] for e in crossed):
            continue
        right = {e for e in crossed if big_left[0] < e[0] < big_left[1] < e[1]}
        if len(right) != 2 or len({e[1] for e in right}) != 1:
            continue
        big_right, little_right = sorted(right)  # smaller left end = longer edge
        if any(big_right[0] < e[0] < big_right[1] < e[1] for e in crossed):
            continue
        left = {e for e in crossed if e[0] < big_right[0] < e[1] < big_right[1]}
        if len(left) != 2 or len({e[0] for e in left}) != 1:
            continue
        little_left = min(left, key=lambda e: e[1])

        def walk(cur, next_left, depth=0):
            if cur == little_right:
                return True
            if depth > len(crossed):
                return False
            return any(walk(e, cur[1], depth + 1) for e in crossed
                       if e[0] == next_left and cur[0] < e[0] < cur[1] < e[1])

        if walk(little_left, big_right[0]):
            return True
    return False


def greedy_representable(n_words, src, tgt, is_trace):
    """Pure-Python port of the reference parser's dag1ecEdges (ROOT = n_words)."""
    m = len(src)
    excluded = set()
    while True:
        count = {}
        found = {}
        live = [e for e in range(m) if e not in excluded]
        for e in live:
            span = (src[e], tgt[e])
            lo, hi = min(span), max(span)
            inside, outside = set(), set()
            crossers = [f for f in live if crosses(span, (src[f], tgt[f]))]
            for f in crossers:
                if lo < src[f] < hi:
                    inside.add(src[f])
                    outside.add(tgt[f])
                else:
                    inside.add(tgt[f])
                    outside.add(src[f])
            if len(inside) > 1 and len(outside) > 1:
                targets = [e] if is_trace[e] else [f for f in crossers if is_trace[f]]
                for f in targets:
                    count[f] = count.get(f, 0) + 1
        for t in live:
            if not is_trace[t]:
                continue
            seen = {src[t]}
            queue = deque([tgt[t]])
            hits = 0
            while queue:
                cur = queue.popleft()
                if cur >= n_words:
                    continue
                for e2 in live:
                    if src[e2] != cur:
                        continue
                    p = tgt[e2]
                    if p == src[t]:
                        hits += 1
                    if p not in seen:
                        seen.add(p)
                        queue.append(p)
            if hits:
                found[t] = hits
        problems = sorted(set(count) | set(found))
        if not problems:
            break
        max_count = max(count.values(), default=0)
        max_found = max(found.values(), default=0)

        def score(e):
            cs = 1.0 if max_count == 0 else count.get(e, 0) / max_count
            fs = 1.0 if max_found == 0 else found.get(e, 0) / max_found
            return cs + fs

        best = max(problems, key=lambda e: (score(e), -e))
        excluded.add(best)
    return [e not in excluded for e in range(m)]
