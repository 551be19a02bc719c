"""Reusable structured learning over sparse features.

* :mod:`~plgraph.learn.features` -- stable string hashes and a frozen feature
  dictionary (:class:`FeatureTable`, uint64 keys -> dense ids);
* :mod:`~plgraph.learn.labels` -- label taxonomies and label-structured weight
  blocks (one weight copy per label plus generalisations over labels, pruned per
  feature, after Schiehlen & Spranger 2007);
* :mod:`~plgraph.learn.learners` -- :class:`AdaGrad` with l1/l2 and lazy catch-up
  (exactly the thesis's Algorithm 1), the averaged :class:`Perceptron` and
  :class:`PassiveAggressive` (1-best MIRA, Crammer et al. 2006);
* :mod:`~plgraph.learn.online` -- the model-agnostic epoch loop (mini-batches whose
  summed subgradient updates the weights) and a sparse multiclass model;
* :mod:`~plgraph.learn.loop` -- the training loop around it that every model uses
  (epochs, per-epoch checkpoints as ``.npz`` + JSON, resume with the refusal of
  changed options, curves as JSON/CSV, the folder lock, Ctrl-C safe points); its
  clients are ``plgraph.dep.train`` and ``plgraph.pruners.training``;
* :mod:`~plgraph.learn.replicas` -- the loop's mini-batches decoded on a Dask cluster's
  workers, each holding a replica of the weights that applies the same summed sparse
  gradient as the driver.

A model plugs in by providing ``batch_gradient(batch) -> SparseGradient``: decode
each item of the batch loss-augmented (models read weights through
``_kernels.wread(*learner.read_args(), index)``, which applies AdaGrad's pending
catch-up) and return ``f(prediction) - f(gold)`` summed over the batch.  See
:mod:`plgraph.dep` for a structured model (Eisner parsing) that decodes the
sentences of a batch in parallel.
"""
from .features import FeatureTable, hash_string, hash_strings
from .labels import LabelTaxonomy, label_blocks
from .learners import (LEARNERS, AdaGrad, Learner, PassiveAggressive, Perceptron, SparseGradient,
                       learner_from_state, make_learner)
from .online import EpochStats, MulticlassModel, batches, run_epoch

__all__ = ["FeatureTable", "hash_string", "hash_strings", "LabelTaxonomy", "label_blocks", "LEARNERS",
           "AdaGrad", "Learner", "PassiveAggressive", "Perceptron", "SparseGradient", "learner_from_state",
           "make_learner", "EpochStats", "MulticlassModel", "batches", "run_epoch"]
