"""Spines: the ordered list of constituents a word heads, with null elements.

A spine string lists, bottom to top and joined by ``_``, the labels of the
constituents a word heads (function tags kept, co-indices removed).  Null
subtrees hosted by a spine node are written just before that node's label, as
``(LABEL_child_child)`` for null constituents and ``(word)`` for a ``-NONE-``
leaf.  A word heading nothing has the spine ``_``.  Examples::

    VP_VP_S
    (NP_(*T*))_VP_VP_(NP-SBJ_(*))_S
    (SBAR_(0)_(S_(*T*)))_VP_S

Nodes are named ``LABEL_count``; counts start at 0 from the bottom, separately
per exact label string, and separately for null and non-null nodes.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class NullNode:
    """A null constituent (``label`` set, ``word`` None) or a null leaf (``word`` set)."""

    label: str | None = None
    word: str | None = None
    children: list["NullNode"] = field(default_factory=list)
    name: str | None = None  # LABEL_count for null constituents

    def to_spine(self) -> str:
        if self.word is not None:
            return f"({self.word})"
        return "(" + "_".join([self.label] + [c.to_spine() for c in self.children]) + ")"

    def to_ptb(self) -> str:
        if self.word is not None:
            return f"(-NONE- {self.word})"
        return "(" + self.label + " " + " ".join(c.to_ptb() for c in self.children) + ")"

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()


@dataclass
class SpineLevel:
    """One non-null spine node and the null subtrees hosted just below it."""

    label: str
    name: str  # LABEL_count
    nulls: list[NullNode] = field(default_factory=list)


def split_top(spine: str) -> list[str]:
    """Split a spine string on ``_`` at bracket depth 0."""
    parts = []
    depth = 0
    cur = []
    for ch in spine:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "_" and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def _parse_null(text: str, pos: int) -> tuple[NullNode, int]:
    # text[pos] == "("
    assert text[pos] == "("
    j = pos + 1
    while j < len(text) and text[j] not in "_()":
        j += 1
    head = text[pos + 1:j]
    if j < len(text) and text[j] == ")":
        return NullNode(word=head), j + 1
    node = NullNode(label=head)
    while j < len(text) and text[j] == "_":
        child, j = _parse_null(text, j + 1)
        node.children.append(child)
    if j >= len(text) or text[j] != ")":
        raise ValueError(f"malformed null element in spine near {text[pos:]!r}")
    return node, j + 1


def parse_spine(spine: str) -> tuple[list[SpineLevel], list[NullNode]]:
    """Parse a spine string.

    Returns
    -------
    levels : list of SpineLevel
        Non-null nodes bottom to top, each with the null subtrees it hosts.
    dangling : list of NullNode
        Null subtrees after the last non-null node (invalid in converter output,
        kept so that callers can report them).

    Raises
    ------
    ValueError
        If brackets are unbalanced.
    """
    if spine == "_" or spine == "":
        return [], []
    levels: list[SpineLevel] = []
    counts: dict[str, int] = {}
    null_counts: dict[str, int] = {}
    pending: list[NullNode] = []
    for part in split_top(spine):
        if not part:
            raise ValueError(f"empty element in spine {spine!r}")
        if part[0] == "(":
            node, end = _parse_null(part, 0)
            if end != len(part):
                raise ValueError(f"malformed null element {part!r} in spine {spine!r}")
            for sub in node.walk():
                if sub.label is not None:
                    c = null_counts.get(sub.label, 0)
                    null_counts[sub.label] = c + 1
                    sub.name = f"{sub.label}_{c}"
            pending.append(node)
        else:
            if "(" in part or ")" in part:
                raise ValueError(f"malformed spine {spine!r}")
            c = counts.get(part, 0)
            counts[part] = c + 1
            levels.append(SpineLevel(part, f"{part}_{c}", pending))
            pending = []
    return levels, pending


def spine_node_names(spine: str) -> tuple[list[str], list[str]]:
    """Names of the non-null nodes and of the null constituents of a spine."""
    levels, dangling = parse_spine(spine)
    nulls = []
    for level in levels:
        for group in level.nulls:
            nulls.extend(n.name for n in group.walk() if n.name)
    for group in dangling:
        nulls.extend(n.name for n in group.walk() if n.name)
    return [lv.name for lv in levels], nulls
