"""Language modelling: the Kneser-Ney family and Power Low Rank Ensembles (Parikh et al. 2014).

::

    from plgraph import lm
    corpus = lm.lm_corpus("ptb")                      # or "brown", "ru-taiga"
    model = lm.train(corpus.train, order=3, method="int-mkn")   # int-kn, bo-kn, bo-mkn, plre
    model.evaluate(corpus.test).perplexity
    model.save("ptb3.npz"); lm.load_model("ptb3.npz")
    lm.write_arpa(model, "ptb3.arpa")                 # every KN variant

Modules: :mod:`~plgraph.lm.text` (reading, vocabulary), :mod:`~plgraph.lm.counts`
(n-gram counts as sorted arrays), :mod:`~plgraph.lm.discounts`,
:mod:`~plgraph.lm.base` (the base class every model shares), :mod:`~plgraph.lm.model`
(KN family, loading), :mod:`~plgraph.lm.plre`,
:mod:`~plgraph.lm.arpa`, :mod:`~plgraph.lm.experiments` (tables and figures of
the notebook), :mod:`~plgraph.lm.corpora`; numba kernels in ``_kernels``.
"""
from .arpa import ExportError, write_arpa
from .base import Evaluation, LanguageModel
from .corpora import LM_CORPORA, LMCorpus, brown_protocol, lm_corpus
from .counts import NGramCounts, count_ngrams
from .model import KN_METHODS, METHODS, KNModel, estimate_kn, load_model
from .plre import DEFAULT_CONFIG, PLREConfig, PLREModel, Term, estimate_plre
from .text import LMTextError, TokenStream, Vocabulary, encode, parse_sentences, read_sentences
from .train import train

__all__ = [
    "ExportError", "write_arpa", "LM_CORPORA", "LMCorpus", "brown_protocol", "lm_corpus", "NGramCounts",
    "count_ngrams", "KN_METHODS", "METHODS", "Evaluation", "KNModel", "LanguageModel", "estimate_kn", "load_model",
    "DEFAULT_CONFIG", "PLREConfig", "PLREModel", "Term", "estimate_plre", "LMTextError", "TokenStream",
    "Vocabulary", "encode", "parse_sentences", "read_sentences", "train", "warmup",
]


def warmup() -> None:
    """Compile (or load from numba's cache) every language-model kernel on a toy corpus."""
    sents = [["a", "b", "c"], ["b", "a"], ["c", "c", "a", "b"]]
    for method in ("int-mkn", "plre"):
        model = train(sents, order=3, method=method, progress=False)
        model.warmup()
        model.distribution(["<s>", "a"])
