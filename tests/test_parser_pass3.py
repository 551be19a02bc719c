"""Pass 3 (plgraph.parser.scoring.pass3): spines x labels, score tables, decode checks against
brute force, learning, and the pass-2 pruning."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import naive
from plgraph.learn import make_learner, run_epoch
from plgraph.learn.learners import plain_read_args
from plgraph.parser.scoring import pass2 as P2
from plgraph.parser.scoring import pass3 as P3
from plgraph.parser.chart.tables import LossWeights


@pytest.fixture(scope="module")
def setting(parser_base):
    """Quick-mode coarse models, the train split's labels, rules and spine inventory, a
    pass-2 model trained briefly on short train sentences, and short train and dev
    sentences pruned by it and prepared for pass 3."""
    from plgraph.encoding import encode_graph, encode_tokens

    base = parser_base
    train, dev, pr, vocab, rules = base["train"], base["dev"], base["pr"], base["vocab"], base["rules"]
    inv = P3.SpineInventory(pr.spine.labels.items, vocab)
    short_train = [g for g in train if 4 <= len(g) <= 10][:30]
    short_dev = [g for g in dev if 4 <= len(g) <= 10][:10]
    tiny = [g for g in train if 2 <= len(g) <= 4][:6]
    graphs = short_train + short_dev + tiny
    tokens = encode_tokens([encode_graph(g) for g in graphs], pr.normaliser, pr.tags)
    s2 = [P2.pass2_sentence(g, pr.prune(g), vocab, pr.trace.labels.index, int(tokens.tok_off[i]), gold=True,
                     protect_gold=i < len(short_train), rules=rules) for i, g in enumerate(graphs)]
    # a quickly trained pass 2 (3 epochs on the short train sentences) to prune with
    m2 = P2.Pass2Model(vocab, P2.Pass2Config(bits=18))
    lrn = make_learner("adagrad", m2.n_weights, eta=0.3, C=1e-9, reg="l1")
    for epoch in range(1, 4):
        run_epoch(lrn, len(short_train), lambda b: P2.batch_gradient(m2, [s2[i] for i in b], tokens, lrn, rules),
                  batch_size=5, rng=np.random.default_rng(epoch), epoch=epoch, progress=False)
    lrn.catch_up()
    ra2 = plain_read_args(lrn.w.copy())
    p2 = [P2.pass2_pruning(m2, s, tokens, ra2, rules) for s in s2]
    cfg = P3.Pass3Config(bits=18, ratio_s=0.75, ratio_t=0.75, trace_bias=0.0)
    s3 = [P3.pass3_sentence(g, s, o, pr.prune(g), inv, vocab, pr.spine.labels.items, cfg, gold=True,
                     protect_gold=i < len(short_train), rules=rules)
          for i, (g, s, o) in enumerate(zip(graphs, s2, p2))]
    return dict(pr=pr, vocab=vocab, rules=rules, inv=inv, graphs=graphs, tokens=tokens, s2=s2, p2=p2, s3=s3,
                cfg=cfg, n_train=len(short_train), n_dev=len(short_dev))


def test_spine_inventory_equals_its_label_by_label_twin(setting):
    """The indexed ``ok_c`` / ``ok_p`` of :class:`SpineInventory` equal
    ``tests/naive.py::spine_fit`` (every spine against every label), and they are not
    trivial: some pairs fit, most do not."""
    inv, vocab = setting["inv"], setting["vocab"]
    ok_c, ok_p = naive.spine_fit(inv.identities, vocab)
    np.testing.assert_array_equal(inv.ok_c, ok_c)
    np.testing.assert_array_equal(inv.ok_p, ok_p)
    assert 0 < ok_c.sum() < ok_c.size / 2 and 0 < ok_p.sum() < ok_p.size / 2


def test_spine_label_table_matches_the_spine_strings(setting):
    """``ok_c`` / ``ok_p`` of every (spine, label) equal the plain reading of the spine
    strings (tests/naive.py), and every gold edge of the train sentences fits its gold
    spines."""
    inv, vocab = setting["inv"], setting["vocab"]
    ids = inv.identities
    rng = np.random.default_rng(0)
    pairs = [(int(a), int(b)) for a, b in rng.integers(0, len(ids), size=(25, 2))]
    for s in setting["s3"][:8]:                        # spine pairs of gold edges: many labels fit
        for c, p, _ in P2.gold_edges(s.gold):
            pairs.append((int(s.gold_spine_id[c]), inv.root if p == s.n else int(s.gold_spine_id[p])))
    fits = 0
    for a, b in pairs:
        if a < 0 or b < 0:
            continue
        for lab in range(len(vocab)):
            want = naive.spine_label_fits(vocab.labels[lab], ids[a], None if b == inv.root else ids[b])
            assert bool(inv.ok_c[a, lab] and inv.ok_p[b, lab]) == want, (ids[a], b, vocab.labels[lab])
            fits += want
    assert fits > 100
    for s in setting["s3"][:setting["n_train"]]:
        for c, p, lab in P2.gold_edges(s.gold):
            a = s.gold_spine_id[c]
            b = inv.root if p == s.n else s.gold_spine_id[p]
            if a >= 0 and b >= 0:
                assert inv.ok_c[a, lab] and inv.ok_p[b, lab], (s.id, c, p, vocab.labels[lab])


def test_candidates_follow_pass_2_and_spines_the_classifier(setting):
    """Kept labels are pass 2's candidates whose labelled max-marginal (pair
    max-marginal - best label's score + this label's; the best label's equals the
    pair's) clears the ratio between the smallest labelled one and the best derivation, traces
    only with the classifier's probability ``trace_prob`` (gold added in training
    only); spine options are the classifier's (top-checked),
    gold added in training."""
    cfg, inv, pr = setting["cfg"], setting["inv"], setting["pr"]
    for i, (g, s2, o, s3) in enumerate(zip(setting["graphs"], setting["s2"], setting["p2"], setting["s3"])):
        training = i < setting["n_train"]
        fin = {kind: min([x for x, k in zip(o.lab_mm, s2.cand_kind) if k == kind and np.isfinite(x)], default=np.inf)
               for kind in (0, 1)}
        kept3 = {}
        for k in range(s3.pc.shape[0]):
            for lab in s3.cand_lab[s3.cand_off[k]:s3.cand_off[k + 1]]:
                kept3[(int(s3.pc[k]), int(s3.pp[k]), int(lab))] = (int(s3.gold_s[k]), int(s3.gold_t[k]))
        for k in range(s2.pc.shape[0]):
            c, p = int(s2.pc[k]), int(s2.pp[k])
            lo, hi = s2.cand_off[k], s2.cand_off[k + 1]
            top = {kind: o.lab_mm[lo:hi][s2.cand_kind[lo:hi] == kind].max(initial=-np.inf) for kind in (0, 1)}
            for j in range(lo, hi):
                kind, lab = int(s2.cand_kind[j]), int(s2.cand_lab[j])
                mm = (o.mm_s if kind == 0 else o.mm_t)[c, p]
                best = top[kind]
                assert o.lab_mm[j] <= best + 1e-9 and (not np.isfinite(mm) or abs(best - mm) < 1e-6 * max(1, abs(mm)))
                ratio = cfg.ratio_s if kind == 0 else cfg.ratio_t
                low = fin[kind]
                want = np.isfinite(low) and np.isfinite(o.lab_mm[j]) and (
                    o.lab_mm[j] - low + 1e-9 * max(1, abs(o.best)) >= ratio * max(o.best - low, 1e-9 * max(1, abs(o.best))))
                want = want and (kind == 0 or s2.cand_prob[j] >= cfg.trace_prob)
                got = (c, p, lab) in kept3
                assert got == want or (training and got and lab in kept3[(c, p, lab)]), (s2.id, c, p, lab)
        pruned = pr.prune(g)
        off = s3.sp_off
        for w in range(s3.n):
            opts = set(s3.sp_id[off[w]:off[w + 1]].tolist())
            classifier = {inv.index[pr.spine.labels.items[int(x)]] for x in pruned.spines[w]}
            extra = opts - classifier
            assert not extra or (training and extra == {int(s3.gold_spine_id[w])}) or (
                not classifier and opts == {inv.index["_"]})
        assert s3.nsp[-1] == 1 and s3.sp_id[-1] == inv.root


def pooled_model(setting):
    """Pass 3's model with the negative pool: the positive bitmap (2^20 bits) of the
    setting's short train sentences."""
    model = P3.Pass3Model(setting["vocab"], setting["inv"], setting["cfg"])
    model.set_positive(model.positive_bitmap(setting["s3"][:setting["n_train"]], setting["tokens"], bits=20))
    return model


