"""Numba kernels of the language models, over flat numpy arrays.

The n-gram trie (:mod:`plgraph.lm.counts`) is flattened into one global index
space: level-1 entries are ``0..V-1`` (entry = word id), level ``k`` entries
start at ``base[k]``.  ``child_lo[g]:child_hi[g]`` are the global indices of
the children of entry ``g`` (its one-word extensions to the right), whose last
words ``word[...]`` are sorted, so a child is found by binary search.

Scoring walks the history like KenLM's state: ``hist[j]`` is the entry of the
last ``j`` words (or -1), and one binary search per level gives the entries of
the n-grams ending at the predicted word, which are the next ``hist``.

The PLRE NMF kernel fits ``T ~ U W`` under generalised KL with Lee & Seung's
multiplicative updates, slice by slice; rows and columns of a slice are
level-(k-1) entries (``(m w)`` and ``(x m)`` for the level-k n-gram ``x m w``),
``U``/``W`` rows live at ``u_ptr``/``w_ptr`` offsets.  Every run ends with the
context-side (W) update and a per-column rescaling, so the column sums of
``U W`` equal those of ``T`` to rounding: the PLRE normalisers stay exact.

The PLRE and NMF kernels take their arrays packed in the NamedTuples below
(:class:`Trie`, :class:`PLRETables`; :class:`SliceLayout`, :class:`NMFFactors`,
:class:`SparseLines`).  They are flat: numba's parallel loops cannot take a tuple of tuples.

The slow twins live in ``tests/naive.py``.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from ..config import NUMBA_CACHE

NEG_INF = -np.inf


class Trie(NamedTuple):
    """The flattened n-gram trie (:attr:`plgraph.lm.base.LanguageModel.flat`): level ``k``
    entries start at ``base[k]`` (int64 ``(order + 2,)``); entry ``g``'s children are the
    entries ``child_lo[g] .. child_hi[g] - 1`` (int64, one per entry), whose last words
    ``word[...]`` (int32, one per entry) are sorted."""

    base: np.ndarray
    word: np.ndarray
    child_lo: np.ndarray
    child_hi: np.ndarray


class PLRETables(NamedTuple):
    """A PLRE model's probability tables, indexed by global trie entry (:class:`Trie`).

    Term 0: ``t0`` (float64, one per entry) the unigram probability (level 1) or the
    discounted full-rank probability of the entry's n-gram, ``g0`` (float64, one per
    entry) the entry's gamma_0 as a context.  Low-rank terms, sorted by (level, -power):
    those of level ``k`` are ``term_lo[k] .. term_hi[k] - 1`` (int64 ``(order + 2,)``);
    term ``t``'s level-(k-1) entry ``e`` (relative to ``base[k-1]``) is at
    ``p = term_ptr_base[t] + e`` (int64, one per term), its U row is
    ``u_all[u_ptr[p] .. u_ptr[p + 1] - 1]``, its W column starts at ``w_all[w_ptr[p]]``
    (``u_ptr``, ``w_ptr`` int64; ``u_all``, ``w_all`` float64) and ``gam[p]`` (float64)
    is the term's leftover weight in context ``e``."""

    t0: np.ndarray
    g0: np.ndarray
    term_lo: np.ndarray
    term_hi: np.ndarray
    term_ptr_base: np.ndarray
    u_ptr: np.ndarray
    w_ptr: np.ndarray
    u_all: np.ndarray
    w_all: np.ndarray
    gam: np.ndarray


class SliceLayout(NamedTuple):
    """The slices of one NMF term and where their factors live (all int64): slice ``s``
    has rank ``kappa[s]`` (0: skipped), the rows (level-(k-1) entries)
    ``row_lo[s] .. row_hi[s] - 1`` and the columns ``col_nodes[col_ptr[s] .. col_ptr[s + 1] - 1]``;
    row ``r``'s factor values start at ``U[u_ptr[r]]``, column ``c``'s at ``W[w_ptr[c]]``
    (``u_ptr``, ``w_ptr``: ``(n_entries + 1,)``, last = the size of one fit's U / W)."""

    kappa: np.ndarray
    row_lo: np.ndarray
    row_hi: np.ndarray
    col_ptr: np.ndarray
    col_nodes: np.ndarray
    u_ptr: np.ndarray
    w_ptr: np.ndarray


class NMFFactors(NamedTuple):
    """The state of ``R`` independent NMF fits: fit ``r`` starts from the seed
    ``seeds[r]`` (int64 ``(R,)``) and keeps its factors in ``U[r*nu:(r+1)*nu]`` and
    ``W[r*nw:(r+1)*nw]`` (float64 ``(R * nu,)``, ``(R * nw,)``; ``nu``, ``nw`` the
    :class:`SliceLayout`'s ``u_ptr[-1]``, ``w_ptr[-1]``), updated in place."""

    seeds: np.ndarray
    U: np.ndarray
    W: np.ndarray


