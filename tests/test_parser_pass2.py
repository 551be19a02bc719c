"""Pass 2 (plgraph.parser.scoring.pass2): candidates, score tables, decode checks, learning;
the scorer seam (plgraph.parser.scoring.pass_scorer) both passes implement."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import naive
from plgraph.learn import make_learner
from plgraph.learn.learners import plain_read_args
from plgraph.parser.scoring._pass2 import WeightView
from plgraph.parser.scoring.pass2 import (Pass2Config, Pass2Model, batch_gradient, gold_edges, hamming_loss, pass2_sentence)
from plgraph.parser.scoring.pass_scorer import (Decoded, Pass2Scorer, PassScorer, decode_chart, predicted_edges,
                                           score_mismatch, structure_gradient)
from plgraph.parser.chart.tables import ChartTables, LossWeights

# the learning test's step size and epochs: the released eta (0.03) is for one pass over
# 40,000 sentences; 40 sentences need a larger step to show learning in a few epochs
ETA = 0.3
EPOCHS = 4


@pytest.fixture(scope="module")
def setting(parser_base):
    """Quick-mode coarse models (shared cache), the train split's labels and rules, and
    short train and dev sentences prepared for pass 2."""
    from plgraph.encoding import encode_graph, encode_tokens

    base = parser_base
    train, dev, pr, vocab, rules = base["train"], base["dev"], base["pr"], base["vocab"], base["rules"]
    short_train = [g for g in train if 4 <= len(g) <= 12][:40]
    short_dev = [g for g in dev if 4 <= len(g) <= 12][:15]
    sents = short_train + short_dev
    tokens = encode_tokens([encode_graph(g) for g in sents], pr.normaliser, pr.tags)
    prepared = [pass2_sentence(g, pr.prune(g), vocab, pr.trace.labels.index, int(tokens.tok_off[i]), gold=True,
                        protect_gold=i < len(short_train), rules=rules)
                for i, g in enumerate(sents)]
    return dict(pr=pr, vocab=vocab, rules=rules, graphs=sents, tokens=tokens, sents=prepared,
                n_train=len(short_train))


def test_candidates_follow_pass_1_the_trace_classifier_and_either(setting):
    pr, vocab = setting["pr"], setting["vocab"]
    for g, s in zip(setting["graphs"][:20], setting["sents"][:20]):
        pruned = pr.prune(g)
        n = s.n
        pairs = {(int(c), int(p)): k for k, (c, p) in enumerate(zip(s.pc, s.pp))}
        kept_arcs = {(int(c) - 1, n if p == 0 else int(p) - 1) for c, p, _ in pruned.arcs}
        kept_types = {}
        for c, p, t in pruned.traces:
            kept_types.setdefault((int(c) - 1, int(p) - 1), set()).add(pr.trace.labels.items[int(t)])
        tags = list(g.tags) + ["ROOT"]
        for (c, p), k in pairs.items():
            cand = s.cand_lab[s.cand_off[k]:s.cand_off[k + 1]]
            either = set(vocab.candidates(tags[c], tags[p]).tolist())
            gold = {int(s.gold_s[k]), int(s.gold_t[k])} - {-1}
            for lab in cand.tolist():
                L = vocab.labels[lab]
                if lab in gold:
                    continue                                     # gold is protected
                assert lab in either
                if L.kind == 0:
                    assert (c, p) in kept_arcs
                else:
                    assert p < n and L.trace in kept_types.get((c, p), set())
            assert np.array_equal(s.cand_kind[s.cand_off[k]:s.cand_off[k + 1]], vocab.kind[cand])
        # every kept arc whose POS pair has structural candidates is a pair; gold edges all are
        for (c, p) in kept_arcs:
            if any(vocab.labels[x].kind == 0 for x in vocab.candidates(tags[c], tags[p]).tolist()):
                assert (c, p) in pairs
        for c, p, lab in gold_edges(s.gold):
            k = pairs[(c, p)]
            assert lab in s.cand_lab[s.cand_off[k]:s.cand_off[k + 1]].tolist()


@pytest.mark.parametrize("case,augment,backoff", [(0, False, "kind+nodes"), (1, True, "kind+nodes"), (2, True, "none"),
                                                  (3, False, "nodes")])
def test_score_tables_equal_plain_python(setting, case, augment, backoff):
    """Each setting on three of the first six train sentences (the plain-Python twin is
    slow), the four settings together covering each of the six twice."""
    model = Pass2Model(setting["vocab"], Pass2Config(bits=16, backoff=backoff))
    w = np.random.default_rng(3).normal(size=model.n_weights)
    weights = LossWeights()
    for s in [setting["sents"][(case * 3 + k) % 6] for k in range(3)]:
        tables, s_plain, t_plain = model.scored_tables(s, setting["tokens"], plain_read_args(w), augment, weights)
        want = naive.pass2_label_tables(s, setting["tokens"], w, model.hashing, augment, weights)
        # the kernels read a learner's bare read_args tuple and its WeightView alike
        again = model.tables(s, setting["tokens"], WeightView(*plain_read_args(w)), augment, weights)
        for key in ("s_best", "s_lab", "t_best", "t_lab"):
            np.testing.assert_array_equal(getattr(again, key), getattr(tables, key))
        # every candidate's plain score (pass 3's pruning reads them) is its label's best when it wins
        scores = model.candidate_scores(s, setting["tokens"], plain_read_args(w))
        for k in range(s.pc.shape[0]):
            for j in range(s.cand_off[k], s.cand_off[k + 1]):
                plain = (s_plain if s.cand_kind[j] == 0 else t_plain)[k]
                won = (tables.s_lab if s.cand_kind[j] == 0 else tables.t_lab)[tables.pair_off[s.pc[k], s.pp[k]]]
                if won == s.cand_lab[j]:
                    assert scores[j] == plain
                if not augment:
                    assert scores[j] <= plain
        for k, best in enumerate(want):
            off = tables.pair_off[s.pc[k], s.pp[k]]
            assert tables.s_lab[off] == best[0][1] and tables.t_lab[off] == best[1][1]
            np.testing.assert_allclose([tables.s_best[off], tables.t_best[off]], [best[0][0], best[1][0]],
                                       rtol=1e-12, atol=1e-9)
            if best[0][1] >= 0:
                assert s_plain[k] == pytest.approx(model.edge_scores(s, setting["tokens"], plain_read_args(w),
                                                                     [(s.pc[k], s.pp[k], best[0][1])]))


def test_every_decode_adds_up_and_exhaustive_search_has_no_search_errors(setting):
    """The chart's score is w.phi(y_hat) + L(y_hat) on every decode (beamed and exhaustive,
    plain and loss-augmented); L is the definition's Hamming loss; exhaustive search
    never scores gold above its prediction when gold is derivable."""
    model = Pass2Model(setting["vocab"], Pass2Config(bits=18))
    w = np.random.default_rng(5).normal(scale=0.3, size=model.n_weights)
    args = plain_read_args(w)
    tokens, rules = setting["tokens"], setting["rules"]
    derivable = 0
    for s in setting["sents"][:25]:
        for beam, cube in ((100, 500), (0, 0)):
            for augment in (False, True):
                d = model.decode(s, tokens, args, rules, augment=augment, beam=beam, cube=cube)
                assert d.result.parsed and not d.mismatch, (s.id, beam, augment)
                if augment:
                    gold = (s.gold.s, s.gold.t, [-1] * s.N)
                    assert d.loss == naive.hamming(d.result.edges, [0] * s.N, gold, {"spine": 0.0})
                    assert d.loss == hamming_loss(d.result.edges, s.gold)
                if beam == 0 and augment and s.gold_items is not None:
                    derivable += 1
                    assert not d.search_error
                    assert d.model_score + d.loss >= d.gold_score - 1e-9
    assert derivable >= 20


def test_training_on_short_sentences_lowers_their_loss(setting):
    """Loss-augmented AdaGrad (L1, C 1e-9, eta ETA) on 40 short train sentences:
    EPOCHS epochs drive their summed Hamming loss far down, with no
    arithmetic mismatch; decoding dev sentences then beats the zero-weight parser."""
    from plgraph.learn import run_epoch

    cfg = Pass2Config(bits=20)
    model = Pass2Model(setting["vocab"], cfg)
    tokens, rules = setting["tokens"], setting["rules"]
    train = setting["sents"][:setting["n_train"]]
    lrn = make_learner("adagrad", model.n_weights, eta=ETA, C=cfg.C, reg=cfg.reg)
    stats, losses = {}, []
    rng = np.random.default_rng(0)
    for epoch in range(1, EPOCHS + 1):
        ep = run_epoch(lrn, len(train), lambda b: batch_gradient(model, [train[i] for i in b], tokens, lrn, rules,
                                                                  stats=stats),
                       batch_size=4, rng=rng, epoch=epoch, progress=False)
        losses.append(ep.loss)
    assert stats["mismatches"] == 0 and stats["failed"] == 0
    assert losses[-1] < 0.25 * losses[0], losses
    lrn.catch_up()
    args = plain_read_args(lrn.w)
    dev = setting["sents"][setting["n_train"]:]

    def attachment(read):
        right = total = 0
        for s in dev:
            d = model.decode(s, tokens, read, rules)
            heads = {c: p for (c, p, kind) in d.result.edges if kind == "S"}
            for c in range(s.n):
                total += 1
                right += int(heads.get(c, -1) == int(np.flatnonzero(s.gold.s[c] >= 0)[0]))
        return right / total

    assert attachment(args) > attachment(plain_read_args(np.zeros(model.n_weights))) + 0.1


def test_parallel_batch_decoding_gives_the_serial_gradient(setting):
    """Sentences of a batch decode in threads (the kernels release the GIL); the summed
    gradient and the counters do not depend on the number of threads."""
    model = Pass2Model(setting["vocab"], Pass2Config(bits=18))
    lrn = make_learner("adagrad", model.n_weights, eta=0.3, C=1e-9, reg="l1")
    batch = setting["sents"][:12]
    out = {}
    for threads in (1, 2):
        stats = {}
        g = batch_gradient(model, batch, setting["tokens"], lrn, setting["rules"], stats=stats, threads=threads)
        out[threads] = (g, stats)
    (g1, s1), (g2, s2) = out[1], out[2]
    assert g1.loss == g2.loss > 0 and s1 == s2
    np.testing.assert_array_equal(g1.idx, g2.idx)
    np.testing.assert_array_equal(g1.val, g2.val)
    lrn.step(g1)                       # after an update the weights differ from zero: still equal
    a = batch_gradient(model, batch, setting["tokens"], lrn, setting["rules"], threads=1)
    b = batch_gradient(model, batch, setting["tokens"], lrn, setting["rules"], threads=2)
    np.testing.assert_array_equal(a.idx, b.idx)
    np.testing.assert_array_equal(a.val, b.val)
    # dev evaluation in threads scores what the serial one does
    from plgraph.parser.training.corpus import PreparedCorpus, evaluate_pass2

    dev = PreparedCorpus(setting["sents"][setting["n_train"]:], setting["tokens"])
    one = evaluate_pass2(model, lrn.read_args(), dev, setting["rules"], threads=1)
    two = evaluate_pass2(model, lrn.read_args(), dev, setting["rules"], threads=2)
    assert {k: v for k, v in one.items() if k != "sentences_per_second"} == {
        k: v for k, v in two.items() if k != "sentences_per_second"}
    assert one["sentences"] == len(dev.sents) and 0 < one["uas"] <= 100


def test_a_malformed_graph_is_skipped_and_named(setting):
    """A corpus run leaves out a sentence whose edge names a node its parent's spine lacks,
    and says which and why; the others are prepared."""
    import copy

    from plgraph.parser.training.corpus import prepare_corpus

    good = setting["graphs"][:3]
    bad = copy.deepcopy(good[1])
    bad.id = "wsj_bad.1"
    bad.label = bad.label.copy()
    k = int(np.flatnonzero((bad.kind == 0) & (bad.parent > 0))[0])
    bad.label[k] = "XP_7"
    out = prepare_corpus([good[0], bad, good[2]], setting["pr"], setting["vocab"], training=False)
    assert [s.id for s in out.sents] == [good[0].id, good[2].id]
    assert len(out.skipped) == 1 and out.skipped[0][0] == "wsj_bad.1" and "XP_7" in out.skipped[0][1]


# -- the scorer seam ---------------------------------------------------------------------------
def test_both_passes_are_pass_scorers(setting):
    """Pass2Model and Pass3Model offer the interface of plgraph.parser.scoring.pass_scorer;
    pass 2 also what pass 3's pruning reads."""
    from plgraph.parser.scoring import pass3 as P3

    model2 = Pass2Model(setting["vocab"], Pass2Config(bits=12))
    model3 = P3.Pass3Model(setting["vocab"], P3.SpineInventory(setting["pr"].spine.labels.items, setting["vocab"]),
                           P3.Pass3Config(bits=12))
    assert isinstance(model2, PassScorer) and isinstance(model2, Pass2Scorer)
    assert isinstance(model3, PassScorer) and not isinstance(model3, Pass2Scorer)
    assert not isinstance(object(), PassScorer)


