"""Numba kernels of pass 2's edge scores (design notes ``1ec-parser.md`` §3.1).

A (child c, parent p, label l) edge scores ``sum_k w[windex(key_k, l)]`` over the pair's
first-order arc feature keys (:func:`plgraph.pruners._kernels.pair_keys`, the McDonald et
al. 2005 templates plain and with direction x distance; notes 1ec-anchor.md §5.3) -- each
key conjoined with the whole label, the reference's "structure id"
(``ruleStructuralFeatureOnly``).  Positions are the chart's: words ``0..n-1``, ROOT ``n``
(whose word and tag atoms are the end-of-sentence markers).  Weights are read with
:func:`plgraph.learn._kernels.wpeek` (AdaGrad's lazy catch-up, not written back), and the
kernels release the GIL, so the sentences of a batch decode in parallel threads.

The reference splits the score into parent, child and pair caches (``getArcScorePSG``);
here every key is read per label, which is the same sum.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .. import _numba_cache
from ..config import NUMBA_CACHE
from ..pruners import _kernels as PK
from ..learn._kernels import wpeek
from ..pruners._kernels import MAX_PAIR_KEYS, pair_keys, score, windex

NEG = -np.inf


@njit(cache=NUMBA_CACHE, nogil=True)
def augmented(plain, gold_lab, lab, augment, extra, wrong):
    """A labelled edge's score in the chart: ``plain`` plus, when ``augment``, the
    Hamming loss it would cost against the pair's gold label ``gold_lab`` of its kind
    (-1: none) -- ``extra`` for an edge gold lacks, ``wrong`` for another label."""
    if augment:
        if gold_lab < 0:
            return plain + extra
        if lab != gold_lab:
            return plain + wrong
    return plain


@njit(cache=NUMBA_CACHE, nogil=True)
def label_tables(wh, th, base, n, pc, pp, cand_off, cand_lab, cand_kind, gold_s, gold_t, augment, extra, wrong,
                 mask, w, q, u, nn, eta, C, reg, s_best, s_lab, t_best, t_lab, s_plain, t_plain):
    """Best structural and best trace label of every listed pair ``(pc[k], pp[k])``.

    Candidates of pair k: ``cand_lab[cand_off[k]:cand_off[k+1]]`` of kinds ``cand_kind``
    (0 structural, 1 trace).  With ``augment`` each score gets its Hamming share first
    (``gold_s[k]`` / ``gold_t[k]``: the gold label of that kind, -1 none): 0 for the gold
    label, ``wrong`` for another label of a gold (pair, kind), ``extra`` otherwise.
    Writes ``s_best[k], s_lab[k], t_best[k], t_lab[k]`` (-inf / -1: no candidate of that
    kind) and the chosen labels' plain (not augmented) scores ``s_plain`` / ``t_plain``."""
    keys = np.empty(MAX_PAIR_KEYS, np.uint64)
    best = np.empty(2)          # per kind (0 structural, 1 trace)
    lab_of = np.empty(2, np.int64)
    plain_of = np.empty(2)
    gold = np.empty(2, np.int64)
    for k in range(pc.shape[0]):
        nk = pair_keys(wh, th, base, n, pc[k], pp[k], False, keys)
        best[:] = NEG
        lab_of[:] = -1
        plain_of[:] = 0.0
        gold[0] = gold_s[k]
        gold[1] = gold_t[k]
        for j in range(cand_off[k], cand_off[k + 1]):
            lab = cand_lab[j]
            kind = cand_kind[j]
            plain = score(keys, nk, lab, mask, w, q, u, nn, eta, C, reg)
            sc = augmented(plain, gold[kind], lab, augment, extra, wrong)
            if sc > best[kind]:
                best[kind] = sc
                lab_of[kind] = lab
                plain_of[kind] = plain
        s_best[k] = best[0]
        s_lab[k] = lab_of[0]
        s_plain[k] = plain_of[0]
        t_best[k] = best[1]
        t_lab[k] = lab_of[1]
        t_plain[k] = plain_of[1]


@njit(cache=NUMBA_CACHE, nogil=True)
def candidate_scores(wh, th, base, n, pc, pp, cand_off, cand_lab, mask, w, q, u, nn, eta, C, reg, out):
    """``out[j]``: the plain score of every candidate label ``cand_lab[j]`` of every listed
    pair (the per-label scores behind :func:`label_tables`' best ones; pass 3 reads
    labelled max-marginals off them, the reference's ``A2``)."""
    keys = np.empty(MAX_PAIR_KEYS, np.uint64)
    for k in range(pc.shape[0]):
        nk = pair_keys(wh, th, base, n, pc[k], pp[k], False, keys)
        for j in range(cand_off[k], cand_off[k + 1]):
            out[j] = score(keys, nk, cand_lab[j], mask, w, q, u, nn, eta, C, reg)


@njit(cache=NUMBA_CACHE, nogil=True)
def edge_features(wh, th, base, n, ec, ep, elab, sign, mask, out_idx, out_val):
    """Feature indices of the edges ``(ec[e], ep[e], elab[e])`` with value ``sign[e]``
    written to ``out_idx`` / ``out_val`` (room for ``MAX_PAIR_KEYS`` per edge); returns how
    many were written."""
    keys = np.empty(MAX_PAIR_KEYS, np.uint64)
    m = 0
    for e in range(ec.shape[0]):
        nk = pair_keys(wh, th, base, n, ec[e], ep[e], False, keys)
        for k in range(nk):
            out_idx[m] = windex(keys[k], elab[e], mask)
            out_val[m] = sign[e]
            m += 1
    return m


@njit(cache=NUMBA_CACHE, nogil=True)
def weight_dot(idx, val, w, q, u, nn, eta, C, reg):
    """``sum_k val[k] * w[idx[k]]``, weights caught up without write-back."""
    s = 0.0
    for k in range(idx.shape[0]):
        s += val[k] * wpeek(w, q, u, nn, eta, C, reg, idx[k])
    return s


if NUMBA_CACHE:
    _numba_cache.guard_cache(__file__, label_tables, PK.__file__, PK._learn_kernels.__file__)
