"""Hostile use of a parser model folder.

* ``parser train`` into a folder holding a finished model: refused without ``--overwrite``
  or ``--resume``; with ``--overwrite`` the old model stays whole and loadable until the
  new one is complete, also when the run is interrupted or killed while replacing it.
* A damaged model file: every command that reads a model folder (``parser stats``,
  ``parser evaluate``, ``parser tagger``, ``parse``) fails at once, naming the file.

Every test works on a copy of the shared quick model
(:func:`plgraph.parser.notebook_model.notebook_parser`).
"""
from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from killed_replacement import replace_killed_after
from plgraph.cli import main

#: the quick model's training options (plgraph.parser.notebook_model), but for --pruners
QUICK = ["--limit", "60", "--max-words", "15", "--bits2", "18", "--bits3", "18", "--epochs2", "1", "--epochs3", "1",
         "--trace-bias3", "0", "--threads", "2", "--no-progress"]
#: a command meeting a damaged model file must stop within this many seconds
FAST_S = 20.0


@pytest.fixture(scope="module")
def quick_model(sample_dir) -> Path:
    from plgraph.parser.notebook_model import notebook_parser

    return Path(notebook_parser(quick=True, log=None))


@pytest.fixture(scope="module")
def pruners_dir(quick_model) -> Path:
    from plgraph.pruners.notebook import notebook_models_folder

    return Path(notebook_models_folder(True))


def _copy(quick_model: Path, tmp_path: Path, name: str = "model") -> Path:
    dst = tmp_path / name
    shutil.copytree(quick_model, dst, ignore=shutil.ignore_patterns(".plgraph-lock", ".tmp-*"))
    return dst


