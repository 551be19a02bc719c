"""The released model (plgraph.release): the files shipped match their record and their
size budgets, the model loads and scores the record's check sentences exactly as recorded
(all of dev under ``make check-full``), packing keeps a model whole (CRCs recomputed,
float32 packing parses identically), a release replaces the old one only when complete
and refuses a packing that moves dev F1, and the commands that use it: ``parse`` without
``--model-dir``, ``demo``, ``release --check``."""
from __future__ import annotations

import json
import lzma
import shutil
from importlib.util import find_spec
from pathlib import Path

import pytest

from plgraph.cli import main
from plgraph import models
from plgraph.release import record as R

#: the issue's size budgets of the released scorers (bytes)
LINEAR_BUDGET = 15_000_000
NEURAL_BUDGET = 30_000_000


@pytest.fixture(scope="module")
def released() -> dict:
    assert models.has_release(), f"no released model in {models.released_dir()} (make release-model)"
    return R.load_record()


@pytest.fixture(scope="module")
def dev(sample_dir):
    import plgraph

    return plgraph.corpus("dev").sentences()


@pytest.fixture(scope="module")
def quick_model(sample_dir) -> Path:
    from plgraph.parser.notebook_model import notebook_parser

    return Path(notebook_parser(quick=True, log=None))


def _headlines(summary: dict) -> dict:
    return {part: summary[part] for part in ("len40", "all")}


def test_the_released_files_are_those_recorded_and_within_their_budgets(released):
    assert R.changed_files(models.released_dir(), released) == []
    assert set(released["scorers"]) == {"linear", "neural"}
    assert {"parser.json", "pass2.npz", "pass3.npz", "tagger.json.xz", "pruners/arc/model.npz",
            "neural/neural.npz", "neural/tagger.json.xz"} <= set(released["files"])
    on_disk = sum(p.stat().st_size for p in models.released_dir().rglob("*") if p.is_file() and p.name != models.RECORD)
    assert on_disk == sum(f["bytes"] for f in released["files"].values())
    assert 1_000_000 < R.scorer_bytes(released, "linear") <= LINEAR_BUDGET
    assert 1_000_000 < R.scorer_bytes(released, "neural") <= NEURAL_BUDGET
    for scorer, e in released["scorers"].items():
        assert abs(e["dev_f1_change"]) < released["made"]["config"]["max_f1_change"], scorer
        assert e["dev"]["len40"]["evalb_f1"] > 70, scorer


def _check_scores(released, dev, scorer: str):
    from plgraph.parser import Parser
    from plgraph.release.build import evaluate

    entry = released["scorers"][scorer]
    check = R.check_sentences(dev, released["made"]["check"]["count"])
    assert len(check) == released["made"]["check"]["sentences"] == entry["check"]["sentences"]
    got = evaluate(Parser.load(models.released_dir(), scorer=scorer), check, predicted_tags=False, jobs=1)
    assert _headlines(got) == _headlines(entry["check"])
    assert got["statuses"] == entry["check"]["statuses"]


def test_the_released_linear_model_scores_its_check_sentences_as_recorded(released, dev):
    _check_scores(released, dev, "linear")


def test_the_released_neural_model_scores_its_check_sentences_as_recorded(released, dev):
    if find_spec("torch") is None:
        pytest.skip("the neural scorer needs PyTorch: pip install 'plgraph[neural]'")
    _check_scores(released, dev, "neural")


@pytest.mark.slow
@pytest.mark.parametrize("scorer", ["linear", "neural"])
def test_the_released_model_scores_dev_as_recorded(released, dev, scorer):
    from plgraph.parser import Parser
    from plgraph.release.build import evaluate

    if scorer == "neural" and find_spec("torch") is None:
        pytest.skip("the neural scorer needs PyTorch: pip install 'plgraph[neural]'")
    got = evaluate(Parser.load(models.released_dir(), scorer=scorer), dev, predicted_tags=False, jobs=2)
    assert _headlines(got) == _headlines(released["scorers"][scorer]["dev"])