class HandScorer:
    """A scorer of a 2-word sentence (chart points 0, 1, ROOT 2) implementing only
    :class:`PassScorer`, from hand-made score tables: structural edges 0->1 0.5,
    1->0 2.0, 0->ROOT 1.0, 1->ROOT 0.7 (labels 10..13), trace edges 0->1 -1.0 and
    1->0 0.25 (labels 20, 21).  Its "features" are the labels of a graph's edges."""

    S = {(0, 1): (0.5, 10), (1, 0): (2.0, 11), (0, 2): (1.0, 12), (1, 2): (0.7, 13)}
    T = {(0, 1): (-1.0, 20), (1, 0): (0.25, 21)}
    config = SimpleNamespace(beam=0, cube=0)
    n_weights = 32

    def tables(self, sent, tokens, read_args, augment=False, weights=LossWeights()):
        N = sent.N
        pairs = sorted(set(self.S) | set(self.T))
        pair_off = np.full((N, N), -1, np.int64)
        none = (-np.inf, -1)
        for k, cp in enumerate(pairs):
            pair_off[cp] = k
        s_best, s_lab = (np.array(x) for x in zip(*[self.S.get(cp, none) for cp in pairs]))
        t_best, t_lab = (np.array(x) for x in zip(*[self.T.get(cp, none) for cp in pairs]))
        return ChartTables(np.ones(N, np.int64), np.zeros(N), pair_off, s_best, s_lab.astype(np.int64), t_best,
                           t_lab.astype(np.int64))

    def decode(self, sent, tokens, read_args=None, rules=None, *, augment=False, weights=LossWeights(), beam=None,
               cube=None):
        res = decode_chart(self, sent, tokens, read_args, rules, augment=augment, weights=weights, beam=beam,
                           cube=cube)
        table = {**{(c, p, "S"): v for (c, p), v in self.S.items()}, **{(c, p, "T"): v for (c, p), v in self.T.items()}}
        model = sum(table[e][0] for e in res.edges)
        loss = float(len(set(res.edges.items()) ^ set(sent.gold_edges.items()))) if augment else 0.0
        return Decoded(res, model, loss, None, score_mismatch(res, model, 0.0))

    def structure_features(self, sent, tokens, decoded, sign):
        labels = [lab for *_, lab in predicted_edges(decoded.result)] if decoded is not None else \
            list(sent.gold_edges.values())
        return np.array(labels, np.int64), np.full(len(labels), float(sign))

    def stored_arrays(self):
        return {}

    def take_positive(self, sents, tokens):
        return None

    def with_config(self, config):
        return self


