"""Numba kernels of the trace and spine classifiers.

Features are hashed: a template's atoms are combined into a 64-bit key
(:func:`plgraph.learn._kernels.combine`), and the weight of (feature, label) is
at ``mix64(combine(key, label + 1)) & mask`` in a flat weight vector of size
``mask + 1``.  Weights are read through :func:`plgraph.learn._kernels.wpeek`
(AdaGrad's lazy catch-up, not written back: sentences of a mini-batch are decoded in
parallel (``prange``) and a write-back could be seen half done by another thread, making
training depend on thread timing); each sentence writes its share of the summed
subgradient into its own slice of the output.

Token atoms per corpus (concatenated over sentences, ``tok_off`` CSR): ``wh``
normalised-word hash, ``th`` tag hash, ``tid`` small tag id.  The decoders take their
arrays packed in the NamedTuples below (:class:`TokenAtoms`, :class:`TraceGold`,
:class:`SpineCandidates`, :class:`GradientBuffers`) and the learner's
:class:`~plgraph.learn._kernels.WeightView`.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from ..config import NUMBA_CACHE
from ..learn._kernels import combine, mix64, wpeek

# distinct template ids (any fixed distinct constants)
_BOS = np.uint64(0x9E3779B97F4A7C15)
_EOS = np.uint64(0xC2B2AE3D27D4EB4F)
MAX_PAIR_KEYS = 48
MAX_WORD_KEYS = 32


class TokenAtoms(NamedTuple):
    """Token atoms of a list of sentences, CSR over sentences
    (:class:`plgraph.encoding.TokenBatch`): sentence ``s`` is tokens
    ``tok_off[s] .. tok_off[s + 1] - 1`` (int64 ``(n_sentences + 1,)``); per token ``wh``
    the normalised-word hash and ``th`` the tag hash (uint64), ``tid`` the tag id (int64)."""

    tok_off: np.ndarray
    wh: np.ndarray
    th: np.ndarray
    tid: np.ndarray


class TraceGold(NamedTuple):
    """Gold trace edges of known type, CSR over sentences: sentence ``s`` has the edges
    ``off[s] .. off[s + 1] - 1`` (int64 ``(n_sentences + 1,)``), edge ``g`` from word
    ``child[g]`` to word ``parent[g]`` (sentence positions) with label id ``label[g] > 0``
    (all int64)."""

    off: np.ndarray
    child: np.ndarray
    parent: np.ndarray
    label: np.ndarray


class SpineCandidates(NamedTuple):
    """The spines a word may get, by its tag id ``t``: label ids
    ``lab[off[t] .. off[t + 1] - 1]`` (``off`` int64 ``(n_tags + 1,)``, ``lab`` int64)."""

    off: np.ndarray
    lab: np.ndarray


class GradientBuffers(NamedTuple):
    """Where a batch decoder writes: sentence ``b`` of the batch writes its (weight
    index, value) entries to ``idx``/``val`` (int64, float64) from ``off[b]`` on, their
    number to ``m[b]`` (int64) and its loss to ``loss[b]`` (float64)."""

    off: np.ndarray
    idx: np.ndarray
    val: np.ndarray
    m: np.ndarray
    loss: np.ndarray


@njit(cache=NUMBA_CACHE, inline="always")
def _atom(arr, base, n, i):
    if i < 0:
        return _BOS
    if i >= n:
        return _EOS
    return arr[base + i]


@njit(cache=NUMBA_CACHE, inline="always")
def _k2(t, a, b):
    return combine(combine(np.uint64(t), a), b)


@njit(cache=NUMBA_CACHE, inline="always")
def _k3(t, a, b, c):
    return combine(_k2(t, a, b), c)


@njit(cache=NUMBA_CACHE, inline="always")
def _k4(t, a, b, c, d):
    return combine(_k3(t, a, b, c), d)


@njit(cache=NUMBA_CACHE)
def dist_bin(d):
    """McDonald-style distance: exact up to 5, then 6-10, 11-20, 21-40, >40."""
    if d <= 5:
        return d
    if d <= 10:
        return 6
    if d <= 20:
        return 7
    if d <= 40:
        return 8
    return 9


@njit(cache=NUMBA_CACHE)
def pair_keys(wh, th, base, n, c, p, none_class, out):
    """Feature keys of the ordered word pair (child c, parent p); returns their number.

    Trace labels use the first-order arc templates of McDonald et al. (2005)
    (unigrams, bigrams, in-between POS, surrounding POS), each once plain and
    once conjoined with direction and binned distance; the "no trace" class uses a
    small set (word of each end; tag pair with direction and distance in bins of
    5; back-offs), as in the reference parser.
    """
    cw = _atom(wh, base, n, c)
    ct = _atom(th, base, n, c)
    pw = _atom(wh, base, n, p)
    pt = _atom(th, base, n, p)
    right = 1 if p > c else 0
    d = abs(p - c)
    m = 0
    if none_class:
        b5 = np.uint64(min(d // 5, 8))
        dd = np.uint64(2 + right)
        out[m] = _k2(100, cw, np.uint64(1)); m += 1
        out[m] = _k2(101, pw, np.uint64(2)); m += 1
        out[m] = _k4(102, ct, pt, dd, b5); m += 1
        out[m] = _k3(103, ct, pt, dd); m += 1
        out[m] = _k3(104, ct, dd, b5); m += 1
        out[m] = _k3(105, pt, dd, b5); m += 1
        out[m] = _k2(106, ct, pt); m += 1
        return m
    c1 = _atom(th, base, n, c - 1)
    c2 = _atom(th, base, n, c + 1)
    p1 = _atom(th, base, n, p - 1)
    p2 = _atom(th, base, n, p + 1)
    start = 0
    # plain templates
    out[m] = _k2(1, pw, pt); m += 1
    out[m] = _k2(2, pw, np.uint64(0)); m += 1
    out[m] = _k2(3, pt, np.uint64(0)); m += 1
    out[m] = _k2(4, cw, ct); m += 1
    out[m] = _k2(5, cw, np.uint64(0)); m += 1
    out[m] = _k2(6, ct, np.uint64(0)); m += 1
    out[m] = combine(_k4(7, pw, pt, cw, ct), np.uint64(0)); m += 1
    out[m] = _k4(8, pt, cw, ct, np.uint64(0)); m += 1
    out[m] = _k4(9, pw, cw, ct, np.uint64(0)); m += 1
    out[m] = _k4(10, pw, pt, ct, np.uint64(0)); m += 1
    out[m] = _k4(11, pw, pt, cw, np.uint64(0)); m += 1
    out[m] = _k3(12, pw, cw, np.uint64(0)); m += 1
    out[m] = _k3(13, pt, ct, np.uint64(0)); m += 1
    out[m] = combine(_k4(14, pt, p2, c1, ct), np.uint64(0)); m += 1
    out[m] = combine(_k4(15, p1, pt, c1, ct), np.uint64(0)); m += 1
    out[m] = combine(_k4(16, pt, p2, ct, c2), np.uint64(0)); m += 1
    out[m] = combine(_k4(17, p1, pt, ct, c2), np.uint64(0)); m += 1
    # every distinct tag between the two words (up to 6), with both ends' tags
    lo = min(c, p)
    hi = max(c, p)
    seen = np.empty(6, np.uint64)
    n_seen = 0
    for k in range(lo + 1, hi):
        tb = th[base + k]
        new = True
        for j in range(n_seen):
            if seen[j] == tb:
                new = False
                break
        if new:
            seen[n_seen] = tb
            n_seen += 1
            out[m] = _k4(18, pt, tb, ct, np.uint64(0)); m += 1
            if n_seen == 6:
                break
    plain = m
    dd = combine(np.uint64(right + 7), np.uint64(dist_bin(d)))
    for k in range(start, plain):
        out[m] = combine(out[k], dd)
        m += 1
    return m


@njit(cache=NUMBA_CACHE)
def word_keys(wh, th, base, n, i, out):
    """Spine features of word i: the 16 sub-patterns of the POS 5-gram window
    that keep the word's own tag, and (word, tag) / word / tag at offsets -2..+2."""
    m = 0
    t = [_atom(th, base, n, i + o) for o in (-2, -1, 0, 1, 2)]
    for mask in range(16):
        key = combine(np.uint64(200 + mask), t[2])
        if mask & 1:
            key = combine(key, t[0])
        if mask & 2:
            key = combine(key, t[1])
        if mask & 4:
            key = combine(key, t[3])
        if mask & 8:
            key = combine(key, t[4])
        out[m] = key
        m += 1
    for o in range(-2, 3):
        w = _atom(wh, base, n, i + o)
        tg = _atom(th, base, n, i + o)
        out[m] = _k2(300 + o, w, tg); m += 1
        out[m] = _k2(310 + o, w, np.uint64(0)); m += 1
        out[m] = _k2(320 + o, tg, np.uint64(0)); m += 1
    return m


