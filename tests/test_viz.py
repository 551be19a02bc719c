"""Drawings: layout as data, SVG/matplotlib/TikZ, the explorer widget, the cause detector."""
from __future__ import annotations

import re
from pathlib import Path

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


def _no_overlaps(boxes, what):
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            assert not _boxes_overlap(boxes[i], boxes[j]), (what, i, j, boxes[i], boxes[j])


def _triangle_box(tri):
    xs = [x for x, _ in tri]
    ys = [y for _, y in tri]
    return (min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))


def _triangle_size(tri):
    """(length along the arrow, width across it) of an arrowhead (tip first)."""
    (tx, ty), (ax, ay), (bx, by) = tri
    base = ((ax + bx) / 2, (ay + by) / 2)
    return round(float(np.hypot(base[0] - tx, base[1] - ty)), 6), round(float(np.hypot(ax - bx, ay - by)), 6)


@pytest.mark.parametrize("options", [{}, {"show_nulls": False, "root": "start"}, {"show_spines": False}])
def test_layout_invariants_on_the_dev_split(dev, options):
    """Every dev sentence: each edge drawn once, no two label boxes overlap (self-loops
    included), no two arrowheads overlap, crossing pairs equal a naive check."""
    sizes_by_width: dict = {}
    for s in dev:
        g = s.graph
        lay = compute_layout(g, **options)
        # every edge drawn exactly once
        assert sorted(a.edge for a in lay.arcs) == list(range(g.n_edges))
        # no two labels overlap, and every label box has a size
        boxes = [a.label_box for a in lay.arcs]
        assert all(w > 0 and h > 0 for _, _, w, h in boxes)
        _no_overlaps(boxes, s.id)
        # no two arrowheads overlap (two traces into one word get separate heads)
        _no_overlaps([_triangle_box(a.arrow) for a in lay.arcs], s.id)
        for a in lay.arcs:
            sizes_by_width.setdefault(a.stroke_width, set()).add(_triangle_size(a.arrow))
            # the arrowhead sits at the child's end of the curve, pointing at the child
            tip, left, right = a.arrow
            assert a.path[-1][0] == pytest.approx(tip[0]) == pytest.approx(a.x_child)
            assert min(tip[1], left[1]) <= a.path[-1][1] <= max(tip[1], left[1])
            assert (tip[1] > left[1]) == (a.side == "above")  # above: points down at the word
        # crossing pairs equal the classifier's pairwise crossings
        n = len(g.words)
        c = g.child - 1
        root = n if options.get("root", "end") == "end" else -1
        p = np.where(g.parent == 0, root, g.parent - 1)
        spans = [(min(a, b), max(a, b)) for a, b in zip(c.tolist(), p.tolist())]
        expected = [(a, b) for a, b in naive.crossing_pairs(spans) if spans[a][0] != spans[a][1]
                    and spans[b][0] != spans[b][1]]
        assert sorted(lay.crossing) == sorted(expected)
        # words are left to right without overlap
        xs = [(w.x - w.width / 2, w.x + w.width / 2) for w in lay.words]
        assert all(xs[k][1] < xs[k + 1][0] for k in range(len(xs) - 1))
    # arrowhead size does not depend on the line width (plain, crossing, violation/cycle edges)
    assert len(sizes_by_width) >= 2, sizes_by_width.keys()
    assert len(set().union(*sizes_by_width.values())) == 1, sizes_by_width


def test_trace_labels_at_least_as_large_as_arc_labels(dev):
    g = next(s.graph for s in dev if (s.graph.kind == 1).any())
    lay = compute_layout(g)
    structural = {a.font for a in lay.arcs if a.kind == "structural"}
    trace = {a.font for a in lay.arcs if a.kind == "trace"}
    assert min(trace) >= max(structural)
    assert min(a.label_box[3] for a in lay.arcs if a.kind == "trace") >= \
        max(a.label_box[3] for a in lay.arcs if a.kind == "structural")
    svg = render_svg(g)
    sizes = {k: {float(v) for v in re.findall(rf'<text class="label {k}"[^>]* font-size="([0-9.]+)"', svg)}
             for k in ("structural", "trace")}
    assert sizes["trace"] and sizes["structural"] and min(sizes["trace"]) >= max(sizes["structural"])
    assert compute_layout(g, trace_font=4.0).arcs[-1].font >= compute_layout(g).options["label_font"]


