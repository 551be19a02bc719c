"""Slow, obviously-correct twins of the numba kernels, compared with them on small inputs.

Sections: graph structure (crossings, cycles, locked chains, representability), the 1EC
deriver, first-order Eisner max-marginals and multiclass decoding (pruners), dependency
trees, Eisner and the learners (plgraph.dep / plgraph.learn), the language models
(plgraph.lm: textbook Kneser-Ney formulas of Chen & Goodman 1998 and PLRE of seed 001,
Eq. 33 and Algorithm 1, over dicts of word-id tuples and dense matrices), and the 1EC graph
parser (plgraph.parser: every labelled graph scored one by one).  Everything is plain
Python over lists, dicts and small numpy arrays: no tries, flat tables or numba.
"""
from __future__ import annotations

import math
import unicodedata
from collections import Counter, defaultdict, deque
from dataclasses import dataclass
from functools import lru_cache
from itertools import product

import numpy as np


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


def crossing_pairs(spans):
    return [(a, b) for a in range(len(spans)) for b in range(a + 1, len(spans)) if crosses(spans[a], spans[b])]


def violating_edges(spans):
    """Edges whose crossers have no common end point."""
    out = []
    for e in spans:
        crossers = [f for f in spans if crosses(e, f)]
        common = set(crossers[0]) if crossers else set()
        for f in crossers[1:]:
            common &= set(f)
        out.append(bool(crossers) and not common)
    return out


def cycle_edges(edges):
    """Edges c -> p such that c can be reached from p."""
    out = []
    for c, p in edges:
        if c == p:
            out.append(False)
            continue
        seen = {p}
        stack = [p]
        found = False
        while stack:
            v = stack.pop()
            for a, b in edges:
                if a == v and a != b and b not in seen:
                    if b == c:
                        found = True
                    seen.add(b)
                    stack.append(b)
        out.append(found)
    return out


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


# ---------------------------------------------------------------------------------------------
# the 1EC deduction system (plgraph.rules)
# ---------------------------------------------------------------------------------------------
def projective_tree_exists(n, edges):
    """Is there a single-root projective spanning tree over words 0..n-1 made of
    ``edges`` ((child, parent), ROOT = n)?  Tries every parent assignment."""
    options = [[p for (c, p) in edges if c == w] for w in range(n)]
    for parents in product(*options):
        if sum(1 for p in parents if p == n) != 1:
            continue
        # every word reaches ROOT
        ok = True
        for w in range(n):
            seen = set()
            v = w
            while v != n and v not in seen:
                seen.add(v)
                v = parents[v]
            if v != n:
                ok = False
                break
        if not ok:
            continue
        spans = [(min(w, parents[w]), max(w, parents[w])) for w in range(n)]
        if all(not crosses(a, b) for a in spans for b in spans):
            return True
    return False


def enumerate_small_graphs(n):
    """Every graph the brute-force check considers, as sorted edge lists."""
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    out = []
    for choice in product((0, 1, 2), repeat=len(pairs)):
        base = [(a, b) if c == 1 else (b, a) for (a, b), c in zip(pairs, choice) if c]
        for root in range(n):
            edges = base + [(root, n)]
            spans = [tuple(sorted(e)) for e in edges]
            if has_directed_cycle(edges) or not crossing_flags(spans)[1]:
                continue
            if projective_tree_exists(n, edges):
                out.append(sorted(edges))
    return out


class NaiveDeriver:
    """Number of derivations of a graph, top-down with memoisation, straight from
    the rule objects (no index tables): count(item) = sum over every rule that
    builds the item of the product of its children's counts."""

    def __init__(self, arcs, combos, strict=True):
        self.strict = strict
        self.by_goal = {}
        for r in combos:
            self.by_goal.setdefault((r.goal_span, r.goal_state), []).append(r)
        self.arcs = arcs

    def count(self, n_points, edges):
        self.n = n_points
        self.edges = set(edges)
        self.memo = {}
        root = n_points - 1
        want = "J_F___" if (0, root) in self.edges else "j_F___"
        return self._ways((0, root, -1, "___I", want))

    @staticmethod
    def _side_ok(span, p, q, o):
        if span[1:3] == "__":
            return o < 0
        if span[1:3] == "._":
            return 0 <= o < p
        return o > q

    def _direct(self, item, a, b):
        """Does point a have point b as direct parent in the item's state?"""
        p, q, o, span, state = item
        role = {p: "i", q: "j"}
        if o >= 0:
            role[o] = "x"
        if a not in role or b not in role or a == b:
            return False
        slot = ("ij", "ix", "ji", "jx", "xi", "xj").index(role[a] + role[b])
        return state[slot].isupper() and state[slot] != "F"

    def _complete(self, v, items):
        for m in range(self.n):
            for c, p in ((v, m), (m, v)):
                if (c, p) not in self.edges:
                    continue
                if any(it[0] < m < it[1] for it in items):
                    continue
                if not any(self._direct(it, c, p) for it in items):
                    return False
        return True

    def _plausible(self, item):
        """An item whose state claims a direct edge the graph lacks has no derivation."""
        p, q, o, span, state = item
        pts = {"i": p, "j": q, "x": o}
        for (a, b), ch in zip(("ij", "ix", "ji", "jx", "xi", "xj"), state):
            if ch.isupper() and ch != "F" and (pts[a], pts[b]) not in self.edges:
                return False
        return True

    def _ways(self, item):
        if item in self.memo:
            return self.memo[item]
        if not self._plausible(item):
            self.memo[item] = 0
            return 0
        p, q, o, span, state = item
        total = 0
        if q == p + 1 and o < 0 and span == "___I" and state == "F_F___":
            total += 1
        for r in self.by_goal.get((span, state), ()):
            splits = [(k,) for k in range(p + 1, q)] if len(r.spans) == 2 else \
                [(k, l) for k in range(p + 1, q) for l in range(k + 1, q)]
            for sp in splits:
                bounds = [p, *sp, q]
                pos = {"i0": p, "j0": bounds[1], "j1": bounds[2]}
                if len(r.spans) == 3:
                    pos["j2"] = q
                children = []
                xp = []
                ok = True
                for t, (cs, st, ref) in enumerate(zip(r.spans, r.states, r.refs)):
                    a, b = bounds[t], bounds[t + 1]
                    if ref in ("__", "i+"):
                        co = -1
                        if ref == "i+" and b != a + 1:
                            ok = False
                    elif ref == "xP":
                        co = o
                        xp.append(co)
                    else:
                        co = pos[ref]
                    if not self._side_ok(cs, a, b, co):
                        ok = False
                    children.append((a, b, co, cs, st))
                if not ok or (not xp and o >= 0) or (xp and o < 0):
                    continue
                if self.strict and len(children) == 2 and children[0][3] == children[1][3] == "___I" \
                        and children[0][4] == "F_F___" and sp[0] - p > 1:
                    continue
                if not all(self._complete(v, children) for v in sp):
                    continue
                prod = 1
                for ch in children:
                    prod *= self._ways(ch)
                    if not prod:
                        break
                total += prod
        for r in self.arcs:
            xcreate = r.span == "___I" and r.crossing
            if xcreate:
                if span not in ("__.X", "_._X") or r.goal_state != state or o < 0:
                    continue
                source = (p, q, -1, "___I", r.state)
            else:
                goal_span = r.span if r.goal_mult == "_" else r.goal_mult + r.span[1:]
                if goal_span != span or r.goal_state != state:
                    continue
                source = (p, q, o, r.span, r.state)
            pts = {"i": p, "j": q, "x": o}
            c, par = pts[r.child], pts[r.parent]
            if c < 0 or par < 0 or (c, par) not in self.edges or c == self.n - 1:
                continue
            if xcreate and self.strict:
                if o == self.n - 1 and r.parent != "x":
                    continue
                if o == p - 1 and "j" not in (r.parent, r.child):
                    continue
                if o == q + 1 and "i" not in (r.parent, r.child):
                    continue
            total += self._ways(source)
        self.memo[item] = total
        return total