@njit(cache=NUMBA_CACHE, inline="always")
def windex(key, label, mask):
    return np.int64(mix64(combine(key, np.uint64(label + 1))) & np.uint64(mask))


@njit(cache=NUMBA_CACHE)
def score(keys, nk, label, mask, wv):
    """Score of ``label`` from the first ``nk`` feature keys ``keys``: their weights in
    the :class:`~plgraph.learn._kernels.WeightView` ``wv``, read through :func:`wpeek`."""
    w, q, u, n, eta, C, reg = wv
    s = 0.0
    for k in range(nk):
        s += wpeek(w, q, u, n, eta, C, reg, windex(keys[k], label, mask))
    return s


# ---------------------------------------------------------------------------------------------
# trace classifier
# ---------------------------------------------------------------------------------------------
@njit(cache=NUMBA_CACHE)
def trace_candidates(tid, base, n, c, p, allowed, out):
    """Trace labels allowed for the pair's POS pair (label 0 = no trace is always allowed)."""
    m = 0
    out[m] = 0
    m += 1
    a = allowed[tid[base + c], tid[base + p]]
    for lab in range(1, a.shape[0]):
        if a[lab]:
            out[m] = lab
            m += 1
    return m


@njit(cache=NUMBA_CACHE)
def trace_sentence_scores(tokens, base, n, allowed, mask, wv):
    """Scores ``S[c, p, label]`` of the sentence of ``n`` tokens from ``base`` on
    (:class:`TokenAtoms` ``tokens``, weights :class:`~plgraph.learn._kernels.WeightView`
    ``wv``; ``-inf`` where a label is not a candidate)."""
    wh, th, tid = tokens.wh, tokens.th, tokens.tid
    L = allowed.shape[2]
    S = np.full((n, n, L), -np.inf)
    keys_a = np.empty(MAX_PAIR_KEYS, np.uint64)
    keys_b = np.empty(MAX_PAIR_KEYS, np.uint64)
    cand = np.empty(L, np.int64)
    for c in range(n):
        for p in range(n):
            if c == p:
                continue
            nc = trace_candidates(tid, base, n, c, p, allowed, cand)
            # np.bool_(...), not a literal: one compiled pair_keys for both classes (and passes 2-3)
            nb = pair_keys(wh, th, base, n, c, p, np.bool_(True), keys_b)
            S[c, p, 0] = score(keys_b, nb, 0, mask, wv)
            if nc > 1:
                na = pair_keys(wh, th, base, n, c, p, np.bool_(False), keys_a)
                for t in range(1, nc):
                    S[c, p, cand[t]] = score(keys_a, na, cand[t], mask, wv)
    return S


