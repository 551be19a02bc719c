"""Deprel taxonomies for the label generalisation of Schiehlen & Spranger (2007).

Their intermediate layer groups deprels into *complement, adjunct, marker,
punctuation, coordination* (the copy of their paper we hold stops before that
section; this follows a summary of it).  We add an ``other`` class for relations that are none of these
(multiword expressions, loose joining, root) and, for UD labels with a subtype
(``nsubj:pass``), an extra level for the universal relation, so the path of
``nsubj:pass`` is ``complement / nsubj / nsubj:pass`` and it shares weights with
``nsubj`` (our extension; ``depth=3`` switches it off).

Known label inventories: UD v2, UD v1 (Basque-BDT r1.4) and the CoNLL 2007 Basque
labels of NLTK's ``eus.*``; any other label goes to ``other``.  Pseudo-projective
labels (``nsubj↑obj``) take the class of their first part.
"""
from __future__ import annotations

from ..learn.labels import LabelTaxonomy

LIFT = "\u2191"   # ↑ joins a lifted arc's label with its original head's label

CLASSES = {
    "complement": """nsubj obj iobj csubj ccomp xcomp expl dobj nsubjpass csubjpass
                     ncsubj ncobj nczobj ncpred ccomp_obj ccomp_subj ccomp_zobj xcomp_obj xcomp_subj
                     xcomp_zobj xpred cpred aponcpred""",
    "adjunct": """obl advcl advmod amod nmod nummod acl appos vocative discourse dislocated neg
                  ncmod cmod xmod gradmod galdemod prtmod aponcmod apocmod apoxmod""",
    "marker": "aux cop mark det case clf auxpass auxmod detmod",
    "punctuation": "punct PUNC PUNT",
    "coordination": "conj cc lot lotat",
    "other": """compound fixed flat mwe name list parataxis orphan goeswith reparandum root dep foreign
                remnant ROOT mw itj_out meta""",
}
_CLASS_OF = {lab: cls for cls, labs in CLASSES.items() for lab in labs.split()}


def relation_class(label: str) -> str:
    """Class of a deprel (its universal part decides; unknown labels -> ``other``)."""
    base = label.split(LIFT)[0]
    return _CLASS_OF.get(base.split(":")[0], _CLASS_OF.get(base, "other"))


def deprel_path(label: str, depth: int = 4) -> tuple:
    """Taxonomy path below the top node for ``label``.

    ``depth=4``: class / universal relation / full label (the last level only when the
    label has a subtype or a lifting suffix); ``depth=3``: class / label;
    ``depth=2``: label only (a flat taxonomy: top plus one copy per label)."""
    if depth == 2:
        return (label,)
    cls = relation_class(label)
    if depth == 3:
        return (cls, label)
    base = label.split(LIFT)[0].split(":")[0]
    return (cls, base) if base == label else (cls, base, label)


def deprel_taxonomy(labels, depth: int = 4) -> LabelTaxonomy:
    labels = list(labels)
    return LabelTaxonomy(labels, [deprel_path(lab, depth) for lab in labels])
