"""Parsing end to end: decodes as graphs and trees, the fallback parse, the input readers,
the POS tagger, :class:`plgraph.parser.parsing.parser.Parser`, ``plgraph parse`` and
``plgraph parser evaluate``.

The model is the shared quick one (:func:`plgraph.parser.notebook_model.notebook_parser`: 60
train sentences of at most 15 words, one epoch a pass); it parses badly, so the tests
check what holds for any model -- words kept, outputs consistent with the scorers, one
output per input, the same output on 1 and 2 threads -- while the decode-to-graph step is
checked exactly against gold graphs.
"""
from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plgraph.cli import main
from plgraph.convert import graph_to_tree
from plgraph.convert.graph_to_tree import canonical_indices
from plgraph.encoding import spine_identity
from plgraph.errors import InputError, ModelFileError
from plgraph.graph import Graph
from plgraph.parser.parsing.decode import decoded_graph, fallback_graph
from plgraph.parser.parsing.inputs import read_input, tree_words_tags
from plgraph.parser.scoring.labels import LabelVocab
from plgraph.parser.scoring.pass2 import gold_graph
from plgraph.ptb.reader import read_ptb_string
from plgraph.structure import representable_mask


@pytest.fixture(scope="module")
def dev_sentences(sample_dir):
    import plgraph

    return plgraph.corpus("dev").sentences()


@pytest.fixture(scope="module")
def quick_model(sample_dir):
    from plgraph.parser.notebook_model import notebook_parser

    return notebook_parser(quick=True, log=None)


@pytest.fixture(scope="module")
def parser(quick_model):
    from plgraph.parser.parsing.parser import Parser

    return Parser.load(quick_model)


# -- decodes as graphs -------------------------------------------------------------------------
def _chart_edges(G) -> dict:
    """A gold graph's label ids as a decode's ``{(c, p, "S"|"T"): label}``."""
    out = {}
    for X, kind in ((G.s, "S"), (G.t, "T")):
        for c, p in zip(*np.nonzero(X >= 0)):
            out[(int(c), int(p), kind)] = int(X[c, p])
    return out


def _chart_view(g: Graph) -> Graph:
    """``g`` as the chart holds it: representable edges, no trace into ROOT, the first
    edge of a kind per ordered pair (self loops kept: they live in the spines)."""
    keep = representable_mask(g) | (g.child == g.parent)
    seen, kept = set(), []
    for e, t in enumerate(g.edge_tuples()):
        c, p, k = t[0], t[1], t[2]
        if not keep[e] or (c != p and ((k == 1 and p == 0) or (c, p, k) in seen)):
            continue
        seen.add((c, p, k))
        kept.append(t)
    return Graph.from_edges(g.words, g.tags, g.spines, kept, id=g.id, options=g.options)


def test_a_decode_of_the_gold_labels_gives_the_gold_tree(dev_sentences):
    """Every dev sentence: the gold graph's label ids and spine identities, mapped back by
    decoded_graph, give the tree the chart's view of the gold graph gives (co-index numbers
    aside) -- self loops, null flags and trace types included."""
    graphs = [s.graph for s in dev_sentences]
    vocab = LabelVocab.from_graphs(graphs)
    checked = 0
    for g in graphs:
        G, unseen = gold_graph(g, vocab)
        assert unseen == 0
        d = decoded_graph(g.words, g.tags, _chart_edges(G), [spine_identity(g, w) for w in range(len(g))], vocab,
                          sid=g.id, options=g.options)
        assert d.spine_traces == g.spine_traces
        want = canonical_indices(graph_to_tree(_chart_view(g), use_null_positions=False))
        assert canonical_indices(graph_to_tree(d, use_null_positions=False)) == want, g.id
        checked += 1
    assert checked == len(dev_sentences) > 400


