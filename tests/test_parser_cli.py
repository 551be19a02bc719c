"""``python -m plgraph parser train|stats``: the model folder, resume, refusals, stats.

Two short runs of passes 2 and 3 (the first 40 train sentences of at most 12 words, 2^16
weights, the quick coarse models of the shared cache) on ``small_ptb`` (conftest.py: the
sample's first 34 train files as an LDC-layout treebank, so that each run reads 358 train
sentences for its labels and rules instead of 3,000): one of two
epochs each uninterrupted, one stopped after epoch 1 of each, resumed to pass 2's epoch 2
(which retrains pass 3 from scratch on the new pass 2), stopped after pass 3's epoch 1 and
resumed to its epoch 2.
"""
from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest

from plgraph.cli import main

MAX_WORDS = 12
RUN = ["--limit", "40", "--max-words", str(MAX_WORDS), "--bits2", "16", "--bits3", "16", "--threads", "1",
       "--no-progress", "--trace-bias3", "0"]          # tuned only where a test asks ("--trace-bias3 tune")
#: curve fields that measure time, not what was learnt
TIMING = ("train_seconds", "eval_seconds", "dev_sentences_per_second")


@pytest.fixture(scope="module")
def pruners_dir(sample_dir):
    """The quick coarse models of the shared cache (trained there once if missing)."""
    from plgraph.pruners.notebook import notebook_models, notebook_models_folder

    notebook_models(quick=True)
    return notebook_models_folder(True)


def _train(folder, pruners, ptb, *extra) -> int:
    return main(["parser", "train", "--model-dir", str(folder), "--pruners", str(pruners), "--ptb", ptb, *RUN,
                 *extra])


def _weights(folder, name: str = "pass2") -> np.ndarray:
    with np.load(os.path.join(folder, f"{name}.npz")) as z:
        return z["w"].copy()


def _curves(folder) -> list:
    with open(os.path.join(folder, "curves.json"), encoding="utf-8") as handle:
        return json.load(handle)


@pytest.fixture(scope="module")
def runs(tmp_path_factory, pruners_dir, small_ptb):
    """``full``: two epochs of each pass in one run, pass 3's trace threshold tuned; ``part``: one epoch of each, then
    ``--resume --epochs2 2 --epochs3 1``, then ``--resume --epochs2 2 --epochs3 2``
    (``after_one``: its weights and curves after the first run)."""
    full, part = tmp_path_factory.mktemp("full"), tmp_path_factory.mktemp("part")
    assert _train(full, pruners_dir, small_ptb, "--epochs2", "2", "--epochs3", "2", "--trace-bias3", "tune") == 0
    assert _train(part, pruners_dir, small_ptb, "--epochs2", "1", "--epochs3", "1") == 0
    after_one = {"w": _weights(part), "w3": _weights(part, "pass3"), "curves": _curves(part)}
    assert _train(part, pruners_dir, small_ptb, "--epochs2", "2", "--epochs3", "1", "--resume") == 0
    assert _train(part, pruners_dir, small_ptb, "--epochs2", "2", "--epochs3", "2", "--resume") == 0
    return {"full": full, "part": part, "after_one": after_one, "pruners": pruners_dir, "ptb": small_ptb}


