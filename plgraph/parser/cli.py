"""``python -m plgraph parser train|stats`` -- the graph parser's command line
(``parser evaluate|tagger`` and ``plgraph parse``: :mod:`plgraph.parser.parse_cli`).

::

    python -m plgraph parser train --model-dir M [--pruners P] [--resume] [--overwrite] [--max-words 40]
                                   [--epochs2 N] [--epochs3 N] [--limit K] [--ptb DIR] [--threads 2]
    python -m plgraph parser stats --model-dir M [--split dev] [--json PATH]

``train`` trains the coarse models into ``M/pruners`` unless ``--pruners P`` names trained
ones, builds the edge labels and the rules on the train split, and trains pass 2 and then
pass 3 on the train sentences of at most ``--max-words`` words (gold protected), scoring
the dev sentences of at most ``--max-words`` words after every epoch; between the two it
decodes train and dev with the final pass 2 and tunes pass 2's pruning ratios on dev
(unless given).  The folder's layout is in :mod:`plgraph.parser.model`.  Every option of
:class:`~plgraph.parser.pass2.Pass2Config` is ``--<field>2`` (``--epochs2``, ``--bits2``,
``--eta2`` ...), of :class:`~plgraph.parser.pass3.Pass3Config` ``--<field>3``
(``--epochs3``, ``--max-spines3``, ``--spine-top-check3 false`` ...).  ``--resume`` continues from the last finished epoch with the stored
options; options given that differ from them are refused, naming both.  Sentences too
long or malformed are counted and skipped, never fatal.

A folder holding a finished model (:func:`~plgraph.parser.model.holds_finished_model`)
is refused, unchanged, unless ``--resume`` (continue its training, in place) or
``--overwrite``: then the new model trains into ``M/.plgraph-overwrite`` and replaces
the old one only once complete (:func:`~plgraph.parser.model.replace_model`), so that
``M`` keeps loading as the old model until then, also when the run is interrupted;
``--overwrite --resume`` continues such an interrupted run (or only completes the
replacement, when the run was killed while doing it).

``stats`` measures on a split what reaches pass 2 and how its decodes fare
(:mod:`plgraph.parser.stats`), as a table and, with ``--json``, a JSON file.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from dataclasses import MISSING, dataclass, fields

from ..cliargs import finite_float, non_negative_int, positive_int
from ..learn.interrupts import check_interrupt

#: the passes ``parser train`` trains, in order
PASSES = ("pass2", "pass3")
#: the run's options kept in ``parser.json`` (a resumed run must not change them)
RUN_DEFAULTS = {"max_words": 40, "limit": None, "seed": 0}
#: config fields where 0 is meaningful (``beam 0, cube 0``: exhaustive search)
_ZERO_OK = ("beam", "cube")


def _progress(args):
    return args.progress if args.progress is not None else sys.stderr.isatty()


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


def _pass_config(args, name: str, config_cls, resume: bool):
    """``(config, conflicts)`` of pass ``name``: the given options over the defaults, or,
    with ``resume`` and a checkpoint of the pass, over the checkpoint's (``conflicts``:
    given options that differ from it)."""
    from ..modelfile import model_errors
    from .model import option_suffix, pass_conflicts, stored_config, stored_pass_config

    suffix = option_suffix(name)
    given = given_config(args, config_cls, suffix)
    stored = stored_pass_config(args.model_dir, name) if resume else None
    if stored is None:
        return config_cls(**given), []
    with model_errors(os.path.join(args.model_dir, f"checkpoint-{name}.json"), f"{name} checkpoint"):
        config = stored_config(config_cls, {**stored, **{k: v for k, v in given.items() if k == "epochs"}})
    return config, pass_conflicts(given, stored, suffix)


def _run_options(args, stored) -> tuple[dict, list[str]]:
    """``(options, conflicts)``: ``max_words``, ``limit``, ``seed`` as given over the
    defaults, or as ``stored`` (the resumed folder) has them, with the given ones that
    differ, and a ``--pruners`` other than the stored one, as conflicts."""
    from ..learn.loop import changed_options

    given = {k: getattr(args, k) for k in RUN_DEFAULTS if getattr(args, k) is not None}
    if stored is None:
        return {**RUN_DEFAULTS, **given}, []
    conflicts = [f"--{k.replace('_', '-')} {v} (checkpoint: {old})"
                 for k, v, old in changed_options(given, stored.header, missing_differs=True)]
    if args.pruners is not None and os.path.abspath(args.pruners) != stored.pruners_dir():
        conflicts.append(f"--pruners {args.pruners} (checkpoint: {stored.pruners_dir()})")
    return {k: stored.header.get(k) for k in RUN_DEFAULTS}, conflicts


def _refuse(conflicts, args, stored) -> None:
    """Refuse a resumed run given options other than the stored ones (InputError)."""
    from ..learn.loop import refuse_resume

    if not conflicts:
        return
    hdr = stored.header if stored is not None else {}
    parts = [f"--{k.replace('_', '-')} {hdr.get(k)}" for k in RUN_DEFAULTS if k in hdr]
    parts += [f"--pruners {stored.pruners_dir()}"] if stored is not None else []
    parts += [f"{name} {', '.join(f'{k}={v}' for k, v in entry['config'].items())}"
              for name, entry in hdr.get("passes", {}).items()]
    shown = "; ".join(parts)
    epochs = max([e.get("epochs", 0) for e in hdr.get("passes", {}).values()] or [0])
    refuse_resume(conflicts, epochs, shown or "the defaults", os.path.join(args.model_dir, "parser.json"),
                  what="parser", advice="Resume without the differing options, or train into a new folder")


# -- data ---------------------------------------------------------------------------------------
def _corpus(split, ptb, progress):
    """``(sentences, unreadable)`` of a split; the unreadable ones are listed on stderr."""
    from ..corpora import Corpus

    c = Corpus(split, ptb, progress=progress)
    sents = c.sentences()
    for b in c.skipped:
        print(f"plgraph parser: skipped unreadable sentence {b}", file=sys.stderr)
    check_interrupt()
    return sents, len(c.skipped)


def _short(graphs, max_words: int) -> tuple[list, int]:
    """The graphs of at most ``max_words`` words, and how many were longer."""
    keep = [g for g in graphs if len(g) <= max_words]
    return keep, len(graphs) - len(keep)


def _vocab_and_rules(sentences, progress):
    """The label vocabulary and the rules (seen at least once) of the train split's
    ``sentences``, leaving out malformed graphs; ``(vocab, rules, rules_info, malformed)``
    with ``malformed`` a list of ``(id, reason)``."""
    from ..errors import InputError
    from ..rules.usage import count_rules
    from .labels import LabelVocab

    malformed: list = []
    graphs = [s.graph for s in sentences]
    while True:
        try:
            vocab = LabelVocab.from_graphs(graphs)
            break
        except InputError as err:        # rare: leave the sentence out, try again
            if err.sentence is None:
                raise
            malformed.append((err.sentence, err.reason))
            graphs = [g for g in graphs if g.id != err.sentence]
    bad = {sid for sid, _ in malformed}
    usage = count_rules([s for s in sentences if s.id not in bad], progress=progress)
    rules = usage.pruned(1)
    info = {"split": "train", "min_count": 1, "sentences": usage.n_sentences, "derived": usage.n_derived,
            "combination_rules": rules.n_comb, "arc_rules": rules.n_arc}
    check_interrupt()
    return vocab, rules, info, malformed


def _prepare(graphs, pruners, vocab, rules, *, training: bool, what: str, too_long: int, progress):
    """Prepare ``graphs`` for pass 2 and report what was left out."""
    from .training import prepare_corpus

    corpus = prepare_corpus(graphs, pruners, vocab, training=training, rules=rules, progress=progress)
    print(f"{what}: {len(corpus.sents)} sentences; skipped {too_long} too long, {len(corpus.skipped)} malformed")
    for sid, reason in corpus.skipped:
        print(f"plgraph parser: skipped {what} sentence {sid}: {reason}", file=sys.stderr)
    check_interrupt()
    return corpus


def _pruners(args, own_dir, stored, train_graphs, dev_graphs, progress):
    """``(pruners, folder)``: the coarse models of ``--pruners`` (or of the resumed
    folder), else those of ``own_dir`` -- trained there unless a resumed run finds them
    finished."""
    from ..pruners import Pruners
    from ..pruners.pipeline import PrunerConfig, train_pruners

    folder = args.pruners or (stored.pruners_dir() if stored is not None else own_dir)
    own = os.path.abspath(folder) == os.path.abspath(own_dir) and args.pruners is None
    if not own or (args.resume and os.path.exists(os.path.join(own_dir, "pruners.json"))):
        return Pruners.load(folder), folder
    print(f"coarse models: training on {len(train_graphs)} sentences into {own_dir}")
    return train_pruners(train_graphs, dev_graphs, own_dir, PrunerConfig(threads=args.threads), resume=args.resume,
                         progress=progress, log=print, client=getattr(args, "client", None)), own_dir


# -- train --------------------------------------------------------------------------------------
def _train(args) -> int:
    """Check the folder writable and lock it before any corpus is read, complete a
    replacement of its model that a killed run left half done, refuse a finished model
    without ``--resume`` or ``--overwrite`` (OutputError, nothing changed), then train
    (see the module docstring).  Ctrl-C is deferred to safe points: the end of each stage
    (reading, labels and rules, preparing) and of each batch; a second Ctrl-C stops at
    once.  The files on disk are always those of the last finished epoch; a finished
    model is only ever replaced whole by a complete one."""
    from ..atomic import check_writable_dir
    from ..errors import OutputError
    from ..lock import folder_lock
    from .model import OVERWRITE_DIR, finish_replacement, holds_finished_model, replace_model

    what = "parser model folder"
    M = args.model_dir
    check_writable_dir(M)
    with folder_lock(M, what):
        if finish_replacement(M) and args.overwrite and args.resume:     # what was left of an --overwrite run
            print(f"completed the replacement of the parser model in {M}")
            return 0
        if not holds_finished_model(M, PASSES) or (args.resume and not args.overwrite):
            return _train_into(args, what)
        if not args.overwrite:
            raise OutputError(f"{M} holds a finished parser model ({os.path.join(M, 'parser.json')}); training "
                              f"into it would replace it: give --overwrite to train a new model in its place (the "
                              f"old one stays, and loads, until the new one is complete), or --resume to continue "
                              f"its training")
        work = os.path.join(M, OVERWRITE_DIR)
        if not args.resume:
            shutil.rmtree(work, ignore_errors=True)     # an earlier unfinished --overwrite: start afresh
        code = _train_into(argparse.Namespace(**{**vars(args), "model_dir": work}), what)
        replace_model(work, M)
        print(f"replaced the parser model in {M}")
        return code


def _train_into(args, what: str) -> int:
    """Train into ``args.model_dir`` (:func:`_train_locked`) inside its
    :func:`~plgraph.learn.loop.training_folder` and the Dask client of ``--dask``."""
    from ..dist.cli import client_for
    from ..learn.loop import training_folder
    from .model import folder_files

    with training_folder(args.model_dir, folder_files(PASSES), () if args.pruners else ("pruners",), what), \
            client_for(args) as client:
        args.client = client        # --dask: batches decoded on the cluster (plgraph.dist.training)
        return _train_locked(args)


@dataclass
class _Data:
    """The corpora of a training run: the train split's ``sentences`` (labels and rules),
    the graphs pass 2 trains on and scores (``train``, ``dev``: at most ``max_words`` words,
    ``train`` cut to ``limit``), the graphs the coarse models would train and tune on, and
    what was left out."""

    sentences: list
    train: list
    dev: list
    coarse_train: list
    coarse_dev: list
    too_long_train: int
    too_long_dev: int
    unreadable: int


def _read_data(args, opts, progress) -> _Data:
    train, bad_tr = _corpus("train", args.ptb, progress)
    dev, bad_dv = _corpus("dev", args.ptb, progress)
    train_graphs, too_long_tr = _short([s.graph for s in train], opts["max_words"])
    dev_graphs, too_long_dv = _short([s.graph for s in dev], opts["max_words"])
    if opts["limit"]:
        train_graphs = train_graphs[:opts["limit"]]
    coarse_train = train_graphs if opts["limit"] else [s.graph for s in train]
    return _Data(train, train_graphs, dev_graphs, coarse_train, [s.graph for s in dev], too_long_tr, too_long_dv,
                 bad_tr + bad_dv)


def _train_locked(args) -> int:
    from .model import ParserFolder, clear_previous_run
    from .pass2 import Pass2Config
    from .pass3 import Pass3Config

    start = time.perf_counter()
    progress = _progress(args)
    M = args.model_dir
    stored = ParserFolder.open(M) if args.resume and os.path.exists(os.path.join(M, "parser.json")) else None
    opts, conflicts = _run_options(args, stored)
    config2, more = _pass_config(args, "pass2", Pass2Config, stored is not None)
    config3, more3 = _pass_config(args, "pass3", Pass3Config, stored is not None)
    _refuse(conflicts + more + more3, args, stored)
    if stored is None:
        clear_previous_run(M)
    data = _read_data(args, opts, progress)
    pr, pdir = _pruners(args, os.path.join(M, "pruners"), stored, data.coarse_train, data.coarse_dev, progress)
    folder, vocab, rules = _parser_folder(args, stored, opts, data, pr, pdir, progress)
    train_tagger(M, data.coarse_train, retrain=stored is None)
    check_interrupt()
    res2, train_c, dev_c, model2 = _train_pass2(args, folder, pr, vocab, rules, config2, data, progress)
    _train_pass3(args, folder, pr, vocab, rules, model2, res2, config3, train_c, dev_c, data, progress)
    print(f"parser model in {folder.path} ({time.perf_counter() - start:.0f} s)")
    return 0


def train_tagger(model_dir, graphs, *, retrain: bool = True) -> None:
    """Train the POS tagger ``plgraph parse --in text`` uses on ``graphs``' words and tags
    into ``model_dir/tagger.json`` (kept when it exists and not ``retrain``)."""
    from .tagger import FILE, PosTagger

    path = os.path.join(model_dir, FILE)
    if os.path.exists(path) and not retrain:
        return
    start = time.perf_counter()
    tagger = PosTagger.train([(g.words, g.tags) for g in graphs])
    tagger.save(path)
    print(f"POS tagger: {len(graphs)} sentences, {time.perf_counter() - start:.0f} s, {path}", file=sys.stderr)


def _parser_folder(args, stored, opts, data: _Data, pruners, pdir, progress):
    """``(folder, vocab, rules)``: the resumed folder's, after checking that the coarse
    models and the graphs' conversion options are those it was trained with, or a new
    folder with the labels and rules of the train split."""
    from ..learn.loop import conversion_record, normal_json
    from .model import ParserFolder, pruners_fingerprint

    fingerprint = pruners_fingerprint(pdir)
    conversion = conversion_record(data.train)
    _check_conversion(conversion, pruners, pdir)
    if stored is not None:
        changed, hdr = [], stored.header
        if fingerprint != hdr["pruners"].get("fingerprint"):
            changed.append(f"coarse models in {pdir} retrained (fingerprint {fingerprint}, checkpoint: "
                           f"{hdr['pruners'].get('fingerprint')})")
        if normal_json(conversion) != normal_json(hdr.get("conversion")):
            changed.append(f"graphs converted with {conversion} (checkpoint: {hdr.get('conversion')})")
        _refuse(changed, args, stored)
        folder, vocab, rules = stored, stored.vocab(), stored.rules()
    else:
        vocab, rules, info, malformed = _vocab_and_rules(data.sentences, progress)
        for sid, reason in malformed:
            print(f"plgraph parser: labels and rules leave out malformed sentence {sid}: {reason}", file=sys.stderr)
        folder = ParserFolder.create(args.model_dir, vocab=vocab, rules=rules, rules_info=info, conversion=conversion,
                                     pruners_dir=pdir, pruners_print=fingerprint, **opts)
    print(f"{len(vocab)} edge labels ({vocab.n_structural} structural, {vocab.n_trace} trace), "
          f"{rules.n_comb} combination and {rules.n_arc} arc rules from the train split "
          f"({data.unreadable} unreadable sentences skipped)")
    return folder, vocab, rules


def _check_conversion(conversion, pruners, pdir) -> None:
    """The coarse models must have been trained on graphs of the same conversion options."""
    from ..errors import InputError
    from ..learn.loop import normal_json

    if conversion is not None and pruners.conversion is not None and \
            normal_json(conversion) != normal_json(pruners.conversion):
        raise InputError(f"the coarse models were trained on graphs converted with {pruners.conversion}, the "
                         f"parser's graphs are converted with {conversion}", os.path.join(pdir, "pruners.json"))


def _train_pass2(args, folder, pr, vocab, rules, config, data: _Data, progress):
    """Prepare the train and dev sentences for pass 2 and train it into ``folder``;
    ``(PassResult, train corpus, dev corpus)`` (what a later pass starts from)."""
    from .model import train_pass
    from .pass2 import Pass2Model, batch_gradient
    from .training import evaluate_pass2

    words = f"at most {folder.max_words} words"
    train_c = _prepare(data.train, pr, vocab, rules, training=True, what=f"pass 2 train ({words})",
                       too_long=data.too_long_train, progress=progress)
    dev_c = _prepare(data.dev, pr, vocab, None, training=False, what=f"pass 2 dev ({words})",
                     too_long=data.too_long_dev, progress=progress)
    model2 = Pass2Model(vocab, config)
    _take_positive("pass 2", model2, train_c)
    res = train_pass(folder, "pass2", model2, config, train_c, dev_c, rules, batch_gradient,
                     evaluate_pass2, resume=args.resume, threads=args.threads, progress=progress, log=print,
                     client=getattr(args, "client", None))
    print(_summary(res))
    return res, train_c, dev_c, model2


def _take_positive(name: str, model, corpus) -> None:
    """Give a pass with a negative pool its positive pairs: those of ``corpus``'s gold graphs."""
    count = model.take_positive(corpus.sents, corpus.tokens)
    if count is not None:
        print(f"{name}: {count} positive (feature, label) pairs in the train split's gold graphs; the others "
              f"share a negative pool of 2^{model.pool_bits} weights")


