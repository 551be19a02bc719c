"""Is parser A better than parser B on these sentences?  A paired bootstrap over sentences.

:func:`paired_bootstrap` scores two parses of the same gold sentences, sentence by
sentence, with plgraph's EVALB (:func:`plgraph.eval.evalb.evalb`: matched, gold and test
brackets) and the Johnson (2002) empty-node metric (:func:`plgraph.eval.traces.traces`:
matched, gold and test items), then draws ``samples`` resamples of the sentences with
replacement -- the same resample for both systems, which is what makes it *paired* -- and
computes each system's corpus-level F1 on every resample (counts summed over the
resample, as EVALB sums them, not an average of sentence scores).

Reported per metric: both systems' F1 on the sentences as they are, the difference
``A - B``, its ``confidence`` interval (the percentiles of the resampled differences;
Efron & Tibshirani's percentile interval, as Koehn 2004 uses it for MT), and ``p``: the
share of resamples in which A is *not* better than B (difference <= 0; one-sided, with the
usual +1 in numerator and denominator so that it is never 0).  Sentences are those EVALB
scores (status 0) of at most ``max_words`` words (EVALB's own length column; None: every
sentence); the trace metric uses the same sentences.

Resamples are drawn in blocks of at most ``block`` rows (memory ``block x sentences``
indices), from ``numpy.random.default_rng(seed)``: the same seed gives the same figures.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ..errors import InputError

#: the metrics :func:`paired_bootstrap` compares, in report order
METRICS = ("evalb", "johnson")


@dataclass(frozen=True)
class BootstrapConfig:
    """How :func:`paired_bootstrap` resamples (module docstring).  InputError for fewer
    than 1 sample, a confidence outside (0, 1) or ``max_words`` below 1."""

    samples: int = 10000
    seed: int = 0
    max_words: int | None = 40
    confidence: float = 0.95
    block: int = 1000

    def __post_init__(self):
        if self.samples < 1 or self.block < 1:
            raise InputError(f"BootstrapConfig: samples {self.samples} and block {self.block} must be at least 1")
        if not 0.0 < self.confidence < 1.0:
            raise InputError(f"BootstrapConfig.confidence {self.confidence}: expected a value between 0 and 1")
        if self.max_words is not None and self.max_words < 1:
            raise InputError(f"BootstrapConfig.max_words {self.max_words}: expected at least 1 (None: every sentence)")


def f1_of(counts: np.ndarray) -> np.ndarray:
    """F1 in percent of ``(..., 3)`` summed ``(matched, gold, test)`` counts (0 where
    precision + recall is 0, as EVALB's and the trace script's totals)."""
    counts = np.asarray(counts, np.float64)
    m, g, t = counts[..., 0], counts[..., 1], counts[..., 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(t > 0, m / t, 0.0)
        r = np.where(g > 0, m / g, 0.0)
        f = np.where(p + r > 0, 2 * p * r / (p + r), 0.0)
    return 100.0 * f


def sentence_counts(gold, test, max_words: int | None = 40, *, gold_name: str = "gold",
                    test_name: str = "test") -> tuple[np.ndarray, dict]:
    """``(kept, counts)`` of ``test`` trees against ``gold`` ones (same order; bracketed
    strings or trees): ``kept`` the indices of the sentences scored (EVALB status 0, at
    most ``max_words`` words) and ``counts[metric]`` an ``(len(kept), 3)`` array of
    matched, gold and test items per kept sentence."""
    from .evalb import evalb
    from .traces import traces

    gold, test = list(gold), list(test)
    eb = evalb(gold, test, gold_name=gold_name, test_name=test_name)
    rows = np.array([(r[1], r[2], r[5], r[6], r[7]) for r in eb.rows], np.int64).reshape(-1, 5)
    ok = rows[:, 1] == 0
    if max_words is not None:
        ok &= rows[:, 0] <= max_words
    kept = np.flatnonzero(ok)
    tr = traces(gold, test, gold_name=gold_name, test_name=test_name)          # "" or None: a failed parse
    johnson = np.array(tr.per_sentence, np.int64).reshape(-1, 3)
    return kept, {"evalb": rows[kept][:, 2:5], "johnson": johnson[kept]}


def resample_differences(counts_a: np.ndarray, counts_b: np.ndarray, config: BootstrapConfig) -> np.ndarray:
    """``(samples,)`` F1(A) - F1(B) over ``config.samples`` paired resamples of the rows
    of two ``(S, 3)`` count arrays (module docstring)."""
    S = counts_a.shape[0]
    if counts_b.shape[0] != S:
        raise ValueError(f"{S} sentences of A but {counts_b.shape[0]} of B")
    rng = np.random.default_rng(config.seed)
    out = np.empty(config.samples)
    done = 0
    while done < config.samples:
        k = min(config.block, config.samples - done)
        idx = rng.integers(0, S, size=(k, S))
        out[done:done + k] = f1_of(counts_a[idx].sum(axis=1)) - f1_of(counts_b[idx].sum(axis=1))
        done += k
    return out


def paired_bootstrap(gold, a, b, config: BootstrapConfig | None = None, *, names: tuple = ("A", "B")) -> dict:
    """The comparison of parses ``a`` and ``b`` of the ``gold`` trees (module docstring):
    ``{"sentences", "config", "systems", metric: {"a", "b", "difference", "low", "high",
    "p"}}``, F1 and differences in percent.  InputError when the three differ in length or
    no sentence is left to compare."""
    config = config or BootstrapConfig()
    gold, a, b = list(gold), list(a), list(b)
    if not (len(gold) == len(a) == len(b)):
        raise InputError(f"{len(gold)} gold trees, {len(a)} of {names[0]} and {len(b)} of {names[1]}: "
                         f"the three must hold the same sentences in the same order")
    kept_a, ca = sentence_counts(gold, a, config.max_words, test_name=names[0])
    kept_b, cb = sentence_counts(gold, b, config.max_words, test_name=names[1])
    both = np.intersect1d(kept_a, kept_b)
    if both.shape[0] == 0:
        raise InputError("no sentence that EVALB scores in both parses is left to compare")
    sel_a, sel_b = np.searchsorted(kept_a, both), np.searchsorted(kept_b, both)
    tail = (1.0 - config.confidence) / 2
    doc = {"sentences": int(both.shape[0]), "config": asdict(config), "systems": list(names)}
    for metric in METRICS:
        xa, xb = ca[metric][sel_a], cb[metric][sel_b]
        diffs = resample_differences(xa, xb, config)
        fa, fb = float(f1_of(xa.sum(0))), float(f1_of(xb.sum(0)))
        doc[metric] = {"a": fa, "b": fb, "difference": fa - fb,
                       "low": float(np.quantile(diffs, tail)), "high": float(np.quantile(diffs, 1 - tail)),
                       "p": float((np.count_nonzero(diffs <= 0) + 1) / (config.samples + 1))}
    return doc


def format_comparison(doc: dict) -> str:
    """The comparison as a short table (one line per metric)."""
    a, b = doc["systems"]
    conf = round(100 * doc["config"]["confidence"])
    most = doc["config"]["max_words"]
    lines = [f"A: {a}", f"B: {b}",
             f"{doc['sentences']} sentences ({'every length' if most is None else f'at most {most} words'}), "
             f"{doc['config']['samples']} paired resamples, seed {doc['config']['seed']}",
             f"{'F1':<9} {'A':>7} {'B':>7} {'A - B':>7}  {conf}% interval      p(A <= B)"]
    for metric in METRICS:
        m = doc[metric]
        lines.append(f"{metric:<9} {m['a']:7.2f} {m['b']:7.2f} {m['difference']:+7.2f}  "
                     f"[{m['low']:+6.2f}, {m['high']:+6.2f}]  {m['p']:9.4f}")
    return "\n".join(lines) + "\n"


def cli_main(args) -> int:
    """``python -m plgraph eval compare GOLD A B``: print :func:`format_comparison`, write
    the JSON (``--json``) atomically.  Exit 0 when compared, 2 on bad input (an error
    naming the file on stderr)."""
    import sys

    from ..errors import PlgraphError
    from ..files.atomic import atomic_json, check_writable
    from .evalb import read_evalb_file

    try:
        if args.json:
            check_writable(args.json)
        config = BootstrapConfig(samples=args.samples, seed=args.seed,
                                 max_words=None if args.max_words == 0 else args.max_words)
        trees = []
        for path in (args.gold, args.a, args.b):
            lines = read_evalb_file(path)
            if not lines:
                raise InputError("file contains no trees", source=str(path))
            trees.append(lines)
        doc = paired_bootstrap(*trees, config, names=(str(args.a), str(args.b)))
        sys.stdout.write(format_comparison(doc))
        if args.json:
            atomic_json(args.json, doc)
    except (PlgraphError, OSError) as err:
        print(f"plgraph eval: error: {err}", file=sys.stderr)
        return 2
    return 0


__all__ = ["BootstrapConfig", "METRICS", "f1_of", "sentence_counts", "resample_differences", "paired_bootstrap",
           "format_comparison", "cli_main"]
