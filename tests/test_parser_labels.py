"""The parser's edge labels (plgraph.parser.scoring.labels): siblings, vocabulary, EITHER candidates."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

from plgraph.errors import InputError
from plgraph.graph import Graph
from plgraph.parser.scoring.labels import ROOT_TAG, Label, LabelVocab, bare_category, graph_labels, sibling_table


def test_sibling_is_the_non_null_node_below_the_attachment_level():
    assert sibling_table("VP_VP_S") == {("VP_0", False): "_", ("VP_1", False): "VP_0", ("S_0", False): "VP_1"}
    # a null node belongs to the level that hosts it: nothing non-null below VP_0
    t = sibling_table("(NP_(*T*))_VP_S")
    assert t[("NP_0", True)] == "_" and t[("VP_0", False)] == "_" and t[("S_0", False)] == "VP_0"
    # the null NP-SBJ is hosted by S (written just before it): its sibling is VP_0, as S's is
    t = sibling_table("VP_(NP-SBJ_(*T*))_S_SBAR")
    assert t[("NP-SBJ_0", True)] == "VP_0" == t[("S_0", False)] and t[("SBAR_0", False)] == "S_0"
    # null and non-null nodes of one label are counted apart
    t = sibling_table("(NP_(*))_NP_NP")
    assert t[("NP_0", True)] == "_" and t[("NP_1", False)] == "NP_0"
    assert sibling_table("_") == {}


def _graph(edges, spines=("NP", "VP_S", "_"), sid="tiny.0"):
    return Graph.from_edges(["Mary", "sleeps", "."], ["NNP", "VBZ", "."], list(spines), edges, id=sid)


def test_labels_of_a_small_graph():
    g = _graph([(1, 2, 0, "S_0", False, "NP_0", False, "_"),
                (2, 0, 0, "ROOT_0", False, "S_0", False, "_"),
                (3, 2, 0, "VP_0", False, "_", False, "_"),
                (1, 2, 1, "VP_0", False, "NP_0", False, "*")])
    labs = graph_labels(g)
    assert labs[0] == Label(0, "_", "NP_0", False, "S_0", False, "VP_0")
    assert labs[1] == Label(0, "_", "S_0", False, "ROOT_0", False, "_")      # ROOT's spine is ROOT_0 alone
    assert labs[2] == Label(0, "_", "_", False, "VP_0", False, "_")
    assert labs[3] == Label(1, "*", "NP_0", False, "VP_0", False, "")        # traces carry no sibling
    assert labs[0].text() == "_ NP_0 -> S_0 / VP_0"
    v = LabelVocab.from_graphs([g, g])
    assert len(v) == 4 and v.n_structural == 3 and v.n_trace == 1 and v.counts.tolist() == [2, 2, 2, 2]
    assert v.ids(g).tolist() == [v.index[lab] for lab in labs]
    # EITHER: "." as child took only the VP_0 label; VBZ as parent took three labels
    assert set(v.candidates(".", "VBZ").tolist()) == {v.index[labs[k]] for k in (0, 2, 3)}
    assert set(v.candidates("VBZ", ROOT_TAG).tolist()) == {v.index[labs[1]]}
    assert v.candidates("XX", "YY").size == 0


def test_an_attachment_the_spine_lacks_is_an_error_naming_the_sentence():
    g = _graph([(1, 2, 0, "NP_3", False, "NP_0", False, "_")], sid="wsj_9999.7")
    with pytest.raises(InputError, match=r"wsj_9999\.7.*NP_3.*'VP_S'"):
        graph_labels(g)


@pytest.fixture(scope="module")
def split_graphs(sample_graphs):
    from plgraph.data import SAMPLE_SPLITS

    def part(name):
        lo, hi = SAMPLE_SPLITS[name]
        return [g for g in sample_graphs if lo <= int(g.id[4:8]) <= hi]

    return part("train"), part("dev")


def _naive_candidate_sets(train):
    """Label tuples seen with each POS as child and as parent, read off the Graph fields
    directly (sibling by walking the spine string's top-level parts)."""
    from plgraph.spine import split_top

    def sibling(spine, node, null):
        # bottom to top: non-null parts count per label; null constituents "(LABEL_" count
        # per label across all null groups; a null node's sibling is the last non-null
        # node before its group (the group hangs below the next non-null level)
        below, seen, seen_null = "_", {}, {}
        for part in split_top(spine):
            if part.startswith("("):
                for label in re.findall(r"\(([^_()]+)_", part):
                    name = f"{label}_{seen_null.get(label, 0)}"
                    seen_null[label] = seen_null.get(label, 0) + 1
                    if null and name == node:
                        return below
            else:
                name = f"{part}_{seen.get(part, 0)}"
                seen[part] = seen.get(part, 0) + 1
                if not null and name == node:
                    return below
                below = name
        raise AssertionError((spine, node, null))

    by_c, by_p = {}, {}
    for g in train:
        tag = lambda i: ROOT_TAG if i == 0 else g.tags[i - 1]  # noqa: E731
        for c, p, k, lab, pn, cl, cn, tr in zip(g.child, g.parent, g.kind, g.label, g.parent_null,
                                                 g.child_label, g.child_null, g.trace):
            if c == p:
                continue
            sib = "" if k else ("_" if p == 0 else sibling(g.spines[p - 1], lab, bool(pn)))
            key = (int(k), tr, cl, bool(cn), lab, bool(pn), sib)
            by_c.setdefault(tag(c), set()).add(key)
            by_p.setdefault(tag(p), set()).add(key)
    return by_c, by_p


def test_vocabulary_and_either_candidates_on_the_sample(split_graphs, tmp_path):
    train, dev = split_graphs
    v = LabelVocab.from_graphs(train)
    # design notes 1ec-parser.md §3.1, measured on the same split
    assert (len(v), v.n_structural, v.n_trace) == (1423, 1304, 119)
    stats = v.either_stats(dev)
    assert stats["gold_edges"] == 10967                       # dev edges without self-loops (notes: 10,967)
    assert stats["labels_per_pair"] == pytest.approx(274.9, abs=1.0)      # notes: 274.9
    assert abs(stats["gold_not_candidate"] - 136) <= 5                     # notes: 136 (1.24%)
    # every train edge's label is a candidate of its own pair
    assert v.either_stats(train[:300])["gold_not_candidate"] == 0
    # candidate counts equal set unions computed straight from the Graph fields
    by_c, by_p = _naive_candidate_sets(train)
    for g in dev[:12]:
        counts = v.candidate_counts(g.tags)
        tags = [ROOT_TAG] + list(g.tags)
        for c in range(1, len(g) + 1):
            for p in range(len(g) + 1):
                want = 0 if c == p else len(by_c.get(tags[c], set()) | by_p.get(tags[p], set()))
                assert counts[c, p] == want, (g.id, c, p)
        s = v.candidate_counts(g.tags, kind=0) + v.candidate_counts(g.tags, kind=1)
        assert np.array_equal(s, counts)
    # files round-trip; a damaged one is an InputError naming it
    v.save(tmp_path / "labels.json")
    w = LabelVocab.load(tmp_path / "labels.json")
    assert w.labels == v.labels and np.array_equal(w.counts, v.counts)
    assert all(np.array_equal(w.candidates(a, b), v.candidates(a, b)) for a, b in [("NN", "VBD"), ("DT", "NN")])
    doc = json.loads((tmp_path / "labels.json").read_text())
    doc["child_tags"]["NN"] = [5000]
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(InputError, match=r"bad\.json.*outside 0\.\.1422"):
        LabelVocab.load(tmp_path / "bad.json")
    (tmp_path / "cut.json").write_text((tmp_path / "labels.json").read_text()[:100])
    with pytest.raises(InputError, match=r"cut\.json.*damaged"):
        LabelVocab.load(tmp_path / "cut.json")


def _vocab(labels):
    return LabelVocab(labels, np.ones(len(labels), np.int64), {}, {})


def test_backoff_classes_group_labels_by_their_fields():
    """Two labels share a tier's class iff they agree on that tier's fields (kind; kind,
    trace type, child and parent names); classes of different tiers never share an id."""
    labels = [Label(0, "_", "NP-SBJ_0", False, "S_0", False, "VP_0"),
              Label(0, "_", "NP-SBJ_0", False, "S_0", False, "_"),        # another sibling
              Label(0, "_", "NP-SBJ_0", True, "S_0", False, "_"),         # null child
              Label(0, "_", "NP_0", False, "VP_0", False, "_"),
              Label(1, "*T*", "WHNP_0", False, "NP_0", True, ""),
              Label(1, "*", "_", False, "NP-SBJ_0", True, ""),
              Label(1, "*T*", "WHNP_0", True, "NP_0", False, "")]        # nulls swapped
    v = _vocab(labels)
    assert v.backoff_classes("none").shape == (7, 0)
    kind = v.backoff_classes("kind")[:, 0]
    assert kind.tolist() == [0, 0, 0, 0, 1, 1, 1]
    both = v.backoff_classes("kind+nodes")
    assert both[:, 0].tolist() == kind.tolist()
    nodes = both[:, 1]
    fields = [(lab.kind, lab.trace, lab.child, lab.parent) for lab in labels]
    for i in range(7):
        for j in range(7):
            assert (nodes[i] == nodes[j]) == (fields[i] == fields[j])
    assert not set(nodes.tolist()) & set(kind.tolist())
    assert len(set(nodes.tolist())) == 4
    np.testing.assert_array_equal(v.backoff_classes("nodes")[:, 0], nodes - 2)
    cats = v.backoff_classes("kind+cats+nodes")
    np.testing.assert_array_equal(cats[:, 0], kind)
    # NP-SBJ_0 -> S_0 and NP_0 -> VP_0 stay apart (S vs VP); the two *T* WHNP -> NP share
    assert cats[:, 1].tolist() == [2, 2, 2, 3, 4, 5, 4]
    assert cats[:, 2].min() == 6 and len(set(cats[:, 2].tolist())) == 4


@pytest.mark.parametrize("node,bare", [("NP-SBJ_0", "NP"), ("S-TPC-1_2", "S"), ("PP-LOC=2_0", "PP"),
                                       ("-NONE-_0", "-NONE-"), ("_", "_"), ("ROOT_0", "ROOT"), ("VP_1", "VP")])
def test_bare_category_drops_function_tags_indices_and_level(node, bare):
    assert bare_category(node) == bare


@pytest.mark.parametrize("spec", ["", "label", "kind+kind", "kind,nodes", "none+kind"])
def test_an_unknown_backoff_is_an_error_naming_it(spec):
    with pytest.raises(ValueError, match=re.escape(repr(spec))):
        _vocab([Label(0, "_", "NP_0", False, "S_0", False, "_")]).backoff_classes(spec)
