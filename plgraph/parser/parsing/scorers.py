"""The parser a model folder gives for each scorer: one loader for every caller
(:meth:`Parser.load <plgraph.parser.parsing.parser.Parser.load>`, ``plgraph.load()``, the
command line).

A model folder ``M`` of ``python -m plgraph parser train`` holds the linear scorer (its
passes, :class:`~plgraph.parser.parsing.parser.LinearParser`) and, once ``parser train
--scorer neural`` has run, the neural one in ``M/neural``
(:class:`~plgraph.neural.parser.NeuralParser`, the extra ``plgraph[neural]``).
"""
from __future__ import annotations

import os
from importlib.util import find_spec

from .parser import DEFAULT_MAX_WORDS

#: the scorers a model folder can hold
SCORERS = ("linear", "neural")


def scorers_in(model_dir) -> tuple[str, ...]:
    """The scorers model folder ``model_dir`` holds, in :data:`SCORERS` order (a linear
    model's ``parser.json``; a neural model's header in ``model_dir`` or ``model_dir/neural``)."""
    from ...neural.folder import is_neural_folder, neural_dir

    model_dir = os.fspath(model_dir)
    has = {"linear": os.path.isfile(os.path.join(model_dir, "parser.json")),
           "neural": is_neural_folder(neural_dir(model_dir))}
    return tuple(name for name in SCORERS if has[name])


def default_scorer(model_dir) -> str:
    """The scorer a model folder is parsed with when none is named: ``neural`` when the
    folder holds a neural model and PyTorch is installed, or holds only a neural model
    (loading it then says how to install PyTorch); else ``linear``."""
    held = scorers_in(model_dir)
    if "neural" in held and ("linear" not in held or find_spec("torch") is not None):
        return "neural"
    return "linear"


def load_scorer(model_dir=None, scorer: str | None = None, *, max_words: int = DEFAULT_MAX_WORDS):
    """The parser of ``scorer`` in model folder ``model_dir`` (default: the released
    model, :func:`~plgraph.release.record.default_model_dir`; ``scorer`` None:
    :func:`default_scorer`): the :class:`~plgraph.parser.parsing.parser.LinearParser` of
    ``M``, or the :class:`~plgraph.neural.parser.NeuralParser` of
    :func:`~plgraph.neural.folder.neural_dir` of ``M``.  ValueError for another name."""
    if model_dir is None:
        from ...release.record import default_model_dir

        model_dir = default_model_dir()
    scorer = default_scorer(model_dir) if scorer is None else scorer
    if scorer == "neural":
        from ...neural.folder import neural_dir
        from ...neural.parser import NeuralParser

        return NeuralParser.load(neural_dir(model_dir), max_words=max_words)
    if scorer != "linear":
        raise ValueError(f"scorer {scorer!r}: expected one of {', '.join(SCORERS)}")
    from .parser import LinearParser

    return LinearParser.load(model_dir, max_words=max_words)


__all__ = ["SCORERS", "scorers_in", "default_scorer", "load_scorer"]