def test_a_self_loop_that_cannot_be_read_is_an_error():
    vocab = LabelVocab.from_graphs([])
    with pytest.raises(ValueError, match="word 1: cannot read the self-loop"):
        decoded_graph(["a"], ["DT"], {(0, 1, "S"): 0}, ["NP|broken"], vocab)


def test_the_fallback_parse_is_the_references_flat_np():
    g = fallback_graph(["The", "cat", "sat"], ["DT", "NN", "VBD"], sid="x")
    assert str(graph_to_tree(g, use_null_positions=False)) == "(ROOT (NP (DT The) (NN cat) (VBD sat)))"
    assert g.heads().tolist() == [3, 3, 0] and g.spines == ["_", "_", "NP"]
    one = fallback_graph(["Yes"], ["UH"])
    assert str(graph_to_tree(one, use_null_positions=False)) == "(ROOT (NP (UH Yes)))"


# -- input readers --------------------------------------------------------------------------------
def test_tagged_and_text_inputs(tmp_path):
    f = tmp_path / "in.txt"
    f.write_text("New_York_NNP is_VBZ big_JJ\n\n  \nbad token_NN\nHe_PRP left_VBD ._.\n", encoding="utf-8")
    got = read_input(f, "tagged")
    assert got.sentences == [(["New_York", "is", "big"], ["NNP", "VBZ", "JJ"], "in.txt:1"),
                             (["He", "left", "."], ["PRP", "VBD", "."], "in.txt:5")]
    assert got.bad == [("in.txt:4", "token 'bad' is not word_TAG")]
    text = read_input(f, "text")
    assert [s[0] for s in text.sentences][0] == ["New_York_NNP", "is_VBZ", "big_JJ"]
    assert all(t is None for _, t, _ in text.sentences) and len(text.sentences) == 3


def test_ptb_input_drops_null_elements_and_lists_bad_trees(tmp_path):
    f = tmp_path / "x.mrg"
    f.write_text("( (S (NP-SBJ (-NONE- *)) (VP (VB Go) (ADVP (RB home))) (. .)) )\n(S (NP (NN oops)\n",
                 encoding="utf-8")
    got = read_input(f, "ptb")
    assert got.sentences == [(["Go", "home", "."], ["VB", "RB", "."], "x.0")]
    assert len(got.bad) == 1 and got.bad[0][0].startswith("x.mrg")
    with pytest.raises(InputError, match="no such file"):
        read_input(tmp_path / "missing.mrg", "ptb")


_word = st.text(st.characters(blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc")), min_size=1, max_size=8)
#: tags that read back as themselves: no "_" (the separator), no function tag, index or
#: alternative separators ("-", "=", "|"), no bracket
_tag = _word.filter(lambda t: not set(t) & set("_-=|()"))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.tuples(_word, _tag), min_size=1, max_size=6), min_size=1, max_size=5))
def test_tagged_reader_reads_back_what_it_is_given(tmp_path_factory, sentences):
    f = tmp_path_factory.mktemp("fuzz") / "t.txt"
    f.write_text("\n".join(" ".join(f"{w}_{t}" for w, t in s) for s in sentences) + "\n", encoding="utf-8")
    got = read_input(f, "tagged")
    brackets = {"(": "-LRB-", ")": "-RRB-", "{": "-LCB-", "}": "-RCB-"}    # the treebank's forms

    def word(w):
        return brackets.get(w, w.replace("(", "-LRB-").replace(")", "-RRB-"))

    assert [(w, t) for w, t, _ in got.sentences] == [([word(w) for w, _ in s], [t for _, t in s]) for s in sentences]
    assert not got.bad


