"""The whole training of the graph parser: :func:`train` with its :class:`TrainConfig`.

``TrainConfig.scorer`` names the scorer trained (:data:`~plgraph.parser.scoring.registry.SCORERS`):
``linear`` (the default, below) or ``neural``, which :func:`train` hands to the neural
scorer's trainer (:func:`~plgraph.parser.scoring.neural.train.train_scorer`, into
``M/neural``, with the options of ``TrainConfig.neural``).

For the linear scorer, :func:`train` trains the coarse models into ``M/pruners`` unless ``config.pruners`` names
trained ones, builds the edge labels and the rules on the train split, trains the POS
tagger, and trains pass 2 and then pass 3 on the train sentences of at most
``max_words`` words (gold protected), scoring the dev sentences of at most ``max_words``
words after every epoch; between the two it decodes train and dev with the final pass 2
and tunes pass 2's pruning ratios on dev (unless given), and after pass 3 it tunes pass
3's trace threshold on dev (unless given).  The folder's layout is in
:mod:`plgraph.parser.model`.  Sentences too long or malformed are counted and skipped,
never fatal.

Resuming (``resume``) continues from the last finished epoch with the stored options;
options given that differ from them are refused (:class:`~plgraph.errors.InputError`
naming both).  A folder holding a finished model
(:func:`~plgraph.parser.model.holds_finished_model`) is refused, unchanged
(:class:`~plgraph.errors.OutputError`), unless ``resume`` (continue its training, in
place) or ``overwrite``: then the new model trains into ``M/.plgraph-overwrite`` and
replaces the old one only once complete (:func:`~plgraph.parser.model.replace_model`),
so that ``M`` keeps loading as the old model until then, also when the run is
interrupted; ``overwrite`` with ``resume`` continues such an interrupted run (or only
completes the replacement, when the run was killed while doing it).

Memory stays flat in the corpus size: the sentences prepared for each pass (and pass 2's
outputs that pass 3 is pruned by) go to compressed shards in ``M/prepared``
(:mod:`plgraph.files.shards`), written once -- resumably: a killed run continues the
preparation where it stopped -- and read a batch at a time; decodes are counted and
dropped as they finish.  ``M/prepared`` is removed at the end unless ``keep_prepared``.

Ctrl-C is deferred to safe points: the end of each stage (reading, labels and rules,
preparing) and of each batch; a second Ctrl-C stops at once.  The files on disk are
always those of the last finished epoch.

What the run reports goes through two callbacks: ``log`` (progress lines; ``print`` by
default) and ``warn`` (sentences skipped and other notices; standard error by default).
"""
from __future__ import annotations

import os
import shutil
import sys
import time
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Callable, Mapping

from ...signals import check_interrupt

#: the passes :func:`train` trains, in order
PASSES = ("pass2", "pass3")
#: the run's options kept in ``parser.json`` (a resumed run must not change them)
RUN_DEFAULTS = {"max_words": 40, "limit": None, "seed": 0}


def to_stderr(line: str) -> None:
    """The default ``warn`` of :func:`train` and its parts: ``line`` on standard error."""
    print(line, file=sys.stderr)


