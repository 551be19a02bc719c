"""The neural network's sizes (:class:`NetworkConfig`; numpy and torch free, so that a
command line can check its options before PyTorch is needed)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class NetworkConfig:
    """Sizes of the network (defaults near SuPar's biaffine dependency parser, smaller
    LSTM states: the sample trains on 2,800 sentences on two CPU cores).
    ``tag_dim`` 0 or ``use_tags`` False: no tag input.  ``pretrained_dim``: the size of
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
    dropout: float = 0.33
    tag_dropout: float = 0.2

    def __post_init__(self):
        from ..errors import InputError

        for name in ("word_dim", "char_dim", "char_hidden", "lstm_hidden", "lstm_layers", "arc_mlp", "label_mlp",
                     "trace_mlp", "spine_mlp"):
            if not getattr(self, name) >= 1:
                raise InputError(f"NetworkConfig.{name} {getattr(self, name)}: expected at least 1")
        for name in ("tag_dim", "pretrained_dim"):
            if not getattr(self, name) >= 0:
                raise InputError(f"NetworkConfig.{name} {getattr(self, name)}: expected 0 or more")
        for name in ("dropout", "tag_dropout"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise InputError(f"NetworkConfig.{name} {getattr(self, name)}: expected a probability between 0 and 1")


__all__ = ["NetworkConfig"]
