"""``python -m plgraph parser train|stats`` -- the graph parser's command line
(``parser evaluate|tagger`` and ``plgraph parse``: :mod:`plgraph.parser.cli.parse`).

::

    python -m plgraph parser train --model-dir M [--pruners P] [--resume] [--overwrite] [--max-words 40]
                                   [--epochs2 N] [--epochs3 N] [--limit K] [--ptb DIR] [--threads 2]
                                   [--keep-prepared]
    python -m plgraph parser train --scorer neural --model-dir M [--resume] [--overwrite] [--epochs N]
                                   [--patience N] [--max-minutes MIN] [--embeddings FILE] [--tags BOOL]
    python -m plgraph parser stats --model-dir M [--split dev] [--json PATH]

``train`` trains the coarse models into ``M/pruners`` unless ``--pruners P`` names trained
ones, builds the edge labels and the rules on the train split, and trains pass 2 and then
pass 3 on the train sentences of at most ``--max-words`` words (gold protected), scoring
the dev sentences of at most ``--max-words`` words after every epoch; between the two it
decodes train and dev with the final pass 2 and tunes pass 2's pruning ratios on dev
(unless given).  The sentences prepared for each pass go to compressed shards in
``M/prepared``, read a batch at a time (memory flat in the corpus size), removed at the
end unless ``--keep-prepared``.  The folder's layout is in :mod:`plgraph.parser.model`.  Every option of
:class:`~plgraph.parser.scoring.pass2.Pass2Config` is ``--<field>2`` (``--epochs2``,
``--bits2``, ``--eta2`` ...), of :class:`~plgraph.parser.scoring.pass3.Pass3Config`
``--<field>3`` (``--epochs3``, ``--max-spines3``, ``--spine-top-check3 false`` ...).
``--resume`` continues from the last finished epoch with the stored options; options
given that differ from them are refused, naming both.  Sentences too long or malformed
are counted and skipped, never fatal.  It is :func:`plgraph.parser.training.pipeline.train`
with the options given (only those: a resumed run tells them from the stored ones).

A folder holding a finished model (:func:`~plgraph.parser.model.holds_finished_model`)
is refused, unchanged, unless ``--resume`` (continue its training, in place) or
``--overwrite``: then the new model trains into ``M/.plgraph-overwrite`` and replaces
the old one only once complete (:func:`~plgraph.parser.model.replace_model`), so that
``M`` keeps loading as the old model until then, also when the run is interrupted;
``--overwrite --resume`` continues such an interrupted run (or only completes the
replacement, when the run was killed while doing it).

``train --scorer neural`` trains the neural scorer (:mod:`plgraph.parser.scoring.neural`,
the extra ``plgraph[neural]``) into ``M/neural``: the same
:func:`~plgraph.parser.training.pipeline.train`, with ``TrainConfig(scorer="neural")``
and the options given; the linear model in ``M``, if any, is left as it is.  Options
that only the other scorer's config takes (the linear one's ``--pruners``, ``--dask``,
the passes' ``--<field>2|3``; the neural one's network and optimiser options) are
refused.

``stats`` measures on a split what reaches pass 2 and how its decodes fare
(:func:`plgraph.parser.analysis.stats.split_stats`), as a table and, with ``--json``, a
JSON file.
"""
from __future__ import annotations

import argparse
import json
from dataclasses import MISSING, fields

from ...cliargs import finite_float, non_negative_int, positive_float, positive_int, probability

#: config fields where 0 is meaningful (``beam 0, cube 0``: exhaustive search)
_ZERO_OK = ("beam", "cube")


# -- options ------------------------------------------------------------------------------------
def yes_no(text: str) -> bool:
    """argparse type: ``true``/``false`` (also ``yes``/``no``, ``1``/``0``)."""
    value = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}.get(text.lower())
    if value is None:
        raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")
    return value


#: what ``--trace-bias3`` takes besides a number: tune it on dev after training
TUNE = "tune"