@dataclass(frozen=True)
class TrainConfig:
    """What :func:`train` trains, and where.

    ``max_words``, ``limit`` and ``seed`` left at None take :data:`RUN_DEFAULTS` (or,
    with ``resume``, the stored run's).  ``pass2`` / ``pass3`` hold the fields of
    :class:`~plgraph.parser.scoring.pass2.Pass2Config` /
    :class:`~plgraph.parser.scoring.pass3.Pass3Config` to set, only those given; the
    others take the config's defaults (or the checkpoint's with ``resume``).  In
    ``pass3``, ``trace_bias`` None (the default) and ``ratio_s`` / ``ratio_t`` None mean
    tuned on dev.  ``limit``: train on the first ``limit`` train sentences of at most
    ``max_words`` words only (also the coarse models trained here); labels and rules
    still come from the whole train split.  ``ptb``: a full LDC treebank folder (train
    02-21, dev 22).  ``threads``: threads decoding a batch and the dev sentences.
    ``dask`` (a scheduler address or ``local``) and ``workers``: decode the batches on a
    Dask cluster (:mod:`plgraph.learn.replicas`; the workers read the prepared sentences
    from the model folder, which must be on a path they share).  ``progress``: bars
    shown (None: when standard error is a terminal).  ``keep_prepared``: keep the
    prepared sentences (``M/prepared``) after training; by default they are removed
    once the model is finished.

    ``scorer``: the scorer trained, ``linear`` or ``neural``.  ``neural``: for the
    neural scorer, the fields of
    :class:`~plgraph.parser.scoring.neural.train.NeuralTrainConfig` to set besides
    those above (``network`` a dict of
    :class:`~plgraph.parser.scoring.neural.config.NetworkConfig` fields); the options
    of one scorer given to the other are refused (ValueError naming them,
    :meth:`foreign_fields`)."""

    model_dir: str
    pruners: str | None = None
    resume: bool = False
    overwrite: bool = False
    max_words: int | None = None
    limit: int | None = None
    seed: int | None = None
    ptb: str | None = None
    threads: int = 2
    progress: bool | None = None
    pass2: Mapping[str, Any] = field(default_factory=dict)
    pass3: Mapping[str, Any] = field(default_factory=dict)
    dask: str | None = None
    workers: int | None = None
    keep_prepared: bool = False
    scorer: str = "linear"
    neural: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        from ..scoring.pass2 import Pass2Config
        from ..scoring.pass3 import Pass3Config
        from ..scoring.registry import SCORERS

        if self.scorer not in SCORERS:
            raise ValueError(f"TrainConfig.scorer {self.scorer!r}: expected one of {', '.join(SCORERS)}")
        foreign = self.foreign_fields()
        if foreign:
            raise ValueError(f"TrainConfig: {', '.join(foreign)}: options only another scorer takes, not "
                             f"scorer {self.scorer!r}")
        if self.scorer == "neural":
            from ..scoring.neural.config import neural_fields

            unknown = sorted(set(self.neural) - neural_fields())
            if unknown:
                raise ValueError(f"TrainConfig.neural: {', '.join(unknown)} not options of the neural scorer "
                                 f"({', '.join(sorted(neural_fields()))})")

        for name, cls in (("pass2", Pass2Config), ("pass3", Pass3Config)):
            known = {f.name for f in fields(cls)}
            unknown = sorted(set(getattr(self, name)) - known)
            if unknown:
                raise ValueError(f"TrainConfig.{name}: {', '.join(unknown)} not fields of {cls.__name__} "
                                 f"({', '.join(sorted(known))})")
        if self.threads < 1:
            raise ValueError(f"TrainConfig.threads must be at least 1, got {self.threads}")

    def foreign_fields(self) -> list[str]:
        """The fields set to other than their default that only another scorer takes
        (``options`` of :data:`~plgraph.parser.scoring.registry.SCORERS`)."""
        from ..scoring.registry import SCORERS

        theirs = {name for s, entry in SCORERS.items() if s != self.scorer for name in entry.options}
        return [f.name for f in fields(self) if f.name in theirs
                and getattr(self, f.name) != (f.default_factory() if callable(f.default_factory) else f.default)]


@dataclass
class _Run:
    """One call of :func:`train`: its config, the Dask client (or None), the callbacks."""

    config: TrainConfig
    client: Any
    log: Callable[[str], None]
    warn: Callable[[str], None]

    @property
    def model_dir(self) -> str:
        return self.config.model_dir


def train(config: TrainConfig, *, log: Callable[[str], None] = print,
          warn: Callable[[str], None] = to_stderr) -> str:
    """Train ``config.scorer`` into model folder ``config.model_dir`` (module
    docstring); the folder's path.

    The folder is checked writable and locked before any corpus is read; a replacement
    of its model that a killed run left half done is completed first."""
    from ..scoring.registry import scorer_trainer

    scorer_trainer(config.scorer)(config, log=log, warn=warn)
    return config.model_dir


