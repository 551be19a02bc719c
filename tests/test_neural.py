"""The neural scorer (plgraph.parser.scoring.neural, the extra ``plgraph[neural]``): the network's pieces
against hand-computed values, a gradient check of the local losses, the chart's tables
against a plain-Python twin and decodes against brute force, pruning, the model folder,
resuming, and a tiny model that learns 20 sentences."""
from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the neural scorer needs PyTorch: pip install 'plgraph[neural]'")

import naive  # noqa: E402
from killed_replacement import replace_killed_after  # noqa: E402
from plgraph.errors import InputError, ModelFileError  # noqa: E402
from plgraph.parser.scoring.neural import prune as PR  # noqa: E402
from plgraph.parser.scoring.neural.data import LabelMaps, Vocab, Vocabularies, targets, word_form  # noqa: E402
from plgraph.parser.scoring.neural.network import Biaffine, GraphScorer, NetworkConfig, load_embeddings  # noqa: E402

TINY = NetworkConfig(word_dim=8, char_dim=4, char_hidden=6, tag_dim=4, lstm_hidden=8, lstm_layers=1, arc_mlp=8,
                     label_mlp=6, trace_mlp=6, spine_mlp=6, dropout=0.0, tag_dropout=0.0)


@pytest.fixture(scope="module")
def base(parser_base):
    from plgraph.parser.scoring.pass3 import SpineInventory

    train, vocab = parser_base["train"], parser_base["vocab"]
    vocabs = Vocabularies.from_graphs(train)
    maps = LabelMaps(vocab)
    return dict(parser_base, vocabs=vocabs, maps=maps, inv=SpineInventory(vocabs.spines, vocab),
                spine_index={s: i for i, s in enumerate(vocabs.spines)})


def tiny_net(base, config=TINY, seed=0):
    torch.manual_seed(seed)
    v, m = base["vocabs"], base["maps"]
    net = GraphScorer(config, len(v.words), len(v.chars), len(v.tags), m.structural.shape[0], m.trace.shape[0],
                      len(v.spines))
    for p in net.parameters():          # zero-initialised biaffines would give flat scores
        torch.nn.init.normal_(p, std=0.5)
    return net.eval()


# -- data --------------------------------------------------------------------------------------------
def test_word_form_and_vocab():
    assert word_form("Sept.") == "sept."
    assert word_form("1,234.5") == "0,000.0"
    v = Vocab.counted(["b", "a", "b", "c", "a", "b"], min_count=2)
    assert v.items == ["<pad>", "<unk>", "b", "a"]
    assert v.index("c") == 1 and v.index("b") == 2
    assert v.indices(["a", "zzz"]).tolist() == [3, 1]


def test_targets_of_a_real_sentence(base):
    """wsj_0001.0's first words, read off the tree by hand: "Pierre Vinken , 61 years old ,
    will join the board ..." -- Vinken heads Pierre; "join" heads "will"; "join"'s
    head chain reaches ROOT; the sentence has no trace pair."""
    g = next(g for g in base["train"] if g.id == "wsj_0001.0")
    t = targets(g, base["vocab"], base["maps"], base["spine_index"])
    n = len(g)
    assert t.heads[0] == 1                                        # Pierre -> Vinken
    join, will = g.words.index("join"), g.words.index("will")
    assert t.heads[will] == join
    root_children = np.flatnonzero(t.heads == n)
    assert root_children.tolist() == [join]                       # "join" heads the sentence
    assert (t.labels >= 0).all() and (t.spines >= 0).all()
    assert t.trace_c.size == 0
    lab = base["vocab"].labels[int(base["maps"].structural[t.labels[0]])]
    assert (lab.parent, lab.child) == ("NP_0", "_")               # Pierre attaches to Vinken's NP


def test_targets_with_traces(base):
    """Every sentence's trace pairs are gold_graph's, typed by trace classes."""
    from plgraph.parser.scoring.pass2 import gold_graph

    seen = 0
    for g in base["train"][:300]:
        t = targets(g, base["vocab"], base["maps"], base["spine_index"])
        G, _ = gold_graph(g, base["vocab"])
        assert {(int(c), int(p)) for c, p in zip(t.trace_c, t.trace_p)} == set(zip(*np.nonzero(G.t >= 0)))
        for c, p, k in zip(t.trace_c, t.trace_p, t.trace_lab):
            assert base["maps"].trace[k] == G.t[c, p]
        seen += t.trace_c.size
    assert seen > 50


