"""The projective first-order arc pass: a labelled Eisner parser over the
structural edges (no traces, no spines), built on :mod:`plgraph.dep`.

Each sentence becomes a dependency tree whose labels are the attachment nodes
(``VP_1``, ``ROOT_0``) and whose word forms are normalised as the graph parser
normalises them.  Label candidates are those seen in training for the
arc's class (head POS, dependent POS, direction) — plgraph.dep's ``pos``
constraint, a little stricter than the reference's "seen with the child's or the
parent's POS".  Max-marginals of arcs and of chart cells come from
:func:`plgraph.pruners._chart.span_max_marginals` over the model's best-label
arc scores.
"""
from __future__ import annotations

import numpy as np

from ..dep.conll import DepSentence
from ..dep.model import DepConfig, DepModel
from ..encoding import dep_tokens
from ._chart import span_max_marginals
from .data import SentenceData, WordNormaliser

ARC_CONFIG = DepConfig(order=1, root="single", taxonomy_depth=2, pseudo_projective="none", label_constraint="pos")


def dep_sentence(sd: SentenceData, normaliser: WordNormaliser, with_tree: bool = True) -> DepSentence:
    """The sentence as a CoNLL-U tree (FORM = normalised word, UPOS = XPOS = PTB tag) --
    the CoNLL edge, for training the arc model with :func:`plgraph.dep.train.train` and
    for writing CoNLL; scoring reads :func:`plgraph.encoding.dep_tokens` instead."""
    cols = dep_tokens(sd, normaliser, with_tree)
    rows = []
    for i, (w, t) in enumerate(zip(cols.forms, cols.upos)):
        head = str(int(cols.heads[i])) if with_tree else "_"
        label = cols.deprels[i] if with_tree else "_"
        rows.append([str(i + 1), w, "_", t, t, "_", head, label, "_", "_"])
    return DepSentence([f"# sent_id = {sd.id}"], rows, list(range(len(rows))))


class ArcPass:
    """A trained arc-pass model and its max-marginals.

    Score tables are in dependency positions (0 = ROOT, word k at k): the arc pass is
    the dependency parser's Eisner chart, a CoNLL-edge client;
    :func:`plgraph.encoding.dep_to_chart_table` re-indexes them to chart positions."""

    def __init__(self, model: DepModel):
        self.model = model

    def encode(self, sentences: list[SentenceData], normaliser: WordNormaliser, with_tree: bool = False):
        """The model's encoded arrays (:class:`plgraph.dep.features.Encoded`) of
        ``sentences``, straight from their token arrays (no CoNLL rows)."""
        return self.model.encode([dep_tokens(s, normaliser, with_tree) for s in sentences], gold=with_tree)

    def scores(self, sentence, i: int = 0) -> np.ndarray:
        """Best-label arc scores ``S[h, d]`` (h = 0 is ROOT; words 1..n) of a
        DepSentence / TokenColumns, or of sentence ``i`` of an encoded batch."""
        S, _, _ = self.model.arc_scores(sentence, i)
        return np.asarray(S, np.float64)

    def label_scores(self, sentence, i: int = 0) -> np.ndarray:
        """Per-label arc scores ``T[h, d, l]`` (:meth:`plgraph.dep.model.DepModel.label_scores`)."""
        return self.model.label_scores(sentence, i)

    def max_marginals(self, sentence, i: int = 0):
        """(arc max-marginals, cell max-marginals, best score), positions 0 = ROOT."""
        return span_max_marginals(self.scores(sentence, i))

    def parse(self, sentences: list[DepSentence]) -> list[DepSentence]:
        return self.model.parse(sentences)

    def labels_allowed(self) -> int:
        return len(self.model.labels)

    def allowed_label_counts(self, sentence, i: int = 0) -> tuple[np.ndarray, int]:
        """(number of labels allowed for each arc h -> d of the sentence, total labels):
        the arc's class (head POS, dependent POS, direction) under the model's label
        constraint.  ``sentence``: a DepSentence / TokenColumns, or an encoded batch and
        the index ``i`` of the sentence in it."""
        m = self.model
        enc, i = m._encoded(sentence, i)
        n = int(enc.n[i])
        cpos_keys, lab_off = m.cpos_keys, m.lab_off
        nc = cpos_keys.shape[0] + 1
        coarse = enc.atoms[enc.row0[i] + 1: enc.row0[i] + 2 + n, 2]  # ROOT row, then the words
        idx = np.searchsorted(cpos_keys, coarse)
        idx = np.where((idx < cpos_keys.shape[0]) & (cpos_keys[np.minimum(idx, cpos_keys.shape[0] - 1)] == coarse),
                       idx, nc - 1)
        out = np.zeros((n + 1, n + 1), np.int64)
        for h in range(n + 1):
            for d in range(1, n + 1):
                if h == d:
                    continue
                cls = (idx[h] * nc + idx[d]) * 2 + int(h < d)
                out[h, d] = lab_off[cls + 1] - lab_off[cls]
        return out, len(m.labels)