def test_the_folder_holds_a_loadable_model_and_its_curves(runs):
    from plgraph.parser.model import ParserModel, pruners_fingerprint
    from plgraph.parser.scoring.pass2 import Pass2Config, Pass2Model

    full = runs["full"]
    m = ParserModel.load(full)
    hdr = m.folder.header
    assert hdr["trained"] == ["pass2", "pass3"] and hdr["max_words"] == MAX_WORDS and hdr["limit"] == 40
    assert hdr["pruners"]["fingerprint"] == pruners_fingerprint(runs["pruners"])
    assert hdr["conversion"] is not None and hdr["rules"]["derived"] > 300
    model, read_args = m.pass_model("pass2", Pass2Config, lambda c: Pass2Model(m.vocab, c))
    # the weights as stored (float32): the kernels read them without a float64 copy
    assert model.config == Pass2Config(bits=16, epochs=2) and read_args[0].dtype == np.float32
    assert np.count_nonzero(read_args[0]) > 100
    assert len(m.vocab) > 400 and m.rules.n_comb > 50
    rows = _curves(full)
    assert [(r["model"], r["epoch"]) for r in rows] == [("pass2", 1), ("pass2", 2), ("pass3", 1), ("pass3", 2)] == [
        (r["model"], r["epoch"]) for r in hdr["curves"]]
    for r in rows:
        assert r["sentences"] == 40 and r["mismatches"] == 0 and r["not_derivable"] == 0
        assert r["loss"] > 0 and 0 < r["dev_uas"] <= 100 and r["dev_sentences"] > 40
    assert rows[0]["failed"] == rows[1]["failed"] == 0
    assert rows[1]["loss"] < rows[0]["loss"] and rows[3]["loss"] < rows[2]["loss"]
    assert all(0 < r["dev_spine_acc"] <= 100 for r in rows[2:])
    from plgraph.parser.scoring.pass3 import Pass3Config

    stored3 = m.folder.pass_config("pass3", Pass3Config)
    assert stored3.bits == 16 and stored3.epochs == 2 and 0 <= stored3.ratio_s <= 1 and stored3.ratio_t <= 1
    # the trace threshold: of the tuning curve's points with trace precision >= 70 (the
    # default trace_precision) the best recall, else the best trace F (nearest 0 on ties),
    # recorded in parser.json; the checkpoint keeps "tune" (None) so a resumed run trains
    # the same pass
    from plgraph.parser.training.cascade import TRACE_BIAS_GRID

    curve = hdr["passes"]["pass3"]["tuned_curves"]["trace_bias"]
    assert [r["trace_bias"] for r in curve] == list(TRACE_BIAS_GRID) and stored3.trace_precision == 70.0
    precise = [r for r in curve if r["trace_p"] >= 70.0]
    key = "trace_r" if precise else "trace_f"
    top = max(r[key] for r in precise or curve)
    assert stored3.trace_bias == min((r["trace_bias"] for r in precise or curve if r[key] == top), key=abs)
    assert curve[0]["uas"] == rows[3]["dev_uas"] and curve[0]["trace_p"] == rows[3]["dev_trace_p"]
    with open(full / "checkpoint-pass3.json", encoding="utf-8") as handle:
        assert json.load(handle)["config"]["trace_bias"] is None
    with open(full / "curves.csv", encoding="utf-8") as handle:
        assert handle.readline().startswith("model,epoch,") and len(handle.readlines()) == 4
    with open(full / "log.jsonl", encoding="utf-8") as handle:
        assert [json.loads(line)["epoch"] for line in handle] == [1, 2, 1, 2]
    assert sorted(p for p in os.listdir(full) if p.startswith("checkpoint")) == [
        "checkpoint-pass2-2.npz", "checkpoint-pass2.json", "checkpoint-pass3-2.npz", "checkpoint-pass3.json"]


def test_resuming_after_epoch_1_gives_the_uninterrupted_weights(runs):
    full, part, one = runs["full"], runs["part"], runs["after_one"]
    assert [(r["model"], r["epoch"]) for r in one["curves"]] == [("pass2", 1), ("pass3", 1)]
    assert not np.array_equal(one["w"], _weights(part))
    for name in ("pass2", "pass3"):
        np.testing.assert_array_equal(_weights(full, name), _weights(part, name))
    strip = lambda rows: [{k: v for k, v in r.items() if k not in TIMING} for r in rows]  # noqa: E731
    assert strip(_curves(full)) == strip(_curves(part))
    assert strip(one["curves"])[:1] == strip(_curves(full))[:1]
    for name in ("pass2", "pass3"):
        with np.load(full / f"checkpoint-{name}-2.npz") as a, np.load(part / f"checkpoint-{name}-2.npz") as b:
            assert sorted(a.files) == sorted(b.files) == ["q", "u", "w"]
            for key in a.files:
                np.testing.assert_array_equal(a[key], b[key])


