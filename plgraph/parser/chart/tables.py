"""What the graph parser's chart reads about one sentence: spine options, best-label arc
scores per spine pair, the Hamming loss of training, gold items and coarse-pass masks.

Positions are the chart's (:mod:`plgraph.encoding`): words ``0..n-1``, ROOT ``n``, ``N = n + 1``
points; tables are indexed ``[child, parent]``.  Every point ``w`` has ``nsp[w] >= 1``
spine options (ROOT exactly one, of score 0); pass 2 is the case of one option per word.

:class:`ChartTables` holds, for every ordered pair ``(c, p)`` that may carry an edge, one
block of ``nsp[c] * nsp[p]`` entries -- flat index ``pair_off[c * N + p] + i * nsp[p] + j``
for spine options ``i`` of ``c`` and ``j`` of ``p`` -- with the best structural and the
best trace label's score (``-inf``: that kind is not allowed) and the labels.  Only the
best label of each kind matters to the chart: the two kinds are chosen independently for
a pair, so Viterbi over labelled graphs is Viterbi over these
tables.  :meth:`ChartTables.kernel_args` packs what the kernel reads
(:class:`ScoreArgs`).

**Loss-augmented tables** (training; the reference's
weights as defaults).  With a gold graph, every label's score gets its share of the
Hamming loss before the best label is taken: 0 for the gold label of a gold (c, p, kind),
``wrong_label`` for another label of a gold (c, p, kind), ``extra`` for an edge gold does
not have; every spine option that is not the gold one gets ``spine``.  Missed gold edges
are charged by the chart where they become impossible (``miss`` and the gold indicators;
module :mod:`plgraph.parser.chart._kernel`).  Together each extra, wrong-label and missed edge and
each wrong spine is charged exactly once (``tests/test_parser_chart.py`` checks the total
against the directly computed loss of every enumerated graph).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ...files.shards import record_type
from ._kernel import MAX_WORDS, SPN

NEG = -np.inf


def spine_offsets(nsp) -> np.ndarray:
    """``(N + 1,)`` offsets of each point's spine options in a flat array, from the
    options per point ``nsp``: point w's are ``off[w] .. off[w+1]-1``."""
    off = np.zeros(len(nsp) + 1, np.int64)
    np.cumsum(nsp, out=off[1:])
    return off


class SpinePoints:
    """What a sentence with ``n`` words and ``nsp`` spine options per point (ROOT last)
    knows of its points: their number ``N``, the options' offsets ``sp_off``
    (:func:`spine_offsets`) and the options a parse chose (``sp_id``: each option's
    spine id).  A base of the scorers' sentence records."""

    @property
    def N(self) -> int:
        return self.n + 1

    @property
    def sp_off(self) -> np.ndarray:
        return spine_offsets(self.nsp)

    def chosen_spines(self, result) -> np.ndarray:
        """``(n,)`` the spine id (``sp_id``) of each word's option in a parsed chart
        ``result`` (its ``spines``: option indices per point)."""
        return self.sp_id[self.sp_off[:self.n] + result.spines[:self.n]]


@dataclass(frozen=True)
class LossWeights:
    """The Hamming loss's weights (the reference's ``lossWeight*`` defaults)."""

    missed: float = 1.0
    extra: float = 1.0
    wrong_label: float = 2.0
    spine: float = 1.0