# -- the network's pieces against hand-computed values -------------------------------------------------
def test_biaffine_by_hand():
    b = Biaffine(2)
    with torch.no_grad():
        b.weight.copy_(torch.tensor([[1.0, 2.0], [0.0, -1.0], [3.0, 0.5]]))    # rows: a_1, a_2, bias
    a = torch.tensor([[[1.0, 0.0], [0.0, 2.0]]])
    h = torch.tensor([[[1.0, 1.0], [2.0, -1.0]]])
    s = b(a, h)[0]
    # s[x, y] = [a_x, 1] W h_y: x=0: [1, 0, 1] W = [4, 2.5]; x=1: [0, 2, 1] W = [3, -1.5]
    want = torch.tensor([[4 + 2.5, 8 - 2.5], [3 - 1.5, 6 + 1.5]])
    assert torch.allclose(s, want)


def test_label_logits_by_hand(base):
    """A pair's label logits are W . LeakyReLU(c_x + p_y) + w."""
    net = tiny_net(base)
    L = net.lab_out.out_features
    enc = type("E", (), {})()
    enc.lab_c = torch.tensor([[[1.0, -2.0, 0.0, 0.5, 0.0, 0.0], [0.0] * 6]])
    enc.lab_p = torch.tensor([[[0.0] * 6, [0.5, 1.0, -1.0, 0.0, 0.0, 2.0]]])
    with torch.no_grad():
        net.lab_out.weight.zero_()
        net.lab_out.bias.zero_()
        net.lab_out.weight[0, :] = torch.tensor([1.0, 1.0, 1.0, 1.0, 1.0, 1.0])
        net.lab_out.bias[1] = 0.25
    with torch.no_grad():
        z = net.label_logits(enc, torch.tensor([0]), torch.tensor([0]), torch.tensor([1]))[0]
    # c + p = [1.5, -1, -1, 0.5, 0, 2]; LeakyReLU(0.1) = [1.5, -0.1, -0.1, 0.5, 0, 2]: sum 3.8
    assert z.shape == (L,)
    assert float(z[0]) == pytest.approx(3.8)
    assert float(z[1]) == pytest.approx(0.25)
    assert float(z[2:].abs().max()) == 0.0


def test_char_encoding_ignores_padding(base):
    """A word's character vector does not depend on the other words' lengths (packed)."""
    from plgraph.parser.scoring.neural.batches import make_batch

    net = tiny_net(base)

    class S:
        def __init__(self, words):
            self.words, self.tags = words, ["NN"] * len(words)

    one = make_batch([S(["cat"])], base["vocabs"])
    two = make_batch([S(["cat"]), S(["extraordinarily", "long"])], base["vocabs"])
    with torch.no_grad():
        a = net.char(one.chars)[0, 1]
        b = net.char(two.chars)[0, 1]
    assert torch.allclose(a, b, atol=1e-6)


def test_gradient_check_of_the_local_losses(base):
    """torch.autograd.gradcheck of the summed local losses in float64 with respect to a
    parameter of each scorer: the head and trace biaffines, and the first layer's bias
    of the label, trace-type and spine MLPs."""
    from plgraph.parser.scoring.neural.batches import gold_batch, make_batch

    net = tiny_net(base).double()
    short = [targets(g, base["vocab"], base["maps"], base["spine_index"]) for g in base["train"] if 4 <= len(g) <= 12]
    ts = [t for t in short if t.trace_c.size][:2] + [t for t in short if not t.trace_c.size][:1]
    batch, gold = make_batch(ts, base["vocabs"]), gold_batch(ts)
    gold.trace = gold.trace.double()
    owners = [(net.arc, "weight"), (net.trace, "weight"), (net.lab_dep.linear, "bias"),
              (net.tlab_dep.linear, "bias"), (net.spine[0].linear, "bias")]
    inputs = []
    for module, name in owners:
        inputs.append(getattr(module, name).detach().clone().requires_grad_(True))
        delattr(module, name)                    # plain tensors in their place: gradcheck's inputs

    def loss(*values):
        for (module, name), v in zip(owners, values):
            setattr(module, name, v)
        return net.loss(batch, gold)[0]

    assert torch.autograd.gradcheck(loss, tuple(inputs), eps=1e-6, atol=1e-5)


