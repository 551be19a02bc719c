"""Pass 2 (plgraph.parser.pass2): candidates, score tables, decode checks, learning."""
from __future__ import annotations

import numpy as np
import pytest

import naive
from plgraph.learn import make_learner
from plgraph.learn.learners import plain_read_args
from plgraph.parser.pass2 import (Pass2Config, Pass2Model, batch_gradient, gold_edges, hamming_loss, prepare)
from plgraph.parser.tables import LossWeights

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
    prepared = [prepare(g, pr.prune(g), vocab, pr.trace.labels.index, int(tokens.tok_off[i]), gold=True,
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


@pytest.mark.parametrize("augment,backoff", [(False, "kind+nodes"), (True, "kind+nodes"), (True, "none"),
                                             (False, "nodes")])
def test_score_tables_equal_plain_python(setting, augment, backoff):
    model = Pass2Model(setting["vocab"], Pass2Config(bits=16, backoff=backoff))
    w = np.random.default_rng(3).normal(size=model.n_weights)
    weights = LossWeights()
    for s in setting["sents"][:6]:
        tables, s_plain, t_plain = model.tables(s, setting["tokens"], plain_read_args(w), augment, weights)
        want = naive.pass2_label_tables(s, setting["tokens"], w, model.hk, augment, weights, model.back)
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
    from plgraph.parser.training import PreparedCorpus, evaluate_pass2

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

    from plgraph.parser.training import prepare_corpus

    good = setting["graphs"][:3]
    bad = copy.deepcopy(good[1])
    bad.id = "wsj_bad.1"
    bad.label = bad.label.copy()
    k = int(np.flatnonzero((bad.kind == 0) & (bad.parent > 0))[0])
    bad.label[k] = "XP_7"
    out = prepare_corpus([good[0], bad, good[2]], setting["pr"], setting["vocab"], training=False)
    assert [s.id for s in out.sents] == [good[0].id, good[2].id]
    assert len(out.skipped) == 1 and out.skipped[0][0] == "wsj_bad.1" and "XP_7" in out.skipped[0][1]