def test_hindex_equals_its_twin_and_pools_the_unseen_pairs():
    """The weight index of (key, label) equals the plain-Python twin with and without a
    positive bitmap; without one it is the pruners' ``windex``; with one, pairs whose bit
    is set stay among the 2^bits weights and the others land in the pool after them."""
    from plgraph.parser.scoring._pass2 import hash_kernel_args, hindex
    from plgraph.pruners._kernels import windex

    rng = np.random.default_rng(3)
    keys = rng.integers(1, 2**63, size=400, dtype=np.uint64)
    labels = rng.integers(0, 1500, size=400)
    plain = hash_kernel_args(12)
    positive = np.zeros(1 << 7, np.uint8)              # 1,024 bits, about half set
    positive[:] = rng.integers(0, 256, size=positive.size)
    pooled = hash_kernel_args(12, positive, 5)
    in_pool = 0
    for k, lab in zip(keys, labels):
        i, j = int(hindex(k, lab, plain)), int(hindex(k, lab, pooled))
        assert i == naive.hindex(k, lab, plain) == int(windex(k, lab, np.uint64(4095)))
        assert j == naive.hindex(k, lab, pooled)
        if j >= 4096:
            assert j < 4096 + 32
            in_pool += 1
        else:
            assert j == i
    assert 100 < in_pool < 300