# -- the POS tagger ---------------------------------------------------------------------------------
def test_the_pos_tagger_trains_saves_and_loads(sample_dir, dev_sentences, tmp_path):
    import plgraph
    from plgraph.parser.parsing.tagger import PosTagger

    train = [(s.graph.words, s.graph.tags) for s in plgraph.corpus("train").sentences()[:400]]
    dev = [(s.graph.words, s.graph.tags) for s in dev_sentences]
    a = PosTagger.train(train)
    a.save(tmp_path / "a.json")
    PosTagger.train(train).save(tmp_path / "b.json")
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()   # fixed seed
    b = PosTagger.load(tmp_path / "a.json")
    assert [b.tag(w) for w, _ in dev[:50]] == [a.tag(w) for w, _ in dev[:50]]
    assert 85.0 < b.accuracy(dev) < 100.0
    (tmp_path / "bad.json").write_text('{"format": "plgraph-pos-tagger", "format_version": 1}', encoding="utf-8")
    with pytest.raises(ModelFileError, match="bad.json.*damaged POS tagger"):
        PosTagger.load(tmp_path / "bad.json")
    with pytest.raises(ModelFileError, match="no POS tagger here"):
        PosTagger.load(tmp_path / "none.json")


# -- the parser ---------------------------------------------------------------------------------------
def test_parser_outputs_keep_the_words_and_agree_with_each_other(parser, dev_sentences):
    """Graph, tree and status of every dev sentence of at most 15 words: the tree's words
    and tags are the input's, the tree is the graph's, and pass 3 parsed most."""
    short = [s for s in dev_sentences if len(s.graph.words) <= 15]
    statuses = []
    for s in short:
        r = parser.parse_result(s.graph.words, s.graph.tags, sid=s.id)
        assert r.tree.words() == s.graph.words
        assert [p.label for p in r.tree.preterminals() if not p.is_null_leaf()] == s.graph.tags
        assert str(graph_to_tree(r.graph, use_null_positions=False)) == str(r.tree)
        assert r.graph.structural_problem() is None
        statuses.append(r.status)
    assert statuses.count("parsed") + statuses.count("relaxed") >= 0.9 * len(short)


def test_too_long_and_untagged_sentences(parser, dev_sentences):
    from plgraph.parser.parsing.parser import Parser

    s = next(s for s in dev_sentences if len(s.graph.words) > 20)
    short = Parser.load(parser.model_dir, max_words=20)
    r = short.parse_result(s.graph.words, s.graph.tags, sid=s.id)
    assert r.status == "fallback" and r.reason == "more than 20 words"
    assert str(r.tree) == str(graph_to_tree(fallback_graph(s.graph.words, s.graph.tags), use_null_positions=False))
    tagged = parser.parse_result(["The", "market", "fell", "."])
    assert tagged.tags == parser.tagger.tag(["The", "market", "fell", "."]) and tagged.tree.words()[0] == "The"
    with pytest.raises(InputError, match="empty sentence"):
        parser.parse_result([])
    with pytest.raises(InputError, match="2 words but 1 tags"):
        parser.parse_result(["a", "b"], ["DT"])
    bad = list(parser.parse_many([(["a b"], ["DT"], "s1"), (["ok"], ["UH"], "s2")]))
    assert [r.status for r in bad][0] == "fallback" and "white space" in bad[0].reason and bad[1].id == "s2"


def test_two_threads_give_the_same_parses_as_one(parser, dev_sentences):
    items = [(s.graph.words, s.graph.tags, s.id) for s in dev_sentences if len(s.graph.words) <= 20][:30]
    one = [str(r.tree) for r in parser.parse_many(items, jobs=1)]
    two = [str(r.tree) for r in parser.parse_many(items, jobs=2)]
    assert one == two and len(one) == 30


