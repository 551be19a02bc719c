"""Numba kernels of pass 2's edge scores.

A (child c, parent p, label l) edge scores ``sum_k w[windex(key_k, l)]`` over the pair's
first-order arc feature keys (:func:`plgraph.pruners._kernels.pair_keys`, the McDonald et
al. 2005 templates plain and with direction x distance) -- each
key conjoined with the whole label, the reference's "structure id"
(``ruleStructuralFeatureOnly``).  Positions are the chart's: words ``0..n-1``, ROOT ``n``
(whose word and tag atoms are the end-of-sentence markers).  The kernels take their
arrays packed in the NamedTuples below (:class:`SentenceKeys`, :class:`Candidates`,
:class:`LossArgs`, :class:`Hashing`, :class:`BestLabels`) and the learner's
:class:`~plgraph.learn._kernels.WeightView`.  Weights are read with
:func:`plgraph.learn._kernels.wpeek` (AdaGrad's lazy catch-up, not written back), and the
kernels release the GIL, so the sentences of a batch decode in parallel threads.

Each key is also conjoined with the label's back-off classes (``back[l, :]``, from
:meth:`plgraph.parser.scoring.labels.LabelVocab.backoff_classes`; plgraph's addition, see there),
hashed as the "label" ``BACKOFF_BASE + class``; a class's score is computed once per pair
(:func:`labelled_score`).

The reference splits the score into parent, child and pair caches (``getArcScorePSG``);
here every key is read per label, which is the same sum.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ...files import _numba_cache
from ...config import NUMBA_CACHE
from ...pruners import _kernels as PK
from ...learn._kernels import WeightView, combine, mix64, weight_view, wpeek  # noqa: F401 (WeightView, weight_view: re-exported)
from ...pruners._kernels import MAX_PAIR_KEYS, pair_keys

NEG = -np.inf
#: back-off class c is hashed as the label ``BACKOFF_BASE + c`` (above every label id)
BACKOFF_BASE = 1 << 40

_S3 = np.uint64(3)
_S7 = np.uint64(7)
_ONE = np.uint64(1)


# -- the kernels' packed arguments (numba reads a NamedTuple of arrays and scalars as one
#    argument; each field keeps the type the bare argument had, so the kernels compute
#    exactly what they computed with the arguments spelled out)
class HashKeys(NamedTuple):
    """The weight-index arguments ``hk`` of :func:`hindex` (:func:`hash_kernel_args`)."""

    mask: np.uint64
    positive: np.ndarray
    pos_mask: np.uint64
    pool_base: np.int64
    pool_mask: np.uint64


class Hashing(NamedTuple):
    """How a pass model turns (key, label) into weights: the labels' back-off classes
    ``back`` (``(L, B)``, :meth:`~plgraph.parser.scoring.labels.LabelVocab.backoff_classes`)
    and the :class:`HashKeys` ``hk``."""

    back: np.ndarray
    hk: HashKeys


class SentenceKeys(NamedTuple):
    """A sentence's feature-key tables: the token batch's word and tag hashes ``wh`` /
    ``th``, the sentence's first token ``base`` in them and its length ``n``."""

    wh: np.ndarray
    th: np.ndarray
    base: int
    n: int


class Candidates(NamedTuple):
    """The pairs ``(pc[k], pp[k])`` that may carry an edge and their candidate labels
    ``cand_lab[cand_off[k]:cand_off[k+1]]`` of kinds ``cand_kind`` (0 structural, 1 trace)."""

    pc: np.ndarray
    pp: np.ndarray
    cand_off: np.ndarray
    cand_lab: np.ndarray
    cand_kind: np.ndarray


class LossArgs(NamedTuple):
    """Loss augmentation: with ``augment``, per pair the gold label of each kind
    ``gold_s[k]`` / ``gold_t[k]`` (-1 none), and the Hamming weights ``extra`` (an edge
    gold lacks) and ``wrong`` (another label of a gold (pair, kind))."""

    gold_s: np.ndarray
    gold_t: np.ndarray
    augment: bool
    extra: float
    wrong: float


class BestLabels(NamedTuple):
    """What :func:`label_tables` writes per entry: best structural / trace score and label
    (-inf / -1: no candidate of that kind) and the chosen labels' plain scores."""

    s_best: np.ndarray
    s_lab: np.ndarray
    t_best: np.ndarray
    t_lab: np.ndarray
    s_plain: np.ndarray
    t_plain: np.ndarray


