"""The parser as a library: the names ``plgraph.parser`` exports, :class:`TrainConfig`,
the command line turned into it, and the README's API example on the shared quick model
(:func:`plgraph.parser.notebook_model.notebook_parser`)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from plgraph.parser.training.pipeline import TrainConfig


def test_every_exported_name_resolves_and_importing_the_package_loads_no_numba():
    import plgraph.parser as P

    for name in P.__all__:
        assert getattr(P, name) is not None, name
    assert P.Parser.__module__ == "plgraph.parser.parsing.parser"
    assert P.train.__module__ == "plgraph.parser.training.pipeline"
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        P.nope  # noqa: B018
    code = "import sys, plgraph.parser, plgraph.parser.cli.train; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_train_config_refuses_fields_its_pass_configs_do_not_have():
    with pytest.raises(ValueError, match=r"TrainConfig.pass2: nope not fields of Pass2Config"):
        TrainConfig(model_dir="M", pass2={"nope": 1, "epochs": 2})
    with pytest.raises(ValueError, match=r"TrainConfig.pass3: bits2 not fields of Pass3Config"):
        TrainConfig(model_dir="M", pass3={"bits2": 18})
    with pytest.raises(ValueError, match="threads must be at least 1"):
        TrainConfig(model_dir="M", threads=0)


def test_parser_train_options_become_the_train_config_with_only_the_options_given():
    """Only the options given reach the config (a resumed run tells them from the stored
    ones); ``--trace-bias3 tune`` is a given None (tuned on dev)."""
    from plgraph.cli import build_parser
    from plgraph.parser.cli.train import train_config

    args = build_parser().parse_args(["parser", "train", "--model-dir", "M", "--epochs2", "3", "--trace-bias3",
                                      "tune", "--limit", "5", "--spine-top-check3", "false", "--threads", "1"])
    assert train_config(args) == TrainConfig(model_dir="M", limit=5, threads=1, pass2={"epochs": 3},
                                             pass3={"trace_bias": None, "spine_top_check": False})
    args = build_parser().parse_args(["parser", "train", "--model-dir", "M", "--resume", "--no-progress"])
    config = train_config(args)
    assert (config.resume, config.progress, config.pass2, config.pass3, config.max_words) == (True, False, {}, {}, None)


@pytest.fixture(scope="module")
def quick_model(sample_dir):
    from plgraph.parser import notebook_parser

    return notebook_parser(quick=True, log=None)


def test_the_readme_example_parses_text_into_a_ptb_tree(quick_model):
    from plgraph.parser import Parser

    parser = Parser.load(quick_model)
    result = parser.parse_result("Who did you see ?".split())     # tags from the model's tagger
    text = result.tree.to_string()
    assert text.startswith("(ROOT ") and text.endswith(")")
    assert result.tree.words() == ["Who", "did", "you", "see", "?"] == result.words
    assert result.status in ("parsed", "relaxed", "pass2", "pass1", "fallback")


def test_the_quick_model_was_trained_by_the_library_with_the_notebook_config(quick_model):
    """:func:`notebook_parser` trains through :func:`plgraph.parser.train`: the folder
    records the run options and pass configs of :func:`notebook_train_config`."""
    import json

    from plgraph.parser.notebook_model import QUICK_LIMIT, QUICK_MAX_WORDS, holds_trained_parser

    assert holds_trained_parser(quick_model)
    doc = json.loads((quick_model / "parser.json").read_text(encoding="utf-8"))
    assert (doc["limit"], doc["max_words"], doc["trained"]) == (QUICK_LIMIT, QUICK_MAX_WORDS, ["pass2", "pass3"])
    assert doc["passes"]["pass2"]["config"]["bits"] == 18 and doc["passes"]["pass3"]["config"]["trace_bias"] == 0.0


def test_the_python_api_loads_the_scorer_parse_uses_both_with_and_without_pytorch():
    """``Parser.load(default_model_dir())`` and ``plgraph.load()`` pick the released
    folder's scorer as ``python -m plgraph parse`` does: the neural one when PyTorch is
    installed, the linear one when it is not (here: made unimportable); ``scorer=``
    chooses."""
    pytest.importorskip("torch", reason="the neural scorer needs PyTorch: pip install 'plgraph[neural]'")
    import plgraph
    from plgraph.parser import Parser
    from plgraph.parser.scoring.neural.scorer import NeuralScorer
    from plgraph.parser.scoring.registry import default_scorer, scorers_in
    from plgraph.release import default_model_dir

    folder = default_model_dir()
    assert scorers_in(folder) == ("linear", "neural") and default_scorer(folder) == "neural"
    parser = Parser.load(folder)
    assert type(parser.scorer) is NeuralScorer and parser.scorer.name == "neural"
    assert parser.model_dir == os.path.join(folder, "neural")
    assert type(plgraph.load().scorer) is NeuralScorer
    assert parser.parse_tree("The cat sat .".split()).words() == ["The", "cat", "sat", "."]
    with pytest.raises(ValueError, match="scorer 'tree': expected one of linear, neural"):
        Parser.load(folder, scorer="tree")
    code = ("import sys; sys.modules['torch'] = None\n"       # find_spec('torch') is then None
            "import plgraph\nfrom plgraph.parser import Parser\nfrom plgraph.release import default_model_dir\n"
            "a, b = Parser.load(default_model_dir()), plgraph.load()\n"
            "print(type(a.scorer).__name__, type(b.scorer).__name__, a.scorer.name)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["LinearScorer", "LinearScorer", "linear"]


def test_parser_load_takes_a_folder_with_one_scorer(quick_model):
    """A folder holding only the linear scorer loads it whatever is installed."""
    from plgraph.parser import Parser
    from plgraph.parser.scoring.linear import LinearScorer
    from plgraph.parser.scoring.protocol import Scorer
    from plgraph.parser.scoring.registry import default_scorer

    assert default_scorer(quick_model) == "linear"
    parser = Parser.load(quick_model)
    assert type(parser.scorer) is LinearScorer and isinstance(parser.scorer, Scorer)
    assert parser.model_dir == str(quick_model) and parser.tagger is not None
    assert Parser.load(quick_model, tagger=False).tagger is None


def test_each_scorer_refuses_the_options_its_config_does_not_take():
    """``parser train``'s refusals come from the configs' fields: a new field of a config
    is an accepted option of its scorer and refused with the other, with no list to keep."""
    from dataclasses import fields

    from plgraph.cli import build_parser
    from plgraph.parser.cli.train import foreign_options, scorer_fields
    from plgraph.parser.scoring.pass3 import Pass3Config

    parser = build_parser()

    def refused(*argv):
        args = parser.parse_args(["parser", "train", "--model-dir", "M", *argv])
        return foreign_options(args, args.scorer)

    assert refused() == [] and refused("--scorer", "neural") == []
    assert refused("--threads", "1", "--seed", "3", "--limit", "9", "--max-words", "12") == []
    assert refused("--scorer", "neural", "--threads", "1", "--seed", "3", "--limit", "9", "--resume") == []
    assert refused("--epochs", "3", "--tags", "false", "--lr", "0.1") == ["--epochs", "--tags", "--lr"]
    assert sorted(refused("--scorer", "neural", "--dask", "--workers", "2", "--bits3", "20", "--pruners", "P",
                          "--keep-prepared")) == ["--bits3", "--dask", "--keep-prepared", "--pruners", "--workers"]
    assert {f"{f.name}3" for f in fields(Pass3Config)} <= scorer_fields("linear")
    assert {"use_tags", "lstm_hidden", "epochs", "lr", "predict_tags"} <= scorer_fields("neural")
    assert refused("--predict-tags", "yes") == ["--predict-tags"]


def test_predict_tags_on_the_command_line_turns_the_tag_input_off():
    """``--predict-tags yes`` alone gives a network that tags and reads no tags; with
    ``--tags yes`` as well the network config refuses the pair."""
    from plgraph.cli import build_parser
    from plgraph.errors import InputError
    from plgraph.parser.cli.train import neural_options

    parser = build_parser()

    def network(*argv):
        return neural_options(parser.parse_args(["parser", "train", "--model-dir", "M", "--scorer", "neural",
                                                 *argv]))["network"]

    assert network()["use_tags"] is True and network()["predict_tags"] is False
    net = network("--predict-tags", "yes")
    assert net["predict_tags"] is True and net["use_tags"] is False
    with pytest.raises(InputError, match="cannot also predict them"):
        network("--predict-tags", "yes", "--tags", "yes")



def test_one_train_config_for_both_scorers():
    """``TrainConfig(scorer="neural")`` carries the neural options (``neural``) and
    becomes the neural trainer's config into ``M/neural``; options only the other scorer
    takes are refused naming them; ``train`` finds each scorer's trainer in the registry."""
    from plgraph.parser.scoring.neural.config import NetworkConfig, NeuralTrainConfig
    from plgraph.parser.scoring.neural.train import neural_config, train_scorer
    from plgraph.parser.scoring.registry import scorer_trainer
    from plgraph.parser.training.pipeline import train_linear

    c = TrainConfig("runs/m", scorer="neural", limit=30, seed=4, threads=1,
                    neural={"epochs": 3, "lr": 0.001, "network": {"lstm_hidden": 32}})
    got = neural_config(c)
    assert got == NeuralTrainConfig(os.path.join("runs/m", "neural"), network=NetworkConfig(lstm_hidden=32),
                                    epochs=3, lr=0.001, limit=30, seed=4, threads=1)
    assert got.max_words == 40                 # None in TrainConfig: the neural config's default
    with pytest.raises(ValueError, match=r"TrainConfig: pruners, pass2: options only another scorer takes"):
        TrainConfig("m", scorer="neural", pruners="p", pass2={"epochs": 1})
    with pytest.raises(ValueError, match=r"TrainConfig: neural: options only another scorer takes, not scorer "
                                         r"'linear'"):
        TrainConfig("m", neural={"epochs": 2})
    with pytest.raises(ValueError, match=r"TrainConfig.neural: epoch not options of the neural scorer \(batch_words"):
        TrainConfig("m", scorer="neural", neural={"epoch": 2})
    with pytest.raises(ValueError, match="TrainConfig.scorer 'tree': expected one of linear, neural"):
        TrainConfig("m", scorer="tree")
    assert scorer_trainer("linear") is train_linear and scorer_trainer("neural") is train_scorer