def train_linear(config: TrainConfig, *, log: Callable[[str], None] = print,
                 warn: Callable[[str], None] = to_stderr) -> str:
    """:func:`train` of the linear scorer (module docstring); the folder's path."""
    from ...files.atomic import check_writable_dir
    from ...errors import OutputError
    from ...files.lock import folder_lock
    from ...files.replacement import finish_replacement, work_dir
    from ..model import holds_finished_model, replace_model

    what = "parser model folder"
    M = config.model_dir
    check_writable_dir(M)
    with folder_lock(M, what):
        if finish_replacement(M) and config.overwrite and config.resume:     # what was left of an overwrite run
            log(f"completed the replacement of the parser model in {M}")
            return M
        if not holds_finished_model(M, PASSES) or (config.resume and not config.overwrite):
            _train_into(config, what, log, warn)
            return M
        if not config.overwrite:
            raise OutputError(f"{M} holds a finished parser model ({os.path.join(M, 'parser.json')}); training "
                              f"into it would replace it: give --overwrite to train a new model in its place (the "
                              f"old one stays, and loads, until the new one is complete), or --resume to continue "
                              f"its training")
        work = work_dir(M)
        if not config.resume:
            shutil.rmtree(work, ignore_errors=True)     # an earlier unfinished overwrite: start afresh
        _train_into(replace(config, model_dir=work), what, log, warn)
        replace_model(work, M)
        log(f"replaced the parser model in {M}")
        return M


def _train_into(config: TrainConfig, what: str, log, warn) -> None:
    """Train into ``config.model_dir`` (:func:`_train_locked`) inside its
    :func:`~plgraph.learn.loop.training_folder` and the Dask client of ``config.dask``."""
    from ...dist.cluster import optional_client
    from ...learn.loop import training_folder
    from ..model import folder_files

    with training_folder(config.model_dir, folder_files(PASSES), () if config.pruners else ("pruners",), what), \
            optional_client(config.dask, workers=config.workers) as client:
        _train_locked(_Run(config, client, log, warn))


# -- options ------------------------------------------------------------------------------------
def _pass_config(run: _Run, name: str, config_cls, given: Mapping, resume: bool):
    """``(config, conflicts)`` of pass ``name``: the ``given`` fields over the defaults,
    or, with ``resume`` and a checkpoint of the pass, over the checkpoint's
    (``conflicts``: given fields that differ from it)."""
    from ...files.modelfile import model_errors
    from ..model import stored_config, stored_pass_config
    from .passes import option_suffix, pass_conflicts

    stored = stored_pass_config(run.model_dir, name) if resume else None
    if stored is None:
        return config_cls(**given), []
    with model_errors(os.path.join(run.model_dir, f"checkpoint-{name}.json"), f"{name} checkpoint"):
        config = stored_config(config_cls, {**stored, **{k: v for k, v in given.items() if k == "epochs"}})
    return config, pass_conflicts(dict(given), stored, option_suffix(name))


def _run_options(config: TrainConfig, stored) -> tuple[dict, list[str]]:
    """``(options, conflicts)``: ``max_words``, ``limit``, ``seed`` as given over the
    defaults, or as ``stored`` (the resumed folder) has them, with the given ones that
    differ, and a ``pruners`` other than the stored one, as conflicts."""
    from ...learn.loop import changed_options

    given = {k: getattr(config, k) for k in RUN_DEFAULTS if getattr(config, k) is not None}
    if stored is None:
        return {**RUN_DEFAULTS, **given}, []
    conflicts = [f"--{k.replace('_', '-')} {v} (checkpoint: {old})"
                 for k, v, old in changed_options(given, stored.header, missing_differs=True)]
    if config.pruners is not None and os.path.abspath(config.pruners) != stored.pruners_dir():
        conflicts.append(f"--pruners {config.pruners} (checkpoint: {stored.pruners_dir()})")
    return {k: stored.header.get(k) for k in RUN_DEFAULTS}, conflicts


def _refuse(conflicts, run: _Run, stored) -> None:
    """Refuse a resumed run given options other than the stored ones (InputError)."""
    from ...learn.loop import refuse_resume

    if not conflicts:
        return
    hdr = stored.header if stored is not None else {}
    parts = [f"--{k.replace('_', '-')} {hdr.get(k)}" for k in RUN_DEFAULTS if k in hdr]
    parts += [f"--pruners {stored.pruners_dir()}"] if stored is not None else []
    parts += [f"{name} {', '.join(f'{k}={v}' for k, v in entry['config'].items())}"
              for name, entry in hdr.get("passes", {}).items()]
    shown = "; ".join(parts)
    epochs = max([e.get("epochs", 0) for e in hdr.get("passes", {}).values()] or [0])
    refuse_resume(conflicts, epochs, shown or "the defaults", os.path.join(run.model_dir, "parser.json"),
                  what="parser", advice="Resume without the differing options, or train into a new folder")


