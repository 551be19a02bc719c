"""Experiments of the notebook and the benchmarks: perplexity tables, PLRE gains by order,
rank sweeps and their figures.  Hyper-parameter choices use validation data only; test
perplexities are reported, never selected on.
"""
from __future__ import annotations

import dataclasses
import itertools
import time
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np

from .corpora import lm_corpus
from .counts import NGramCounts, count_ngrams
from .model import KN_METHODS, LanguageModel, estimate_kn
from .plre import DEFAULT_CONFIG, PLREConfig, Term, estimate_plre
from .text import TokenStream, Vocabulary, encode, read_sentences

CORPUS_LABELS = {"ptb": "PTB (Mikolov split)", "brown": "Brown protocol", "ru-taiga": "Russian (UD Taiga)"}
METHOD_LABELS = {"bo-kn": "BO-KN", "int-kn": "int-KN", "bo-mkn": "BO-MKN", "int-mkn": "int-MKN", "plre": "PLRE"}


@dataclass
class LMData:
    """A corpus in memory: sentences, vocabulary, encoded valid/test, counts by order (cached)."""

    name: str
    train: list
    valid: list
    test: list
    min_count: int = 1
    _counts: dict = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, name: str, max_train_tokens: int | None = None, max_eval_tokens: int | None = None) -> "LMData":
        """Corpus ``name`` (see :func:`~plgraph.lm.corpora.lm_corpus`), optionally cut to its
        first sentences (quick mode)."""
        c = lm_corpus(name)
        splits = [read_sentences(p) for p in (c.train, c.valid, c.test)]
        splits[0] = _head(splits[0], max_train_tokens)
        splits[1] = _head(splits[1], max_eval_tokens)
        splits[2] = _head(splits[2], max_eval_tokens)
        return cls(name, *splits, min_count=c.min_count)

    @property
    def vocab(self) -> Vocabulary:
        if "vocab" not in self._counts:
            self._counts["vocab"] = Vocabulary.from_sentences(self.train, self.min_count)
        return self._counts["vocab"]

    def stream(self, split: str) -> TokenStream:
        key = "stream-" + split
        if key not in self._counts:
            self._counts[key] = encode(getattr(self, split), self.vocab)
        return self._counts[key]

    def counts(self, order: int) -> NGramCounts:
        if order not in self._counts:
            self._counts[order] = count_ngrams(self.stream("train"), order, len(self.vocab))
        return self._counts[order]

    def fit(self, order: int, method: str, plre: PLREConfig | None = None,
            progress: bool | None = False) -> tuple[LanguageModel, float]:
        """A model and its estimation time in seconds (counting excluded; see :func:`train_times`)."""
        counts = self.counts(order)
        t = time.perf_counter()
        if method in KN_METHODS:
            model = estimate_kn(counts, self.vocab, method)
        else:
            model = estimate_plre(counts, self.vocab, plre or DEFAULT_CONFIG, progress=progress)
        return model, time.perf_counter() - t

    def perplexity(self, model: LanguageModel, split: str) -> float:
        lp = model.logprobs(self.stream(split))
        return float(np.exp(-lp.sum() / len(lp)))

    @property
    def n_train_tokens(self) -> int:
        return int(self.stream("train").n_predictions)


def available_corpora(names: Sequence[str] = ("ptb", "brown", "ru-taiga")) -> list[str]:
    """The LM corpora whose data can be found (see :mod:`plgraph.lm.corpora`)."""
    from ..errors import CorpusNotFoundError

    out = []
    for name in names:
        try:
            lm_corpus(name)
            out.append(name)
        except CorpusNotFoundError:
            pass
    return out


def corpus_summary(datasets: Sequence[LMData]):
    """Sizes, vocabulary and unknown-word rates of each corpus as the models see it."""
    import pandas as pd

    rows = []
    for d in datasets:
        row = {"corpus": CORPUS_LABELS.get(d.name, d.name), "vocabulary": len(d.vocab) - 1,
               "min_count": d.min_count}
        for split in ("train", "valid", "test"):
            s = d.stream(split)
            row[f"{split} tokens"] = s.n_predictions
            if split != "train":
                unk = int((s.tokens == 0).sum())
                row[f"{split} <unk> %"] = round(100 * unk / s.n_predictions, 2)
        rows.append(row)
    return pd.DataFrame(rows).set_index("corpus")


def kenlm_parity_brown(orders: Sequence[int] = (2, 3, 4, 5)):
    """Our int-MKN on the full Brown protocol next to the reference KenLM figures
    (:data:`~plgraph.lm.reference.KENLM_BROWN`)."""
    import pandas as pd

    from .reference import KENLM_BROWN

    data = LMData.load("brown")
    rows = []
    for order in orders:
        model, secs = data.fit(order, "int-mkn")
        v, t = data.perplexity(model, "valid"), data.perplexity(model, "test")
        kv, kt, _ = KENLM_BROWN[order]
        rows.append({"order": order, "plgraph valid": round(v, 4), "KenLM valid": kv, "plgraph test": round(t, 4),
                     "KenLM test": kt, "relative difference (test)": f"{t / kt - 1:+.1e}"})
    return pd.DataFrame(rows).set_index("order")


