"""plgraph.encoding: one array encoding per sentence, ROOT after the last word.

Hand-checked fixtures for the positions and the gold arrays; on the real sample
corpus, the arrays against a direct reading of the graph edges, and the dependency
parser's atoms from the token arrays against those of the CoNLL rows the arc pass
built before (the former ``pruners.arcpass.dep_sentence``, rebuilt here)."""
from __future__ import annotations

import numpy as np
import pytest

from plgraph.dep.conll import DepSentence
from plgraph.dep.features import encode as dep_encode
from plgraph.encoding import (dep_to_chart_table, dep_tokens, encode_graph, encode_tokens, from_dep_positions,
                              to_dep_positions)
from plgraph.graph import STRUCTURAL, TRACE, Graph
from plgraph.learn import hash_strings
from plgraph.pruners.data import Vocabulary, WordNormaliser


def _hand_graph():
    # "who saw it": saw <- ROOT; who, it <- saw; a *T* trace who -> it (twice, with two
    # types: the first counts), a self-loop on "it" (spine) and a trace to ROOT (dropped)
    words, tags, spines = ["who", "saw", "it"], ["WP", "VBD", "PRP"], ["WHNP", "VP_S", "NP"]
    edges = [(2, 0, STRUCTURAL, "ROOT_0", False, "S_0", False, "_"),
             (1, 2, STRUCTURAL, "S_0", False, "WHNP_0", False, "_"),
             (3, 2, STRUCTURAL, "VP_0", False, "NP_0", False, "_"),
             (1, 3, TRACE, "NP_0", True, "WHNP_0", False, "*T*"),
             (1, 3, TRACE, "NP_0", True, "WHNP_0", False, "*"),
             (3, 3, TRACE, "NP_0", True, "NP_0", False, "*"),
             (1, 0, TRACE, "ROOT_0", True, "WHNP_0", False, "*")]
    return Graph.from_edges(words, tags, spines, edges, id="hand.0")


def test_hand_graph_arrays_root_last():
    es = encode_graph(_hand_graph())
    assert es.n == 3 and es.id == "hand.0"
    assert es.head.tolist() == [1, 3, 1]            # who -> saw (1), saw -> ROOT (n = 3), it -> saw
    assert es.dep_heads().tolist() == [2, 0, 2]     # CoNLL: ROOT = 0, word k at k
    assert es.heads.tolist() == [2, 0, 2]           # the former SentenceData.heads
    assert es.labels == ["S_0", "ROOT_0", "VP_0"]
    assert es.trace_child.tolist() == [0] and es.trace_parent.tolist() == [2] and es.trace_type == ["*T*"]
    assert es.traces == {(0, 2): "*T*"}
    assert es.spines == ["WHNP", "VP_S", "NP|NP_0:T:NP_0:F:*"]


def test_position_conversions_by_hand():
    n = 4
    assert to_dep_positions([0, 1, 3, 4, -1], n).tolist() == [1, 2, 4, 0, -1]
    assert from_dep_positions([1, 2, 4, 0, -1], n).tolist() == [0, 1, 3, 4, -1]
    p = np.arange(-1, n + 1)
    assert np.array_equal(from_dep_positions(to_dep_positions(p, n), n), p)
    T = np.arange(9).reshape(3, 3)                  # dependency positions: row/col 0 = ROOT
    U = dep_to_chart_table(T)                       # chart: ROOT = 2
    assert U.tolist() == [[4, 5, 3], [7, 8, 6], [1, 2, 0]]


def test_real_graphs_arrays_match_their_edges(sample_graphs):
    checked = 0
    for g in sample_graphs[:300]:
        es = encode_graph(g)
        n = len(g.words)
        pairs = {}
        for c, p, k, lab, tr in zip(g.child.tolist(), g.parent.tolist(), g.kind.tolist(), g.label.tolist(),
                                    g.trace.tolist()):
            if k == STRUCTURAL:
                assert es.head[c - 1] == (n if p == 0 else p - 1)
                assert es.labels[c - 1] == lab
                checked += 1
            elif k == TRACE and c != p and p != 0 and (c - 1, p - 1) not in pairs:
                pairs[(c - 1, p - 1)] = tr
        assert es.traces == pairs
        assert (es.head != np.arange(n)).all() and (es.head == n).sum() >= 1
    assert checked > 5000


def _old_dep_sentence(es, norm, with_tree):
    # the CoNLL rows the arc pass scored from before the shared encoding (FORM = normalised word,
    # UPOS = XPOS = tag, HEAD 0 = ROOT)
    rows = [[str(i + 1), norm(w), "_", t, t, "_", str(int(h)) if with_tree else "_", lab if with_tree else "_",
             "_", "_"] for i, (w, t, h, lab) in enumerate(zip(es.words, es.tags, es.dep_heads(), es.labels))]
    return DepSentence([f"# sent_id = {es.id}"], rows, list(range(len(rows))))


@pytest.mark.parametrize("with_tree", [False, True])
def test_dep_atoms_from_arrays_equal_the_conll_rows(sample_graphs, with_tree):
    sents = [encode_graph(g) for g in sample_graphs[:200]]
    norm = WordNormaliser.fit([w for s in sents for w in s.words])
    old = dep_encode([_old_dep_sentence(s, norm, with_tree) for s in sents])
    new = dep_encode([dep_tokens(s, norm, with_tree) for s in sents])
    for name in ("atoms", "row0", "word0", "n", "heads"):
        assert np.array_equal(getattr(old, name), getattr(new, name)), name
    if with_tree:
        assert (new.heads >= 0).all()


def test_token_batch(sample_graphs):
    sents = [encode_graph(g) for g in sample_graphs[:20]]
    norm = WordNormaliser.fit([w for s in sents for w in s.words])
    tags = Vocabulary([t for s in sents[:10] for t in s.tags], unk="<UNK>").freeze()
    tb = encode_tokens(sents, norm, tags)
    assert len(tb) == 20 and tb.tok_off[-1] == sum(s.n for s in sents)
    base, n = tb.span(13)
    assert n == sents[13].n
    assert np.array_equal(tb.wh[base:base + n], hash_strings([norm(w) for w in sents[13].words]))
    assert np.array_equal(tb.th[base:base + n], hash_strings(sents[13].tags))
    assert [tags[i] if tags[i] in sents[13].tags else "?" for i in tb.tid[base:base + n]] == \
        [t if t in tags.index else "?" for t in sents[13].tags]
