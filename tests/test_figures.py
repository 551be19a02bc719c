"""The notebooks' plots (plgraph.figures): what a reader must be able to see.

Inputs are small hand-made tables, so every expected label is known without running the
code under test; the checks are on the drawn figure (texts, tick labels, legend and bar
boxes after rendering)."""
from __future__ import annotations

import itertools
from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from plgraph import figures  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _boxes(fig, artists):
    renderer = fig.canvas.get_renderer()
    return [a.get_window_extent(renderer) for a in artists]


def _overlap(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def _labels(axis) -> list[str]:
    """The tick labels a reader sees: non-empty, at ticks inside the axis's view."""
    lo, hi = sorted(axis.get_view_interval())
    return [t.get_text() for t, loc in zip(axis.get_ticklabels(), axis.get_majorticklocs())
            if t.get_text() and lo <= loc <= hi]


# -- nice_log_ticks: hand-checked series ------------------------------------------------------
@pytest.mark.parametrize("lo, hi, expected", [
    (5, 70, [5, 10, 20, 50]),
    (0.4, 40, [0.5, 1, 2, 5, 10, 20]),
    (2.5, 12, [3, 5, 10]),  # 1-2-5 gives only 5 and 10
    (6, 9, [6, 7, 8, 9]),
    (0.0002, 0.02, [0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02]),
])
def test_nice_log_ticks(lo, hi, expected):
    assert figures.nice_log_ticks(lo, hi) == pytest.approx(expected)


def test_nice_log_ticks_rejects_a_non_positive_range():
    with pytest.raises(ValueError):
        figures.nice_log_ticks(0, 10)


# -- figure 01 / figures/structure_types.png ---------------------------------------------------
STRUCTURE = [  # hand-made: percentages and counts of 1,000 sentences
    {"type": "Projective Tree", "acyclic_pct": 45.0, "cyclic_pct": 0.0, "acyclic_n": 450, "cyclic_n": 0},
    {"type": "Projective Graph", "acyclic_pct": 28.5, "cyclic_pct": 1.2, "acyclic_n": 285, "cyclic_n": 12},
    {"type": "One-Endpoint Crossing", "acyclic_pct": 23.7, "cyclic_pct": 0.5, "acyclic_n": 237, "cyclic_n": 5},
    {"type": "Other Graph", "acyclic_pct": 1.0, "cyclic_pct": 0.1, "acyclic_n": 10, "cyclic_n": 1},
]


def test_structure_types_has_title_value_labels_and_visible_cyclic_bars():
    fig = figures.plot_structure_types(SimpleNamespace(structure_table=STRUCTURE, n_sentences=1000))
    assert "Structure types" in fig._suptitle.get_text()
    acyclic, cyclic = fig.axes
    texts = {ax: [t.get_text() for t in ax.texts] for ax in (acyclic, cyclic)}
    for row in STRUCTURE:
        assert f"{row['acyclic_pct']:.2f}\n({row['acyclic_n']:,})" in texts[acyclic]
        if row["type"] != "Projective Tree":
            assert f"{row['cyclic_pct']:.2f}\n({row['cyclic_n']:,})" in texts[cyclic]
    # the thesis's bars are labelled too (WSJ 02-21: 18,617 acyclic projective trees, 16 cyclic other graphs)
    assert "46.74\n(18,617)" in texts[acyclic] and "0.04\n(16)" in texts[cyclic]
    # a projective tree cannot be cyclic: "–" for ours and the thesis's, no bar label
    assert texts[cyclic].count("–") == 2
    # the cyclic panel has its own scale: the smallest cyclic bar (0.04%) is a visible bar
    low, high = cyclic.get_ylim()
    smallest = min(b.get_height() for b in cyclic.patches if b.get_height() > 0)
    assert smallest == pytest.approx(0.04)
    assert smallest / (high - low) > 0.02
    assert acyclic.get_ylabel() == cyclic.get_ylabel() == "% of sentences"


# -- notebook 06 -------------------------------------------------------------------------------
def _gains(values):
    return pd.DataFrame([{"corpus": c, "order": o, "gain test %": v}
                         for c, vs in values.items() for o, v in zip((2, 3, 4), vs)])


def test_gain_by_order_legend_covers_no_bar_or_label():
    fig = figures.plot_lm_gain_by_order(_gains({"ptb": (5.2, 5.7, 5.4), "brown": (6.9, 7.2, 6.6),
                                                "ru-taiga": (2.8, 2.7, 2.6)}))
    ax = fig.axes[0]
    fig.canvas.draw()
    legend = ax.get_legend().get_window_extent(fig.canvas.get_renderer())
    for box in _boxes(fig, [*ax.patches, *ax.texts]):
        assert not _overlap(legend, box)
    assert sorted(t.get_text() for t in ax.texts) == sorted(
        ["5.2", "5.7", "5.4", "6.9", "7.2", "6.6", "2.8", "2.7", "2.6"])


def test_gain_by_order_labels_a_loss_below_its_bar():
    fig = figures.plot_lm_gain_by_order(_gains({"ptb": (2.8, 2.9, 2.7), "brown": (-0.7, -1.0, -1.2)}))
    ax = fig.axes[0]
    labels = {t.get_text(): t for t in ax.texts}
    for v in ("-0.7", "-1.0", "-1.2"):
        x, y = labels[v].get_position()
        assert y < float(v) and labels[v].get_va() == "top"
    assert ax.get_ylim()[0] < -1.2


def _sweep(ranks):
    return pd.DataFrame([{"corpus": c, "rank": r, "valid": 140.0 + i, "test": 139.0 + i,
                          "int-MKN valid": 148.0, "int-MKN test": 148.3}
                         for c in ("ptb", "brown") for i, r in enumerate(ranks)])


def test_rank_sweep_ticks_are_the_ranks_plainly_and_do_not_overlap():
    ranks = (0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02)  # the full run's bigram sweep
    fig = figures.plot_lm_rank_sweep(_sweep(ranks), term="bigram")
    fig.canvas.draw()
    for ax in fig.axes:
        assert _labels(ax.xaxis) == ["0.0002", "0.0005", "0.001", "0.002", "0.005", "0.01", "0.02"]
        ticks = [t for t in ax.xaxis.get_ticklabels() if t.get_text()]
        for a, b in itertools.combinations(_boxes(fig, ticks), 2):
            assert not _overlap(a, b)
        assert ax.get_xlabel() == "rank of the bigram term (fraction of V)"
    # one legend, below the panels, over no axes
    assert len(fig.legends) == 1
    legend = fig.legends[0].get_window_extent(fig.canvas.get_renderer())
    for box in _boxes(fig, fig.axes):
        assert not _overlap(legend, box)


def test_rank_sweep_of_two_ranks_in_one_decade_has_no_math_labels():
    fig = figures.plot_lm_rank_sweep(_sweep((0.0002, 0.002)))
    fig.canvas.draw()
    for ax in fig.axes:
        assert _labels(ax.xaxis) == ["0.0002", "0.002"]


# -- notebook 07 -------------------------------------------------------------------------------
LEARNERS = ["AdaGrad l1 (Alg. 1)", "AdaGrad l1, averaged", "perceptron, averaged", "PA, averaged"]


def _histories(epochs=2):
    errors = {1: 70.9, 2: 48.4, 3: 30.0, 4: 20.0, 5: 12.0, 6: 9.0, 7: 7.0, 8: 5.5}
    return {name: [{"epoch": e, "dev_uas": 75.0 + e + k, "dev_las": 71.0 + e + k,
                    "train_errors_pct": errors[e] - k} for e in range(1, epochs + 1)]
            for k, name in enumerate(LEARNERS)}


def test_training_curves_legend_is_split_and_outside_and_ticks_are_plain():
    fig = figures.plot_dep_training_curves(_histories(2), title="first order, by learner")
    fig.canvas.draw()
    dev, loss = fig.axes
    # four models and two scores: 4 + 2 entries (not 8), below the panels, over no axes
    assert not dev.get_legend() and not loss.get_legend()
    assert len(fig.legends) == 1
    assert [t.get_text() for t in fig.legends[0].get_texts()] == [*LEARNERS, "UAS", "LAS"]
    legend = fig.legends[0].get_window_extent(fig.canvas.get_renderer())
    for box in _boxes(fig, fig.axes):
        assert not _overlap(legend, box)
    # integer epochs; plain percent ticks on the log axis (errors 45.4%..70.9%: 1-2-5 and 1-2-3-5
    # give only 50%, so every digit), never "6×10¹"
    assert _labels(dev.xaxis) == _labels(loss.xaxis) == ["1", "2"]
    assert loss.get_yscale() == "log"
    assert _labels(loss.yaxis) == ["50%", "60%", "70%"]
    assert dev.get_xlabel() == loss.get_xlabel() == "epoch"


def test_training_curves_percent_ticks_of_a_long_run():
    fig = figures.plot_dep_training_curves(_histories(8))
    fig.canvas.draw()
    assert _labels(fig.axes[1].yaxis) == ["5%", "10%", "20%", "50%"]
    assert _labels(fig.axes[0].xaxis) == [str(e) for e in range(1, 9)]


def test_error_panels_all_have_axis_labels():
    rel = pd.DataFrame({"relation": ["punct", "case", "nsubj"], "count": [30, 20, 10],
                        "UAS": [80.0, 90.0, 85.0], "LAS": [63.0, 92.0, 77.0]})
    by_len = pd.DataFrame({"words": [10, 10], "UAS": [78.0, 74.5], "LAS": [69.5, 71.7]}, index=["1-10", ">40"])
    by_dist = pd.DataFrame({"words": [5, 5], "UAS": [78.0, 90.0], "LAS": [77.9, 88.0]}, index=["ROOT", "1"])
    fig = figures.plot_dep_errors({"1st order": rel, "2nd order": rel}, {"1st order": by_len, "2nd order": by_len},
                                  {"1st order": by_dist, "2nd order": by_dist})
    fig.canvas.draw()
    assert [ax.get_xlabel() for ax in fig.axes] == [
        "gold relation (universal part), most frequent first", "sentence length (words)",
        "gold arc length |head − dependent| (words)"]
    assert all(ax.get_ylabel() for ax in fig.axes)
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["1st order", "2nd order", "UAS", "LAS"]
    assert _labels(fig.axes[1].xaxis) == ["1-10", ">40"]


def test_regenerate_skips_a_figure_whose_models_are_missing_unless_asked(monkeypatch, tmp_path):
    """By default a figure whose models are missing is not drawn (nothing trains) and the
    run says which model is missing, how long it would take and the option that trains
    it; ``train_missing`` draws it; an unknown name is an InputError naming it."""
    from plgraph import figures
    from plgraph.errors import InputError

    drawn = []
    monkeypatch.setitem(figures.FIGURES, "learning_curve", lambda out, ptb: drawn.append("lc") or [])
    monkeypatch.setitem(figures.FIGURES, "rules", lambda out, ptb: drawn.append("rules") or [])
    missing = [{"model": "25% model", "folder": tmp_path / "train-25", "minutes": 20, "note": ""}]
    monkeypatch.setitem(figures.MODELS, "learning_curve", lambda ptb: missing)
    lines = []
    written = figures.regenerate(tmp_path, ["rules", "learning_curve"], log=lines.append)
    assert drawn == ["rules"] and set(written) == {"rules"}
    text = "\n".join(lines)
    assert "learning_curve: skipped, 1 model(s) missing" in text
    assert "~20 min on 2 cores" in text and "--only learning_curve --train-missing" in text
    drawn.clear()
    figures.regenerate(tmp_path, ["learning_curve"], train_missing=True, log=lines.append)
    assert drawn == ["lc"]
    with pytest.raises(InputError, match="unknown figure.*nope"):
        figures.regenerate(tmp_path, ["nope"], log=lines.append)