# -- data ---------------------------------------------------------------------------------------
@dataclass
class _Data:
    """The corpora of a training run: the train split's ``sentences`` (labels and rules;
    their trees let go of once read: no stage of the training reads them),
    the graphs pass 2 trains on and scores (``train``, ``dev``: at most ``max_words`` words,
    ``train`` cut to ``limit``), the graphs the coarse models would train and tune on, and
    what was left out.  The run lets go of what it no longer needs as it goes
    (:meth:`release_split`), so that no stage after the coarse models holds the whole
    train split: a field let go of is None."""

    sentences: list | None
    train: list | None
    dev: list | None
    coarse_train: list | None
    coarse_dev: list | None
    too_long_train: int
    too_long_dev: int
    unreadable: int

    def release_split(self) -> None:
        """After the coarse models, the labels and rules and the tagger: keep only the
        graphs pass 2 prepares (``train``, ``dev``)."""
        self.sentences = self.coarse_train = self.coarse_dev = None


def read_split(split: str, ptb, progress, warn=to_stderr, prog: str = "plgraph parser"):
    """``(sentences, unreadable)`` of a split; each unreadable one is reported to ``warn``."""
    from ...corpora import Corpus

    c = Corpus(split, ptb, progress=progress)
    sents = c.sentences()
    for b in c.skipped:
        warn(f"{prog}: skipped unreadable sentence {b}")
    check_interrupt()
    return sents, len(c.skipped)


def short_graphs(graphs, max_words: int) -> tuple[list, int]:
    """The graphs of at most ``max_words`` words, and how many were longer."""
    keep = [g for g in graphs if len(g) <= max_words]
    return keep, len(graphs) - len(keep)


def _read_data(run: _Run, opts, progress) -> _Data:
    ptb = run.config.ptb
    train, bad_tr = read_split("train", ptb, progress, run.warn)
    dev, bad_dv = read_split("dev", ptb, progress, run.warn)
    for s in train:             # training reads the graphs only: the trees are let go of at once
        s.tree = s.graph.source_tree = None
    train_graphs, too_long_tr = short_graphs([s.graph for s in train], opts["max_words"])
    dev_graphs, too_long_dv = short_graphs([s.graph for s in dev], opts["max_words"])
    if opts["limit"]:
        train_graphs = train_graphs[:opts["limit"]]
    coarse_train = train_graphs if opts["limit"] else [s.graph for s in train]
    return _Data(train, train_graphs, dev_graphs, coarse_train, [s.graph for s in dev], too_long_tr, too_long_dv,
                 bad_tr + bad_dv)


def vocab_and_rules(sentences, progress):
    """The label vocabulary and the rules (seen at least once) of the train split's
    ``sentences``, leaving out malformed graphs; ``(vocab, rules, rules_info, malformed)``
    with ``malformed`` a list of ``(id, reason)``."""
    from ...errors import InputError
    from ...rules.usage import count_rules
    from ..scoring.labels import LabelVocab

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


def prepare_split(graphs, pruners, vocab, rules, *, training: bool, what: str, too_long: int, progress,
                  log=print, warn=to_stderr, store=None):
    """Prepare ``graphs`` for pass 2 (:func:`~plgraph.parser.training.corpus.prepare_corpus`,
    into shards with ``store``) and report what was left out (``too_long``: the count
    already left out as too long)."""
    from .corpus import prepare_corpus

    start = time.perf_counter()
    corpus = prepare_corpus(graphs, pruners, vocab, training=training, rules=rules, progress=progress, store=store)
    log(f"{what}: {len(corpus.sents)} sentences; skipped {too_long} too long, {len(corpus.skipped)} malformed "
        f"({time.perf_counter() - start:.1f} s)")
    for sid, reason in corpus.skipped:
        warn(f"plgraph parser: skipped {what} sentence {sid}: {reason}")
    check_interrupt()
    return corpus


def _pruners(run: _Run, own_dir, stored, train_graphs, dev_graphs, progress):
    """``(pruners, folder)``: the coarse models of ``config.pruners`` (or of the resumed
    folder), else those of ``own_dir`` -- trained there unless a resumed run finds them
    finished."""
    from ...pruners import Pruners
    from ...pruners.model import PrunerConfig
    from ...pruners.training import train_pruners

    config = run.config
    folder = config.pruners or (stored.pruners_dir() if stored is not None else own_dir)
    own = os.path.abspath(folder) == os.path.abspath(own_dir) and config.pruners is None
    if not own or (config.resume and os.path.exists(os.path.join(own_dir, "pruners.json"))):
        return Pruners.load(folder), folder
    run.log(f"coarse models: training on {len(train_graphs)} sentences into {own_dir}")
    return train_pruners(train_graphs, dev_graphs, own_dir, PrunerConfig(threads=config.threads),
                         resume=config.resume, progress=progress, log=run.log, client=run.client), own_dir