# ---------------------------------------------------------------------------------------------
# first-order Eisner max-marginals (plgraph.pruners._chart)
# ---------------------------------------------------------------------------------------------
def eisner_items(h):
    """The items (kind, s, t) of a tree's canonical first-order Eisner derivation."""
    n = len(h) - 1
    kids = {v: [d for d in range(1, n + 1) if h[d] == v] for v in range(n + 1)}

    def yield_(v):
        out = {v}
        for d in kids[v]:
            out |= yield_(d)
        return out

    items = set()
    for d in range(1, n + 1):
        p = h[d]
        items.add(("Ir", p, d) if p < d else ("Il", d, p))
    for v in range(n + 1):
        for d in kids[v]:
            if d > v:
                items.add(("Cr", v, max(yield_(d))))
            else:
                items.add(("Cl", min(yield_(d)), v))
    return items


def span_max_marginals(S):
    n = S.shape[0] - 1
    arc, cell, best = {}, {}, float("-inf")
    for h in projective_trees(n, multi_root=False):
        score = sum(S[h[d], d] for d in range(1, n + 1))
        best = max(best, score)
        for d in range(1, n + 1):
            arc[(h[d], d)] = max(arc.get((h[d], d), float("-inf")), score)
        for kind, s, t in eisner_items(h):
            cell[(s, t)] = max(cell.get((s, t), float("-inf")), score)
    return arc, cell, best


# ---------------------------------------------------------------------------------------------
# classifier kernels (plgraph.pruners._kernels): plain-Python decoders over the same features
# ---------------------------------------------------------------------------------------------
def multiclass_decode(keys_by_label, weights, windex, candidates, gold, cost):
    """Loss-augmented argmax over ``candidates`` and the gradient entries f(pred) - f(gold)
    as a dict index -> value (``keys_by_label[label]`` lists that label's feature keys)."""
    best, best_s = None, float("-inf")
    for lab in candidates:
        s = sum(weights[windex(k, lab)] for k in keys_by_label[lab]) + (cost if lab != gold else 0.0)
        if s > best_s:
            best, best_s = lab, s
    grad = {}
    if best != gold:
        for k in keys_by_label[best]:
            grad[windex(k, best)] = grad.get(windex(k, best), 0.0) + 1.0
        if gold in candidates:
            for k in keys_by_label[gold]:
                grad[windex(k, gold)] = grad.get(windex(k, gold), 0.0) - 1.0
    return best, {i: v for i, v in grad.items() if v != 0.0}


# =============================================================================================
# dependency trees, Eisner and the learners (plgraph.dep, plgraph.learn)
# =============================================================================================
# ---------------------------------------------------------------------------------------------
# trees


def is_tree(heads) -> bool:
    """heads[d] for d = 1..n (heads[0] ignored): every word reaches 0 without a cycle."""
    n = len(heads) - 1
    for d in range(1, n + 1):
        seen = set()
        v = d
        while v != 0:
            if v in seen or not 0 <= heads[v] <= n or heads[v] == v:
                return False
            seen.add(v)
            v = heads[v]
    return True


def is_projective(heads) -> bool:
    """No two arcs cross (ROOT = position 0 is on the line)."""
    n = len(heads) - 1
    arcs = [(min(heads[d], d), max(heads[d], d)) for d in range(1, n + 1)]
    for a, b in arcs:
        for c, e in arcs:
            if a < c < b < e:
                return False
    return True


def root_children(heads) -> int:
    return sum(1 for d in range(1, len(heads)) if heads[d] == 0)


@lru_cache(maxsize=None)
def projective_trees(n: int, multi_root: bool = False) -> tuple:
    """Every projective tree over n words (head tuples with heads[0] = -1), by
    exhaustive search over head assignments with crossing arcs pruned early."""
    out = []
    heads = [-1] * (n + 1)

    def crosses(a, b, c, e):
        return a < c < b < e or c < a < e < b

    def rec(d, arcs):
        if d > n:
            if is_tree(heads) and (multi_root or root_children(heads) == 1):
                out.append(tuple(heads))
            return
        for h in range(0, n + 1):
            if h == d:
                continue
            a, b = min(h, d), max(h, d)
            if any(crosses(a, b, c, e) for c, e in arcs):
                continue
            heads[d] = h
            rec(d + 1, arcs + [(a, b)])
        heads[d] = -1

    rec(1, [])
    return tuple(out)


def all_trees_bruteforce(n: int) -> list:
    """Every head assignment that is a tree (for cross-checking the enumerator)."""
    return [(-1,) + hs for hs in product(range(n + 1), repeat=n) if is_tree((-1,) + hs)]


def siblings(heads):
    """(h, s, d) triples of a tree: d follows s among h's dependents on one side
    (s == h for the first dependent on each side, counted from the head outwards)."""
    n = len(heads) - 1
    out = []
    for h in range(0, n + 1):
        right = [d for d in range(h + 1, n + 1) if heads[d] == h]
        left = [d for d in range(h - 1, 0, -1) if heads[d] == h]
        for side in (right, left):
            prev = h
            for d in side:
                out.append((h, prev, d))
                prev = d
    return out


def tree_score(heads, S, SIB=None) -> float:
    s = sum(S[heads[d]][d] for d in range(1, len(heads)))
    if SIB is not None:
        s += sum(SIB[h][p][d] for h, p, d in siblings(heads))
    return s


def best_tree(S, multi_root, SIB=None):
    n = len(S) - 1
    return max(projective_trees(n, multi_root), key=lambda t: tree_score(t, S, SIB))


def max_marginals(S, multi_root, SIB=None):
    """M[h][d] = best score of a projective tree containing h -> d (-inf if none)."""
    n = len(S) - 1
    M = [[-math.inf] * (n + 1) for _ in range(n + 1)]
    for t in projective_trees(n, multi_root):
        sc = tree_score(t, S, SIB)
        for d in range(1, n + 1):
            if sc > M[t[d]][d]:
                M[t[d]][d] = sc
    return M


# ---------------------------------------------------------------------------------------------
# pseudo-projective lifting (Nivre & Nilsson 2005), by the definitions


def descendants(heads, h):
    n = len(heads) - 1
    out = set()
    for d in range(1, n + 1):
        v = d
        while v != 0 and v != -1:
            v = heads[v]
            if v == h:
                out.add(d)
                break
    return out


def nonprojective_arcs(heads):
    """Arcs h -> d with a word between them that h does not dominate."""
    n = len(heads) - 1
    bad = []
    for d in range(1, n + 1):
        h = heads[d]
        lo, hi = min(h, d), max(h, d)
        dom = descendants(heads, h)
        if any(k not in dom for k in range(lo + 1, hi)):
            bad.append(d)
    return bad


# ---------------------------------------------------------------------------------------------
# learning: the dense AdaGrad of seed 000 Algorithm 1 (no lazy updates)