def _train_pass3(args, folder, pr, vocab, rules, model2, res2, config, train_c, dev_c, data: _Data, progress):
    """Decode train and dev with the final pass 2 (outside scores), tune its pruning
    ratios on dev unless given (or stored), prepare pass 3's sentences and train it."""
    from dataclasses import replace

    import numpy as np

    from ..learn.learners import plain_read_args
    from . import pass3 as P3
    from .cascade import evaluate_pass3, pass2_outputs, prepare_corpus3, tune_ratios
    from .model import train_pass

    given = given_config(args, P3.Pass3Config, "3")
    if res2.first_epoch <= res2.epochs:         # pass 2 changed in this run: its stored ratios are stale
        config = replace(config, ratio_s=given.get("ratio_s"), ratio_t=given.get("ratio_t"))
    read2 = plain_read_args(res2.weights.astype(np.float64))
    out_dev = pass2_outputs(model2, read2, dev_c, rules, threads=args.threads, progress=progress)
    check_interrupt()
    if config.ratio_s is None or config.ratio_t is None:
        tuned = tune_ratios(out_dev, dev_c, config.coarse_recall)
        config = replace(config, ratio_s=config.ratio_s if config.ratio_s is not None else tuned["ratio_s"],
                         ratio_t=config.ratio_t if config.ratio_t is not None else tuned["ratio_t"])
        print(f"pass 2 pruning ratios tuned on dev for {100 * config.coarse_recall:g}% of the gold labelled edges "
              f"pass 2 can build: structural {config.ratio_s:.4f} ({tuned['reachable_s']} of {tuned['gold_s']} "
              f"buildable), trace {config.ratio_t:.4f} ({tuned['reachable_t']} of {tuned['gold_t']})")
    out_train = pass2_outputs(model2, read2, train_c, rules, threads=args.threads, progress=progress)
    check_interrupt()
    inventory = P3.SpineInventory(pr.spine.labels.items, vocab)
    train3 = prepare_corpus3(data.train, train_c, out_train, pr, inventory, vocab, config, training=True, rules=rules,
                             progress=progress)
    dev3 = prepare_corpus3(data.dev, dev_c, out_dev, pr, inventory, vocab, config, training=False, progress=progress)
    check_interrupt()
    model3 = P3.Pass3Model(vocab, inventory, config)
    _take_positive("pass 3", model3, train3)
    res = train_pass(folder, "pass3", model3, config, train3, dev3, rules,
                     P3.batch_gradient, evaluate_pass3, resume=args.resume, threads=args.threads, progress=progress,
                     log=print, client=getattr(args, "client", None))
    print(_summary(res))
    if config.trace_bias is None:
        _tune_trace_bias(args, folder, model3, res, dev3, rules)
    return res


