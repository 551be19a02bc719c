"""The neural scorer's configs: the network's sizes (:class:`NetworkConfig`) and a
training run's (:class:`NeuralTrainConfig`); torch free, so that a command line can check
its options before PyTorch is needed."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

import numpy as np

from ....errors import InputError


@dataclass(frozen=True)
class NetworkConfig:
    """Sizes of the network (defaults near SuPar's biaffine dependency parser, smaller
    LSTM states: the sample trains on 2,800 sentences on two CPU cores).
    ``tag_dim`` 0 or ``use_tags`` False: no tag input.  ``predict_tags``: a tagging
    head (an MLP of ``tag_mlp`` units over the encoder's states, a softmax over the train
    split's tags) trained jointly with the rest; the parser then takes a sentence's POS
    tags from the network itself, with no separate tagger (a network that reads tags
    cannot also predict them: ``predict_tags`` with ``use_tags`` is refused).
    ``pretrained_dim``: the size of
    the user's pretrained vectors (0: none), projected onto ``word_dim`` and added to
    the trained word embedding.  ``tag_dropout``: in training, each word's tag is read as
    the unknown tag with this probability (a network trained on gold tags then leans less
    on them, and errs less with predicted ones).  Sizes below 1 (0 for ``tag_dim`` and
    ``pretrained_dim``) and dropouts outside [0, 1] are refused (InputError)."""

    word_dim: int = 100
    char_dim: int = 50
    char_hidden: int = 100
    tag_dim: int = 50
    use_tags: bool = True
    pretrained_dim: int = 0
    lstm_hidden: int = 300
    lstm_layers: int = 3
    arc_mlp: int = 400
    label_mlp: int = 200
    trace_mlp: int = 200
    spine_mlp: int = 200
    predict_tags: bool = False
    tag_mlp: int = 200
    dropout: float = 0.33
    tag_dropout: float = 0.2

    def __post_init__(self):
        from ....errors import InputError

        for name in ("word_dim", "char_dim", "char_hidden", "lstm_hidden", "lstm_layers", "arc_mlp", "label_mlp",
                     "trace_mlp", "spine_mlp", "tag_mlp"):
            if not getattr(self, name) >= 1:
                raise InputError(f"NetworkConfig.{name} {getattr(self, name)}: expected at least 1")
        for name in ("tag_dim", "pretrained_dim"):
            if not getattr(self, name) >= 0:
                raise InputError(f"NetworkConfig.{name} {getattr(self, name)}: expected 0 or more")
        for name in ("dropout", "tag_dropout"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise InputError(f"NetworkConfig.{name} {getattr(self, name)}: expected a probability between 0 and 1")
        if self.predict_tags and self.use_tags and self.tag_dim > 0:
            raise InputError("NetworkConfig: a network that reads POS tags (use_tags) cannot also predict them "
                             "(predict_tags); set use_tags False to have the network tag the sentence itself")


@dataclass(frozen=True)
class NeuralTrainConfig:
    """A neural training run into ``model_dir``
    (:func:`~plgraph.parser.scoring.neural.train.train_neural`).  ``ptb``: a full
    treebank's folder (None: the sample); ``embeddings``: a word2vec / GloVe text file of
    pretrained vectors (the words of the train split and the first ``embeddings_limit``
    lines are kept); ``threads``: torch's CPU threads; ``trace_precision``: the trace
    threshold's target precision on dev
    (:func:`plgraph.parser.scoring.neural.tune.tune_decode`); ``keep``: the weights kept
    in ``neural.npz``, those of the ``best`` epoch on dev or of the ``last`` one.
    Sizes below 1, a learning rate or ``max_minutes`` that is not positive and another
    ``keep`` are refused (InputError)."""

    model_dir: str
    ptb: str | None = None
    network: NetworkConfig = field(default_factory=NetworkConfig)
    epochs: int = 100
    patience: int = 20
    max_minutes: float | None = None
    batch_words: int = 1000
    lr: float = 2e-3
    decay_steps: int = 5000
    clip: float = 5.0
    max_words: int = 40
    limit: int | None = None
    seed: int = 0
    threads: int = 2
    embeddings: str | None = None
    embeddings_limit: int = 100000
    resume: bool = False
    overwrite: bool = False
    tune: bool = True
    trace_precision: float = 75.0
    keep: str = "best"
    progress: bool | None = None

    def __post_init__(self):
        for name in ("epochs", "batch_words", "max_words", "threads"):
            if getattr(self, name) < 1:
                raise InputError(f"NeuralTrainConfig.{name} {getattr(self, name)}: expected at least 1")
        if self.keep not in ("best", "last"):
            raise InputError(f"NeuralTrainConfig.keep {self.keep!r}: expected 'best' or 'last'")
        if not self.lr > 0 or not np.isfinite(self.lr):
            raise InputError(f"NeuralTrainConfig.lr {self.lr}: expected a positive learning rate")
        if self.max_minutes is not None and not self.max_minutes > 0:
            raise InputError(f"NeuralTrainConfig.max_minutes {self.max_minutes}: expected a positive number of "
                             f"minutes (None: no limit)")

    def options(self) -> dict:
        """The run's options as ``neural.json`` keeps them (a resumed run must not change
        them): every field but the folder, the treebank and how the run is driven."""
        d = asdict(self)
        for k in ("model_dir", "resume", "overwrite", "progress", "ptb"):
            d.pop(k)
        return d


#: the fields of :class:`NeuralTrainConfig` that the shared
#: :class:`~plgraph.parser.training.pipeline.TrainConfig` holds itself
SHARED_FIELDS = ("model_dir", "ptb", "max_words", "limit", "seed", "threads", "resume", "overwrite", "progress")


def neural_fields() -> set:
    """The names ``TrainConfig.neural`` takes: the fields of :class:`NeuralTrainConfig`
    other than :data:`SHARED_FIELDS` (``network``: a dict of
    :class:`~plgraph.parser.scoring.neural.config.NetworkConfig` fields)."""
    return {f.name for f in fields(NeuralTrainConfig)} - set(SHARED_FIELDS)


__all__ = ["NetworkConfig", "NeuralTrainConfig", "SHARED_FIELDS", "neural_fields"]