class ScoreArgs(NamedTuple):
    """The arrays the chart kernel reads about one sentence (one namedtuple argument).

    * ``sp_off`` (N+1,), ``sp_score``: spine options of point w are
      ``sp_off[w] .. sp_off[w+1]-1`` with their (loss-augmented) scores;
    * ``pair_off`` (N*N,): start of the (c, p) block, -1 when no edge c -> p is allowed;
      ``s_best`` / ``t_best``: best structural / trace score per block entry;
    * ``miss``: the missed-edge weight (0 outside training); ``gold_s`` / ``gold_t`` (N*N,)
      uint8: gold structural / trace edge c -> p; ``gw`` (N*N,): the number of gold (kind,
      direction) edges between two points; ``gps`` ((N+1)*(N+1),): its 2-D prefix sums
      (``gps[a * (N+1) + b]`` = edges between points < a and points < b);
    * ``gold_off`` (N*N+1,) / ``gold_id``: per cell ``p * N + q``, the identities
      (:func:`plgraph.parser.chart._kernel.ident`) of the gold derivation's items;
    * ``coarse`` (N*N,) uint8: bit ``f`` of ``coarse[p * N + q]`` allows combination-built
      Interval items over [p, q] whose flags ``& COARSE_FLAGS`` are ``f`` (the pass-1b check;
      every bit set: no check).
    """

    sp_off: np.ndarray
    sp_score: np.ndarray
    pair_off: np.ndarray
    s_best: np.ndarray
    t_best: np.ndarray
    miss: float
    gold_s: np.ndarray
    gold_t: np.ndarray
    gw: np.ndarray
    gps: np.ndarray
    gold_off: np.ndarray
    gold_id: np.ndarray
    coarse: np.ndarray


@record_type
@dataclass
class Gold:
    """A gold graph in chart positions: ``s[c, p]`` / ``t[c, p]`` the gold structural /
    trace label of c -> p (-1 none), ``spine[w]`` the gold spine option of word w (-1:
    not among the options)."""

    s: np.ndarray
    t: np.ndarray
    spine: np.ndarray

    def edges(self):
        """Unlabelled (child, parent) pairs with a gold edge of either kind."""
        c, p = np.nonzero((self.s >= 0) | (self.t >= 0))
        return {(int(a), int(b)) for a, b in zip(c, p)}


@dataclass
class ChartTables:
    """One sentence's score tables for the chart (see the module docstring).

    ``nsp`` (N,): spine options per point; ``sp_score``: flat option scores (offsets
    ``cumsum(nsp)``); ``pair_off`` (N, N); ``s_best``, ``s_lab``, ``t_best``, ``t_lab``:
    flat block arrays; ``gold``: the gold graph when the tables are loss-augmented;
    ``miss``: the missed-edge weight; ``gold_items``: (off, ids) from
    :func:`plgraph.parser.chart.gold.gold_item_ids` (None: no gold items marked); ``coarse``:
    (N, N) uint8 mask of the pass-1b check (None: no check)."""

    nsp: np.ndarray
    sp_score: np.ndarray
    pair_off: np.ndarray
    s_best: np.ndarray
    s_lab: np.ndarray
    t_best: np.ndarray
    t_lab: np.ndarray
    gold: Gold | None = None
    miss: float = 0.0
    gold_items: tuple | None = None
    coarse: np.ndarray | None = None

    @property
    def N(self) -> int:
        return int(self.nsp.shape[0])

    @property
    def n(self) -> int:
        return self.N - 1

    def flat_index(self, c: int, p: int, i: int = 0, j: int = 0) -> int:
        off = int(self.pair_off[c, p])
        return -1 if off < 0 else off + i * int(self.nsp[p]) + j

    def kernel_args(self) -> ScoreArgs:
        """The :class:`ScoreArgs` of these tables (built once)."""
        cached = getattr(self, "_args", None)
        if cached is not None:
            return cached
        N = self.N
        sp_off = spine_offsets(self.nsp)
        gs = np.zeros(N * N, np.uint8)
        gt = np.zeros(N * N, np.uint8)
        gw = np.zeros((N, N), np.int64)
        if self.gold is not None:
            gs = (self.gold.s >= 0).astype(np.uint8).ravel()
            gt = (self.gold.t >= 0).astype(np.uint8).ravel()
            gw = (self.gold.s >= 0).astype(np.int64) + (self.gold.t >= 0)
            gw = gw + gw.T
            np.fill_diagonal(gw, 0)
        gps = np.zeros((N + 1, N + 1), np.int64)
        gps[1:, 1:] = gw.cumsum(axis=0).cumsum(axis=1)
        if self.gold_items is not None:
            gold_off, gold_id = self.gold_items
        else:
            gold_off, gold_id = np.zeros(N * N + 1, np.int64), np.zeros(0, np.int64)
        coarse = np.full(N * N, 255, np.uint8) if self.coarse is None else np.ascontiguousarray(self.coarse,
                                                                                                 np.uint8).ravel()
        self._args = ScoreArgs(sp_off, np.ascontiguousarray(self.sp_score, np.float64),
                               np.ascontiguousarray(self.pair_off, np.int64).ravel(),
                               np.ascontiguousarray(self.s_best, np.float64),
                               np.ascontiguousarray(self.t_best, np.float64), float(self.miss), gs, gt, gw.ravel(),
                               gps.ravel(), np.asarray(gold_off, np.int64), np.asarray(gold_id, np.int64), coarse)
        return self._args