# -- the commands -----------------------------------------------------------------------------------------
def test_parse_command_writes_one_tree_per_sentence(quick_model, sample_dir, tmp_path, capsys):
    from plgraph.data import ptb_files
    from plgraph.shp import read_shp

    src = ptb_files("test")[0]
    gold = [x for x in read_ptb_string(open(src, encoding="utf-8").read(), stem="wsj_0170")]
    out = tmp_path / "out.mrg"
    assert main(["parse", "--model-dir", str(quick_model), str(src), "--out", str(out), "--jobs", "2",
                 "--no-progress"]) == 0
    trees = read_ptb_string(out.read_text(encoding="utf-8"), clean=False)
    assert len(trees) == len(gold)
    for t, g in zip(trees, gold):
        assert t.tree.label == "TOP"
        assert tree_words_tags(t.tree) == tree_words_tags(g.tree)
    assert f"{len(gold)} sentences" in capsys.readouterr().err
    shp = tmp_path / "out.shp"
    assert main(["parse", "--model-dir", str(quick_model), str(src), "--out", str(shp), "--to", "shp",
                 "--no-progress"]) == 0
    assert [g.words for g in read_shp(shp)] == [tree_words_tags(g.tree)[0] for g in gold]


def test_parse_command_refuses_gold_tags_of_text_and_empty_input(quick_model, tmp_path, capsys):
    f = tmp_path / "t.txt"
    f.write_text("Hello there\n", encoding="utf-8")
    assert main(["parse", "--model-dir", str(quick_model), str(f), "--in", "text", "--gold-tags"]) == 2
    assert "--gold-tags needs tagged input" in capsys.readouterr().err
    f.write_text("\n\n", encoding="utf-8")
    assert main(["parse", "--model-dir", str(quick_model), str(f), "--in", "tagged"]) == 2
    assert "no sentence could be read" in capsys.readouterr().err


def test_evaluate_command_figures_are_the_scorers_of_its_trees(quick_model, sample_dir, tmp_path, capsys):
    """``parser evaluate --trees T --json J``: J's evalb and Johnson figures are what
    ``eval trees`` / ``eval traces`` give for T against the gold trees; every sentence has
    a status; the ceiling is there, and no worse than the parser."""
    import plgraph
    from plgraph.eval.evalb import evalb
    from plgraph.eval.traces import traces

    js, tr = tmp_path / "e.json", tmp_path / "t.mrg"
    assert main(["parser", "evaluate", "--model-dir", str(quick_model), "--split", "test", "--limit", "12",
                 "--json", str(js), "--trees", str(tr), "--jobs", "2", "--no-progress"]) == 0
    doc = json.loads(js.read_text(encoding="utf-8"))
    assert doc["sentences"] == 12 and sum(doc["statuses"].values()) == 12
    gold = plgraph.corpus("test").sentences()[:12]
    test = [t.tree for t in read_ptb_string(tr.read_text(encoding="utf-8"), clean=False)]

    def top(t):
        t = t.copy()
        t.label = "TOP"
        return t

    ev = evalb([top(s.tree) for s in gold], test)
    assert doc["scores"]["all"]["evalb_top"]["all"]["f1"] == ev.summary["all"]["f1"]
    assert doc["scores"]["all"]["traces"] == traces([s.tree for s in gold], test, ids=[s.id for s in gold]).all
    assert doc["ceiling"]["all"]["evalb_top"]["all"]["f1"] >= doc["scores"]["all"]["evalb_top"]["all"]["f1"]
    out = capsys.readouterr().out
    assert "evalb F1, TOP root" in out and "88.26" in out


def test_decode_settings_of_the_command_line_reach_pass_3(quick_model, tmp_path, capsys):
    """``--trace-bias`` / ``--trace-prob`` of ``parse`` and ``parser evaluate`` override
    pass 3's stored settings, on Dask workers too (they are part of the chunks' spec);
    a probability outside [0, 1] is refused before anything is parsed."""
    from plgraph.parser.parsing.jobs import _parser, parse_spec

    js = tmp_path / "e.json"
    assert main(["parser", "evaluate", "--model-dir", str(quick_model), "--split", "dev", "--limit", "2",
                 "--trace-prob", "1.5", "--json", str(js), "--no-progress"]) == 2
    assert "--trace-prob 1.5: expected a probability in [0, 1]" in capsys.readouterr().err and not js.exists()
    tuned = _parser(parse_spec(quick_model, 100, {"trace_prob": 0.4, "trace_bias": 0.1}))
    stored = _parser(parse_spec(quick_model, 100))
    tuned, stored = tuned.scorer.model3.config, stored.scorer.model3.config
    assert (tuned.trace_prob, tuned.trace_bias) == (0.4, 0.1)
    assert (stored.trace_prob, stored.trace_bias) == (0.3, 0.0)
    assert tuned == replace(stored, trace_prob=0.4, trace_bias=0.1)


