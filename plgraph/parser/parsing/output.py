"""What ``plgraph parse`` writes for a parsed sentence: a PTB tree on one line or an SHP block.

Both the serial run and a Dask worker (:mod:`plgraph.parser.parsing.jobs`) render with
:func:`render`, so the output is byte for byte the same wherever a sentence is parsed.
"""
from __future__ import annotations

#: the output formats of :func:`render`
OUTPUT_FORMATS = ("ptb", "shp")


def tree_text(result, root: str = "TOP") -> str:
    """``result``'s tree as one PTB line (no newline) with root label ``root`` (``TOP``,
    which EVALB's COLLINS.prm deletes, or ``ROOT``)."""
    from ...eval.ceiling import with_root

    return with_root(result.tree, root).to_string()


def render(result, to: str = "ptb", root: str = "TOP") -> str:
    """``result`` (a :class:`~plgraph.parser.parsing.parser.ParseResult`) as ``to`` =
    ``ptb`` (:func:`tree_text` and a newline) or ``shp`` (its graph's SHP block)."""
    from ...shp import format_shp

    if to == "shp":
        return format_shp(result.graph)
    return tree_text(result, root) + "\n"


__all__ = ["OUTPUT_FORMATS", "render", "tree_text"]
