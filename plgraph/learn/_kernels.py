"""Numba kernels of the learning core: hashing, the feature table, label-structured
weight blocks, lazy (catch-up) weight reads and the sparse update steps.

Everything works on flat numpy arrays; :mod:`plgraph.learn` wraps them.  The slow
twins (dense AdaGrad, dict-based label scoring) live in ``tests/naive.py``.

Cache note: model kernels elsewhere (``plgraph.dep._kernels``) inline the ``@njit``
helpers defined here.  Numba's on-disk cache is invalidated by the *defining* file
only; such modules call :func:`plgraph.files._numba_cache.guard_cache` so that an edit here
purges their cached code.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from ..config import NUMBA_CACHE

# ---------------------------------------------------------------------------------------------
# hashing

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S6 = np.uint64(6)
_S2 = np.uint64(2)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)


@njit(cache=NUMBA_CACHE, inline="always")
def mix64(x):
    """splitmix64 finaliser: a bijection on uint64 with full avalanche."""
    x = np.uint64(x)
    x = (x ^ (x >> _S30)) * _M1
    x = (x ^ (x >> _S27)) * _M2
    return x ^ (x >> _S31)


@njit(cache=NUMBA_CACHE, inline="always")
def combine(h, v):
    """Order-dependent combination of a running hash ``h`` with a value ``v``."""
    h = np.uint64(h)
    return mix64(h ^ (np.uint64(v) + _GOLDEN + (h << _S6) + (h >> _S2)))


@njit(cache=NUMBA_CACHE)
def fnv1a_segments(buf, starts, ends):
    """Stable 64-bit hash of each byte segment ``buf[starts[i]:ends[i]]`` (FNV-1a, then
    splitmix64).  Never returns 0 (0 marks an empty table slot)."""
    m = starts.shape[0]
    out = np.empty(m, np.uint64)
    for i in range(m):
        h = _FNV_OFFSET
        for k in range(starts[i], ends[i]):
            h = (h ^ np.uint64(buf[k])) * _FNV_PRIME
        h = mix64(h)
        if h == _ZERO:
            h = _ONE
        out[i] = h
    return out


# ---------------------------------------------------------------------------------------------
# open-addressing feature table: keys (uint64, 0 = empty) -> int32 ids, interleaved so that
# key and value share a cache line: table[slot, 0] = key, table[slot, 1] = value


@njit(cache=NUMBA_CACHE, inline="always")
def table_lookup(table, key):
    """Id of ``key`` or -1.  ``table.shape[0]`` is a power of two."""
    if key == _ZERO:
        key = _ONE
    mask = np.uint64(table.shape[0] - 1)
    i = key & mask
    while True:
        k = table[i, 0]
        if k == key:
            return np.int64(table[i, 1])
        if k == _ZERO:
            return np.int64(-1)
        i = (i + _ONE) & mask


@njit(cache=NUMBA_CACHE)
def table_insert_many(table, keys, next_id):
    """Insert ``keys`` (ids assigned in order of first appearance, starting at
    ``next_id``); return (ids, next_id).  Returns next_id = -1 if the table would
    exceed a 0.5 load factor (the caller grows it and retries)."""
    cap = table.shape[0]
    mask = np.uint64(cap - 1)
    ids = np.empty(keys.shape[0], np.int64)
    for j in range(keys.shape[0]):
        key = keys[j]
        if key == _ZERO:
            key = _ONE
        i = key & mask
        while True:
            k = table[i, 0]
            if k == key:
                ids[j] = np.int64(table[i, 1])
                break
            if k == _ZERO:
                if 2 * (next_id + 1) > cap:
                    return ids, np.int64(-1)
                table[i, 0] = key
                table[i, 1] = np.uint64(next_id)
                ids[j] = next_id
                next_id += 1
                break
            i = (i + _ONE) & mask
    return ids, next_id


# a blocked Bloom filter in front of the table: most keys a decoder asks for are unknown
# (features of wrong arcs), and the filter answers "absent" from a cache-resident bit
# array instead of a probe of the (large) table.  Two bits per key, in one 64-bit word.
_S16 = np.uint64(16)
_S58 = np.uint64(58)
_S52 = np.uint64(52)
_M63 = np.uint64(63)


@njit(cache=NUMBA_CACHE, inline="always")
def bloom_bits(key):
    return (_ONE << ((key >> _S58) & _M63)) | (_ONE << ((key >> _S52) & _M63))


@njit(cache=NUMBA_CACHE)
def bloom_build(table, n_words):
    """Filter (``n_words`` a power of two) over the keys stored in ``table``."""
    bloom = np.zeros(n_words, np.uint64)
    mask = np.uint64(n_words - 1)
    for i in range(table.shape[0]):
        key = table[i, 0]
        if key != _ZERO:
            bloom[(key >> _S16) & mask] |= bloom_bits(key)
    return bloom


@njit(cache=NUMBA_CACHE, inline="always")
def filtered_lookup(table, bloom, key):
    """:func:`table_lookup` behind the Bloom filter ``bloom`` (same result)."""
    if key == _ZERO:
        key = _ONE
    b = bloom_bits(key)
    if bloom[(key >> _S16) & np.uint64(bloom.shape[0] - 1)] & b != b:
        return np.int64(-1)
    return table_lookup(table, key)


@njit(cache=NUMBA_CACHE)
def table_lookup_many(table, keys):
    out = np.empty(keys.shape[0], np.int64)
    for j in range(keys.shape[0]):
        out[j] = table_lookup(table, keys[j])
    return out


@njit(cache=NUMBA_CACHE)
def table_items(table):
    """(keys, ids) of the occupied slots, ordered by id."""
    n = 0
    for i in range(table.shape[0]):
        if table[i, 0] != _ZERO:
            n += 1
    keys = np.empty(n, np.uint64)
    ids = np.empty(n, np.int64)
    j = 0
    for i in range(table.shape[0]):
        if table[i, 0] != _ZERO:
            keys[j] = table[i, 0]
            ids[j] = np.int64(table[i, 1])
            j += 1
    order = np.argsort(ids)
    return keys[order], ids[order]


# ---------------------------------------------------------------------------------------------
# lazy weight reads (the thesis's Algorithm 1, SCORE / UPDATE-CATCHUP)
#
# reg: 0 = plain read (perceptron, passive-aggressive, parsing with final weights),
#      1 = AdaGrad with l1, 2 = AdaGrad with l2, 3 = AdaGrad without regularisation;
#      +4 = additionally keep the sum of all iterates (averaged AdaGrad, our extension).
# q[e, 0] is AdaGrad's cumulative squared gradient, q[e, 1] the sum of iterates
# w_1 + ... + w_u[e] (only with averaging); u[e] the update the weight is current at.


class WeightView(NamedTuple):
    """A learner's weights as the kernels read them: its ``read_args()``
    (:mod:`plgraph.learn.learners`, ``(w, q, u, n, eta, C, reg)``), the arguments of
    :func:`wread` / :func:`wpeek` before the weight index.  ``w``: float64 or float32
    ``(n_weights,)``; ``q``: float64 ``(n_weights, 2)`` (``(0, 2)`` when ``reg`` is 0);
    ``u``: int32 ``(n_weights,)`` (empty when ``reg`` is 0); ``n``: the learner's update
    count; ``eta``, ``C``: AdaGrad's step size and regularisation strength; ``reg``: the
    code above."""

    w: np.ndarray
    q: np.ndarray
    u: np.ndarray
    n: int
    eta: float
    C: float
    reg: int


def weight_view(read_args) -> WeightView:
    """``read_args`` (a learner's bare tuple, or a :class:`WeightView`) as a :class:`WeightView`."""
    return read_args if isinstance(read_args, WeightView) else WeightView(*read_args)


@njit(cache=NUMBA_CACHE, inline="always")
def catchup_value(x, qe, t, eta, C, reg):
    """UPDATE-CATCHUP: ``t`` AdaGrad steps with zero subgradient in one closed form
    (``reg`` 1 = l1, 2 = l2; anything else leaves the weight unchanged)."""
    r = reg & 3
    if t <= 0 or x == 0.0 or r == 0 or r == 3:
        return x
    sq = math.sqrt(qe)
    if r == 1:
        d = abs(x) - eta * C / sq * t
        if d <= 0.0:
            return 0.0
        return d if x > 0.0 else -d
    return x * (sq / (eta * C + sq)) ** t


@njit(cache=NUMBA_CACHE, inline="always")
def catchup_sum(x, qe, t, eta, C, reg):
    """Sum of the ``t`` iterates that the zero-subgradient steps of UPDATE-CATCHUP pass
    through (w after 1, 2, ..., t steps), in closed form."""
    r = reg & 3
    if t <= 0 or x == 0.0:
        return 0.0
    if r == 0 or r == 3:
        return t * x
    sq = math.sqrt(qe)
    if r == 1:
        step = eta * C / sq
        a = abs(x)
        J = t if step <= 0.0 else min(t, int(a / step))
        s = J * a - step * J * (J + 1) / 2.0
        return s if x > 0.0 else -s
    ratio = sq / (eta * C + sq)
    if ratio == 1.0:
        return t * x
    return x * ratio * (1.0 - ratio ** t) / (1.0 - ratio)


@njit(cache=NUMBA_CACHE)
def _wread_catchup(w, q, u, n, eta, C, reg, e):
    """:func:`wread`'s catch-up branch (weight ``e`` stamped before update ``n``), a call
    of its own: the closed forms stay out of the code of every kernel that inlines
    :func:`wread`, which only a catch-up runs."""
    t = n - u[e]
    x0 = w[e]
    x = catchup_value(x0, q[e, 0], t, eta, C, reg)
    u[e] = n
    if reg >= 4:
        q[e, 1] += catchup_sum(x0, q[e, 0], t, eta, C, reg)
    w[e] = x
    return x


@njit(cache=NUMBA_CACHE, inline="always")
def wread(w, q, u, n, eta, C, reg, e):
    """Weight ``e`` caught up to update ``n`` (and written back, the thesis's lines 23-27:
    the time stamp first, then the weight, so concurrent readers never apply a
    catch-up twice)."""
    if reg == 0 or u[e] == n:
        return w[e]
    return _wread_catchup(w, q, u, n, eta, C, reg, e)


@njit(cache=NUMBA_CACHE, inline="always")
def wpeek(w, q, u, n, eta, C, reg, e):
    """Weight ``e`` caught up to update ``n`` *without* writing it back: what
    :func:`wread` returns, safe for kernels that read weights from several threads at
    once (a write-back can be seen half done -- the new time stamp with the old weight --
    by a concurrent reader, which makes training depend on thread timing).  The catch-up
    is written back by the next update of the weight (:func:`adagrad_step`) or by
    :func:`catchup_all`."""
    if reg == 0 or u[e] == n:
        return w[e]
    return catchup_value(w[e], q[e, 0], n - u[e], eta, C, reg)


@njit(cache=NUMBA_CACHE)
def wread_many(w, q, u, n, eta, C, reg, idx):
    """:func:`wread` of every index in ``idx`` (what a decoder reading them would see)."""
    out = np.empty(idx.shape[0])
    for k in range(idx.shape[0]):
        out[k] = wread(w, q, u, n, eta, C, reg, idx[k])
    return out


@njit(cache=NUMBA_CACHE, inline="always")
def update_active(x, g, qe, eta, C, reg):
    """UPDATE-ACTIVE (AdaGrad step with the already incremented ``qe``)."""
    sq = math.sqrt(qe)
    r = reg & 3
    if r == 2:
        return (x * sq - eta * g) / (eta * C + sq)
    if r == 1:
        z = x - eta / sq * g
        d = abs(z) - eta / sq * C
        if d <= 0.0:
            return 0.0
        return d if z > 0.0 else -d
    return x - eta / sq * g  # plain AdaGrad


# ---------------------------------------------------------------------------------------------
# sparse gradient aggregation and the update steps


@njit(cache=NUMBA_CACHE)
def aggregate(idx, val, acc, stamp, step, touched):
    """Sum duplicate entries: returns the number m of distinct indices; their ids are
    ``touched[:m]`` and their sums ``acc[touched[:m]]``.  ``stamp`` marks (with the
    current ``step``) which slots of ``acc`` are live, so nothing is ever cleared."""
    m = 0
    for k in range(idx.shape[0]):
        e = idx[k]
        if stamp[e] != step:
            stamp[e] = step
            acc[e] = 0.0
            touched[m] = e
            m += 1
        acc[e] += val[k]
    return m


@njit(cache=NUMBA_CACHE)
def adagrad_step(w, q, u, n, eta, C, reg, touched, m, acc):
    """One AdaGrad update (the thesis's Algorithm 1, lines 14-19) over the distinct
    indices ``touched[:m]`` with summed subgradient ``acc``.  Each weight is first
    caught up to update ``n`` (a no-op if it was read during decoding), then
    updated; its time stamp becomes ``n + 1``.  Returns the new ``n``."""
    n1 = n + 1
    for k in range(m):
        e = touched[k]
        g = acc[e]
        if g == 0.0:
            continue
        x = w[e]
        if u[e] != n:
            t = n - u[e]
            if reg >= 4:
                q[e, 1] += catchup_sum(x, q[e, 0], t, eta, C, reg)
            x = catchup_value(x, q[e, 0], t, eta, C, reg)
        q[e, 0] += g * g
        x = update_active(x, g, q[e, 0], eta, C, reg)
        w[e] = x
        if reg >= 4:
            q[e, 1] += x
        u[e] = n1
    return n1


@njit(cache=NUMBA_CACHE)
def dot_sparse(w, touched, m, acc):
    """(w . g, |g|^2) over the aggregated gradient."""
    s = 0.0
    nn = 0.0
    for k in range(m):
        e = touched[k]
        g = acc[e]
        s += w[e] * g
        nn += g * g
    return s, nn


@njit(cache=NUMBA_CACHE)
def scaled_step(w, wa, c, tau, touched, m, acc, average):
    """``w -= tau * g``; with averaging also ``wa -= c * tau * g`` (Daumé's trick:
    the average of all iterates is ``w - wa / c``)."""
    for k in range(m):
        e = touched[k]
        d = -tau * acc[e]
        w[e] += d
        if average:
            wa[e] += c * d


@njit(cache=NUMBA_CACHE)
def copy_entries(dst, src, touched, m):
    """``dst[e] = src[e]`` for the distinct indices ``touched[:m]``."""
    for k in range(m):
        e = touched[k]
        dst[e] = src[e]


@njit(cache=NUMBA_CACHE)
def catchup_all(w, q, u, n, eta, C, reg):
    """Bring every weight up to update ``n`` (used before saving or evaluating)."""
    for e in range(w.shape[0]):
        if u[e] != n:
            t = n - u[e]
            if reg >= 4:
                q[e, 1] += catchup_sum(w[e], q[e, 0], t, eta, C, reg)
            w[e] = catchup_value(w[e], q[e, 0], t, eta, C, reg)
            u[e] = n


# ---------------------------------------------------------------------------------------------
# label-structured weight blocks (Schiehlen & Spranger 2007 §2.4)
#
# Feature f owns the weights foff[f] .. foff[f+1]-1:
#   foff[f]            the top node (all labels: the unlabelled weight)
#   foff[f] + k        "other" node of level k (k = 1..K): every label whose level-k
#                      ancestor was never seen with f in training
#   foff[f] + K + 1..  one weight per observed taxonomy node, node id in fnode[]
# An unlabelled feature has a block of size 1 (top only).
# Score of label l: sum over f of w[top] + sum_k (w[node_k(l)] if observed else w[other_k]).
#
# Scores are summed in "accumulator space": acc[0] = sum of top weights, acc[k] = sum
# of level-k "other" weights, acc[1 + K + node] = sum of (observed weight - other weight
# of its level) per node.  Accumulators add, so partial sums (e.g. of a token's
# features) can be precomputed and reused; label_score() reads one label off them.

#: packed block references (what the dependency parser's feature table stores):
#: ``ref = (start << BLOCK_SHIFT) | size``
BLOCK_SHIFT = np.int64(20)
BLOCK_MASK = np.int64((1 << 20) - 1)


@njit(cache=NUMBA_CACHE, inline="always")
def accumulate_block(o, end, fnode, nodelevel, K, wv, acc):
    """Add the weight block ``o .. end-1`` of one feature to the accumulator ``acc``
    (length ``1 + K + n_nodes``), reading the :class:`WeightView` ``wv`` through
    :func:`wread`."""
    w, q, u, n, eta, C, reg = wv
    acc[0] += wread(w, q, u, n, eta, C, reg, o)
    if end - o == 1:
        return
    for k in range(1, K + 1):
        acc[k] += wread(w, q, u, n, eta, C, reg, o + k)
    for e in range(o + K + 1, end):
        node = fnode[e]
        k = nodelevel[node]
        acc[1 + K + node] += wread(w, q, u, n, eta, C, reg, e) - wread(w, q, u, n, eta, C, reg, o + k)


@njit(cache=NUMBA_CACHE, inline="always")
def catchup_block(o, end, w, q, u, n, eta, C, reg):
    """Catch up (and write back) every weight of the block ``o .. end-1`` -- what
    :func:`accumulate_block` would do through :func:`wread`, without the sums."""
    for e in range(o, end):
        wread(w, q, u, n, eta, C, reg, e)


@njit(cache=NUMBA_CACHE, inline="always")
def label_score(acc, anc, K, l):
    """Score of label ``l`` from an accumulator: top + for every level k on l's path,
    (other_k + delta of l's level-k node)."""
    s = acc[0]
    for k in range(1, K + 1):
        a = anc[l, k]
        if a >= 0:
            s += acc[k] + acc[1 + K + a]
    return s


@njit(cache=NUMBA_CACHE, inline="always")
def block_weight_indices(o, end, label, fnode, anc, K, out, pos):
    """Write the weight indices that the feature with block ``o .. end-1`` contributes
    to label ``label`` (the gradient of the score) into ``out[pos:]``; return the new
    position.  ``label < 0`` gives the top weight only.  The observed nodes of a block
    are sorted, so each level's node is found by binary search."""
    out[pos] = o
    pos += 1
    if end - o == 1 or label < 0:
        return pos
    first = o + K + 1
    for k in range(1, K + 1):
        a = anc[label, k]
        if a < 0:
            continue
        lo = first
        hi = end
        while lo < hi:
            mid = (lo + hi) >> 1
            if fnode[mid] < a:
                lo = mid + 1
            else:
                hi = mid
        out[pos] = lo if (lo < end and fnode[lo] == a) else o + k
        pos += 1
    return pos


@njit(cache=NUMBA_CACHE)
def pack_block_refs(table, foff):
    """Copy of a feature table whose values are packed block references
    ``(foff[id] << BLOCK_SHIFT) | size`` instead of ids."""
    out = table.copy()
    for i in range(table.shape[0]):
        if table[i, 0] != _ZERO:
            f = np.int64(table[i, 1])
            out[i, 1] = np.uint64((foff[f] << BLOCK_SHIFT) | (foff[f + 1] - foff[f]))
    return out


@njit(cache=NUMBA_CACHE)
def build_label_blocks(pair_fid, pair_label, n_features, anc, K, labelled):
    """Block layout from the (feature, gold label) observations of training.

    ``pair_fid``/``pair_label`` list every observation (duplicates allowed);
    ``labelled[f]`` says whether feature f gets label copies.  Returns
    ``(foff, fnode)``; nodes of each block are sorted by id.
    """
    n_nodes = 0
    for l in range(anc.shape[0]):
        for k in range(anc.shape[1]):
            if anc[l, k] + 1 > n_nodes:
                n_nodes = anc[l, k] + 1
    # unique (feature, node) pairs via sort of a combined code
    m = pair_fid.shape[0]
    codes = np.empty(m * K, np.int64)
    c = 0
    for j in range(m):
        f = pair_fid[j]
        if not labelled[f]:
            continue
        l = pair_label[j]
        for k in range(1, K + 1):
            a = anc[l, k]
            if a >= 0:
                codes[c] = f * n_nodes + a
                c += 1
    codes = np.unique(codes[:c])
    count = np.zeros(n_features + 1, np.int64)
    for j in range(codes.shape[0]):
        count[codes[j] // n_nodes + 1] += 1
    foff = np.empty(n_features + 1, np.int64)
    foff[0] = 0
    for f in range(n_features):
        size = 1 + (K + count[f + 1] if labelled[f] else 0)
        foff[f + 1] = foff[f] + size
    fnode = np.full(foff[n_features], -1, np.int32)
    fill = np.zeros(n_features, np.int64)
    for j in range(codes.shape[0]):
        f = codes[j] // n_nodes
        fnode[foff[f] + K + 1 + fill[f]] = codes[j] % n_nodes
        fill[f] += 1
    return foff, fnode


# ---------------------------------------------------------------------------------------------
# a generic sparse multiclass model (labels with weight copies), used by classifiers and tests


class LabelBlocks(NamedTuple):
    """A multiclass model's weight layout (:func:`build_label_blocks`) with its taxonomy
    (:class:`plgraph.learn.labels.LabelTaxonomy`): ``foff`` int64 ``(n_features + 1,)``
    block starts; ``fnode`` int32 ``(foff[-1],)`` node of each observed-node weight;
    ``nodelevel`` int32 ``(n_nodes,)``; ``anc`` int32 ``(L, K + 1)``; ``K`` the number of
    levels below the top."""

    foff: np.ndarray
    fnode: np.ndarray
    nodelevel: np.ndarray
    anc: np.ndarray
    K: int


class Examples(NamedTuple):
    """Training examples in CSR form: example ``i`` has the feature ids
    ``x_fid[x_off[i]:x_off[i + 1]]`` (int64, -1 ignored) and the gold label ``y[i]``
    (int64)."""

    x_off: np.ndarray
    x_fid: np.ndarray
    y: np.ndarray


class MulticlassOutput(NamedTuple):
    """What :func:`multiclass_batch` writes: gradient entries ``(idx[k], val[k])``
    (int64, float64; room for ``2 * (K + 1)`` per feature occurrence of the batch) and
    the predicted label of each example of the batch ``pred`` (int64)."""

    idx: np.ndarray
    val: np.ndarray
    pred: np.ndarray


@njit(cache=NUMBA_CACHE)
def multiclass_batch(batch, ex, blocks, wv, cost, out):
    """Loss-augmented argmax and subgradient f(pred) - f(gold) for each example of
    ``batch`` (:class:`Examples` ``ex``, :class:`LabelBlocks` ``blocks``,
    :class:`WeightView` ``wv``, written to the :class:`MulticlassOutput` ``out``);
    returns (number of gradient entries, summed loss)."""
    x_off, x_fid, y = ex
    foff, fnode, nodelevel, anc, K = blocks
    out_idx, out_val, out_pred = out
    L = anc.shape[0]
    acc = np.zeros(1 + K + nodelevel.shape[0])
    pos = 0
    loss = 0.0
    for bi in range(batch.shape[0]):
        i = batch[bi]
        acc[:] = 0.0
        for j in range(x_off[i], x_off[i + 1]):
            f = x_fid[j]
            if f >= 0:
                accumulate_block(foff[f], foff[f + 1], fnode, nodelevel, K, wv, acc)
        best = -1
        bs = -np.inf
        for l in range(L):
            s = label_score(acc, anc, K, l) + (cost if l != y[i] else 0.0)
            if s > bs:
                bs = s
                best = l
        out_pred[bi] = best
        if best != y[i]:
            loss += cost
            for sign, lab in ((1.0, best), (-1.0, y[i])):
                for j in range(x_off[i], x_off[i + 1]):
                    f = x_fid[j]
                    if f < 0:
                        continue
                    p0 = pos
                    pos = block_weight_indices(foff[f], foff[f + 1], lab, fnode, anc, K, out_idx, pos)
                    for t in range(p0, pos):
                        out_val[t] = sign
    return pos, loss


@njit(cache=NUMBA_CACHE)
def multiclass_scores(x_off, x_fid, foff, fnode, nodelevel, anc, K, w):
    m = x_off.shape[0] - 1
    L = anc.shape[0]
    out = np.empty((m, L))
    acc = np.zeros(1 + K + nodelevel.shape[0])
    plain = WeightView(w, np.zeros((0, 2)), np.zeros(0, np.int32), 0, 0.0, 0.0, 0)
    for i in range(m):
        acc[:] = 0.0
        for j in range(x_off[i], x_off[i + 1]):
            f = x_fid[j]
            if f >= 0:
                accumulate_block(foff[f], foff[f + 1], fnode, nodelevel, K, plain, acc)
        for l in range(L):
            out[i, l] = label_score(acc, anc, K, l)
    return out


# these kernels call only this module's: no other file can leave their cached code stale
from ..files import _numba_cache  # noqa: E402

if NUMBA_CACHE:
    _numba_cache.guard_cache(__file__, mix64)
