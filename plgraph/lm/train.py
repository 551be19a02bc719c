"""Training entry point: text -> vocabulary -> counts -> model."""
from __future__ import annotations

import time
from pathlib import Path

from .counts import MAX_ORDER, count_ngrams
from .model import KN_METHODS, METHODS, LanguageModel, estimate_kn
from ..errors import InputError
from .text import BOS, EOS, LMTextError, Vocabulary, encode, read_sentences


def train(source, order: int = 3, method: str = "int-mkn", min_count: int = 1, plre=None,
          progress: bool | None = None) -> LanguageModel:
    """Train a language model.

    Parameters
    ----------
    source : path or list of token lists
        Training text, one sentence per line (see :mod:`plgraph.lm.text`).
    order : int
        1-5 (PLRE: 2-5).
    method : str
        ``int-kn``, ``int-mkn``, ``bo-kn``, ``bo-mkn`` or ``plre``.
    min_count : int
        Training words seen fewer times become ``<unk>`` (2 = the PLRE paper's
        "singletons -> <unk>"); 1 keeps every word.
    plre : PLREConfig, optional
        PLRE hyper-parameters; default :data:`plgraph.lm.plre.DEFAULT_CONFIG`
        (the values tuned on validation data, see :mod:`plgraph.lm.plre`).
    progress : bool, optional
        tqdm progress bars for the PLRE fits (``None``: auto).

    The header of the returned model records the options and the wall time of
    each step (``train_seconds``).

    Raises
    ------
    InputError
        No sentences (an empty list; an empty file is an :class:`LMTextError`), or a
        sentence of the list that holds ``<s>`` or ``</s>`` (names its 0-based index).
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if not 1 <= order <= MAX_ORDER:
        raise ValueError(f"order must be 1..{MAX_ORDER}, got {order}")
    times = {}
    t = time.perf_counter()
    if isinstance(source, (str, Path)):
        sentences = read_sentences(source)
        name = str(source)
    else:
        sentences = source if isinstance(source, list) else list(source)
        name = "<sentences>"
        _check_sentences(sentences, name)
    if not sentences:
        raise InputError("no sentences to train on", name)
    vocab = Vocabulary.from_sentences(sentences, min_count)
    stream = encode(sentences, vocab)
    times["read"] = time.perf_counter() - t
    t = time.perf_counter()
    counts = count_ngrams(stream, order, len(vocab))
    times["count"] = time.perf_counter() - t
    header = {"train_file": name, "min_count": min_count, "train_tokens": int(stream.n_predictions),
              "train_sentences": int(stream.n_sentences)}
    t = time.perf_counter()
    if method in KN_METHODS:
        model = estimate_kn(counts, vocab, method, header)
    else:
        from .plre import DEFAULT_CONFIG, estimate_plre

        model = estimate_plre(counts, vocab, plre or DEFAULT_CONFIG, header, progress=progress, times=times)
    times["estimate"] = time.perf_counter() - t
    times["total"] = sum(v for k, v in times.items() if k in ("read", "count", "estimate"))
    model.header["train_seconds"] = {k: round(v, 4) for k, v in times.items()}
    return model


def _check_sentences(sentences: list, name: str) -> None:
    """No sentence of a token list holds the reserved ``<s>`` / ``</s>`` (as in
    :func:`~plgraph.lm.text.parse_sentences`)."""
    for i, sent in enumerate(sentences):
        for w in (BOS, EOS):
            if w in sent:
                raise LMTextError(f"reserved word {w} in a sentence (sentence boundaries are implicit)", name,
                                  sentence=i)