def test_svg_arrowheads_are_fixed_size_polygons(dev):
    from plgraph.structure import classify

    g = next(s.graph for s in dev if classify(s.graph).cyclic)
    assert "<marker" not in render_svg(g)
    # a sentence with crossing (thicker) edges
    g = next(s.graph for s in dev if len({a.stroke_width for a in compute_layout(s.graph).arcs}) > 1)
    lay = compute_layout(g)
    svg = render_svg(g)
    assert "<marker" not in svg and "marker-end" not in svg  # markers would scale with stroke-width
    polys = re.findall(r'<polygon class="arrow" data-edge="(\d+)" points="([^"]+)"', svg)
    assert len(polys) == len(lay.arcs)
    widths = {float(w) for w in re.findall(r'stroke-width="([0-9.]+)"', svg)}
    assert len(widths) >= 2  # thick cycle edges and plain ones
    sizes = set()
    for _, pts in polys:
        tri = [tuple(map(float, p.split(","))) for p in pts.split()]
        sizes.add(tuple(round(v, 0) for v in _triangle_size(tri)))
    assert len(sizes) == 1


def test_arcs_meeting_one_word_are_spread_and_nested(dev):
    """Hand-picked: wsj_0140.0 has a two-edge trace cycle between words 2 and 13;
    wsj_0150.3 two traces from word 8 into word 4."""
    by_id = {s.id: s.graph for s in dev}
    for sid, pair in (("wsj_0140.0", {2, 13}), ("wsj_0150.3", {4, 8})):
        lay = compute_layout(by_id[sid])
        arcs = [a for a in lay.arcs if a.kind == "trace" and {a.child, a.parent} == pair]
        assert len(arcs) == 2, sid
        inner, outer = sorted(arcs, key=lambda a: a.level)
        assert inner.level < outer.level
        # distinct curves: both ends apart, and the outer one encloses the inner one
        assert outer.lo <= inner.lo - 5 and outer.hi >= inner.hi + 5, sid
        apex_gap = abs(outer.label_box[1] - inner.label_box[1])
        assert apex_gap >= lay.options["level_height"], sid
    two_into_one = [a for a in compute_layout(by_id["wsj_0150.3"]).arcs if a.kind == "trace" and a.child == 4]
    tips = sorted(a.arrow[0][0] for a in two_into_one)
    assert len(tips) == 2 and tips[1] - tips[0] >= 7.0  # the arrowheads (7 px wide) do not stack


def test_ptb_escapes_are_drawn_as_text():
    from plgraph.viz import display_text, display_token

    [item] = read_ptb_string("(ROOT (S (`` ``) (NP-SBJ (-LRB- -LRB-) (CD 5\\/8) (-RRB- -RRB-)) (VP (VBD rose) "
                             "(NP (-LCB- -LCB-) (NN a\\*b) (-RCB- -RCB-))) ('' '') (. .)))")
    g = tree_to_graph(item.tree)
    assert g.words[2] == "5\\/8"  # the graph keeps the treebank's token
    svg = render_svg(g)
    words = re.findall(r'<text class="word"[^>]*>([^<]*)</text>', svg)
    assert words == ["\u201c", "(", "5/8", ")", "rose", "{", "a*b", "}", "\u201d", "."]
    tags = re.findall(r'<text class="tag"[^>]*>([^<]*)</text>', svg)
    assert tags[1] == "-LRB-"  # tags are tag names
    assert display_text(g.words) == "\u201c ( 5/8 ) rose { a*b } \u201d ."
    assert display_token("``", quotes=False) == "``"
    tex = render_tikz(g)
    assert "5/8" in tex and "-LRB-" not in tex.split("\\begin{deptext}")[1].split("\\\\")[0]


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
    cyclic = [s.id for s in dev if classify(s.graph).cyclic]
    assert ex.ids == cyclic and [v for _, v in ex.sentence.options] == cyclic
    assert ex.count.value == f"{len(cyclic)} of {len(dev)} match"
    ex.structure.value = "all"
    ex.trace_type.value = "*ICH*"
    assert ex.ids and all(any(t == "*ICH*" for t in dev_graph.graph.trace) for dev_graph in dev
                          if dev_graph.id in ex.ids)
    ex.trace_type.value = "any"
    ex.show_labels.value = False
    assert 'class="label' not in ex.svg
    written = ex.save()
    assert [p.suffix for p in written] == [".svg", ".png"] and all(p.exists() for p in written)
    assert written[0].read_text() == ex.svg
    assert written[0].name == f"graph_{ex.sentence.value}.svg"


