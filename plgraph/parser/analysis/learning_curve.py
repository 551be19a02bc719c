"""The parser's learning curve: evalb F1 and trace F against the size of the training set.

For each fraction of :data:`FRACTIONS` of the train split's sentences of at most 40 words,
a parser is trained from scratch -- coarse models included -- with the defaults
(``python -m plgraph parser train --model-dir ROOT/train-<pct> --limit K``; the whole
split, with no ``--limit``, for 100%: ``runs/parser`` of ``make parser-model`` when it is
trained) and evaluated on the test split's sentences of at
most 40 words with gold tags (:func:`plgraph.parser.analysis.evaluate.evaluate_split`).  Models and
evaluations stay in ``ROOT`` (default ``runs/learning-curve``), so the figure is redrawn
without training again.

:func:`fit_trend` fits ``score = a + b * ln(sentences)`` (least squares) -- a learning
curve straight on a log axis, the usual first-order description -- and extends it to the
39,832 sentences of WSJ 02-21, where the thesis's 88.26 F1 (and its trace F from P 88.3 /
R 50.4) stands.  Three points fit two parameters: the extension says how far the sample
is from the thesis's data, not what a full-treebank model would score.
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path

#: fractions of the train split the curve trains on
FRACTIONS = (0.25, 0.5, 1.0)
#: the train sentences of WSJ 02-21 (the thesis's training set)
FULL_TRAIN = 39832
#: the thesis's figures at FULL_TRAIN: evalb F1; trace-edge F of P 88.3 / R 50.4
THESIS_F1 = 88.26
THESIS_TRACE_F = round(2 * 88.3 * 50.4 / (88.3 + 50.4), 2)
MAX_WORDS = 40


def default_root() -> Path:
    from ..notebook_model import repository_model

    return repository_model().parent / "learning-curve"


def _train_sentences(ptb=None) -> int:
    from ...corpora import corpus

    return sum(1 for s in corpus("train", ptb).sentences() if len(s.graph.words) <= MAX_WORDS)


def model_folder(fraction: float, root=None, ptb=None) -> Path:
    """The model folder of ``fraction``'s point: ``ROOT/train-<pct>``, or for 100% the
    repository's ``runs/parser`` when ``make parser-model`` trained it."""
    from ..notebook_model import holds_trained_parser, repository_model

    if fraction >= 1.0 and not ptb and holds_trained_parser(repository_model()):
        return repository_model()          # `make parser-model`: the same training without a limit
    return Path(root or default_root()) / f"train-{int(round(100 * fraction))}"


def _result_path(folder: Path) -> Path:
    return folder / "evaluate-test-len40.json"


def missing_points(root=None, *, ptb=None, fractions=FRACTIONS) -> list[tuple[float, Path]]:
    """``(fraction, model folder)`` of the points that have neither an evaluation nor a
    trained model: drawing the curve would train them (about 20 minutes for 25%, 30 for
    50% and 36 for 100% on 2 cores)."""
    from ..notebook_model import holds_trained_parser

    out = []
    for f in fractions:
        folder = model_folder(f, root, ptb)
        if not _result_path(folder).exists() and not holds_trained_parser(folder):
            out.append((f, folder))
    return out


def point(fraction: float, root=None, *, ptb=None, jobs: int = 2, log=print) -> dict:
    """Train (unless done) and evaluate (unless done) the model of ``fraction``; its
    figures: ``{"fraction", "sentences", "evalb_f1", "trace_f", "trace_p", "trace_r",
    "johnson_f", "las"...}``."""
    from ...files.atomic import atomic_json
    from ..notebook_model import holds_trained_parser
    from ..parsing.parser import Parser
    from ..training.pipeline import TrainConfig, train
    from .evaluate import evaluate_split, headline

    folder = model_folder(fraction, root, ptb)
    result = _result_path(folder)
    if not result.exists():
        total = _train_sentences(ptb)        # read the train split only when there is work
        k = total if fraction >= 1.0 else max(1, int(round(fraction * total)))
        if not holds_trained_parser(folder):
            if log:
                log(f"training the {100 * fraction:.0f}% model ({k} sentences) into {folder}")
            os.makedirs(folder, exist_ok=True)
            train(TrainConfig(model_dir=str(folder), threads=jobs, progress=False,
                              limit=k if fraction < 1.0 else None, ptb=str(ptb) if ptb else None,
                              resume=(folder / "parser.json").exists()))
        from ...corpora import corpus

        test = [s for s in corpus("test", ptb).sentences() if len(s.graph.words) <= MAX_WORDS]
        doc, _ = evaluate_split(Parser.load(folder, scorer="linear"), test, jobs=jobs, ceiling=False)
        doc["fraction"], doc["train_sentences"] = fraction, k
        atomic_json(result, doc)
    doc = json.loads(result.read_text(encoding="utf-8"))
    h = headline(doc, "len40")
    p, r = h["trace_p"], h["trace_r"]
    return {"fraction": doc["fraction"], "sentences": doc["train_sentences"], "evalb_f1": h["evalb_f1"],
            "trace_p": p, "trace_r": r, "trace_f": round(2 * p * r / (p + r), 2) if p + r else 0.0,
            "johnson_f": h["johnson_f"], "fallback": doc["statuses"]["fallback"]}