def _check_scores(X, name: str, shape: tuple) -> np.ndarray:
    X = np.asarray(X, np.float64)
    if X.shape[:len(shape)] != shape:
        raise ValueError(f"{name}: expected shape {shape} + (labels,), got {X.shape}")
    if np.isnan(X).any() or np.isposinf(X).any():
        raise ValueError(f"{name}: scores must be finite or -inf (no NaN or +inf)")
    return X


def dense_tables(S, T, spine_score=None, nsp=None, gold: Gold | None = None,
                 weights: LossWeights = LossWeights()) -> ChartTables:
    """Tables from dense per-label scores: ``S[c, p, i, j, l]`` (structural) and
    ``T[c, p, i, j, l]`` (trace), shape ``(N, N, K, K, labels)`` with ``-inf`` for a label
    not allowed; ``spine_score (N, K)`` (default 0) and ``nsp (N,)`` options per point
    (default 1; ROOT is always 1 with score 0).  ``S``/``T`` of shape ``(N, N, labels)``
    mean one spine option per point.

    Edges out of ROOT, self-loops and trace edges into ROOT are never allowed (the chart
    cannot build them).  With ``gold`` the tables are loss-augmented (module docstring).
    """
    S = np.asarray(S, np.float64)
    T = np.asarray(T, np.float64)
    if S.ndim == 3:
        S = S[:, :, None, None, :]
    if T.ndim == 3:
        T = T[:, :, None, None, :]
    if S.ndim != 5 or S.shape[0] != S.shape[1]:
        raise ValueError(f"S: expected shape (N, N, K, K, labels) or (N, N, labels), got {S.shape}")
    N, K = S.shape[0], S.shape[2]
    if N < 2 or N - 1 > MAX_WORDS:
        raise ValueError(f"the chart parses 1 to {MAX_WORDS} words, not {N - 1}")
    S = _check_scores(S, "S", (N, N, K, K))
    T = _check_scores(T, "T", (N, N, K, K))
    nsp = np.ones(N, np.int64) if nsp is None else np.asarray(nsp, np.int64).copy()
    if nsp.shape != (N,) or (nsp < 1).any() or (nsp > min(K, SPN)).any():
        raise ValueError(f"nsp: expected {N} counts in 1..{min(K, SPN)}")
    nsp[N - 1] = 1
    ss = np.zeros((N, K)) if spine_score is None else _check_scores(spine_score, "spine_score", (N,))
    if ss.shape != (N, K):
        raise ValueError(f"spine_score: expected shape ({N}, {K}), got {ss.shape}")
    ss = ss.copy()
    ss[N - 1, :] = 0.0
    S = S.copy()
    T = T.copy()
    S[N - 1] = NEG
    T[N - 1] = NEG
    T[:, N - 1] = NEG
    idx = np.arange(N)
    S[idx, idx] = NEG
    T[idx, idx] = NEG
    miss = 0.0
    if gold is not None:
        _check_gold(gold, N, S.shape[4], T.shape[4], nsp)
        for G, X in ((gold.s, S), (gold.t, T)):
            cost = np.full(X.shape[:2] + (1, 1, X.shape[4]), weights.extra)
            c, p = np.nonzero(G >= 0)
            cost[c, p] = weights.wrong_label
            cost[c, p, :, :, G[c, p]] = 0.0
            X += cost
        for w in range(N - 1):
            wrong = np.arange(K) != gold.spine[w]
            ss[w, wrong] += weights.spine
        miss = weights.missed
    # blocks for pairs with any allowed label under any spine pair, in row-major pair order
    valid = (np.arange(K)[:, None] < nsp[:, None, None, None]) & (np.arange(K)[None, :] < nsp[None, :, None, None])
    bs, ls = _best_labels(S)
    bt, lt = _best_labels(T)
    allowed = ((np.isfinite(bs) | np.isfinite(bt)) & valid).any(axis=(2, 3))
    sizes = np.where(allowed, nsp[:, None] * nsp[None, :], 0).ravel()
    pair_off = np.where(allowed.ravel(), np.cumsum(sizes) - sizes, -1).reshape(N, N).astype(np.int64)
    mask = allowed[:, :, None, None] & valid
    sp_score = np.concatenate([ss[w, :nsp[w]] for w in range(N)])
    return ChartTables(nsp, sp_score, pair_off, bs[mask], ls[mask], bt[mask], lt[mask], gold, miss)