def float_or_tune(text: str):
    """argparse type: a number, or ``tune`` (the field is tuned on dev: None)."""
    if text.lower() == TUNE:
        return TUNE
    try:
        return finite_float(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected a finite number or {TUNE!r}, got {text!r}") from None


def add_config_options(p: argparse.ArgumentParser, config_cls, suffix: str, what: str) -> None:
    """One option ``--<field><suffix>`` (underscores as dashes) per field of the dataclass
    ``config_cls``, typed by its default; left out = the default, or the checkpoint's with
    ``--resume``."""
    for f in fields(config_cls):
        default = f.default if f.default is not MISSING else None
        kw: dict = {"dest": f"{f.name}{suffix}", "default": None, "metavar": f.name.upper(),
                    "help": f"{what}: {f.name} (default {default})"}
        if isinstance(default, bool):
            kw.update(type=yes_no, metavar="BOOL")
        elif isinstance(default, int):
            kw["type"] = non_negative_int if f.name in _ZERO_OK else positive_int
        elif f.name == "trace_bias":                            # a number, or tuned on dev
            kw.update(type=float_or_tune, help=f"{what}: {f.name}, a number or {TUNE!r} (tuned on dev: the best "
                                               f"trace recall at trace_precision; default {TUNE!r})")
        elif isinstance(default, float) or default is None:     # None: tuned unless given (pass 3's ratios)
            kw["type"] = finite_float
        elif f.name == "reg":
            kw["choices"] = ["l1", "l2"]
        p.add_argument(f"--{f.name.replace('_', '-')}{suffix}", **kw)


def given_config(args, config_cls, suffix: str) -> dict:
    """The fields of ``config_cls`` given on the command line (only those)."""
    given = {f.name: getattr(args, f"{f.name}{suffix}") for f in fields(config_cls)
             if getattr(args, f"{f.name}{suffix}", None) is not None}
    return {k: (None if v == TUNE else v) for k, v in given.items()}


# -- train --------------------------------------------------------------------------------------
def train_config(args):
    """The :class:`~plgraph.parser.training.pipeline.TrainConfig` of ``parser train``'s
    options: the shared ones, and those of ``--scorer`` (:func:`neural_options` for the
    neural scorer)."""
    from ..scoring.pass2 import Pass2Config
    from ..scoring.pass3 import Pass3Config
    from ..training.pipeline import TrainConfig

    shared = dict(model_dir=args.model_dir, resume=args.resume, overwrite=args.overwrite, max_words=args.max_words,
                  limit=args.limit, seed=args.seed, ptb=args.ptb, threads=args.threads, progress=args.progress)
    if args.scorer == "neural":
        return TrainConfig(**shared, scorer="neural", neural=neural_options(args))
    return TrainConfig(**shared, pruners=args.pruners, pass2=given_config(args, Pass2Config, "2"),
                       pass3=given_config(args, Pass3Config, "3"), dask=args.dask, workers=args.workers,
                       keep_prepared=args.keep_prepared)


def _train(args) -> int:
    """``parser train``: :func:`~plgraph.parser.training.pipeline.train` of
    :func:`train_config` (``--scorer neural``: into ``M/neural``); options of the other
    scorer (:func:`foreign_options`) are refused first."""
    from ..training.pipeline import train

    foreign = foreign_options(args, args.scorer)
    if foreign:
        from ...errors import InputError

        other = "linear" if args.scorer == "neural" else "neural"
        why = " (which trains in one process on --threads cores: no Dask workers)" if args.scorer == "neural" else ""
        raise InputError(f"{', '.join(foreign)}: options of the {other} scorer, not of --scorer {args.scorer}{why}")
    train(train_config(args))
    return 0


#: ``parser train`` option names (argparse dests) whose config field has another name
_FIELD_OF_OPTION = {"tags": "use_tags"}
#: argparse dests that are the command line's own, not any config's
_COMMAND_DESTS = {"scorer", "func", "command", "parser_command"}


def scorer_fields(scorer: str) -> set:
    """The option names (argparse dests, after :data:`_FIELD_OF_OPTION`) that ``scorer``'s
    training config takes: the fields of :class:`~plgraph.parser.training.pipeline.TrainConfig`
    and of its pass configs (``<field>2``, ``<field>3``) for ``linear``; of
    :class:`~plgraph.parser.scoring.neural.train.NeuralTrainConfig` and its
    :class:`~plgraph.parser.scoring.neural.config.NetworkConfig` for ``neural``."""
    from dataclasses import fields

    if scorer == "neural":
        from ..scoring.neural.config import NetworkConfig, NeuralTrainConfig

        return {f.name for cls in (NeuralTrainConfig, NetworkConfig) for f in fields(cls)}
    from ..scoring.pass2 import Pass2Config
    from ..scoring.pass3 import Pass3Config
    from ..training.pipeline import TrainConfig

    return ({f.name for f in fields(TrainConfig)} | {f"{f.name}2" for f in fields(Pass2Config)}
            | {f"{f.name}3" for f in fields(Pass3Config)})


#: ``parser train``'s option values when none is given (filled by :func:`register`)
_TRAIN_DEFAULTS: dict = {}


def foreign_options(args, scorer: str) -> list[str]:
    """The options given on the command line (a value other than ``parser train``'s
    default) that ``scorer``'s training config does not take (:func:`scorer_fields`), as
    ``--names``."""
    take = scorer_fields(scorer)
    out = []
    for dest, value in vars(args).items():
        if dest in _COMMAND_DESTS or (dest in _TRAIN_DEFAULTS and value == _TRAIN_DEFAULTS[dest]):
            continue
        if _FIELD_OF_OPTION.get(dest, dest) not in take:
            out.append("--" + dest.replace("_", "-"))
    return out


def neural_options(args) -> dict:
    """``TrainConfig.neural`` of ``parser train --scorer neural``'s options: the
    :class:`~plgraph.parser.scoring.neural.train.NeuralTrainConfig` fields given, and
    ``network`` (the :class:`~plgraph.parser.scoring.neural.config.NetworkConfig` fields
    given over its defaults, always: a resumed run compares the whole network)."""
    from dataclasses import asdict, replace

    from ..scoring.neural.config import NetworkConfig, neural_fields

    changes = {k: v for k, v in (("use_tags", args.tags), ("predict_tags", args.predict_tags),
                                 ("lstm_hidden", args.lstm_hidden), ("lstm_layers", args.lstm_layers),
                                 ("tag_dropout", args.tag_dropout))
               if v is not None}
    if changes.get("predict_tags") and args.tags is None:
        changes["use_tags"] = False         # a network that tags reads no tags (NetworkConfig)
    opts = {k: getattr(args, k) for k in sorted(neural_fields() - {"network"}) if getattr(args, k, None) is not None}
    return dict(opts, network=asdict(replace(NetworkConfig(), **changes)))


# -- stats --------------------------------------------------------------------------------------
def _stats(args) -> int:
    """``parser stats``: :func:`~plgraph.parser.analysis.stats.split_stats`, the output
    checked writable before any work."""
    from ...files.atomic import atomic_text, check_writable
    from ..analysis.stats import split_stats

    if args.json:
        check_writable(args.json)
    doc = split_stats(args.model_dir, args.split, ptb=args.ptb, threads=args.threads, progress=args.progress,
                      trace_bias_curve=args.trace_bias_curve)
    if args.json:
        atomic_text(args.json, json.dumps(doc, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


# -- registration -------------------------------------------------------------------------------
def register(sub) -> None:
    """Add the ``parser`` command: ``train`` and ``stats`` here, ``evaluate`` and ``tagger``
    from :mod:`plgraph.parser.cli.parse`."""
    from ...dist.cli import add_dask_options
    from ..scoring.pass2 import Pass2Config
    from ..scoring.pass3 import Pass3Config
    from ..training.pipeline import RUN_DEFAULTS
    from .parse import add_parser_commands

    p = sub.add_parser("parser", help="the graph parser: train it into a model folder, measure it",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ps = p.add_subparsers(dest="parser_command", required=True)
    t = ps.add_parser("train", help="train the coarse models (unless --pruners), pass 2 and pass 3 into a model folder")
    t.add_argument("--model-dir", required=True, metavar="M")
    t.add_argument("--scorer", choices=["linear", "neural"], default="linear",
                   help="linear: the seed's passes 2 and 3 (default); neural: a BiLSTM scorer in the same chart, "
                        "trained into M/neural (needs the extra plgraph[neural])")
    t.add_argument("--pruners", metavar="P", help="trained coarse models (default: train them into M/pruners)")
    t.add_argument("--resume", action="store_true", help="continue from the last finished epoch in M")
    t.add_argument("--overwrite", action="store_true",
                   help="M holds a finished model: train a new one that replaces it once complete (with --resume: "
                        "continue such a run that was interrupted)")
    t.add_argument("--max-words", dest="max_words", type=positive_int, default=None, metavar="N",
                   help=f"train and score sentences of at most N words (default {RUN_DEFAULTS['max_words']})")
    t.add_argument("--limit", type=positive_int, default=None, metavar="K",
                   help="train on the first K train sentences of at most --max-words words only (also the coarse "
                        "models trained here); labels and rules still come from the whole train split")
    t.add_argument("--seed", type=int, default=None, help="shuffling seed (default 0)")
    t.add_argument("--ptb", metavar="DIR", help="full LDC treebank (train 02-21, dev 22)")
    t.add_argument("--threads", type=positive_int, default=2, metavar="N",
                   help="threads decoding a batch and the dev sentences (default 2)")
    t.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None)
    t.add_argument("--keep-prepared", action="store_true",
                   help="keep the sentences prepared for each pass (compressed shards in M/prepared) after training; "
                        "by default they are removed once the model is finished")
    n = t.add_argument_group("--scorer neural")
    n.add_argument("--epochs", type=positive_int, default=None, metavar="N", help="at most N epochs (default 100)")
    n.add_argument("--patience", type=positive_int, default=None, metavar="N",
                   help="stop after N epochs without a better dev score (default 20)")
    n.add_argument("--max-minutes", dest="max_minutes", type=positive_float, default=None, metavar="MIN",
                   help="start no epoch after MIN minutes of training")
    n.add_argument("--embeddings", metavar="FILE", help="pretrained word vectors, word2vec / GloVe text format")
    n.add_argument("--tags", type=yes_no, default=None, metavar="BOOL",
                   help="the network reads POS tags (default true; predicted by the folder's tagger at parse time)")
    n.add_argument("--predict-tags", dest="predict_tags", type=yes_no, default=None, metavar="BOOL",
                   help="train a tagging head with the network, which then tags sentences itself: no separate "
                        "tagger, and no tag input (--tags false; default false)")
    n.add_argument("--tag-dropout", dest="tag_dropout", type=probability, default=None, metavar="P",
                   help="in training, read a word's tag as unknown with probability P (default 0.2)")
    n.add_argument("--lstm-hidden", dest="lstm_hidden", type=positive_int, default=None, metavar="N",
                   help="BiLSTM states per direction (default 300)")
    n.add_argument("--lstm-layers", dest="lstm_layers", type=positive_int, default=None, metavar="N",
                   help="BiLSTM layers (default 3)")
    n.add_argument("--batch-words", dest="batch_words", type=positive_int, default=None, metavar="N",
                   help="words a batch (default 1000)")
    n.add_argument("--lr", type=positive_float, default=None, metavar="LR",
                   help="Adam's learning rate (default 0.002; a loss that stops being finite stops training)")
    add_config_options(t, Pass2Config, "2", "pass 2")
    add_config_options(t, Pass3Config, "3", "pass 3")
    add_dask_options(t, chunks=None)
    t.set_defaults(func=_train)
    _TRAIN_DEFAULTS.update(vars(t.parse_args(["--model-dir", "M"])))
    s = ps.add_parser("stats", help="what reaches pass 2 and how its decodes fare on a split")
    s.add_argument("--model-dir", required=True, metavar="M")
    s.add_argument("--split", default="dev", choices=["train", "dev", "test"])
    s.add_argument("--ptb", metavar="DIR")
    s.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    s.add_argument("--threads", type=positive_int, default=2, metavar="N", help="decoding threads (default 2)")
    s.add_argument("--trace-bias-curve", action="store_true",
                   help="also decode with each trace threshold of the tuning grid (pass 3's trace P/R curve)")
    s.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None)
    s.set_defaults(func=_stats)
    add_parser_commands(ps)