# -- the stages ---------------------------------------------------------------------------------
def _train_locked(run: _Run) -> None:
    from ...progress import shown
    from ..model import ParserFolder, clear_previous_run
    from ..scoring.pass2 import Pass2Config
    from ..scoring.pass3 import Pass3Config

    start = time.perf_counter()
    config = run.config
    progress = shown(config.progress)
    M = config.model_dir
    stored = ParserFolder.open(M) if config.resume and os.path.exists(os.path.join(M, "parser.json")) else None
    opts, conflicts = _run_options(config, stored)
    config2, more = _pass_config(run, "pass2", Pass2Config, config.pass2, stored is not None)
    config3, more3 = _pass_config(run, "pass3", Pass3Config, config.pass3, stored is not None)
    _refuse(conflicts + more + more3, run, stored)
    if stored is None:
        clear_previous_run(M)
    data = _read_data(run, opts, progress)
    pr, pdir = _pruners(run, os.path.join(M, "pruners"), stored, data.coarse_train, data.coarse_dev, progress)
    folder, vocab, rules = _parser_folder(run, stored, opts, data, pr, pdir, progress)
    train_tagger(M, data.coarse_train, retrain=stored is None, warn=run.warn)
    data.release_split()
    check_interrupt()
    res2, train_c, dev_c, model2 = _train_pass2(run, folder, pr, vocab, rules, config2, data, progress)
    del data
    _train_pass3(run, folder, pr, vocab, rules, model2, res2, config3, train_c, dev_c, progress)
    if not config.keep_prepared:
        shutil.rmtree(_prepared_dir(run), ignore_errors=True)
    run.log(f"parser model in {folder.path} ({time.perf_counter() - start:.0f} s)")


def _prepared_dir(run: _Run) -> str:
    from ..model import PREPARED_DIR

    return os.path.join(run.model_dir, PREPARED_DIR)


def _store(run: _Run, folder, name: str, **key):
    """The :class:`~plgraph.files.shards.StoreSpec` of the prepared sentences ``name`` of this
    run: its key names the coarse models, the run's options, the labels and rules, and
    ``key``'s items (what else they were made from)."""
    from ...files.shards import StoreSpec

    hdr = folder.header
    base = {"pruners": hdr["pruners"].get("fingerprint"), "max_words": hdr.get("max_words"),
            "limit": hdr.get("limit"), "ptb": os.path.abspath(run.config.ptb) if run.config.ptb else None,
            "conversion": hdr.get("conversion")}
    return StoreSpec(_prepared_dir(run), name, {**base, **key})


def train_tagger(model_dir, graphs, *, retrain: bool = True, warn=to_stderr) -> None:
    """Train the POS tagger ``plgraph parse --in text`` uses on ``graphs``' words and tags
    into ``model_dir/tagger.json`` (kept when it exists and not ``retrain``)."""
    from ..parsing.tagger import FILE, PosTagger

    path = os.path.join(model_dir, FILE)
    if os.path.exists(path) and not retrain:
        return
    start = time.perf_counter()
    tagger = PosTagger.train([(g.words, g.tags) for g in graphs])
    tagger.save(path)
    warn(f"POS tagger: {len(graphs)} sentences, {time.perf_counter() - start:.0f} s, {path}")


def _parser_folder(run: _Run, stored, opts, data: _Data, pruners, pdir, progress):
    """``(folder, vocab, rules)``: the resumed folder's, after checking that the coarse
    models and the graphs' conversion options are those it was trained with, or a new
    folder with the labels and rules of the train split."""
    from ...learn.loop import conversion_record, normal_json
    from ..model import ParserFolder, pruners_fingerprint

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
        _refuse(changed, run, stored)
        folder, vocab, rules = stored, stored.vocab(), stored.rules()
    else:
        vocab, rules, info, malformed = vocab_and_rules(data.sentences, progress)
        for sid, reason in malformed:
            run.warn(f"plgraph parser: labels and rules leave out malformed sentence {sid}: {reason}")
        folder = ParserFolder.create(run.model_dir, vocab=vocab, rules=rules, rules_info=info, conversion=conversion,
                                     pruners_dir=pdir, pruners_print=fingerprint, **opts)
    run.log(f"{len(vocab)} edge labels ({vocab.n_structural} structural, {vocab.n_trace} trace), "
            f"{rules.n_comb} combination and {rules.n_arc} arc rules from the train split "
            f"({data.unreadable} unreadable sentences skipped)")
    return folder, vocab, rules