def dense_adagrad(n_weights, batches, eta, C, reg, delta=1e-6):
    """Run Algorithm 1 densely: for every batch, q += g^2 and UPDATE-ACTIVE on *all*
    weights (g = 0 for inactive ones).  ``batches`` is a list of dicts {index: g}.
    Returns the final weights, the weights before each batch, and the average of the
    iterates after each batch."""
    w = [0.0] * n_weights
    q = [delta] * n_weights
    total = [0.0] * n_weights
    history = []
    for g in batches:
        history.append(list(w))
        for f in range(n_weights):
            gf = g.get(f, 0.0)
            q[f] += gf * gf
            sq = math.sqrt(q[f])
            if reg == "l2":
                w[f] = (w[f] * sq - eta * gf) / (eta * C + sq)
            elif reg == "l1":
                z = w[f] - eta / sq * gf
                d = abs(z) - eta / sq * C
                w[f] = math.copysign(max(0.0, d), z) if d > 0 else 0.0
            else:
                w[f] = w[f] - eta / sq * gf
            total[f] += w[f]
    average = [t / max(1, len(batches)) for t in total]
    return w, history, average


# ---------------------------------------------------------------------------------------------
# label scoring with a pruned taxonomy, straight from the definition


def label_score(features, label, paths, observed, weights):
    """Score of ``label`` for a list of features: for each feature, its top weight plus,
    for every level of the label's path, the weight of that node if the feature was
    observed with a label below it, else the feature's "other" weight of that level.
    ``observed[f]`` = set of taxonomy path prefixes seen with f; ``weights`` is a dict
    keyed by (f, "top"), (f, "other", k) and (f, prefix)."""
    s = 0.0
    path = paths[label]
    for f in features:
        s += weights.get((f, "top"), 0.0)
        for k in range(1, len(path) + 1):
            node = path[:k]
            if node in observed[f]:
                s += weights.get((f, node), 0.0)
            else:
                s += weights.get((f, "other", k), 0.0)
    return s


# ---------------------------------------------------------------------------------------------
# evaluation


def is_punct(form: str) -> bool:
    return bool(form) and all(unicodedata.category(ch).startswith("P") for ch in form)


def attachment_scores(gold, pred):
    """gold/pred: lists of sentences, each a list of (form, head, deprel)."""
    tot = uas = las = 0
    totp = uasp = lasp = 0
    for gs, ps in zip(gold, pred):
        for (f, gh, gl), (_, ph, pl) in zip(gs, ps):
            ok_h = gh == ph
            ok_l = ok_h and gl.split(":")[0] == pl.split(":")[0]
            tot += 1
            uas += ok_h
            las += ok_l
            if not is_punct(f):
                totp += 1
                uasp += ok_h
                lasp += ok_l
    return {"uas": 100 * uas / tot, "las": 100 * las / tot, "uas_nopunct": 100 * uasp / totp,
            "las_nopunct": 100 * lasp / totp}


# =============================================================================================
# language models (plgraph.lm)
# =============================================================================================
UNK_ID, BOS_ID, EOS_ID = 0, 1, 2


# ----------------------------------------------------------------------------------------------
# counting

def padded(sentences_ids):
    return [[BOS_ID, *s, EOS_ID] for s in sentences_ids]


def raw_counts(sentences_ids, order):
    """{k: Counter of k-gram tuples} over every window of the padded sentences."""
    out = {k: Counter() for k in range(1, order + 1)}
    for s in padded(sentences_ids):
        for k in range(1, order + 1):
            for i in range(len(s) - k + 1):
                out[k][tuple(s[i:i + k])] += 1
    return out


def adjusted_counts(raw, order):
    """KN counts: raw at the highest order; distinct left extensions below, raw for <s>-initial; <s> = 0."""
    adj = {order: Counter(raw[order])}
    for k in range(order - 1, 0, -1):
        left = defaultdict(set)
        for g in raw[k + 1]:
            left[g[1:]].add(g[0])
        adj[k] = Counter()
        for g, c in raw[k].items():
            adj[k][g] = c if g[0] == BOS_ID else len(left[g])
    if (BOS_ID,) in adj[1]:
        adj[1][(BOS_ID,)] = 0
    return adj


def count_of_counts(adj_k):
    n = [0] * 5
    for c in adj_k.values():
        if 1 <= c <= 4:
            n[c] += 1
    return n


def discounts(n, kind):
    """[D(0), D(1), D(2), D(3+)] with KenLM's fallback."""
    if kind == "kn":
        if n[1] <= 0 or n[2] <= 0:
            return [0, 0.5, 0.5, 0.5]
        y = n[1] / (n[1] + 2 * n[2])
        return [0, y, y, y] if 0 < y < 1 else [0, 0.5, 0.5, 0.5]
    if min(n[1:5]) <= 0:
        return [0, 0.5, 1.0, 1.5]
    y = n[1] / (n[1] + 2 * n[2])
    d = [0, 1 - 2 * y * n[2] / n[1], 2 - 3 * y * n[3] / n[2], 3 - 4 * y * n[4] / n[3]]
    return d if all(0 < d[r] < r for r in (1, 2, 3)) else [0, 0.5, 1.0, 1.5]


def D(table, c):
    return table[min(c, 3)] if c > 0 else 0.0


# ----------------------------------------------------------------------------------------------
# Kneser-Ney family

class NaiveKN:
    """Interpolated / back-off (M)KN straight from the recursive formulas."""

    def __init__(self, sentences_ids, order, vocab_size, kind="mkn", interpolate=True):
        self.order = order
        self.V = vocab_size
        self.raw = raw_counts(sentences_ids, order)
        self.adj = adjusted_counts(self.raw, order)
        self.D = {k: discounts(count_of_counts(self.adj[k]), kind) for k in range(1, order + 1)}
        self.interpolate = interpolate
        self.succ = {k: defaultdict(dict) for k in range(2, order + 1)}
        for k in range(2, order + 1):
            for g, c in self.adj[k].items():
                self.succ[k][g[:-1]][g[-1]] = c

    def unigram(self, w):
        if w == BOS_ID:
            return 0.0
        a = self.adj[1]
        total = sum(a.values())
        gamma = sum(D(self.D[1], c) for c in a.values()) / total
        c = a.get((w,), 0)
        return (c - D(self.D[1], c)) / total + gamma / (self.V - 1)

    def prob(self, w, h):
        """P(w | h) with h the last (at most order-1) history words."""
        h = tuple(h)[-(self.order - 1):] if self.order > 1 else ()
        return self._p(w, h)

    def _p(self, w, h):
        if not h:
            return self.unigram(w)
        k = len(h) + 1
        succ = self.succ[k].get(h)
        if not succ:
            return self._p(w, h[1:])
        table = self.D[k]
        total = sum(succ.values())
        gamma = sum(D(table, c) for c in succ.values()) / total
        c = succ.get(w, 0)
        if self.interpolate:
            return (c - D(table, c)) / total + gamma * self._p(w, h[1:])
        if c > 0:
            # a context whose successors leave < 1e-9 lower-order mass backs off fully
            left = 1 - math.fsum(self._p(v, h[1:]) for v in succ)
            if left < 1e-9:
                return self._p(w, h[1:])
            return (c - D(table, c)) / total
        left = 1 - math.fsum(self._p(v, h[1:]) for v in succ)
        if left < 1e-9:
            return self._p(w, h[1:])
        return gamma / left * self._p(w, h[1:])


def stream_logprobs(model, sentences_ids):
    """ln P of every predicted token (words and </s>) with model.prob(w, history)."""
    out = []
    for s in padded(sentences_ids):
        for i in range(1, len(s)):
            out.append(math.log(model.prob(s[i], s[max(0, i - model.order + 1):i])))
    return np.array(out)


