"""ARPA export of the Kneser-Ney family, so our models load in other toolkits.

Every n-gram of the model is written with ``log10`` of its probability and,
below the highest order, ``log10`` of its back-off weight.  For interpolated
models these are the full interpolated probability and ``gamma`` (as KenLM
writes them), for back-off models the discounted probability and ``beta``;
standard ARPA back-off then reproduces the model exactly (to the printed
digits).  ``<s>`` gets ``-99`` (never predicted), ``<unk>`` its unigram mass.

PLRE cannot be written as ARPA: its low-rank terms give probability to
n-grams that were never seen, with a different value for every context, which
no back-off table represents.
"""
from __future__ import annotations

import numpy as np

from ..errors import PlgraphError
from ..files.atomic import atomic_open
from .model import KNModel, LanguageModel

LOG10_E = 1.0 / np.log(10.0)


class ExportError(PlgraphError, ValueError):
    """A model that cannot be exported in the requested format."""


def _fmt(values: np.ndarray) -> list[str]:
    out = []
    for v in values.tolist():
        out.append("-99" if v == -np.inf or v < -99 else f"{v:.10g}")
    return out


def arpa_order(model: KNModel) -> int:
    """The highest level of ``model`` that has n-grams (at most ``model.order``).

    A training text shorter than the order (one short sentence, ``order=5``) leaves the top
    levels empty; an ARPA file declaring ``ngram 4=0`` is rejected or warned about by
    other toolkits, so those levels are left out.  This is exact: the entries of the
    last non-empty level have no children, so their back-off weight is 1 (log 0) and the
    file's standard back-off gives the model's probabilities."""
    N = model.order
    while N > 1 and model.n_entries(N) == 0:
        N -= 1
    return N


def write_arpa(model: LanguageModel, path, progress: bool | None = None) -> dict:
    """Write ``model`` as an ARPA file at ``path`` (atomically; a FIFO or device is
    streamed to); returns the n-gram counts per level written (levels up to
    :func:`arpa_order`)."""
    from tqdm.auto import tqdm

    if not isinstance(model, KNModel):
        raise ExportError(f"{model.method} models cannot be written as ARPA (only int-kn, int-mkn, bo-kn, bo-mkn): "
                          "the low-rank terms give every context its own distribution over unseen words")
    N = arpa_order(model)
    words = np.array(model.vocab.words, dtype=object)
    sizes = {k: model.n_entries(k) for k in range(1, N + 1)}
    with atomic_open(path, "w") as fh:
        fh.write("\\data\\\n")
        for k in range(1, N + 1):
            fh.write(f"ngram {k}={sizes[k]}\n")
        for k in tqdm(range(1, N + 1), desc="ARPA", disable=not progress if progress is not None else None,
                      leave=False):
            fh.write(f"\n\\{k}-grams:\n")
            ids = model.ngram_words(k)
            text = words[ids[:, 0]]
            for j in range(1, k):
                text = text + " " + words[ids[:, j]]
            lp = _fmt(model.logp[k] * LOG10_E)
            if k < N:
                bow = _fmt(model.logbow[k] * LOG10_E)
                fh.write("".join(f"{p}\t{t}\t{b}\n" for p, t, b in zip(lp, text.tolist(), bow)))
            else:
                fh.write("".join(f"{p}\t{t}\n" for p, t in zip(lp, text.tolist())))
        fh.write("\n\\end\\\n")
    return sizes