@njit(cache=NUMBA_CACHE)
def _trace_sentence(bi, batch, tokens, gold_edges, allowed, mask, cost, wv, out):
    """:func:`trace_batch`'s work on sentence ``batch[bi]`` (a call of its own: numba's
    parallel loop would drop the writes to arrays unpacked from a tuple argument)."""
    tok_off, wh, th, tid = tokens
    gold_off, gold_c, gold_p, gold_l = gold_edges
    out_off, out_idx, out_val, out_m, out_loss = out
    L = allowed.shape[2]
    s = batch[bi]
    base = tok_off[s]
    n = tok_off[s + 1] - base
    gold = np.zeros((n, n), np.int64)
    for g in range(gold_off[s], gold_off[s + 1]):
        gold[gold_c[g], gold_p[g]] = gold_l[g]
    keys_a = np.empty(MAX_PAIR_KEYS, np.uint64)
    keys_b = np.empty(MAX_PAIR_KEYS, np.uint64)
    cand = np.empty(L, np.int64)
    pos = out_off[bi]
    loss = 0.0
    for c in range(n):
        for p in range(n):
            if c == p:
                continue
            nc = trace_candidates(tid, base, n, c, p, allowed, cand)
            g = gold[c, p]
            if nc == 1 and g == 0:
                continue  # only "no trace" is possible and it is right
            nb = pair_keys(wh, th, base, n, c, p, np.bool_(True), keys_b)
            na = pair_keys(wh, th, base, n, c, p, np.bool_(False), keys_a)
            best = -1
            best_s = -np.inf
            gold_ok = g == 0
            for t in range(nc):
                lab = cand[t]
                if lab == g:
                    gold_ok = True
                if lab == 0:
                    sc = score(keys_b, nb, 0, mask, wv)
                else:
                    sc = score(keys_a, na, lab, mask, wv)
                if lab != g:
                    sc += cost
                if sc > best_s:
                    best_s = sc
                    best = lab
            if best == g:
                continue
            loss += 1.0
            # + f(pred)
            if best == 0:
                for k in range(nb):
                    out_idx[pos] = windex(keys_b[k], 0, mask); out_val[pos] = 1.0; pos += 1
            else:
                for k in range(na):
                    out_idx[pos] = windex(keys_a[k], best, mask); out_val[pos] = 1.0; pos += 1
            # - f(gold), when the gold label is a candidate it can be scored with
            if g == 0:
                for k in range(nb):
                    out_idx[pos] = windex(keys_b[k], 0, mask); out_val[pos] = -1.0; pos += 1
            elif gold_ok:
                for k in range(na):
                    out_idx[pos] = windex(keys_a[k], g, mask); out_val[pos] = -1.0; pos += 1
    out_m[bi] = pos - out_off[bi]
    out_loss[bi] = loss