# ----------------------------------------------------------------------------------------------
# generalised-KL NMF, dense

MASK = (1 << 64) - 1


def init_value(seed, which, index, k):
    """Python copy of the kernels' splitmix64 start values."""
    x = (seed * 0x9E3779B97F4A7C15) & MASK
    x ^= (which * 0xBF58476D1CE4E5B9) & MASK
    x ^= (index * 0x94D049BB133111EB) & MASK
    x = (x + k * 0x2545F4914F6CDD1D) & MASK
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & MASK
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & MASK
    x ^= x >> 31
    return 0.5 + (x >> 11) / 9007199254740992.0


def nmf_dense(T, U, W, iterations):
    """Lee & Seung KL updates on a dense target T (zeros = unobserved), U then W each
    iteration, then every column of U W rescaled to its column sum in T."""
    T = np.asarray(T, float)
    U = U.copy()
    W = W.copy()
    mask = T > 0
    for _ in range(iterations):
        Z = U @ W
        R = np.where(mask, T / np.where(mask, Z, 1.0), 0.0)
        wsum = W.sum(axis=1)
        U = U * (R @ W.T) / np.where(wsum > 0, wsum, 1.0) * (wsum > 0)
        Z = U @ W
        R = np.where(mask, T / np.where(mask, Z, 1.0), 0.0)
        usum = U.sum(axis=0)
        W = W * (U.T @ R) / np.where(usum > 0, usum, 1.0)[:, None] * (usum > 0)[:, None]
    colsum_z = (U @ W).sum(axis=0)
    target = T.sum(axis=0)
    scale = np.where(colsum_z > 0, target / np.where(colsum_z > 0, colsum_z, 1.0), 0.0)
    return U, W * scale[None, :]


def gkl(T, Z):
    """Generalised KL divergence sum T log(T/Z) - T + Z (0 log 0 = 0)."""
    T = np.asarray(T, float)
    m = T > 0
    return float(np.sum(T[m] * np.log(T[m] / Z[m])) - T.sum() + Z.sum())


# ----------------------------------------------------------------------------------------------
# PLRE

class NaivePLRE(NaiveKN):
    """PLRE from seed Eq. 33 / Algorithm 1 with dense per-slice NMF (same start values as the kernels)."""

    def __init__(self, sentences_ids, order, vocab_size, terms, kind="mkn", iterations=10, seed=0, restarts=1):
        super().__init__(sentences_ids, order, vocab_size, kind, interpolate=True)
        self.terms = {}   # level -> list of (power, kappa), decreasing power
        for level, power, kappa in terms:
            if level <= order:
                self.terms.setdefault(level, []).append((power, kappa))
        for level in self.terms:
            self.terms[level].sort(key=lambda t: -t[0])
        # index of each (k-1)-gram in lexicographic order = its entry index in the trie
        self.index = {}
        for k in range(1, order + 1):
            grams = sorted(self.adj[k]) if k > 1 else [(w,) for w in range(vocab_size)]
            self.index[k] = {g: i for i, g in enumerate(grams)}
        self.factors = {}  # (level, j) -> {slice m: (rows, cols, U, W)}
        fit_no = 0
        for k in range(2, order + 1):
            for j, (power, kappa) in enumerate(self.terms.get(k, []), start=1):
                self.factors[(k, j)] = self._fit(k, j, kappa, iterations, seed + 7919 * fit_no, restarts)
                fit_no += 1

    def _term_parts(self, k, h):
        """Per successor w of h: the discounts D_j(hw) and powered counts, for j = 0..eta."""
        succ = self.succ[k][h]
        powers = [p for p, _ in self.terms.get(k, [])]
        eta = len(powers)
        rhos = [1.0] + powers + [0.0]
        out = []
        for j in range(eta + 1):
            dj, cj = {}, {}
            for w, c in succ.items():
                dstar = D(self.D[k], c) ** (1.0 / (eta + 1))
                cj[w] = c ** rhos[j]
                dj[w] = min(dstar * c ** rhos[j + 1], cj[w])
            out.append((dj, cj))
        return out

    def _fit(self, k, j, kappa, iterations, seed, restarts):
        """Dense per-slice fits; with restarts, Z is the mean of independently started fits."""
        slices = defaultdict(dict)  # m -> {(x, w): target}
        for h in self.succ[k]:
            parts = self._term_parts(k, h)
            dj, cj = parts[j]
            for w in dj:
                slices[h[1:]][(h[0], w)] = cj[w] - dj[w]
        out = {}
        prev = self.index[k - 1]
        for m, entries in slices.items():
            rows = sorted(g for g in prev if g[:-1] == m) if k > 2 else sorted(prev)
            cols = sorted(g for g in prev if g[1:] == m) if k > 2 else sorted(prev)
            ri = {g: i for i, g in enumerate(rows)}
            ci = {g: i for i, g in enumerate(cols)}
            T = np.zeros((len(rows), len(cols)))
            for (x, w), t in entries.items():
                T[ri[m + (w,)], ci[(x,) + m]] = t
            nz_rows = int((T > 0).any(axis=1).sum())
            nz_cols = int((T > 0).any(axis=0).sum())
            kap = min(kappa, nz_rows, nz_cols)
            if kap == 0:
                continue
            Z = np.zeros_like(T)
            for r in range(restarts):
                s = seed + 104_729 * r
                U0 = np.array([[init_value(s, 0, prev[g], q) for q in range(kap)] for g in rows])
                W0 = np.array([[init_value(s, 1, prev[g], q) for g in cols] for q in range(kap)])
                U, W = nmf_dense(T, U0, W0, iterations)
                Z += U @ W / restarts
            out[m] = (ri, ci, Z)
        return out

    def _p(self, w, h):
        if not h:
            return self.unigram(w)
        k = len(h) + 1
        succ = self.succ[k].get(h)
        if not succ:
            return self._p(w, h[1:])
        parts = self._term_parts(k, h)
        inner = self._p(w, h[1:])
        m = h[1:]
        for j in range(len(parts) - 1, 0, -1):
            dj, cj = parts[j]
            S = sum(cj.values())
            gamma = sum(dj.values()) / S
            z = 0.0
            fac = self.factors[(k, j)].get(m)
            if fac is not None:
                ri, ci, Z = fac
                if m + (w,) in ri and h in ci:
                    z = float(Z[ri[m + (w,)], ci[h]]) / S
            inner = z + gamma * inner
        d0, c0 = parts[0]
        S0 = sum(c0.values())
        gamma0 = sum(d0.values()) / S0
        t0 = (c0[w] - d0[w]) / S0 if w in succ else 0.0
        return t0 + gamma0 * inner


# ----------------------------------------------------------------------------------------------
# ARPA

def read_arpa(path):
    """{k: {words tuple: (log10 p, log10 bow)}} of an ARPA file."""
    tables = {}
    k = None
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if line.startswith("\\") and line.endswith("-grams:"):
                k = int(line[1:line.index("-")])
                tables[k] = {}
                continue
            if not line or line.startswith("\\") or k is None:
                continue
            parts = line.split("\t")
            bow = float(parts[2]) if len(parts) > 2 else 0.0
            tables[k][tuple(parts[1].split(" "))] = (float(parts[0]), bow)
    return tables


def arpa_prob(tables, w, h):
    """Standard ARPA back-off: P(w | h) from the longest matching n-gram."""
    h = tuple(h)
    order = max(tables)
    h = h[-(order - 1):] if order > 1 else ()
    for start in range(len(h) + 1):
        ctx = h[start:]
        g = ctx + (w,)
        if g in tables.get(len(g), {}):
            lp = tables[len(g)][g][0]
            for s2 in range(start):  # longer contexts that did not contain w
                c2 = h[s2:]
                if c2 in tables.get(len(c2), {}):
                    lp += tables[len(c2)][c2][1]
            return 10 ** lp
    raise KeyError(w)