def test_resume_with_a_changed_option_is_refused_and_names_it(runs, capsys):
    part = runs["part"]
    before = (part / "parser.json").read_bytes()
    assert _train(part, runs["pruners"], runs["ptb"], "--resume", "--eta2", "0.5") == 2
    err = capsys.readouterr().err
    assert "--eta2 0.5 (checkpoint: 0.03)" in err and "cannot resume" in err
    assert main(["parser", "train", "--model-dir", str(part), "--pruners", str(runs["pruners"]), "--resume",
                 "--ptb", runs["ptb"], "--max-words", "20", "--no-progress"]) == 2
    assert "--max-words 20 (checkpoint: 12)" in capsys.readouterr().err
    assert (part / "parser.json").read_bytes() == before


def test_a_header_missing_a_config_field_is_refused_naming_it(runs, tmp_path):
    """A ``parser.json`` whose pass config lacks a field of the config (here ``backoff``)
    is refused naming the file and the field: no default is guessed for how the pass was
    trained."""
    from plgraph.errors import ModelFileError
    from plgraph.parser.model import ParserFolder, ParserModel
    from plgraph.parser.scoring.pass2 import Pass2Config, Pass2Model
    from plgraph.parser.scoring.pass3 import Pass3Config

    old = tmp_path / "old"
    shutil.copytree(runs["full"], old)
    folder = ParserFolder.open(old)
    for entry in folder.header["passes"].values():
        assert entry["config"].pop("backoff") == "kind"
    folder.write_header()
    m = ParserModel.load(old, pruners=False)
    with pytest.raises(ModelFileError, match=r"parser\.json: pass2 config .*Pass2Config: missing backoff"):
        m.pass_model("pass2", Pass2Config, lambda c: Pass2Model(m.vocab, c))
    with pytest.raises(ModelFileError, match="Pass3Config: missing backoff"):
        m.folder.pass_config("pass3", Pass3Config)
    assert ParserModel.load(runs["full"], pruners=False).folder.pass_config("pass3", Pass3Config).backoff == \
        "kind"


def test_pass3_keeps_its_negative_pool_in_its_file(runs, tmp_path):
    """Pass 3 trains with the reference's negative pool (default ``negative_pool`` 0.25):
    ``pass3.npz`` holds the positive bitmap and the pool's size, the loaded model has the
    2^bits weights plus the pool, every gold feature of a train sentence is positive,
    and the weights trained in the pool are not all zero.  A file without the bitmap
    is a ModelFileError naming it; a folder from before the pool loads without one."""
    from plgraph.errors import ModelFileError
    from plgraph.parser.model import ParserFolder, ParserModel
    from plgraph.parser.scoring.pass3 import Pass3Config, Pass3Model, SpineInventory

    m = ParserModel.load(runs["full"])
    inv = SpineInventory(m.pruners.spine.labels.items, m.vocab)
    make = lambda c: Pass3Model(m.vocab, inv, c)  # noqa: E731
    model, read_args = m.pass_model("pass3", Pass3Config, make)
    assert model.config.negative_pool == 0.25 and model.positive is not None
    assert model.n_weights == (1 << 16) + (1 << model.pool_bits) == read_args[0].size
    assert np.count_nonzero(read_args[0][1 << 16:]) > 0
    with np.load(runs["full"] / "pass3.npz") as z:
        assert sorted(z.files) == ["pool_bits", "positive", "w"]
        np.testing.assert_array_equal(z["positive"], model.positive)
    bad = tmp_path / "bad"
    shutil.copytree(runs["full"], bad)
    with np.load(bad / "pass3.npz") as z:
        np.savez_compressed(bad / "pass3.npz", w=z["w"])
    with pytest.raises(ModelFileError, match="pass3.npz"):
        ParserModel.load(bad, pruners=False).pass_model("pass3", Pass3Config, make)
    old = tmp_path / "old"                   # a header without an option of the pass's config: refused
    shutil.copytree(runs["full"], old)
    folder = ParserFolder.open(old)
    assert folder.header["passes"]["pass3"]["config"].pop("negative_pool") == 0.25
    folder.write_header()
    with pytest.raises(ModelFileError, match="pass3 config.*Pass3Config: missing negative_pool"):
        ParserModel.load(old, pruners=False).pass_model("pass3", Pass3Config, make)