def test_the_positive_bitmap_holds_every_gold_feature(setting):
    """With the pool, every feature of a train sentence's gold graph keeps a weight among
    the 2^bits, and some features of wrong graphs fall into the pool; the pool's size is
    a quarter of the positive pairs, rounded to a power of two."""
    model = pooled_model(setting)
    bits = model.config.bits
    assert model.n_weights == (1 << bits) + (1 << model.pool_bits)
    count = int(np.unpackbits(model.positive).sum())          # the slow way: every bit an array entry
    assert model.pool_bits == max(10, round(np.log2(0.25 * count)))
    pooled = 0
    for s in setting["s3"][:setting["n_train"]]:
        idx, _ = model.features(s, setting["tokens"], P2.gold_edges(s.gold), s.gold_spine_id, 1.0)
        assert (idx < (1 << bits)).all(), s.id
        wrong = [(c, (p + 1) % (s.n + 1), lab) for c, p, lab in P2.gold_edges(s.gold)]
        idx, _ = model.features(s, setting["tokens"], wrong, s.gold_spine_id, 1.0)
        pooled += int((idx >= (1 << bits)).sum())
    assert pooled > 0
    other = model.with_config(replace(model.config, trace_bias=-0.5, beam=10))
    assert other.positive is model.positive and other.hk is model.hk and other.n_weights == model.n_weights
    assert other.config.trace_bias == -0.5 and model.config.trace_bias == 0.0
    with pytest.raises(ValueError, match="bits"):
        model.with_config(replace(model.config, bits=bits + 1))


