"""Pass 2: 1EC graphs with structural and trace edges, no spines.

For one sentence, :func:`pass2_sentence` lists the pairs that may carry an edge and their
candidate labels:

* a structural edge c -> p if pass 1 kept the arc (:class:`plgraph.pruners.PrunedSentence`),
  with the structural labels seen with c's or p's POS (:class:`~plgraph.parser.scoring.labels.LabelVocab`,
  the reference's ``EITHER``);
* a trace edge c -> p with the trace labels seen with c's or p's POS whose trace type the
  trace classifier kept for the pair;
* in training, every gold edge and its gold label too (gold protection).

:class:`Pass2Model` scores them (:mod:`plgraph.parser.scoring._pass2`), builds the chart's tables
(loss-augmented in training) and decodes with :func:`plgraph.parser.chart.run.parse_chart`
(through :func:`plgraph.parser.scoring.pass_scorer.decode_chart`: the model is a
:class:`~plgraph.parser.scoring.pass_scorer.Pass2Scorer`).  Pass 2's output for pass 3 is
:class:`Pass2Pruning` (:func:`pass2_pruning`: a plain decode with outside scores).
Every decode checks its own arithmetic: the chart's score must equal
``w . phi(y_hat) + L(y_hat)`` (L = 0 outside training); a difference is counted as a
mismatch.  A training decode whose gold graph outscores the prediction's augmented score
is a *search error* (gold fell off a beam; the reference's ``goldPruned``); the update is
made anyway, as the reference does.

Crossing items are limited by the kept traces through the chart's crossability tables
(built from the pairs allowed a trace edge).  Not built: the coarse check against pass
1b's item max-marginals.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...files.shards import record_type
from ...graph import STRUCTURAL, Graph
from ...learn import SparseGradient
from ...learn.learners import plain_read_args
from ...pruners._kernels import MAX_PAIR_KEYS
from ...rules.tables import RuleTables
from ...structure import representable_mask
from . import _pass2 as K
from ..chart.run import parse_chart
from ..chart.gold import gold_item_ids
from .labels import ROOT_TAG, LabelVocab, graph_labels
from .pool import PooledWeights
from .pass_scorer import Decoded, collect_gradient, decode_chart, predicted_edges, score_mismatch, structure_gradient
from ..chart.tables import ChartTables, Gold, LossWeights

NEG = K.NEG


@dataclass(frozen=True)
class Pass2Config:
    """Pass 2's options; defaults are the released "1EC arc parser" configuration of the
    reference parser (jkkummerfeld/1ec-graph-parser: primal SVM with AdaGrad, batch 20, C 1e-9,
    eta 0.03, L1, one pass over the data; beam 100, cube depth 500), with
    hashed weights (2^bits).  ``backoff``: the label classes every edge feature is also
    conjoined with (:meth:`~plgraph.parser.scoring.labels.LabelVocab.backoff_classes`; plgraph's,
    ``"none"`` is the reference's model).  ``negative_pool``: the size of the pool the
    (feature, label) pairs never seen in a train gold graph share, as a fraction of the
    seen ones (:mod:`plgraph.parser.scoring.pool`; the reference's 1EC arc parser: 2^-8); 0: every
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


@record_type
@dataclass
class Pass2Sentence:
    """One sentence prepared for pass 2 (chart positions: words 0..n-1, ROOT n).

    ``pc``/``pp``: the pairs that may carry an edge; ``cand_off``/``cand_lab``/``cand_kind``:
    their candidate labels (CSR over pairs); ``cand_prob``: per candidate label, the
    trace classifier's probability of its pair and trace type (1 for structural labels;
    0 for a gold trace added by gold protection that the classifier pruned);
    ``gold_s``/``gold_t``: per pair the gold
    label of each kind (-1 none; all -1 without gold); ``gold``: the gold graph
    (:class:`~plgraph.parser.chart.tables.Gold`, label ids) or None; ``gold_items``: its
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


def pass2_sentence(graph: Graph, pruned, vocab: LabelVocab, trace_types: dict, base: int = 0, *,
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
    """The loss of a predicted graph ``{(c, p, "S"|"T"): label}`` against ``gold`` (the
    reference's ``calculateArcHammingLoss``): per predicted edge 0 if exact,
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


def sentence_keys(sent, tokens) -> K.SentenceKeys:
    """The kernels' :class:`~plgraph.parser.scoring._pass2.SentenceKeys` of a prepared
    sentence (pass 2's or pass 3's) in ``tokens``."""
    return K.SentenceKeys(tokens.wh, tokens.th, sent.base, sent.n)


def candidates(sent) -> K.Candidates:
    """The kernels' :class:`~plgraph.parser.scoring._pass2.Candidates` of a prepared sentence."""
    return K.Candidates(sent.pc, sent.pp, sent.cand_off, sent.cand_lab, sent.cand_kind)


def loss_args(sent, augment: bool, weights: LossWeights) -> K.LossArgs:
    """The kernels' :class:`~plgraph.parser.scoring._pass2.LossArgs` of a prepared sentence
    (ValueError when ``augment`` and the sentence has no gold graph)."""
    if augment and sent.gold is None:
        raise ValueError(f"sentence {sent.id}: loss-augmented tables need the gold graph (pass2_sentence(gold=True))")
    return K.LossArgs(sent.gold_s, sent.gold_t, bool(augment), float(weights.extra), float(weights.wrong_label))


def chart_tables(sent, nsp, sp_score, pair_off, out: K.BestLabels, augment: bool,
                 weights: LossWeights) -> ChartTables:
    """The :class:`~plgraph.parser.chart.tables.ChartTables` of a prepared sentence from its
    spine options ``nsp`` / ``sp_score``, its pairs' blocks ``pair_off`` and the kernel's
    best labels ``out``; with ``augment`` the gold graph, the missed-edge weight and the
    gold items go along."""
    return ChartTables(nsp, sp_score, pair_off, out.s_best, out.s_lab, out.t_best, out.t_lab,
                       sent.gold if augment else None, weights.missed if augment else 0.0,
                       sent.gold_items if augment else None)


class Pass2Model(PooledWeights):
    """Hashed edge weights over (arc features x label); see the module docstring.
    ``positive`` / ``pool_bits``: the negative pool (:class:`~plgraph.parser.scoring.pool.PooledWeights`).
    A :class:`~plgraph.parser.scoring.pass_scorer.Pass2Scorer`."""

    def __init__(self, vocab: LabelVocab, config: Pass2Config = Pass2Config(), positive: np.ndarray | None = None,
                 pool_bits: int | None = None):
        self.vocab = vocab
        self.config = config
        self.back = vocab.backoff_classes(config.backoff)
        self.set_positive(positive, pool_bits)

    def scored_tables(self, sent: Pass2Sentence, tokens, read_args, augment: bool = False,
                      weights: LossWeights = LossWeights()):
        """(ChartTables, plain scores of the chosen structural / trace labels) of one
        sentence; loss-augmented with ``augment`` (needs the sentence's gold)."""
        loss = loss_args(sent, augment, weights)
        k = sent.pc.shape[0]
        out = K.best_labels(k)
        K.label_tables(sentence_keys(sent, tokens), candidates(sent), loss, self.hashing, K.weight_view(read_args),
                       out)
        N = sent.N
        pair_off = np.full((N, N), -1, np.int64)
        pair_off[sent.pc, sent.pp] = np.arange(k)
        return chart_tables(sent, np.ones(N, np.int64), np.zeros(N), pair_off, out, augment, weights), \
            out.s_plain, out.t_plain

    def tables(self, sent: Pass2Sentence, tokens, read_args, augment: bool = False,
               weights: LossWeights = LossWeights()) -> ChartTables:
        """The chart's tables of one sentence (loss-augmented with ``augment``)."""
        return self.scored_tables(sent, tokens, read_args, augment, weights)[0]

    def candidate_scores(self, sent: Pass2Sentence, tokens, read_args) -> np.ndarray:
        """The plain score of every candidate label of ``sent`` (aligned with ``cand_lab``)."""
        scores = np.empty(sent.cand_lab.shape[0])
        K.candidate_scores(sentence_keys(sent, tokens), candidates(sent), self.hashing, K.weight_view(read_args),
                           scores)
        return scores

    def edge_scores(self, sent: Pass2Sentence, tokens, read_args, edges) -> float:
        """``w . phi`` of the labelled edges ``[(c, p, label)]``, straight from the features."""
        idx, val = self.features(sent, tokens, edges, 1.0)
        return float(K.weight_dot(idx, val, K.weight_view(read_args)))

    def features(self, sent: Pass2Sentence, tokens, edges, sign: float):
        """Feature (index, value) entries of labelled edges ``[(c, p, label)]``."""
        if not edges:
            return np.zeros(0, np.int64), np.zeros(0)
        e = np.asarray(edges, np.int64).reshape(-1, 3)
        room = e.shape[0] * MAX_PAIR_KEYS * (1 + self.back.shape[1])
        idx, val = np.empty(room, np.int64), np.empty(room)
        m = K.edge_features(sentence_keys(sent, tokens), e[:, 0], e[:, 1], e[:, 2], np.full(e.shape[0], sign),
                            self.hashing, idx, val)
        return idx[:m], val[:m]

    def structure_features(self, sent: Pass2Sentence, tokens, decoded: Decoded | None, sign: float):
        """Feature (index, value) entries, times ``sign``, of ``decoded``'s graph or (None)
        of ``sent``'s gold graph."""
        edges = gold_edges(sent.gold) if decoded is None else predicted_edges(decoded.result)
        return self.features(sent, tokens, edges, sign)

    def decode(self, sent: Pass2Sentence, tokens, read_args=None, rules: RuleTables | None = None, *,
               augment: bool = False, weights: LossWeights = LossWeights(), beam: int | None = None,
               cube: int | None = None) -> Decoded:
        """Parse one sentence (loss-augmented with ``augment``) and check the chart's
        arithmetic against the features of its own output."""
        read_args = read_args if read_args is not None else plain_read_args(np.zeros(self.n_weights))
        res = decode_chart(self, sent, tokens, read_args, rules, augment=augment, weights=weights, beam=beam,
                           cube=cube)
        model = self.edge_scores(sent, tokens, read_args, predicted_edges(res))
        loss = hamming_loss(res.edges, sent.gold, weights) if augment else 0.0
        gold_score = None
        if sent.gold is not None:
            gold_score = self.edge_scores(sent, tokens, read_args, gold_edges(sent.gold))
        return Decoded(res, model, loss, gold_score, score_mismatch(res, model, loss))


def gold_edges(gold: Gold) -> list:
    """``[(c, p, label)]`` of a gold graph, structural then trace."""
    out = [(int(c), int(p), int(gold.s[c, p])) for c, p in zip(*np.nonzero(gold.s >= 0))]
    out += [(int(c), int(p), int(gold.t[c, p])) for c, p in zip(*np.nonzero(gold.t >= 0))]
    return out


def batch_gradient(model: Pass2Model, sents, tokens, learner, rules, weights: LossWeights = LossWeights(),
                   stats: dict | None = None, threads: int = 1) -> SparseGradient:
    """Summed ``phi(y_hat) - phi(y)`` of loss-augmented decodes of ``sents`` (those with
    loss 0 add nothing); counts search errors, mismatches, failed parses and sentences
    whose gold is not derivable under ``rules`` into ``stats``
    (:func:`~plgraph.parser.scoring.pass_scorer.structure_gradient`, shared with pass 3; a
    function of its own per pass, which training warms up once per process).

    With ``threads`` > 1 the sentences decode in parallel threads (the kernels release
    the GIL and read the weights without writing them); the gradient is assembled in
    sentence order, so it does not depend on the number of threads."""
    return structure_gradient(model, sents, tokens, learner, rules, weights, stats, threads)


# -- pass 2's output as pass 3 reads it ------------------------------------------------------
@record_type
@dataclass
class Pass2Pruning:
    """What pass 3 keeps of a pass-2 decode (non-augmented, final weights): the arc
    max-marginals ``mm_s`` / ``mm_t`` (N, N; best label of the kind), the best
    derivation's score ``best``, and ``lab_mm``: the max-marginal of every candidate
    label of the pass-2 sentence (aligned with its ``cand_lab``) -- the pair's
    max-marginal with its best label swapped for this one (the reference's
    ``mm2 - A2[c, p, l2] + A2[c, p, l]``); ``edges``: pass 2's best graph
    (``{(c, p, "S"|"T"): label}``, the fallback of a sentence pass 3 cannot parse);
    ``gave_up``: the chart stopped at its item budget (no derivation, ``best`` -inf).

    A ratio r keeps a labelled edge iff its max-marginal is at least
    ``lo + r * (best - lo)``, ``lo`` the sentence's smallest finite labelled max-marginal
    of that kind (the pruners' rule, over labelled edges: with
    the arcs' ``lo`` a sentence with one possible structure would keep only its best
    labels); r <= 1 keeps the best derivation's edges, r = 0 every buildable one."""

    mm_s: np.ndarray
    mm_t: np.ndarray
    best: float
    lab_mm: np.ndarray
    lab_kind: np.ndarray
    edges: dict | None = None
    gave_up: bool = False

    def _lo(self, kind: int) -> float:
        mm = self.lab_mm[self.lab_kind == kind]
        finite = mm[np.isfinite(mm)]
        return float(finite.min()) if finite.size else self.best

    def place(self, values, kind: int) -> np.ndarray:
        """Where max-marginals ``values`` of ``kind`` sit between ``lo`` (0) and ``best``
        (1): the largest ratio that keeps each (-inf for -inf)."""
        v = np.asarray(values, np.float64)
        out = np.full(v.shape, NEG)
        if not np.isfinite(self.best):
            return out
        lo = self._lo(kind)
        fin = np.isfinite(v)
        tol = 1e-9 * max(1.0, abs(self.best))        # rounding of the outside sums
        out[fin] = (v[fin] - lo + tol) / max(self.best - lo, tol)
        return out

    def kept(self, sent2: Pass2Sentence, ratio_s: float, ratio_t: float) -> np.ndarray:
        """Boolean per candidate entry of ``sent2``: the labelled edge survives."""
        out = np.zeros(sent2.cand_lab.shape[0], bool)
        for kind, r in ((0, ratio_s), (1, ratio_t)):
            sel = sent2.cand_kind == kind
            out[sel] = self.place(self.lab_mm[sel], kind) >= r
        return out


def pass2_pruning(model2, sent2: Pass2Sentence, tokens, read_args, rules) -> Pass2Pruning:
    """Decode ``sent2`` with pass 2 (``model2``: a
    :class:`~plgraph.parser.scoring.pass_scorer.Pass2Scorer`; no loss, outside scores) for
    :func:`plgraph.parser.scoring.pass3.pass3_sentence`."""
    tables, s_plain, t_plain = model2.scored_tables(sent2, tokens, read_args)
    res = parse_chart(tables, rules, beam=model2.config.beam, cube=model2.config.cube, outside=True,
                      keep_items=False)
    N = sent2.N
    mm_s = res.arc_mm_s.copy() if res.arc_mm_s is not None else np.full((N, N), NEG)
    mm_t = res.arc_mm_t.copy() if res.arc_mm_t is not None else np.full((N, N), NEG)
    scores = model2.candidate_scores(sent2, tokens, read_args)
    pair = np.repeat(np.arange(sent2.pc.shape[0]), np.diff(sent2.cand_off))
    c, p = sent2.pc[pair], sent2.pp[pair]
    kind = sent2.cand_kind
    mm = np.where(kind == 0, mm_s[c, p], mm_t[c, p])
    best_plain = np.where(kind == 0, s_plain[pair], t_plain[pair])
    lab_mm = np.full(kind.shape[0], NEG)
    fin = np.isfinite(mm)
    lab_mm[fin] = mm[fin] - best_plain[fin] + scores[fin]
    return Pass2Pruning(mm_s, mm_t, float(res.score), lab_mm, kind.copy(), dict(res.edges), res.gave_up)


__all__ = ["Pass2Config", "Pass2Sentence", "Pass2Model", "Decoded", "pass2_sentence", "gold_graph", "hamming_loss",
           "gold_edges", "batch_gradient", "collect_gradient", "Pass2Pruning", "pass2_pruning"]
