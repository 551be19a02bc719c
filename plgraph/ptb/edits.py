"""Tree edits applied before conversion (reference converter ``-e`` options)."""
from __future__ import annotations

from ..tree import Tree
from .clean import coindex_of, gap_index_of


def collect_coindexation(tree: Tree):
    """Co-indexation of a tree, in post-order (children before parents).

    Returns
    -------
    identities : dict  index -> node carrying ``-index`` (the last one wins when an
        index is used twice, as in the reference converter)
    gaps : dict  index -> list of nodes carrying ``=index``
    refs : dict  index -> list of ``-NONE-`` leaves whose word ends in ``-index``
    duplicates : list of (index, shadowed node)
    """
    identities: dict[str, Tree] = {}
    gaps: dict[str, list[Tree]] = {}
    refs: dict[str, list[Tree]] = {}
    duplicates = []
    stack = [(tree, False)]
    while stack:
        node, done = stack.pop()
        if not done:
            stack.append((node, True))
            for child in reversed(node.children):
                stack.append((child, False))
            continue
        label = node.label
        num = coindex_of(label)
        if num is not None:
            if num in identities:
                duplicates.append((num, identities[num]))
            identities[num] = node
        if "=" in label:
            g = gap_index_of(label)
            if g is not None:
                gaps.setdefault(g, []).append(node)
        if node.word is not None and label == "-NONE-":
            r = coindex_of(node.word)
            if r is not None:
                refs.setdefault(r, []).append(node)
    return identities, gaps, refs, duplicates


def _drop_suffix(label: str, suffix: str) -> str:
    return label[: -len(suffix)] if label.endswith(suffix) else "".join(label.split(suffix))


def gapping_shift(tree: Tree) -> Tree:
    """Move the index of each gapping correlate to the correlate's parent, in place.

    This is the thesis's "gapping shift" (reference converter ``-e g``): the
    gapping edge then targets the whole first conjunct (e.g. ``likes``'s VP)
    instead of the correlate (``tea``'s NP).  The parent reuses an index it
    already carries; otherwise it takes the old number, or a fresh number when
    null elements also refer to the old index (then the correlate keeps its
    index).  Remnants (``=N``) are renumbered to match.
    """
    identities, gaps, refs, _ = collect_coindexation(tree)
    next_num = max([int(n) for n in identities] + [0]) + 1
    for num in sorted(gaps, key=int):
        target = identities.get(num)
        if target is None or target.parent is None:
            continue
        if num not in refs:
            target.label = _drop_suffix(target.label, f"-{num}")
        parent = target.parent
        new_num = coindex_of(parent.label)
        if new_num is None:
            if num in refs:
                new_num = str(next_num)
                next_num += 1
            else:
                new_num = num
            parent.label += f"-{new_num}"
        if new_num != num:
            for node in gaps[num]:
                node.label = _drop_suffix(node.label, f"={num}") + f"={new_num}"
    return tree
