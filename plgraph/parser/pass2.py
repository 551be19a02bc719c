"""Pass 2: 1EC graphs with structural and trace edges, no spines (design notes
``1ec-parser.md`` §3, §6).

For one sentence, :func:`prepare` lists the pairs that may carry an edge and their
candidate labels:

* a structural edge c -> p if pass 1 kept the arc (:class:`plgraph.pruners.PrunedSentence`),
  with the structural labels seen with c's or p's POS (:class:`~plgraph.parser.labels.LabelVocab`,
  the reference's ``EITHER``);
* a trace edge c -> p with the trace labels seen with c's or p's POS whose trace type the
  trace classifier kept for the pair;
* in training, every gold edge and its gold label too (gold protection, §6.2).

:class:`Pass2Model` scores them (:mod:`plgraph.parser._pass2`), builds the chart's tables
(loss-augmented in training) and decodes with :func:`plgraph.parser.chart.parse_chart`.
Every decode checks its own arithmetic (§6.2): the chart's score must equal
``w . phi(y_hat) + L(y_hat)`` (L = 0 outside training); a difference is counted as a
mismatch.  A training decode whose gold graph outscores the prediction's augmented score
is a *search error* (gold fell off a beam; the reference's ``goldPruned``); the update is
made anyway, as the reference does.

Crossing items are limited by the kept traces through the chart's crossability tables
(built from the pairs allowed a trace edge).  Still open (issue "The trained graph
parser"): the coarse check against pass 1b's item max-marginals, and pass 3.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..graph import STRUCTURAL, Graph
from ..learn import SparseGradient
from ..learn.learners import plain_read_args
from ..pruners._kernels import MAX_PAIR_KEYS
from ..rules.tables import RuleTables
from ..structure import representable_mask
from . import _pass2 as K
from .chart import ChartResult, parse_chart
from .gold import gold_item_ids
from .labels import ROOT_TAG, LabelVocab, graph_labels
from .pool import PooledWeights
from .tables import ChartTables, Gold, LossWeights


@dataclass(frozen=True)
class Pass2Config:
    """Pass 2's options; defaults are the released "1EC arc parser" configuration (notes
    1ec-anchor.md §5.4: primal SVM with AdaGrad, batch 20, C 1e-9, eta 0.03, L1, one
    pass over the data; beam 100, cube depth 500 -- notes 1ec-parser.md §10), with
    hashed weights (2^bits).  ``backoff``: the label classes every edge feature is also
    conjoined with (:meth:`~plgraph.parser.labels.LabelVocab.backoff_classes`; plgraph's,
    ``"none"`` is the reference's model).  ``negative_pool``: the size of the pool the
    (feature, label) pairs never seen in a train gold graph share, as a fraction of the
    seen ones (:mod:`plgraph.parser.pool`; the reference's 1EC arc parser: 2^-8); 0: every
    pair hashed alike."""

    bits: int = 22
    backoff: str = "kind"
    beam: int = 100
    cube: int = 500
    batch: int = 20
    eta: float = 0.03
    C: float = 1e-9
    reg: str = "l1"
    epochs: int = 1
    negative_pool: float = 0.0


@dataclass
class Pass2Sentence:
    """One sentence prepared for pass 2 (chart positions: words 0..n-1, ROOT n).

    ``pc``/``pp``: the pairs that may carry an edge; ``cand_off``/``cand_lab``/``cand_kind``:
    their candidate labels (CSR over pairs); ``cand_prob``: per candidate label, the
    trace classifier's probability of its pair and trace type (1 for structural labels;
    0 for a gold trace added by gold protection that the classifier pruned);
    ``gold_s``/``gold_t``: per pair the gold
    label of each kind (-1 none; all -1 without gold); ``gold``: the gold graph
    (:class:`~plgraph.parser.tables.Gold`, label ids) or None; ``gold_items``: its
    derivation's items under the rules (None: not derivable, or no gold);
    ``base``: the sentence's first token in the :class:`~plgraph.encoding.TokenBatch`."""

    id: str
    n: int
    base: int
    pc: np.ndarray
    pp: np.ndarray
    cand_off: np.ndarray
    cand_lab: np.ndarray
    cand_kind: np.ndarray
    cand_prob: np.ndarray
    gold_s: np.ndarray
    gold_t: np.ndarray
    gold: Gold | None = None
    gold_items: tuple | None = None
    gold_unseen: int = 0

    @property
    def N(self) -> int:
        return self.n + 1


def gold_graph(graph: Graph, vocab: LabelVocab) -> tuple[Gold, int]:
    """The representable gold graph (the reference's ``dag1ecEdges``: at most one
    structural and one trace edge per ordered pair, self-loops left to the spines) in
    chart positions with label ids, and the number of its edges whose label ``vocab``
    has never seen (dropped: they cannot be scored)."""
    n = len(graph)
    N = n + 1
    s = np.full((N, N), -1, np.int64)
    t = np.full((N, N), -1, np.int64)
    keep = representable_mask(graph)
    unseen = 0
    for e, lab in enumerate(graph_labels(graph)):
        c, p = int(graph.child[e]), int(graph.parent[e])
        if not keep[e] or c == p or (p == 0 and lab.kind != STRUCTURAL):
            continue          # self-loops live in the spines; the chart builds no trace into ROOT
        cc, pp = c - 1, (n if p == 0 else p - 1)
        X = s if lab.kind == STRUCTURAL else t
        if X[cc, pp] >= 0:
            continue
        i = vocab.index.get(lab, -1)
        if i < 0:
            unseen += 1
            continue
        X[cc, pp] = i
    return Gold(s, t, np.zeros(n, np.int64)), unseen


def prepare(graph: Graph, pruned, vocab: LabelVocab, trace_types: dict, base: int = 0, *,
            gold: bool = False, protect_gold: bool | None = None, rules: RuleTables | None = None) -> Pass2Sentence:
    """Pairs and candidate labels of ``graph`` (module docstring).  ``pruned``: the
    sentence's :class:`~plgraph.pruners.PrunedSentence`; ``trace_types``: the trace
    classifier's ``{type: id}`` (``Pruners.trace.labels.index``); ``base``: the
    sentence's first token in the token batch the model scores from.  With ``gold`` the
    gold graph is attached, and with ``rules`` its derivation's items too;
    ``protect_gold`` (default: ``gold``; training) adds the gold edges and labels to the
    candidates -- evaluation attaches gold without protecting it."""
    n = len(graph)
    N = n + 1
    row, Cm, Pm = vocab.tag_masks()
    unseen_row = len(vocab.tags)
    tag_rows = np.array([row.get(t, unseen_row) for t in graph.tags] + [row.get(ROOT_TAG, unseen_row)])
    allow_s = np.zeros((N, N), bool)
    a = np.asarray(pruned.arcs, np.int64).reshape(-1, 3)
    if a.size:
        allow_s[a[:, 0] - 1, np.where(a[:, 1] == 0, n, a[:, 1] - 1)] = True
    kept_types: dict = {}          # (child, parent) -> {kept trace type: the classifier's probability}
    tr = np.asarray(pruned.traces, np.int64).reshape(-1, 3)
    for (c, p, ty), prob in zip(tr.tolist(), np.asarray(pruned.trace_prob, float).ravel().tolist()):
        kept_types.setdefault((c - 1, p - 1), {})[ty] = prob
    G, unseen = gold_graph(graph, vocab) if gold else (None, 0)
    protect = G is not None and (gold if protect_gold is None else protect_gold)
    if protect:
        allow_s |= G.s >= 0
    trace_kind = vocab.kind == 1
    type_id = np.array([trace_types.get(lab.trace, -1) if lab.kind == 1 else -1 for lab in vocab.labels], np.int64)
    pc, pp, offs, labs, kinds, gs, gt, probs = [], [], [0], [], [], [], [], []
    for c in range(n):
        for p in range(N):
            if c == p:
                continue
            either = Cm[tag_rows[c]] | Pm[tag_rows[p]]
            parts = []
            if allow_s[c, p]:
                s_lab = np.flatnonzero(either & ~trace_kind)
                parts.append(s_lab)
            g_s = int(G.s[c, p]) if G is not None else -1
            g_t = int(G.t[c, p]) if G is not None else -1
            if protect and g_s >= 0:
                parts.append(np.array([g_s]))
            if p < n:
                types = kept_types.get((c, p))
                if types:
                    ok = either & trace_kind & np.isin(type_id, list(types))
                    parts.append(np.flatnonzero(ok))
                if protect and g_t >= 0:
                    parts.append(np.array([g_t]))
            if not parts:
                continue
            cand = np.unique(np.concatenate(parts)).astype(np.int64)
            if cand.size == 0:
                continue
            pc.append(c)
            pp.append(p)
            labs.append(cand)
            kinds.append(vocab.kind[cand].astype(np.int8))
            offs.append(offs[-1] + cand.size)
            gs.append(g_s)
            gt.append(g_t)
            prob = np.ones(cand.size)
            is_trace = trace_kind[cand]
            if is_trace.any():
                types = kept_types.get((c, p), {})
                prob[is_trace] = [types.get(int(t), 0.0) for t in type_id[cand[is_trace]]]
            probs.append(prob)
    cat = (lambda xs, dt: np.concatenate(xs).astype(dt) if xs else np.zeros(0, dt))  # noqa: E731
    sent = Pass2Sentence(graph.id or "", n, int(base), np.array(pc, np.int64), np.array(pp, np.int64),
                         np.array(offs, np.int64), cat(labs, np.int64), cat(kinds, np.int8),
                         cat(probs, np.float64), np.array(gs, np.int64), np.array(gt, np.int64), G, None, unseen)
    if G is not None and rules is not None:
        sent.gold_items = gold_item_ids(G, rules)
    return sent


def hamming_loss(edges: dict, gold: Gold, weights: LossWeights = LossWeights()) -> float:
    """The loss of a predicted graph ``{(c, p, "S"|"T"): label}`` against ``gold`` (notes
    §6.1, the reference's ``calculateArcHammingLoss``): per predicted edge 0 if exact,
    ``wrong_label`` if gold has that (c, p, kind) with another label, else ``extra``; per
    gold edge ``missed`` if no predicted edge has its (c, p, kind)."""
    loss = 0.0
    for (c, p, kind), lab in edges.items():
        g = int((gold.s if kind == "S" else gold.t)[c, p])
        loss += 0.0 if g == lab else (weights.wrong_label if g >= 0 else weights.extra)
    for X, kind in ((gold.s, "S"), (gold.t, "T")):
        for c, p in zip(*np.nonzero(X >= 0)):
            if (int(c), int(p), kind) not in edges:
                loss += weights.missed
    return loss


@dataclass
class Decoded:
    """One pass-2 decode: the chart's result, the prediction's model score
    ``w . phi(y_hat)``, its loss (0 without gold), the gold graph's model score (None
    without gold), and whether the arithmetic checks held."""

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


class Pass2Model(PooledWeights):
    """Hashed edge weights over (arc features x label); see the module docstring.
    ``positive`` / ``pool_bits``: the negative pool (:class:`~plgraph.parser.pool.PooledWeights`)."""

    def __init__(self, vocab: LabelVocab, config: Pass2Config = Pass2Config(), positive: np.ndarray | None = None,
                 pool_bits: int | None = None):
        self.vocab = vocab
        self.config = config
        self.back = vocab.backoff_classes(config.backoff)
        self.set_positive(positive, pool_bits)

    def gold_features(self, sent: Pass2Sentence, tokens):
        """Feature (index, value) entries of ``sent``'s gold edges."""
        return self.features(sent, tokens, gold_edges(sent.gold), 1.0)

    def tables(self, sent: Pass2Sentence, tokens, read_args, augment: bool = False,
               weights: LossWeights = LossWeights()):
        """(ChartTables, plain scores of the chosen structural / trace labels) of one
        sentence; loss-augmented with ``augment`` (needs the sentence's gold)."""
        if augment and sent.gold is None:
            raise ValueError(f"sentence {sent.id}: loss-augmented tables need the gold graph (prepare(gold=True))")
        k = sent.pc.shape[0]
        s_best, t_best = np.empty(k), np.empty(k)
        s_lab, t_lab = np.empty(k, np.int64), np.empty(k, np.int64)
        s_plain, t_plain = np.empty(k), np.empty(k)
        K.label_tables(tokens.wh, tokens.th, sent.base, sent.n, sent.pc, sent.pp, sent.cand_off, sent.cand_lab,
                       sent.cand_kind, sent.gold_s, sent.gold_t, bool(augment), float(weights.extra),
                       float(weights.wrong_label), self.back, self.hk, *read_args, s_best, s_lab, t_best, t_lab,
                       s_plain, t_plain)
        N = sent.N
        pair_off = np.full((N, N), -1, np.int64)
        pair_off[sent.pc, sent.pp] = np.arange(k)
        tables = ChartTables(np.ones(N, np.int64), np.zeros(N), pair_off, s_best, s_lab, t_best, t_lab,
                             sent.gold if augment else None, weights.missed if augment else 0.0,
                             sent.gold_items if augment else None)
        return tables, s_plain, t_plain

    def edge_scores(self, sent: Pass2Sentence, tokens, read_args, edges) -> float:
        """``w . phi`` of the labelled edges ``[(c, p, label)]``, straight from the features."""
        idx, val = self.features(sent, tokens, edges, 1.0)
        return float(K.weight_dot(idx, val, *read_args))

    def features(self, sent: Pass2Sentence, tokens, edges, sign: float):
        """Feature (index, value) entries of labelled edges ``[(c, p, label)]``."""
        if not edges:
            return np.zeros(0, np.int64), np.zeros(0)
        e = np.asarray(edges, np.int64).reshape(-1, 3)
        room = e.shape[0] * MAX_PAIR_KEYS * (1 + self.back.shape[1])
        idx, val = np.empty(room, np.int64), np.empty(room)
        m = K.edge_features(tokens.wh, tokens.th, sent.base, sent.n, e[:, 0], e[:, 1], e[:, 2],
                            np.full(e.shape[0], sign), self.back, self.hk, idx, val)
        return idx[:m], val[:m]

    def decode(self, sent: Pass2Sentence, tokens, read_args=None, rules: RuleTables | None = None, *,
               augment: bool = False, weights: LossWeights = LossWeights(), beam: int | None = None,
               cube: int | None = None) -> Decoded:
        """Parse one sentence (loss-augmented with ``augment``) and check the chart's
        arithmetic against the features of its own output."""
        read_args = read_args if read_args is not None else plain_read_args(np.zeros(self.n_weights))
        tables, s_plain, t_plain = self.tables(sent, tokens, read_args, augment, weights)
        res = parse_chart(tables, rules, beam=self.config.beam if beam is None else beam,
                          cube=self.config.cube if cube is None else cube, mark_gold=augment and
                          sent.gold_items is not None)
        pred = [(c, p, lab) for (c, p, _kind), lab in res.edges.items()]
        model = self.edge_scores(sent, tokens, read_args, pred)
        loss = hamming_loss(res.edges, sent.gold, weights) if augment else 0.0
        gold_score = None
        if sent.gold is not None:
            gold_score = self.edge_scores(sent, tokens, read_args, gold_edges(sent.gold))
        mismatch = res.parsed and abs(res.score - (model + loss)) > 1e-6 * max(1.0, abs(res.score))
        return Decoded(res, model, loss, gold_score, bool(mismatch))


def gold_edges(gold: Gold) -> list:
    """``[(c, p, label)]`` of a gold graph, structural then trace."""
    out = [(int(c), int(p), int(gold.s[c, p])) for c, p in zip(*np.nonzero(gold.s >= 0))]
    out += [(int(c), int(p), int(gold.t[c, p])) for c, p in zip(*np.nonzero(gold.t >= 0))]
    return out


def _decode_for_gradient(model, sent, tokens, read_args, rules, weights):
    d = model.decode(sent, tokens, read_args, rules, augment=True, weights=weights)
    parts = []
    if d.result.parsed and d.loss != 0.0:
        pred = [(c, p, lab) for (c, p, _kind), lab in d.result.edges.items()]
        parts = [model.features(sent, tokens, edges, sign) for edges, sign in ((pred, 1.0),
                                                                                (gold_edges(sent.gold), -1.0))]
    return d, parts


def batch_gradient(model: Pass2Model, sents, tokens, learner, rules, weights: LossWeights = LossWeights(),
                   stats: dict | None = None, threads: int = 1) -> SparseGradient:
    """Summed ``phi(y_hat) - phi(y)`` of loss-augmented decodes of ``sents`` (those with
    loss 0 add nothing); counts search errors, mismatches, failed parses and sentences
    whose gold is not derivable under ``rules`` into ``stats``.

    With ``threads`` > 1 the sentences decode in parallel threads (the kernels release
    the GIL and read the weights without writing them); the gradient is assembled in
    sentence order, so it does not depend on the number of threads."""
    read_args = learner.read_args()
    job = lambda sent: _decode_for_gradient(model, sent, tokens, read_args, rules, weights)  # noqa: E731
    return collect_gradient(sents, job, stats, threads)


def collect_gradient(sents, job, stats: dict | None, threads: int) -> SparseGradient:
    """Run ``job(sent) -> (decoded, [(idx, val), ...])`` over ``sents`` (in ``threads``
    threads when > 1) and sum the feature parts in sentence order; counts sentences,
    search errors, mismatches, failed parses and gold graphs not derivable into
    ``stats``.  Shared by passes 2 and 3."""
    if threads > 1 and len(sents) > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=min(threads, len(sents))) as pool:
            done = list(pool.map(job, sents))
    else:
        done = [job(sent) for sent in sents]
    idx_parts, val_parts = [], []
    loss = 0.0
    for sent, (d, parts) in zip(sents, done):
        if stats is not None:
            stats["sentences"] = stats.get("sentences", 0) + 1
            stats["search_errors"] = stats.get("search_errors", 0) + int(d.search_error)
            stats["mismatches"] = stats.get("mismatches", 0) + int(d.mismatch)
            stats["failed"] = stats.get("failed", 0) + int(not d.result.parsed)
            stats["not_derivable"] = stats.get("not_derivable", 0) + int(sent.gold_items is None)
        if parts:
            loss += d.loss
            for i, v in parts:
                idx_parts.append(i)
                val_parts.append(v)
    if not idx_parts:
        return SparseGradient(np.zeros(0, np.int64), np.zeros(0), loss)
    return SparseGradient(np.concatenate(idx_parts), np.concatenate(val_parts), loss)


__all__ = ["Pass2Config", "Pass2Sentence", "Pass2Model", "Decoded", "prepare", "gold_graph", "hamming_loss",
           "gold_edges", "batch_gradient", "collect_gradient"]