def best_labels(size: int) -> BestLabels:
    """Empty :class:`BestLabels` of ``size`` entries."""
    return BestLabels(np.empty(size), np.empty(size, np.int64), np.empty(size), np.empty(size, np.int64),
                      np.empty(size), np.empty(size))


def hash_kernel_args(bits: int, positive=None, pool_bits: int = 0) -> HashKeys:
    """The weight-index arguments ``hk`` of :func:`hindex`.  Without ``positive`` (a
    bitmap, uint8, a power of two bytes long) every (key, label) hashes into the
    ``2**bits`` weights."""
    pos = np.zeros(0, np.uint8) if positive is None else np.ascontiguousarray(positive, np.uint8)
    pos_mask = np.uint64(pos.shape[0] * 8 - 1) if pos.shape[0] else np.uint64(0)
    pool_mask = np.uint64((1 << pool_bits) - 1) if pos.shape[0] else np.uint64(0)
    return HashKeys(np.uint64((1 << bits) - 1), pos, pos_mask, np.int64(1 << bits), pool_mask)


@njit(cache=NUMBA_CACHE, inline="always")
def hindex(key, label, hk):
    """The weight of (``key``, ``label``): ``mix64(combine(key, label + 1))`` masked into
    the ``2**bits`` weights (:func:`plgraph.pruners._kernels.windex`) when ``hk`` has no
    positive bitmap or its bit is set (a "positive" feature, seen in a gold graph), else
    into the shared negative pool after them (the reference's ``negativeFeaturePower``
    pool)."""
    h = mix64(combine(key, np.uint64(label + 1)))
    pos = hk.positive
    if pos.shape[0] == 0:
        return np.int64(h & hk.mask)
    b = h & hk.pos_mask
    if (np.uint64(pos[b >> _S3]) >> (b & _S7)) & _ONE:
        return np.int64(h & hk.mask)
    return hk.pool_base + np.int64(h & hk.pool_mask)


@njit(cache=NUMBA_CACHE, inline="always")
def wget(wv, e):
    """Weight ``e`` of the :class:`WeightView` ``wv``, caught up without write-back
    (:func:`plgraph.learn._kernels.wpeek`)."""
    return wpeek(wv.w, wv.q, wv.u, wv.n, wv.eta, wv.C, wv.reg, e)


@njit(cache=NUMBA_CACHE, inline="always")
def hscore(keys, nk, label, hk, wv):
    """``sum_k w[hindex(keys[k], label, hk)]`` over ``keys[:nk]`` (caught up, not written back)."""
    s = 0.0
    for k in range(nk):
        s += wget(wv, hindex(keys[k], label, hk))
    return s


@njit(cache=NUMBA_CACHE, nogil=True)
def labelled_score(keys, nk, lab, cls_score, cls_stamp, stamp, fh, wv):
    """The score of keys ``keys[:nk]`` x label ``lab`` plus x each of its back-off classes
    ``fh.back[lab, :]`` (``fh``: :class:`Hashing`); a class's score is cached in
    ``cls_score`` while ``cls_stamp[c]`` equals ``stamp`` (one stamp per pair)."""
    back = fh.back
    s = hscore(keys, nk, lab, fh.hk, wv)
    for b in range(back.shape[1]):
        c = back[lab, b]
        if cls_stamp[c] != stamp:
            cls_stamp[c] = stamp
            cls_score[c] = hscore(keys, nk, BACKOFF_BASE + c, fh.hk, wv)
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
def label_tables(sk, cands, loss, fh, wv, out):
    """Best structural and best trace label of every listed pair ``(cands.pc[k], cands.pp[k])``
    of the sentence ``sk`` (:class:`SentenceKeys`; candidates :class:`Candidates`).

    With ``loss.augment`` each score gets its Hamming share first (:class:`LossArgs`:
    ``gold_s[k]`` / ``gold_t[k]`` the gold label of that kind, -1 none): 0 for the gold
    label, ``wrong`` for another label of a gold (pair, kind), ``extra`` otherwise.
    Writes ``out`` (:class:`BestLabels`) at k: best score and label per kind (-inf / -1:
    no candidate of that kind) and the chosen labels' plain (not augmented) scores.
    ``fh``: the model's :class:`Hashing` (back-off classes: :func:`labelled_score`);
    ``wv``: the :class:`WeightView`."""
    pc, pp, cand_off, cand_lab, cand_kind = cands
    keys = np.empty(MAX_PAIR_KEYS, np.uint64)
    cls_score, cls_stamp = class_cache(fh.back)
    best = np.empty(2)          # per kind (0 structural, 1 trace)
    lab_of = np.empty(2, np.int64)
    plain_of = np.empty(2)
    gold = np.empty(2, np.int64)
    for k in range(pc.shape[0]):
        nk = pair_keys(sk.wh, sk.th, sk.base, sk.n, pc[k], pp[k], np.bool_(False), keys)
        best[:] = NEG
        lab_of[:] = -1
        plain_of[:] = 0.0
        gold[0] = loss.gold_s[k]
        gold[1] = loss.gold_t[k]
        for j in range(cand_off[k], cand_off[k + 1]):
            lab = cand_lab[j]
            kind = cand_kind[j]
            plain = labelled_score(keys, nk, lab, cls_score, cls_stamp, k, fh, wv)
            sc = augmented(plain, gold[kind], lab, loss.augment, loss.extra, loss.wrong)
            if sc > best[kind]:
                best[kind] = sc
                lab_of[kind] = lab
                plain_of[kind] = plain
        put_best(out, k, best, lab_of, plain_of)