# =============================================================================================
# the 1EC graph parser (plgraph.parser): every graph the chart can build, scored one by one
# =============================================================================================
#: item flags (plgraph.parser.chart._kernel); an item's identity is (p, q, o, key, flags, sp, sq, so)
ROOT_EDGE, SP_P, SP_Q, SP_O, XS_P, XS_Q, XS_IN = 1, 2, 4, 8, 16, 32, 64
#: weights of the Hamming loss (:func:`hamming`)
LOSS_WEIGHTS = {"missed": 1.0, "extra": 1.0, "wrong_label": 2.0, "spine": 1.0}
_SLOTS = ("ij", "ix", "ji", "jx", "xi", "xj")  # state letter slots: "first point has second as parent"


@lru_cache(maxsize=None)
def small_graphs(n):
    """:func:`enumerate_small_graphs` computed once per process (n = 5 takes seconds), as a
    tuple of sorted edge tuples."""
    return tuple(tuple(g) for g in enumerate_small_graphs(n))


def derivation_items(n, derivation):
    """(p, q, o, key) of every item of a derivation of a graph over ``n`` words: the
    width-1 init items ``I[w, w+1] F_F___`` (w = 0..n-1; not among the steps), then the
    item each step builds, in the steps' (bottom-up) order."""
    from plgraph.rules.tables import item_key
    init = item_key("___I", "F_F___")
    return [(w, w + 1, -1, init) for w in range(n)] + [(s.p, s.q, s.o, s.key) for s in derivation.steps]


def direct_letter(key, a, b, p, q, o):
    """Does point ``a`` have point ``b`` as *direct* parent in the state of an item with
    ends p, q, external point o (-1 none) and key ``key``?  False unless both are
    distinct visible points of the item."""
    from plgraph.rules.tables import N_STATES, state_letters
    role = {p: "i", q: "j"}
    if o >= 0:
        role[o] = "x"
    if a not in role or b not in role or a == b:
        return False
    return int(state_letters()[key % N_STATES, _SLOTS.index(role[a] + role[b])]) == 2


def item_edge_set(item, edges):
    """The edges (child, parent) of ``edges`` an item (p, q, o, key) has built: those
    with both ends in [p, q] or at o and at least one end strictly inside (p, q), plus
    those between two visible points (p, q, o) whose state letter is direct."""
    p, q, o, key = item
    out = set()
    for c, par in edges:
        ends = (c, par)
        if all(p <= v <= q or v == o for v in ends) and any(p < v < q for v in ends):
            out.add((c, par))
        elif direct_letter(key, c, par, p, q, o):
            out.add((c, par))
    return out


def item_flags(item, built, structural, root):
    """The flags of an item (p, q, o, key) whose built edges are ``built`` when the
    structural (S or ST) edges of the graph are ``structural``; ``root`` = ROOT's point.

    ROOT_EDGE: a built S edge into ROOT; SP_P / SP_Q / SP_O: p / q / o has its S parent
    edge built; XS_P / XS_Q / XS_IN: a built S edge joins o and p / o and q / o and a
    point strictly inside (p, q) (either direction)."""
    p, q, o, _ = item
    flags = 0
    for c, par in built:
        if (c, par) not in structural:
            continue
        if par == root:
            flags |= ROOT_EDGE
        if c == p:
            flags |= SP_P
        if c == q:
            flags |= SP_Q
        if o >= 0 and c == o:
            flags |= SP_O
        if o >= 0 and o in (c, par):
            other = par if c == o else c
            if other == p:
                flags |= XS_P
            elif other == q:
                flags |= XS_Q
            elif p < other < q:
                flags |= XS_IN
    return flags


def derivation_tree_edges(n, derivation):
    """For every item of ``derivation_items(n, derivation)`` (same order), the set of
    edges the arc steps of its sub-derivation add (its own step included): the
    derivation tree is rebuilt from the post-order step list, children being the
    completed items on top of the stack inside the step's span (an arc step's child has
    the step's span) and width-1 init items filling the gaps."""
    items = derivation_items(n, derivation)
    init_index = {it[0]: k for k, it in enumerate(items[:n])}
    built = [set() for _ in items]           # edges per item index
    stack = []                               # item indices of completed sub-derivations
    for k, s in enumerate(derivation.steps, start=n):
        if s.kind == "arc":
            if stack and items[stack[-1]][:2] == (s.p, s.q):
                child = stack.pop()
            else:
                assert s.q == s.p + 1, "an arc step's child is a built item or an init item"
                child = init_index[s.p]
            built[k] = built[child] | {s.edge}
        else:
            children = []
            while stack and s.p <= items[stack[-1]][0] and items[stack[-1]][1] <= s.q:
                children.insert(0, stack.pop())
            # fill the gaps between the popped children with init items
            full, at = [], s.p
            for ch in children + [None]:
                stop = s.q if ch is None else items[ch][0]
                while at < stop:
                    full.append(init_index[at])
                    at += 1
                if ch is not None:
                    full.append(ch)
                    at = items[ch][1]
            assert at == s.q and len(full) in (2, 3), (s, [items[c] for c in full])
            built[k] = set().union(*(built[c] for c in full))
        stack.append(k)
    assert len(stack) == 1 and items[stack[0]][:2] == (0, n), "one goal item over [0, ROOT]"
    return built


def structural_trees(n, edges):
    """Every choice of one structural parent per word among ``edges`` (the graph's
    edges, exactly one of them into ROOT = n) such that the word with the ROOT edge
    takes ROOT and no two chosen edges cross, as a frozenset of (child, parent).  The
    graph is acyclic, so every such choice is a tree rooted at ROOT."""
    options = [[p for (c, p) in edges if c == w] for w in range(n)]
    out = []
    for parents in product(*options):
        if sum(1 for p in parents if p == n) != 1:
            continue
        tree = [(w, parents[w]) for w in range(n)]
        if any(crosses(a, b) for a in tree for b in tree):
            continue
        out.append(frozenset(tree))
    return out


def gold_edges(gold):
    """{(c, p, kind): label} of a gold (gold_S, gold_T, gold_spine) triple (labels >= 0)."""
    gold_S, gold_T, _ = gold
    out = {}
    for kind, table in (("S", gold_S), ("T", gold_T)):
        for c, row in enumerate(table):
            for p, label in enumerate(row):
                if label >= 0:
                    out[(c, p, kind)] = int(label)
    return out


def hamming(edges, spines, gold, weights=None):
    """Hamming loss of a labelled graph against gold, straight from the definition.

    ``edges`` = {(c, p, kind): label} (kind 'S' or 'T'; an ST edge is two entries),
    ``spines`` = one option per word, ``gold`` = (gold_S, gold_T, gold_spine): label or
    -1 per (c, p), and per word the gold option (-1: none of the options is gold).
    Every predicted (c, p, kind, label) costs 0 if gold has (c, p, kind) with that
    label, ``wrong_label`` if with another, ``extra`` if gold has no (c, p, kind); every
    gold (c, p, kind) the prediction lacks costs ``missed``; every word whose spine
    differs from gold costs ``spine``.  Weights default to :data:`LOSS_WEIGHTS`."""
    w = dict(LOSS_WEIGHTS, **(weights or {}))
    g = gold_edges(gold)
    loss = 0.0
    for part, label in edges.items():
        if part not in g:
            loss += w["extra"]
        elif g[part] != label:
            loss += w["wrong_label"]
    for part in g:
        if part not in edges:
            loss += w["missed"]
    gold_spine = gold[2]
    for word, option in enumerate(spines):
        if option != gold_spine[word]:
            loss += w["spine"]
    return loss