@pytest.mark.parametrize("pool", [False, True])
@pytest.mark.parametrize("augment", [False, True])
def test_exhaustive_decode_equals_brute_force(setting, augment, pool):
    """On sentences of 2-4 words, the exhaustive chart over pass 3's tables finds the
    brute-force optimum of every spined, labelled graph (tests/naive.py, scores computed
    there in plain Python), and its decode adds up; with and without the negative pool."""
    model = pooled_model(setting) if pool else P3.Pass3Model(setting["vocab"], setting["inv"], setting["cfg"])
    w = np.random.default_rng(7).normal(scale=0.5, size=model.n_weights)
    args = plain_read_args(w)
    tokens, rules = setting["tokens"], setting["rules"]
    start = setting["n_train"] + setting["n_dev"]
    checked = 0
    for s in setting["s3"][start:]:
        if s.gold is None or s.n > 4 or np.prod(s.nsp) > 32:
            continue
        d = model.decode(s, tokens, args, rules, augment=augment, beam=0, cube=0)
        S, T, sp = naive.pass3_scores(s, tokens, w, model.hashing, setting["vocab"], setting["inv"].identities)
        gold = (s.gold.s, s.gold.t, list(s.gold.spine)) if augment else None
        want = naive.NaiveGraphParser(s.n, rules).solve(S, T, sp, s.nsp, gold)
        assert d.result.score == pytest.approx(want.best, rel=1e-9, abs=1e-9), s.id
        assert not d.mismatch
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("pool", [False, True])
def test_every_decode_adds_up(setting, pool):
    """Beamed and exhaustive (up to 5 words), plain and loss-augmented: chart score =
    w.phi + loss, the loss is the definition's (edges and spines); a sentence whose gold
    graph is derivable and protected always parses, and exhaustive search never scores
    it above the prediction; with and without the negative pool."""
    model = pooled_model(setting) if pool else P3.Pass3Model(setting["vocab"], setting["inv"], setting["cfg"])
    w = np.random.default_rng(5).normal(scale=0.3, size=model.n_weights)
    args = plain_read_args(w)
    decodes = 0
    for s in setting["s3"][:setting["n_train"]]:
        reachable = s.gold_items is not None and (s.gold.spine >= 0).all()
        for beam, cube in ((100, 10000), (0, 0)):
            if beam == 0 and s.n > 5:
                continue
            for augment in (False, True):
                d = model.decode(s, setting["tokens"], args, setting["rules"], augment=augment, beam=beam, cube=cube)
                assert not d.mismatch, (s.id, beam, augment)
                assert d.result.parsed or not (reachable and (augment or beam == 0)), (s.id, beam, augment)
                decodes += int(d.result.parsed)
                if augment and d.result.parsed:
                    gold = (s.gold.s, s.gold.t, list(s.gold.spine))
                    assert d.loss == naive.hamming(d.result.edges, list(d.result.spines[:s.n]), gold)
                if beam == 0 and augment and reachable:
                    assert not d.search_error
    assert decodes >= 60


def test_training_lowers_the_loss_and_beats_zero_weights(setting):
    """Loss-augmented AdaGrad on 30 short sentences: the loss falls, no mismatches (and
    no failed parse beyond the sentences whose gold is out of reach); attachments and
    spines of the training sentences beat the zero-weight parser's (whose spines are the
    classifier's first choice).  (30 sentences say little about dev: the full run's dev
    figures are in docs/results.md.)"""
    from plgraph.parser.training.cascade import Prepared3, evaluate_pass3

    cfg = setting["cfg"]
    model = P3.Pass3Model(setting["vocab"], setting["inv"], cfg)
    tokens, rules = setting["tokens"], setting["rules"]
    train = setting["s3"][:setting["n_train"]]
    lrn = make_learner("adagrad", model.n_weights, eta=0.3, C=cfg.C, reg=cfg.reg)
    stats, losses = {}, []
    for epoch in range(1, 4):
        ep = run_epoch(lrn, len(train), lambda b: P3.batch_gradient(model, [train[i] for i in b], tokens, lrn,
                                                                     rules, stats=stats, threads=2),
                       batch_size=5, rng=np.random.default_rng(epoch), epoch=epoch, progress=False)
        losses.append(ep.loss)
    unreachable = sum(int(s.gold_items is None or (s.gold.spine < 0).any()) for s in train)
    assert stats["mismatches"] == 0 and stats["failed"] <= 3 * unreachable
    assert losses[-1] < 0.5 * losses[0], losses
    seen = Prepared3(train, tokens)
    final = plain_read_args(lrn.final_weights(np.float64))
    zero = plain_read_args(np.zeros(model.n_weights))
    ev = lambda args, corpus: evaluate_pass3(model, args, corpus, rules, fallback=False)  # noqa: E731
    fit, base = ev(final, seen), ev(zero, seen)
    assert fit["uas"] > base["uas"] and fit["spine_acc"] > base["spine_acc"], (fit, base)