def test_local_losses_by_hand(base):
    """The arc loss is the mean cross-entropy of the gold heads: recomputed from the
    biaffine's scores with numpy."""
    from plgraph.parser.scoring.neural.batches import gold_batch, make_batch

    net = tiny_net(base)
    g = next(g for g in base["train"] if len(g) == 6)
    t = targets(g, base["vocab"], base["maps"], base["spine_index"])
    batch, gold = make_batch([t], base["vocabs"]), gold_batch([t])
    with torch.no_grad():
        _, parts = net.loss(batch, gold)
        s = net.encode(batch).s_arc[0].numpy().astype(np.float64)
    n = t.n
    want = 0.0
    for w in range(n):
        row = s[w + 1, :n + 1]                                      # candidates: ROOT and the words
        head = 0 if t.heads[w] == n else t.heads[w] + 1
        want += -(row[head] - (row.max() + math.log(np.exp(row - row.max()).sum())))
    assert parts["arc"] == pytest.approx(want / n, rel=1e-5)


# -- pruning ------------------------------------------------------------------------------------------
def test_top_keeps_the_ratio_and_the_cap():
    v = np.log(np.array([0.5, 0.3, 0.001, 0.199]))
    assert PR._top(v, 0.1, 10).tolist() == [0, 1, 3]               # 0.001 < 0.1 x 0.5
    assert PR._top(v, 0.1, 2).tolist() == [0, 1]
    assert PR._top(v, 0.0, 10).tolist() == [0, 1, 3, 2]


def test_head_and_trace_pairs_by_hand():
    arc = np.log(np.array([[0.0 + 1e-300, 0.7, 0.3],             # word 0: heads 1 (0.7) and ROOT (0.3)
                           [0.98, 1e-300, 0.02]]))                   # word 1: head 0; ROOT 0.02 < 0.05 x 0.98
    trace = np.array([[0.0, 3.0], [-3.0, 0.0]])                    # sigmoid 0.95 and 0.047
    sc = PR.SentenceScores(arc, trace, np.zeros((2, 1)))
    cfg = PR.PruneConfig(head_ratio=0.05, trace_min=0.05)
    c, p = PR.head_pairs(sc, cfg)
    assert list(zip(c.tolist(), p.tolist())) == [(0, 1), (0, 2), (1, 0)]
    c, p = PR.trace_pairs(sc, cfg)
    assert list(zip(c.tolist(), p.tolist())) == [(0, 1)]
    with pytest.raises(InputError, match="head_ratio"):
        PR.PruneConfig(head_ratio=2.0)


def neural_sentences(base, net, graphs, config):
    from plgraph.parser.scoring.neural.scorer import NeuralScorer

    parser = NeuralScorer(net, base["vocab"], base["rules"], base["vocabs"], config)
    out = []
    for g in graphs:
        sc, lp = parser.scores(g.words, g.tags)
        s_pairs, t_pairs = PR.head_pairs(sc, config), PR.trace_pairs(sc, config)
        out.append(PR.candidate_sentence(sc, s_pairs, lp(*s_pairs), t_pairs, lp(*t_pairs, True), base["maps"],
                                         base["inv"], config))
    return parser, out


def test_tables_equal_the_twin_and_the_dense_tables(base):
    """The chart's tables of the neural candidates (kernel) hold, per pair and spine pair,
    the best allowed label of each kind of the plain-Python twin's dense scores, and
    equal :func:`~plgraph.parser.chart.tables.dense_tables` of those scores."""
    from plgraph.parser.chart.tables import dense_tables

    net = tiny_net(base)
    graphs = [g for g in base["dev"] if 3 <= len(g) <= 9][:8]
    cfg = PR.PruneConfig(head_ratio=0.0, max_heads=5, label_ratio=0.0, max_labels=40, trace_min=0.2,
                         spine_ratio=0.0, max_spines=4, spine_top_check=True)
    _, sents = neural_sentences(base, net, graphs, cfg)
    rng = np.random.default_rng(3)
    sents += [synthetic_sentence(base, g, rng, cfg) for g in graphs]      # realistic: gold favoured
    checked = 0
    for s in sents:
        got = PR.chart_tables(s, base["inv"])
        S, T, sp = naive.given_scores(s, base["vocab"], base["inv"].identities)
        want = dense_tables(S, T, sp, s.nsp)
        for c in range(s.N):
            for p in range(s.N):
                for i in range(int(s.nsp[c])):
                    for j in range(int(s.nsp[p])):
                        e, f = got.flat_index(c, p, i, j), want.flat_index(c, p, i, j)
                        gs = got.s_best[e] if e >= 0 else -np.inf
                        ws = want.s_best[f] if f >= 0 else -np.inf
                        gt = got.t_best[e] if e >= 0 else -np.inf
                        wt = want.t_best[f] if f >= 0 else -np.inf
                        assert gs == pytest.approx(ws) and gt == pytest.approx(wt), (s.n, c, p, i, j)
                        if np.isfinite(ws):
                            assert got.s_lab[e] == want.s_lab[f]
                            checked += 1
        assert np.allclose(got.sp_score, want.sp_score)
    assert checked >= 200