class SparseLines(NamedTuple):
    """The target matrix ``T`` of an NMF term (over level-(k-1) entries) by lines: its
    rows (CSR, ``idx`` = column entries) or its columns (CSC, ``idx`` = row entries).
    Line ``i`` has the entries ``val[ptr[i] .. ptr[i + 1] - 1]`` (float64; ``<= 0`` is
    unobserved) at the positions ``idx[...]`` (``ptr`` int64 ``(n_entries + 1,)``,
    ``idx`` int64)."""

    ptr: np.ndarray
    idx: np.ndarray
    val: np.ndarray


@njit(cache=NUMBA_CACHE)
def _find(word, lo, hi, w):
    """Index in ``[lo, hi)`` with ``word[index] == w`` (sorted run), or -1."""
    while lo < hi:
        mid = (lo + hi) >> 1
        x = word[mid]
        if x < w:
            lo = mid + 1
        elif x > w:
            hi = mid
        else:
            return mid
    return -1


# ----------------------------------------------------------------------------------------------
# Kneser-Ney family: ARPA-form back-off scoring (interpolated models store their full
# probabilities and gamma as back-off weight; back-off models their discounted ones and beta)

@njit(cache=NUMBA_CACHE)
def _backoff_logprob(w, hist, new, order, word, child_lo, child_hi, logp, logbow):
    lp = logp[w]
    acc = 0.0
    new[1] = w
    for k in range(2, order + 1):
        c = hist[k - 1]
        if c < 0:
            for j in range(k, order + 1):
                new[j] = -1
            break
        e = _find(word, child_lo[c], child_hi[c], w)
        new[k] = e
        if e >= 0:
            lp = logp[e]
            acc = 0.0
        else:
            acc += logbow[c]
    return lp + acc


@njit(cache=NUMBA_CACHE, parallel=True)
def backoff_stream_logprobs(tokens, starts, order, word, child_lo, child_hi, logp, logbow):
    """Natural-log probability of every predicted token (all but each sentence's ``<s>``)."""
    n_sent = starts.shape[0] - 1
    out = np.empty(tokens.shape[0] - n_sent, np.float64)
    for s in prange(n_sent):
        hist = np.full(order + 1, -1, np.int64)
        new = np.full(order + 1, -1, np.int64)
        a = starts[s]
        b = starts[s + 1]
        hist[1] = tokens[a]
        for i in range(a + 1, b):
            out[i - s - 1] = _backoff_logprob(tokens[i], hist, new, order, word, child_lo, child_hi, logp, logbow)
            for j in range(1, order):
                hist[j] = new[j]
    return out


@njit(cache=NUMBA_CACHE)
def backoff_distribution(hist, order, n_words, skip, word, child_lo, child_hi, logp, logbow):
    """P(w | history) for every word id ``w`` (``skip``, i.e. ``<s>``, gets 0)."""
    out = np.zeros(n_words, np.float64)
    new = np.full(order + 1, -1, np.int64)
    for w in range(n_words):
        if w != skip:
            out[w] = np.exp(_backoff_logprob(w, hist, new, order, word, child_lo, child_hi, logp, logbow))
    return out


@njit(cache=NUMBA_CACHE)
def context_nodes(context, order, word, child_lo, child_hi):
    """``hist`` for a context given as word ids (``context[0]`` may be ``<s>``); last words matter."""
    hist = np.full(order + 1, -1, np.int64)
    n = context.shape[0]
    for j in range(1, order):
        if j > n:
            break
        g = context[n - j]
        ok = True
        for q in range(n - j + 1, n):
            g = _find(word, child_lo[g], child_hi[g], context[q])
            if g < 0:
                ok = False
                break
        if ok:
            hist[j] = g
        else:
            break
    return hist


# ----------------------------------------------------------------------------------------------
# PLRE scoring: nested interpolation, term 0 (full rank, power 1) outermost, the lower
# order innermost (the PLRE paper's Eq. 33); low-rank terms cost O(rank) each.