def _tune_trace_bias(args, folder, model3, res, dev3, rules) -> None:
    """Tune pass 3's ``trace_bias`` on dev (:func:`plgraph.parser.cascade.tune_trace_bias`)
    and record it in ``parser.json`` -- unless pass 3 was not trained in this run and a
    tuned value is stored already."""
    import numpy as np

    from ..learn.learners import plain_read_args
    from .cascade import tune_trace_bias

    stored = folder.header["passes"]["pass3"]["config"].get("trace_bias")
    if res.first_epoch > res.epochs and stored is not None:
        return
    target = model3.config.trace_precision
    bias, curve = tune_trace_bias(model3, plain_read_args(res.weights.astype(np.float64)), dev3, rules,
                                  threads=args.threads, min_precision=target)
    folder.set_tuned_option("pass3", "trace_bias", bias, curve)
    best = next(r for r in curve if r["trace_bias"] == bias)
    how = (f"best unlabelled trace recall at P >= {target:g}" if target and best["trace_p"] >= target
           else "best unlabelled trace F1")
    print(f"pass 3 trace bias tuned on dev ({how}): {bias:g} -> traces P {best['trace_p']} "
          f"R {best['trace_r']} F {best['trace_f']}; UAS {best['uas']} LAS {best['las']} "
          f"(at 0: traces P {curve[0]['trace_p']} R {curve[0]['trace_r']} F {curve[0]['trace_f']})")