def test_a_float32_packed_model_parses_exactly_as_the_folder_it_was_packed_from(quick_model, dev, tmp_path):
    """The quick model (coarse models outside its folder) packed losslessly: every
    checksum its loaders verify still holds, the coarse models are inside the packed
    folder, and trees are identical; packed in bfloat16 it is smaller and still loads."""
    from plgraph.parser.parsing.parser import Parser
    from plgraph.release.pack import pack_model_folder

    assert pack_model_folder(quick_model, tmp_path / "f32", linear_precision="float32") == ["linear"]
    assert json.loads((tmp_path / "f32" / "parser.json").read_text())["pruners"]["path"] == "pruners"
    assert (tmp_path / "f32" / "tagger.json.xz").exists() and not (tmp_path / "f32" / "tagger.json").exists()
    before, after = Parser.load(quick_model), Parser.load(tmp_path / "f32")
    short = [s for s in dev if 5 <= len(s.graph.words) <= 15][:8]
    for s in short:
        a = before.parse_result(s.graph.words, s.graph.tags, sid=s.id)
        b = after.parse_result(s.graph.words, s.graph.tags, sid=s.id)
        assert (a.status, a.tree.to_string()) == (b.status, b.tree.to_string()), s.id
    assert after.tag(short[0].graph.words) == before.tag(short[0].graph.words)
    pack_model_folder(quick_model, tmp_path / "bf16", linear_precision="bfloat16")
    size = {name: sum(p.stat().st_size for p in (tmp_path / name).rglob("*.npz")) for name in ("f32", "bf16")}
    assert size["bf16"] < size["f32"]
    assert Parser.load(tmp_path / "bf16").parse_result(short[0].graph.words, short[0].graph.tags).tree is not None


def test_a_compressed_tagger_tags_as_the_json_one_and_a_damaged_one_is_named(quick_model, tmp_path):
    from plgraph.errors import ModelFileError
    from plgraph.parser.parsing.tagger import PosTagger, tagger_file

    (tmp_path / "tagger.json.xz").write_bytes(lzma.compress((quick_model / "tagger.json").read_bytes()))
    assert tagger_file(tmp_path) == str(tmp_path / "tagger.json.xz")
    words = "The company said it would buy the shares .".split()
    assert PosTagger.load(tmp_path / "tagger.json.xz").tag(words) == PosTagger.load(quick_model / "tagger.json").tag(words)
    (tmp_path / "bad.json.xz").write_bytes(b"\xfd7zXZ\x00 not lzma")
    with pytest.raises(ModelFileError, match=r"bad\.json\.xz"):
        PosTagger.load(tmp_path / "bad.json.xz")


def _small_splits(monkeypatch, dev):
    """``read_split`` of the release giving 6 short dev sentences for every split."""
    import plgraph.parser.training.pipeline as pipeline

    few = [s for s in dev if 4 <= len(s.graph.words) <= 12][:6]
    monkeypatch.setattr(pipeline, "read_split", lambda split, ptb, progress, warn=None, prog="": (few, 0))


