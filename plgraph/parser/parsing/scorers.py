"""The parser a model folder gives for each scorer: one loader for every caller.

A model folder ``M`` of ``python -m plgraph parser train`` holds the linear scorer (its
passes, :class:`~plgraph.parser.parsing.parser.Parser`) and, once ``parser train --scorer
neural`` has run, the neural one in ``M/neural``
(:class:`~plgraph.neural.parser.NeuralParser`, the extra ``plgraph[neural]``).
"""
from __future__ import annotations

from .parser import DEFAULT_MAX_WORDS

#: the scorers a model folder can hold
SCORERS = ("linear", "neural")


def load_scorer(model_dir, scorer: str = "linear", *, max_words: int = DEFAULT_MAX_WORDS):
    """The parser of ``scorer`` in model folder ``model_dir``: the linear scorer's
    :class:`~plgraph.parser.parsing.parser.Parser` of ``M``, or the
    :class:`~plgraph.neural.parser.NeuralParser` of
    :func:`~plgraph.neural.folder.neural_dir` of ``M``.  ValueError for another name."""
    if scorer == "neural":
        from ...neural.folder import neural_dir
        from ...neural.parser import NeuralParser

        return NeuralParser.load(neural_dir(model_dir), max_words=max_words)
    if scorer != "linear":
        raise ValueError(f"scorer {scorer!r}: expected one of {', '.join(SCORERS)}")
    from .parser import Parser

    return Parser.load(model_dir, max_words=max_words)


__all__ = ["SCORERS", "load_scorer"]