def _check_conversion(conversion, pruners, pdir) -> None:
    """The coarse models must have been trained on graphs of the same conversion options."""
    from ...errors import InputError
    from ...learn.loop import normal_json

    if conversion is not None and pruners.conversion is not None and \
            normal_json(conversion) != normal_json(pruners.conversion):
        raise InputError(f"the coarse models were trained on graphs converted with {pruners.conversion}, the "
                         f"parser's graphs are converted with {conversion}", os.path.join(pdir, "pruners.json"))


def _train_pass2(run: _Run, folder, pr, vocab, rules, config, data: _Data, progress):
    """Prepare the train and dev sentences for pass 2 and train it into ``folder``;
    ``(PassResult, train corpus, dev corpus, model)`` (what a later pass starts from).
    ``data.train`` is let go of once prepared: the train corpus keeps the graphs it
    prepared, for pass 3's preparation."""
    from ..scoring.pass2 import Pass2Model, batch_gradient
    from .corpus import evaluate_pass2
    from .passes import train_pass

    words = f"at most {folder.max_words} words"
    sizes = {"labels": len(vocab), "rules": [rules.n_comb, rules.n_arc]}
    train_c = prepare_split(data.train, pr, vocab, rules, training=True, what=f"pass 2 train ({words})",
                            too_long=data.too_long_train, progress=progress, log=run.log, warn=run.warn,
                            store=_store(run, folder, "pass2-train", sentences=len(data.train), **sizes))
    data.train = None
    dev_c = prepare_split(data.dev, pr, vocab, None, training=False, what=f"pass 2 dev ({words})",
                          too_long=data.too_long_dev, progress=progress, log=run.log, warn=run.warn,
                          store=_store(run, folder, "pass2-dev", sentences=len(data.dev), **sizes))
    model2 = Pass2Model(vocab, config)
    _take_positive(run, "pass 2", model2, train_c)
    res = train_pass(folder, "pass2", model2, config, train_c, dev_c, rules, batch_gradient,
                     evaluate_pass2, resume=run.config.resume, threads=run.config.threads, progress=progress,
                     log=run.log, client=run.client)
    run.log(pass_summary(res))
    return res, train_c, dev_c, model2


def _take_positive(run: _Run, name: str, model, corpus) -> None:
    """Give a pass with a negative pool its positive pairs: those of ``corpus``'s gold graphs."""
    count = model.take_positive(corpus.sents, corpus.tokens)
    if count is not None:
        run.log(f"{name}: {count} positive (feature, label) pairs in the train split's gold graphs; the others "
                f"share a negative pool of 2^{model.pool_bits} weights")


