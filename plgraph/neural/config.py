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
    on them, and errs less with predicted ones)."""

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


__all__ = ["NetworkConfig"]
