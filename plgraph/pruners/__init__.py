"""The graph parser's coarse passes: a projective
first-order arc parser, a trace classifier and a spine classifier, trained with
the online primal subgradient + AdaGrad learner, and max-marginal / probability
pruning for the full 1EC pass."""
from .classifiers import SpineClassifier, TraceClassifier
from .data import SentenceData, WordNormaliser, sentence_data
from .measure import pruning_stats
from .model import PrunedSentence, PrunerConfig, Pruners, Thresholds
from .training import train_pruners

__all__ = ["SpineClassifier", "TraceClassifier", "SentenceData", "WordNormaliser", "sentence_data",
           "PrunedSentence", "PrunerConfig", "Pruners", "Thresholds", "pruning_stats", "train_pruners"]