def test_explorer_navigation_search_and_dropdown_text(dev, tmp_path):
    ex = explore(dev, outdir=tmp_path)
    ids = [s.id for s in dev]
    # the dropdown shows the id and the sentence's first words (as text, no markup)
    label, value = ex.sentence.options[0]
    assert value == ids[0] and label.startswith(ids[0] + " \u2014 Criminal charges were filed")
    assert all("<" not in lab for lab, _ in ex.sentence.options)
    # previous / next walk the matches and stop at the ends
    assert ex.previous_button.disabled and not ex.next_button.disabled
    ex.next()
    ex.next()
    assert ex.sentence.value == ids[2]
    ex.previous()
    assert ex.sentence.value == ids[1]
    ex.sentence.value = ids[-1]
    assert ex.next_button.disabled
    ex.next()
    assert ex.sentence.value == ids[-1]
    # search over the words as drawn: "5/8" finds the treebank's 5\/8
    ex.search.value = "5/8"
    expected = [s.id for s in dev if any("5\\/8" in w for w in s.graph.words)]
    assert expected and ex.ids == expected
    assert ex.count.value == f"{len(expected)} of {len(dev)} match"
    assert ex.sentence.value == expected[0] and "5/8" in ex.caption and "\\/" not in ex.caption
    ex.search.value = "  Criminal   CHARGES "   # case and spacing do not matter
    assert ex.ids == [ids[0]]
    ex.search.value = "no such words anywhere"
    assert ex.ids == [] and ex.svg == "" and ex.save() == [] and ex.count.value == f"0 of {len(dev)} match"
    ex.search.value = "wsj_0141.2"  # ids match too
    assert ex.ids and all(i.startswith("wsj_0141.2") for i in ex.ids)
    # no literal markup in plain-text widgets; the HTML caption escapes the sentence
    for text in (ex.count.value, ex.status.value, ex.caption):
        assert "<b>" not in text
    assert "<b>" in ex.text.value and ex.text.value.count("<b>") == 1


def test_explorer_zoom_and_fit(dev, tmp_path):
    ex = explore(dev, outdir=tmp_path)
    ex.sentence.value = max(dev, key=lambda s: len(s.graph.words)).id
    lay = compute_layout(ex.current())
    full = ex.svg
    assert f'width="{lay.width:.1f}"' in full.split(">", 1)[0]
    ex.zoom.value = 2.0
    head = ex.canvas.value.split("<svg", 1)[1].split(">", 1)[0]
    assert f'width="{2 * lay.width:.1f}"' in head and f'height="{2 * lay.height:.1f}"' in head
    assert "overflow-x:auto" in ex.canvas.value  # full size scrolls sideways
    ex.zoom.value = "fit"
    head = ex.canvas.value.split("<svg", 1)[1].split(">", 1)[0]
    assert 'width="100%"' in head and f"max-width:{lay.width:.1f}px" in head and "height=" not in head
    assert ex.svg == full  # zoom changes the display, not the drawing that Save writes
    ex.next()
    assert 'width="100%"' in ex.canvas.value  # the zoom stays when the sentence changes