def _best_labels(X: np.ndarray):
    """Best score and label over the last axis (-inf and -1 where no label is allowed)."""
    if X.shape[-1] == 0:
        return np.full(X.shape[:-1], NEG), np.full(X.shape[:-1], -1, np.int64)
    lab = X.argmax(axis=-1)
    best = np.take_along_axis(X, lab[..., None], axis=-1)[..., 0]
    return best, np.where(np.isfinite(best), lab, -1).astype(np.int64)


def _check_gold(gold: Gold, N: int, n_s: int, n_t: int, nsp) -> None:
    for name, G, L in (("gold.s", gold.s, n_s), ("gold.t", gold.t, n_t)):
        G = np.asarray(G)
        if G.shape != (N, N):
            raise ValueError(f"{name}: expected shape ({N}, {N}), got {G.shape}")
        if ((G < -1) | (G >= L)).any():
            raise ValueError(f"{name}: labels must be -1 (no gold edge) or in 0..{L - 1}")
        bad = G[N - 1, :] >= 0
        if bad.any() or (np.diagonal(G) >= 0).any():
            raise ValueError(f"{name}: gold edges out of ROOT or to themselves cannot be built by the chart")
    if (np.asarray(gold.t)[:, N - 1] >= 0).any():
        raise ValueError("gold.t: trace edges into ROOT cannot be built by the chart")
    sp = np.asarray(gold.spine)
    if sp.shape != (N - 1,) or ((sp < -1) | (sp >= np.asarray(nsp)[:N - 1])).any():
        raise ValueError(f"gold.spine: expected {N - 1} options (or -1: gold not among the options)")


def arc_score_tables(S1) -> ChartTables:
    """Pass-1b tables: best-label structural arc scores ``S1[c, p]`` (chart positions,
    ``-inf``: not allowed), no trace edges, one spine option per point.  (What
    :func:`dense_tables` builds from ``S1[:, :, None]`` and no trace labels, without its
    per-label work: pass 1b runs on every sentence.)"""
    S1 = np.asarray(S1, np.float64)
    N = S1.shape[0]
    if S1.shape != (N, N) or N < 2 or N - 1 > MAX_WORDS:
        raise ValueError(f"S1: expected a square (N, N) table with 2 <= N <= {MAX_WORDS + 1}, got {S1.shape}")
    if np.isnan(S1).any() or np.isposinf(S1).any():
        raise ValueError("S1: scores must be finite or -inf (no NaN or +inf)")
    S = S1.copy()
    S[N - 1] = NEG
    np.fill_diagonal(S, NEG)
    allowed = np.isfinite(S)
    pair_off = np.full((N, N), -1, np.int64)
    pair_off[allowed] = np.arange(int(allowed.sum()))
    best = S[allowed]
    return ChartTables(np.ones(N, np.int64), np.zeros(N), pair_off, best, np.zeros(best.shape[0], np.int64),
                       np.full(best.shape[0], NEG), np.full(best.shape[0], -1, np.int64))


