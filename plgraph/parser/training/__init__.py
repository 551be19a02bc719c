"""Training the graph parser: the whole pipeline and its parts.

* :mod:`~plgraph.parser.training.pipeline` -- :func:`train` with its
  :class:`TrainConfig`: coarse models, labels and rules, POS tagger, pass 2, ratio
  tuning, pass 3 and its trace threshold, into a model folder;
* :mod:`~plgraph.parser.training.corpus` -- sentences prepared for pass 2 (and pass 2's
  evaluation); :mod:`~plgraph.parser.training.cascade` -- pass 2's outputs, pass 3's
  prepared sentences, the tuning of pruning ratios and of the trace threshold;
* :mod:`~plgraph.parser.training.passes` -- one pass trained epoch by epoch with
  checkpoints, resumable.
"""