@njit(cache=NUMBA_CACHE)
def _plre_prob(w, hist, new, order, trie, tables):
    """P(w | hist) under the :class:`PLRETables` ``tables`` over the :class:`Trie`
    ``trie``; writes the entries of the n-grams ending at ``w`` into ``new``."""
    base, word, child_lo, child_hi = trie
    t0, g0, term_lo, term_hi, term_ptr_base, u_ptr, w_ptr, u_all, w_all, gam = tables
    p = t0[w]
    new[1] = w
    for k in range(2, order + 1):
        c = hist[k - 1]
        if c < 0 or child_lo[c] == child_hi[c]:
            for j in range(k, order + 1):
                new[j] = -1
            break
        e = _find(word, child_lo[c], child_hi[c], w)
        new[k] = e
        r = new[k - 1]
        inner = p
        rel_c = c - base[k - 1]
        for t in range(term_hi[k] - 1, term_lo[k] - 1, -1):
            pc = term_ptr_base[t] + rel_c
            z = 0.0
            if r >= 0:
                pr = term_ptr_base[t] + (r - base[k - 1])
                ua = u_ptr[pr]
                n = u_ptr[pr + 1] - ua
                wa = w_ptr[pc]
                for q in range(n):
                    z += u_all[ua + q] * w_all[wa + q]
            inner = z + gam[pc] * inner
        first = t0[e] if e >= 0 else 0.0
        p = first + g0[c] * inner
    return p


@njit(cache=NUMBA_CACHE, parallel=True)
def plre_stream_logprobs(tokens, starts, order, trie, tables):
    """Natural-log probability of every predicted token (all but each sentence's ``<s>``)
    under the :class:`PLRETables` ``tables`` over the :class:`Trie` ``trie``."""
    n_sent = starts.shape[0] - 1
    out = np.empty(tokens.shape[0] - n_sent, np.float64)
    for s in prange(n_sent):
        hist = np.full(order + 1, -1, np.int64)
        new = np.full(order + 1, -1, np.int64)
        a = starts[s]
        b = starts[s + 1]
        hist[1] = tokens[a]
        for i in range(a + 1, b):
            p = _plre_prob(tokens[i], hist, new, order, trie, tables)
            out[i - s - 1] = np.log(p) if p > 0 else NEG_INF
            for j in range(1, order):
                hist[j] = new[j]
    return out


@njit(cache=NUMBA_CACHE)
def plre_distribution(hist, order, n_words, skip, trie, tables):
    """P(w | history) for every word id ``w`` (``skip``, i.e. ``<s>``, gets 0) under the
    :class:`PLRETables` ``tables`` over the :class:`Trie` ``trie``."""
    out = np.zeros(n_words, np.float64)
    new = np.full(order + 1, -1, np.int64)
    for w in range(n_words):
        if w != skip:
            out[w] = _plre_prob(w, hist, new, order, trie, tables)
    return out


# ----------------------------------------------------------------------------------------------
# Generalised-KL NMF with multiplicative updates, per slice

@njit(cache=NUMBA_CACHE)
def init_value(seed, which, index, k):
    """Deterministic pseudo-random start value in [0.5, 1.5) (splitmix64 of the coordinates)."""
    x = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15)
    x ^= np.uint64(which) * np.uint64(0xBF58476D1CE4E5B9)
    x ^= np.uint64(index) * np.uint64(0x94D049BB133111EB)
    x += np.uint64(k) * np.uint64(0x2545F4914F6CDD1D)
    x ^= x >> np.uint64(30)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    return 0.5 + float(x >> np.uint64(11)) / 9007199254740992.0


@njit(cache=NUMBA_CACHE)
def _init_slice(s, seed, kap, layout, U, W):
    """Start values of slice ``s``'s factors (:class:`SliceLayout` ``layout``, one fit's
    ``U``, ``W``)."""
    _, row_lo, row_hi, col_ptr, col_nodes, u_ptr, w_ptr = layout
    for r in range(row_lo[s], row_hi[s]):
        ua = u_ptr[r]
        for k in range(kap):
            U[ua + k] = init_value(seed, 0, r, k)
    for q in range(col_ptr[s], col_ptr[s + 1]):
        c = col_nodes[q]
        wa = w_ptr[c]
        for k in range(kap):
            W[wa + k] = init_value(seed, 1, c, k)


@njit(cache=NUMBA_CACHE)
def _update_factor(i, kap, other_sum, num, X, Y, x_ptr, y_ptr, lines):
    """One multiplicative gKL update of the factor row ``X[x_ptr[i]:+kap]`` from the
    nonzeros ``(idx, val)[ptr[i]:ptr[i+1]]`` of its target row (``lines`` the
    :class:`SparseLines` of the target by row, X = U) or column (by column, X = W,
    Y = U): ``X_k <- X_k * sum_j (T_j / (X.Y_j)) Y_jk / sum_j Y_jk``."""
    ptr, idx, val = lines
    xa = x_ptr[i]
    for k in range(kap):
        num[k] = 0.0
    for q in range(ptr[i], ptr[i + 1]):
        t = val[q]
        if t <= 0.0:
            continue
        ya = y_ptr[idx[q]]
        z = 0.0
        for k in range(kap):
            z += X[xa + k] * Y[ya + k]
        if z > 0.0:
            f = t / z
            for k in range(kap):
                num[k] += f * Y[ya + k]
    for k in range(kap):
        X[xa + k] = X[xa + k] * num[k] / other_sum[k] if other_sum[k] > 0.0 else 0.0