def test_damaged_files_are_model_file_errors_naming_the_file(runs, tmp_path, capsys):
    from plgraph.errors import ModelFileError
    from plgraph.parser.model import ParserModel

    bad = tmp_path / "bad"
    shutil.copytree(runs["full"], bad)
    text = (bad / "parser.json").read_text()
    (bad / "parser.json").write_text(text[: len(text) // 2])
    with pytest.raises(ModelFileError, match="parser.json"):
        ParserModel.load(bad, pruners=False)
    assert main(["parser", "stats", "--model-dir", str(bad), "--no-progress"]) == 2
    assert str(bad / "parser.json") in capsys.readouterr().err
    (bad / "parser.json").write_text(text.replace('"max_words": 12', '"max_words": 13'))
    with pytest.raises(ModelFileError, match="checksum"):
        ParserModel.load(bad, pruners=False)
    (bad / "parser.json").write_text(text)
    (bad / "labels.json").write_text((bad / "labels.json").read_text().replace("NP", "QP", 1))
    with pytest.raises(ModelFileError, match="labels.json"):
        ParserModel.load(bad, pruners=False)


def test_stats_writes_fractions_consistent_with_the_candidates(runs, tmp_path):
    """``parser stats --json``: fractions are percentages of their counts; the gold
    recall of structural labels is recomputed from pass 1's kept arcs and the labels seen
    with either POS; the dev scores are those of the last epoch's curve (same weights)."""
    from plgraph.corpora import Corpus
    from plgraph.parser.model import ParserModel
    from plgraph.parser.scoring.pass2 import gold_graph

    out = tmp_path / "stats.json"
    assert main(["parser", "stats", "--model-dir", str(runs["full"]), "--json", str(out), "--threads", "1",
                 "--trace-bias-curve", "--no-progress"]) == 0
    doc = json.loads(out.read_text())
    c = doc["counts"]
    for key, val in doc.items():
        if key.endswith("_pct"):
            assert 0 <= val <= 100, key
    assert 0 < doc["pairs_kept_pct"] < 100 and 0 < doc["structural_kept_pct"] < doc["pairs_kept_pct"]
    assert doc["structural_gold_recall_pct"] == round(100 * c["gold_structural_label"] / c["gold_structural"], 2)
    assert c["gold_structural_label"] <= c["gold_structural_pair"] <= c["gold_structural"]
    assert c["gold_trace_label"] <= c["gold_trace_pair"] <= c["gold_trace"]
    last = [r for r in _curves(runs["full"]) if r["model"] == "pass2"][-1]
    assert doc["sentences"] == last["dev_sentences"] and doc["uas"] == last["dev_uas"]
    assert doc["las"] == last["dev_las"] and doc["trace_r"] == last["dev_trace_r"]
    assert doc["mismatches"] == 0 and doc["search_errors"] >= doc["search_errors_gold_reachable"] >= 0
    last3 = [r for r in _curves(runs["full"]) if r["model"] == "pass3"][-1]
    p3, flipped = doc["pass3"], doc["pass3_spine_top_check_flipped"]
    # pass 3 decodes with its tuned trace threshold: its scores are the tuning curve's row
    # there; the curve stats prints is the one training recorded (same weights, same dev)
    tuned = json.loads((runs["full"] / "parser.json").read_text())["passes"]["pass3"]
    row = next(r for r in tuned["tuned_curves"]["trace_bias"] if r["trace_bias"] == tuned["config"]["trace_bias"])
    assert (p3["uas"], p3["spine_acc"], p3["trace_p"], p3["trace_r"]) == (row["uas"], row["spine_acc"], row["trace_p"],
                                                                           row["trace_r"]) and p3["mismatches"] == 0
    assert doc["pass3_trace_bias_curve"]["rows"] == tuned["tuned_curves"]["trace_bias"]
    assert tuned["tuned_curves"]["trace_bias"][0]["uas"] == last3["dev_uas"]
    assert p3["spine_top_check"] is True and flipped["spine_top_check"] is False
    assert p3["spine_options_per_word"] <= flipped["spine_options_per_word"] <= tuned["config"]["max_spines"] == 5
    assert 0 < p3["spines_gold_recall_pct"] <= flipped["spines_gold_recall_pct"] <= 100
    assert p3["structural_kept_seed_pct"] <= doc["structural_kept_seed_pct"]       # pass 3 sees less than pass 2
    curve = doc["pass2_curve"]
    assert [r["ratio"] for r in curve][:2] == [0.0, 0.1] and all(
        a["gold_structural_kept_pct"] >= b["gold_structural_kept_pct"] for a, b in zip(curve, curve[1:]))
    assert 0 < doc["pass1"]["edges_kept_seed_pct"] < 100

    m = ParserModel.load(runs["full"])
    gold = kept = 0
    for g in Corpus("dev", progress=False).graphs():
        if len(g) > MAX_WORDS:
            continue
        G, _ = gold_graph(g, m.vocab)
        n = len(g)
        arcs = {(int(a) - 1, n if int(b) == 0 else int(b) - 1) for a, b, _ in m.pruners.prune(g).arcs}
        tags = list(g.tags) + ["ROOT"]
        for ch, pa in zip(*np.nonzero(G.s >= 0)):
            gold += 1
            kept += int((ch, pa) in arcs and int(G.s[ch, pa]) in m.vocab.candidates(tags[ch], tags[pa]).tolist())
    assert (gold, kept) == (c["gold_structural"], c["gold_structural_label"])


def test_resuming_a_finished_run_changes_nothing(runs, capsys):
    part = runs["part"]
    before = {name: (part / name).read_bytes() for name in ("parser.json", "pass2.npz", "checkpoint-pass2.json",
                                                            "pass3.npz", "checkpoint-pass3.json")}
    assert _train(part, runs["pruners"], runs["ptb"], "--resume") == 0
    assert "nothing to train" in capsys.readouterr().out
    assert {name: (part / name).read_bytes() for name in before} == before


def test_training_a_pass_further_forgets_the_passes_trained_after_it(runs, tmp_path):
    """A later pass was pruned by the earlier one's weights: when those change, the
    later pass's entry, weights and checkpoints go."""
    from plgraph.parser.model import ParserFolder
    from plgraph.parser.scoring.pass2 import Pass2Config

    folder_path = tmp_path / "cascade"
    shutil.copytree(runs["full"], folder_path)
    folder = ParserFolder.open(folder_path)
    assert folder.header["trained"] == ["pass2", "pass3"]
    curves = [r for r in folder.header["curves"] if r["model"] == "pass2"]
    folder.save_pass("pass2", Pass2Config(bits=16, epochs=2), _weights(runs["full"]), 2, folder.header["curves"])
    again = ParserFolder.open(folder_path)
    assert again.header["trained"] == ["pass2"] and list(again.header["passes"]) == ["pass2"]
    assert again.header["curves"] == curves == _curves(folder_path)
    assert not [p for p in os.listdir(folder_path) if "pass3" in p]
