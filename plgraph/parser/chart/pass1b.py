"""Pass 1b: the chart in projective mode over the arc pass's scores.

Pass 1 (:class:`plgraph.pruners.arcpass.ArcPass`) is a first-order Eisner parser, and
Eisner's cells cannot prune the 1EC chart: a 1EC Interval whose two ends both take their
parents from outside has no Eisner counterpart (on the sample's dev split 415 of 433
sentences have a gold-derivation span that is no Eisner span).  The reference prunes
pass-2 items against pass-1 items *of the same chart type*; pass 1b reproduces that: the
chart kernel, exact, with the projective-tree rule subset (7 combination rules, 2 arc rules
of the full grammar), over the arc pass's best-label scores, O(n^3).  It yields

* item max-marginals per coarse identity (cell, ``flags & COARSE_FLAGS``: ROOT edge and
  which end has its structural parent inside; the direct/indirect distinction of the
  state is dropped, since a pass-2 item's state may be direct through a trace where its
  structural projection is indirect) -- what pass 2 checks its combination Interval items
  against (:meth:`Pass1b.coarse_mask`);
* arc max-marginals, equal to Eisner's (:func:`plgraph.pruners._chart.span_max_marginals`):
  both maximise over single-rooted projective trees, whose set does not depend on where
  ROOT sits (``tests/test_parser_chart.py`` checks this on every dev sentence).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...encoding import dep_to_chart_table
from ...rules.tables import RuleTables, full_tables
from . import _kernel as K
from .tables import arc_score_tables

NEG = -np.inf
#: pass 1b's search: exhaustive, strict, with the hyperedge log (for outside scores), no item budget
EXHAUSTIVE = K.Search(beam=0, cube=0, strict=True, log=True, mark_gold=False, max_items=0)


def chart_arc_scores(S_dep: np.ndarray) -> np.ndarray:
    """Arc-pass scores ``S[h, d]`` in dependency positions (ROOT 0, words 1..n) as the
    chart's ``S1[c, p]`` (words 0..n-1, ROOT n)."""
    return np.ascontiguousarray(dep_to_chart_table(np.asarray(S_dep, np.float64)).T)


@dataclass
class Pass1b:
    """Result of :func:`run_pass1b` (chart positions).

    ``best``: the best tree's score; ``arc_mm[c, p]``: best tree score with the structural
    edge c -> p (-inf: none); ``cell_mm[p * N + q, f]``: best tree score through an
    Interval item over [p, q] with coarse flags ``f`` (-inf: none)."""

    best: float
    arc_mm: np.ndarray
    cell_mm: np.ndarray

    @property
    def N(self) -> int:
        return int(self.arc_mm.shape[0])

    def threshold(self, ratio: float) -> float:
        """``min + ratio * (best - min)`` over the finite item max-marginals (the reference's
        ``checkPruningRatio``; :func:`plgraph.pruners.model.keep_threshold`)."""
        finite = self.cell_mm[np.isfinite(self.cell_mm)]
        lo = float(finite.min()) if finite.size else self.best
        return lo + ratio * (self.best - lo)

    def coarse_mask(self, ratio: float) -> np.ndarray:
        """(N, N) uint8 for :attr:`plgraph.parser.chart.tables.ChartTables.coarse`: bit ``f`` of
        ``[p, q]`` set iff the coarse identity (cell, f) clears the ratio."""
        keep = self.cell_mm > self.threshold(ratio)
        bits = (keep.astype(np.uint16) << np.arange(8, dtype=np.uint16)[None, :]).sum(axis=1)
        return bits.astype(np.uint8).reshape(self.N, self.N)


def run_pass1b(S1: np.ndarray, rules: RuleTables | None = None) -> Pass1b:
    """Pass 1b over best-label structural scores ``S1[c, p]`` (chart positions; see
    :func:`chart_arc_scores`) under the projective subset of ``rules`` (default: the full
    grammar; its projective subset is the same for every rule subset that derives trees)."""
    tables = arc_score_tables(S1)
    g = (rules if rules is not None else full_tables()).projective().kernel_args(pair_index=False)
    tb = tables.kernel_args()
    it, ins, nit, lg, lw, nlg, goal, best, _stats = K.chart(g, tb, EXHAUSTIVE)
    out, mm_s, _mm_t = K.outside(it, ins, nit, lg, lw, nlg, tb)
    N = tables.N
    cell_mm = np.full((N * N, 8), NEG)
    cells = it[:nit, K.P].astype(np.int64) * N + it[:nit, K.Q]
    np.maximum.at(cell_mm, (cells, it[:nit, K.FLG] & K.COARSE_FLAGS), ins[:nit] + out)
    return Pass1b(float(best), mm_s.reshape(N, N), cell_mm)
