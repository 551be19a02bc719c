"""A small, fast phrase-structure tree used inside plgraph.

`Tree` is deliberately minimal: a label, an optional word (pre-terminals only),
children and a parent pointer, plus word-span fields filled by
:meth:`Tree.compute_spans`.  Convert to :class:`nltk.Tree` with
:meth:`Tree.to_nltk` when you want NLTK's drawing or tree utilities.

Null elements follow the Penn Treebank: a pre-terminal labelled ``-NONE-``
whose word is the null symbol (``*``, ``*T*-1``, ``0`` ...).
"""
from __future__ import annotations

from typing import Iterator

NONE_LABEL = "-NONE-"


def bracket_free(text: str) -> str:
    """``text`` with ``(`` and ``)`` written as the treebank writes them, ``-LRB-`` and
    ``-RRB-``, so that it can stand as a word or label of a bracketed tree."""
    if "(" in text or ")" in text:
        return text.replace("(", "-LRB-").replace(")", "-RRB-")
    return text


class Tree:
    """A node of a phrase-structure tree.

    Attributes
    ----------
    label : str
        Constituent label (``NP-SBJ-1``) or POS tag for a pre-terminal.
    word : str or None
        The word of a pre-terminal; ``None`` for phrasal nodes.
    children : list of Tree
    parent : Tree or None
    start, end : int
        Word span over *overt* words (null elements take no width), filled by
        :meth:`compute_spans`.  A node with ``start == end`` is a null subtree.
    """

    __slots__ = ("label", "word", "children", "parent", "start", "end", "head")

    def __init__(self, label: str, children=None, word: str | None = None):
        self.label = label
        self.word = word
        self.children = children if children is not None else []
        self.parent = None
        self.start = 0
        self.end = 0
        self.head = -1
        for child in self.children:
            child.parent = self

    # -- structure -----------------------------------------------------------------
    def is_preterminal(self) -> bool:
        return self.word is not None

    def is_null_leaf(self) -> bool:
        return self.word is not None and self.label == NONE_LABEL

    def is_null(self) -> bool:
        """True when the subtree spans no overt word (valid after compute_spans)."""
        return self.start == self.end

    def append(self, child: "Tree") -> None:
        child.parent = self
        self.children.append(child)

    def compute_spans(self, start: int = 0) -> int:
        """Fill ``start``/``end`` word spans for the whole subtree; return end."""
        stack = [(self, False)]
        pos = start
        while stack:
            node, done = stack.pop()
            if done:
                node.end = pos
                continue
            node.start = pos
            if node.word is not None:
                if node.label != NONE_LABEL:
                    pos += 1
                node.end = pos
                continue
            stack.append((node, True))
            for child in reversed(node.children):
                stack.append((child, False))
        return pos

    def subtrees(self) -> Iterator["Tree"]:
        """Pre-order iterator over this node and all descendants."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            if node.children:
                stack.extend(reversed(node.children))

    def preterminals(self) -> list["Tree"]:
        return [n for n in self.subtrees() if n.word is not None]

    def words(self) -> list[str]:
        """Overt words (null elements excluded)."""
        return [n.word for n in self.subtrees() if n.word is not None and n.label != NONE_LABEL]

    def copy(self) -> "Tree":
        """Deep copy (labels, words, spans); iterative, so any depth works."""

        def clone(node: "Tree") -> "Tree":
            out = Tree(node.label, word=node.word)
            out.start, out.end = node.start, node.end
            return out

        root = clone(self)
        stack = [(self, root)]
        while stack:
            node, out = stack.pop()
            for child in node.children:
                twin = clone(child)
                out.append(twin)
                if child.children:
                    stack.append((child, twin))
        return root

    # -- text ------------------------------------------------------------------------
    def to_string(self) -> str:
        """Single-line PTB bracket string, e.g. ``(ROOT (S (NP (NNP Bob)) ...))``; a round
        bracket in a word or label is written ``-LRB-``/``-RRB-`` (:func:`bracket_free`),
        so the string always reads back."""
        parts: list[str] = []
        stack: list = [self]
        while stack:
            node = stack.pop()
            if isinstance(node, str):
                parts.append(node)
                continue
            if node.word is not None:
                parts.append(f"({bracket_free(node.label)} {bracket_free(node.word)})")
                continue
            parts.append("(" + bracket_free(node.label))
            stack.append(")")
            for child in reversed(node.children):
                stack.append(child)
                stack.append(" ")
        return "".join(parts)

    def __str__(self) -> str:
        return self.to_string()

    def __repr__(self) -> str:
        text = self.to_string()
        return f"Tree({text[:60] + '...' if len(text) > 60 else text})"

    def same_as(self, other: "Tree") -> bool:
        """Structural equality (same bracket string).  ``==`` is identity."""
        return isinstance(other, Tree) and self.to_string() == other.to_string()

    def to_nltk(self):
        """Return an equivalent :class:`nltk.Tree` (built iteratively)."""
        from nltk import Tree as NLTKTree

        done: dict[int, object] = {}
        stack = [(self, False)]
        while stack:
            node, ready = stack.pop()
            if node.word is not None:
                done[id(node)] = NLTKTree(node.label, [node.word])
            elif not ready:
                stack.append((node, True))
                stack.extend((child, False) for child in node.children)
            else:
                done[id(node)] = NLTKTree(node.label, [done.pop(id(c)) for c in node.children])
        return done[id(self)]

    @classmethod
    def from_nltk(cls, tree) -> "Tree":
        """Build from an :class:`nltk.Tree` (leaves must be strings; built iteratively)."""

        def make(node):
            if len(node) == 1 and isinstance(node[0], str):
                return cls(node.label(), word=node[0])
            return cls(node.label())

        out = make(tree)
        stack = [(tree, out)]
        while stack:
            node, built = stack.pop()
            if built.word is not None:
                continue
            for child in node:
                twin = make(child)
                built.append(twin)
                stack.append((child, twin))
        out.compute_spans()
        return out

    def _repr_svg_(self):  # pragma: no cover - notebook nicety when svgling exists
        try:
            return self.to_nltk()._repr_svg_()
        except Exception:
            return None