def _summary(res) -> str:
    """One line about a trained pass: its last epoch's counters and dev scores."""
    if not res.rows:
        return f"{res.name}: no epoch trained"
    r = res.rows[-1]
    text = (f"{res.name}: {res.epochs} epoch(s); epoch {r['epoch']}: loss {r.get('loss')}, "
            f"{r.get('search_errors', 0)} search errors, {r.get('mismatches', 0)} mismatches, "
            f"{r.get('failed', 0)} failed, {r.get('not_derivable', 0)} not derivable")
    if "dev_uas" in r:
        spines = f", spines {r['dev_spine_acc']}" if "dev_spine_acc" in r else ""
        node = f" (attachment node {r['dev_las_node']})" if "dev_las_node" in r else ""
        text += (f"; dev UAS {r['dev_uas']} LAS {r['dev_las']}{node}{spines}, "
                 f"traces P {r['dev_trace_p']} R {r['dev_trace_r']} "
                 f"(labelled P {r['dev_trace_labelled_p']} R {r['dev_trace_labelled_r']})")
    return text


# -- stats --------------------------------------------------------------------------------------
def _stats(args) -> int:
    """Load the model (and its coarse models; every file checked, and the passes built,
    before any work), prepare the split's sentences of at most the model's ``max_words``
    words (gold attached, not protected), and measure
    (:func:`plgraph.parser.stats.pass2_stats`)."""
    from ..atomic import atomic_text, check_writable
    from . import pass3 as P3
    from .model import ParserModel
    from .pass2 import Pass2Config, Pass2Model
    from .stats import pass2_stats

    if args.json:
        check_writable(args.json)
    model = ParserModel.load(args.model_dir)
    pass2, read_args = model.pass_model("pass2", Pass2Config, lambda c: Pass2Model(model.vocab, c))
    pass3 = None
    if "pass3" in model.folder.header.get("passes", {}):
        inventory = P3.SpineInventory(model.pruners.spine.labels.items, model.vocab)
        pass3 = (inventory, *model.pass_model("pass3", P3.Pass3Config,
                                              lambda c: P3.Pass3Model(model.vocab, inventory, c)))
    progress = _progress(args)
    sents, unreadable = _corpus(args.split, args.ptb, progress)
    graphs, too_long = _short([s.graph for s in sents], model.max_words)
    corpus = _prepare(graphs, model.pruners, model.vocab, None, training=False,
                      what=f"{args.split} (at most {model.max_words} words)", too_long=too_long, progress=progress)
    doc = {"split": args.split, "max_words": model.max_words, "skipped_too_long": too_long,
           "skipped_malformed": len(corpus.skipped), "skipped_unreadable": unreadable}
    doc.update(pass2_stats(pass2, read_args, corpus, model.rules, model.vocab, threads=args.threads))
    print(_stats_table(doc))
    _pass1_and_3_stats(args, model, pass2, read_args, pass3, graphs, corpus, doc, progress)
    if args.json:
        atomic_text(args.json, json.dumps(doc, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


def _pass1_and_3_stats(args, model, pass2, read2, pass3, graphs, corpus, doc: dict, progress) -> None:
    """Add to ``doc`` and print: pass 1's pruning (``pruners stats``' figures, the seed's
    definition included), pass 2's pruning curve, and -- when the model has pass 3
    (``pass3``: its ``(inventory, model, read_args)``, else None) -- pass 3's candidates,
    spines and decodes, with the spine-top check as trained and switched the other way."""
    from dataclasses import replace

    from ..pruners.pipeline import pruning_stats
    from .cascade import pass2_outputs, prepare_corpus3, ratio_curve
    from .stats import pass3_stats

    vocab = model.vocab
    p1 = pruning_stats(model.pruners, graphs, label_vocab=vocab)
    doc["pass1"] = {k: p1[k] for k in ("edges_kept_seed_pct", "edges_kept_pct", "edge_pairs_kept_pct",
                                       "edges_gold_recall_pct", "cells_kept_pct", "traces_kept_pct",
                                       "traces_gold_recall_pct", "spines_kept_pct", "spines_gold_recall_pct") if k in p1}
    outputs = pass2_outputs(pass2, read2, corpus, model.rules, threads=args.threads, progress=progress)
    doc["pass2_curve"] = ratio_curve(outputs, corpus, len(vocab))
    lines = ["pass 1 (seed's definition): structural edges {edges_kept_seed_pct}% kept, gold {edges_gold_recall_pct}%; "
             "cells {cells_kept_pct}%; traces {traces_kept_pct}% (gold {traces_gold_recall_pct}%); spines "
             "{spines_kept_pct}% (gold {spines_gold_recall_pct}%)".format(**{k: doc['pass1'].get(k) for k in (
                 "edges_kept_seed_pct", "edges_gold_recall_pct", "cells_kept_pct", "traces_kept_pct",
                 "traces_gold_recall_pct", "spines_kept_pct", "spines_gold_recall_pct")}),
             "pass 2 pruning curve: ratio  gold S kept %  gold T kept %  S kept (seed's definition) %"]
    lines += [f"  {r['ratio']:.1f}  {r['gold_structural_kept_pct']:7.2f}  {r['gold_trace_kept_pct']:7.2f}  "
              f"{r['structural_kept_seed_pct']:9.4f}" for r in doc["pass2_curve"]]
    print("\n".join(lines))
    if pass3 is None:
        return
    inventory, pass3, read3 = pass3
    config = pass3.config
    for key, cfg in (("pass3", config),
                     ("pass3_spine_top_check_flipped", replace(config, spine_top_check=not config.spine_top_check))):
        c3 = prepare_corpus3(graphs, corpus, outputs, model.pruners, inventory, vocab, cfg, training=False,
                             progress=progress)
        doc[key] = {"spine_top_check": cfg.spine_top_check, "ratio_s": cfg.ratio_s, "ratio_t": cfg.ratio_t,
                    **pass3_stats(pass3, read3, c3, model.rules, vocab, inventory, threads=args.threads)}
        d = doc[key]
        print(f"pass 3 (spine-top check {'on' if cfg.spine_top_check else 'off'}; ratios {cfg.ratio_s:.4f} / "
              f"{cfg.ratio_t:.4f}): structural labels {d['structural_kept_seed_pct']}% kept (seed's definition), "
              f"gold {d['structural_gold_recall_pct']}%; trace labels {d['trace_kept_pct']}% (gold "
              f"{d['trace_gold_recall_pct']}%); spines {d['spine_options_per_word']} a word, {d['spines_kept_pct']}% "
              f"(gold {d['spines_gold_recall_pct']}%); chart cells used {d['cells_used_pct']}%, "
              f"{d['items_per_sentence']} items a sentence")
        print(f"pass 3: UAS {d['uas']} LAS {d['las']} (attachment node {d['las_node']}) spines {d['spine_acc']}; "
              f"traces P {d['trace_p']} R "
              f"{d['trace_r']}; {d['search_errors']} search errors ({d['search_errors_gold_reachable']} with gold "
              f"reachable), {d['failed']} failed, {d['not_derivable']} not derivable, {d['mismatches']} mismatches; "
              f"{d['sentences_per_second']} sentences/s")
        if key == "pass3" and getattr(args, "trace_bias_curve", False):
            _trace_bias_curve(args, pass3, read3, c3, model.rules, doc)


def _trace_bias_curve(args, pass3, read3, c3, rules, doc: dict) -> None:
    """Add to ``doc`` and print pass 3's trace P/R at each trace threshold of the tuning
    grid (:func:`plgraph.parser.cascade.tune_trace_bias`)."""
    from .cascade import tune_trace_bias

    bias, curve = tune_trace_bias(pass3, read3, c3, rules, threads=args.threads)
    doc["pass3_trace_bias_curve"] = {"best_trace_f": bias, "rows": curve}
    print("pass 3 trace threshold: bias  trace P  trace R  trace F  UAS  LAS"
          + f"  (best F at {bias:g}; the model's own: {pass3.config.trace_bias or 0.0:g})")
    print("\n".join(f"  {r['trace_bias']:5.2f}  {r['trace_p']:6.2f}  {r['trace_r']:6.2f}  {r['trace_f']:6.2f}  "
                    f"{r['uas']:5.2f}  {r['las']:5.2f}" for r in curve))


def _stats_table(doc) -> str:
    """The figures of :func:`_stats` as text."""
    rows = [("(child, parent) pairs", doc["pairs_kept_pct"], doc["pairs_gold_recall_pct"]),
            ("  with a structural label", doc["structural_pairs_kept_pct"], doc["structural_pair_gold_recall_pct"]),
            ("  with a trace label (of word pairs)", doc["trace_pairs_kept_pct"], doc["trace_pair_gold_recall_pct"]),
            (f"structural labels (of {doc['labels_structural']} per pair)", doc["structural_kept_pct"],
             doc["structural_gold_recall_pct"]),
            (f"trace labels (of {doc['labels_trace']} per word pair)", doc["trace_kept_pct"],
             doc["trace_gold_recall_pct"])]
    lines = [f"{doc['split']}: {doc['sentences']} sentences of at most {doc['max_words']} words "
             f"({doc['sentences_per_second']} sentences/s)",
             f"{'reaching pass 2 (pass 1 + trace classifier)':44s} {'kept %':>9s} {'gold kept %':>12s}"]
    for name, kept, rec in rows:
        lines.append(f"{name:44s} {kept:9.4f} {'' if rec is None else f'{rec:12.2f}':>12s}")
    lines.append(f"pass 2: {doc['search_errors']} search errors ({doc['search_errors_gold_reachable']} with gold "
                 f"reachable), {doc['failed']} failed, {doc['not_derivable']} not derivable under the rules, "
                 f"{doc['mismatches']} mismatches")
    lines.append(f"pass 2: UAS {doc['uas']} LAS {doc['las']} (attachment node {doc['las_node']}); "
                 f"traces P {doc['trace_p']} R {doc['trace_r']} "
                 f"(labelled P {doc['trace_labelled_p']} R {doc['trace_labelled_r']})")
    return "\n".join(lines)


# -- registration -------------------------------------------------------------------------------
def register(sub) -> None:
    from ..dist.cli import add_dask_options
    from .pass2 import Pass2Config
    from .pass3 import Pass3Config

    p = sub.add_parser("parser", help="the graph parser: train it into a model folder, measure it",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ps = p.add_subparsers(dest="parser_command", required=True)
    t = ps.add_parser("train", help="train the coarse models (unless --pruners), pass 2 and pass 3 into a model folder")
    t.add_argument("--model-dir", required=True, metavar="M")
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
    add_config_options(t, Pass2Config, "2", "pass 2")
    add_config_options(t, Pass3Config, "3", "pass 3")
    add_dask_options(t, chunks=None)
    t.set_defaults(func=_train)
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
    from .parse_cli import add_parser_commands

    add_parser_commands(ps)
