"""The seam between one pass of the linear cascade and the chart, the cascade and the
training loop.

Passes 2 and 3 are linear models over hashed features
(:class:`~plgraph.parser.scoring.pass2.Pass2Model`, :class:`~plgraph.parser.scoring.pass3.Pass3Model`).
What the rest of the linear cascade asks of them is written down here as
:class:`PassScorer` (and :class:`Pass2Scorer` for what pass 3's pruning reads off pass 2):
they fill per-sentence score tables (:class:`~plgraph.parser.chart.tables.ChartTables`),
and the chart never sees a weight or a feature.  This is the linear scorer's internal
business (:class:`~plgraph.parser.scoring.linear.LinearScorer`): the neural scorer is not a
pass (:mod:`plgraph.parser.scoring.neural`; it scores whole sentences with its own network
and gives the chart its tables through
:func:`~plgraph.parser.chart.tables.given_score_tables`), and what every scorer offers the
parser is :class:`~plgraph.parser.scoring.protocol.Scorer`.

Who calls what:

* **the chart's decode** (:func:`decode_chart`, which both passes' ``decode`` run):
  ``scorer.tables(sent, tokens, read_args, augment, weights)`` then
  :func:`~plgraph.parser.chart.run.parse_chart` with ``scorer.config.beam`` / ``.cube``;
  the scorer's ``decode`` wraps that into a :class:`Decoded` (model score of the
  prediction, its loss, the gold structure's score, the arithmetic check);
* **training** (:func:`structure_gradient`, behind both passes' ``batch_gradient``; the
  loop of :func:`plgraph.parser.training.passes.train_pass`): ``read_args =
  learner.read_args()``, ``scorer.decode(..., augment=True)``, then
  ``scorer.structure_features(sent, tokens, decoded, +1.0)`` and
  ``scorer.structure_features(sent, tokens, None, -1.0)`` (gold), summed in sentence
  order into a :class:`~plgraph.learn.SparseGradient` the learner steps with; and
  ``scorer.n_weights`` (the learner's size), ``scorer.config`` (``batch``, ``eta``, ``C``,
  ``reg``, ``epochs``), ``scorer.take_positive(train_sents, tokens)`` once before training
  and ``scorer.stored_arrays()`` when the pass is saved;
* **the cascade and the parser**: ``decode`` (plain) for dev scores and parsing,
  ``with_config`` for decoding options (beam, trace bias); pass 3's pruning reads pass 2
  through :class:`Pass2Scorer` (:func:`plgraph.parser.scoring.pass2.pass2_pruning`).

What is specific to the linear models:

* ``read_args`` is a learner's ``read_args()`` tuple ``(w, q, u, n, eta, C, reg)``
  (:class:`~plgraph.learn._kernels.WeightView` in the kernels); to everything
  outside the scorer it is an opaque handle on "the current parameters";
* ``structure_features`` returns the hashed feature (index, value) entries phi(y), the
  gradient of the structure's score;
* ``take_positive`` / ``stored_arrays`` are the negative pool of hashed weights
  (:mod:`plgraph.parser.scoring.pool`): a pass without one returns ``None`` / ``{}``.
  Loading a trained pass (``ParserModel.pass_model``) restores the weight vector ``w``
  of ``n_weights`` entries and the pool's arrays only;
* the arithmetic check of ``decode`` (chart score = w . phi(y_hat) + loss) recomputes
  the prediction's score from its features.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ...learn import SparseGradient
from ...progress import thread_imap
from ..chart.run import ChartResult, parse_chart
from ..chart.tables import ChartTables, LossWeights


@dataclass
class Decoded:
    """One decode: the chart's result, the prediction's model score
    ``w . phi(y_hat)``, its loss (0 without gold), the gold structure's model score
    (None without gold), and whether the arithmetic checks held."""

    result: ChartResult
    model_score: float
    loss: float
    gold_score: float | None
    mismatch: bool

    @property
    def search_error(self) -> bool:
        """Gold outscores the prediction's augmented score: it fell off a beam."""
        return (self.gold_score is not None and self.result.parsed
                and self.gold_score > self.model_score + self.loss + 1e-6)


@runtime_checkable
class PassScorer(Protocol):
    """What a pass's scorer offers the chart, the cascade and the training loop (module
    docstring).  ``sent``: the pass's prepared sentence (chart positions, ``n``, ``N``,
    ``gold``, ``gold_items``); ``tokens``: the :class:`~plgraph.encoding.TokenBatch` it
    indexes into; ``read_args``: the current parameters (a learner's ``read_args()``)."""

    #: the pass's frozen config dataclass: ``beam``, ``cube`` (decoding), ``batch``,
    #: ``eta``, ``C``, ``reg``, ``epochs``, ``bits`` (training)
    config: Any
    #: the size of the parameter vector the learner trains
    n_weights: int

    def tables(self, sent, tokens, read_args, augment: bool = False,
               weights: LossWeights = LossWeights()) -> ChartTables:
        """The score tables of one sentence the chart reads; with ``augment`` (training)
        every label's score carries its Hamming share and the tables carry the gold
        graph (:mod:`plgraph.parser.chart.tables`)."""

    def decode(self, sent, tokens, read_args=None, rules=None, *, augment: bool = False,
               weights: LossWeights = LossWeights(), beam: int | None = None,
               cube: int | None = None) -> Decoded:
        """Parse one sentence through :func:`decode_chart` and check the chart's score."""

    def structure_features(self, sent, tokens, decoded: Decoded | None, sign: float):
        """``(idx, val)`` entries of the gradient of a structure's score, times ``sign``:
        ``decoded``'s prediction, or (None) the sentence's gold structure."""

    def stored_arrays(self) -> dict:
        """What the model file keeps beside the weights."""

    def take_positive(self, sents, tokens) -> int | None:
        """Called once before training with the training sentences (the linear models'
        negative pool); None: nothing taken."""

    def with_config(self, config) -> "PassScorer":
        """The same parameters decoding with another config (beam, cube, trace bias)."""