def test_ratio_tuning_keeps_the_asked_fraction(setting):
    """The tuned ratio keeps at least the asked share of the gold structural edges pass 2
    can build (or is 0), counted here from the prepared pass-3 sentences' candidates;
    asking for more recall never raises the ratio."""
    from plgraph.parser.training.cascade import tune_ratios
    from plgraph.parser.training.corpus import PreparedCorpus

    lo, hi = setting["n_train"], setting["n_train"] + setting["n_dev"]
    corpus = PreparedCorpus(setting["s2"][lo:hi], setting["tokens"])
    outs = setting["p2"][lo:hi]
    got = []
    for recall in (0.8, 0.99):
        r = tune_ratios(outs, corpus, recall)
        cfg = replace(setting["cfg"], ratio_s=r["ratio_s"], ratio_t=r["ratio_t"])
        kept = gold = 0
        for g, s2, o in zip(setting["graphs"][lo:hi], corpus.sents, outs):
            s3 = P3.pass3_sentence(g, s2, o, setting["pr"].prune(g), setting["inv"], setting["vocab"],
                            setting["pr"].spine.labels.items, cfg, gold=True, protect_gold=False)
            cands = {(int(s3.pc[k]), int(s3.pp[k])): set(s3.cand_lab[s3.cand_off[k]:s3.cand_off[k + 1]].tolist())
                     for k in range(s3.pc.shape[0])}
            for c, p in zip(*np.nonzero(s3.gold.s >= 0)):
                gold += 1
                kept += int(int(s3.gold.s[c, p]) in cands.get((int(c), int(p)), ()))
        # the ratio stops at 0: labels below every pair's max-marginal stay lost
        assert gold == r["gold_s"] and (kept >= recall * r["reachable_s"] - 1e-9 or r["ratio_s"] == 0.0), (kept, r)
        got.append((r["ratio_s"], kept))
    assert got[0][0] >= got[1][0] and got[0][1] <= got[1][1]


def test_spine_top_check_keeps_spines_that_agree_with_pass_2(setting):
    """With the check a word keeps only spines whose top is the child node of a
    surviving structural label of one of its pairs (or all, if none agrees); without
    it, all of the classifier's.  The ``max_spines`` cap applies after the check, to
    the classifier's most probable first."""
    inv, pr, vocab = setting["inv"], setting["pr"], setting["vocab"]
    lo = setting["n_train"]
    on = setting["cfg"]
    off = replace(on, spine_top_check=False, max_spines=0)
    for g, s2, o in zip(setting["graphs"][lo:], setting["s2"][lo:], setting["p2"][lo:]):
        a = P3.pass3_sentence(g, s2, o, pr.prune(g), inv, vocab, pr.spine.labels.items, on)
        b = P3.pass3_sentence(g, s2, o, pr.prune(g), inv, vocab, pr.spine.labels.items, off)
        keep = o.kept(s2, on.ratio_s, on.ratio_t)
        for w in range(a.n):
            tops = {vocab.labels[int(s2.cand_lab[j])].child for j in range(s2.cand_lab.shape[0])
                    if keep[j] and s2.cand_kind[j] == 0 and s2.pc[np.searchsorted(s2.cand_off, j, "right") - 1] == w}
            oa = a.sp_id[a.sp_off[w]:a.sp_off[w + 1]].tolist()
            ob = b.sp_id[b.sp_off[w]:b.sp_off[w + 1]].tolist()
            agree = [x for x in ob if inv.top[x] in tops]
            want = agree or ob
            assert oa == (want[:on.max_spines] if on.max_spines else want)


