"""The parser a model folder gives for each scorer: one loader for every caller
(:meth:`Parser.load <plgraph.parser.parsing.parser.Parser.load>`, ``plgraph.load()``, the
command line).

A model folder ``M`` of ``python -m plgraph parser train`` holds the linear scorer (its
passes, :class:`~plgraph.parser.parsing.parser.LinearParser`) and, once ``parser train
--scorer neural`` has run, the neural one in ``M/neural``
(:class:`~plgraph.neural.parser.NeuralParser`, the extra ``plgraph[neural]``).
"""
from __future__ import annotations

import importlib
import os
from importlib.util import find_spec

#: the scorers a model folder can hold, each with the :class:`~plgraph.parser.parsing.parser.Parser`
#: subclass that loads it (``module:class``, imported when that scorer is loaded: the
#: neural one needs the extra ``plgraph[neural]``); a new scorer adds its entry here
SCORERS = {"linear": "plgraph.parser.parsing.parser:LinearParser",
           "neural": "plgraph.neural.parser:NeuralParser"}


def scorer_class(scorer: str):
    """The :class:`~plgraph.parser.parsing.parser.Parser` subclass of ``scorer``
    (:data:`SCORERS`); ValueError for another name."""
    if scorer not in SCORERS:
        raise ValueError(f"scorer {scorer!r}: expected one of {', '.join(SCORERS)}")
    module, name = SCORERS[scorer].split(":")
    return getattr(importlib.import_module(module), name)


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


def load_scorer(model_dir=None, scorer: str | None = None, *, max_words: int | None = None):
    """The parser of ``scorer`` in model folder ``model_dir`` (default: the released
    model, :func:`~plgraph.release.record.default_model_dir`; ``scorer`` None:
    :func:`default_scorer`): ``scorer_class(scorer).load(model_dir)`` -- the
    :class:`~plgraph.parser.parsing.parser.LinearParser` of ``M``, or the
    :class:`~plgraph.neural.parser.NeuralParser` of ``M/neural``.  ``max_words``: longer
    sentences get the fallback parse (None: the parser's default).  ValueError for an
    unknown scorer."""
    if model_dir is None:
        from ...release.record import default_model_dir

        model_dir = default_model_dir()
    cls = scorer_class(default_scorer(model_dir) if scorer is None else scorer)
    return cls.load(model_dir, **({} if max_words is None else {"max_words": int(max_words)}))


__all__ = ["SCORERS", "scorer_class", "scorers_in", "default_scorer", "load_scorer"]