def test_save_names_every_sentence_apart(dev, tmp_path, monkeypatch):
    from plgraph.viz import default_figures_dir, figure_stem

    same_file = [s.id for s in dev if s.id.startswith("wsj_0141.")]
    assert "wsj_0141.22" in same_file and len(same_file) > 3
    ex = explore(dev, outdir=tmp_path / "out")
    saved = {}
    for sid in ("wsj_0141.2", "wsj_0141.22", same_file[0]):
        ex.sentence.value = sid
        svg_path, png_path = ex.save()
        saved[sid] = svg_path.read_text()
        assert svg_path == tmp_path / "out" / f"graph_{sid}.svg" and png_path.name == f"graph_{sid}.png"
        assert f"<title>{sid}</title>" in saved[sid] and png_path.stat().st_size > 1000
        assert ex.status.value == f"saved {svg_path} and {png_path.name}"
    ex.next()
    assert ex.status.value == ""  # the "saved" line does not outlive its sentence
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert names == sorted(f"graph_{sid}.{ext}" for sid in saved for ext in ("png", "svg"))
    assert len(set(saved.values())) == 3
    assert figure_stem("wsj_0141.22") == "graph_wsj_0141.22"
    assert figure_stem("../a b/c", compare=True) == "graph__a_b_c_compare"  # no folder escapes, no spaces
    # default folder: $PLGRAPH_FIGURES, else the checkout's figures/ (not the working directory)
    import plgraph

    monkeypatch.delenv("PLGRAPH_FIGURES", raising=False)
    monkeypatch.chdir(tmp_path)
    repo = Path(plgraph.__file__).resolve().parent.parent
    assert default_figures_dir() == repo / "figures"
    assert explore(dev[:2]).outdir == repo / "figures"
    monkeypatch.setenv("PLGRAPH_FIGURES", str(tmp_path / "elsewhere"))
    assert explore(dev[:2]).outdir == tmp_path / "elsewhere"


def test_violating_gapping_edges_keep_their_colour(dev):
    """wsj_0163.3 (hand-checked): both gapping (=) edges violate 1EC."""
    from plgraph.viz.layout import HIGHLIGHT_COLOURS, TRACE_COLOURS

    g = next(s.graph for s in dev if s.id == "wsj_0163.3")
    gapping = [a for a in compute_layout(g).arcs if a.trace == "="]
    assert len(gapping) == 2
    for a in gapping:
        assert "violation" in a.classes and a.halo == "violation"
        assert a.stroke == a.colour == TRACE_COLOURS["="] != HIGHLIGHT_COLOURS["violation"]
    svg = render_svg(g)
    paths = re.findall(r'<path class="edge trace[^"]*violation[^"]*" data-edge="\d+" data-child="\d+" '
                       r'data-parent="\d+" data-label="=" d="[^"]*" stroke="([^"]+)"[^>]*'
                       r'filter="url\(#halo-violation\)"', svg)
    assert paths == [TRACE_COLOURS["="]] * 2
    assert f'flood-color="{HIGHLIGHT_COLOURS["violation"]}"' in svg
    assert "halo" not in render_svg(g, highlight=False)


def test_legend_names_every_style(dev):
    from plgraph.viz import legend_entries, legend_html
    from plgraph.viz.layout import COMPARE_COLOURS, HIGHLIGHT_COLOURS, STRUCTURAL_COLOUR, TRACE_COLOURS

    ex = explore(dev)
    types = ex.trace_types
    assert set(types) == {"*", "*T*", "=", "*RNR*", "*ICH*", "*EXP*", "*PPA*"}
    entries = legend_entries(types)
    colours = [c for _, c, _, _ in entries]
    assert colours[0] == STRUCTURAL_COLOUR and [TRACE_COLOURS[t] for t in types] == colours[1:1 + len(types)]
    names = [n for n, _, _, _ in entries]
    assert {"structural", "crossing", "1EC violation", "cycle"} <= set(names)
    assert any("gapping" in n for n in names)
    # every colour tells one thing: gapping is not the 1EC-violation orange, no type colour is a highlight
    special = set(HIGHLIGHT_COLOURS.values()) | {STRUCTURAL_COLOUR}
    assert len(set(TRACE_COLOURS.values())) == len(TRACE_COLOURS) and not special & set(TRACE_COLOURS.values())
    assert TRACE_COLOURS["="] != HIGHLIGHT_COLOURS["violation"]
    html = legend_html(types)
    assert all(c in html for c in colours) and "1EC violation" in html
    compare = legend_html(types, compare=True)
    assert all(c in compare for c in COMPARE_COLOURS.values()) and "missing" in compare
    # the explorer shows it, and every colour of the current drawing is in it
    ex.sentence.value = "wsj_0140.0"
    drawn = set(re.findall(r'stroke="(#[0-9a-f]{6})"', ex.svg))
    assert drawn and drawn <= set(colours)
    assert ex.legend.value == html


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