def given_score_tables(candidates, spines, cand_score, nsp, sp_score) -> ChartTables:
    """The chart's tables of one sentence from scores given per candidate: the public way
    for a scorer that scores every candidate labelled edge and every spine option itself
    (the neural scorer, :func:`plgraph.parser.scoring.neural.prune.chart_tables`) to feed the exact chart.

    ``candidates`` (:class:`~plgraph.parser.scoring._pass2.Candidates`): the pairs
    ``(pc[k], pp[k])`` that may carry an edge and their candidate labels and kinds;
    ``spines`` (:class:`~plgraph.parser.scoring._pass3.SpineTables`): pair k's block
    offset, every point's spine options and which spine may be the child / parent end of
    which label (label ``l`` of pair ``(c, p)`` is allowed between option ``sc`` of c and
    ``sp`` of p iff ``ok_c[sc, l] and ok_p[sp, l]``); ``cand_score``: one score per
    candidate; ``nsp`` (N,): spine options per point (the root last); ``sp_score``: one
    score per spine option.  Each block entry keeps the best allowed structural and trace
    label (-inf / -1 when none is allowed).  ValueError when the arrays do not fit
    together (the kernel checks no bounds)."""
    from ..scoring._pass2 import best_labels
    from ._given import given_label_tables

    pc, pp, cand_off, cand_lab, cand_kind = (np.asarray(a) for a in candidates)
    blk_off, sp_off, sp_id, ok_c, ok_p = (np.asarray(a) for a in spines)
    nsp, sp_score, cand_score = np.asarray(nsp), np.asarray(sp_score), np.asarray(cand_score)
    N, K = nsp.shape[0], pc.shape[0]
    problems = []
    if not (pp.shape[0] == K and cand_off.shape[0] == K + 1 and blk_off.shape[0] == K + 1):
        problems.append(f"{K} pairs but {pp.shape[0]} parents, {cand_off.shape[0]} candidate offsets and "
                        f"{blk_off.shape[0]} block offsets")
    elif K and (pc.min() < 0 or pp.min() < 0 or pc.max() >= N or pp.max() >= N):
        problems.append(f"a pair outside the {N} points")
    if sp_off.shape[0] != N + 1 or not np.array_equal(np.diff(sp_off), nsp):
        problems.append("spine offsets that do not fit the spine options per point")
    if sp_score.shape[0] != sp_id.shape[0] or (sp_off.shape[0] and sp_off[-1] != sp_id.shape[0]):
        problems.append(f"{sp_id.shape[0]} spine options but {sp_score.shape[0]} spine scores")
    n_cands = int(cand_off[-1]) if cand_off.shape[0] else 0
    if cand_score.shape[0] != n_cands or cand_lab.shape[0] != n_cands or cand_kind.shape[0] != n_cands:
        problems.append(f"{n_cands} candidates but {cand_score.shape[0]} scores, {cand_lab.shape[0]} labels and "
                        f"{cand_kind.shape[0]} kinds")
    elif n_cands and (cand_lab.min() < 0 or cand_lab.max() >= min(ok_c.shape[1], ok_p.shape[1])):
        problems.append("a candidate label outside the spine-label tables")
    if sp_id.shape[0] and (sp_id.min() < 0 or sp_id.max() >= min(ok_c.shape[0], ok_p.shape[0])):
        problems.append("a spine option outside the spine-label tables")
    if not problems and K:
        need = (nsp[pc] * nsp[pp]).astype(np.int64)
        if not np.array_equal(np.diff(blk_off), need) or blk_off[0] != 0:
            problems.append("block offsets that do not fit the pairs' spine options")
    if problems:
        raise ValueError("chart tables from given scores: " + "; ".join(problems))
    out = best_labels(int(blk_off[-1]) if blk_off.shape[0] else 0)
    given_label_tables(type(candidates)(pc, pp, cand_off, cand_lab, cand_kind),
                       type(spines)(blk_off, sp_off, sp_id, ok_c, ok_p), cand_score, out)
    pair_off = np.full((N, N), -1, np.int64)
    pair_off[pc, pp] = blk_off[:-1]
    return ChartTables(nsp.copy(), sp_score.copy(), pair_off, out.s_best, out.s_lab, out.t_best, out.t_lab)
