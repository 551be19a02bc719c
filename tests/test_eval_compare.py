"""The paired bootstrap of ``plgraph eval compare`` (plgraph.eval.compare): its resampling
against a plain loop, its figures on parses whose scores are known, the command line."""
from __future__ import annotations

import json

import numpy as np
import pytest

from plgraph.eval.compare import BootstrapConfig, f1_of, paired_bootstrap, resample_differences


@pytest.fixture(scope="module")
def dev_trees(sample_dir):
    """The first 40 dev trees (one line each), and flat parses of them: every word under
    one S with its gold tag, no null element."""
    import plgraph
    from plgraph.tree import Tree

    gold, flat = [], []
    for s in list(plgraph.corpus("dev").sentences())[:40]:
        tree = s.tree
        gold.append(tree.to_string())
        leaves = [p for p in tree.preterminals() if not p.is_null()]
        flat.append(Tree("ROOT", [Tree("S", [Tree(p.label, word=p.word) for p in leaves])]).to_string())
    return gold, flat


def _naive_differences(xa, xb, samples, seed):
    """F1(A) - F1(B) of each resample, one resample and one sentence at a time."""
    from plgraph.eval._scores import prf

    rng = np.random.default_rng(seed)
    S = len(xa)
    out = []
    for _ in range(samples):
        idx = rng.integers(0, S, size=S)
        sums = []
        for x in (xa, xb):
            m = g = t = 0
            for i in idx:
                m, g, t = m + int(x[i][0]), g + int(x[i][1]), t + int(x[i][2])
            sums.append(prf(m, g, t)[2])
        out.append(sums[0] - sums[1])
    return np.array(out)


def test_resampled_differences_equal_a_plain_loop_whatever_the_block():
    rng = np.random.default_rng(5)
    xa = rng.integers(0, 9, size=(23, 3))
    xb = rng.integers(0, 9, size=(23, 3))
    xa[:, 1:] += xa[:, :1]                      # matched <= gold, test
    xb[:, 1:] += xb[:, :1]
    want = _naive_differences(xa, xb, 57, 11)
    for block in (1, 7, 1000):
        got = resample_differences(xa, xb, BootstrapConfig(samples=57, seed=11, block=block))
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)


def test_f1_of_summed_counts_is_evalb_s():
    assert f1_of(np.array([3, 4, 6])) == pytest.approx(2 * 0.5 * 0.75 / 1.25 * 100)
    assert f1_of(np.array([0, 0, 0])) == 0.0 and f1_of(np.array([0, 5, 0])) == 0.0


def test_a_parse_against_itself_and_against_flat_trees(dev_trees):
    gold, flat = dev_trees
    same = paired_bootstrap(gold, gold, gold, BootstrapConfig(samples=200))
    for metric in ("evalb", "johnson"):
        m = same[metric]
        assert m["a"] == m["b"] == 100.0 and m["difference"] == m["low"] == m["high"] == 0.0 and m["p"] == 1.0
    better = paired_bootstrap(gold, gold, flat, BootstrapConfig(samples=200))
    ev = better["evalb"]
    assert ev["a"] == 100.0 and 0.0 < ev["b"] < 60.0 and ev["low"] > 0 and ev["p"] == pytest.approx(1 / 201)
    assert better["johnson"]["b"] == 0.0 and better["johnson"]["difference"] == 100.0
    worse = paired_bootstrap(gold, flat, gold, BootstrapConfig(samples=200))
    assert worse["evalb"]["difference"] == -ev["difference"] and worse["evalb"]["p"] == 1.0


def test_sentences_over_max_words_are_left_out(dev_trees):
    from plgraph.eval.evalb import evalb

    gold, flat = dev_trees
    lengths = [r[1] for r in evalb(gold, flat).rows]
    doc = paired_bootstrap(gold, gold, flat, BootstrapConfig(samples=10, max_words=15))
    assert doc["sentences"] == sum(n <= 15 for n in lengths) < len(gold)
    assert paired_bootstrap(gold, gold, flat, BootstrapConfig(samples=10, max_words=None))["sentences"] == len(gold)


def test_the_command_line_compares_files_and_refuses_unpaired_ones(dev_trees, tmp_path, capsys):
    from plgraph.cli import main

    gold, flat = dev_trees
    for name, trees in (("gold", gold), ("a", gold), ("b", flat), ("short", flat[:-1])):
        (tmp_path / f"{name}.mrg").write_text("\n".join(trees) + "\n", encoding="utf-8")
    out = tmp_path / "cmp.json"
    assert main(["eval", "compare", str(tmp_path / "gold.mrg"), str(tmp_path / "a.mrg"), str(tmp_path / "b.mrg"),
                 "--samples", "100", "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc == paired_bootstrap(gold, gold, flat, BootstrapConfig(samples=100),
                                   names=(str(tmp_path / "a.mrg"), str(tmp_path / "b.mrg")))
    printed = capsys.readouterr().out
    assert "evalb" in printed and "johnson" in printed and f"{doc['evalb']['difference']:+7.2f}" in printed
    assert main(["eval", "compare", str(tmp_path / "gold.mrg"), str(tmp_path / "a.mrg"),
                 str(tmp_path / "short.mrg")]) == 2
    assert "the three must hold the same sentences" in capsys.readouterr().err
    assert main(["eval", "compare", str(tmp_path / "gold.mrg"), str(tmp_path / "a.mrg"), str(tmp_path / "b.mrg"),
                 "--samples", "0"]) == 2