@njit(cache=NUMBA_CACHE, parallel=True)
def trace_batch(batch, tokens, gold_edges, allowed, mask, cost, wv, out):
    """Loss-augmented decode of every candidate pair of the batch's sentences and
    their gradient entries f(pred) - f(gold) (:class:`TokenAtoms` ``tokens``,
    :class:`TraceGold` ``gold_edges``, weights :class:`~plgraph.learn._kernels.WeightView`
    ``wv``; sentence b writes to the :class:`GradientBuffers` ``out`` from ``out.off[b]``)."""
    for bi in prange(batch.shape[0]):
        _trace_sentence(np.int64(bi), batch, tokens, gold_edges, allowed, mask, cost, wv, out)


@njit(cache=NUMBA_CACHE)
def trace_batch_sizes(batch, tok_off, tid, gold_off, gold_c, gold_p, allowed):
    """Upper bound of gradient entries per sentence of the batch."""
    out = np.zeros(batch.shape[0], np.int64)
    L = allowed.shape[2]
    cand = np.empty(L, np.int64)
    for bi in range(batch.shape[0]):
        s = batch[bi]
        base = tok_off[s]
        n = tok_off[s + 1] - base
        count = 0
        for c in range(n):
            for p in range(n):
                if c != p and trace_candidates(tid, base, n, c, p, allowed, cand) > 1:
                    count += 1
        count += gold_off[s + 1] - gold_off[s]
        out[bi] = count * 2 * MAX_PAIR_KEYS
    return out