def _train_pass3(run: _Run, folder, pr, vocab, rules, model2, res2, config, train_c, dev_c, progress):
    """Decode train and dev with the final pass 2 (outside scores), tune its pruning
    ratios on dev unless given (or stored), prepare pass 3's sentences and train it.
    The train corpus's graphs are let go of once pass 3's train sentences are prepared."""
    import zlib

    import numpy as np

    from ...learn.learners import plain_read_args
    from ..scoring import pass3 as P3
    from .cascade import evaluate_pass3, pass2_outputs, prepare_corpus3, tune_ratios
    from .passes import train_pass

    threads, given = run.config.threads, run.config.pass3
    if res2.first_epoch <= res2.epochs:         # pass 2 changed in this run: its stored ratios are stale
        config = replace(config, ratio_s=given.get("ratio_s"), ratio_t=given.get("ratio_t"))
    read2 = plain_read_args(res2.weights.astype(np.float64))
    start = time.perf_counter()
    made_by = {"weights2": zlib.crc32(np.ascontiguousarray(res2.weights).tobytes()), "sentences": len(train_c.sents)}
    out_dev = pass2_outputs(model2, read2, dev_c, rules, threads=threads, progress=progress,
                            store=_store(run, folder, "pass2-out-dev", **made_by, dev=len(dev_c.sents)))
    check_interrupt()
    if config.ratio_s is None or config.ratio_t is None:
        tuned = tune_ratios(out_dev, dev_c, config.coarse_recall)
        config = replace(config, ratio_s=config.ratio_s if config.ratio_s is not None else tuned["ratio_s"],
                         ratio_t=config.ratio_t if config.ratio_t is not None else tuned["ratio_t"])
        run.log(f"pass 2 pruning ratios tuned on dev for {100 * config.coarse_recall:g}% of the gold labelled edges "
                f"pass 2 can build: structural {config.ratio_s:.4f} ({tuned['reachable_s']} of {tuned['gold_s']} "
                f"buildable), trace {config.ratio_t:.4f} ({tuned['reachable_t']} of {tuned['gold_t']})")
    mark = time.perf_counter()
    out_train = pass2_outputs(model2, read2, train_c, rules, threads=threads, progress=progress,
                              store=_store(run, folder, "pass2-out-train", **made_by))
    decoded = time.perf_counter() - mark
    check_interrupt()
    inventory = P3.SpineInventory(pr.spine.labels.items, vocab)
    pruning = {k: v for k, v in asdict(config).items() if k not in ("epochs", "trace_bias")}
    train3 = prepare_corpus3(train_c, out_train, pr, inventory, vocab, config, training=True, rules=rules,
                             progress=progress, store=_store(run, folder, "pass3-train", **made_by, config=pruning))
    del out_train
    train_c.graphs = None
    dev3 = prepare_corpus3(dev_c, out_dev, pr, inventory, vocab, config, training=False, progress=progress,
                           store=_store(run, folder, "pass3-dev", **made_by, dev=len(dev_c.sents), config=pruning))
    run.log(f"pass 3 train and dev prepared ({time.perf_counter() - start:.1f} s; the final pass 2's decode of "
            f"the {len(train_c.sents)} train sentences with outside scores {decoded:.1f} s)")
    check_interrupt()
    model3 = P3.Pass3Model(vocab, inventory, config)
    _take_positive(run, "pass 3", model3, train3)
    res = train_pass(folder, "pass3", model3, config, train3, dev3, rules,
                     P3.batch_gradient, evaluate_pass3, resume=run.config.resume, threads=threads, progress=progress,
                     log=run.log, client=run.client)
    run.log(pass_summary(res))
    if config.trace_bias is None:
        _tune_trace_bias(run, folder, model3, res, dev3, rules)
    return res


def _tune_trace_bias(run: _Run, folder, model3, res, dev3, rules) -> None:
    """Tune pass 3's ``trace_bias`` on dev (:func:`plgraph.parser.training.cascade.tune_trace_bias`)
    and record it in ``parser.json`` -- unless pass 3 was not trained in this run and a
    tuned value is stored already."""
    import numpy as np

    from ...learn.learners import plain_read_args
    from .cascade import tune_trace_bias

    stored = folder.header["passes"]["pass3"]["config"].get("trace_bias")
    if res.first_epoch > res.epochs and stored is not None:
        return
    target = model3.config.trace_precision
    bias, curve = tune_trace_bias(model3, plain_read_args(res.weights.astype(np.float64)), dev3, rules,
                                  threads=run.config.threads, min_precision=target)
    folder.set_tuned_option("pass3", "trace_bias", bias, curve)
    best = next(r for r in curve if r["trace_bias"] == bias)
    how = (f"best unlabelled trace recall at P >= {target:g}" if target and best["trace_p"] >= target
           else "best unlabelled trace F1")
    run.log(f"pass 3 trace bias tuned on dev ({how}): {bias:g} -> traces P {best['trace_p']} "
            f"R {best['trace_r']} F {best['trace_f']}; UAS {best['uas']} LAS {best['las']} "
            f"(at 0: traces P {curve[0]['trace_p']} R {curve[0]['trace_r']} F {curve[0]['trace_f']})")


def pass_summary(res) -> str:
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


__all__ = ["TrainConfig", "train", "train_linear", "train_tagger", "to_stderr", "read_split", "short_graphs", "prepare_split", "pass_summary",
           "vocab_and_rules",
           "PASSES", "RUN_DEFAULTS"]