@dataclass
class NaiveGraph:
    """One labelled, kinded, spined graph: ``edges`` = {(c, p, kind): label} with kind
    'S' or 'T' (an ST edge has both entries), ``spines`` = one option per word,
    ``score`` = model score, ``loss`` = :func:`hamming` against gold (0.0 without gold),
    ``items`` = the identities (p, q, o, key, flags, sp, sq, so) of its derivation's
    items.  Its objective is ``score + loss``."""

    edges: dict
    spines: tuple
    score: float
    loss: float
    items: list

    @property
    def objective(self) -> float:
        return self.score + self.loss


@dataclass
class NaiveResult:
    """:meth:`NaiveGraphParser.solve`: the best objective (-inf if no graph is allowed)
    and a graph reaching it (the first one in enumeration order; None if none),
    max-marginals of item identities and of kinded edges (c, p, 'S'|'T'), the number
    of kinded, spined graphs with an allowed labelling (``n_graphs``) and the number of
    allowed labelled graphs (``n_labelled``)."""

    best: float
    best_graph: NaiveGraph | None
    item_mm: dict
    arc_mm: dict
    n_graphs: int
    n_labelled: int = 0


@dataclass
class _Structure:
    """An unlabelled derivable graph with one structural tree: its edges, S edges, the
    other (trace-only) edges, and its derivation's items as (p, q, o, key, flags)."""

    edges: tuple
    structural: frozenset
    trace_only: tuple
    may_carry_trace: tuple     # S edges that may also be a trace (all but the ROOT edge)
    items: list


class NaiveGraphParser:
    """Brute-force twin of the 1EC graph parser over ``n`` words (ROOT = point n).

    The unlabelled graphs are :func:`enumerate_small_graphs` (one ROOT edge, nothing
    else at ROOT, at most one edge per word pair, acyclic, 1EC, with a projective
    spanning tree) that ``tables`` derive (strict); each is derived once here.  A
    *kinded* graph picks a structural tree (:func:`structural_trees`: every word one S
    parent, the ROOT edge S, no crossing S edges), makes every other edge a trace (T)
    and lets every S edge but the ROOT edge also carry a trace (ST); with
    ``max_traces`` graphs with more trace-carrying (T or ST) edges are left out.  A
    *spined* graph picks one spine option per word (ROOT: option 0); a *labelled*
    graph one label per S part and per T part.

    Scores (see :meth:`graphs`): S, T of shape (N, N, K, K, L) indexed
    [child, parent, child's spine, parent's spine, label], spine_score (N, K); -inf
    means "not allowed", and a graph with any part without a finite choice is left out.
    ``weights`` override :data:`LOSS_WEIGHTS`.
    """

    def __init__(self, n, tables, max_traces=None, weights=None):
        from plgraph.rules import derive_edges
        self.n = n
        self.root = n
        self.max_traces = max_traces
        self.weights = dict(LOSS_WEIGHTS, **(weights or {}))
        self.unlabelled = []       # edges of every derivable graph
        self.structures = []       # one per (derivable graph, structural tree)
        for edges in small_graphs(n):
            if max_traces is not None and len(edges) - n > max_traces:
                continue           # every edge outside the n-edge tree is a trace
            d = derive_edges(n + 1, edges, tables, strict=True)
            if d.count == 0:
                continue
            assert d.count == 1, f"{edges}: {d.count} derivations (item sets would differ per derivation)"
            self.unlabelled.append(edges)
            items = derivation_items(n, d)
            built = [item_edge_set(it, edges) for it in items]
            for tree in structural_trees(n, edges):
                trace_only = tuple(e for e in edges if e not in tree)
                if max_traces is not None and len(trace_only) > max_traces:
                    continue
                flagged = [(*it, item_flags(it, b, tree, self.root)) for it, b in zip(items, built)]
                carry = tuple(e for e in edges if e in tree and e[1] != self.root)
                self.structures.append(_Structure(edges, tree, trace_only, carry, flagged))

    # -- scoring -----------------------------------------------------------------------------
    def _inputs(self, S, T, spine_score, nsp, gold):
        S = np.asarray(S, float)
        T = np.asarray(T, float)
        N = self.n + 1
        K = S.shape[2]
        if spine_score is None:
            spine_score = np.zeros((N, K))
            nsp = [1] * self.n if nsp is None else nsp
        spine_score = np.asarray(spine_score, float)
        if nsp is None:
            nsp = [spine_score.shape[1]] * self.n
        nsp = [int(k) for k in nsp]
        if len(nsp) == N:
            assert nsp[self.n] == 1, "ROOT has exactly one spine option"
            nsp = nsp[:self.n]
        assert len(nsp) == self.n and all(1 <= k <= K for k in nsp), nsp
        if gold is not None:   # plain lists: hamming reads them once per graph
            gold = (np.asarray(gold[0]).tolist(), np.asarray(gold[1]).tolist(), [int(g) for g in gold[2]])
        return S, T, spine_score, nsp, gold

    def _labels(self, table, kind, c, p, i, j, gold):
        """(allowed, best) labels of part (c, p, kind) with spines i (of c), j (of p):
        every label with a finite score, and the one maximising score + its loss term
        (:func:`hamming`'s term of this part alone; none without gold), lowest on ties
        (None if no label is allowed)."""
        scores = table[c, p, i, j]
        allowed = [l for l in range(scores.shape[0]) if np.isfinite(scores[l])]

        def objective(l):
            if gold is None:
                return scores[l]
            g = int((gold[0] if kind == "S" else gold[1])[c][p])
            if g < 0:
                return scores[l] + self.weights["extra"]
            return scores[l] + (0.0 if g == l else self.weights["wrong_label"])

        best = max(allowed, key=lambda l: (objective(l), -l)) if allowed else None
        return allowed, best

    def _enumerate(self, S, T, spine_score, nsp, gold, best_only):
        """Yield (graph, number of its kinded, spined graph's allowed labellings) for every
        allowed labelled graph, or with ``best_only`` only the per-part best labelling of
        every kinded, spined graph that has an allowed one."""
        S, T, spine_score, nsp, gold = self._inputs(S, T, spine_score, nsp, gold)
        memo = {}    # (kind, c, p, spine of c, spine of p) -> self._labels(...)
        for st in self.structures:
            for carry in product((False, True), repeat=len(st.may_carry_trace)):
                traced = sorted([e for e, t in zip(st.may_carry_trace, carry) if t] + list(st.trace_only))
                if self.max_traces is not None and len(traced) > self.max_traces:
                    continue
                parts = [(c, p, "S") for (c, p) in sorted(st.structural)] + [(c, p, "T") for (c, p) in traced]
                for spines in product(*(range(k) for k in nsp)):
                    spine_of = list(spines) + [0]          # ROOT: option 0
                    base = sum(spine_score[w, spines[w]] for w in range(self.n))
                    if not np.isfinite(base):
                        continue                            # a spine option that is not allowed
                    labels = []
                    for c, p, kind in parts:
                        at = (kind, c, p, spine_of[c], spine_of[p])
                        if at not in memo:
                            memo[at] = self._labels(S if kind == "S" else T, kind, c, p, spine_of[c], spine_of[p], gold)
                        labels.append(memo[at])
                    if not all(allowed for allowed, _ in labels):
                        continue                            # a part with no allowed label
                    n_labellings = 1
                    for allowed, _ in labels:
                        n_labellings *= len(allowed)
                    items = [(p, q, o, key, flags, spine_of[p], spine_of[q], spine_of[o] if o >= 0 else -1)
                             for (p, q, o, key, flags) in st.items]
                    choices = [[best] if best_only else allowed for allowed, best in labels]
                    for labelling in product(*choices):
                        edges = dict(zip(parts, labelling))
                        score = base + sum((S if kind == "S" else T)[c, p, spine_of[c], spine_of[p], l]
                                           for (c, p, kind), l in edges.items())
                        loss = 0.0 if gold is None else hamming(edges, spines, gold, self.weights)
                        yield NaiveGraph(edges, tuple(spines), float(score), float(loss), items), n_labellings

    # -- the API -------------------------------------------------------------------------------
    def graphs(self, S, T, spine_score=None, nsp=None, gold=None, best_labels=False):
        """Yield every allowed labelled graph as a :class:`NaiveGraph` (with
        ``best_labels`` only the best labelling of each kinded, spined graph: per part the
        label maximising score + its loss term).

        S, T: (N, N, K, K, L) scores of structural / trace labels (L may differ between
        them), -inf = not allowed; spine_score: (N, K) (default zeros, and then one
        option per word), its ROOT row unused, -inf = option not allowed; nsp: options
        per word (length n, or N with 1 for ROOT; default: spine_score's K, or all 1 when
        spine_score is None); gold: (gold_S, gold_T, gold_spine) or None (loss 0.0)."""
        for graph, _ in self._enumerate(S, T, spine_score, nsp, gold, best_labels):
            yield graph

    def solve(self, S, T, spine_score=None, nsp=None, gold=None) -> NaiveResult:
        """Best objective (score + loss with gold, else score) over every allowed labelled
        graph, with max-marginals: per item identity and per kinded edge (c, p, 'S'|'T';
        an ST edge counts for both), the best objective of a graph that contains it.
        Enumerates :meth:`graphs` with ``best_labels``: once the kinded, spined graph is
        fixed the objective is a sum of per-part terms, so per-part best labels give the
        best labelling (the self-test checks this against every labelling)."""
        best, best_graph = -math.inf, None
        item_mm, arc_mm = {}, {}
        n_graphs = n_labelled = 0
        for graph, n_labellings in self._enumerate(S, T, spine_score, nsp, gold, True):
            n_graphs += 1
            n_labelled += n_labellings
            value = graph.objective
            if value > best:
                best, best_graph = value, graph
            for ident in graph.items:
                item_mm[ident] = max(item_mm.get(ident, -math.inf), value)
            for part in graph.edges:
                arc_mm[part] = max(arc_mm.get(part, -math.inf), value)
        return NaiveResult(best, best_graph, item_mm, arc_mm, n_graphs, n_labelled)


