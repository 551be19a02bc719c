"""The chart's candidates and score tables from the network's scores (numpy only).

The linear parser prunes with pass 1, the trace and spine classifiers and pass 2
(:mod:`plgraph.parser.scoring.pass3`); the neural scorer prunes with its own marginals,
which are local probabilities (:class:`SentenceScores`, chart positions, ROOT = ``n``):

* structural edges: for each word ``c`` the heads ``p`` with ``P(p | c) >= head_ratio x``
  the best head's, at most ``max_heads``; for each kept pair the structural labels with
  ``P(l | c, p) >= label_ratio x`` the best label's, at most ``max_labels``;
* trace edges: the ordered word pairs with trace probability ``sigmoid(logit) >=
  trace_min``; their types as the labels (``max_trace_types``, ``label_ratio``);
* spines: per word the identities with ``P(s | w) >= spine_ratio x`` the best one's, at
  most ``max_spines``, most probable first -- with ``spine_top_check`` only those whose
  top node is the child node of one of the word's kept structural labels (a word left
  with none keeps them all), as pass 3 does.

The chart then maximises the sum of log-probabilities: a structural edge scores
``log P(p | c) + log P(l | c, p)``, a trace edge ``logit(c, p) + log P(type | c, p) +
trace_bias`` (its log-odds against no edge), a spine option ``log P(s | w)``; a label is
allowed only between spines it fits (:class:`~plgraph.parser.scoring.pass3.SpineInventory`,
kernel of :func:`plgraph.parser.chart.tables.given_score_tables`).  :func:`relaxed` is the
wider pruning a sentence is decoded again with when the chart finds no parse.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ....errors import InputError
from ...chart.tables import ChartTables, SpinePoints, given_score_tables
from .._pass2 import Candidates
from .._pass3 import SpineTables


@dataclass(frozen=True)
class PruneConfig:
    """Pruning and decoding options of the neural parser (module docstring); ``beam`` /
    ``cube`` as the linear pass 3's.  ``trace_bias`` None: not tuned yet (0)."""

    head_ratio: float = 1e-3
    max_heads: int = 6
    label_ratio: float = 1e-2
    max_labels: int = 4
    trace_min: float = 0.05
    max_trace_types: int = 2
    spine_ratio: float = 1e-2
    max_spines: int = 5
    spine_top_check: bool = True
    trace_bias: float | None = None
    beam: int = 100
    cube: int = 10000

    def __post_init__(self):
        for name in ("head_ratio", "label_ratio", "trace_min", "spine_ratio"):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise InputError(f"PruneConfig.{name} {v}: expected a probability ratio in [0, 1]")
        for name in ("max_heads", "max_labels", "max_trace_types", "max_spines"):
            if getattr(self, name) < 1:
                raise InputError(f"PruneConfig.{name} {getattr(self, name)}: expected at least 1")
        if self.trace_bias is not None and not math.isfinite(self.trace_bias):
            raise InputError(f"PruneConfig.trace_bias {self.trace_bias}: expected a finite number")


def relaxed(config: PruneConfig) -> PruneConfig:
    """The wider pruning of a second decode after the chart found no parse."""
    return replace(config, head_ratio=min(config.head_ratio, 1e-5), max_heads=max(config.max_heads, 12),
                   label_ratio=min(config.label_ratio, 1e-4), max_labels=max(config.max_labels, 8),
                   spine_ratio=min(config.spine_ratio, 1e-4), max_spines=max(config.max_spines, 12))


@dataclass
class SentenceScores:
    """The network's scores of one ``n``-word sentence in chart positions: ``arc`` (n, n+1)
    log P(head | word) (column n: ROOT); ``trace`` (n, n) trace logits (``[c, p]``, the
    diagonal ignored); ``spine`` (n, S) log P(spine | word)."""

    arc: np.ndarray
    trace: np.ndarray
    spine: np.ndarray

    @property
    def n(self) -> int:
        return int(self.arc.shape[0])


def _top(values: np.ndarray, ratio: float, most: int) -> np.ndarray:
    """Indices of the log-probabilities ``values`` within ``log(ratio)`` of the best, at
    most ``most``, best first (ties by index)."""
    order = np.argsort(-values, kind="stable")[:most]
    floor = values[order[0]] + (math.log(ratio) if ratio > 0 else -np.inf)
    return order[values[order] >= floor]


def head_pairs(scores: SentenceScores, config: PruneConfig) -> tuple[np.ndarray, np.ndarray]:
    """``(c, p)`` of the kept structural pairs, by child then head rank."""
    n = scores.n
    cs, ps = [], []
    for c in range(n):
        row = scores.arc[c].copy()
        row[c] = -np.inf
        keep = _top(row, config.head_ratio, config.max_heads)
        keep = keep[np.isfinite(row[keep])]
        cs += [c] * keep.shape[0]
        ps += keep.tolist()
    return np.array(cs, np.int64), np.array(ps, np.int64)