def synthetic_sentence(base, g, rng, config):
    """A :class:`NeuralSentence` of graph ``g`` from random log-scores that favour its
    gold heads, labels, traces and spines (so that it parses)."""
    t = targets(g, base["vocab"], base["maps"], base["spine_index"])
    n, m = t.n, base["maps"]
    logsm = lambda x: x - np.log(np.exp(x).sum(-1, keepdims=True))  # noqa: E731
    arc = rng.normal(size=(n, n + 1))
    arc[np.arange(n), t.heads] += 3.0
    trace = rng.normal(size=(n, n)) - 1.0
    trace[t.trace_c, t.trace_p] += 4.0
    spine = rng.normal(size=(n, len(base["vocabs"].spines)))
    spine[np.arange(n), np.maximum(t.spines, 0)] += 4.0
    sc = PR.SentenceScores(logsm(arc), trace, logsm(spine))
    s_pairs, t_pairs = PR.head_pairs(sc, config), PR.trace_pairs(sc, config)

    def labels(pairs, n_lab, gold):
        x = rng.normal(size=(pairs[0].shape[0], n_lab))
        for k, (c, p) in enumerate(zip(*pairs)):
            if gold.get((int(c), int(p)), -1) >= 0:
                x[k, gold[(int(c), int(p))]] += 4.0
        return logsm(x)

    s_gold = {(w, int(t.heads[w])): int(t.labels[w]) for w in range(n)}
    t_gold = {(int(c), int(p)): int(k) for c, p, k in zip(t.trace_c, t.trace_p, t.trace_lab)}
    return PR.candidate_sentence(sc, s_pairs, labels(s_pairs, m.structural.shape[0], s_gold), t_pairs,
                                 labels(t_pairs, m.trace.shape[0], t_gold), m, base["inv"], config)


def test_exhaustive_decodes_equal_brute_force(base):
    """On sentences of up to 4 words the chart over the neural tables (exhaustive: beam
    and cube 0) finds the best graph the brute-force twin finds over every labelled 1EC
    graph of the twin's dense scores; with beam 100 and cube 10,000 too."""
    from plgraph.parser.chart.run import parse_chart

    rng = np.random.default_rng(7)
    graphs = [g for g in base["train"] + base["dev"] if 2 <= len(g) <= 4][:12]
    cfg = PR.PruneConfig(head_ratio=0.0, max_heads=3, label_ratio=0.0, max_labels=3, trace_min=0.3,
                         spine_ratio=0.0, max_spines=2, spine_top_check=False)
    parsed = 0
    for g in graphs:
        s = synthetic_sentence(base, g, rng, cfg)
        tables = PR.chart_tables(s, base["inv"])
        S, T, sp = naive.given_scores(s, base["vocab"], base["inv"].identities)
        want = naive.NaiveGraphParser(s.n, base["rules"]).solve(S, T, sp, s.nsp)
        for beam, cube in ((0, 0), (100, 10000)):
            res = parse_chart(tables, base["rules"], beam=beam, cube=cube)
            if np.isfinite(want.best):
                assert res.score == pytest.approx(want.best, abs=1e-9), g.id
            else:
                assert not res.parsed, g.id
        parsed += np.isfinite(want.best)
    assert parsed >= 6


# -- embeddings -------------------------------------------------------------------------------------
def test_load_embeddings(tmp_path):
    f = tmp_path / "vec.txt"
    f.write_text("3 2\nThe 1 2\ncat 3 4\n1999 5 6\n", encoding="utf-8")
    vec, words = load_embeddings(f, {"the", "0000"})
    assert words == ["the", "0000"] and vec.tolist() == [[1, 2], [5, 6]]
    f.write_text("the 1 2\ncat 3\n", encoding="utf-8")
    with pytest.raises(InputError, match="vec.txt:2: expected a word and 2 values"):
        load_embeddings(f, None)
    f.write_text("the 1 x\n", encoding="utf-8")
    with pytest.raises(InputError, match="not a number"):
        load_embeddings(f, None)


