"""Cleaning of Penn Treebank trees and label helpers.

The cleaning follows the reference converter:

* a label containing ``|`` becomes ``ADVP`` if any alternative is ADVP, else its
  first alternative;
* words ``{``/``}`` become ``-LCB-``/``-RCB-``;
* the POS of ``--``, ``-``, ``;``, ``:`` is forced to ``:``, of ``-LRB-``/``-LCB-``
  to ``-LRB-`` and of ``-RRB-``/``-RCB-`` to ``-RRB-``; the word ``Wa`` gets ``NNP``;
* the top is homogenised: ``( (S ...))`` becomes ``(ROOT (S ...))``.
"""
from __future__ import annotations

from ..tree import Tree

PTB_NONTERMINALS = frozenset(
    "S SBAR SBARQ SINV SQ ADJP ADVP CONJP FRAG INTJ LST NAC NP NX PP PRN PRT QP RRC "
    "UCP VP WHADJP WHADVP WHNP WHPP X NML".split()
)
_WORD_TO_WORD = {"{": "-LCB-", "}": "-RCB-"}
_WORD_TO_POS = {
    "--": ":", "-": ":", ";": ":", ":": ":",
    "-LRB-": "-LRB-", "-RRB-": "-RRB-", "-LCB-": "-LRB-", "-RCB-": "-RRB-",
    "{": "-LRB-", "}": "-RRB-",
    "Wa": "NNP",
}
#: public names of the cleaning tables (the Johnson scorer applies the same cleaning)
WORD_TO_WORD = _WORD_TO_WORD
WORD_TO_POS = _WORD_TO_POS
_DIGITS = "0123456789"


def ptb_cleaning(tree: Tree) -> Tree:
    """Apply the reference converter's label and word cleaning in place."""
    for node in tree.subtrees():
        label = node.label
        if "|" in label:
            node.label = "ADVP" if "ADVP" in label else label.split("|")[0]
        word = node.word
        if word is not None:
            if word in _WORD_TO_WORD:
                word = node.word = _WORD_TO_WORD[word]
            pos = _WORD_TO_POS.get(word)
            if pos is not None:
                node.label = pos
    return tree


def base_label(label: str) -> str:
    """Label without function tags or indices: ``NP-SBJ-1`` -> ``NP``.

    Labels starting with ``-`` (``-NONE-``, ``-LRB-``) are returned unchanged.
    """
    if not label or label[0] == "-":
        return label
    return label.split("=", 1)[0].split("-", 1)[0]


def strip_coindex(label: str) -> str:
    """Remove trailing co-index numbers: ``NP-SBJ-1`` -> ``NP-SBJ``, ``NP=2`` -> ``NP``,
    ``*T*-1`` -> ``*T*``.  Labels not ending in a digit are unchanged."""
    if label and label[-1] in _DIGITS:
        return label.rstrip("0123456789-=")
    return label


def _index_after(text: str, sep: str) -> str | None:
    """The index following the last ``sep`` when only digits (and other index
    suffixes) follow it, mirroring the reference reader's backwards scan."""
    digits_end = None
    i = len(text) - 1
    cur_start = None
    while i >= 0:
        ch = text[i]
        if ch in _DIGITS:
            if cur_start is None:
                digits_end = i + 1
            cur_start = i
        elif ch == sep:
            if cur_start is None:
                return None
            return text[cur_start:digits_end]
        elif ch == "-" or ch == "=":
            cur_start = None
        i -= 1
    return None


def coindex_of(label: str) -> str | None:
    """Identity/reference index ``N`` of ``NP-SBJ-N`` or ``*T*-N``; ``None`` if absent."""
    return _index_after(label, "-")


def gap_index_of(label: str) -> str | None:
    """Gapping index ``N`` of a label such as ``NP=N`` (or ``NP-SBJ=N-3``)."""
    if "=" not in label:
        return None
    return _index_after(label, "=")


def homogenise(tree: Tree) -> Tree:
    """Return the tree with a ``ROOT`` top node (the reference's ``-e h`` edit).

    Unlabelled or unknown wrapper nodes with a single child are dropped until a
    Penn Treebank phrase label is reached, which then gets a ``ROOT`` parent.  A
    one-word tree without a phrase label (``( (NN hello) )``, ``(NN hello)``) becomes
    ``(ROOT (NN hello))``: its pre-terminal gets the ``ROOT`` parent.
    """
    if tree.label == "ROOT":
        return tree
    node = tree
    while base_label(node.label) not in PTB_NONTERMINALS:
        if len(node.children) > 1:
            break
        if node.word is not None:  # one-word tree: the pre-terminal hangs from ROOT
            node.parent = None
            return Tree("ROOT", [node])
        node = node.children[0]
    if base_label(node.label) not in PTB_NONTERMINALS:
        node.label = "ROOT"
        node.parent = None
        return node
    node.parent = None
    return Tree("ROOT", [node])
