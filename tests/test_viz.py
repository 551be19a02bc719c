"""Drawings: layout as data, SVG/matplotlib/TikZ, the explorer widget, the cause detector."""
from __future__ import annotations

import re

import numpy as np
import pytest

import naive
from plgraph.convert import tree_to_graph
from plgraph.ptb import read_ptb_string
from plgraph.viz import compute_layout, explore, render_figure, render_svg, render_tikz


@pytest.fixture(scope="module")
def dev(sample_dir):
    import plgraph

    return plgraph.corpus("dev").sentences()


def _boxes_overlap(a, b):
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    return ax < bx + bw and bx < ax + aw and ay < by + bh and by < ay + ah


def test_layout_invariants_on_the_dev_split(dev):
    for s in dev:
        g = s.graph
        lay = compute_layout(g)
        # every edge drawn exactly once
        assert sorted(a.edge for a in lay.arcs) == list(range(g.n_edges))
        # no two labels overlap
        boxes = [a.label_box for a in lay.arcs if a.child != a.parent]
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                assert not _boxes_overlap(boxes[i], boxes[j]), (s.id, i, j)
        # crossing pairs equal the classifier's pairwise crossings
        n = len(g.words)
        c = g.child - 1
        p = np.where(g.parent == 0, n, g.parent - 1)
        spans = [(min(a, b), max(a, b)) for a, b in zip(c.tolist(), p.tolist())]
        expected = [(a, b) for a, b in naive.crossing_pairs(spans) if spans[a][0] != spans[a][1]
                    and spans[b][0] != spans[b][1]]
        assert sorted(lay.crossing) == sorted(expected)
        # words are left to right without overlap
        xs = [(w.x - w.width / 2, w.x + w.width / 2) for w in lay.words]
        assert all(xs[k][1] < xs[k + 1][0] for k in range(len(xs) - 1))


def test_levels_stack_shortest_arcs_lowest():
    [item] = read_ptb_string("(ROOT (S (NP-SBJ (DT The) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat)))) (. .)))")
    lay = compute_layout(tree_to_graph(item.tree))
    above = [a for a in lay.arcs if a.side == "above"]
    for a in above:
        for b in above:
            if b.lo >= a.lo and b.hi <= a.hi and (b.hi - b.lo) < (a.hi - a.lo) and b.level >= a.level:
                # a strictly shorter arc nested inside may only share a level if their extents do not meet
                assert b.level < a.level or b.hi <= a.lo or b.lo >= a.hi


def test_svg_has_one_path_per_edge_with_kind_classes(dev):
    g = max(dev, key=lambda s: int((s.graph.kind == 1).sum())).graph
    svg = render_svg(g)
    paths = re.findall(r'<path class="([^"]*)"', svg)
    assert len(paths) == g.n_edges
    assert sum("structural" in c.split() for c in paths) == int((g.kind == 0).sum())
    assert sum("trace" in c.split() for c in paths) == int((g.kind == 1).sum())
    assert svg == render_svg(g)  # deterministic
    no_traces = render_svg(g, show_traces=False)
    assert len(re.findall(r"<path ", no_traces)) == int((g.kind == 0).sum())


def test_nulls_toggle_and_escaping():
    [item] = read_ptb_string("(ROOT (S (NP-SBJ-1 (NNP A&B<C>)) (VP (VBD tried) (S (NP-SBJ (-NONE- *-1)) "
                             "(VP (TO to) (VP (VB leave))))) (. .)))")
    g = tree_to_graph(item.tree)
    svg = render_svg(g)
    assert "A&amp;B&lt;C&gt;" in svg and "A&B<C>" not in svg
    assert 'class="spine null"' in svg
    assert 'class="spine null"' not in render_svg(g, show_nulls=False)
    with pytest.raises(TypeError):
        render_svg(g, colour="red")


