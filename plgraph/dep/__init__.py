"""Labelled projective dependency parsing (Schiehlen & Spranger 2007).

Eisner decoding (first order, and McDonald & Pereira's second-order siblings) with the
label of every arc chosen jointly with the tree, features with one weight copy per
relation plus generalisations over a relation taxonomy, and global (structured)
learning with the learners of :mod:`plgraph.learn`.

Modules
-------
* :mod:`~plgraph.dep.conll` -- CoNLL-U / CoNLL-X reading and writing (comments,
  multiword tokens and empty nodes preserved);
* :mod:`~plgraph.dep._eisner` -- the decoders and max-plus inside-outside
  (:func:`eisner1`, :func:`eisner2`, :func:`max_marginals1`, :func:`max_marginals2`);
* :mod:`~plgraph.dep.features` -- atoms and feature templates;
* :mod:`~plgraph.dep.model` -- :class:`DepModel` (build, parse, max-marginals, save/load);
* :mod:`~plgraph.dep.train` -- :func:`train` (epochs, dev selection, checkpoints, resume);
* :mod:`~plgraph.dep.projective` -- pseudo-projective lifting and its inverse;
* :mod:`~plgraph.dep.evaluate` -- UAS/LAS with the CoNLL 2018 conventions;
* :mod:`~plgraph.dep.analysis` -- tables and plots for the notebook;
* :mod:`~plgraph.dep.cli` -- ``python -m plgraph dep train|parse|eval``.

Example::

    from plgraph.dep import DepConfig, DepModel, read_conll, train, evaluate
    result = train(read_conll("train.conllu"), read_conll("dev.conllu"), "model-dir", DepConfig(order=1))
    model = DepModel.load("model-dir")
    parsed = model.parse(read_conll("test.conllu"))
"""
from ._eisner import eisner1, eisner2, max_marginals1, max_marginals2
from .conll import BadSentence, ConllFormatError, DepSentence, format_conll, read_conll, read_conll_string, write_conll
from .evaluate import Scores, evaluate
from .model import DepConfig, DepModel
from .projective import deprojectivise, is_projective, projectivise
from .train import TrainResult, train

__all__ = ["eisner1", "eisner2", "max_marginals1", "max_marginals2", "BadSentence", "ConllFormatError",
           "DepSentence", "format_conll", "read_conll", "read_conll_string", "write_conll", "Scores", "evaluate",
           "DepConfig", "DepModel", "deprojectivise", "is_projective", "projectivise", "TrainResult", "train"]
