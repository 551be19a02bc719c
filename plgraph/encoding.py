"""One array-based encoding of a sentence, built once from a :class:`~plgraph.graph.Graph`.

:class:`EncodedSentence` (one sentence: strings once, gold structure as integer
arrays) and :class:`TokenBatch` (a list of sentences as flat token arrays for the
kernels: hashed normalised words and tags, tag ids) are what the coarse passes
(:mod:`plgraph.pruners`) and the dependency arc pass read; :func:`dep_tokens` gives the
dependency parser its token columns straight from them, without CoNLL rows.

**Positions (one convention for every chart).**  Words are ``0..n-1`` (word ``i + 1``
of the ``Graph``) and ROOT is ``n``, after the last word -- the reference parser's
convention and the graph parser's chart's.
:attr:`EncodedSentence.head` is in these positions.  Conversions happen only at the
edges, here and nowhere else:

* the CoNLL / :mod:`plgraph.dep` convention (ROOT = 0, word ``k`` at ``k``):
  :meth:`EncodedSentence.dep_heads`, :func:`to_dep_positions`, :func:`from_dep_positions`
  (the dependency parser and its Eisner chart, the arc pass's score tables and
  ``PrunedSentence`` live there);
* SHP / ``Graph`` (ROOT = 0, word ``k`` at ``k``, 1-based): the same functions.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .graph import STRUCTURAL, TRACE, Graph
from .learn.features import hash_strings


def to_dep_positions(p, n: int):
    """Chart positions (words 0..n-1, ROOT n) -> dependency positions (ROOT 0, words 1..n);
    -1 (none) stays -1.  Works on ints and integer arrays."""
    p = np.asarray(p, np.int64)
    return np.where(p < 0, -1, np.where(p == n, 0, p + 1))


def from_dep_positions(p, n: int):
    """Dependency positions (ROOT 0, words 1..n) -> chart positions (words 0..n-1, ROOT n);
    -1 stays -1."""
    p = np.asarray(p, np.int64)
    return np.where(p < 0, -1, np.where(p == 0, n, p - 1))


def dep_to_chart_table(T: np.ndarray) -> np.ndarray:
    """A table indexed ``[h, d, ...]`` in dependency positions (0 = ROOT) re-indexed to
    chart positions (ROOT last): ``out[i, j] = T[to_dep(i), to_dep(j)]``."""
    n = T.shape[0] - 1
    perm = np.concatenate([np.arange(1, n + 1), [0]])
    return T[perm][:, perm]


def spine_identity(graph: Graph, i: int) -> str:
    """The parser's identity of word ``i``'s spine (0-based): spine string plus
    any self-loop traces, e.g. ``(NP_(*T*))_VP_S_(WHNP_(0))_SBAR|WHNP_0:T:NP_0:T:*T*``."""
    loops = graph.spine_traces[i]
    return graph.spines[i] + ("|" + "|".join(sorted(loops)) if loops else "")


@dataclass
class EncodedSentence:
    """One sentence as the coarse passes and the parser read it.

    ``head`` / ``labels``: the gold structural tree, ``head[i]`` in chart positions
    (ROOT = n).  ``trace_child`` / ``trace_parent`` / ``trace_type``: the gold trace
    edges between words (0-based; self-loops excluded -- they belong to the spine --
    and edges to ROOT too), the first one of each ordered pair in the graph's edge order
    (the parser's multiplicity limit).  ``spines``: each word's spine identity
    (:func:`spine_identity`).

    Adapters for the former :class:`plgraph.pruners.data.SentenceData` (which this
    replaces): :attr:`heads` (dependency positions, 0 = ROOT) and :attr:`traces`
    (``{(child, parent): type}``)."""

    id: str
    words: list
    tags: list
    head: np.ndarray             # (n,) int64, chart positions: ROOT = n
    labels: list                 # (n,) attachment label of each word
    trace_child: np.ndarray      # (T,) int64, 0-based words
    trace_parent: np.ndarray     # (T,) int64
    trace_type: list             # (T,) trace type strings
    spines: list                 # (n,) spine identity

    @property
    def n(self) -> int:
        return len(self.words)

    def dep_heads(self) -> np.ndarray:
        """Gold heads in dependency positions (0 = ROOT, word k at k): the CoNLL edge."""
        return to_dep_positions(self.head, self.n)

    @property
    def heads(self) -> np.ndarray:
        """The former ``SentenceData.heads``: :meth:`dep_heads`."""
        return self.dep_heads()

    @property
    def traces(self) -> dict:
        """``{(child, parent): type}`` (0-based words), in the graph's edge order."""
        return {(c, p): t for c, p, t in zip(self.trace_child.tolist(), self.trace_parent.tolist(), self.trace_type)}


def encode_graph(graph: Graph) -> EncodedSentence:
    """The :class:`EncodedSentence` of ``graph`` (built once; no other copy of the
    sentence is needed by the coarse passes)."""
    n = len(graph.words)
    head = np.full(n, n, np.int64)
    labels = [""] * n
    seen: dict = {}
    for c, p, k, lab, tr in zip(graph.child.tolist(), graph.parent.tolist(), graph.kind.tolist(),
                                graph.label.tolist(), graph.trace.tolist()):
        if k == STRUCTURAL:
            head[c - 1] = n if p == 0 else p - 1
            labels[c - 1] = lab
        elif k == TRACE and c != p and p != 0:
            seen.setdefault((c - 1, p - 1), tr)
    tc = np.array([c for c, _ in seen], np.int64)
    tp = np.array([p for _, p in seen], np.int64)
    return EncodedSentence(graph.id, list(graph.words), list(graph.tags), head, labels, tc, tp, list(seen.values()),
                           [spine_identity(graph, i) for i in range(n)])


@dataclass
class TokenBatch:
    """Token arrays of a list of sentences (CSR over sentences), what the classifier
    kernels read: ``wh`` hashed normalised words, ``th`` hashed tags, ``tid`` tag ids
    (of the tag vocabulary, unknown -> its ``unk``).  Sentence ``s`` is tokens
    ``tok_off[s] .. tok_off[s + 1] - 1``."""

    tok_off: np.ndarray
    wh: np.ndarray
    th: np.ndarray
    tid: np.ndarray

    def span(self, s: int) -> tuple[int, int]:
        """(first token, number of tokens) of sentence ``s``."""
        return int(self.tok_off[s]), int(self.tok_off[s + 1] - self.tok_off[s])

    def __len__(self) -> int:
        return int(self.tok_off.shape[0] - 1)


def encode_tokens(sentences, normaliser, tags) -> TokenBatch:
    """:class:`TokenBatch` of :class:`EncodedSentence` s with a fitted word normaliser
    (``plgraph.pruners.data.WordNormaliser``) and tag vocabulary."""
    lengths = np.array([len(s.words) for s in sentences], np.int64)
    tok_off = np.zeros(len(sentences) + 1, np.int64)
    np.cumsum(lengths, out=tok_off[1:])
    words = [normaliser(w) for s in sentences for w in s.words]
    tag_list = [t for s in sentences for t in s.tags]
    return TokenBatch(tok_off, hash_strings(words), hash_strings(tag_list),
                      np.array([tags.get(t) for t in tag_list], np.int64))


def dep_tokens(sentence: EncodedSentence, normaliser, with_tree: bool = True):
    """The dependency parser's token columns of ``sentence``
    (:class:`plgraph.dep.features.TokenColumns`: FORM = normalised word, UPOS = XPOS =
    PTB tag, no lemma or features; with ``with_tree`` the gold heads -- dependency
    positions, the edge -- and attachment labels, else none)."""
    from .dep.features import TokenColumns
    n = sentence.n
    if with_tree:
        heads, deprels = sentence.dep_heads(), list(sentence.labels)
    else:
        heads, deprels = np.full(n, -1, np.int64), ["_"] * n
    return TokenColumns([normaliser(w) for w in sentence.words], list(sentence.tags), list(sentence.tags),
                        ["_"] * n, ["_"] * n, heads, deprels)