def test_relaxed_preparation_keeps_every_buildable_label(setting):
    """The retry of a sentence pass 3 cannot parse: ratios 0 (every label pass 2 can
    build, but traces below ``trace_prob``) and up to RELAXED_SPINES spines a word, so
    its candidates contain the tuned preparation's and its spine options are at most that many (plus none added for gold:
    dev sentences are not protected)."""
    from plgraph.parser.training.cascade import Prepared3, relaxed_sentence

    inv, pr, vocab, cfg = setting["inv"], setting["pr"], setting["vocab"], setting["cfg"]
    relax = P3.relaxed(cfg)
    assert (relax.ratio_s, relax.ratio_t, relax.max_spines) == (0.0, 0.0, P3.RELAXED_SPINES)
    lo, hi = setting["n_train"], setting["n_train"] + setting["n_dev"]
    sources = [(g, s2, o, pr.prune(g)) for g, s2, o in zip(setting["graphs"][lo:hi], setting["s2"][lo:hi],
                                                            setting["p2"][lo:hi])]
    corpus = Prepared3(setting["s3"][lo:hi], setting["tokens"], [], sources, (inv, vocab, pr.spine.labels.items, cfg))
    assert relaxed_sentence(Prepared3(corpus.sents, corpus.tokens), 0) is None
    grew = 0
    for i, s in enumerate(corpus.sents):
        r = relaxed_sentence(corpus, i)
        labels = lambda x: {(int(x.pc[k]), int(x.pp[k]), int(l))  # noqa: E731
                            for k in range(x.pc.shape[0]) for l in x.cand_lab[x.cand_off[k]:x.cand_off[k + 1]]}
        assert labels(s) <= labels(r)
        grew += len(labels(r)) > len(labels(s))
        s2 = setting["s2"][lo + i]          # every label pass 2 can build but traces below trace_prob
        buildable = np.isfinite(setting["p2"][lo + i].lab_mm) & ((s2.cand_kind == 0) | (s2.cand_prob >= cfg.trace_prob))
        assert len(labels(r)) == int(buildable.sum())
        assert (np.diff(r.sp_off)[:-1] <= P3.RELAXED_SPINES).all()
    assert grew > 0


def test_trace_bias_moves_the_decision_and_the_decode_still_adds_up(setting):
    """``trace_bias`` is added to every trace edge's score in plain decodes: the chart's
    score is still w.phi plus the bias of the predicted trace edges (no mismatch); in
    exhaustive search the number of trace edges never falls as the bias rises, a bias of
    -1000 leaves none and +1000 gives at least as many as 0; loss-augmented (training)
    decodes ignore it."""
    cfg, vocab, inv = setting["cfg"], setting["vocab"], setting["inv"]
    tokens, rules = setting["tokens"], setting["rules"]
    w = np.random.default_rng(11).normal(scale=0.3, size=P3.Pass3Model(vocab, inv, cfg).n_weights)
    args = plain_read_args(w)
    counts = {}
    for s in setting["s3"]:
        if s.n > 6:
            continue
        row = []
        for bias in (-1000.0, -0.5, 0.0, 0.5, 1000.0):
            m = P3.Pass3Model(vocab, inv, replace(cfg, trace_bias=bias))
            d = m.decode(s, tokens, args, rules, beam=0, cube=0)
            assert not d.mismatch, (s.id, bias)
            if not d.result.parsed:
                break
            traces = sum(1 for (_c, _p, kind) in d.result.edges if kind == "T")
            plain = m.score_of(s, tokens, args, [(c, p, lab) for (c, p, _k), lab in d.result.edges.items()], d.spines)
            assert d.result.score == pytest.approx(plain + bias * traces, rel=1e-9, abs=1e-9)
            row.append(traces)
            if s.gold is not None:
                a = m.decode(s, tokens, args, rules, augment=True, beam=0, cube=0)
                b = P3.Pass3Model(vocab, inv, replace(cfg, trace_bias=0.0)).decode(s, tokens, args, rules,
                                                                                    augment=True, beam=0, cube=0)
                assert a.result.score == b.result.score and not a.mismatch
        else:
            assert row == sorted(row) and row[0] == 0, (s.id, row)
            counts[s.id] = row
    assert len(counts) >= 5 and any(r[-1] > r[0] for r in counts.values())