def _head(sentences: list, max_tokens: int | None) -> list:
    if max_tokens is None:
        return sentences
    out, n = [], 0
    for s in sentences:
        if n >= max_tokens:
            break
        out.append(s)
        n += len(s) + 1
    return out


def perplexity_table(datasets: Sequence[LMData], order: int = 3, methods: Iterable[str] = KN_METHODS + ("plre",),
                     plre: PLREConfig | None = None, progress: bool | None = None):
    """Valid and test perplexity of every method on every corpus (the PLRE paper's Table 1 shape)."""
    import pandas as pd
    from tqdm.auto import tqdm

    rows = []
    jobs = list(itertools.product(datasets, methods))
    for data, method in tqdm(jobs, desc=f"order-{order} models", disable=not progress if progress is not None else None):
        model, secs = data.fit(order, method, plre)
        rows.append({"corpus": data.name, "method": method, "order": order,
                     "valid": data.perplexity(model, "valid"), "test": data.perplexity(model, "test"),
                     "estimate_s": secs})
    df = pd.DataFrame(rows)
    base = df[df.method == "int-mkn"].set_index("corpus")
    for split in ("valid", "test"):
        df[f"{split} vs int-MKN %"] = 100 * (df[split] / df.corpus.map(base[split]) - 1)
    return df


def table_wide(df, split: str = "test"):
    """Methods as rows, corpora as columns (like the PLRE paper's Table 1)."""
    wide = df.pivot(index="method", columns="corpus", values=split)
    order = [m for m in METHOD_LABELS if m in wide.index]
    wide = wide.loc[order].rename(index=METHOD_LABELS, columns=CORPUS_LABELS)
    return wide.round(2)


def gain_by_order(datasets: Sequence[LMData], orders: Sequence[int] = (2, 3, 4), plre: PLREConfig | None = None,
                  progress: bool | None = None):
    """PLRE's relative improvement over int-MKN per corpus and order (the PLRE paper's Figure 1)."""
    import pandas as pd
    from tqdm.auto import tqdm

    rows = []
    for data, order in tqdm(list(itertools.product(datasets, orders)), desc="orders",
                            disable=not progress if progress is not None else None):
        kn, _ = data.fit(order, "int-mkn")
        pl, secs = data.fit(order, "plre", plre)
        row = {"corpus": data.name, "order": order}
        for split in ("valid", "test"):
            a, b = data.perplexity(kn, split), data.perplexity(pl, split)
            row[f"int-MKN {split}"] = a
            row[f"PLRE {split}"] = b
            row[f"gain {split} %"] = 100 * (1 - b / a)
        row["PLRE estimate_s"] = secs
        rows.append(row)
    return pd.DataFrame(rows)


def rank_sweep(data: LMData, ranks: Sequence[float], order: int = 3, base: PLREConfig | None = None,
               levels: Sequence[int] | None = None, progress: bool | None = None):
    """PLRE perplexity as the rank (fraction of V) of every low-rank term varies."""
    import pandas as pd
    from tqdm.auto import tqdm

    base = base or DEFAULT_CONFIG
    levels = levels or sorted({t.level for t in base.terms if t.level <= order})
    kn, _ = data.fit(order, "int-mkn")
    kn_valid, kn_test = data.perplexity(kn, "valid"), data.perplexity(kn, "test")
    rows = []
    V = len(data.vocab) - 1
    for r in tqdm(ranks, desc=f"{data.name} ranks", disable=not progress if progress is not None else None):
        terms = tuple(Term(t.level, t.power, r if t.level in levels else t.rank) for t in base.terms
                      if t.level <= order)
        cfg = dataclasses.replace(base, terms=terms)
        model, secs = data.fit(order, "plre", cfg)
        rows.append({"corpus": data.name, "rank": r, "kappa": max(1, round(r * V)),
                     "valid": data.perplexity(model, "valid"), "test": data.perplexity(model, "test"),
                     "int-MKN valid": kn_valid, "int-MKN test": kn_test, "estimate_s": secs})
    return pd.DataFrame(rows)


def train_times(datasets: Sequence[LMData], order: int = 3, methods: Iterable[str] = ("int-mkn", "plre"),
                plre: PLREConfig | None = None, repeat: int = 1):
    """Training time from sentences in memory (vocabulary, counting, estimation; file reading
    excluded), best of ``repeat``, with the split reported in the model header."""
    import pandas as pd

    from .train import train

    rows = []
    for data in datasets:
        for method in methods:
            best = None
            for _ in range(repeat):
                t = time.perf_counter()
                model = train(data.train, order=order, method=method, min_count=data.min_count, plre=plre,
                              progress=False)
                secs = time.perf_counter() - t
                if best is None or secs < best[0]:
                    best = (secs, model.header["train_seconds"])
            row = {"corpus": data.name, "method": method, "order": order, "train_tokens": data.n_train_tokens,
                   "train_s": round(best[0], 3)}
            row.update({f"{k}_s": v for k, v in best[1].items() if k not in ("total", "read")})
            rows.append(row)
    return pd.DataFrame(rows)

# Figures of these tables: plgraph.figures.plot_lm_gain_by_order / plot_lm_rank_sweep.
