"""The release and the neural scorer's training under hostile input: a release
never deletes a folder it did not make, a dev F1 that cannot be measured and an edited
record are named; non-finite vectors, learning rates that diverge, out-of-range options
and a ``--resume`` with nothing to resume stop with an error and leave no half-made
folder; weights that are not finite are refused when a model loads.  Every input is made
here."""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from plgraph.cli import main
from plgraph.errors import InputError, ModelFileError, OutputError
from plgraph.release import record as R


@pytest.fixture(scope="module")
def quick_model(sample_dir) -> Path:
    from plgraph.parser.notebook_model import notebook_parser

    return Path(notebook_parser(quick=True, log=None))


# -- the release ---------------------------------------------------------------------------------------
def test_release_refuses_a_folder_that_is_not_a_release_and_leaves_it_whole(quick_model, tmp_path, capsys):
    out = tmp_path / "mine"
    (out / "sub").mkdir(parents=True)
    (out / "thesis.txt").write_text("three years of work")
    (out / "sub" / "data.csv").write_text("1,2\n")
    rc = main(["release", "--model-dir", str(quick_model), "--out", str(out), "--card", ""])
    assert rc == 2
    assert f"{out} is not a released model (it holds no release.json) and is not empty" in capsys.readouterr().err
    assert (out / "thesis.txt").read_text() == "three years of work" and (out / "sub" / "data.csv").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputError, match="is a file"):
        from plgraph.release.build import check_release_target

        check_release_target(tmp_path / "file")


def test_release_without_a_dev_f1_is_refused_with_a_reason(quick_model, tmp_path, monkeypatch):
    """Dev sentences all longer than 40 words: the F1 of <= 40 words cannot be measured."""
    import plgraph
    import plgraph.parser.training.pipeline as pipeline
    from plgraph.release.build import ReleaseConfig, ReleaseRefused, release_model

    long = [s for s in plgraph.corpus("dev").sentences() if 41 <= len(s.graph.words) <= 45][:1]
    assert long
    monkeypatch.setattr(pipeline, "read_split", lambda split, ptb, progress, warn=None, prog="": (long, 0))
    config = ReleaseConfig(model_dir=str(quick_model), out=str(tmp_path / "rel"), linear_precision="float32", jobs=1)
    with pytest.raises(ReleaseRefused, match=r"the linear model's dev evalb F1 \(<= 40 words\) could not be measured"):
        release_model(config, log=lambda line: None)
    assert list(tmp_path.iterdir()) == []


def test_release_check_says_a_size_differs_from_the_record(tmp_path):
    folder = tmp_path / "rel"
    folder.mkdir()
    (folder / "a.bin").write_bytes(b"12345")
    files = R.file_digests(folder)
    files["a.bin"] = dict(files["a.bin"], bytes=4)
    record = {"format": R.FORMAT, "format_version": R.FORMAT_VERSION, "files": files, "scorers": {}, "made": {}}
    assert R.changed_files(folder, record) == ["a.bin: the record says 4 bytes, the file has 5 (the same sha256: the "
                                               "record was edited)"]
    (folder / "a.bin").write_bytes(b"54321")
    assert R.changed_files(folder, record)[0].startswith("a.bin: changed (sha256 ")


# -- the neural scorer's options and training ------------------------------------------------------------
@pytest.mark.parametrize("option, value, message", [
    ("--tag-dropout", "1.5", "expected a probability between 0 and 1, got '1.5'"),
    ("--tag-dropout", "-0.1", "expected a probability between 0 and 1, got '-0.1'"),
    ("--max-minutes", "0", "expected a positive number, got '0'"),
    ("--max-minutes", "-1", "expected a positive number, got '-1'"),
    ("--lr", "-1", "expected a positive number, got '-1'"),
])
def test_out_of_range_training_options_are_refused(tmp_path, capsys, option, value, message):
    with pytest.raises(SystemExit):
        main(["parser", "train", "--scorer", "neural", "--model-dir", str(tmp_path / "m"), option, value])
    assert message in capsys.readouterr().err
    assert not (tmp_path / "m").exists()


def test_configs_refuse_what_the_command_line_refuses():
    from plgraph.parser.scoring.neural.config import NetworkConfig
    from plgraph.parser.scoring.neural.config import NeuralTrainConfig

    with pytest.raises(InputError, match="tag_dropout 1.5: expected a probability"):
        NetworkConfig(tag_dropout=1.5)
    with pytest.raises(InputError, match="lstm_layers 0"):
        NetworkConfig(lstm_layers=0)
    with pytest.raises(InputError, match="max_minutes 0: expected a positive number"):
        NeuralTrainConfig("m", max_minutes=0)


torch_needed = pytest.mark.skipif(__import__("importlib").util.find_spec("torch") is None,
                                  reason="the neural scorer needs PyTorch: pip install 'plgraph[neural]'")
TINY = dict(word_dim=8, char_dim=4, char_hidden=6, tag_dim=4, lstm_hidden=8, lstm_layers=1, arc_mlp=8, label_mlp=6,
            trace_mlp=6, spine_mlp=6, dropout=0.0, tag_dropout=0.0)


@pytest.fixture(scope="module")
def few(sample_dir) -> dict:
    """200 train and 20 dev sentences of the sample, read once for the module's runs."""
    import plgraph

    return {"train": plgraph.corpus("train").sentences()[:200], "dev": plgraph.corpus("dev").sentences()[:20]}