def test_trace_bias_tuning_picks_the_best_trace_f1(setting):
    """The tuned bias is the grid's best unlabelled trace F1 (nearest 0 on ties), or with
    a precision floor the best recall among the points reaching it (the best F when none
    does), and each curve row is evaluate_pass3's at that bias."""
    from plgraph.parser.training.cascade import Prepared3, evaluate_pass3, tune_trace_bias

    vocab, inv, pr = setting["vocab"], setting["inv"], setting["pr"]
    tokens, rules = setting["tokens"], setting["rules"]
    cfg = replace(setting["cfg"], trace_prob=0.0)       # every trace the classifier keeps: a curve with some width
    model = P3.Pass3Model(vocab, inv, cfg)
    w = np.random.default_rng(3).normal(scale=0.3, size=model.n_weights)
    args = plain_read_args(w)
    lo = setting["n_train"]
    corpus = Prepared3([P3.pass3_sentence(g, s2, o, pr.prune(g), inv, vocab, pr.spine.labels.items, cfg, gold=True,
                                   protect_gold=False, rules=rules)
                        for g, s2, o in zip(setting["graphs"][lo:], setting["s2"][lo:], setting["p2"][lo:])], tokens)
    grid = (0.0, -0.5, 0.5, 2.0)
    bias, curve = tune_trace_bias(model, args, corpus, rules, grid=grid, threads=1)
    assert [r["trace_bias"] for r in curve] == list(grid)
    for r in curve:
        want = evaluate_pass3(P3.Pass3Model(vocab, inv, replace(cfg, trace_bias=r["trace_bias"])), args, corpus,
                              rules, threads=1)
        assert (r["trace_p"], r["trace_r"], r["uas"]) == (want["trace_p"], want["trace_r"], want["uas"])
        p, rec = want["trace_p"], want["trace_r"]
        assert r["trace_f"] == pytest.approx(2 * p * rec / (p + rec) if p + rec else 0.0, abs=0.006)
    top = max(r["trace_f"] for r in curve)
    assert bias == min((r["trace_bias"] for r in curve if r["trace_f"] == top), key=abs)
    # with a precision floor: the best recall among the points that reach it; none does: the best F
    floor = sorted(r["trace_p"] for r in curve)[1]
    assert len({r["trace_p"] for r in curve}) > 1, curve
    precise = [r for r in curve if r["trace_p"] >= floor]
    best_r = max(r["trace_r"] for r in precise)
    got, again = tune_trace_bias(model, args, corpus, rules, grid=grid, threads=1, min_precision=floor)
    assert again == curve
    assert got == min((r["trace_bias"] for r in precise if r["trace_r"] == best_r), key=abs)
    assert tune_trace_bias(model, args, corpus, rules, grid=grid, threads=1, min_precision=100.5)[0] == bias


def test_attachment_node_las_counts_the_parent_node_only(setting):
    """``evaluate_pass3`` on outputs that are the gold graph with every structural label
    swapped for another one of the same parent node (another sibling or child node):
    UAS and the attachment-node LAS are 100, the whole-label LAS counts only the words
    left without such a swap; spines and traces as gold."""
    from types import SimpleNamespace

    from plgraph.parser.training.cascade import Prepared3, evaluate_pass3

    vocab, inv = setting["vocab"], setting["inv"]
    same_parent = {}
    for i, lab in enumerate(vocab.labels):
        if lab.kind == 0:
            same_parent.setdefault(lab.parent, []).append(i)
    sents = [s for s in setting["s3"] if s.gold is not None]
    outputs, words, kept_label = {}, 0, 0
    for s in sents:
        edges = {}
        for c, p, lab in P2.gold_edges(s.gold):
            kind = "S" if s.gold.s[c, p] == lab else "T"
            if kind == "S":
                words += 1
                other = [x for x in same_parent[vocab.labels[lab].parent] if x != lab]
                kept_label += not other
                lab = other[0] if other else lab
            edges[(c, p, kind)] = lab
        outputs[s.id] = SimpleNamespace(result=SimpleNamespace(parsed=True, kept=np.zeros((s.N, s.N)), edges=edges),
                                        spines=s.gold_spine_id.copy(), search_error=False)

    class Replay:
        """Decodes into the prepared outputs."""
        vocab = setting["vocab"]

        def decode(self, s, *_args, **_kw):
            return outputs[s.id]

    assert words == sum(s.n for s in sents)          # every word has one gold structural edge
    r = evaluate_pass3(Replay(), None, Prepared3(sents, setting["tokens"]), threads=1)
    assert r["uas"] == 100.0 and r["las_node"] == 100.0
    assert r["las"] == round(100.0 * kept_label / words, 2) < 100.0
    assert any((s.gold.t >= 0).any() for s in sents)
    assert r["trace_p"] == r["trace_r"] == r["trace_labelled_p"] == 100.0
    known = sum(int((s.gold_spine_id >= 0).sum()) for s in sents)      # a spine unseen in train is never right
    assert r["spine_acc"] == round(100.0 * known / words, 2)