@njit(cache=NUMBA_CACHE)
def _fix_col(c, kap, usum, W, w_ptr, csc_ptr, csc_val):
    """Rescale column c so that sum_r (U W)[r, c] equals sum_r T[r, c] to rounding."""
    wa = w_ptr[c]
    target = 0.0
    for q in range(csc_ptr[c], csc_ptr[c + 1]):
        if csc_val[q] > 0.0:
            target += csc_val[q]
    current = 0.0
    for k in range(kap):
        current += usum[k] * W[wa + k]
    if current > 0.0:
        f = target / current
        for k in range(kap):
            W[wa + k] *= f
    else:
        for k in range(kap):
            W[wa + k] = 0.0


@njit(cache=NUMBA_CACHE)
def _slice_sums(s, kap, layout, U, W, usum, wsum):
    """``usum``/``wsum``: the sums over slice ``s``'s rows of ``U`` / columns of ``W``
    (:class:`SliceLayout` ``layout``), per rank component."""
    _, row_lo, row_hi, col_ptr, col_nodes, u_ptr, w_ptr = layout
    for k in range(kap):
        usum[k] = 0.0
        wsum[k] = 0.0
    for r in range(row_lo[s], row_hi[s]):
        ua = u_ptr[r]
        for k in range(kap):
            usum[k] += U[ua + k]
    for q in range(col_ptr[s], col_ptr[s + 1]):
        wa = w_ptr[col_nodes[q]]
        for k in range(kap):
            wsum[k] += W[wa + k]


@njit(cache=NUMBA_CACHE)
def _fit_slice(i, slices, n_iter, start, finish, layout, factors, by_row, by_col):
    """:func:`nmf_fit`'s work on its ``i``-th (fit, slice) pair (a call of its own: numba's
    parallel loop would drop the writes to arrays unpacked from a tuple argument)."""
    kappa, row_lo, row_hi, col_ptr, col_nodes, u_ptr, w_ptr = layout
    seeds, U, W = factors
    csc_ptr, csc_val = by_col.ptr, by_col.val
    n = slices.shape[0]
    nu = u_ptr[u_ptr.shape[0] - 1]
    nw = w_ptr[w_ptr.shape[0] - 1]
    r = i // n
    s = slices[i - r * n]
    kap = kappa[s]
    if kap == 0:
        return
    Ur = U[r * nu:(r + 1) * nu]
    Wr = W[r * nw:(r + 1) * nw]
    if start:
        _init_slice(s, seeds[r], kap, layout, Ur, Wr)
    usum = np.zeros(kap)
    wsum = np.zeros(kap)
    num = np.zeros(kap)
    for it in range(n_iter):
        _slice_sums(s, kap, layout, Ur, Wr, usum, wsum)
        for row in range(row_lo[s], row_hi[s]):
            _update_factor(row, kap, wsum, num, Ur, Wr, u_ptr, w_ptr, by_row)
        _slice_sums(s, kap, layout, Ur, Wr, usum, wsum)
        for q in range(col_ptr[s], col_ptr[s + 1]):
            _update_factor(col_nodes[q], kap, usum, num, Wr, Ur, w_ptr, u_ptr, by_col)
    if finish:
        _slice_sums(s, kap, layout, Ur, Wr, usum, wsum)
        for q in range(col_ptr[s], col_ptr[s + 1]):
            _fix_col(col_nodes[q], kap, usum, Wr, w_ptr, csc_ptr, csc_val)


@njit(cache=NUMBA_CACHE, parallel=True)
def nmf_fit(slices, n_restarts, n_iter, start, finish, layout, factors, by_row, by_col):
    """``n_iter`` U-then-W iterations on each slice of ``slices`` (:class:`SliceLayout`
    ``layout``; the target by row and by column, :class:`SparseLines` ``by_row``,
    ``by_col``), for each of ``n_restarts`` independent fits (:class:`NMFFactors`
    ``factors``: fit r uses ``U[r*nu:(r+1)*nu]``, ``W[r*nw:(r+1)*nw]`` and ``seeds[r]``).

    Parallel over (fit, slice) pairs, with no synchronisation inside a fit: fits and
    slices are independent.  ``start`` initialises the factors first; ``finish``
    rescales every column to its target sum at the end.  A run may be split into
    calls (``start`` on the first, ``finish`` on the last): the state is U and W.
    """
    for i in prange(n_restarts * slices.shape[0]):
        _fit_slice(np.int64(i), slices, n_iter, start, finish, layout, factors, by_row, by_col)