def _snapshot(folder: Path, skip: str | None = None) -> dict:
    """Every file under ``folder`` (relative path -> bytes), leaving out the sub-folder ``skip``."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and not (skip and p.relative_to(folder).parts[0] == skip)}


def _train(folder: Path, pruners: Path, ptb: str, *extra) -> int:
    """``parser train`` with :data:`QUICK` on ``ptb`` (conftest's ``small_ptb``)."""
    return main(["parser", "train", "--model-dir", str(folder), "--pruners", str(pruners), "--ptb", ptb, *QUICK,
                 *extra])


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[:len(data) // 2])


# -- parser train over a finished model ---------------------------------------------------------
@pytest.mark.parametrize("pruners", [True, False], ids=["given-pruners", "own-pruners"])
def test_train_into_a_finished_model_is_refused_and_changes_nothing(quick_model, pruners_dir, tmp_path, capsys,
                                                                    pruners):
    m = _copy(quick_model, tmp_path)
    before = _snapshot(m)
    start = time.perf_counter()
    argv = ["parser", "train", "--model-dir", str(m), *QUICK] + (["--pruners", str(pruners_dir)] if pruners else [])
    assert main(argv) == 2
    assert time.perf_counter() - start < FAST_S
    err = capsys.readouterr().err
    assert f"{m} holds a finished parser model ({m / 'parser.json'})" in err
    assert "--overwrite" in err and "--resume" in err
    assert _snapshot(m) == before
    assert sorted(os.listdir(m)) == sorted(before)          # no work folder, no lock left behind


def test_an_interrupted_overwrite_keeps_the_old_model_then_resumes_and_replaces_it(
        quick_model, pruners_dir, small_ptb, tmp_path, monkeypatch, capsys):
    """Interrupted in pass 3: the old model's files are byte for byte as before and it
    loads; ``--overwrite --resume`` continues the new run (pass 2 kept) and replaces it."""
    from plgraph.parser.training import pipeline
    from plgraph.files.replacement import OVERWRITE_DIR
    from plgraph.parser.scoring.linear import LinearScorer

    m = _copy(quick_model, tmp_path)
    before = _snapshot(m)
    old_w2 = LinearScorer.load(m).read2
    assert old_w2[0].any()

    def interrupted(*_args, **_kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(pipeline, "_train_pass3", interrupted)
    assert _train(m, pruners_dir, small_ptb, "--overwrite", "--seed", "1") == 130
    assert _snapshot(m, skip=OVERWRITE_DIR) == before
    work = m / OVERWRITE_DIR
    assert json.loads((work / "parser.json").read_text())["trained"] == ["pass2"]
    assert (LinearScorer.load(m).read2[0] == old_w2[0]).all()      # the old model still loads, as it was
    monkeypatch.undo()
    capsys.readouterr()

    assert _train(m, pruners_dir, small_ptb, "--overwrite", "--resume", "--seed", "1") == 0
    out = capsys.readouterr().out
    assert "pass2: the checkpoint has 1 epoch(s) already" in out
    assert f"replaced the parser model in {m}" in out
    assert not work.exists()
    doc = json.loads((m / "parser.json").read_text())
    assert doc["seed"] == 1 and doc["trained"] == ["pass2", "pass3"]
    assert sorted(os.listdir(m)) == sorted(before)          # the same files: nothing stale, no work folder
    assert (m / "pass2.npz").read_bytes() != before["pass2.npz"]
    new = LinearScorer.load(m)
    assert new.model.folder.seed == 1
    assert not (new.read2[0] == old_w2[0]).all()


def test_a_replacement_killed_midway_is_refused_by_loaders_and_completed_by_the_next_train(
        quick_model, pruners_dir, small_ptb, tmp_path, monkeypatch, capsys):
    """Killed among the renames that put the new model in place: loaders refuse the mixed
    folder, naming the replacement and how to finish it; ``parser train --overwrite
    --resume`` (the interrupted run continued) only finishes it."""
    from plgraph.errors import ModelFileError
    from plgraph.files import replacement
    from plgraph.parser import model as pm

    m = _copy(quick_model, tmp_path)
    work = _copy(quick_model, m, replacement.OVERWRITE_DIR)
    new = pm.ParserFolder.open(work)
    new.header["seed"] = 7
    new.write_header()
    (work / "checkpoint-pass2-1.npz").unlink()              # a file of the old model the new one lacks
    moved = replace_killed_after(monkeypatch, pm.replace_model, work, m)
    assert [os.path.basename(p) for p in moved[1:]] == ["checkpoint-pass2.json", "checkpoint-pass3-1.npz"]
    assert json.loads((m / "parser.json").read_text())["seed"] == 0          # moved last
    with pytest.raises(ModelFileError, match="--overwrite --resume") as exc:
        pm.ParserModel.load(m)
    assert exc.value.source == str(m / replacement.OVERWRITE_DIR / replacement.REPLACING_FILE)

    start = time.perf_counter()
    assert _train(m, pruners_dir, small_ptb, "--overwrite", "--resume") == 0
    assert time.perf_counter() - start < FAST_S
    assert f"completed the replacement of the parser model in {m}" in capsys.readouterr().out
    assert not work.exists()
    loaded = pm.ParserModel.load(m)
    assert loaded.folder.seed == 7
    assert not (m / "checkpoint-pass2-1.npz").exists()


# -- damaged model files ------------------------------------------------------------------------
def _argv(command: str, m: Path, tmp_path: Path) -> list:
    if command == "parse":
        text = tmp_path / "in.txt"
        text.write_text("The_DT dog_NN barks_VBZ ._.\n", encoding="utf-8")
        return ["parse", "--model-dir", str(m), str(text), "--in", "tagged", "--out", str(tmp_path / "out.txt")]
    if command == "evaluate":
        return ["parser", "evaluate", "--model-dir", str(m), "--split", "dev", "--limit", "5", "--no-ceiling",
                "--no-progress"]
    if command == "tagger":
        return ["parser", "tagger", "--model-dir", str(m), "--no-progress"]
    return ["parser", "stats", "--model-dir", str(m), "--no-progress", "--json", str(tmp_path / "stats.json")]


@pytest.mark.parametrize("command,name", [
    ("stats", "pass3.npz"), ("stats", "pass2.npz"), ("stats", "tagger.json"), ("stats", "rules.npz"),
    ("evaluate", "pass3.npz"), ("evaluate", "tagger.json"), ("parse", "pass3.npz"), ("parse", "labels.json"),
    ("tagger", "pass3.npz"), ("tagger", "pass2.npz")])
def test_a_damaged_model_file_stops_every_command_at_once(quick_model, tmp_path, capsys, command, name):
    m = _copy(quick_model, tmp_path)
    _truncate(m / name)
    before = _snapshot(m)
    start = time.perf_counter()
    assert main(_argv(command, m, tmp_path)) == 2
    seconds = time.perf_counter() - start
    out, err = capsys.readouterr()
    assert f"{m / name}:" in err, err
    assert out == "", "work done before the model was checked"     # no corpus prepared, nothing decoded
    assert seconds < FAST_S, f"{command}: {seconds:.1f} s before the error"
    assert _snapshot(m) == before
    assert not (tmp_path / "stats.json").exists() and not (tmp_path / "out.txt").exists()


def test_parser_tagger_replaces_a_damaged_tagger(quick_model, tmp_path, capsys):
    """``parser tagger`` rewrites ``tagger.json``: a damaged one does not stop it."""
    from plgraph.parser.parsing.tagger import PosTagger

    m = _copy(quick_model, tmp_path)
    good = (m / "tagger.json").read_bytes()
    _truncate(m / "tagger.json")
    assert main(_argv("tagger", m, tmp_path)) == 0
    assert "POS tagger dev accuracy" in capsys.readouterr().out
    assert (m / "tagger.json").read_bytes() == good            # the same data and seed: the same tagger
    assert PosTagger.load(m / "tagger.json").tag(["The", "dog"])[0] == "DT"


def test_the_folder_check_reads_every_file_and_names_the_damaged_one(quick_model, tmp_path):
    """:meth:`ParserModel.load` checks every file of the folder up front."""
    from plgraph.errors import ModelFileError
    from plgraph.parser.model import ParserModel

    for name in ("parser.json", "labels.json", "rules.npz", "rules.npz.json", "pass2.npz", "pass3.npz", "tagger.json"):
        m = _copy(quick_model, tmp_path, f"m-{name}")
        _truncate(m / name)
        with pytest.raises(ModelFileError) as exc:
            ParserModel.load(m)
        assert exc.value.source == str(m / name), name
    m = _copy(quick_model, tmp_path, "tagger-not-checked")
    _truncate(m / "tagger.json")
    assert ParserModel.load(m, tagger=False).folder.header["trained"] == ["pass2", "pass3"]