@njit(cache=NUMBA_CACHE, nogil=True)
def put_best(out, e, best, lab_of, plain_of):
    """Write entry ``e`` of ``out`` (:class:`BestLabels`) from the per-kind best score,
    label and plain score."""
    out.s_best[e] = best[0]
    out.s_lab[e] = lab_of[0]
    out.s_plain[e] = plain_of[0]
    out.t_best[e] = best[1]
    out.t_lab[e] = lab_of[1]
    out.t_plain[e] = plain_of[1]


@njit(cache=NUMBA_CACHE, nogil=True)
def candidate_scores(sk, cands, fh, wv, out):
    """``out[j]``: the plain score of every candidate label ``cands.cand_lab[j]`` of every
    listed pair (the per-label scores behind :func:`label_tables`' best ones; pass 3 reads
    labelled max-marginals off them, the reference's ``A2``)."""
    keys = np.empty(MAX_PAIR_KEYS, np.uint64)
    cls_score, cls_stamp = class_cache(fh.back)
    for k in range(cands.pc.shape[0]):
        nk = pair_keys(sk.wh, sk.th, sk.base, sk.n, cands.pc[k], cands.pp[k], np.bool_(False), keys)
        for j in range(cands.cand_off[k], cands.cand_off[k + 1]):
            out[j] = labelled_score(keys, nk, cands.cand_lab[j], cls_score, cls_stamp, k, fh, wv)


@njit(cache=NUMBA_CACHE, nogil=True)
def edge_features(sk, ec, ep, elab, sign, fh, out_idx, out_val):
    """Feature indices of the edges ``(ec[e], ep[e], elab[e])`` with value ``sign[e]``
    written to ``out_idx`` / ``out_val`` (room for ``MAX_PAIR_KEYS * (1 + back.shape[1])``
    per edge); returns how many were written."""
    keys = np.empty(MAX_PAIR_KEYS, np.uint64)
    m = 0
    for e in range(ec.shape[0]):
        nk = pair_keys(sk.wh, sk.th, sk.base, sk.n, ec[e], ep[e], np.bool_(False), keys)
        m = keyed_features(keys, nk, elab[e], sign[e], fh, out_idx, out_val, m)
    return m


@njit(cache=NUMBA_CACHE, nogil=True)
def keyed_features(keys, nk, lab, value, fh, out_idx, out_val, m):
    """Write the entries of keys ``keys[:nk]`` x label ``lab`` and x its back-off classes
    from ``out_idx[m]`` on; returns the new ``m`` (:func:`labelled_score`'s features)."""
    back, hk = fh
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
def weight_dot(idx, val, wv):
    """``sum_k val[k] * w[idx[k]]`` (``wv``: :class:`WeightView`), weights caught up
    without write-back."""
    s = 0.0
    for k in range(idx.shape[0]):
        s += val[k] * wget(wv, idx[k])
    return s

if NUMBA_CACHE:
    _numba_cache.guard_cache(__file__, label_tables, PK.__file__, PK._learn_kernels.__file__)
