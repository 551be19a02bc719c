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
from dataclasses import dataclass
from importlib.util import find_spec

@dataclass(frozen=True)
class ScorerEntry:
    """Where a scorer lives: the :class:`~plgraph.parser.parsing.parser.Parser` subclass
    that loads it (``module:class``, imported only when that scorer is loaded: the neural
    one needs the extra ``plgraph[neural]``), the sub-folder of a model folder ``M`` that
    holds it (``""``: ``M`` itself) and its header file, whose presence says the scorer
    is there."""

    parser: str
    subdir: str
    header: str


#: the scorers a model folder can hold (a new scorer adds its entry here)
SCORERS = {"linear": ScorerEntry("plgraph.parser.parsing.parser:LinearParser", "", "parser.json"),
           "neural": ScorerEntry("plgraph.neural.parser:NeuralParser", "neural", "neural.json")}


def _entry(scorer: str) -> ScorerEntry:
    if scorer not in SCORERS:
        raise ValueError(f"scorer {scorer!r}: expected one of {', '.join(SCORERS)}")
    return SCORERS[scorer]


def scorer_class(scorer: str):
    """The :class:`~plgraph.parser.parsing.parser.Parser` subclass of ``scorer``
    (:data:`SCORERS`); ValueError for another name."""
    module, name = _entry(scorer).parser.split(":")
    return getattr(importlib.import_module(module), name)


def scorer_dir(model_dir, scorer: str) -> str:
    """The folder of ``scorer``'s model in model folder ``model_dir``: ``model_dir`` itself
    when it holds the scorer's header, else its sub-folder (``M/neural`` for the neural
    scorer)."""
    entry, model_dir = _entry(scorer), os.fspath(model_dir)
    if os.path.isfile(os.path.join(model_dir, entry.header)) or not entry.subdir:
        return model_dir
    return os.path.join(model_dir, entry.subdir)


def scorers_in(model_dir) -> tuple[str, ...]:
    """The scorers model folder ``model_dir`` holds, in :data:`SCORERS` order (each one's
    header in ``model_dir`` or in its sub-folder)."""
    return tuple(name for name, entry in SCORERS.items()
                 if os.path.isfile(os.path.join(scorer_dir(model_dir, name), entry.header)))


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
    model, :func:`~plgraph.models.default_model_dir`; ``scorer`` None:
    :func:`default_scorer`): ``scorer_class(scorer).load(model_dir)`` -- the
    :class:`~plgraph.parser.parsing.parser.LinearParser` of ``M``, or the
    :class:`~plgraph.neural.parser.NeuralParser` of ``M/neural``.  ``max_words``: longer
    sentences get the fallback parse (None: the parser's default).  ValueError for an
    unknown scorer."""
    if model_dir is None:
        from ...models import default_model_dir

        model_dir = default_model_dir()
    cls = scorer_class(default_scorer(model_dir) if scorer is None else scorer)
    return cls.load(model_dir, **({} if max_words is None else {"max_words": int(max_words)}))


__all__ = ["SCORERS", "ScorerEntry", "scorer_class", "scorer_dir", "scorers_in", "default_scorer", "load_scorer"]