def test_trace_prob_keeps_the_traces_the_classifier_believes(setting):
    """``Pass2Sentence.cand_prob`` is the trace classifier's probability of each trace
    candidate's (pair, trace type), read here straight from the pruned sentence (1 for
    structural labels, 0 for a gold trace only gold protection added); with
    ``Pass3Config.trace_prob`` pass 3 drops exactly the trace labels below it --
    structural labels and spine options unchanged -- but for the gold traces of training
    sentences (gold protection adds them back); a probability outside [0, 1] is
    refused."""
    cfg, inv, pr, vocab = setting["cfg"], setting["inv"], setting["pr"], setting["vocab"]
    types = pr.trace.labels.index

    def labels(x):
        return {(int(x.pc[k]), int(x.pp[k]), int(lab))
                for k in range(x.pc.shape[0]) for lab in x.cand_lab[x.cand_off[k]:x.cand_off[k + 1]]}

    probs = [p for s2 in setting["s2"] for p, k in zip(s2.cand_prob, s2.cand_kind) if k == 1]
    assert len(probs) > 20
    tau = float(np.median(probs))
    dropped = kept = gold_traces = 0
    for i, (g, s2, o) in enumerate(zip(setting["graphs"], setting["s2"], setting["p2"])):
        pruned = pr.prune(g)
        said = {(int(c) - 1, int(p) - 1, int(t)): float(q) for (c, p, t), q in zip(pruned.traces, pruned.trace_prob)}
        for k in range(s2.pc.shape[0]):
            c, p = int(s2.pc[k]), int(s2.pp[k])
            for j in range(s2.cand_off[k], s2.cand_off[k + 1]):
                lab = vocab.labels[int(s2.cand_lab[j])]
                want = 1.0 if lab.kind == 0 else said.get((c, p, types.get(lab.trace, -1)), 0.0)
                assert s2.cand_prob[j] == want, (s2.id, c, p, lab)
        training = i < setting["n_train"]
        prob = {(int(s2.pc[k]), int(s2.pp[k]), int(s2.cand_lab[j])): float(s2.cand_prob[j])
                for k in range(s2.pc.shape[0]) for j in range(s2.cand_off[k], s2.cand_off[k + 1])}
        args = (g, s2, o, pruned, inv, vocab, pr.spine.labels.items)
        kw = dict(gold=True, protect_gold=training)
        base = P3.pass3_sentence(*args, replace(cfg, trace_prob=0.0), **kw)
        tight = P3.pass3_sentence(*args, replace(cfg, trace_prob=tau), **kw)
        gold = {(c, p, int(base.gold.t[c, p])) for c, p, _ in labels(base) if base.gold.t[c, p] >= 0} if training \
            else set()
        want = {e for e in labels(base) if vocab.kind[e[2]] == 0 or prob.get(e, 0.0) >= tau or e in gold}
        assert labels(tight) == want, s2.id
        if training:
            gold_traces += len(gold)
            continue
        assert np.array_equal(tight.sp_id, base.sp_id) and np.array_equal(tight.sp_off, base.sp_off)
        dropped += len(labels(base)) - len(want)
        kept += sum(1 for e in want if vocab.kind[e[2]] == 1)
        top = P3.pass3_sentence(*args, replace(cfg, trace_prob=1.0), **kw)
        assert labels(top) == {e for e in labels(base) if vocab.kind[e[2]] == 0 or prob[e] >= 1.0}
    assert dropped > 0 and kept > 0 and gold_traces > 0
    with pytest.raises(ValueError, match="trace_prob 1.5: expected a probability"):
        replace(cfg, trace_prob=1.5)
    with pytest.raises(ValueError, match="trace_precision 101: expected a percentage"):
        replace(cfg, trace_precision=101.0)
