"""The scorers a model folder can hold, and which one it is parsed with: one loader for
every caller (:meth:`Parser.load <plgraph.parser.parsing.parser.Parser.load>`,
``plgraph.load()``, the command line).

A model folder ``M`` of ``python -m plgraph parser train`` holds the linear scorer (its
passes, :class:`~plgraph.parser.scoring.linear.LinearScorer`) and, once ``parser train
--scorer neural`` has run, the neural one in ``M/neural``
(:class:`~plgraph.parser.scoring.neural.scorer.NeuralScorer`, the extra ``plgraph[neural]``).
"""
from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from importlib.util import find_spec

@dataclass(frozen=True)
class ScorerEntry:
    """Where a scorer lives: its :class:`~plgraph.parser.scoring.protocol.Scorer` class
    (``module:class``, imported only when that scorer is loaded: the neural one needs
    the extra ``plgraph[neural]``), the sub-folder of a model folder ``M`` that
    holds it (``""``: ``M`` itself), its header file, whose presence says the scorer
    is there, its trainer (``module:function``, called with a
    :class:`~plgraph.parser.training.pipeline.TrainConfig` by
    :func:`~plgraph.parser.training.pipeline.train`) and the fields of ``TrainConfig``
    that only this scorer takes (``options``)."""

    scorer: str
    subdir: str
    header: str
    trainer: str
    options: tuple


#: the scorers a model folder can hold (a new scorer adds its entry here)
SCORERS = {
    "linear": ScorerEntry("plgraph.parser.scoring.linear:LinearScorer", "", "parser.json",
                          "plgraph.parser.training.pipeline:train_linear",
                          ("pruners", "pass2", "pass3", "dask", "workers", "keep_prepared")),
    "neural": ScorerEntry("plgraph.parser.scoring.neural.scorer:NeuralScorer", "neural", "neural.json",
                          "plgraph.parser.scoring.neural.train:train_scorer", ("neural",)),
}


def _entry(scorer: str) -> ScorerEntry:
    if scorer not in SCORERS:
        raise ValueError(f"scorer {scorer!r}: expected one of {', '.join(SCORERS)}")
    return SCORERS[scorer]


def _named(where: str):
    module, name = where.split(":")
    return getattr(importlib.import_module(module), name)


def scorer_class(scorer: str):
    """The :class:`~plgraph.parser.scoring.protocol.Scorer` class of ``scorer``
    (:data:`SCORERS`); ValueError for another name."""
    return _named(_entry(scorer).scorer)


def scorer_trainer(scorer: str):
    """The function that trains ``scorer`` (:data:`SCORERS`): ``trainer(config, *, log,
    warn)`` with a :class:`~plgraph.parser.training.pipeline.TrainConfig`."""
    return _named(_entry(scorer).trainer)


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


def load_scorer(model_dir=None, scorer: str | None = None, **options) -> tuple:
    """``(scorer, its folder)``: the :class:`~plgraph.parser.scoring.protocol.Scorer`
    ``scorer`` of model folder ``model_dir`` (default: the released model,
    :func:`~plgraph.models.default_model_dir`; ``scorer`` None: :func:`default_scorer`),
    loaded from :func:`scorer_dir` -- the linear scorer of ``M``, the neural one of
    ``M/neural``; ``options`` go to its ``load``.  ValueError for an unknown scorer."""
    if model_dir is None:
        from ...models import default_model_dir

        model_dir = default_model_dir()
    name = default_scorer(model_dir) if scorer is None else scorer
    folder = scorer_dir(model_dir, name)
    return scorer_class(name).load(folder, **options), folder


__all__ = ["SCORERS", "ScorerEntry", "scorer_class", "scorer_trainer", "scorer_dir", "scorers_in", "default_scorer", "load_scorer"]
