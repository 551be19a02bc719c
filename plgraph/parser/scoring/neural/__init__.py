"""Neural scores in the 1EC chart (the optional extra ``plgraph[neural]``, PyTorch on CPU).

A BiLSTM over words, characters and (optionally) POS tags, as in Kiperwasser & Goldberg
(2016) and Dozat & Manning (2017), scores what the chart reads about a sentence -- each
word's structural head (biaffine), the structural edge's label (an MLP over the pair),
trace edges (biaffine, one logit per ordered pair) and their types, and each word's spine
-- and the exact 1EC chart of :mod:`plgraph.parser.chart` decodes the graph from those
scores, as it does from the linear passes' tables.

Layout (one job per module):

* :mod:`~plgraph.parser.scoring.neural.data` (numpy only): the training targets of a graph, the word,
  character and tag vocabularies;
* :mod:`~plgraph.parser.scoring.neural.network` (torch): the encoder, the scorers and the local losses;
* :mod:`~plgraph.parser.scoring.neural.prune` (numpy only): the chart's candidates and score tables from
  the network's log-probabilities -- pruning by the neural marginals takes the place of
  pass 1, the classifiers and pass 2;
* :mod:`~plgraph.parser.scoring.neural.folder`: the model folder (``.npz`` + JSON, never a pickle);
* :mod:`~plgraph.parser.scoring.neural.train`: :func:`~plgraph.parser.scoring.neural.train.train_neural` with its
  :class:`~plgraph.parser.scoring.neural.train.NeuralTrainConfig` (checkpoints, ``resume``, Ctrl-C);
* :mod:`~plgraph.parser.scoring.neural.scorer`: :class:`~plgraph.parser.scoring.neural.scorer.NeuralScorer`,
  a :class:`~plgraph.parser.scoring.protocol.Scorer` (what
  :meth:`~plgraph.parser.parsing.parser.Parser.load` composes for a folder's neural scorer).

Only :mod:`~plgraph.parser.scoring.neural.network` and what imports it need torch;
:func:`require_torch` is the one place that says how to get it.
"""
from __future__ import annotations

from ....errors import InputError


def require_torch():
    """The ``torch`` module, or an :class:`~plgraph.errors.InputError` saying how to install it."""
    try:
        import torch
    except ImportError:
        raise InputError("the neural scorer needs PyTorch: pip install 'plgraph[neural]' "
                         "(the CPU wheel, about 200 MB)") from None
    return torch


__all__ = ["require_torch"]