def test_a_release_replaces_the_old_one_only_when_complete_and_records_it(quick_model, dev, tmp_path, monkeypatch):
    from plgraph.errors import OutputError
    from plgraph.release.build import ReleaseConfig, ReleaseRefused, release_model, rescore_release
    from plgraph.release.card import render_card

    _small_splits(monkeypatch, dev)
    out = tmp_path / "released"
    out.mkdir()
    (out / "old.txt").write_text("the previous release")
    (out / models.RECORD).write_text("{}")           # a release's folder (its record): the new release replaces it
    refused = ReleaseConfig(model_dir=str(quick_model), out=str(out), linear_precision="float32", max_f1_change=0.0,
                            jobs=1)
    with pytest.raises(ReleaseRefused, match=r"moved its dev evalb F1 by \+0\.000 \(limit 0\.0\)"):
        release_model(refused, log=lambda line: None)
    assert [p.name for p in tmp_path.iterdir()] == ["released"] and (out / "old.txt").exists()
    config = ReleaseConfig(model_dir=str(quick_model), out=str(out), linear_precision="float32", jobs=1, check_count=3)
    record = release_model(config, command="test", log=lambda line: None)
    assert not (out / "old.txt").exists() and [p.name for p in tmp_path.iterdir()] == ["released"]
    assert R.load_record(out) == json.loads(json.dumps(record))
    assert R.changed_files(out) == [] and set(record["scorers"]) == {"linear"}
    entry = record["scorers"]["linear"]
    assert entry["dev_f1_change"] == 0.0
    assert _headlines(entry["dev"]) == _headlines(entry["dev_unpacked"])
    assert entry["dev"]["statuses"] == entry["dev_unpacked"]["statuses"]
    assert entry["check"]["sentences"] == 3 and entry["test"]["sentences"] == 6
    card = render_card(record)
    assert f"{entry['dev']['len40']['evalb_f1']:.2f}" in card and "| `pass3.npz` |" in card
    assert "non-commercial" in card
    again = rescore_release(out, jobs=1, command="rescore", log=lambda line: None)    # same code: same scores
    assert again["made"]["rescored"]["command"] == "rescore" and R.load_record(out) == json.loads(json.dumps(again))
    for name in ("dev", "dev_predicted", "test", "test_predicted", "check"):
        assert _headlines(again["scorers"]["linear"][name]) == _headlines(entry[name]), name
    assert again["scorers"]["linear"]["dev_unpacked"] == entry["dev_unpacked"]
    assert "measured again, its files unchanged, by `rescore`" in render_card(again)
    (out / "pass2.npz").write_bytes(b"changed")
    assert R.changed_files(out) == [f"pass2.npz: changed (sha256 {R.file_digests(out)['pass2.npz']['sha256'][:12]}..., "
                                    f"released {record['files']['pass2.npz']['sha256'][:12]}...)"]
    with pytest.raises(OutputError, match="differs from its record"):
        rescore_release(out, jobs=1, log=lambda line: None)


def test_parse_without_model_dir_uses_the_released_model(released, tmp_path, capsys):
    text = tmp_path / "in.txt"
    text.write_text("The company was acquired by a Japanese investor .\nAnalysts asked what it would do .\n")
    assert main(["parse", "--in", "text", "--scorer", "linear", "--no-progress", str(text)]) == 0
    out, err = capsys.readouterr()
    assert f"the released model's linear scorer ({models.released_dir()}" in err
    trees = out.strip().splitlines()
    assert len(trees) == 2 and all(t.startswith("(TOP ") for t in trees)


def test_the_demo_prints_four_trees_with_null_elements_and_draws_one_graph(released, tmp_path, capsys):
    from plgraph.parser.parsing.demo import DEMO_SENTENCES

    svg = tmp_path / "demo.svg"
    assert main(["demo", "--scorer", "linear", "--svg", str(svg)]) == 0
    out = capsys.readouterr().out
    assert out.count("(TOP") == len(DEMO_SENTENCES) == 4
    assert out.count("-NONE-") >= 4 and "linear scorer of" in out
    assert "# tokens: I do n't know who she wanted to see ." in out
    for _, text in DEMO_SENTENCES:
        assert f"# {text}" in out
    assert svg.read_text().lstrip().startswith("<svg") and 'class="plgraph"' in svg.read_text()


def test_release_check_names_a_changed_file(released, tmp_path, capsys):
    assert main(["release", "--check"]) == 0
    assert "as released" in capsys.readouterr().out
    copy = tmp_path / "copy"
    shutil.copytree(models.released_dir(), copy)
    (copy / "labels.json").write_text("{}")
    assert main(["release", "--check", "--out", str(copy)]) == 1
    assert "labels.json: changed" in capsys.readouterr().err