# -- reference points and error analysis ---------------------------------------------------------------
def test_the_oracle_keeps_every_head_and_only_representable_traces(dev_sentences, parser):
    from plgraph.parser.analysis.oracle import oracle_graph

    for s in dev_sentences:
        g = s.graph
        o = oracle_graph(g, parser.vocab)
        assert o.heads().tolist() == g.heads().tolist(), s.id
        gold_traces = {(c, p) for c, p, _ in g.trace_edges() if c != p}
        oracle_traces = {(c, p) for c, p, _ in o.trace_edges() if c != p}
        assert oracle_traces <= gold_traces
        assert graph_to_tree(o, use_null_positions=False).words() == g.words


def test_the_baseline_is_pass_1s_tree_with_first_spines_and_no_traces(parser, dev_sentences):
    from plgraph.encoding import encode_graph
    from plgraph.parser.parsing.baseline import baseline_graph

    pr = parser.scorer.pruners
    for s in dev_sentences[:30]:
        g = s.graph
        b = baseline_graph(pr, g.words, g.tags, sid=s.id)
        bare = Graph.from_edges(g.words, g.tags, ["_"] * len(g), [], id=s.id)
        enc = pr.arc.encode([encode_graph(bare)], pr.normaliser)
        heads, _ = pr.arc.model.parse_encoded(enc)
        assert b.heads().tolist() == heads.tolist()
        assert not b.trace_edges() and not any("|" in sp for sp in b.spines)
        first = [pr.spine.labels.items[int(x[0])].split("|")[0] if len(x) else "_" for x in pr.prune(bare).spines]
        heads = b.heads().tolist()
        for w, (got, want) in enumerate(zip(b.spines, first)):
            dependents = [c for c in range(len(g)) if heads[c] == w + 1]
            if want != "_" or not dependents:
                assert got == want
            else:     # an empty spine heading words: one level, the node its dependents attach to
                assert got + "_0" == b.label[dependents[0]]


def _toy(edges, spines=("_", "VP_S", "_")):
    return Graph.from_edges(["I", "saw", "it"], ["PRP", "VBD", "PRP"], list(spines), edges, id="toy")


_S = [(1, 2, 0, "S_0", False, "_", False, "_"), (2, 0, 0, "ROOT_0", False, "S_0", False, "_"),
      (3, 2, 0, "VP_0", False, "_", False, "_")]


def test_sentence_errors_count_each_kind():
    from plgraph.parser.analysis.errors import sentence_errors

    gold = _toy(_S + [(1, 3, 1, "VP_0", False, "_", False, "*T*")])
    pred = _toy([(1, 2, 0, "VP_0", False, "_", False, "_"), (2, 0, 0, "ROOT_0", False, "S_0", False, "_"),
                 (3, 1, 0, "_", False, "_", False, "_"), (3, 1, 1, "_", False, "_", False, "*")],
                spines=("_", "VP", "_"))
    assert sentence_errors(gold, pred) == {"attachment": 1, "attachment node": 1, "spine": 1, "missing trace": 1,
                                           "extra trace": 1, "fallback": 0}
    assert sentence_errors(gold, gold, fallback=True) == dict.fromkeys(
        ("attachment", "attachment node", "spine", "missing trace", "extra trace"), 0) | {"fallback": 1}


