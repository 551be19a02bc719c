"""Numba kernels of pass 2's edge scores (design notes ``1ec-parser.md`` §3.1).

A (child c, parent p, label l) edge scores ``sum_k w[windex(key_k, l)]`` over the pair's
first-order arc feature keys (:func:`plgraph.pruners._kernels.pair_keys`, the McDonald et
al. 2005 templates plain and with direction x distance; notes 1ec-anchor.md §5.3) -- each
key conjoined with the whole label, the reference's "structure id"
(``ruleStructuralFeatureOnly``).  Positions are the chart's: words ``0..n-1``, ROOT ``n``
(whose word and tag atoms are the end-of-sentence markers).  Weights are read with
:func:`plgraph.learn._kernels.wpeek` (AdaGrad's lazy catch-up, not written back), and the
kernels release the GIL, so the sentences of a batch decode in parallel threads.

Each key is also conjoined with the label's back-off classes (``back[l, :]``, from
:meth:`plgraph.parser.labels.LabelVocab.backoff_classes`; plgraph's addition, see there),
hashed as the "label" ``BACKOFF_BASE + class``; a class's score is computed once per pair
(:func:`labelled_score`).

The reference splits the score into parent, child and pair caches (``getArcScorePSG``);
here every key is read per label, which is the same sum.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .. import _numba_cache
from ..config import NUMBA_CACHE
from ..pruners import _kernels as PK
from ..learn._kernels import combine, mix64, wpeek
from ..pruners._kernels import MAX_PAIR_KEYS, pair_keys

NEG = -np.inf
#: back-off class c is hashed as the label ``BACKOFF_BASE + c`` (above every label id)
BACKOFF_BASE = 1 << 40

_S3 = np.uint64(3)
_S7 = np.uint64(7)
_ONE = np.uint64(1)


def hash_kernel_args(bits: int, positive=None, pool_bits: int = 0) -> tuple:
    """The weight-index arguments ``hk`` of :func:`hindex`: ``(mask, positive, positive
    mask, pool base, pool mask)``.  Without ``positive`` (a bitmap, uint8, a power of two
    bytes long) every (key, label) hashes into the ``2**bits`` weights."""
    pos = np.zeros(0, np.uint8) if positive is None else np.ascontiguousarray(positive, np.uint8)
    pos_mask = np.uint64(pos.shape[0] * 8 - 1) if pos.shape[0] else np.uint64(0)
    pool_mask = np.uint64((1 << pool_bits) - 1) if pos.shape[0] else np.uint64(0)
    return (np.uint64((1 << bits) - 1), pos, pos_mask, np.int64(1 << bits), pool_mask)


@njit(cache=NUMBA_CACHE, inline="always")
def hindex(key, label, hk):
    """The weight of (``key``, ``label``): ``mix64(combine(key, label + 1))`` masked into
    the ``2**bits`` weights (:func:`plgraph.pruners._kernels.windex`) when ``hk`` has no
    positive bitmap or its bit is set (a "positive" feature, seen in a gold graph), else
    into the shared negative pool after them (the reference's ``negativeFeaturePower``
    pool)."""
    h = mix64(combine(key, np.uint64(label + 1)))
    pos = hk[1]
    if pos.shape[0] == 0:
        return np.int64(h & hk[0])
    b = h & hk[2]
    if (np.uint64(pos[b >> _S3]) >> (b & _S7)) & _ONE:
        return np.int64(h & hk[0])
    return hk[3] + np.int64(h & hk[4])


@njit(cache=NUMBA_CACHE, inline="always")
def hscore(keys, nk, label, hk, w, q, u, nn, eta, C, reg):
    """``sum_k w[hindex(keys[k], label, hk)]`` over ``keys[:nk]`` (caught up, not written back)."""
    s = 0.0
    for k in range(nk):
        s += wpeek(w, q, u, nn, eta, C, reg, hindex(keys[k], label, hk))
    return s


@njit(cache=NUMBA_CACHE, nogil=True)
def labelled_score(keys, nk, lab, back, cls_score, cls_stamp, stamp, hk, w, q, u, nn, eta, C, reg):
    """The score of keys ``keys[:nk]`` x label ``lab`` plus x each of its back-off classes
    ``back[lab, :]``; a class's score is cached in ``cls_score`` while ``cls_stamp[c]``
    equals ``stamp`` (one stamp per pair)."""
    s = hscore(keys, nk, lab, hk, w, q, u, nn, eta, C, reg)
    for b in range(back.shape[1]):
        c = back[lab, b]
        if cls_stamp[c] != stamp:
            cls_stamp[c] = stamp
            cls_score[c] = hscore(keys, nk, BACKOFF_BASE + c, hk, w, q, u, nn, eta, C, reg)
        s += cls_score[c]
    return s


@njit(cache=NUMBA_CACHE, nogil=True)
def class_cache(back):
    """Empty (scores, stamps) caches for :func:`labelled_score` over ``back``'s classes."""
    m = 0
    for i in range(back.shape[0]):
        for b in range(back.shape[1]):
            m = max(m, back[i, b] + 1)
    return np.zeros(m), np.full(m, -1, np.int64)


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
                 back, hk, w, q, u, nn, eta, C, reg, s_best, s_lab, t_best, t_lab, s_plain, t_plain):
    """Best structural and best trace label of every listed pair ``(pc[k], pp[k])``.

    Candidates of pair k: ``cand_lab[cand_off[k]:cand_off[k+1]]`` of kinds ``cand_kind``
    (0 structural, 1 trace).  With ``augment`` each score gets its Hamming share first
    (``gold_s[k]`` / ``gold_t[k]``: the gold label of that kind, -1 none): 0 for the gold
    label, ``wrong`` for another label of a gold (pair, kind), ``extra`` otherwise.
    Writes ``s_best[k], s_lab[k], t_best[k], t_lab[k]`` (-inf / -1: no candidate of that
    kind) and the chosen labels' plain (not augmented) scores ``s_plain`` / ``t_plain``.
    ``back``: the labels' back-off classes (:func:`labelled_score`)."""
    keys = np.empty(MAX_PAIR_KEYS, np.uint64)
    cls_score, cls_stamp = class_cache(back)
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
            plain = labelled_score(keys, nk, lab, back, cls_score, cls_stamp, k, hk, w, q, u, nn, eta, C, reg)
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
def candidate_scores(wh, th, base, n, pc, pp, cand_off, cand_lab, back, hk, w, q, u, nn, eta, C, reg, out):
    """``out[j]``: the plain score of every candidate label ``cand_lab[j]`` of every listed
    pair (the per-label scores behind :func:`label_tables`' best ones; pass 3 reads
    labelled max-marginals off them, the reference's ``A2``)."""
    keys = np.empty(MAX_PAIR_KEYS, np.uint64)
    cls_score, cls_stamp = class_cache(back)
    for k in range(pc.shape[0]):
        nk = pair_keys(wh, th, base, n, pc[k], pp[k], False, keys)
        for j in range(cand_off[k], cand_off[k + 1]):
            out[j] = labelled_score(keys, nk, cand_lab[j], back, cls_score, cls_stamp, k, hk, w, q, u, nn, eta,
                                    C, reg)


