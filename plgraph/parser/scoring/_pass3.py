"""Numba kernels of pass 3's scores.

Pass 3 scores the full structure: every word's spine and every edge, where an edge's
score depends on the spines of its two ends.  With the hashed weights of pass 2
(:func:`plgraph.pruners._kernels.windex`):

* **spine** ``(w, s)``: the spine classifier's word templates
  (:func:`plgraph.pruners._kernels.word_keys`) conjoined with
  the spine identity ``s`` (keys salted so that they never meet the arc keys);
* **edge** ``(c, p, l)`` between spines ``sc`` of c and ``sp`` of p: pass 2's arc keys x
  label and x the label's back-off classes (:func:`plgraph.parser.scoring._pass2.labelled_score`),
  plus the joint (child spine, parent spine, label) keys of :func:`joint_keys`
  (the reference's ``newLocalArcFeatures`` / ``getArcSpineScore``: both spines x label,
  with direction and binned distance, with the two POS, and each spine with the other
  end's POS).

A label is allowed between two spines only if it is consistent with them:
the tables ``ok_c[s, l]`` / ``ok_p[s, l]`` say whether spine ``s`` can be the child /
parent end of label ``l`` (built in :mod:`plgraph.parser.scoring.pass3`; row ``ROOT`` = the last
row is ROOT's spine).  Positions are the chart's (words ``0..n-1``, ROOT ``n``); weights
are read with AdaGrad's lazy catch-up (not written back) and the kernels release the GIL.
Arguments are packed as pass 2's (:mod:`plgraph.parser.scoring._pass2`) plus the sentence's
:class:`SpineTables`.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ...files import _numba_cache
from . import _pass2
from ...config import NUMBA_CACHE
from ...learn._kernels import combine
from ._pass2 import augmented, class_cache, hindex, keyed_features, labelled_score, put_best, wget
from ...pruners import _kernels as PK
from ...pruners._kernels import MAX_PAIR_KEYS, MAX_WORD_KEYS, _atom, dist_bin, pair_keys, word_keys

NEG = -np.inf
#: joint (spine, spine, label) keys per edge
N_JOINT = 5
#: salt of the spine keys (keeps them apart from every arc key)
SPINE_SALT = np.uint64(0x5BD1E9955BD1E995)


class SpineTables(NamedTuple):
    """Pass 3's spine tables of one sentence: pair k's block of the flat score tables
    starts at ``blk_off[k]``; point w's spine options are ``sp_id[sp_off[w]:sp_off[w+1]]``
    (identities of :class:`~plgraph.parser.scoring.pass3.SpineInventory`); ``ok_c[s, l]`` /
    ``ok_p[s, l]``: spine s can be the child / parent end of label l."""

    blk_off: np.ndarray
    sp_off: np.ndarray
    sp_id: np.ndarray
    ok_c: np.ndarray
    ok_p: np.ndarray


class SpinedEdges(NamedTuple):
    """Labelled edges between spines (int64 arrays of one length): edge e is
    ``c[e] -> p[e]`` with label ``lab[e]``, between spine identity ``sc[e]`` of c and
    ``sp[e]`` of p."""

    c: np.ndarray
    p: np.ndarray
    lab: np.ndarray
    sc: np.ndarray
    sp: np.ndarray


class WordSpines(NamedTuple):
    """Words with their spines (int64 arrays of one length): word ``w[k]`` has spine
    identity ``s[k]``."""

    w: np.ndarray
    s: np.ndarray


@njit(cache=NUMBA_CACHE)
def joint_keys(th, base, n, c, p, sc, sp, out):
    """The :data:`N_JOINT` joint keys of an edge c -> p between spine identities ``sc``
    and ``sp`` (conjoined with the label by :func:`~plgraph.pruners._kernels.windex`)."""
    ct = _atom(th, base, n, c)
    pt = _atom(th, base, n, p)
    right = np.uint64(1 if p > c else 0)
    both = combine(combine(np.uint64(400), np.uint64(sc)), np.uint64(sp))
    out[0] = both
    out[1] = combine(combine(combine(np.uint64(401), both), right), np.uint64(dist_bin(abs(p - c))))
    out[2] = combine(combine(combine(np.uint64(402), both), ct), pt)
    out[3] = combine(combine(combine(np.uint64(403), np.uint64(sc)), pt), right)
    out[4] = combine(combine(combine(np.uint64(404), np.uint64(sp)), ct), right)
    return N_JOINT


@njit(cache=NUMBA_CACHE, nogil=True)
def spine_scores(sk, sp_off, sp_id, hk, wv, out):
    """``out[k]`` = the score of spine option k (``sp_id[k]``; word w's options are
    ``sp_off[w] .. sp_off[w+1]-1``, w < n; ROOT's option is not scored) of the sentence
    ``sk`` (:class:`~plgraph.parser.scoring._pass2.SentenceKeys`)."""
    n = sk.n
    keys = np.empty(MAX_WORD_KEYS, np.uint64)
    for wd in range(n):
        nk = word_keys(sk.wh, sk.th, sk.base, n, wd, keys)
        for k in range(sp_off[wd], sp_off[wd + 1]):
            s = 0.0
            for j in range(nk):
                s += wget(wv, hindex(keys[j] ^ SPINE_SALT, sp_id[k], hk))
            out[k] = s
    for k in range(sp_off[n], sp_off[n + 1]):
        out[k] = 0.0


@njit(cache=NUMBA_CACHE, nogil=True)
def label_tables(sk, cands, spines, loss, fh, wv, out):
    """Best structural and best trace label of every listed pair ``(cands.pc[k],
    cands.pp[k])`` and spine pair (:class:`SpineTables` ``spines``): block k starts at
    ``blk_off[k]``, entry ``i * nsp[p] + j`` for option i of c and j of p (``nsp`` from
    ``sp_off``).

    Candidates of pair k: ``cand_lab[cand_off[k]:cand_off[k+1]]`` (kinds ``cand_kind``),
    each allowed for a spine pair iff ``ok_c[sid_c, l] and ok_p[sid_p, l]``.  Score =
    arc keys x label (and its back-off classes ``fh.back``) + joint keys x label; with
    ``loss.augment`` the Hamming share as in :func:`plgraph.parser.scoring._pass2.label_tables`.
    Writes ``out`` (:class:`~plgraph.parser.scoring._pass2.BestLabels`): best score / label
    per kind (-inf / -1: none allowed) and the chosen labels' plain scores."""
    pc, pp, cand_off, cand_lab, cand_kind = cands
    blk_off, sp_off, sp_id, ok_c, ok_p = spines
    hk = fh.hk
    keys = np.empty(MAX_PAIR_KEYS, np.uint64)
    jk = np.empty(N_JOINT, np.uint64)
    best = np.empty(2)
    lab_of = np.empty(2, np.int64)
    plain_of = np.empty(2)
    gold = np.empty(2, np.int64)
    max_c = 0
    for k in range(pc.shape[0]):
        max_c = max(max_c, cand_off[k + 1] - cand_off[k])
    arc = np.empty(max_c)
    cls_score, cls_stamp = class_cache(fh.back)
    for k in range(pc.shape[0]):
        c, p = pc[k], pp[k]
        nk = pair_keys(sk.wh, sk.th, sk.base, sk.n, c, p, np.bool_(False), keys)
        lo, hi = cand_off[k], cand_off[k + 1]
        for j in range(lo, hi):
            arc[j - lo] = labelled_score(keys, nk, cand_lab[j], cls_score, cls_stamp, k, fh, wv)
        gold[0] = loss.gold_s[k]
        gold[1] = loss.gold_t[k]
        np_ = sp_off[p + 1] - sp_off[p]
        for i in range(sp_off[c + 1] - sp_off[c]):
            sc = sp_id[sp_off[c] + i]
            for jj in range(np_):
                sp = sp_id[sp_off[p] + jj]
                joint_keys(sk.th, sk.base, sk.n, c, p, sc, sp, jk)
                best[:] = NEG
                lab_of[:] = -1
                plain_of[:] = 0.0
                for j in range(lo, hi):
                    lab = cand_lab[j]
                    if not (ok_c[sc, lab] and ok_p[sp, lab]):
                        continue
                    kind = cand_kind[j]
                    plain = arc[j - lo]
                    for t in range(N_JOINT):
                        plain += wget(wv, hindex(jk[t], lab, hk))
                    sc_ = augmented(plain, gold[kind], lab, loss.augment, loss.extra, loss.wrong)
                    if sc_ > best[kind]:
                        best[kind] = sc_
                        lab_of[kind] = lab
                        plain_of[kind] = plain
                put_best(out, blk_off[k] + i * np_ + jj, best, lab_of, plain_of)


@njit(cache=NUMBA_CACHE, nogil=True)
def features(sk, edges, spines, sign, fh, out_idx, out_val):
    """Feature (index, value) entries of the ``edges`` (:class:`SpinedEdges`) and of the
    ``spines`` (:class:`WordSpines`) of the sentence ``sk``, with value ``sign``, written
    to ``out_idx`` / ``out_val``; returns how many were written (room:
    ``MAX_PAIR_KEYS * (1 + back.shape[1]) + N_JOINT`` per edge and ``MAX_WORD_KEYS`` per
    spine)."""
    wh, th, base, n = sk
    ec, ep, elab, esc, esp = edges
    spw, sps = spines
    hk = fh.hk
    keys = np.empty(max(MAX_PAIR_KEYS, MAX_WORD_KEYS), np.uint64)
    jk = np.empty(N_JOINT, np.uint64)
    m = 0
    for e in range(ec.shape[0]):
        nk = pair_keys(wh, th, base, n, ec[e], ep[e], np.bool_(False), keys)
        m = keyed_features(keys, nk, elab[e], sign, fh, out_idx, out_val, m)
        joint_keys(th, base, n, ec[e], ep[e], esc[e], esp[e], jk)
        for k in range(N_JOINT):
            out_idx[m] = hindex(jk[k], elab[e], hk)
            out_val[m] = sign
            m += 1
    for k in range(spw.shape[0]):
        nk = word_keys(wh, th, base, n, spw[k], keys)
        for j in range(nk):
            out_idx[m] = hindex(keys[j] ^ SPINE_SALT, sps[k], hk)
            out_val[m] = sign
            m += 1
    return m

if NUMBA_CACHE:
    _numba_cache.guard_cache(__file__, label_tables, PK.__file__, PK._learn_kernels.__file__, _pass2.__file__)