def test_trace_type_table_counts_by_type():
    from plgraph.parser.analysis.errors import trace_type_table

    gold = [_toy(_S + [(1, 3, 1, "VP_0", False, "_", False, "*T*"), (3, 1, 1, "_", False, "_", False, "*")])]
    pred = [_toy(_S + [(1, 3, 1, "VP_0", False, "_", False, "*"), (2, 3, 1, "_", False, "_", False, "*")])]
    df = trace_type_table(gold, pred).set_index("type")
    assert df.loc["*T*", ["gold", "recalled", "type_right", "predicted"]].tolist() == [1, 1, 0, 0]
    assert df.loc["*", ["gold", "recalled", "predicted", "correct"]].tolist() == [1, 0, 2, 1]
    assert df.loc["*", "precision"] == 50.0 and df.loc["*T*", "recall"] == 100.0


def test_the_explorer_filters_sentences_by_error_type(dev_sentences):
    from plgraph.viz import explore

    graphs = [s.graph for s in dev_sentences[:12]]
    wrong = graphs[3]
    pred = list(graphs)
    moved = [list(e) for e in wrong.edge_tuples()]
    k = next(i for i, e in enumerate(moved) if e[2] == 0 and e[1] != 0)
    moved[k][1] = next(p for p in range(1, len(wrong) + 1) if p not in (moved[k][0], moved[k][1])
                       and wrong.heads()[p - 1] != moved[k][0])
    pred[3] = Graph.from_edges(wrong.words, wrong.tags, wrong.spines, [tuple(e) for e in moved], id=wrong.id,
                               options=wrong.options)
    ex = explore(graphs, overlay=pred)
    ex.errors.value = "attachment"
    assert ex.ids == [wrong.id]
    ex.errors.value = "exact"
    assert ex.ids == [g.id for g in graphs if g.id != wrong.id]
    ex.errors.value = "missing trace"
    assert ex.ids == []


def test_ctrl_c_keeps_the_parsed_sentences_in_a_partial_file(quick_model, tmp_path, monkeypatch, capsys):
    from plgraph.parser.parsing.parser import Parser

    src = tmp_path / "in.txt"
    src.write_text("The_DT cat_NN sat_VBD ._.\nA_DT dog_NN ran_VBD ._.\nIt_PRP rained_VBD ._.\n", encoding="utf-8")
    out = tmp_path / "out.mrg"
    out.write_text("old\n", encoding="utf-8")
    real = Parser.parse_many

    def two_then_interrupt(self, items, **kwargs):
        for k, r in enumerate(real(self, items, **kwargs)):
            if k == 2:
                raise KeyboardInterrupt
            yield r

    monkeypatch.setattr(Parser, "parse_many", two_then_interrupt)
    assert main(["parse", "--model-dir", str(quick_model), str(src), "--in", "tagged", "--out", str(out)]) == 130
    assert out.read_text(encoding="utf-8") == "old\n"
    partial = read_ptb_string((tmp_path / "out.mrg.partial").read_text(encoding="utf-8"), clean=False)
    assert [tree_words_tags(t.tree)[0] for t in partial] == [["The", "cat", "sat", "."], ["A", "dog", "ran", "."]]
    assert "the first 2 sentences are in" in capsys.readouterr().err


def test_text_input_is_tagged_by_the_models_tagger(quick_model, parser, tmp_path, capsys):
    src = tmp_path / "in.txt"
    src.write_text("The market fell sharply .\n", encoding="utf-8")
    assert main(["parse", "--model-dir", str(quick_model), str(src), "--in", "text", "--to", "shp"]) == 0
    from plgraph.shp import read_shp_string

    g, = read_shp_string(capsys.readouterr().out)
    assert g.words == ["The", "market", "fell", "sharply", "."]
    assert g.tags == parser.tagger.tag(g.words)


