"""The projective first-order arc pass: a labelled Eisner parser over the
structural edges (no traces, no spines), built on :mod:`plgraph.dep`.

Each sentence becomes a dependency tree whose labels are the attachment nodes
(``VP_1``, ``ROOT_0``) and whose word forms are normalised as the graph parser
normalises them (§5.3).  Label candidates are those seen in training for the
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
from ._chart import span_max_marginals
from .data import SentenceData, WordNormaliser

ARC_CONFIG = DepConfig(order=1, root="single", taxonomy_depth=2, pseudo_projective="none", label_constraint="pos")


def dep_sentence(sd: SentenceData, normaliser: WordNormaliser, with_tree: bool = True) -> DepSentence:
    """The sentence as a CoNLL-U tree (FORM = normalised word, UPOS = XPOS = PTB tag)."""
    rows = []
    for i, (w, t) in enumerate(zip(sd.words, sd.tags)):
        head = str(int(sd.heads[i])) if with_tree else "_"
        label = sd.labels[i] if with_tree else "_"
        rows.append([str(i + 1), normaliser(w), "_", t, t, "_", head, label, "_", "_"])
    return DepSentence([f"# sent_id = {sd.id}"], rows, list(range(len(rows))))


class ArcPass:
    """A trained arc-pass model and its max-marginals."""

    def __init__(self, model: DepModel):
        self.model = model

    def scores(self, sentence: DepSentence) -> np.ndarray:
        """Best-label arc scores ``S[h, d]`` (h = 0 is ROOT; words 1..n)."""
        S, _, _ = self.model.arc_scores(sentence)
        return np.asarray(S, np.float64)

    def max_marginals(self, sentence: DepSentence):
        """(arc max-marginals, cell max-marginals, best score), positions 0 = ROOT."""
        return span_max_marginals(self.scores(sentence))

    def parse(self, sentences: list[DepSentence]) -> list[DepSentence]:
        return self.model.parse(sentences)

    def labels_allowed(self) -> int:
        return len(self.model.labels)

    def allowed_label_counts(self, sentence: DepSentence) -> tuple[np.ndarray, int]:
        """(number of labels allowed for each arc h -> d of the sentence, total labels):
        the arc's class (head POS, dependent POS, direction) under the model's label
        constraint."""
        m = self.model
        enc = m.encode([sentence])
        n = len(sentence)
        cpos_keys, lab_off = m.cpos_keys, m.lab_off
        nc = cpos_keys.shape[0] + 1
        coarse = enc.atoms[enc.row0[0] + 1: enc.row0[0] + 2 + n, 2]  # ROOT row, then the words
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