@pytest.fixture
def small(few, monkeypatch):
    """Training runs read :func:`few`'s splits (their labels and rules too)."""
    import plgraph.parser.training.pipeline as pipeline

    monkeypatch.setattr(pipeline, "read_split", lambda split, ptb, progress, warn=None, prog="": (few[split], 0))


def _train(path, **kw):
    from plgraph.parser.scoring.neural.config import NetworkConfig
    from plgraph.parser.scoring.neural.config import NeuralTrainConfig
    from plgraph.parser.scoring.neural.train import train_neural

    config = dict(network=NetworkConfig(**TINY), limit=6, max_words=8, epochs=2, seed=1, threads=1, tune=False,
                  progress=False)
    config.update(kw)
    return train_neural(NeuralTrainConfig(str(path), **config), log=lambda s: None, warn=lambda s: None)


@torch_needed
def test_resume_with_nothing_to_resume_is_refused_and_leaves_no_folder(tmp_path, small, capsys):
    rc = main(["parser", "train", "--scorer", "neural", "--model-dir", str(tmp_path / "m"), "--resume"])
    assert rc == 2 and "holds no neural model to continue" in capsys.readouterr().err
    assert not (tmp_path / "m").exists()
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="holds no neural model to continue"):
        _train(tmp_path / "empty" / "neural", resume=True)
    assert list((tmp_path / "empty").iterdir()) == []


@torch_needed
def test_vectors_that_are_not_finite_are_refused_naming_the_line(tmp_path, small):
    from plgraph.parser.scoring.neural.network import load_embeddings

    for bad in ("nan", "inf", "-inf", "1e39"):
        vec = tmp_path / "vec.txt"
        vec.write_text(f"the 0.5 0.25\nof {bad} 1\n", encoding="utf-8")
        with pytest.raises(InputError, match=rf"vec\.txt:2: value '{bad}' is not a finite number"):
            load_embeddings(vec)
    with pytest.raises(InputError, match=r"vec\.txt:2"):
        _train(tmp_path / "m", embeddings=str(vec))
    assert not (tmp_path / "m").exists()


@torch_needed
def test_a_diverging_run_stops_with_an_error_and_keeps_the_last_finite_epoch(tmp_path, small, monkeypatch):
    from plgraph.parser.scoring.neural.folder import NeuralFolder
    from plgraph.parser import Parser
    from plgraph.parser.scoring.neural.train import TrainingDiverged

    with pytest.raises(TrainingDiverged, match=r"training diverged in epoch \d: batch \d+'s (loss|gradient norm) is "
                                               r"(nan|inf).*Train again with a smaller learning rate \(--lr, now 1e\+30"):
        _train(tmp_path / "huge", lr=1e30, epochs=5)
    huge = NeuralFolder.open(tmp_path / "huge")
    if huge.trained:                                    # what an epoch finished before is finite
        Parser.load(tmp_path / "huge", scorer="neural")
    _train(tmp_path / "m", epochs=1)
    before = (tmp_path / "m" / "neural.npz").read_bytes()
    with pytest.raises(TrainingDiverged, match=r"epoch 1: batch 1's loss is nan; no epoch finished, so .* holds no "
                                               r"weights"):
        _nan_loss_run(tmp_path / "fresh", monkeypatch)
    assert not NeuralFolder.open(tmp_path / "fresh").trained
    import plgraph.parser.scoring.neural.network as N

    loss = N.GraphScorer.loss

    def nan_after_epoch_1(self, batch, gold):      # epoch 2 (resumed) goes wrong at its first batch
        value, parts = loss(self, batch, gold)
        return value * float("nan"), parts

    monkeypatch.setattr(N.GraphScorer, "loss", nan_after_epoch_1)
    with pytest.raises(TrainingDiverged, match=r"epoch 2: batch 1's loss is nan; .* keeps the weights of epoch 1"):
        _train(tmp_path / "m", resume=True)
    assert (tmp_path / "m" / "neural.npz").read_bytes() == before
    assert NeuralFolder.open(tmp_path / "m").load_checkpoint()[1]["epoch"] == 1
    Parser.load(tmp_path / "m", scorer="neural")                    # the kept model loads


def _nan_loss_run(path, monkeypatch):
    import plgraph.parser.scoring.neural.network as N

    loss = N.GraphScorer.loss
    with monkeypatch.context() as m:
        m.setattr(N.GraphScorer, "loss", lambda self, batch, gold: (loss(self, batch, gold)[0] * float("nan"), {}))
        _train(path)


@torch_needed
def test_weights_that_are_not_finite_are_refused_when_the_model_loads(tmp_path, small):
    from plgraph.parser.scoring.neural.folder import NeuralFolder
    from plgraph.parser import Parser

    _train(tmp_path / "m", epochs=1)
    folder = NeuralFolder.open(tmp_path / "m")
    arrays = folder.load_weights()
    name = sorted(arrays)[0]
    arrays[name] = np.full_like(arrays[name], np.nan)
    folder.save_weights(arrays, 1, folder.header["weights"]["dev"])        # checksums that fit: only the values
    with pytest.raises(ModelFileError, match=rf"weights {name} hold values that are not finite"):
        Parser.load(tmp_path / "m", scorer="neural")


@torch_needed
def test_one_lstm_layer_trains_without_warnings(tmp_path, small):
    from plgraph.parser.scoring.neural.config import NetworkConfig

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _train(tmp_path / "m", epochs=1, network=NetworkConfig(**dict(TINY, dropout=0.33)))
    assert json.loads((tmp_path / "m" / "neural.json").read_text())["network"]["lstm_layers"] == 1