# -- pass 2's score tables --------------------------------------------------------------
def hindex(key, label, hk):
    """Twin of ``plgraph.parser.scoring._pass2.hindex`` in Python integers: the hash of (key,
    label) into the ``2**bits`` weights if the positive bitmap of ``hk`` (a ``HashKeys``,
    read as the plain 5-tuple it is) is empty or has its bit set, else into the negative
    pool that follows them."""
    M = (1 << 64) - 1

    def mix64(x):
        x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M
        x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M
        return x ^ (x >> 31)

    def combine(h, v):
        return mix64(h ^ ((v + 0x9E3779B97F4A7C15 + ((h << 6) & M) + (h >> 2)) & M))

    mask, positive, pos_mask, pool_base, pool_mask = hk
    h = mix64(combine(int(key), int(label) + 1))
    if len(positive) == 0:
        return h & int(mask)
    bit = h & int(pos_mask)
    if (int(positive[bit // 8]) >> (bit % 8)) & 1:
        return h & int(mask)
    return int(pool_base) + (h & int(pool_mask))


def backed_arc_score(keys, nk, lab, w, hashing):
    """The weights of keys ``keys[:nk]`` x label ``lab`` plus x each of its back-off
    classes ``back[lab]`` (hashed as ``BACKOFF_BASE + class``), summed in plain Python;
    ``hashing``: a model's ``(back, hk)`` (``_pass2.Hashing``, read as a plain pair)."""
    from plgraph.parser.scoring._pass2 import BACKOFF_BASE

    back, hk = hashing
    total = sum(w[hindex(keys[i], lab, hk)] for i in range(nk))
    for cl in back[lab]:
        total += sum(w[hindex(keys[i], BACKOFF_BASE + int(cl), hk)] for i in range(nk))
    return total


def pass2_label_tables(s, tokens, w, hashing, augment, weights):
    """Twin of ``plgraph.parser.scoring._pass2.label_tables``: per pair of the prepared sentence
    ``s``, {kind: (best score, label)}, summing the weights ``w`` (a plain array) of the
    pair's feature keys x label and x the label's back-off classes (``hashing``: the
    model's ``(back, hk)``) for every candidate label in plain Python (loss-augmented
    with ``augment``)."""
    from plgraph.pruners._kernels import MAX_PAIR_KEYS, pair_keys

    out = []
    keys = np.empty(MAX_PAIR_KEYS, np.uint64)
    for k in range(s.pc.shape[0]):
        nk = pair_keys(tokens.wh, tokens.th, s.base, s.n, int(s.pc[k]), int(s.pp[k]), False, keys)
        best = {0: (-np.inf, -1), 1: (-np.inf, -1)}
        for j in range(s.cand_off[k], s.cand_off[k + 1]):
            lab, kind = int(s.cand_lab[j]), int(s.cand_kind[j])
            sc = backed_arc_score(keys, nk, lab, w, hashing)
            if augment:
                g = int((s.gold_s if kind == 0 else s.gold_t)[k])
                sc += weights.extra if g < 0 else (0.0 if g == lab else weights.wrong_label)
            if sc > best[kind][0]:
                best[kind] = (sc, lab)
        out.append(best)
    return out


# -- pass 3's score tables ------------------------------------------------------------------
def spine_label_fits(label, child_spine, parent_spine):
    """Whether ``label`` (a plgraph.parser.scoring.labels.Label) can join a child whose spine
    identity is ``child_spine`` to a parent with ``parent_spine`` (None: ROOT), read
    straight off the spine strings: a structural label leaves the child's top node
    and attaches to a non-null or null parent node whose nearest non-null node below is
    the label's sibling; a trace label joins two nodes (with their null flags) of the
    two spines.  Self-loop traces after ``|`` are not nodes."""
    def nodes(spine):
        """[(name, is null, non-null node below or '_')] bottom to top, names counted per label."""
        import re

        out, counts, nulls, below, pending = [], {}, {}, "_", []
        depth, part, parts = 0, "", []
        for ch in spine.split("|")[0]:
            if ch == "_" and depth == 0:
                parts.append(part)
                part = ""
                continue
            depth += (ch == "(") - (ch == ")")
            part += ch
        parts.append(part)
        for part in parts:
            if part.startswith("("):       # a null subtree: constituents are "(LABEL_", leaves "(word)"
                for lab in re.findall(r"\(([^()_]+)_", part):
                    c = nulls.get(lab, 0)
                    nulls[lab] = c + 1
                    pending.append(f"{lab}_{c}")
            elif part not in ("", ):
                c = counts.get(part, 0)
                counts[part] = c + 1
                out += [(nm, True, below) for nm in pending] + [(f"{part}_{c}", False, below)]
                pending, below = [], f"{part}_{c}"
        return out + [(nm, True, below) for nm in pending]

    cn = nodes(child_spine)
    if label.kind == 0:
        top = [x[0] for x in cn if not x[1]][-1] if any(not x[1] for x in cn) else "_"
        if label.child != top or label.child_null:
            return False
        if parent_spine is None:
            return label.parent == "ROOT_0" and not label.parent_null
        return any(nm == label.parent and nl == label.parent_null and below == label.sibling
                   for nm, nl, below in nodes(parent_spine))
    if parent_spine is None:
        return False
    child_ok = label.child == "_" or any(nm == label.child and nl == label.child_null for nm, nl, _ in cn)
    return child_ok and any(nm == label.parent and nl == label.parent_null for nm, nl, _ in nodes(parent_spine))


def pass3_scores(s, tokens, w, hashing, vocab, identities):
    """Dense per-label scores of a prepared pass-3 sentence ``s`` in plain Python:
    ``(S, T, spine_score)`` of shapes (N, N, K, K, L) and (N, K) for
    :class:`NaiveGraphParser` (-inf: not allowed), summing the weights of the arc keys
    x label and x its back-off classes (``hashing``: the model's ``(back, hk)``), the
    joint keys x label and the spine keys x spine for every candidate."""
    from plgraph.parser.scoring._pass3 import SPINE_SALT, joint_keys
    from plgraph.pruners._kernels import MAX_PAIR_KEYS, MAX_WORD_KEYS, pair_keys, word_keys

    hk = hashing[1]
    N, K, L = s.N, int(s.nsp.max()), len(vocab)
    off = np.concatenate([[0], np.cumsum(s.nsp)])
    sid = lambda x, i: int(s.sp_id[off[x] + i])  # noqa: E731
    S = np.full((N, N, K, K, L), -np.inf)
    T = np.full((N, N, K, K, L), -np.inf)
    keys = np.empty(max(MAX_PAIR_KEYS, MAX_WORD_KEYS), np.uint64)
    jk = np.empty(8, np.uint64)
    for k in range(s.pc.shape[0]):
        c, p = int(s.pc[k]), int(s.pp[k])
        nk = pair_keys(tokens.wh, tokens.th, s.base, s.n, c, p, False, keys)
        arc = {int(lab): backed_arc_score(keys, nk, int(lab), w, hashing)
               for lab in s.cand_lab[s.cand_off[k]:s.cand_off[k + 1]]}
        for i in range(s.nsp[c]):
            for j in range(s.nsp[p]):
                a, b = sid(c, i), sid(p, j)
                nj = joint_keys(tokens.th, s.base, s.n, c, p, a, b, jk)
                for lab, sc in arc.items():
                    L_ = vocab.labels[lab]
                    if not spine_label_fits(L_, identities[a], None if p == s.n else identities[b]):
                        continue
                    X = S if L_.kind == 0 else T
                    X[c, p, i, j, lab] = sc + sum(w[hindex(jk[t], lab, hk)] for t in range(nj))
    spine = np.zeros((N, K))
    for x in range(s.n):
        nk = word_keys(tokens.wh, tokens.th, s.base, s.n, x, keys)
        for i in range(s.nsp[x]):
            spine[x, i] = sum(w[hindex(keys[t] ^ SPINE_SALT, sid(x, i), hk)] for t in range(nk))
    return S, T, spine


# -- the neural scorer's tables (plgraph.parser.scoring.neural.prune, plgraph.parser.chart._given) ------------
def given_scores(sent, vocab, identities):
    """Twin of :func:`plgraph.parser.chart._given.given_label_tables` and the spine
    scores of a :class:`plgraph.parser.scoring.neural.prune.NeuralSentence`: dense ``(S, T, spine_score)``
    of shapes (N, N, K, K, L) and (N, K) for :class:`NaiveGraphParser` -- every candidate
    label of a pair at each spine pair it fits (:func:`spine_label_fits`, read off the
    spine strings; ROOT's spine is None), its given score; -inf elsewhere."""
    N, K, L = sent.N, int(sent.nsp.max()), len(vocab)
    off = [0]
    for k in sent.nsp:
        off.append(off[-1] + int(k))
    S = np.full((N, N, K, K, L), -np.inf)
    T = np.full((N, N, K, K, L), -np.inf)
    sp = np.full((N, K), -np.inf)
    spine_of = lambda w, i: None if w == N - 1 else identities[int(sent.sp_id[off[w] + i])]  # noqa: E731
    for w in range(N):
        for i in range(int(sent.nsp[w])):
            sp[w, i] = 0.0 if w == N - 1 else float(sent.sp_score[off[w] + i])
    for k in range(len(sent.pc)):
        c, p = int(sent.pc[k]), int(sent.pp[k])
        for j in range(int(sent.cand_off[k]), int(sent.cand_off[k + 1])):
            lab = int(sent.cand_lab[j])
            X = S if vocab.labels[lab].kind == 0 else T
            for i in range(int(sent.nsp[c])):
                for jj in range(int(sent.nsp[p])):
                    if spine_label_fits(vocab.labels[lab], spine_of(c, i), spine_of(p, jj)):
                        X[c, p, i, jj, lab] = max(X[c, p, i, jj, lab], float(sent.cand_score[j]))
    return S, T, sp


def spine_fit(identities, vocab):
    """``(ok_c, ok_p)`` of :class:`plgraph.parser.scoring.pass3.SpineInventory`, label by
    label and spine by spine: the child end of a structural label is the spine's top
    (not null), its parent end a node whose sibling is the label's; a trace label's ends
    are any node of the spine (a child ``_``: any spine); ROOT's row parents the structural
    labels whose parent is ``ROOT_0``."""
    from plgraph.parser.scoring.pass3 import STRUCTURAL, _spine_nodes

    identities = list(identities)
    S, L = len(identities), len(vocab)
    ok_c = np.zeros((S + 1, L), np.uint8)
    ok_p = np.zeros((S + 1, L), np.uint8)
    for s, ident in enumerate(identities):
        top, nodes = _spine_nodes(ident.split("|", 1)[0])
        for i, lab in enumerate(vocab.labels):
            if lab.kind == STRUCTURAL:
                ok_c[s, i] = lab.child == top and not lab.child_null
                ok_p[s, i] = nodes.get((lab.parent, lab.parent_null)) == lab.sibling
            else:
                ok_c[s, i] = (lab.child, lab.child_null) in nodes or lab.child == "_"
                ok_p[s, i] = (lab.parent, lab.parent_null) in nodes
    for i, lab in enumerate(vocab.labels):
        if lab.kind == STRUCTURAL:
            ok_p[S, i] = lab.parent == "ROOT_0" and not lab.parent_null
    return ok_c, ok_p


def bfloat16_bits(value: float) -> int:
    """The bfloat16 bit pattern nearest to the float32 ``value`` (ties to the even
    pattern), by comparing the two patterns that bracket it: the float32 bits cut to
    their upper half, and that plus one unit."""
    import struct

    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    low = bits >> 16
    high = low + 1

    def as_float(pattern: int) -> float:
        return struct.unpack("<f", struct.pack("<I", (pattern & 0xFFFF) << 16))[0]

    exact = struct.unpack("<f", struct.pack("<I", bits))[0]
    d_low, d_high = abs(exact - as_float(low)), abs(as_float(high) - exact)
    if d_low < d_high or (d_low == d_high and low % 2 == 0):
        return low
    return high & 0xFFFF