def trace_pairs(scores: SentenceScores, config: PruneConfig) -> tuple[np.ndarray, np.ndarray]:
    """``(c, p)`` of the ordered word pairs whose trace probability is at least ``trace_min``."""
    if config.trace_min <= 0.0:
        ok = np.ones_like(scores.trace, bool)
    elif config.trace_min >= 1.0:
        ok = np.zeros_like(scores.trace, bool)
    else:
        ok = scores.trace >= math.log(config.trace_min / (1.0 - config.trace_min))
    np.fill_diagonal(ok, False)
    c, p = np.nonzero(ok)
    return c.astype(np.int64), p.astype(np.int64)


@dataclass
class NeuralSentence(SpinePoints):
    """One sentence's candidates for the chart: pairs ``(pc[k], pp[k])`` with candidate
    labels ``cand_lab[cand_off[k]:cand_off[k+1]]`` (label vocabulary ids, kinds
    ``cand_kind``: 0 structural, 1 trace) scored ``cand_score``; each point's spine options
    ``sp_id[sp_off[w]:sp_off[w+1]]`` (inventory ids; ROOT's is ``inventory.root``) scored
    ``sp_score``; ``blk_off``: each pair's block in the flat tables."""

    n: int
    pc: np.ndarray
    pp: np.ndarray
    cand_off: np.ndarray
    cand_lab: np.ndarray
    cand_kind: np.ndarray
    cand_score: np.ndarray
    nsp: np.ndarray
    sp_id: np.ndarray
    sp_score: np.ndarray
    blk_off: np.ndarray


def candidate_sentence(scores: SentenceScores, s_pairs, s_logp: np.ndarray, t_pairs, t_logp: np.ndarray, maps,
                       inventory, config: PruneConfig) -> NeuralSentence:
    """The :class:`NeuralSentence` of a sentence (module docstring): ``s_pairs`` /
    ``t_pairs`` the kept structural / trace pairs (:func:`head_pairs`,
    :func:`trace_pairs`) and ``s_logp`` / ``t_logp`` their label log-probabilities (one
    row per pair, over ``maps.structural`` / ``maps.trace``); ``maps``:
    :class:`~plgraph.parser.scoring.neural.data.LabelMaps`; ``inventory``:
    :class:`~plgraph.parser.scoring.pass3.SpineInventory` over the network's spine classes."""
    n = scores.n
    per_pair: dict = {}
    tops: list[set] = [set() for _ in range(n)]
    bias = float(config.trace_bias or 0.0)
    for (cs, ps), logp, kind in ((s_pairs, s_logp, 0), (t_pairs, t_logp, 1)):
        for k in range(cs.shape[0]):
            c, p = int(cs[k]), int(ps[k])
            most = config.max_labels if kind == 0 else config.max_trace_types
            keep = _top(logp[k], config.label_ratio, most)
            ids = (maps.structural if kind == 0 else maps.trace)[keep]
            base = scores.arc[c, p] if kind == 0 else scores.trace[c, p] + bias
            entry = per_pair.setdefault((c, p), ([], [], []))
            entry[0].extend(ids.tolist())
            entry[1].extend([kind] * ids.shape[0])
            entry[2].extend((base + logp[k, keep]).tolist())
            if kind == 0:
                tops[c].update(inventory.label_child[int(x)] for x in ids)
    options, opt_scores = [], []
    for w in range(n):
        ids = _top(scores.spine[w], config.spine_ratio, config.max_spines)
        if config.spine_top_check:
            ids = np.array([s for s in ids if inventory.top[s] in tops[w]] or ids, np.int64)
        options.append(ids)
        opt_scores.append(scores.spine[w, ids])
    options.append(np.array([inventory.root], np.int64))
    opt_scores.append(np.zeros(1))
    nsp = np.array([o.shape[0] for o in options], np.int64)
    pairs = sorted(per_pair)
    pc = np.array([c for c, _ in pairs], np.int64)
    pp = np.array([p for _, p in pairs], np.int64)
    sizes = np.array([len(per_pair[q][0]) for q in pairs], np.int64)
    cand_off = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    cat = lambda i, dt: np.array([x for q in pairs for x in per_pair[q][i]], dt)  # noqa: E731
    blk = np.concatenate([[0], np.cumsum(nsp[pc] * nsp[pp])]).astype(np.int64) if pairs else np.zeros(1, np.int64)
    return NeuralSentence(n, pc, pp, cand_off, cat(0, np.int64), cat(1, np.int8), cat(2, np.float64), nsp,
                          np.concatenate(options).astype(np.int64), np.concatenate(opt_scores).astype(np.float64),
                          blk)


def chart_tables(sent: NeuralSentence, inventory) -> ChartTables:
    """The chart's :class:`~plgraph.parser.chart.tables.ChartTables` of a :class:`NeuralSentence`
    (:func:`~plgraph.parser.chart.tables.given_score_tables`)."""
    return given_score_tables(Candidates(sent.pc, sent.pp, sent.cand_off, sent.cand_lab, sent.cand_kind),
                              SpineTables(sent.blk_off, sent.sp_off, sent.sp_id, inventory.ok_c, inventory.ok_p),
                              sent.cand_score, sent.nsp, sent.sp_score)


__all__ = ["PruneConfig", "relaxed", "SentenceScores", "head_pairs", "trace_pairs", "NeuralSentence",
           "candidate_sentence", "chart_tables"]