def fit_trend(xs, ys) -> tuple[float, float]:
    """``(a, b)`` of the least-squares line ``y = a + b ln x``."""
    lx = [math.log(x) for x in xs]
    n = len(lx)
    mx, my = sum(lx) / n, sum(ys) / n
    sxx = sum((v - mx) ** 2 for v in lx)
    b = sum((v - mx) * (y - my) for v, y in zip(lx, ys)) / sxx if sxx else 0.0
    return my - b * mx, b


def trend_at(points, key: str, x: float = FULL_TRAIN) -> tuple[float, float, float]:
    """``(a, b, a + b ln x)``: :func:`fit_trend` of ``points``' ``key`` against their
    sentences, and its value at ``x``."""
    a, b = fit_trend([p["sentences"] for p in points], [p[key] for p in points])
    return a, b, a + b * math.log(x)


def curve(root=None, *, ptb=None, fractions=FRACTIONS, jobs: int = 2, log=print) -> list[dict]:
    """Every point of the curve (training what is missing)."""
    return [point(f, root, ptb=ptb, jobs=jobs, log=log) for f in fractions]


def plot_learning_curve(points, ax=None):
    """F1 and trace F against training sentences (log axis), with their fitted trends
    extended to :data:`FULL_TRAIN` and the thesis's figures there."""
    import matplotlib.pyplot as plt

    from ...plotting import plain_log_axis

    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4.2))
    xs = [p["sentences"] for p in points]
    grid = [xs[0] * (FULL_TRAIN / xs[0]) ** (i / 50) for i in range(51)]
    for key, thesis, colour, name in (("evalb_f1", THESIS_F1, "#1f77b4", "evalb F1 (<= 40 words)"),
                                      ("trace_f", THESIS_TRACE_F, "#d62728", "trace edges F (unlabelled)")):
        ys = [p[key] for p in points]
        a, b, at_full = trend_at(points, key)
        ax.plot(xs, ys, "o-", color=colour, label=f"{name}: sample")
        ax.plot(grid, [a + b * math.log(x) for x in grid], "--", color=colour, alpha=0.6,
                label=f"{name}: trend, {at_full:.1f} at {FULL_TRAIN:,}")
        ax.plot([FULL_TRAIN], [thesis], "*", color=colour, markersize=13, label=f"{name}: seed, {thesis}")
        for x, y in zip(xs, ys):
            ax.annotate(f"{y:.1f}", (x, y), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=8)
    ax.set_xscale("log")
    plain_log_axis(ax, "x", values=xs + [FULL_TRAIN])
    ax.set_xlabel("training sentences (log scale)")
    ax.set_ylabel("score (%)")
    ax.set_title("Learning curve: PTB sample test split, gold tags")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8, frameon=False)
    ax.grid(alpha=0.3)
    return ax


def write_learning_curve(outdir, ptb=None, root=None) -> list[Path]:
    """``learning_curve.{png,svg,json}`` in ``outdir`` (the figures command's entry)."""
    import matplotlib.pyplot as plt

    from ...files.atomic import atomic_json
    from ...plotting import save_figure

    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    pts = curve(root, ptb=ptb)
    fig, ax = plt.subplots(figsize=(7, 4.2))
    plot_learning_curve(pts, ax)
    written = save_figure(fig, out / "learning_curve", close=True)
    trends = {}
    for key in ("evalb_f1", "trace_f"):
        a, b, at_full = trend_at(pts, key)
        trends[key] = {"a": round(a, 4), "b": round(b, 4), "at_full_train": round(at_full, 2)}
    atomic_json(out / "learning_curve.json", {"points": pts, "trend": trends, "full_train": FULL_TRAIN,
                                              "seed": {"evalb_f1": THESIS_F1, "trace_f": THESIS_TRACE_F}})
    return written + [out / "learning_curve.json"]


__all__ = ["FRACTIONS", "FULL_TRAIN", "THESIS_F1", "THESIS_TRACE_F", "model_folder", "missing_points", "point",
           "curve", "fit_trend", "trend_at", "plot_learning_curve", "write_learning_curve"]
