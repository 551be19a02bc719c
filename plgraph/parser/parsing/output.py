"""What ``plgraph parse`` writes for a parsed sentence: a PTB tree on one line or an SHP block.

Both the serial run and a Dask worker (:mod:`plgraph.parser.parsing.jobs`) render with
:func:`render`, so the output is byte for byte the same wherever a sentence is parsed.

Every input sentence has its output record, so that record N of the output is sentence
N of the input.  A sentence that could not be read
(:class:`~plgraph.parser.parsing.inputs.Skipped`) gets a placeholder
(:func:`render_skipped`): in PTB output the empty tree ``()`` on its line -- EVALB
skips that sentence (status 2) and goes on with the next line, plgraph's ``eval trees``
likewise, and its trace scorer reads it as an empty parse (``plgraph eval traces``) -- and
in SHP output a block of comments only (``# SentID`` and ``# plgraph-skipped``), which SHP
readers pass over.
"""
from __future__ import annotations

#: the output formats of :func:`render`
OUTPUT_FORMATS = ("ptb", "shp")
#: the PTB line of a sentence that could not be read
PLACEHOLDER = "()"


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


def render_skipped(skipped, to: str = "ptb") -> str:
    """The placeholder (module docstring) of an input sentence that could not be read
    (a :class:`~plgraph.parser.parsing.inputs.Skipped`); empty for text that stood for no
    sentence (``skipped.sentence`` False)."""
    if not skipped.sentence:
        return ""
    if to == "shp":
        reason = " ".join(str(skipped.reason).split())
        return f"# SentID {skipped.where}\n# plgraph-skipped {reason}\n\n"
    return PLACEHOLDER + "\n"


__all__ = ["OUTPUT_FORMATS", "PLACEHOLDER", "render", "render_skipped", "tree_text"]
