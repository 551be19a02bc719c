"""Pass 3: the full structure -- spines, structural and trace edges -- pruned by pass 2.

For one sentence, :func:`pass3_sentence` takes pass 2's output
(:class:`~plgraph.parser.scoring.pass2.Pass2Pruning`: a pass-2 decode with outside
scores) and keeps

* the labelled edges whose pass-2 max-marginal clears ``ratio_s`` / ``ratio_t``: a
  pair's max-marginal with its best label swapped for the candidate (the reference's
  arc-item label check, ``mm2 - A2[l2] + A2[l3]``), against
  ``lo + ratio * (best - lo)`` (the pruners' rule);
* per word, the spine identities the spine classifier kept (:class:`~plgraph.pruners.PrunedSentence`)
  and -- with ``spine_top_check`` (default on: the thesis; the released code has it
  commented out) -- only those whose top node is the child node of a surviving
  structural label of one of the word's pairs (a word left with none keeps the
  classifier's);
* in training, every gold pair, label and spine (gold protection).

Labels are matched to spines in the kernel (:mod:`plgraph.parser.scoring._pass3`) through
:class:`SpineInventory`: a structural label needs the child's spine top as its child
node and the parent node with the label's sibling below it in the parent's spine; a
trace label needs its child and parent nodes (with their null flags) in the two spines
(on the sample's train split every gold edge passes these checks).

The chart (:func:`plgraph.parser.chart.run.parse_chart`) gets one spine option per kept
spine; its spine score is counted once per word inside the items, the spine loss
of training is folded into it.  Every decode checks its arithmetic as pass 2 does: chart
score = ``w . phi(y_hat) + L(y_hat)``, L = edge Hamming loss + ``spine`` x wrong spines.

Departure, documented here and in ``docs/design/passes.md``: pass 3 is pruned by pass 2's
labelled *arc* max-marginals only, not also by the combination items' coarse identities of the
reference's ``checkCoarseState``.  The ratios are tuned on dev as the thesis says
(:func:`plgraph.parser.training.cascade.tune_ratios`: 99% of the gold structural edges pass 2
can build).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...files.shards import record_type
from ...graph import STRUCTURAL, TRACE, Graph
from ...learn import SparseGradient
from ...learn.learners import plain_read_args
from ...pruners._kernels import MAX_PAIR_KEYS, MAX_WORD_KEYS
from ...rules.tables import RuleTables
from ...spine import parse_spine
from . import _pass3 as K
from ._pass2 import best_labels, weight_dot, weight_view
from ..chart.gold import gold_item_ids
from .labels import LabelVocab, sibling_table
from .pool import PooledWeights
from .pass2 import (Pass2Pruning, Pass2Sentence, candidates, chart_tables, gold_edges, gold_graph, hamming_loss,
                    loss_args, sentence_keys)
from .pass_scorer import Decoded, decode_chart, predicted_edges, score_mismatch, structure_gradient
from ..chart.tables import ChartTables, Gold, LossWeights, SpinePoints


@dataclass(frozen=True)
class Pass3Config:
    """Pass 3's options; defaults are the released "full parser" configuration of the
    reference parser (jkkummerfeld/1ec-graph-parser: batch 10, C 1e-9, eta 0.01, L1, 3 iterations;
    beam 100 and cube depth 10,000 for stage 3) and the thesis's spine-top check.

    ``ratio_s`` / ``ratio_t``: pass 2's pruning ratios; None = tuned on dev to keep
    ``coarse_recall`` of the gold labelled edges pass 2 can build
    (:func:`plgraph.parser.training.cascade.tune_ratios`; the released 0.734 is for a pass 2
    trained on 40,000 sentences).  ``max_spines``: at most this many spine options per
    word, the classifier's most probable first (0: all above its threshold).  The cap
    is plgraph's, not the thesis's: at the classifier's tuned threshold the sample's
    models keep 57 spines a word (98.8% gold recall) -- too many for the chart; 5 keep
    94.8% of gold spines, 3 (the default before 2026-12-05) 92.7% (dev,
    ``docs/results.md``).  ``trace_bias``: added to every trace edge's score in plain
    (not loss-augmented) decodes, a decision threshold between trace precision and
    recall; None (the default) = tuned on dev after training
    (:func:`plgraph.parser.training.cascade.tune_trace_bias`): the threshold with the highest
    unlabelled trace recall at a precision of at least ``trace_precision`` (%), or with
    the best trace F1 when ``trace_precision`` is 0 or out of reach.  Both are
    plgraph's, not the thesis's (which has no threshold; 0 decodes as the reference
    does); the default target 70 is the issue's floor for the thesis's precision-first
    operating point (P 88.3 / R 50.4 on WSJ 22).
    ``backoff``: as :class:`~plgraph.parser.scoring.pass2.Pass2Config`'s, for the arc keys.
    ``negative_pool``: the (feature, label) pairs never seen in a gold graph of the train
    split share a pool of weights this fraction the size of the seen ("positive") ones,
    rounded to a power of two, as the reference's hashed negative pool
    (``negativeFeaturePower`` -2 for the full parser: 2^-2 = 0.25); the seen
    pairs keep their own hashed weights among ``2**bits``.  0: no pool,
    every pair hashed alike (plgraph's models before 2026-12-05).  Measured in
    ``docs/results.md``: the pool makes unseen evidence count against an edge, which
    is what makes the model's traces precise.  ``trace_prob``: a trace candidate label
    enters pass 3 only if the trace classifier gave its pair and trace type at least
    this probability (``Pass2Sentence.cand_prob``) -- a second, independent opinion on
    each trace, which pass 3's own score and ``trace_bias`` cannot give -- in training
    as in decoding (gold traces of training sentences are added back, as all gold
    is).  plgraph's, not the thesis's: 0 prunes as the reference, where the classifier's
    cut-off (0.011) is the only one.  On the sample 0.3, in training too, with 5 spines
    a word, lifts pass 3's dev trace F1 from 50.1 to 55.4 and test evalb F1 by a point
    (``docs/results.md``); training sees fewer wrong traces, and the decodes build a
    third of the items a trace-heavy chart needs."""

    bits: int = 24
    backoff: str = "kind"
    beam: int = 100
    cube: int = 10000
    batch: int = 10
    eta: float = 0.01
    C: float = 1e-9
    reg: str = "l1"
    epochs: int = 3
    ratio_s: float | None = None
    ratio_t: float | None = None
    coarse_recall: float = 0.99
    spine_top_check: bool = True
    max_spines: int = 5
    trace_bias: float | None = None
    negative_pool: float = 0.25
    trace_prob: float = 0.3
    trace_precision: float = 70.0

    def __post_init__(self):
        if self.trace_bias is not None and not math.isfinite(self.trace_bias):
            from ...errors import InputError

            raise InputError(f"Pass3Config.trace_bias {self.trace_bias}: expected a finite number")
        check_trace_prob(self.trace_prob, "Pass3Config.trace_prob")
        _check_range(self.trace_precision, 100.0, "Pass3Config.trace_precision", "a percentage")


def _check_range(value: float, top: float, name: str, what: str) -> None:
    """``value`` (of the setting called ``name``) lies in [0, ``top``], InputError saying
    it should be ``what`` otherwise."""
    if not 0.0 <= value <= top:
        from ...errors import InputError

        raise InputError(f"{name} {value:g}: expected {what} in [0, {top:g}]")


def check_trace_prob(value: float, name: str) -> None:
    """``value`` (of the setting called ``name``) is a probability, InputError otherwise."""
    _check_range(value, 1.0, name, "a probability")


#: spine options a word gets when a sentence is prepared again after pass 3 found no parse
RELAXED_SPINES = 12


def relaxed(config: Pass3Config) -> Pass3Config:
    """The pruning a sentence is prepared again with when pass 3 finds no parse under
    ``config``: every candidate label pass 2 can build (ratios 0) and up to
    :data:`RELAXED_SPINES` spines a word.  (Such sentences have a word whose spine
    options fit none of its surviving structural labels -- mostly very short sentences,
    whose spine the classifier gets wrong.)  ``trace_prob`` still applies: a trace
    never makes a parse possible."""
    from dataclasses import replace

    cap = max(config.max_spines, RELAXED_SPINES) if config.max_spines else 0
    return replace(config, ratio_s=0.0, ratio_t=0.0, max_spines=cap)


# -- spines and labels -------------------------------------------------------------------------
def _spine_nodes(spine: str):
    """(top node name, {(node, is null): sibling}) of a spine string (identity without
    its self-loop traces)."""
    levels, _ = parse_spine(spine)
    return (levels[-1].name if levels else "_"), sibling_table(spine)


class SpineInventory:
    """The spine identities pass 3 can choose (the spine classifier's vocabulary) and
    which labels each can carry.

    ``ok_c[s, l]`` / ``ok_p[s, l]`` (uint8, ``(S + 1, L)``): spine ``s`` can be the child /
    parent end of label ``l``; row ``S`` (:attr:`root`) is ROOT's spine, which parents
    the structural labels whose parent node is ``ROOT_0`` and is never a child.
    ``top[s]``: the spine's top node name (``_`` for a word heading nothing)."""

    def __init__(self, identities, vocab: LabelVocab):
        self.identities = list(identities)
        self.index = {s: i for i, s in enumerate(self.identities)}
        S, L = len(self.identities), len(vocab)
        self.root = S
        self.top = []
        self.ok_c = np.zeros((S + 1, L), np.uint8)
        self.ok_p = np.zeros((S + 1, L), np.uint8)
        # the labels each spine node can end, indexed once (tests/naive.py::spine_fit is
        # the label-by-label twin)
        struct_child, struct_parent, trace_child, trace_parent, any_child = {}, {}, {}, {}, []
        for i, lab in enumerate(vocab.labels):
            if lab.kind == STRUCTURAL:
                if not lab.child_null:
                    struct_child.setdefault(lab.child, []).append(i)
                struct_parent.setdefault((lab.parent, lab.parent_null, lab.sibling), []).append(i)
            else:
                trace_child.setdefault((lab.child, lab.child_null), []).append(i)
                trace_parent.setdefault((lab.parent, lab.parent_null), []).append(i)
                if lab.child == "_":
                    any_child.append(i)
        for s, ident in enumerate(self.identities):
            top, nodes = _spine_nodes(ident.split("|", 1)[0])
            self.top.append(top)
            child = struct_child.get(top, []) + any_child
            parent = []
            for (name, null), sibling in nodes.items():
                child += trace_child.get((name, null), [])
                parent += struct_parent.get((name, null, sibling), []) + trace_parent.get((name, null), [])
            self.ok_c[s, child] = 1
            self.ok_p[s, parent] = 1
        structural = [(i, lab) for i, lab in enumerate(vocab.labels) if lab.kind == STRUCTURAL]
        for i, lab in structural:
            self.ok_p[S, i] = lab.parent == "ROOT_0" and not lab.parent_null
        self.label_child = [lab.child for lab in vocab.labels]

    def __len__(self) -> int:
        return len(self.identities)


# -- sentences -------------------------------------------------------------------------------------
@record_type
@dataclass
class Pass3Sentence(SpinePoints):
    """One sentence prepared for pass 3 (chart positions).  Pairs and candidates as
    :class:`~plgraph.parser.scoring.pass2.Pass2Sentence`; ``blk_off``: each pair's block in the
    flat score tables; ``nsp`` (N,) / ``sp_id`` (flat, offsets ``cumsum(nsp)``): each
    point's spine options as :class:`SpineInventory` ids (ROOT: one, ``inventory.root``);
    ``gold_spine_id`` (n,): the gold spine identities (-1: not in the inventory);
    ``fallback_edges`` / ``fallback_spines``: pass 2's graph and the spine classifier's
    first choices (-1: none in the inventory), the output when pass 3 finds no parse."""

    id: str
    n: int
    base: int
    pc: np.ndarray
    pp: np.ndarray
    cand_off: np.ndarray
    cand_lab: np.ndarray
    cand_kind: np.ndarray
    blk_off: np.ndarray
    nsp: np.ndarray
    sp_id: np.ndarray
    gold_s: np.ndarray
    gold_t: np.ndarray
    gold: Gold | None = None
    gold_items: tuple | None = None
    gold_spine_id: np.ndarray | None = None
    gold_unseen: int = 0
    fallback_edges: dict | None = None
    fallback_spines: np.ndarray | None = None


def pass3_sentence(graph: Graph, sent2: Pass2Sentence, p2: Pass2Pruning, pruned, inventory: SpineInventory,
            vocab: LabelVocab, spine_labels, config: Pass3Config = Pass3Config(), *, gold: bool = False,
            protect_gold: bool | None = None, rules: RuleTables | None = None) -> Pass3Sentence:
    """Pairs, candidate labels and spine options of ``graph`` for pass 3 (module
    docstring).  ``sent2``: the sentence as pass 2 saw it (its candidates); ``p2``: pass
    2's decode; ``pruned``: the coarse models' :class:`~plgraph.pruners.PrunedSentence`
    (its spines index ``spine_labels``, the spine classifier's vocabulary).  ``gold``
    attaches the gold graph (and with ``rules`` its derivation's items);
    ``protect_gold`` (default ``gold``) adds gold pairs, labels and spines."""
    n = sent2.n
    if config.ratio_s is None or config.ratio_t is None:
        raise ValueError("Pass3Config.ratio_s / ratio_t are not set: tune them on dev "
                         "(plgraph.parser.training.cascade.tune_ratios)")
    keep = p2.kept(sent2, config.ratio_s, config.ratio_t)
    G = gold_sid = None
    if gold:
        from ...encoding import spine_identity

        G, unseen = gold_graph(graph, vocab)
        gold_sid = np.array([inventory.index.get(spine_identity(graph, w), -1) for w in range(n)], np.int64)
    protect = G is not None and (gold if protect_gold is None else protect_gold)
    if config.trace_prob:         # the trace classifier's second opinion (gold is added back below)
        keep = keep & ((sent2.cand_kind != TRACE) | (sent2.cand_prob >= config.trace_prob))
    # the surviving labelled edges of each pair (gold added in training)
    per_pair = []
    tops: list[set] = [set() for _ in range(n)]
    for k in range(sent2.pc.shape[0]):
        c, p = int(sent2.pc[k]), int(sent2.pp[k])
        lo, hi = sent2.cand_off[k], sent2.cand_off[k + 1]
        cand = sent2.cand_lab[lo:hi][keep[lo:hi]]
        tops[c].update(inventory.label_child[int(x)] for x in cand if vocab.kind[x] == STRUCTURAL)
        g_s = int(G.s[c, p]) if G is not None else -1
        g_t = int(G.t[c, p]) if G is not None else -1
        if protect:
            extra = [g for g in (g_s, g_t) if g >= 0 and g not in set(cand.tolist())]
            cand = np.concatenate([cand, np.array(extra, np.int64)]) if extra else cand
        if cand.size:
            per_pair.append((c, p, np.unique(cand), g_s, g_t))
    # spine options: the classifier's, agreeing with a surviving structural label (switch)
    options, first = [], []
    for w in range(n):
        ids = [inventory.index.get(spine_labels[int(s)], -1) for s in pruned.spines[w]]
        ids = [s for s in ids if s >= 0]
        first.append(ids[0] if ids else -1)
        if config.spine_top_check:
            ids = [s for s in ids if inventory.top[s] in tops[w]] or ids
        if config.max_spines:
            ids = ids[:config.max_spines]            # the classifier's most probable first
        if protect and gold_sid[w] >= 0 and gold_sid[w] not in ids:
            ids.append(int(gold_sid[w]))
        if not ids:           # the classifier knows no spine of this POS: a word heading nothing
            ids = [inventory.index.get("_", 0)]
        options.append(ids)
    options.append([inventory.root])
    nsp = np.array([len(o) for o in options], np.int64)
    sp_id = np.array([s for o in options for s in o], np.int64)
    pc, pp, offs, labs, kinds, gs, gt, blk = [], [], [0], [], [], [], [], [0]
    for c, p, cand, g_s, g_t in per_pair:
        pc.append(c)
        pp.append(p)
        labs.append(cand)
        kinds.append(vocab.kind[cand].astype(np.int8))
        offs.append(offs[-1] + cand.size)
        gs.append(g_s)
        gt.append(g_t)
        blk.append(blk[-1] + int(nsp[c] * nsp[p]))
    cat = (lambda xs, dt: np.concatenate(xs).astype(dt) if xs else np.zeros(0, dt))  # noqa: E731
    sent = Pass3Sentence(sent2.id, n, sent2.base, np.array(pc, np.int64), np.array(pp, np.int64),
                         np.array(offs, np.int64), cat(labs, np.int64), cat(kinds, np.int8),
                         np.array(blk, np.int64), nsp, sp_id, np.array(gs, np.int64), np.array(gt, np.int64),
                         None, None, gold_sid, unseen if G is not None else 0, p2.edges,
                         np.array(first, np.int64))
    if G is not None:
        spine_opt = np.full(n, -1, np.int64)
        off = sent.sp_off
        for w in range(n):
            hit = np.flatnonzero(sp_id[off[w]:off[w + 1]] == gold_sid[w])
            if gold_sid[w] >= 0 and hit.size:
                spine_opt[w] = hit[0]
        sent.gold = Gold(G.s, G.t, spine_opt)
        if rules is not None:
            sent.gold_items = gold_item_ids(sent.gold, rules)
    return sent


# -- the model ---------------------------------------------------------------------------------------
@dataclass
class Decoded3(Decoded):
    """One pass-3 decode (a :class:`~plgraph.parser.scoring.pass2.Decoded`) with the chosen
    spine identity of every word (``spines``, inventory ids; -1 when nothing parsed).
    Under a ``trace_bias`` (plain decodes only) ``model_score`` and ``gold_score``
    include the bias of their trace edges, as the chart's score does."""

    spines: np.ndarray = None


class Pass3Model(PooledWeights):
    """Hashed weights over spines, edges x label and (spine, spine, label) joints, with the
    negative pool of :class:`~plgraph.parser.scoring.pool.PooledWeights` (``positive`` /
    ``pool_bits``; set by :meth:`take_positive` before training, or from the model file).
    A :class:`~plgraph.parser.scoring.pass_scorer.PassScorer`."""

    def __init__(self, vocab: LabelVocab, inventory: SpineInventory, config: Pass3Config = Pass3Config(),
                 positive: np.ndarray | None = None, pool_bits: int | None = None):
        self.vocab = vocab
        self.inventory = inventory
        self.config = config
        self.back = vocab.backoff_classes(config.backoff)
        self.set_positive(positive, pool_bits)

    def tables(self, sent: Pass3Sentence, tokens, read_args, augment: bool = False,
               weights: LossWeights = LossWeights()) -> ChartTables:
        """The chart's tables of one sentence (loss-augmented with ``augment``)."""
        loss = loss_args(sent, augment, weights)
        out = best_labels(int(sent.blk_off[-1]))
        sp_off = sent.sp_off
        inv = self.inventory
        keys, wv = sentence_keys(sent, tokens), weight_view(read_args)
        K.label_tables(keys, candidates(sent), K.SpineTables(sent.blk_off, sp_off, sent.sp_id, inv.ok_c, inv.ok_p),
                       loss, self.hashing, wv, out)
        sp_score = np.empty(sent.sp_id.shape[0])
        K.spine_scores(keys, sp_off, sent.sp_id, self.hk, wv, sp_score)
        if augment:
            for w in range(sent.n):
                wrong = np.arange(sent.nsp[w]) != sent.gold.spine[w]
                sp_score[sp_off[w]:sp_off[w + 1]] += weights.spine * wrong
        elif self.config.trace_bias:
            t_best = out.t_best
            t_best[np.isfinite(t_best)] += self.config.trace_bias
        N = sent.N
        pair_off = np.full((N, N), -1, np.int64)
        pair_off[sent.pc, sent.pp] = sent.blk_off[:-1]
        return chart_tables(sent, sent.nsp.copy(), sp_score, pair_off, out, augment, weights)

    def features(self, sent: Pass3Sentence, tokens, edges, spines, sign: float):
        """Feature (index, value) entries of labelled edges ``[(c, p, label)]`` of a graph
        whose words have spine identities ``spines`` (n,), and of those spines."""
        e = np.asarray(edges, np.int64).reshape(-1, 3)
        sid = np.append(np.asarray(spines, np.int64), self.inventory.root)
        words = np.flatnonzero(sid[:sent.n] >= 0)
        per_edge = MAX_PAIR_KEYS * (1 + self.back.shape[1]) + K.N_JOINT
        idx = np.empty(e.shape[0] * per_edge + words.size * MAX_WORD_KEYS, np.int64)
        val = np.empty(idx.shape[0])
        spined = K.SpinedEdges(e[:, 0], e[:, 1], e[:, 2], sid[e[:, 0]], sid[e[:, 1]])
        m = K.features(sentence_keys(sent, tokens), spined, K.WordSpines(words, sid[words]), float(sign), self.hashing,
                       idx, val)
        return idx[:m], val[:m]

    def structure_features(self, sent: Pass3Sentence, tokens, decoded: Decoded3 | None, sign: float):
        """Feature (index, value) entries, times ``sign``, of ``decoded``'s graph and spines,
        or (None) of ``sent``'s gold graph: its edges between the gold spines, and those
        spines (none for a spine outside the inventory)."""
        if decoded is not None:
            return self.features(sent, tokens, predicted_edges(decoded.result), decoded.spines, sign)
        spines = sent.gold_spine_id if sent.gold_spine_id is not None else np.full(sent.n, -1, np.int64)
        return self.features(sent, tokens, gold_edges(sent.gold), spines, sign)

    def score_of(self, sent: Pass3Sentence, tokens, read_args, edges, spines) -> float:
        """``w . phi`` of a graph, straight from its features."""
        idx, val = self.features(sent, tokens, edges, spines, 1.0)
        return float(weight_dot(idx, val, weight_view(read_args)))

    def decode(self, sent: Pass3Sentence, tokens, read_args=None, rules: RuleTables | None = None, *,
               augment: bool = False, weights: LossWeights = LossWeights(), beam: int | None = None,
               cube: int | None = None) -> Decoded3:
        """Parse one sentence (loss-augmented with ``augment``) and check the chart's
        arithmetic against the features of its own output."""
        read_args = read_args if read_args is not None else plain_read_args(np.zeros(self.n_weights))
        res = decode_chart(self, sent, tokens, read_args, rules, augment=augment, weights=weights, beam=beam,
                           cube=cube)
        spines = np.full(sent.n, -1, np.int64)
        model = loss = 0.0
        if res.parsed:
            spines = sent.chosen_spines(res)
            model = self.score_of(sent, tokens, read_args, predicted_edges(res), spines)
            if augment:
                loss = hamming_loss(res.edges, sent.gold, weights) + weights.spine * float(
                    (res.spines[:sent.n] != sent.gold.spine).sum())
        gold_score = None
        if sent.gold is not None and (sent.gold_spine_id >= 0).all():
            gold_score = self.score_of(sent, tokens, read_args, gold_edges(sent.gold), sent.gold_spine_id)
        bias = 0.0 if augment else float(self.config.trace_bias or 0.0)
        if res.parsed and bias:            # the decision threshold's part of the chart's score
            model += bias * sum(1 for (_c, _p, kind) in res.edges if kind == "T")
        if gold_score is not None and bias:
            gold_score += bias * int((sent.gold.t >= 0).sum())
        return Decoded3(res, model, loss, gold_score, score_mismatch(res, model, loss), spines)


def batch_gradient(model: Pass3Model, sents, tokens, learner, rules, weights: LossWeights = LossWeights(),
                   stats: dict | None = None, threads: int = 1) -> SparseGradient:
    """Summed ``phi(y_hat) - phi(y)`` of loss-augmented pass-3 decodes (as
    :func:`plgraph.parser.scoring.pass2.batch_gradient`, with its counters; a gold spine outside
    the inventory contributes no spine features)."""
    return structure_gradient(model, sents, tokens, learner, rules, weights, stats, threads)


__all__ = ["Pass3Config", "check_trace_prob", "SpineInventory", "relaxed", "Pass3Sentence", "pass3_sentence", "Pass3Model",
           "Decoded3", "batch_gradient"]