def test_a_foreign_scorer_decodes_and_trains_through_the_same_path():
    """A scorer that implements only the protocol, with hand-made tables, is decoded by
    the passes' decode path (decode_chart) to the best structure by hand -- 0 -> ROOT and
    1 -> 0 with its trace 1 -> 0 (the pair's two kinds are chosen independently):
    1.0 + 2.0 + 0.25 -- and the shared gradient of both passes runs on it: phi(y_hat) -
    phi(gold) with its loss."""
    scorer = HandScorer()
    assert isinstance(scorer, PassScorer)
    sent = SimpleNamespace(id="hand", n=2, N=3, gold=None, gold_items=None,
                           gold_edges={(0, 1, "S"): 10, (1, 2, "S"): 13})
    d = scorer.decode(sent, None)
    assert d.result.parsed and not d.mismatch
    assert d.result.score == pytest.approx(3.25)
    assert d.result.edges == {(0, 2, "S"): 12, (1, 0, "S"): 11, (1, 0, "T"): 21}
    learner = SimpleNamespace(read_args=lambda: None)
    stats = {}
    g = structure_gradient(scorer, [sent, sent], None, learner, None, stats=stats)
    assert g.loss == 2 * 5.0 and stats["sentences"] == 2 and stats["mismatches"] == 0
    assert g.idx.tolist() == [12, 11, 21, 10, 13] * 2
    assert g.val.tolist() == [1.0, 1.0, 1.0, -1.0, -1.0] * 2
