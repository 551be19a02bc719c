"""Who did what to whom: one readable record per null element of a parsed tree.

:func:`trace_records` reads a PTB tree with null elements and co-indices (a parse, or a
treebank tree) and gives, for every ``-NONE-`` leaf, a :class:`TraceRecord`:

* ``type``: the null element without its index (``*T*``, ``*``, ``*U*``, ``*EXP*``,
  ``*ICH*``, ``*RNR*``, ``0``, ``*?*``, ``*PPA*``) and ``index``, its co-index or None;
* ``category``: the label of the constituent the null element stands for, function tags
  kept (``NP-SBJ``, ``NP``, ``WHNP``, ``SBAR``), and ``function``: what that constituent
  is to its clause, read off the function tags as the PTB bracketing guidelines (Bies et
  al. 1995) define them (``-SBJ`` subject, ``-LGS`` logical subject, ``-PRD`` predicate,
  ``-DTV`` dative, ``-TMP`` temporal ...) and, for a constituent without one, from where
  it sits: an ``NP`` in a ``VP`` is the object, in a ``PP`` the object of the preposition;
  an ``S`` or ``SBAR`` in a ``VP`` a clausal complement; a ``WH`` phrase the wh-phrase; the
  null ``0`` of an ``SBAR`` the complementiser; ``*U*`` the unit (of an amount such as
  ``$ 5 *U*``);
* ``predicate`` and ``predicate_index``: the word the null element is an argument of --
  the head of the constituent that contains it (:func:`plgraph.heads.find_heads`,
  ``jkk1`` rules), followed down the verb chain (a clause to its ``VP``, a ``VP`` with
  an auxiliary, ``to`` or a modal to the ``VP`` inside, an ``SBAR`` to its clause), so
  that the subject of ``to want`` is an argument of ``want`` and the object of ``was
  acquired`` one of ``acquired``;
* ``antecedent``: the constituent co-indexed with it (label ``-N``; gapping's ``=N`` is
  not an antecedent), its ``antecedent_label``, ``antecedent_words`` and
  ``antecedent_span`` (``(start, end)`` over the overt tokens, from 0, end excluded;
  empty words and ``start == end`` for a null antecedent such as ``(WHNP-1 (-NONE- 0))``);
  None for an unindexed null element or an index that nothing carries;
* ``position``: the overt token the null element stands before (``len(words)`` at the end).

Token positions count overt words only, as ``Sentence.words`` does.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from ...tree import NONE_LABEL, Tree

#: function tags and what they say (Bies et al. 1995, section 3)
FUNCTION_TAGS = {"SBJ": "subject", "LGS": "logical subject", "PRD": "predicate", "DTV": "dative",
                 "BNF": "benefactive", "PUT": "locative complement of put", "CLR": "closely related",
                 "TPC": "topic", "VOC": "vocative", "TMP": "temporal", "LOC": "locative", "ADV": "adverbial",
                 "MNR": "manner", "PRP": "purpose or reason", "DIR": "direction", "EXT": "extent",
                 "NOM": "nominal", "CLF": "cleft", "HLN": "headline", "TTL": "title"}
#: the order in which function tags name the function (a grammatical role before an adverbial one)
_FUNCTION_ORDER = ("SBJ", "LGS", "PRD", "DTV", "BNF", "PUT", "TPC", "VOC", "CLR", "TMP", "LOC", "DIR", "MNR",
                   "PRP", "EXT", "ADV", "NOM", "CLF", "HLN", "TTL")
_INDEX = re.compile(r"-(\d+)$")
_AUXILIARY_TAGS = {"TO", "MD"}
_AUXILIARIES = {"be", "is", "are", "was", "were", "been", "being", "am", "'s", "'re", "'m", "have", "has", "had",
                "having", "'ve", "'d", "do", "does", "did", "will", "would", "shall", "should", "can", "could",
                "may", "might", "must", "'ll"}


@dataclass(frozen=True)
class TraceRecord:
    """One null element of a tree (module docstring)."""

    type: str
    index: int | None
    position: int
    category: str
    function: str
    predicate: str | None
    predicate_index: int | None
    antecedent_label: str | None
    antecedent_words: tuple | None
    antecedent_span: tuple | None

    @property
    def null(self) -> str:
        """The null element as the tree writes it (``*T*-1``)."""
        return self.type if self.index is None else f"{self.type}-{self.index}"

    def to_json(self) -> dict:
        doc = asdict(self)
        for key in ("antecedent_words", "antecedent_span"):
            if doc[key] is not None:
                doc[key] = list(doc[key])
        return doc

    @classmethod
    def from_json(cls, doc: dict) -> "TraceRecord":
        doc = dict(doc)
        for key in ("antecedent_words", "antecedent_span"):
            if doc.get(key) is not None:
                doc[key] = tuple(doc[key])
        return cls(**doc)

    def __str__(self) -> str:
        """``*T*-1: object of 'see' (word 9); antecedent WHNP-1 'who' (word 5)`` (words counted from 1)."""
        what = self.function or self.category
        pred = f" of {self.predicate!r} (word {self.predicate_index + 1})" if self.predicate is not None else ""
        if self.antecedent_words is not None:
            a, b = self.antecedent_span
            where = f"word {b}" if b == a + 1 else f"words {a + 1}-{b}"
            ante = (f"; antecedent {self.antecedent_label} {' '.join(self.antecedent_words)!r} ({where})"
                    if self.antecedent_words else f"; antecedent {self.antecedent_label}, itself null")
        else:
            ante = ""
        return f"{self.null}: {what}{pred}{ante}"


def _index_of(label: str) -> int | None:
    """The co-index of a label (``WHNP-1`` -> 1, ``NP-SBJ`` -> None; ``=N`` is gapping's, not an index)."""
    m = _INDEX.search(label)
    return int(m.group(1)) if m and not label.startswith("-") else None


def _tags_of(label: str) -> tuple[str, list]:
    """``(category, function tags)`` of a label (``NP-SBJ-1`` -> ``("NP", ["SBJ"])``)."""
    if label.startswith("-"):
        return label, []
    parts = re.split(r"[-=]", label)
    return parts[0], [p for p in parts[1:] if p and not p.isdigit()]


def _function(node: Tree) -> str:
    """What constituent ``node`` is to its parent (module docstring)."""
    cat, tags = _tags_of(node.label)
    for tag in _FUNCTION_ORDER:
        if tag in tags:
            return FUNCTION_TAGS[tag]
    parent = _tags_of(node.parent.label)[0] if node.parent is not None else ""
    if cat.startswith("WH"):
        return "wh-phrase"
    if cat == "NP" and parent == "VP":
        return "object"
    if cat == "NP" and parent == "PP":
        return "object of the preposition"
    if cat in ("S", "SBAR", "SQ", "SBARQ", "SINV") and parent == "VP":
        return "clausal complement"
    if cat in ("S", "SBAR", "SQ", "SBARQ", "SINV") and parent == "PP":
        return "clausal object of the preposition"
    if cat == "-NONE-" and parent == "SBAR":
        return "complementiser"
    return ""


def _verb_chain(node: Tree) -> Tree:
    """``node`` followed down the verb chain (module docstring)."""
    while True:
        kids = [c for c in node.children if c.start != c.end]
        cat = _tags_of(node.label)[0]
        nxt = None
        if cat == "SBAR":
            nxt = next((c for c in kids if _tags_of(c.label)[0] in ("S", "SQ", "SINV")), None)
        elif cat in ("S", "SQ", "SINV", "SBARQ"):
            nxt = next((c for c in kids if _tags_of(c.label)[0] in ("VP", "SQ")), None)
        elif cat == "VP":
            inner = next((c for c in kids if _tags_of(c.label)[0] == "VP"), None)
            verbs = [c for c in kids if c.word is not None]
            if inner is not None and verbs and all(c.label in _AUXILIARY_TAGS or c.word.lower() in _AUXILIARIES
                                                   or c.label in ("RB",) for c in verbs):
                nxt = inner
        if nxt is None:
            return node
        node = nxt


def trace_records(tree: Tree) -> list[TraceRecord]:
    """The :class:`TraceRecord` of every null element of ``tree`` in the tree's order
    (the tree is copied, not changed; a root label such as ``ROOT`` or ``TOP`` is fine)."""
    from ...heads import find_heads

    tree = tree.copy()
    tree.compute_spans()
    find_heads(tree)
    words = [p.word for p in tree.preterminals() if not p.is_null_leaf()]
    antecedents = {}
    for node in tree.subtrees():
        if node.word is None or node.label != NONE_LABEL:
            k = _index_of(node.label) if node.word is None else None
            if k is not None:
                antecedents.setdefault(k, node)
    out = []
    for leaf in tree.preterminals():
        if not leaf.is_null_leaf():
            continue
        m = _INDEX.search(leaf.word)
        index = int(m.group(1)) if m else None
        kind = leaf.word[:m.start()] if m else leaf.word
        node = leaf           # the constituent the null element stands for: the highest with no overt word
        while node.parent is not None and node.parent.start == node.parent.end:
            node = node.parent
        host = node.parent
        head = _verb_chain(host) if host is not None else None
        pred_index = head.head if head is not None and head.head >= 0 else None
        ante = antecedents.get(index) if index is not None else None
        out.append(TraceRecord(
            type=kind, index=index, position=leaf.start, category=node.label,
            function="unit" if kind == "*U*" else _function(node),
            predicate=words[pred_index] if pred_index is not None else None, predicate_index=pred_index,
            antecedent_label=ante.label if ante is not None else None,
            antecedent_words=tuple(words[ante.start:ante.end]) if ante is not None else None,
            antecedent_span=(ante.start, ante.end) if ante is not None else None))
    return out


__all__ = ["FUNCTION_TAGS", "TraceRecord", "trace_records"]
