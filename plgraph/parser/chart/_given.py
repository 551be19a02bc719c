"""Numba kernel of the chart's tables from scores given per candidate label (a scorer that
is not the hashed linear model -- the neural one, :mod:`plgraph.parser.scoring.neural.prune` -- scores
each candidate labelled edge itself; the chart's tables then only need the best allowed
label of each kind per spine pair).  Its checked entry point is
:func:`plgraph.parser.chart.tables.given_score_tables`.

The constraint is pass 3's (:mod:`plgraph.parser.scoring._pass3`): a candidate label
``l`` of pair ``(c, p)`` is allowed between spine options ``sc`` of c and ``sp`` of p
iff ``ok_c[sc, l] and ok_p[sp, l]``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ...config import NUMBA_CACHE
from ..scoring._pass2 import put_best

NEG = -np.inf


@njit(cache=NUMBA_CACHE, nogil=True)
def given_label_tables(cands, spines, cand_score, out):
    """Best structural and best trace label of every listed pair ``(cands.pc[k],
    cands.pp[k])`` (:class:`~plgraph.parser.scoring._pass2.Candidates`) and spine pair
    (:class:`~plgraph.parser.scoring._pass3.SpineTables` ``spines``: block k starts at
    ``blk_off[k]``, entry ``i * nsp[p] + j`` for option i of c and j of p), where
    candidate j scores ``cand_score[j]``.  Writes ``out``
    (:class:`~plgraph.parser.scoring._pass2.BestLabels`): per entry and kind the best
    allowed score and label (-inf / -1: none allowed) and, as plain scores, the same."""
    pc, pp, cand_off, cand_lab, cand_kind = cands
    blk_off, sp_off, sp_id, ok_c, ok_p = spines
    best = np.empty(2)
    lab_of = np.empty(2, np.int64)
    for k in range(pc.shape[0]):
        c, p = pc[k], pp[k]
        lo, hi = cand_off[k], cand_off[k + 1]
        np_ = sp_off[p + 1] - sp_off[p]
        for i in range(sp_off[c + 1] - sp_off[c]):
            sc = sp_id[sp_off[c] + i]
            for jj in range(np_):
                sp = sp_id[sp_off[p] + jj]
                best[:] = NEG
                lab_of[:] = -1
                for j in range(lo, hi):
                    lab = cand_lab[j]
                    if ok_c[sc, lab] and ok_p[sp, lab] and cand_score[j] > best[cand_kind[j]]:
                        best[cand_kind[j]] = cand_score[j]
                        lab_of[cand_kind[j]] = lab
                put_best(out, blk_off[k] + i * np_ + jj, best, lab_of, best)
