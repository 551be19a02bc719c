"""Numba kernels of the dependency parser: feature keys, labelled arc scores,
sibling scores, and the per-batch loss-augmented decode + subgradient.

Arrays (built by :mod:`plgraph.dep.model` from :mod:`plgraph.dep.features`):

* ``atoms[row, col]``: token atoms; sentence i's ROOT is row ``r0 = row0[i] + 1``, so
  the token at position p (ROOT = 0, words 1..n, BOS = -1, EOS = n + 1) is row r0 + p.
* ``tseed[t]``, ``tmpl[t] = [length, dd, kind, pos_0..pos_5, atom_0..atom_5, has_agr]``:
  compiled templates; ``tflags[0, t]`` / ``tflags[1, t]`` (uint64 0/1): template t
  uses the agreement atom / is conjoined with direction and distance; ``head_t``, ``dep_t``, ``pair_t``, ``betw_t``, ``sib_t``: the
  template indices of each kind; ``betw_col[j]``: the atom column of the ``b`` part of
  between template ``betw_t[j]``.
* labelled arc features: ``table`` (key -> packed block reference
  ``(start << BLOCK_SHIFT) | size``, so one probe finds the feature's weights),
  ``fnode`` (taxonomy node of each weight, see ``plgraph.learn._kernels``), taxonomy
  ``nodelevel``/``anc``/``K``;
* label restriction: the labels considered for an arc are
  ``lab_list[lab_off[c]:lab_off[c + 1]]`` for its class
  ``c = (C(h) * NC + C(d)) * 2 + direction``, where C is the index of the coarse POS
  atom in the sorted ``cpos_keys`` (NC - 1 = unknown; ROOT has its own atom).
* sibling features are hashed: weight ``sib_base + (key & sib_mask)``, top only.
* weights are read through ``wread(w, q, u, nupd, eta, C, reg, e)`` (AdaGrad's lazy
  catch-up while training; ``reg = 0`` plain reads when parsing).

The kernels take these arrays packed in named tuples: :class:`Sentences` (an encoded
batch), :class:`Templates` and :class:`FeatureTables` (the model),
:class:`WeightArrays` and ``plgraph.learn._kernels.WeightView`` (the weights and how to read
them),
:class:`DecodeSettings` and :class:`TrainOutputs` (a training batch); inside, one
sentence travels as :class:`SentenceParts` with :class:`ArcKeyBuffers` and
:class:`ArcCost`.

Cache note: these kernels inline ``plgraph.learn._kernels`` and call
``plgraph.dep._eisner``; numba's cache only notices edits to this file, so
:func:`plgraph.files._numba_cache.guard_cache` purges this module's cache files when those
sources change.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from ..config import NUMBA_CACHE
from ..files import _numba_cache as _cache
from ..learn import _kernels as _learn_kernels
from . import _eisner as _eisner_module
from ..learn._kernels import (BLOCK_MASK, BLOCK_SHIFT, accumulate_block, block_weight_indices, catchup_block,
                              combine,
                              filtered_lookup,
                              WeightView, label_score, mix64, wread)
from ._eisner import eisner1, eisner2, max_marginals1, max_marginals2

AGR = 99
N_ATOMS = 7
N_DIST = 6
T_LEN, T_DD, T_KIND, T_POS, T_ATOM, T_AGR = 0, 1, 2, 3, 9, 15


class Sentences(NamedTuple):
    """An encoded batch of sentences (:class:`plgraph.dep.features.Encoded`).
    ``row0``, ``word0``, ``nwords``: int64 (S,), sentence i's first atom row (its
    ROOT is row ``row0[i] + 1``), the offset of its first word in ``heads``/``labels``,
    its number of words; ``atoms``: uint64 (rows, N_COLS); ``heads``, ``labels``:
    int64 (words,), gold heads (0 = ROOT, -1 unknown) and label ids (-1 unknown)."""
    row0: np.ndarray
    word0: np.ndarray
    nwords: np.ndarray
    atoms: np.ndarray
    heads: np.ndarray
    labels: np.ndarray


class Templates(NamedTuple):
    """The compiled feature templates.  ``tseed``: uint64 (T,); ``tmpl``: int64
    (T, 16), columns ``T_LEN .. T_AGR``; ``tflags``: uint64 (2, T) 0/1, agreement atom
    / direction + distance used; ``head_t``, ``dep_t``, ``pair_t``, ``betw_t``,
    ``sib_t``: int64, the template indices of each kind; ``betw_col``: int64
    (len(betw_t),), the atom column of each between template's ``b`` part;
    ``none_sib``: uint64 (N_COLS,), the atoms of the "no sibling" pseudo-token."""
    tseed: np.ndarray
    tmpl: np.ndarray
    tflags: np.ndarray
    head_t: np.ndarray
    dep_t: np.ndarray
    pair_t: np.ndarray
    betw_t: np.ndarray
    betw_col: np.ndarray
    sib_t: np.ndarray
    none_sib: np.ndarray


class FeatureTables(NamedTuple):
    """The model's feature tables.  ``table``: key -> packed block reference
    ``(start << BLOCK_SHIFT) | size`` (``plgraph.learn._kernels`` layout) and
    ``bloom``, its Bloom filter (uint64 words); ``fnode``: int32 (arc weights,), the
    taxonomy node of each weight; taxonomy ``nodelevel`` (int32 (nodes,)), ``anc``
    (int32 (labels, K + 1)) and depth ``K`` (int); label restriction ``cpos_keys``
    (uint64, sorted), ``lab_off`` (int64 (classes + 1,)), ``lab_list`` (int64);
    sibling weights ``sib_base + (key & sib_mask)``: ``sib_base`` int64 (the number
    of arc weights), ``sib_mask`` uint64 (sibling weights - 1, 0 without siblings)."""
    table: np.ndarray
    bloom: np.ndarray
    fnode: np.ndarray
    nodelevel: np.ndarray
    anc: np.ndarray
    K: int
    cpos_keys: np.ndarray
    lab_off: np.ndarray
    lab_list: np.ndarray
    sib_base: np.int64
    sib_mask: np.uint64


class WeightArrays(NamedTuple):
    """The arrays weights are read through (``wread``'s ``w, q, u``): ``w`` float32
    or float64 (weights,); ``q`` float64 (weights, 2) and ``u`` int32 (weights,),
    AdaGrad's accumulators and time stamps, or (0, 2) and (0,) for plain reads.  The
    reading scalars ``nupd, eta, C, reg`` are separate kernel arguments (plain reads:
    ``0, 0.0, 0.0, 0``)."""
    w: np.ndarray
    q: np.ndarray
    u: np.ndarray


class DecodeSettings(NamedTuple):
    """Settings of the loss-augmented decode: ``order`` (int, 1 or 2), ``multi_root``
    (bool, several dependents of ROOT allowed), the Hamming costs ``cost_head`` (wrong
    head) and ``cost_label`` (right head, wrong label), float."""
    order: int
    multi_root: bool
    cost_head: float
    cost_label: float


class TrainOutputs(NamedTuple):
    """What :func:`train_batch` writes for a batch of B sentences: batch sentence b's
    subgradient entries go to ``idx`` (int64) / ``val`` (float64) from ``goff[b]``
    (int64 (B + 1,), room for every entry it can have), ``cnt[b]`` (int64 (B,)) is
    their number, ``err[b]`` (float64 (B,)) its Hamming errors; ``pred_heads``,
    ``pred_labels``: int64 (words,), the decoded trees at the word offsets of
    :class:`Sentences`."""
    goff: np.ndarray
    idx: np.ndarray
    val: np.ndarray
    cnt: np.ndarray
    err: np.ndarray
    pred_heads: np.ndarray
    pred_labels: np.ndarray


class SentenceParts(NamedTuple):
    """One sentence as the key kernels read it: ``r0`` (int), the atom row of its
    ROOT; ``n`` (int), its number of words; ``atoms``: the batch's atom rows (uint64);
    ``PH``, ``PD``, ``PX``: uint64 (T, n + 2), its partial hashes
    (:func:`part_hashes`)."""
    r0: int
    n: int
    atoms: np.ndarray
    PH: np.ndarray
    PD: np.ndarray
    PX: np.ndarray


class ArcKeyBuffers(NamedTuple):
    """The arrays :func:`arc_keys` works in, for one sentence of n words: ``locs``,
    int64 (max(len(betw_t), 1), n + 2), from :func:`_between_locs`; ``seen``, int64
    (n + 2,), zeros to start with stamp 0 (values already taken, by stamp);
    ``keys``, uint64, room for every key of one arc."""
    locs: np.ndarray
    seen: np.ndarray
    keys: np.ndarray


class ArcCost(NamedTuple):
    """The Hamming cost of one sentence's arcs: gold ``heads`` and ``labels``, int64
    (n,), indexed by dependent - 1; ``cost_head`` (wrong head) and ``cost_label``
    (right head, wrong label), float."""
    heads: np.ndarray
    labels: np.ndarray
    cost_head: float
    cost_label: float


@njit(cache=NUMBA_CACHE, inline="always")
def dist_bucket(k):
    """|h - d| -> 0..5 for 1, 2, 3, 4, 5-9, >= 10 (Schiehlen & Spranger's bins)."""
    if k <= 4:
        return k - 1 if k >= 1 else 0
    if k < 10:
        return 4
    return 5


@njit(cache=NUMBA_CACHE, inline="always")
def agr_value(atoms, ra, rb):
    """Agreement of two tokens over Number, Person, Gender, Case:
    1 = don't know (no attribute on both), 2 = yes, 3 = no."""
    shared = 0
    diff = 0
    for c in range(N_ATOMS, N_ATOMS + 4):
        x = atoms[ra, c]
        y = atoms[rb, c]
        if x != 0 and y != 0:
            shared += 1
            if x != y:
                diff += 1
    if shared == 0:
        return np.uint64(1)
    return np.uint64(2) if diff == 0 else np.uint64(3)


_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xC2B2AE3D27D4EB4F)
_M3 = np.uint64(0x165667B19E3779F9)
_M4 = np.uint64(0x27D4EB2F165667C5)
_SEED_D = np.uint64(0x5BD1E9955BD1E995)
_SEED_X = np.uint64(0x8CB92BA72F3D8DD7)


@njit(cache=NUMBA_CACHE)
def part_hashes(tseed, tmpl, atoms, none_sib, r0, n):
    """Per-token partial hashes of every template: ``PH[t, p]`` combines the template
    seed with its head-side parts (positions h-1, h, h+1) taken at head p, ``PD[t, p]``
    its dependent-side parts at dependent p, ``PX[t, p]`` its ``b``/``s`` part at word
    p (``PX[t, n + 1]``: the "no sibling" pseudo-token).  A role without parts is 0.
    Computed once per sentence, so a key costs one mix per arc (see :func:`tkey`)."""
    T = tseed.shape[0]
    PH = np.zeros((T, n + 2), np.uint64)
    PD = np.zeros((T, n + 2), np.uint64)
    PX = np.zeros((T, n + 2), np.uint64)
    for t in range(T):
        L = tmpl[t, T_LEN]
        has_d = False
        has_x = False
        for j in range(L):
            pj = tmpl[t, T_POS + j]
            if tmpl[t, T_ATOM + j] == AGR:
                continue
            if pj == 1 or pj == 4 or pj == 5:
                has_d = True
            elif pj >= 6:
                has_x = True
        for p in range(n + 2):
            kh = tseed[t]
            kd = _SEED_D
            kx = _SEED_X
            for j in range(L):
                pj = tmpl[t, T_POS + j]
                a = tmpl[t, T_ATOM + j]
                if a == AGR:
                    continue
                if pj == 0 or pj == 2 or pj == 3:
                    if p <= n:
                        off = 0 if pj == 0 else (-1 if pj == 2 else 1)
                        kh = combine(kh, atoms[r0 + p + off, a])
                elif pj == 1 or pj == 4 or pj == 5:
                    if p <= n:
                        off = 0 if pj == 1 else (-1 if pj == 4 else 1)
                        kd = combine(kd, atoms[r0 + p + off, a])
                else:
                    v = none_sib[a] if p == n + 1 else atoms[r0 + p, a]
                    kx = combine(kx, v)
            PH[t, p] = kh
            PD[t, p] = kd if has_d else np.uint64(0)
            PX[t, p] = kx if has_x else np.uint64(0)
    return PH, PD, PX


@njit(cache=NUMBA_CACHE, inline="always")
def tkey(t, tflags, PH, PD, PX, h, d, xi, agrv, ddv):
    """64-bit key of template ``t`` for head h, dependent d and extra index ``xi`` (the
    between word, the previous sibling, or n + 1 for "no sibling"): one mix of the
    per-token partial hashes plus the arc's agreement value ``agrv`` and direction +
    distance value ``ddv`` where the template uses them (branch-free, see
    :func:`arc_values`)."""
    return mix64(PH[t, h] + _M1 * PD[t, d] + _M2 * PX[t, xi] + tflags[0, t] * agrv + tflags[1, t] * ddv)


@njit(cache=NUMBA_CACHE, inline="always")
def arc_values(atoms, r0, h, d, dist):
    """(agrv, ddv) of an arc: the agreement atom and the direction + distance bin of
    ``dist`` (|h - d| for arcs, |s - d| for siblings), pre-multiplied for :func:`tkey`."""
    dirv = 1 if h < d else 0
    db = dist_bucket(dist)
    return _M3 * agr_value(atoms, r0 + h, r0 + d), _M4 * np.uint64(dirv * 8 + db + 1)


@njit(cache=NUMBA_CACHE)
def _local_index(atoms, r0, n, col):
    """loc[p] = first position (1..n) with the same atom value in column ``col``."""
    loc = np.zeros(n + 2, np.int64)
    for p in range(1, n + 1):
        loc[p] = p
        v = atoms[r0 + p, col]
        for q in range(1, p):
            if atoms[r0 + q, col] == v:
                loc[p] = loc[q]
                break
    return loc


@njit(cache=NUMBA_CACHE)
def _between_locs(atoms, r0, n, betw_col):
    nb = betw_col.shape[0]
    locs = np.zeros((max(nb, 1), n + 2), np.int64)
    for j in range(nb):
        locs[j] = _local_index(atoms, r0, n, betw_col[j])
    return locs


@njit(cache=NUMBA_CACHE, inline="always")
def arc_keys(h, d, with_token, sent, tpl, bufs, stamp):
    """Keys of every labelled feature of the arc h -> d of sentence ``sent``
    (:class:`SentenceParts`) into ``bufs.keys`` (:class:`ArcKeyBuffers`); returns
    (count, new stamp).  ``with_token`` adds the head-side and dependent-side
    (token-level) templates, which scoring precomputes per token instead.  The
    between templates fire once per distinct value among the words between."""
    tflags, PH, PD, PX = tpl.tflags, sent.PH, sent.PD, sent.PX
    head_t, dep_t, pair_t, betw_t = tpl.head_t, tpl.dep_t, tpl.pair_t, tpl.betw_t
    locs = bufs.locs
    seen = bufs.seen
    keys = bufs.keys
    agrv, ddv = arc_values(sent.atoms, sent.r0, h, d, abs(h - d))
    c = 0
    if with_token:
        for j in range(head_t.shape[0]):
            keys[c] = tkey(head_t[j], tflags, PH, PD, PX, h, d, 0, agrv, ddv)
            c += 1
        for j in range(dep_t.shape[0]):
            keys[c] = tkey(dep_t[j], tflags, PH, PD, PX, h, d, 0, agrv, ddv)
            c += 1
    for j in range(pair_t.shape[0]):
        keys[c] = tkey(pair_t[j], tflags, PH, PD, PX, h, d, 0, agrv, ddv)
        c += 1
    lo = min(h, d)
    hi = max(h, d)
    for j in range(betw_t.shape[0]):
        stamp += 1
        for b in range(lo + 1, hi):
            li = locs[j, b]
            if seen[li] != stamp:
                seen[li] = stamp
                keys[c] = tkey(betw_t[j], tflags, PH, PD, PX, h, d, b, agrv, ddv)
                c += 1
    return c, stamp


@njit(cache=NUMBA_CACHE)
def _token_accumulators(sent, side_t, is_dep, tpl, feat, wts, nupd, eta, C, reg):
    """Accumulators of the token-level templates ``side_t`` of every token of ``sent``
    as head (``is_dep`` False) or dependent, per direction and distance bin:
    (n + 1, 2, N_DIST, A).  Only combinations that some arc of the sentence uses are
    filled.  Weights are read through ``wread(wts.w, wts.q, wts.u, nupd, eta, C, reg, e)``."""
    n, PH, PD, PX = sent.n, sent.PH, sent.PD, sent.PX
    tflags = tpl.tflags
    table, bloom, fnode, nodelevel, K = feat.table, feat.bloom, feat.fnode, feat.nodelevel, feat.K
    wv = WeightView(wts.w, wts.q, wts.u, nupd, eta, C, reg)
    A = 1 + K + nodelevel.shape[0]
    out = np.empty((n + 1, 2, N_DIST, A))      # combinations no arc uses stay unwritten (never read)
    plain = np.empty(A)
    any_dd = False
    for j in range(side_t.shape[0]):
        if tflags[1, side_t[j]] != 0:
            any_dd = True
    for t in range(1 if is_dep else 0, n + 1):
        h = 0 if is_dep else t
        d = t if is_dep else 0
        plain[:] = 0.0
        for j in range(side_t.shape[0]):
            ti = side_t[j]
            if tflags[1, ti] != 0:
                continue
            ref = filtered_lookup(table, bloom, tkey(ti, tflags, PH, PD, PX, h, d, 0, np.uint64(0), np.uint64(0)))
            if ref >= 0:
                o = ref >> BLOCK_SHIFT
                accumulate_block(o, o + (ref & BLOCK_MASK), fnode, nodelevel, K, wv, plain)
        for dirv in range(2):
            # farthest partner on this side: heads take dependents 1..n, dependents heads 0..n
            if is_dep:
                far = t if dirv == 1 else n - t       # dirv = 1: head to the left (0..t-1)
            else:
                far = n - t if dirv == 1 else t - 1   # dirv = 1: dependent to the right
            if far < 1:
                continue
            for db in range(dist_bucket(far) + 1):
                acc = out[t, dirv, db]
                acc[:] = plain
                if not any_dd:
                    continue
                ddv = _M4 * np.uint64(dirv * 8 + db + 1)
                for j in range(side_t.shape[0]):
                    ti = side_t[j]
                    if tflags[1, ti] == 0:
                        continue
                    ref = filtered_lookup(table, bloom, tkey(ti, tflags, PH, PD, PX, h, d, 0, np.uint64(0), ddv))
                    if ref >= 0:
                        o = ref >> BLOCK_SHIFT
                        accumulate_block(o, o + (ref & BLOCK_MASK), fnode, nodelevel, K, wv, acc)
    return out


@njit(cache=NUMBA_CACHE)
def coarse_index(atoms, r0, n, cpos_keys):
    """Index of each position's coarse POS atom in ``cpos_keys`` (len = unknown)."""
    NC1 = cpos_keys.shape[0]
    out = np.empty(n + 1, np.int64)
    for p in range(n + 1):
        v = atoms[r0 + p, 2]
        k = np.searchsorted(cpos_keys, v)
        out[p] = k if k < NC1 and cpos_keys[k] == v else NC1
    return out


@njit(cache=NUMBA_CACHE)
def score_arcs(sent, cost, use_cost, tpl, feat, wts, nupd, eta, C, reg):
    """Best-label arc scores of sentence ``sent`` (:class:`SentenceParts`): (S, LAB),
    ``S[h, d]`` = max over the arc's candidate labels l of score(h, d, l) (+ Hamming
    cost when ``use_cost``), ``LAB[h, d]`` = that l.

    Cost (:class:`ArcCost`): ``cost.cost_head`` if h is not d's gold head, else
    ``cost.cost_label`` if l is not the gold label (``cost.heads``/``cost.labels`` are
    indexed by d - 1).  Weights are read through ``wread(wts.w, wts.q, wts.u, nupd,
    eta, C, reg, e)``."""
    r0, n, atoms = sent.r0, sent.n, sent.atoms
    head_t, dep_t, pair_t, betw_t = tpl.head_t, tpl.dep_t, tpl.pair_t, tpl.betw_t
    fnode, nodelevel, anc, K = feat.fnode, feat.nodelevel, feat.anc, feat.K
    table, bloom, cpos_keys, lab_off, lab_list = feat.table, feat.bloom, feat.cpos_keys, feat.lab_off, feat.lab_list
    wv = WeightView(wts.w, wts.q, wts.u, nupd, eta, C, reg)
    gh, gl = cost.heads, cost.labels
    A = 1 + K + nodelevel.shape[0]
    NC = cpos_keys.shape[0] + 1
    # np.bool_(...), not a literal True/False: numba compiles one version for both values (use_cost,
    # tested in the label loop, stays a literal in the callers: a version each)
    as_head, as_dep = np.bool_(False), np.bool_(True)
    HV = _token_accumulators(sent, head_t, as_head, tpl, feat, wts, nupd, eta, C, reg)
    DV = _token_accumulators(sent, dep_t, as_dep, tpl, feat, wts, nupd, eta, C, reg)
    cidx = coarse_index(atoms, r0, n, cpos_keys)
    nb = betw_t.shape[0]
    locs = _between_locs(atoms, r0, n, tpl.betw_col)
    seen = np.zeros(n + 2, np.int64)
    stamp = 0
    keys = np.empty(pair_t.shape[0] + nb * (n + 1) + 1, np.uint64)
    bufs = ArcKeyBuffers(locs, seen, keys)
    refs = np.empty(keys.shape[0], np.int64)
    S = np.full((n + 1, n + 1), -np.inf)
    LAB = np.zeros((n + 1, n + 1), np.int64)
    acc = np.empty(A)
    for h in range(n + 1):
        for d in range(1, n + 1):
            if d == h:
                continue
            c, stamp = arc_keys(h, d, False, sent, tpl, bufs, stamp)
            # look every key up first (independent cache misses overlap), then read weights
            m = 0
            for j in range(c):
                ref = filtered_lookup(table, bloom, keys[j])
                if ref >= 0:
                    refs[m] = ref
                    m += 1
            dirv = 1 if h < d else 0
            db = dist_bucket(abs(h - d))
            hv = HV[h, dirv, db]
            dv = DV[d, dirv, db]
            for a in range(A):
                acc[a] = hv[a] + dv[a]
            for j in range(m):
                o = refs[j] >> BLOCK_SHIFT
                accumulate_block(o, o + (refs[j] & BLOCK_MASK), fnode, nodelevel, K, wv, acc)
            cls = (cidx[h] * NC + cidx[d]) * 2 + dirv
            best = -np.inf
            arg = 0
            for j in range(lab_off[cls], lab_off[cls + 1]):
                l = lab_list[j]
                s = label_score(acc, anc, K, l)
                if use_cost:
                    if h != gh[d - 1]:
                        s += cost.cost_head
                    elif l != gl[d - 1]:
                        s += cost.cost_label
                if s > best:
                    best = s
                    arg = l
            S[h, d] = best
            LAB[h, d] = arg
    return S, LAB


@njit(cache=NUMBA_CACHE)
def score_siblings(sent, tpl, feat, wts, nupd, eta, C, reg):
    """``SIB[h, s, d]`` for every head h, dependent d and s in {h} + the words strictly
    between them (s == h: d is h's first dependent on that side) of sentence ``sent``;
    weights read as in :func:`score_arcs`."""
    r0, n, atoms, PH, PD, PX = sent.r0, sent.n, sent.atoms, sent.PH, sent.PD, sent.PX
    tflags, sib_t = tpl.tflags, tpl.sib_t
    sib_base, sib_mask = feat.sib_base, feat.sib_mask
    w = wts.w
    q = wts.q
    u = wts.u
    SIB = np.zeros((n + 1, n + 1, n + 1))
    for h in range(n + 1):
        for d in range(1, n + 1):
            if d == h:
                continue
            step = 1 if h < d else -1
            s = h
            while s != d:
                agrv, ddv = arc_values(atoms, r0, h, d, abs(d - s))
                xi = n + 1 if s == h else s
                acc = 0.0
                for j in range(sib_t.shape[0]):
                    key = tkey(sib_t[j], tflags, PH, PD, PX, h, d, xi, agrv, ddv)
                    acc += wread(w, q, u, nupd, eta, C, reg, sib_base + np.int64(key & sib_mask))
                SIB[h, s, d] = acc
                s += step
    return SIB


@njit(cache=NUMBA_CACHE)
def catchup_sentence(sent, order, tpl, feat, wts, nupd, eta, C, reg):
    """Bring every weight that scoring sentence ``sent`` will read up to update ``nupd``
    (AdaGrad's lazy catch-up, the thesis's Algorithm 1 SCORE), so that the scorers can then
    read plainly.  Enumerates exactly what :func:`score_arcs` and
    :func:`score_siblings` read."""
    r0, n, atoms, PH, PD, PX = sent.r0, sent.n, sent.atoms, sent.PH, sent.PD, sent.PX
    tflags, head_t, dep_t, pair_t, betw_t, sib_t = tpl.tflags, tpl.head_t, tpl.dep_t, tpl.pair_t, tpl.betw_t, tpl.sib_t
    table, bloom, sib_base, sib_mask = feat.table, feat.bloom, feat.sib_base, feat.sib_mask
    w = wts.w
    q = wts.q
    u = wts.u
    for side in range(2):
        side_t = head_t if side == 0 else dep_t
        for t in range(side, n + 1):
            h = 0 if side == 1 else t
            d = t if side == 1 else 0
            for dirv in range(2):
                if side == 1:
                    far = t if dirv == 1 else n - t
                else:
                    far = n - t if dirv == 1 else t - 1
                for db in range(-1, dist_bucket(far) + 1 if far >= 1 else 0):
                    ddv = _M4 * np.uint64(dirv * 8 + db + 1) if db >= 0 else np.uint64(0)
                    for j in range(side_t.shape[0]):
                        ti = side_t[j]
                        if (tflags[1, ti] != 0) != (db >= 0):
                            continue
                        ref = filtered_lookup(table, bloom, tkey(ti, tflags, PH, PD, PX, h, d, 0, np.uint64(0), ddv))
                        if ref >= 0:
                            o = ref >> BLOCK_SHIFT
                            catchup_block(o, o + (ref & BLOCK_MASK), w, q, u, nupd, eta, C, reg)
    nb = betw_t.shape[0]
    locs = _between_locs(atoms, r0, n, tpl.betw_col)
    seen = np.zeros(n + 2, np.int64)
    stamp = 0
    keys = np.empty(pair_t.shape[0] + nb * (n + 1) + 1, np.uint64)
    bufs = ArcKeyBuffers(locs, seen, keys)
    for h in range(n + 1):
        for d in range(1, n + 1):
            if d == h:
                continue
            c, stamp = arc_keys(h, d, False, sent, tpl, bufs, stamp)
            for j in range(c):
                ref = filtered_lookup(table, bloom, keys[j])
                if ref >= 0:
                    o = ref >> BLOCK_SHIFT
                    catchup_block(o, o + (ref & BLOCK_MASK), w, q, u, nupd, eta, C, reg)
            if order == 2:
                step = 1 if h < d else -1
                s = h
                while s != d:
                    agrv, ddv = arc_values(atoms, r0, h, d, abs(d - s))
                    xi = n + 1 if s == h else s
                    for j in range(sib_t.shape[0]):
                        key = tkey(sib_t[j], tflags, PH, PD, PX, h, d, xi, agrv, ddv)
                        wread(w, q, u, nupd, eta, C, reg, sib_base + np.int64(key & sib_mask))
                    s += step


@njit(cache=NUMBA_CACHE)
def _arc_gradient(h, d, lab, sent, tpl, feat, bufs, stamp, out_idx, pos):
    """Weight indices of the labelled arc (h, d, lab) of ``sent`` into ``out_idx[pos:]``
    (the caller writes their values); returns (new pos, new stamp)."""
    table, bloom, fnode, anc, K = feat.table, feat.bloom, feat.fnode, feat.anc, feat.K
    keys = bufs.keys
    c, stamp = arc_keys(h, d, True, sent, tpl, bufs, stamp)
    for j in range(c):
        ref = filtered_lookup(table, bloom, keys[j])
        if ref >= 0:
            o = ref >> BLOCK_SHIFT
            pos = block_weight_indices(o, o + (ref & BLOCK_MASK), lab, fnode, anc, K, out_idx, pos)
    return pos, stamp


@njit(cache=NUMBA_CACHE)
def _sibling_gradient(heads, sign, sent, tpl, feat, out_idx, out_val, pos):
    """Entries for every (h, previous sibling, d) triple of the tree ``heads`` of ``sent``."""
    r0, n, atoms, PH, PD, PX = sent.r0, sent.n, sent.atoms, sent.PH, sent.PD, sent.PX
    tflags, sib_t = tpl.tflags, tpl.sib_t
    sib_base, sib_mask = feat.sib_base, feat.sib_mask
    for h in range(n + 1):
        for side in range(2):
            prev = h
            m = n - h if side == 0 else h - 1      # words on this side of h
            for k in range(1, m + 1):
                d = h + k if side == 0 else h - k
                if heads[d] != h:
                    continue
                agrv, ddv = arc_values(atoms, r0, h, d, abs(d - prev))
                xi = n + 1 if prev == h else prev
                for j in range(sib_t.shape[0]):
                    key = tkey(sib_t[j], tflags, PH, PD, PX, h, d, xi, agrv, ddv)
                    out_idx[pos] = sib_base + np.int64(key & sib_mask)
                    out_val[pos] = sign
                    pos += 1
                prev = d
    return pos


@njit(cache=NUMBA_CACHE, parallel=True)
def train_batch(batch, sents, tpl, feat, learner, settings, out):
    """Loss-augmented decode of the sentences of ``sents`` (:class:`Sentences`) numbered
    in ``batch`` (in parallel) with ``settings`` (:class:`DecodeSettings`) and the
    weights of ``learner`` (a learner's ``read_args()`` as a
    ``plgraph.learn._kernels.WeightView``), and the subgradient f(prediction) - f(gold)
    of each into ``out`` (:class:`TrainOutputs`): ``out.idx/out.val[out.goff[b]:]``
    (``out.cnt[b]`` entries); ``out.err[b]`` = Hamming errors of the prediction.

    The loop body is :func:`_train_sentence`, a function of its own: numba's parfor
    passes then work on one call instead of the whole decode (a fraction of the
    compile time, the same machine code per sentence)."""
    for bi in prange(batch.shape[0]):
        _train_sentence(np.int64(bi), batch[bi], sents, tpl, feat, learner, settings, out)


@njit(cache=NUMBA_CACHE)
def _train_sentence(bi, i, sents, tpl, feat, learner, settings, out):
    """:func:`train_batch` for sentence ``i`` of ``sents``, batch position ``bi``."""
    row0, word0, nwords, atoms = sents.row0, sents.word0, sents.nwords, sents.atoms
    gheads, glabels = sents.heads, sents.labels
    head_t, dep_t, pair_t, betw_t = tpl.head_t, tpl.dep_t, tpl.pair_t, tpl.betw_t
    order, multi_root = settings.order, settings.multi_root
    cost_head, cost_label = settings.cost_head, settings.cost_label
    tseed, tmpl, none_sib, betw_col = tpl.tseed, tpl.tmpl, tpl.none_sib, tpl.betw_col
    nupd, eta, C, reg = learner.n, learner.eta, learner.C, learner.reg
    wts = WeightArrays(learner.w, learner.q, learner.u)
    goff, out_idx, out_val, out_cnt, out_err = out.goff, out.idx, out.val, out.cnt, out.err
    pred_heads, pred_labels = out.pred_heads, out.pred_labels
    n = nwords[i]
    r0 = row0[i] + 1
    w0 = word0[i]
    gh = gheads[w0:w0 + n]
    gl = glabels[w0:w0 + n]
    PH, PD, PX = part_hashes(tseed, tmpl, atoms, none_sib, r0, n)
    sent = SentenceParts(r0, n, atoms, PH, PD, PX)
    # AdaGrad: catch up every weight the scorers will read first (the values SCORE would
    # compute), then read plainly.  The scorers are always called with literal arguments
    # for plain reads (perceptron and PA read plainly anyway): numba then compiles them
    # without the lazy catch-up's write-back, which would otherwise stop LLVM from
    # optimising the hot loops (5x slower even when nothing is caught up).
    if reg != 0:
        catchup_sentence(sent, order, tpl, feat, wts, nupd, eta, C, reg)
    S, LAB = score_arcs(sent, ArcCost(gh, gl, cost_head, cost_label), True, tpl, feat, wts, 0, 0.0, 0.0, 0)
    if order == 2:
        SIB = score_siblings(sent, tpl, feat, wts, 0, 0.0, 0.0, 0)
        heads, _ = eisner2(S, SIB, multi_root)
    else:
        heads, _ = eisner1(S, multi_root)
    err = 0.0
    same_tree = True
    for d in range(1, n + 1):
        ph = heads[d]
        pl = LAB[ph, d]
        pred_heads[w0 + d - 1] = ph
        pred_labels[w0 + d - 1] = pl
        if ph != gh[d - 1]:
            err += cost_head
            same_tree = False
        elif pl != gl[d - 1]:
            err += cost_label
    out_err[bi] = err
    pos = goff[bi]
    if err > 0.0:
        nb = betw_t.shape[0]
        locs = _between_locs(atoms, r0, n, betw_col)
        seen = np.zeros(n + 2, np.int64)
        stamp = 0
        keys = np.empty(head_t.shape[0] + dep_t.shape[0] + pair_t.shape[0] + nb * (n + 1) + 1, np.uint64)
        bufs = ArcKeyBuffers(locs, seen, keys)
        for d in range(1, n + 1):
            ph = heads[d]
            pl = LAB[ph, d]
            if ph == gh[d - 1] and pl == gl[d - 1]:
                continue
            p0 = pos
            pos, stamp = _arc_gradient(ph, d, pl, sent, tpl, feat, bufs, stamp, out_idx, pos)
            for t in range(p0, pos):
                out_val[t] = 1.0
            p0 = pos
            pos, stamp = _arc_gradient(gh[d - 1], d, gl[d - 1], sent, tpl, feat, bufs, stamp, out_idx, pos)
            for t in range(p0, pos):
                out_val[t] = -1.0
        if order == 2 and not same_tree:
            gold = np.empty(n + 1, np.int64)
            gold[0] = -1
            for d in range(1, n + 1):
                gold[d] = gh[d - 1]
            pos = _sibling_gradient(heads, 1.0, sent, tpl, feat, out_idx, out_val, pos)
            pos = _sibling_gradient(gold, -1.0, sent, tpl, feat, out_idx, out_val, pos)
    out_cnt[bi] = pos - goff[bi]


@njit(cache=NUMBA_CACHE)
def _sentence_scores(i, sents, tpl, feat, w, order):
    q = np.zeros((0, 2))
    u = np.zeros(0, np.int32)
    dummy = np.zeros(0, np.int64)
    n = sents.nwords[i]
    r0 = sents.row0[i] + 1
    PH, PD, PX = part_hashes(tpl.tseed, tpl.tmpl, sents.atoms, tpl.none_sib, r0, n)
    sent = SentenceParts(r0, n, sents.atoms, PH, PD, PX)
    wts = WeightArrays(w, q, u)
    S, LAB = score_arcs(sent, ArcCost(dummy, dummy, 0.0, 0.0), False, tpl, feat, wts, 0, 0.0, 0.0, 0)
    if order == 2:
        SIB = score_siblings(sent, tpl, feat, wts, 0, 0.0, 0.0, 0)
    else:
        SIB = np.zeros((1, 1, 1))
    return S, LAB, SIB


@njit(cache=NUMBA_CACHE, parallel=True)
def parse_batch(batch, sents, tpl, feat, w, order, multi_root, pred_heads, pred_labels):
    """Parse the sentences of ``sents`` (:class:`Sentences`) numbered in ``batch`` (in
    parallel) with final weights ``w``."""
    for bi in prange(batch.shape[0]):
        _parse_sentence(batch[bi], sents, tpl, feat, w, order, multi_root, pred_heads, pred_labels)


@njit(cache=NUMBA_CACHE)
def _parse_sentence(i, sents, tpl, feat, w, order, multi_root, pred_heads, pred_labels):
    """:func:`parse_batch` for sentence ``i`` of ``sents`` (a function of its own, as
    :func:`_train_sentence`)."""
    n = sents.nwords[i]
    w0 = sents.word0[i]
    S, LAB, SIB = _sentence_scores(i, sents, tpl, feat, w, order)
    if order == 2:
        heads, _ = eisner2(S, SIB, multi_root)
    else:
        heads, _ = eisner1(S, multi_root)
    for d in range(1, n + 1):
        pred_heads[w0 + d - 1] = heads[d]
        pred_labels[w0 + d - 1] = LAB[heads[d], d]


@njit(cache=NUMBA_CACHE)
def sentence_scores(i, sents, tpl, feat, w, order):
    """(S, LAB, SIB) of sentence i of ``sents`` under final weights (SIB is a dummy for
    order 1)."""
    return _sentence_scores(i, sents, tpl, feat, w, order)


@njit(cache=NUMBA_CACHE)
def gold_feature_keys(sents, tpl, count_only, out_keys, out_labels):
    """Keys of every labelled feature on every gold arc of ``sents`` (with the arc's
    label); with ``count_only`` just the number of entries."""
    row0, word0, nwords, atoms = sents.row0, sents.word0, sents.nwords, sents.atoms
    gheads, glabels = sents.heads, sents.labels
    head_t, dep_t, pair_t, betw_t = tpl.head_t, tpl.dep_t, tpl.pair_t, tpl.betw_t
    pos = 0
    nb = betw_t.shape[0]
    for i in range(nwords.shape[0]):
        n = nwords[i]
        r0 = row0[i] + 1
        w0 = word0[i]
        PH, PD, PX = part_hashes(tpl.tseed, tpl.tmpl, atoms, tpl.none_sib, r0, n)
        sent = SentenceParts(r0, n, atoms, PH, PD, PX)
        locs = _between_locs(atoms, r0, n, tpl.betw_col)
        seen = np.zeros(n + 2, np.int64)
        stamp = 0
        keys = np.empty(head_t.shape[0] + dep_t.shape[0] + pair_t.shape[0] + nb * (n + 1) + 1, np.uint64)
        bufs = ArcKeyBuffers(locs, seen, keys)
        for d in range(1, n + 1):
            h = gheads[w0 + d - 1]
            lab = glabels[w0 + d - 1]
            if h < 0 or lab < 0:
                continue
            c, stamp = arc_keys(h, d, True, sent, tpl, bufs, stamp)
            if not count_only:
                for j in range(c):
                    out_keys[pos + j] = keys[j]
                    out_labels[pos + j] = lab
            pos += c
    return pos


@njit(cache=NUMBA_CACHE)
def label_score_table(i, sents, tpl, feat, w, n_labels, nupd, eta, C, reg):
    """``T[h, d, l]``: the score of arc h -> d (0 = ROOT) of sentence i of ``sents``
    with label l for every candidate label of the arc's class, -inf elsewhere -- the
    per-label table behind :func:`score_arcs`'s best label (same accumulators, same
    order of additions, so ``T.max(-1)`` equals its ``S`` bit for bit).  ``nupd, eta,
    C, reg`` are the final-weights reading arguments (0, 0.0, 0.0, 0); they are passed
    in, not written as constants, because numba would then prune ``wread``'s float64
    branch and subtract float32 weights in float32, unlike ``score_arcs``."""
    q = np.zeros((0, 2))
    u = np.zeros(0, np.int32)
    n = sents.nwords[i]
    r0 = sents.row0[i] + 1
    atoms = sents.atoms
    head_t, dep_t, pair_t, betw_t = tpl.head_t, tpl.dep_t, tpl.pair_t, tpl.betw_t
    fnode, nodelevel, anc, K = feat.fnode, feat.nodelevel, feat.anc, feat.K
    table, bloom, cpos_keys, lab_off, lab_list = feat.table, feat.bloom, feat.cpos_keys, feat.lab_off, feat.lab_list
    PH, PD, PX = part_hashes(tpl.tseed, tpl.tmpl, atoms, tpl.none_sib, r0, n)
    sent = SentenceParts(r0, n, atoms, PH, PD, PX)
    wts = WeightArrays(w, q, u)
    wv = WeightView(w, q, u, nupd, eta, C, reg)
    A = 1 + K + nodelevel.shape[0]
    NC = cpos_keys.shape[0] + 1
    as_head, as_dep = np.bool_(False), np.bool_(True)     # one compiled version (see score_arcs)
    HV = _token_accumulators(sent, head_t, as_head, tpl, feat, wts, nupd, eta, C, reg)
    DV = _token_accumulators(sent, dep_t, as_dep, tpl, feat, wts, nupd, eta, C, reg)
    cidx = coarse_index(atoms, r0, n, cpos_keys)
    nb = betw_t.shape[0]
    locs = _between_locs(atoms, r0, n, tpl.betw_col)
    seen = np.zeros(n + 2, np.int64)
    stamp = 0
    keys = np.empty(pair_t.shape[0] + nb * (n + 1) + 1, np.uint64)
    bufs = ArcKeyBuffers(locs, seen, keys)
    refs = np.empty(keys.shape[0], np.int64)
    T = np.full((n + 1, n + 1, n_labels), -np.inf)
    acc = np.empty(A)
    for h in range(n + 1):
        for d in range(1, n + 1):
            if d == h:
                continue
            c, stamp = arc_keys(h, d, False, sent, tpl, bufs, stamp)
            m = 0
            for j in range(c):
                ref = filtered_lookup(table, bloom, keys[j])
                if ref >= 0:
                    refs[m] = ref
                    m += 1
            dirv = 1 if h < d else 0
            db = dist_bucket(abs(h - d))
            hv = HV[h, dirv, db]
            dv = DV[d, dirv, db]
            for a in range(A):
                acc[a] = hv[a] + dv[a]
            for j in range(m):
                o = refs[j] >> BLOCK_SHIFT
                accumulate_block(o, o + (refs[j] & BLOCK_MASK), fnode, nodelevel, K, wv, acc)
            cls = (cidx[h] * NC + cidx[d]) * 2 + dirv
            for j in range(lab_off[cls], lab_off[cls + 1]):
                l = lab_list[j]
                T[h, d, l] = label_score(acc, anc, K, l)
    return T


@njit(cache=NUMBA_CACHE)
def max_marginals(S, SIB, order, multi_root):
    if order == 2:
        return max_marginals2(S, SIB, multi_root)
    return max_marginals1(S, multi_root)


if NUMBA_CACHE:
    _cache.guard_cache(__file__, dist_bucket, _learn_kernels.__file__, _eisner_module.__file__)