@njit(cache=NUMBA_CACHE, nogil=True)
def edge_features(wh, th, base, n, ec, ep, elab, sign, back, hk, out_idx, out_val):
    """Feature indices of the edges ``(ec[e], ep[e], elab[e])`` with value ``sign[e]``
    written to ``out_idx`` / ``out_val`` (room for ``MAX_PAIR_KEYS * (1 + back.shape[1])``
    per edge); returns how many were written."""
    keys = np.empty(MAX_PAIR_KEYS, np.uint64)
    m = 0
    for e in range(ec.shape[0]):
        nk = pair_keys(wh, th, base, n, ec[e], ep[e], False, keys)
        m = keyed_features(keys, nk, elab[e], back, sign[e], hk, out_idx, out_val, m)
    return m


@njit(cache=NUMBA_CACHE, nogil=True)
def keyed_features(keys, nk, lab, back, value, hk, out_idx, out_val, m):
    """Write the entries of keys ``keys[:nk]`` x label ``lab`` and x its back-off classes
    from ``out_idx[m]`` on; returns the new ``m`` (:func:`labelled_score`'s features)."""
    for k in range(nk):
        out_idx[m] = hindex(keys[k], lab, hk)
        out_val[m] = value
        m += 1
    for b in range(back.shape[1]):
        cl = BACKOFF_BASE + back[lab, b]
        for k in range(nk):
            out_idx[m] = hindex(keys[k], cl, hk)
            out_val[m] = value
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