# -- training, the folder, resuming, a tiny model that learns ------------------------------------------
SMALL = dict(word_dim=32, char_dim=16, char_hidden=32, tag_dim=16, lstm_hidden=64, lstm_layers=2, arc_mlp=64,
             label_mlp=64, trace_mlp=32, spine_mlp=64, dropout=0.0, tag_dropout=0.0)


@pytest.fixture(scope="module")
def learnt(tmp_path_factory, small_ptb):
    """A small network that tags sentences itself (``predict_tags``, no tag input),
    trained on the first 20 train sentences of at most 12 words (the last epoch's
    weights: it is to learn them)."""
    from plgraph.parser.scoring.neural.config import NeuralTrainConfig
    from plgraph.parser.scoring.neural.train import train_neural

    out = tmp_path_factory.mktemp("neural") / "m"
    net = NetworkConfig(**SMALL, use_tags=False, predict_tags=True)
    train_neural(NeuralTrainConfig(str(out), network=net, ptb=small_ptb, limit=20, max_words=12, epochs=60,
                                   patience=60, lr=5e-3, batch_words=40, seed=1, threads=1, tune=False, keep="last", progress=False),
                 log=lambda s: None, warn=lambda s: None)
    return out


def test_given_score_tables_refuses_arrays_that_do_not_fit(base):
    """The chart's public entry for per-candidate scores checks what its kernel cannot
    (it reads no bounds): a wrong score count, a pair outside the sentence, a label
    outside the spine-label tables, block offsets that do not fit."""
    from plgraph.parser.chart.tables import given_score_tables
    from plgraph.parser.scoring._pass2 import Candidates
    from plgraph.parser.scoring._pass3 import SpineTables

    inv = base["inv"]
    nsp = np.array([2, 1, 1])                                    # points 0, 1 and the root
    sp_off = np.array([0, 2, 3, 4])
    sp_id = np.array([0, 1, 0, 0])
    cands = Candidates(np.array([0, 1]), np.array([2, 0]), np.array([0, 2, 3]), np.array([0, 1, 0]),
                       np.array([0, 0, 1]))
    spines = SpineTables(np.array([0, 2, 4]), sp_off, sp_id, inv.ok_c, inv.ok_p)
    ok = given_score_tables(cands, spines, np.array([-1.0, -2.0, -3.0]), nsp, np.zeros(4))
    assert ok.N == 3 and ok.pair_off[0, 2] == 0 and ok.pair_off[1, 0] == 2 and ok.pair_off[2, 0] == -1
    bad = [((cands, spines, np.zeros(2), nsp, np.zeros(4)), "3 candidates but 2 scores"),
           ((cands._replace(pp=np.array([3, 0])), spines, np.zeros(3), nsp, np.zeros(4)), "outside the 3 points"),
           ((cands._replace(cand_lab=np.array([0, 10 ** 6, 0])), spines, np.zeros(3), nsp, np.zeros(4)),
            "candidate label outside"),
           ((cands, spines._replace(blk_off=np.array([0, 1, 2])), np.zeros(3), nsp, np.zeros(4)), "block offsets"),
           ((cands, spines, np.zeros(3), nsp, np.zeros(3)), "4 spine options but 3 spine scores")]
    for args, message in bad:
        with pytest.raises(ValueError, match=message):
            given_score_tables(*args)


def test_a_tiny_model_learns_20_sentences(learnt):
    """Parsed back through the chart, the 20 training sentences come out (nearly) as
    their gold trees: evalb F1 >= 95 on them, with the gold tags and with the network's
    own (tagging accuracy >= 95 on them, counted from the tags each sentence was parsed
    with); the folder has no separate tagger and the parser loads none."""
    from plgraph.corpora import Corpus
    from plgraph.parser import Parser
    from plgraph.parser.analysis.evaluate import evaluate_split, headline

    parser = Parser.load(learnt, scorer="neural")
    assert parser.own_tags and parser.tagger is None and not (learnt / "tagger.json").exists()
    sents = [s for s in Corpus("train", None).sentences() if len(s.graph) <= 12][:20]
    doc, results = evaluate_split(parser, sents, ceiling=False)
    assert headline(doc)["evalb_f1"] >= 95.0
    assert doc["statuses"]["fallback"] == 0 and "tagging_accuracy" not in doc
    own, own_results = evaluate_split(parser, sents, predicted_tags=True, ceiling=False)
    gold_tags = [t for s in sents for t in s.graph.tags]
    used = [t for r in own_results for t in r.tags]
    agree = sum(a == b for a, b in zip(used, gold_tags))
    assert own["tagging_accuracy"] == round(100.0 * agree / len(gold_tags), 2) >= 95.0
    assert headline(own)["evalb_f1"] >= 95.0
    first = sents[0].graph.words
    assert [r.tags for r in own_results[:1]] == [parser.tag(first)] == [parser.scorer.tag(first)]