def test_learning_curve_trend_and_plot():
    import math

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from plgraph.parser.analysis.learning_curve import FULL_TRAIN, THESIS_F1, fit_trend, plot_learning_curve

    xs = [700, 1400, 2800]
    a, b = fit_trend(xs, [60 + 4 * math.log(x) for x in xs])
    assert a == pytest.approx(60) and b == pytest.approx(4)
    pts = [{"sentences": x, "evalb_f1": 50 + 3 * math.log(x), "trace_f": 20 + 2 * math.log(x)} for x in xs]
    fig, ax = plt.subplots()
    plot_learning_curve(pts, ax)
    trend = [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    assert len(trend) == 2 and trend[0].get_xdata()[-1] == pytest.approx(FULL_TRAIN)
    assert trend[0].get_ydata()[-1] == pytest.approx(50 + 3 * math.log(FULL_TRAIN))
    stars = [ln for ln in ax.get_lines() if ln.get_marker() == "*"]
    assert [ln.get_ydata()[0] for ln in stars][0] == THESIS_F1
    plt.close(fig)


def test_parser_plots_draw_every_epoch_and_pruning_point():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from plgraph.parser.analysis.plots import THESIS_POINTS, plot_parser_curves, plot_pruning

    rows = [{"model": "pass2", "epoch": 1, "dev_uas": 80, "dev_las": 65, "dev_trace_p": 49, "dev_trace_r": 45},
            {"model": "pass3", "epoch": 1, "dev_uas": 82, "dev_las": 68, "dev_trace_p": 52, "dev_trace_r": 47},
            {"model": "pass3", "epoch": 2, "dev_uas": 84, "dev_las": 71, "dev_trace_p": 53, "dev_trace_r": 51},
            {"model": "spine", "epoch": 1}]
    fig, axes = plt.subplots(1, 2)
    plot_parser_curves(rows, axes)
    uas = [ln for ln in axes[0].get_lines() if list(ln.get_ydata()) in ([80], [82, 84])]
    assert [list(ln.get_xdata()) for ln in uas] == [[1], [2, 3]]
    assert list(axes[0].get_xticks()) == [1, 2, 3] and axes[1].get_xlabel()
    plt.close(fig)
    stats = {"split": "dev", "max_words": 40,
             "pass1": {"edges_kept_seed_pct": 5.0, "edges_gold_recall_pct": 99.0, "traces_kept_pct": 6.8,
                       "traces_gold_recall_pct": 74.0, "spines_kept_pct": 6.9, "spines_gold_recall_pct": 98.9},
             "pass2_curve": [{"ratio": r, "gold_structural_kept_pct": 100 - 10 * r, "gold_trace_kept_pct": 90.0,
                              "structural_kept_seed_pct": 4.0 * (1 - r) + 0.01} for r in (0.0, 0.5, 1.0)],
             "pass3": {"structural_kept_seed_pct": 3.9, "structural_gold_recall_pct": 97.8}}
    ax = plot_pruning(stats)
    points = {ln.get_label(): (ln.get_xdata()[0], ln.get_ydata()[0]) for ln in ax.get_lines() if len(ln.get_xdata()) == 1}
    assert points["pass 1 structural edges"] == (5.0, 99.0) and points["pass 3 structural labels"] == (3.9, 97.8)
    stars = [(ln.get_xdata()[0], ln.get_ydata()[0]) for ln in ax.get_lines() if ln.get_marker() == "*"]
    assert stars == [(k, r) for _, k, r in THESIS_POINTS]
    plt.close(ax.figure)


def test_without_a_pass_3_or_pass_2_tree_the_parse_is_pass_1s(parser, dev_sentences, monkeypatch, capsys):
    """No derivation at all, or a pass-2 graph with crossing structural edges (no tree):
    pass 1's projective tree with the first spines; the reason says why."""
    from plgraph.parser.parsing.baseline import baseline_graph
    from plgraph.parser.parsing.parser import Parser

    s = next(s for s in dev_sentences if 8 <= len(s.graph.words) <= 15)
    words, tags = s.graph.words, s.graph.tags
    want = str(graph_to_tree(baseline_graph(parser.scorer.pruners, words, tags), use_null_positions=False))
    monkeypatch.setattr(Parser, "_cascade", lambda self, w, t, sid, prepared=None: (None, "pass2", "pass 2 found no derivation", None))
    r = parser.parse_result(words, tags)
    assert (r.status, r.reason, str(r.tree)) == ("pass1", "pass 2 found no derivation", want)
    n = len(words)
    crossing = Graph.from_edges(words, tags, ["_"] * n, [(1, 3, 0, "_", False, "_", False, "_"),
                                                         (2, 4, 0, "_", False, "_", False, "_"),
                                                         (3, 0, 0, "ROOT_0", False, "_", False, "_")]
                                + [(w, 3, 0, "_", False, "_", False, "_") for w in range(4, n + 1)])
    monkeypatch.setattr(Parser, "_cascade", lambda self, w, t, sid, prepared=None: (crossing, "pass2", "pass 3 found no parse", None))
    r = parser.parse_result(words, tags)
    assert r.status == "pass1" and str(r.tree) == want
    assert r.reason.startswith("pass 3 found no parse; the pass2 graph gives no tree: ")
    from plgraph.parser.cli.parse import _report

    _report([r], 1.0, "plgraph parse")
    assert f"None not parsed by pass 3, pass1's output kept: {r.reason}" in capsys.readouterr().err


def test_a_head_with_an_empty_spine_gets_a_one_level_spine():
    """A two-word sentence whose pass-1 tree hangs "Markets" from "--" (spine ``_``) at
    ``NP_0``: as it stands it gives no tree (a child under a pre-terminal); repaired, "--"
    heads an NP."""
    from plgraph.errors import ConversionError
    from plgraph.convert.validity import with_head_spines

    g = Graph.from_edges(["Markets", "--"], ["NNS", ":"], ["NP-SBJ", "_"],
                         [(1, 2, 0, "NP_0", False, "NP-SBJ_0", False, "_"), (2, 0, 0, "ROOT_0", False, "_", False, "_")])
    with pytest.raises(ConversionError):
        graph_to_tree(g, use_null_positions=False)
    fixed = with_head_spines(g)
    assert fixed.spines == ["NP-SBJ", "NP"] and fixed.child_label.tolist() == ["NP-SBJ_0", "NP_0"]
    assert str(graph_to_tree(fixed, use_null_positions=False)) == "(ROOT (NP (NP-SBJ (NNS Markets)) (: --)))"
    assert with_head_spines(fixed) is fixed


def test_the_committed_learning_curve_is_consistent(sample_dir):
    """figures/learning_curve.json (``python -m plgraph figures --only learning_curve``):
    its trends are the least-squares fits of its points, its sizes the train split's."""
    import math
    from pathlib import Path

    import plgraph
    from plgraph.parser.analysis.learning_curve import FRACTIONS, FULL_TRAIN, THESIS_F1, THESIS_TRACE_F, fit_trend

    doc = json.loads((Path(__file__).resolve().parent.parent / "figures" / "learning_curve.json").read_text())
    pts = doc["points"]
    total = sum(1 for s in plgraph.corpus("train").sentences() if len(s.graph.words) <= 40)
    assert [p["fraction"] for p in pts] == list(FRACTIONS) and pts[-1]["sentences"] == total == 2831
    assert [p["sentences"] for p in pts[:-1]] == [round(f * total) for f in FRACTIONS[:-1]]
    for key in ("evalb_f1", "trace_f"):
        a, b = fit_trend([p["sentences"] for p in pts], [p[key] for p in pts])
        assert doc["trend"][key]["at_full_train"] == pytest.approx(a + b * math.log(FULL_TRAIN), abs=0.01)
    assert doc["seed"] == {"evalb_f1": THESIS_F1, "trace_f": THESIS_TRACE_F}
    assert pts[0]["evalb_f1"] < pts[1]["evalb_f1"] < pts[2]["evalb_f1"]
