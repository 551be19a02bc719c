"""`python -m plgraph lm ...`: train, eval (--json), export-arpa, errors naming file:line."""
from __future__ import annotations

import json
import math

import pytest

import naive
from plgraph.cli import main
from plgraph.lm import load_model

TRAIN = "the cat sat\nthe dog sat\na cat ran\nthe cat ran away\n" * 3
TEST = "the cat sat\na dog ran home\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "train.txt").write_text(TRAIN)
    (tmp_path / "test.txt").write_text(TEST)
    return tmp_path


@pytest.mark.parametrize("method", ["int-kn", "int-mkn", "bo-kn", "bo-mkn", "plre"])
def test_train_eval_json(files, capsys, method):
    model = files / f"{method}.npz"
    assert main(["lm", "train", "--order", "3", "--method", method, str(files / "train.txt"),
                 "--model", str(model), "--no-progress"]) == 0
    assert f"{method} order 3" in capsys.readouterr().out
    assert main(["lm", "eval", "--model", str(model), str(files / "test.txt"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert list(doc) == ["perplexity", "tokens", "oov", "tokens_per_s"]
    assert doc["tokens"] == 9 and doc["oov"] == 1  # "home" is unknown
    m = load_model(model)
    expected = math.exp(-sum(m.sentence_logprob(s.split()) for s in TEST.splitlines()) / 9)
    assert doc["perplexity"] == pytest.approx(expected, rel=1e-12)
    assert doc["tokens_per_s"] > 0
    assert main(["lm", "eval", "--model", str(model), str(files / "test.txt")]) == 0
    assert capsys.readouterr().out.startswith(f"perplexity {doc['perplexity']:.4f}  tokens 9  oov 1")


def test_export_arpa_every_kn_variant(files, capsys):
    for method in ("int-kn", "int-mkn", "bo-kn", "bo-mkn"):
        model, arpa = files / f"{method}.npz", files / f"{method}.arpa"
        assert main(["lm", "train", "--order", "2", "--method", method, str(files / "train.txt"),
                     "--model", str(model)]) == 0
        assert main(["lm", "export-arpa", "--model", str(model), str(arpa), "--no-progress"]) == 0
        assert "1-grams" in capsys.readouterr().out
        tables = naive.read_arpa(arpa)
        m = load_model(model)
        assert tables[1][("<s>",)][0] == -99
        for w, ctx in (("cat", ["the"]), ("away", ["<s>"]), ("<unk>", ["dog"]), ("</s>", ["sat"])):
            assert naive.arpa_prob(tables, w, ctx) == pytest.approx(m.prob(w, ctx), rel=1e-8)
    model = files / "p.npz"
    assert main(["lm", "train", "--method", "plre", str(files / "train.txt"), "--model", str(model),
                 "--term", "2:0.5:0.3", "--iterations", "3", "--discount", "kn"]) == 0
    capsys.readouterr()
    assert main(["lm", "export-arpa", "--model", str(model), str(files / "p.arpa")]) == 2
    assert "plre models cannot be written as ARPA" in capsys.readouterr().err


def test_errors_name_file_and_line(files, capsys):
    bad = files / "bad.txt"
    bad.write_text("fine line\nanother\nhere </s> is\n")
    assert main(["lm", "train", str(bad), "--model", str(files / "x.npz")]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:3: reserved word </s>" in err
    assert not (files / "x.npz").exists()
    bad.write_bytes(b"ok\n\xc3\x28 broken\n")
    assert main(["lm", "eval", "--model", str(files / "x.npz"), str(bad)]) == 2  # model missing
    assert "x.npz" in capsys.readouterr().err
    (files / "junk.npz").write_text("junk")
    assert main(["lm", "eval", "--model", str(files / "junk.npz"), str(files / "test.txt")]) == 2
    assert "junk.npz: not a plgraph language model" in capsys.readouterr().err
    model = files / "m.npz"
    assert main(["lm", "train", str(files / "train.txt"), "--model", str(model)]) == 0
    assert main(["lm", "eval", "--model", str(model), str(bad)]) == 2
    assert f"{bad}:2: not valid UTF-8" in capsys.readouterr().err
    assert main(["lm", "train", str(files / "train.txt"), "--model", str(model), "--term", "2:0.5:0.1"]) == 2
    assert "apply to --method plre only" in capsys.readouterr().err
    assert main(["lm", "train", "--method", "plre", str(files / "train.txt"), "--model", str(model),
                 "--term", "2:1.5:0.1"]) == 2
    assert "power must be in (0, 1)" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["lm", "train", str(files / "train.txt"), "--model", str(model), "--term", "2-0.5"])
    assert "LEVEL:POWER:RANK" in capsys.readouterr().err


def test_interrupted_training_writes_nothing(files, capsys, monkeypatch):
    """Ctrl-C during the low-rank fits: exit status 130, no model file, no temp file."""
    from plgraph.lm import _kernels

    calls = []

    def interrupted(*args, **kwargs):
        calls.append(1)
        raise KeyboardInterrupt

    monkeypatch.setattr(_kernels, "nmf_fit", interrupted)
    model = files / "p.npz"
    assert main(["lm", "train", "--method", "plre", str(files / "train.txt"), "--model", str(model),
                 "--no-progress"]) == 130
    assert calls and "interrupted" in capsys.readouterr().err
    assert sorted(p.name for p in files.iterdir()) == ["test.txt", "train.txt"]


def test_bad_options_are_clean_errors(files, capsys):
    model = str(files / "m.npz")
    assert main(["lm", "train", "--method", "plre", "--order", "1", str(files / "train.txt"), "--model", model]) == 2
    assert "PLRE needs --order 2" in capsys.readouterr().err
    assert main(["lm", "train", "--min-count", "0", str(files / "train.txt"), "--model", model]) == 2
    assert "--min-count" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["lm", "train", "--order", "6", str(files / "train.txt"), "--model", model])
    assert "invalid choice" in capsys.readouterr().err
