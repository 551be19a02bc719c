r"""Trace accuracy by construction: which null elements and co-indexations a parser gets.

Every item of the Johnson (2002) metric (:func:`plgraph.eval.traces.tree_items`) is put in
one construction by where it sits in its tree (:func:`construction_of`, on the labels
before the metric's edits, function tags kept), following the PTB bracketing guidelines'
conventions (Bies et al. 1995):

| construction | the item |
|---|---|
| wh-question | ``*T*`` with a WH antecedent whose clause is an ``SBARQ`` |
| relative clause | ``*T*`` with a WH antecedent (overt, or the null ``0``) in an ``SBAR`` right under an ``NP`` |
| embedded wh | ``*T*`` with a WH antecedent in any other ``SBAR`` (indirect questions, free relatives: "know who she wanted to see") |
| topicalisation | ``*T*`` with a non-WH antecedent (mostly fronted quotations, ``S-TPC``) |
| passive | ``*`` (indexed or not) as the object ``NP`` of a ``VP`` (an NP that is not a subject) |
| raising/control | ``*-N`` as the subject (``NP-SBJ``) of a clause: an infinitive's subject controlled or raised by a higher argument |
| PRO (no index) | ``*`` as a subject with no antecedent (arbitrary control) |
| other \*-N | any other indexed ``*`` (e.g. the subject of a fronted clause) |
| \*U\*, \*EXP\*, \*ICH\*, \*RNR\*, \*?\*, \*PPA\* | those null words, by their name |
| 0 | the null complementiser or relative pronoun ``0``, an item of its own (unindexed) |
| gapping | the ``=N`` co-indexation of a gapped constituent |
| other | anything else |

:func:`by_construction` scores parses per construction as the Johnson metric scores per
type: a gold item is matched when the same item is among the test tree's items (the
reference's rule), gold items are classified in the gold tree and test items in the test
tree; :func:`construction_counts` counts the gold items of each construction (say in
the train split, to read accuracy against how often a construction was seen).
"""
from __future__ import annotations

from typing import Iterable, Sequence

from ._scores import prf
from .traces import ItemContext

#: the constructions, in report order
CONSTRUCTIONS = ("wh-question", "relative clause", "embedded wh", "topicalisation", "passive", "raising/control",
                 "PRO (no index)", "other *-N", "*U*", "*EXP*", "*ICH*", "*RNR*", "*?*", "*PPA*", "0", "gapping",
                 "other")
_NAMED = {"*U*", "*EXP*", "*ICH*", "*RNR*", "*?*", "*PPA*"}


def _base(label: str) -> str:
    """A label's category without function tags and indices (``NP-SBJ-1`` -> ``NP``)."""
    if not label or label.startswith("-"):
        return label
    return label.replace("=", "-").split("-")[0]


def _is_subject(label: str) -> bool:
    return "-SBJ" in label


def construction_of(ctx: ItemContext) -> str:
    """The construction (:data:`CONSTRUCTIONS`) of an item of the Johnson metric from
    where it sits (:class:`~plgraph.eval.traces.ItemContext`; module docstring)."""
    kind = ctx.kind
    if kind == "gap":
        return "gapping"
    if kind in _NAMED:
        return kind
    anc = ctx.ancestors
    if kind == "*T*":
        ante = ctx.antecedent
        if ante and _base(ante[0]).startswith("WH"):
            clause = _base(ante[1]) if len(ante) > 1 else ""
            if clause == "SBARQ":
                return "wh-question"
            if clause == "SBAR" and len(ante) > 2 and _base(ante[2]) == "NP":
                return "relative clause"
            return "embedded wh"
        return "topicalisation"
    if kind == "*":
        np_ = anc[0] if anc else ""
        above = _base(anc[1]) if len(anc) > 1 else ""
        if _base(np_) == "NP" and not _is_subject(np_) and above == "VP":
            return "passive"
        if _is_subject(np_):
            return "raising/control" if ctx.indexed else "PRO (no index)"
        return "other *-N" if ctx.indexed else "other"
    if kind == "0" and not ctx.indexed:
        return "0"
    return "other"


def tree_constructions(tree, *, edit: bool = True) -> tuple[list, list]:
    """``(items, constructions)`` of one tree: its Johnson-metric items
    (:func:`~plgraph.eval.traces.tree_items`) and the construction of each."""
    from .traces import tree_items

    contexts: list = []
    items, _problems, _words = tree_items(tree, edit=edit, contexts=contexts)
    return items, [construction_of(c) for c in contexts]


def by_construction(gold: Sequence, test: Sequence) -> dict:
    """``{construction: {matched, gold, test, precision, recall, f1}}`` of ``test`` trees
    against ``gold`` trees (same order; trees or bracketed strings; a test tree None or
    empty is a failed parse whose gold items count, unmatched -- unlike the Johnson
    totals, where the reference leaves them out), constructions in
    :data:`CONSTRUCTIONS` order, those with neither gold nor test items left out."""
    from .traces import _as_tree

    gold = [_as_tree(g, "gold", k, "gold") for k, g in enumerate(gold)]
    test = [_as_tree(t, "test", k, "test") for k, t in enumerate(test)]
    if len(gold) != len(test):
        raise ValueError(f"{len(gold)} gold trees but {len(test)} test trees")
    counts = {c: [0, 0, 0] for c in CONSTRUCTIONS}
    for g, t in zip(gold, test):
        gi, gc = tree_constructions(g)
        ti, tc = tree_constructions(t) if t is not None else ([], [])
        tset = set(ti)
        for item, c in zip(gi, gc):
            counts[c][1] += 1
            counts[c][0] += item in tset
        for c in tc:
            counts[c][2] += 1
    out = {}
    for c, (m, g, t) in counts.items():
        if g or t:
            p, r, f = prf(m, g, t)
            out[c] = {"matched": m, "gold": g, "test": t, "precision": p, "recall": r, "f1": f}
    return out


def construction_counts(trees: Iterable) -> dict:
    """``{construction: number of items}`` of gold ``trees`` (every construction, 0 where
    none occurs)."""
    from .traces import _as_tree

    counts = dict.fromkeys(CONSTRUCTIONS, 0)
    for k, t in enumerate(trees):
        for c in tree_constructions(_as_tree(t, "gold", k, "gold"))[1]:
            counts[c] += 1
    return counts


def format_constructions(doc: dict, train_counts: dict | None = None) -> str:
    """The per-construction scores of :func:`by_construction` as a table, with the
    train split's counts (``train_counts``) when given."""
    head = f"{'construction':<16} {'gold':>5} {'test':>5} {'P':>6} {'R':>6} {'F':>6}"
    head += f" {'train':>6}" if train_counts is not None else ""
    lines = [head]
    for c, s in doc.items():
        line = (f"{c:<16} {s['gold']:5d} {s['test']:5d} {s['precision']:6.2f} {s['recall']:6.2f} "
                f"{s['f1']:6.2f}")
        if train_counts is not None:
            line += f" {train_counts.get(c, 0):6d}"
        lines.append(line)
    return "\n".join(lines) + "\n"


__all__ = ["CONSTRUCTIONS", "construction_of", "tree_constructions", "by_construction", "construction_counts",
           "format_constructions"]