def test_resume_continues_bit_for_bit(tmp_path, small_ptb):
    """2 epochs, then --resume to 3 == 3 epochs straight (parameters of the checkpoint),
    with pretrained vectors (word2vec text) read from a file; the model parses."""
    from plgraph.parser.scoring.neural.folder import NeuralFolder
    from plgraph.parser import Parser
    from plgraph.parser.scoring.neural.config import NeuralTrainConfig
    from plgraph.parser.scoring.neural.train import train_neural

    vec = tmp_path / "vectors.txt"
    rng = np.random.default_rng(0)
    vec.write_text("4 3\n" + "".join(f"{w} " + " ".join(f"{x:.3f}" for x in rng.normal(size=3)) + "\n"
                                     for w in ("the", "of", "Vinken", "1999")), encoding="utf-8")

    def run(path, epochs, resume=False):
        train_neural(NeuralTrainConfig(str(path), network=TINY, ptb=small_ptb, limit=8, max_words=10, epochs=epochs,
                                       seed=2, threads=1, tune=False, resume=resume, embeddings=str(vec),
                                       progress=False),
                     log=lambda s: None, warn=lambda s: None)

    run(tmp_path / "a", 3)
    run(tmp_path / "b", 2)
    run(tmp_path / "b", 3, resume=True)
    a, sa = NeuralFolder.open(tmp_path / "a").load_checkpoint()
    b, sb = NeuralFolder.open(tmp_path / "b").load_checkpoint()
    assert sa["epoch"] == sb["epoch"] == 3
    for k in a:
        assert np.array_equal(a[k], b[k]), k
    assert [r["dev_score"] for r in sa["curves"]] == [r["dev_score"] for r in sb["curves"]]
    parser = Parser.load(tmp_path / "a", scorer="neural")
    assert parser.scorer.pretrained_index == {"the": 2, "of": 3, "vinken": 4, "0000": 5}
    assert float(np.std(parser.scorer.net.pretrained.weight[2:].numpy())) == pytest.approx(1.0, abs=1e-5)
    r = parser.parse_result(["The", "board", "met", "."], ["DT", "NN", "VBD", "."])
    assert r.status in ("parsed", "relaxed", "pass1", "fallback") and len(r.graph.words) == 4


def test_a_network_that_reads_tags_cannot_predict_them_and_the_linear_scorer_tags_nothing():
    from plgraph.errors import InputError
    from plgraph.parser.scoring.linear import LinearScorer

    with pytest.raises(InputError, match="cannot also predict them"):
        NetworkConfig(predict_tags=True)
    assert NetworkConfig(predict_tags=True, use_tags=False).predict_tags
    assert NetworkConfig(predict_tags=True, tag_dim=0).predict_tags     # no tag input either
    assert LinearScorer.predicts_tags is False
    with pytest.raises(ValueError, match="does not tag sentences"):
        LinearScorer.tag_and_prepare(None, ["a"], None)


def test_folder_refuses_a_finished_model_and_checks_weights(learnt, tmp_path):
    import shutil

    from plgraph.errors import OutputError
    from plgraph.parser.scoring.neural.folder import NeuralFolder
    from plgraph.parser.scoring.neural.config import NeuralTrainConfig
    from plgraph.parser.scoring.neural.train import train_neural

    with pytest.raises(OutputError, match="already holds a neural model"):
        train_neural(NeuralTrainConfig(str(learnt), network=TINY, progress=False))
    copy = tmp_path / "copy"
    shutil.copytree(learnt, copy)
    w = dict(np.load(copy / "neural.npz"))
    name = sorted(w)[0]
    w[name] = w[name] + 1
    np.savez(copy / "neural.npz", **w)
    with pytest.raises(ModelFileError, match="checksum"):
        NeuralFolder.open(copy).load_weights()