# ---------------------------------------------------------------------------------------------
# spine classifier
# ---------------------------------------------------------------------------------------------
@njit(cache=NUMBA_CACHE)
def spine_sentence_scores(tokens, base, n, cands, mask, wv):
    """Scores of every candidate spine of every word of the sentence of ``n`` tokens from
    ``base`` on (:class:`TokenAtoms` ``tokens``, :class:`SpineCandidates` ``cands``,
    weights :class:`~plgraph.learn._kernels.WeightView` ``wv``): (n, max candidates),
    -inf padded; candidate k of word i is ``cands.lab[cands.off[tid] + k]``."""
    wh, th, tid = tokens.wh, tokens.th, tokens.tid
    cand_off, cand_lab = cands
    width = 1
    for i in range(n):
        t = tid[base + i]
        width = max(width, cand_off[t + 1] - cand_off[t])
    S = np.full((n, width), -np.inf)
    keys = np.empty(MAX_WORD_KEYS, np.uint64)
    for i in range(n):
        nk = word_keys(wh, th, base, n, i, keys)
        t = tid[base + i]
        for k in range(cand_off[t], cand_off[t + 1]):
            S[i, k - cand_off[t]] = score(keys, nk, cand_lab[k], mask, wv)
    return S


@njit(cache=NUMBA_CACHE)
def _spine_sentence(bi, batch, tokens, gold, cands, mask, cost, wv, out):
    """:func:`spine_batch`'s work on sentence ``batch[bi]`` (a call of its own: numba's
    parallel loop would drop the writes to arrays unpacked from a tuple argument)."""
    tok_off, wh, th, tid = tokens
    cand_off, cand_lab = cands
    out_off, out_idx, out_val, out_m, out_loss = out
    s = batch[bi]
    base = tok_off[s]
    n = tok_off[s + 1] - base
    keys = np.empty(MAX_WORD_KEYS, np.uint64)
    pos = out_off[bi]
    loss = 0.0
    for i in range(n):
        t = tid[base + i]
        g = gold[base + i]
        nk = word_keys(wh, th, base, n, i, keys)
        best = -1
        best_s = -np.inf
        gold_ok = False
        for k in range(cand_off[t], cand_off[t + 1]):
            lab = cand_lab[k]
            sc = score(keys, nk, lab, mask, wv)
            if lab == g:
                gold_ok = True
            else:
                sc += cost
            if sc > best_s:
                best_s = sc
                best = lab
        if best == g or best < 0:
            continue
        loss += 1.0
        for k in range(nk):
            out_idx[pos] = windex(keys[k], best, mask); out_val[pos] = 1.0; pos += 1
        if gold_ok:
            for k in range(nk):
                out_idx[pos] = windex(keys[k], g, mask); out_val[pos] = -1.0; pos += 1
    out_m[bi] = pos - out_off[bi]
    out_loss[bi] = loss


@njit(cache=NUMBA_CACHE, parallel=True)
def spine_batch(batch, tokens, gold, cands, mask, cost, wv, out):
    """Loss-augmented decode of every word's spine and the gradient entries
    (:class:`TokenAtoms` ``tokens``, gold spine label id per token ``gold`` (int64),
    :class:`SpineCandidates` ``cands``, weights :class:`~plgraph.learn._kernels.WeightView`
    ``wv``; sentence b writes to the :class:`GradientBuffers` ``out`` from ``out.off[b]``)."""
    for bi in prange(batch.shape[0]):
        _spine_sentence(np.int64(bi), batch, tokens, gold, cands, mask, cost, wv, out)


# numba does not notice when the inlined hashing/weight-reading kernels of plgraph.learn change
from ..files import _numba_cache as _cache  # noqa: E402
from ..learn import _kernels as _learn_kernels  # noqa: E402

_cache.guard_cache(__file__, dist_bin, _learn_kernels.__file__)