def test_cycle_and_violation_highlights(dev):
    from plgraph.structure import classify

    cyclic = next(s.graph for s in dev if classify(s.graph).cyclic)
    svg = render_svg(cyclic)
    assert re.search(r'class="edge [a-z ]*cycle', svg)
    assert "cycle" not in render_svg(cyclic, highlight=False).split("<style>")[1].split("</style>")[1]


def test_overlay_right_wrong_missing(dev):
    g = dev[0].graph
    other = tree_to_graph(dev[0].tree, heads="collins")
    lay = compute_layout(g, overlay=other)
    kinds = [next(c for c in a.classes if c in ("right", "wrong", "missing")) for a in lay.arcs]
    gold = {(int(c), int(p), int(k)) for c, p, k in zip(g.child, g.parent, g.kind)}
    pred = {(int(c), int(p), int(k)) for c, p, k in zip(other.child, other.parent, other.kind)}
    assert kinds.count("right") + kinds.count("missing") == g.n_edges
    assert kinds.count("wrong") >= len(pred - gold)
    with pytest.raises(ValueError):
        compute_layout(g, overlay=dev[1].graph)


def test_tikz_and_matplotlib(dev, tmp_path):
    g = dev[0].graph
    tex = render_tikz(g)
    assert tex.count(r"\depedge{") == int((g.kind == 0).sum())
    assert tex.count(r"\depedge[edge below") == int(((g.kind == 1) & (g.child != g.parent)).sum())
    fig = render_figure(g)
    fig.savefig(tmp_path / "g.png")
    assert (tmp_path / "g.png").stat().st_size > 1000


def test_explorer_driven_without_a_browser(dev, tmp_path):
    from plgraph.structure import classify

    ex = explore(dev, outdir=tmp_path)
    first = ex.svg
    assert ex.sentence.value == dev[0].id and "<path" in first
    ex.sentence.value = dev[1].id
    assert ex.svg != first and len(re.findall("<path ", ex.svg)) == dev[1].graph.n_edges
    ex.structure.value = "cyclic"
    assert set(ex.sentence.options) == {s.id for s in dev if classify(s.graph).cyclic}
    ex.structure.value = "all"
    ex.trace_type.value = "*ICH*"
    assert all(any(t == "*ICH*" for t in dev_graph.graph.trace) for dev_graph in dev
               if dev_graph.id in ex.sentence.options)
    ex.trace_type.value = "any"
    ex.show_labels.value = False
    assert 'class="label"' not in ex.svg
    written = ex.save()
    assert [p.suffix for p in written] == [".svg", ".png"] and all(p.exists() for p in written)
    assert written[0].read_text() == ex.svg


def test_explorer_overlay(dev, tmp_path):
    other = [tree_to_graph(s.tree, heads="collins", sid=s.id) for s in dev[:5]]
    ex = explore(dev[:5], overlay=other, outdir=tmp_path)
    assert not ex.compare.disabled
    ex.compare.value = True
    assert "right" in ex.svg and ("missing" in ex.svg or "wrong" in ex.svg)
    with pytest.raises(TypeError):
        explore([1, 2, 3])


def test_cause_detector_on_hand_labelled_sentences(sample_dir):
    import plgraph
    from plgraph.problems import diagnose

    corpus = plgraph.corpus("all")
    # causes read off the trees by hand (see notebooks/02_problematic_structures.ipynb)
    expected = {"wsj_0059.4": ("cycle", "NP said in a quotation"), "wsj_0043.21": ("cycle", "NP said in a quotation"),
                "wsj_0089.16": ("cycle", "*EXP*"), "wsj_0148.13": ("cycle", "other"),
                "wsj_0036.52": ("non-1EC", "other")}
    for sid, (kind, cause) in expected.items():
        problems = {p.kind: p.cause for p in diagnose(corpus[sid].graph)}
        assert problems[kind] == cause, sid
    assert diagnose(corpus["wsj_0001.0"].graph) == []