@runtime_checkable
class Pass2Scorer(PassScorer, Protocol):
    """A pass-2 scorer as pass 3's pruning reads it
    (:func:`plgraph.parser.scoring.pass2.pass2_pruning`): the tables with the plain
    (not augmented) scores of the chosen labels, and every candidate label's score."""

    def scored_tables(self, sent, tokens, read_args, augment: bool = False,
                      weights: LossWeights = LossWeights()) -> tuple:
        """``(ChartTables, s_plain, t_plain)``: :meth:`tables` and, per pair, the plain
        score of its chosen structural / trace label."""

    def candidate_scores(self, sent, tokens, read_args) -> np.ndarray:
        """The plain score of every candidate label of ``sent`` (aligned with ``cand_lab``)."""


def decode_chart(scorer: PassScorer, sent, tokens, read_args, rules, *, augment: bool = False,
                 weights: LossWeights = LossWeights(), beam: int | None = None,
                 cube: int | None = None) -> ChartResult:
    """The chart over ``scorer``'s tables of ``sent`` (loss-augmented with ``augment``,
    the gold derivation's items marked when known), with the scorer's beam and cube
    depth unless ``beam`` / ``cube`` are given; the result keeps no item columns."""
    tables = scorer.tables(sent, tokens, read_args, augment, weights)
    return parse_chart(tables, rules, beam=scorer.config.beam if beam is None else beam,
                       cube=scorer.config.cube if cube is None else cube,
                       mark_gold=augment and sent.gold_items is not None, keep_items=False)


def predicted_edges(result: ChartResult) -> list:
    """``[(c, p, label)]`` of a chart result's graph, in its order."""
    return [(c, p, lab) for (c, p, _kind), lab in result.edges.items()]


def score_mismatch(result: ChartResult, model_score: float, loss: float) -> bool:
    """The chart's score of a parse is not ``model_score + loss`` (relative 1e-6)."""
    return bool(result.parsed and abs(result.score - (model_score + loss)) > 1e-6 * max(1.0, abs(result.score)))


def decode_for_gradient(scorer: PassScorer, sent, tokens, read_args, rules, weights: LossWeights):
    """A loss-augmented decode of ``sent`` and its gradient parts: ``phi(y_hat)`` then
    ``-phi(y)`` (none when nothing parsed or the loss is 0)."""
    d = scorer.decode(sent, tokens, read_args, rules, augment=True, weights=weights)
    parts = []
    if d.result.parsed and d.loss != 0.0:
        parts = [scorer.structure_features(sent, tokens, d, 1.0), scorer.structure_features(sent, tokens, None, -1.0)]
    return d, parts


def structure_gradient(scorer: PassScorer, sents, tokens, learner, rules, weights: LossWeights = LossWeights(),
                       stats: dict | None = None, threads: int = 1) -> SparseGradient:
    """Summed ``phi(y_hat) - phi(y)`` of loss-augmented decodes of ``sents`` with the
    learner's current weights (those with loss 0 add nothing); counters into ``stats``
    (:func:`collect_gradient`).  Each pass's ``batch_gradient`` is this."""
    read_args = learner.read_args()
    job = lambda sent: decode_for_gradient(scorer, sent, tokens, read_args, rules, weights)  # noqa: E731
    return collect_gradient(sents, job, stats, threads)


def collect_gradient(sents, job, stats: dict | None, threads: int) -> SparseGradient:
    """Run ``job(sent) -> (decoded, [(idx, val), ...])`` over ``sents`` (a sequence; in
    ``threads`` threads when > 1, each indexing its sentence there, so that a sequence
    that loads when indexed loads in parallel) and sum the feature parts in sentence
    order; counts sentences, search errors, mismatches, failed parses and gold graphs not
    derivable into ``stats``.  Shared by passes 2 and 3.  Each thread keeps of a decode
    only its counters and feature parts (:func:`~plgraph.progress.thread_imap`): a chart
    lives as long as its decode."""
    def one(k):
        sent = sents[k]
        d, parts = job(sent)
        return (bool(d.search_error), bool(d.mismatch), bool(d.result.parsed), sent.gold_items is None,
                d.loss), parts

    idx_parts, val_parts = [], []
    loss = 0.0
    for (search_error, mismatch, parsed, not_derivable, d_loss), parts in thread_imap(one, range(len(sents)),
                                                                                        threads):
        if stats is not None:
            stats["sentences"] = stats.get("sentences", 0) + 1
            stats["search_errors"] = stats.get("search_errors", 0) + int(search_error)
            stats["mismatches"] = stats.get("mismatches", 0) + int(mismatch)
            stats["failed"] = stats.get("failed", 0) + int(not parsed)
            stats["not_derivable"] = stats.get("not_derivable", 0) + int(not_derivable)
        if parts:
            loss += d_loss
            for i, v in parts:
                idx_parts.append(i)
                val_parts.append(v)
    if not idx_parts:
        return SparseGradient(np.zeros(0, np.int64), np.zeros(0), loss)
    return SparseGradient(np.concatenate(idx_parts), np.concatenate(val_parts), loss)


__all__ = ["PassScorer", "Pass2Scorer", "Decoded", "decode_chart", "predicted_edges", "score_mismatch",
           "decode_for_gradient", "structure_gradient", "collect_gradient"]
