"""Brute-force check of the deduction system on every small graph.

For ``n`` words (points 0..n-1, ROOT = n) enumerate every graph that

* has exactly one edge to ROOT and no other edge touching ROOT,
* has at most one edge between two words (either direction),
* is acyclic and one-endpoint-crossing, and
* contains a projective spanning tree (a possible structural tree),

count each one's derivations with :func:`plgraph.rules._chart.count_derivations`
(the rule-application code of :mod:`plgraph.rules._apply` the parser runs too) over
the full, unpruned rule tables, and report every graph with zero or
several derivations.  The thesis claims exactly one derivation for every such
graph except those with a locked chain (and a rare B-item configuration).

Cache note: :func:`_enumerate` inlines the chart, the rule-application library and the
structure kernels; numba's cache only notices edits to this file, so the guard at the
end purges this module's cache files when those sources change.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numba import njit

from ..config import NUMBA_CACHE
from ..files import _numba_cache
from ..structure import _kernels as _structure_kernels
from ..structure._kernels import crossing_flags, has_directed_cycle, has_locked_chain
from . import _apply, _chart
from ._chart import count_derivations
from .tables import RuleTables, full_tables


@njit(cache=NUMBA_CACHE)
def _projective_tree_exists(adj, n):
    """Single-root projective spanning tree over words 0..n-1 using edges of adj
    (adj[c, p] = 1), rooted at the word that has the ROOT edge (Eisner, boolean)."""
    cl = np.zeros((n, n), np.bool_)  # complete, head at the right end
    cr = np.zeros((n, n), np.bool_)  # complete, head at the left end
    il = np.zeros((n, n), np.bool_)  # incomplete, right end heads left end
    ir = np.zeros((n, n), np.bool_)  # incomplete, left end heads right end
    for s in range(n):
        cl[s, s] = True
        cr[s, s] = True
    for w in range(1, n):
        for s in range(0, n - w):
            t = s + w
            split = False
            for q in range(s, t):
                if cr[s, q] and cl[q + 1, t]:
                    split = True
                    break
            il[s, t] = split and adj[s, t] != 0
            ir[s, t] = split and adj[t, s] != 0
            for q in range(s, t):
                if cl[s, q] and il[q, t]:
                    cl[s, t] = True
                    break
            for q in range(s + 1, t + 1):
                if ir[s, q] and cr[q, t]:
                    cr[s, t] = True
                    break
    for r in range(n):
        if adj[r, n] != 0 and cl[0, r] and cr[r, n - 1]:
            return True
    return False


@njit(cache=NUMBA_CACHE)
def _enumerate(n, g, strict, max_report):
    """Enumerate graphs over n words, count each one's derivations under the rules
    ``g`` (:meth:`RuleTables.kernel_args`); return counts and codes of the graphs
    with a derivation count other than one."""
    npairs = n * (n - 1) // 2
    pa = np.empty(npairs, np.int64)
    pb = np.empty(npairs, np.int64)
    t = 0
    for a in range(n):
        for b in range(a + 1, n):
            pa[t] = a
            pb[t] = b
            t += 1
    choice = np.zeros(npairs, np.int64)
    total = 3 ** npairs
    n_graphs = 0
    n_one = 0
    n_zero = 0
    n_many = 0
    n_locked = 0
    n_locked_zero = 0
    report_code = np.empty(max_report, np.int64)
    report_root = np.empty(max_report, np.int64)
    report_count = np.empty(max_report, np.int64)
    report_locked = np.empty(max_report, np.bool_)
    n_report = 0
    adj = np.zeros((n + 1, n + 1), np.uint8)
    child = np.empty(npairs + 1, np.int64)
    parent = np.empty(npairs + 1, np.int64)
    for code in range(total):
        x = code
        for t in range(npairs):
            choice[t] = x % 3
            x //= 3
        for root in range(n):
            adj[:, :] = 0
            m = 0
            for t in range(npairs):
                if choice[t] == 1:
                    adj[pa[t], pb[t]] = 1
                    child[m] = pa[t]
                    parent[m] = pb[t]
                    m += 1
                elif choice[t] == 2:
                    adj[pb[t], pa[t]] = 1
                    child[m] = pb[t]
                    parent[m] = pa[t]
                    m += 1
            adj[root, n] = 1
            child[m] = root
            parent[m] = n
            m += 1
            c = child[:m]
            p = parent[:m]
            if has_directed_cycle(n + 1, c, p):
                continue
            lo = np.minimum(c, p)
            hi = np.maximum(c, p)
            proj, one_ec = crossing_flags(lo, hi)
            if not one_ec:
                continue
            if not _projective_tree_exists(adj, n):
                continue
            n_graphs += 1
            locked = False if proj else has_locked_chain(lo, hi)
            if locked:
                n_locked += 1
            count = count_derivations(adj, g, strict)[3]
            if count == 1:
                n_one += 1
                continue
            if count == 0:
                n_zero += 1
                if locked:
                    n_locked_zero += 1
            else:
                n_many += 1
            if n_report < max_report:
                report_code[n_report] = code
                report_root[n_report] = root
                report_count[n_report] = count
                report_locked[n_report] = locked
                n_report += 1
    return (n_graphs, n_one, n_zero, n_many, n_locked, n_locked_zero, report_code[:n_report],
            report_root[:n_report], report_count[:n_report], report_locked[:n_report])


@dataclass
class BruteForceReport:
    """Result of :func:`check_all_graphs` for one sentence length."""

    n_words: int
    n_graphs: int
    exactly_one: int
    zero: int
    several: int
    locked_chains: int
    locked_chains_underivable: int
    exceptions: list = field(default_factory=list)  # (edges, count, locked)

    @property
    def ok(self) -> bool:
        """Every graph without a locked chain has exactly one derivation."""
        return all(locked and count == 0 for _, count, locked in self.exceptions)

    def summary(self) -> str:
        return (f"n={self.n_words}: {self.n_graphs} graphs, {self.exactly_one} with one derivation, "
                f"{self.zero} with none ({self.locked_chains_underivable} of them locked chains), "
                f"{self.several} with several; {self.locked_chains} locked chains in all")


def _decode(n: int, code: int, root: int) -> list[tuple[int, int]]:
    edges = []
    t = 0
    for a in range(n):
        for b in range(a + 1, n):
            choice = code % 3
            code //= 3
            if choice == 1:
                edges.append((a, b))
            elif choice == 2:
                edges.append((b, a))
            t += 1
    edges.append((root, n))
    return edges


def check_all_graphs(n_words: int, tables: RuleTables | None = None, strict: bool = True,
                     max_report: int = 10000) -> BruteForceReport:
    """Enumerate and derive every graph over ``n_words`` words (see the module docstring)."""
    if not 1 <= n_words <= 7:
        raise ValueError("n_words must be between 1 and 7 (the enumeration grows as 3^(n(n-1)/2))")
    t = tables or full_tables()
    res = _enumerate(n_words, t.kernel_args(), strict, max_report)
    n_graphs, one, zero, many, locked, locked_zero, codes, roots, counts, lockeds = res
    exceptions = [(_decode(n_words, int(c), int(r)), int(k), bool(lk))
                  for c, r, k, lk in zip(codes, roots, counts, lockeds)]
    return BruteForceReport(n_words, int(n_graphs), int(one), int(zero), int(many), int(locked), int(locked_zero),
                            exceptions)


if NUMBA_CACHE:
    # numba does not notice when the inlined kernels of these modules change
    _numba_cache.guard_cache(__file__, _enumerate, _chart.__file__, _apply.__file__, _structure_kernels.__file__)