def test_overwrite_keeps_the_old_model_until_the_new_one_is_complete(tmp_path, small_ptb, monkeypatch):
    """--overwrite trains beside the finished model: interrupted, the old model is intact
    and loads; completed, the new one is in place and the work folder gone."""
    import plgraph.parser.scoring.neural.train as T
    from plgraph.parser.scoring.neural.config import NeuralTrainConfig
    from plgraph.parser.scoring.neural.folder import NeuralFolder
    from plgraph.files.replacement import OVERWRITE_DIR

    def run(seed, **kw):
        T.train_neural(NeuralTrainConfig(str(tmp_path), network=TINY, ptb=small_ptb, limit=6, max_words=8, epochs=1,
                                         seed=seed, threads=1, tune=False, progress=False, **kw),
                       log=lambda s: None, warn=lambda s: None)

    run(1)
    before = (tmp_path / "neural.npz").read_bytes()

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(T, "local_scores", interrupted)
        with pytest.raises(KeyboardInterrupt):
            run(2, overwrite=True)
    assert (tmp_path / "neural.npz").read_bytes() == before
    assert NeuralFolder.open(tmp_path).header["options"]["seed"] == 1
    run(2, overwrite=True)
    assert NeuralFolder.open(tmp_path).header["options"]["seed"] == 2
    assert (tmp_path / "neural.npz").read_bytes() != before
    assert not (tmp_path / OVERWRITE_DIR).exists()


def test_a_neural_replacement_killed_midway_is_refused_then_completed_by_the_next_train(learnt, tmp_path, monkeypatch):
    """Killed among the renames that put a new neural model in place: loaders refuse the
    folder, naming the replacement; ``--overwrite --resume`` only completes it, and the
    new model (and none of the old run's files it lacks) is what loads."""
    import json
    import shutil
    from pathlib import Path

    import plgraph.parser.scoring.neural.train as T
    from plgraph.parser.scoring.neural.config import NeuralTrainConfig
    from plgraph.files import replacement
    from plgraph.parser.scoring.neural.folder import NeuralFolder, replace_model
    from plgraph.parser import Parser

    m = tmp_path / "m"
    shutil.copytree(learnt, m)
    work = Path(replacement.work_dir(m))
    shutil.copytree(learnt, work)
    new = NeuralFolder.open(work)
    new.header["options"] = dict(new.header["options"], seed=77)
    new.write_header()
    (work / "curves.csv").unlink()                          # a file of the old model the new one lacks
    moved = replace_killed_after(monkeypatch, replace_model, work, m)
    assert len(moved) == 3 and json.loads((m / "neural.json").read_text())["options"]["seed"] != 77
    with pytest.raises(ModelFileError, match="--scorer neural .*--overwrite --resume") as exc:
        Parser.load(m, scorer="neural")
    assert exc.value.source == str(work / replacement.REPLACING_FILE)

    logged = []
    header = T.train_neural(NeuralTrainConfig(str(m), network=TINY, progress=False, overwrite=True, resume=True),
                            log=logged.append, warn=lambda s: None)
    assert logged == [f"completed the replacement of the neural model in {m}"]
    assert header["options"]["seed"] == 77 and not work.exists()
    assert not (m / "curves.csv").exists()
    assert Parser.load(m, scorer="neural").model_dir == str(m)


def test_command_line_evaluates_and_parses_with_the_neural_model(learnt, tmp_path, capsys):
    """``parser evaluate`` and ``parse`` take a neural folder (or ``M`` with ``M/neural``)."""
    import json

    from plgraph.cli import main

    out = tmp_path / "dev.json"
    assert main(["parser", "evaluate", "--model-dir", str(learnt), "--split", "dev", "--limit", "6", "--no-ceiling",
                 "--no-progress", "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["scorer"] == "neural" and doc["sentences"] == 6
    assert "the network's projective tree" in capsys.readouterr().out
    text = tmp_path / "in.txt"
    text.write_text("Who did the company say it would hire ?\n", encoding="utf-8")
    trees = tmp_path / "out.mrg"
    assert main(["parse", "--model-dir", str(learnt), "--in", "text", str(text), "--out", str(trees),
                 "--no-progress"]) == 0
    line = trees.read_text().strip()
    assert line.startswith("(TOP ") and "Who" in line and "hire" in line
