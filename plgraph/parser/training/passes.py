"""One pass of the parser trained into its model folder, epoch by epoch, resumable.

A pass plugs in through :func:`train_pass` with four objects of one shape (pass 2's:
:class:`~plgraph.parser.scoring.pass2.Pass2Config`, :class:`~plgraph.parser.scoring.pass2.Pass2Model`,
:func:`~plgraph.parser.scoring.pass2.batch_gradient`, :func:`~plgraph.parser.training.corpus.evaluate_pass2`):

* a frozen config dataclass with at least ``bits``, ``batch``, ``eta``, ``C``, ``reg`` and
  ``epochs`` (the learner is AdaGrad with ``eta``, ``C``, ``reg``; ``batch`` items per update);
* a scorer built from the config (pass 2: ``Pass2Model(vocab, config)``), which offers
  :class:`~plgraph.parser.scoring.pass_scorer.PassScorer` (``n_weights``, ``1 << bits`` for the
  linear models; ``stored_arrays``);
* ``batch_gradient(model, sents, tokens, learner, rules, stats=dict, threads=int)`` returning
  a :class:`~plgraph.learn.SparseGradient` and adding its counters (search errors,
  mismatches, ...) to ``stats``;
* ``evaluate(model, read_args, corpus, rules, threads)`` returning a dict of dev scores;

and a prepared corpus with ``sents`` and ``tokens`` (:class:`~plgraph.parser.training.corpus.PreparedCorpus`).
"""
from __future__ import annotations

import functools
import time
import zlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from ...errors import InputError
from ...learn import learner_from_state, make_learner
from ...learn.learners import plain_read_args
from ...learn.loop import changed_options, read_checkpoint, refuse_resume, train_epochs, write_checkpoint
from ...learn.online import WARMUP_BATCH
from ...files.modelfile import model_errors
from ..model import CHECKPOINT_CRC_KEYS, CHECKPOINT_FORMAT, CHECKPOINT_KEYS, CHECKPOINT_VERSION, ParserFolder


@dataclass
class PassResult:
    """What :func:`train_pass` leaves: the pass's final ``weights`` (float32, as saved),
    its curve ``rows``, the ``epochs`` trained in all and ``first_epoch`` of this run
    (greater than ``epochs`` when the checkpoint had them all)."""

    name: str
    weights: np.ndarray
    rows: list
    epochs: int
    first_epoch: int


def _learner(config, n_weights: int):
    """A fresh learner of a pass: AdaGrad with the config's ``eta``, ``C`` and ``reg``."""
    return make_learner("adagrad", n_weights, eta=config.eta, C=config.C, reg=config.reg)


def option_suffix(name: str) -> str:
    """What ends the command-line options of pass ``name``'s config: ``2`` for ``pass2``
    (``--epochs2``, ``--eta2``)."""
    return name[len("pass"):] if name.startswith("pass") else f"-{name}"


def pass_conflicts(given: dict, stored: dict, suffix: str) -> list[str]:
    """The options given to a resumed run (``given``: config field -> value, only those
    given) that differ from the checkpoint's config ``stored``, as ``--<field><suffix>``
    texts (underscores as dashes); ``epochs`` is the total to reach, so it may change."""
    return [f"--{key.replace('_', '-')}{suffix} {val} (checkpoint: {old})"
            for key, val, old in changed_options({k: v for k, v in given.items() if k != "epochs"}, stored)]


def _resume_pass(folder: ParserFolder, name: str, config, n_weights: int):
    """``(learner, first_epoch, rows)`` from pass ``name``'s checkpoint in ``folder``
    (None without one).  The checkpoint's config must be ``config`` but for ``epochs``
    (else InputError naming the stored options); damaged files raise ModelFileError."""
    found = read_checkpoint(folder.path, f"checkpoint-{name}", CHECKPOINT_KEYS, None, format=CHECKPOINT_FORMAT,
                            version=CHECKPOINT_VERSION, crc_keys=CHECKPOINT_CRC_KEYS, what=f"{name} checkpoint",
                            version_what="parser checkpoint")
    if found is None:
        return None
    doc, arrays, path, npath = found
    conflicts = pass_conflicts(asdict(config), doc["config"], option_suffix(name))
    if doc.get("seed") != folder.seed:
        conflicts.append(f"--seed {folder.seed} (checkpoint: {doc.get('seed')})")
    shown = ", ".join(f"{k}={v}" for k, v in doc["config"].items())
    refuse_resume(conflicts, doc["epoch"], shown, path, what=name)
    with model_errors(npath, f"{name} checkpoint"):
        if doc["n_weights"] != n_weights or doc["model"] != name:
            raise ValueError(f"checkpoint of {doc['model']} with {doc['n_weights']} weights, expected {name} "
                             f"with {n_weights}")
        lrn = learner_from_state(doc["learner_config"], n_weights, arrays, doc["learner"])
    rows = [r for r in doc["curves"] if isinstance(r, dict) and isinstance(r.get("epoch"), int)
            and r["epoch"] <= doc["epoch"]]
    return lrn, doc["epoch"] + 1, rows


class PassTrainee:
    """One pass of the parser as a client of :func:`plgraph.learn.loop.train_epochs`
    (see the module docstring for ``batch_gradient_fn`` / ``evaluate_fn``).

    Per epoch: the record (``model`` = the pass name, epoch, loss, the counters
    ``batch_gradient_fn`` added -- search errors, mismatches, failed, not derivable --,
    seconds, and ``dev_*`` scores of the final weights as saved), then the checkpoint
    ``checkpoint-<name>-<epoch>.npz`` + ``.json`` (the learner and this pass's rows), then
    the pass's weights, ``parser.json`` and the curves (:meth:`ParserFolder.save_pass`)."""

    def __init__(self, folder: ParserFolder, name: str, model, config, lrn, train, dev, rules, batch_gradient_fn,
                 evaluate_fn, threads: int):
        self.folder, self.name, self.model, self.config, self.lrn = folder, name, model, config, lrn
        self.train, self.dev, self.rules, self.threads = train, dev, rules, threads
        self.gradient, self.evaluate_fn = batch_gradient_fn, evaluate_fn
        self.warm_up_key = getattr(batch_gradient_fn, "__code__", batch_gradient_fn)
        self.decoder = PassDecoder(batch_gradient_fn, model, train, rules, lrn, threads=threads)
        self.weights = None

    def batch_gradient(self, batch):
        return self.decoder(batch)

    def warm_up(self, scratch):
        return PassDecoder(self.gradient, self.model, self.train, self.rules, scratch)(WARMUP_BATCH)

    def replica(self):
        return functools.partial(PassDecoder, self.gradient, self.model, self.train, self.rules)

    def add_counters(self, counters: dict) -> None:
        for key, val in counters.items():
            self.decoder.stats[key] = self.decoder.stats.get(key, 0) + val

    def evaluate(self, epoch, stats) -> dict:
        record = {"model": self.name, "epoch": epoch, "loss": round(float(stats.loss), 4),
                  **self.decoder.take_counters(), "updates": stats.updates, "train_seconds": round(stats.seconds, 2)}
        self.weights = self.lrn.final_weights(np.float32)
        if self.dev is not None and self.dev.sents:
            start = time.perf_counter()
            scores = self.evaluate_fn(self.model, plain_read_args(self.weights.astype(np.float64)), self.dev,
                                      self.rules, self.threads)
            record.update({f"dev_{k}": v for k, v in scores.items()})
            record["eval_seconds"] = round(time.perf_counter() - start, 2)
        return record

    def save(self, epoch, record, history) -> None:
        arrays, scalars = self.lrn.state()
        doc = {"model": self.name, "learner": scalars, "learner_config": self.lrn.config(),
               "config": asdict(self.config), "n_weights": int(self.model.n_weights), "seed": self.folder.seed,
               "curves": [r for r in history if r.get("model") == self.name]}
        write_checkpoint(self.folder.path, f"checkpoint-{self.name}", epoch, arrays, doc, format=CHECKPOINT_FORMAT,
                         version=CHECKPOINT_VERSION, crc_keys=CHECKPOINT_CRC_KEYS, compressed=True)
        self.folder.save_pass(self.name, self.config, self.weights, epoch, history, self.model.stored_arrays())


class BatchView(Sequence):
    """The sentences ``batch`` (indices) of ``sents``, each read when indexed (from disk,
    for a corpus in shards: by the thread that decodes it)."""

    def __init__(self, sents, batch):
        self.sents, self.batch = sents, batch

    def __len__(self) -> int:
        return len(self.batch)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[j] for j in range(*k.indices(len(self)))]
        return self.sents[int(self.batch[k])]


class PassDecoder:
    """A pass's decode of a batch: the batch's sentences of ``train`` through ``gradient``
    (the pass's ``batch_gradient``) with ``learner`` in ``threads`` threads, counting into
    ``stats``.  :class:`PassTrainee` decodes with one; a Dask replica
    (:mod:`plgraph.learn.replicas`) is one too, with one thread (a worker is one core)."""

    def __init__(self, gradient, model, train, rules, learner, threads: int = 1):
        self.gradient, self.model, self.train, self.rules, self.learner = gradient, model, train, rules, learner
        self.threads = threads
        self.stats: dict = {}

    def __call__(self, batch):
        sents = BatchView(self.train.sents, batch)
        return self.gradient(self.model, sents, self.train.tokens, self.learner, self.rules, stats=self.stats,
                             threads=self.threads)

    def take_counters(self) -> dict:
        out, self.stats = self.stats, {}
        return out


def train_pass(folder: ParserFolder, name: str, model, config, train_corpus, dev_corpus, rules, batch_gradient_fn,
               evaluate_fn, resume: bool = False, threads: int = 2, progress=None, log=None,
               client=None) -> PassResult:
    """Train pass ``name`` (``model``, ``config``: see the module docstring) on
    ``train_corpus`` for ``config.epochs`` epochs in all, scoring ``dev_corpus`` (None:
    no dev scores) after each, and save every epoch into ``folder`` (:class:`PassTrainee`).

    With ``resume`` it continues from the pass's checkpoint, whose config must equal
    ``config`` but for ``epochs`` (else :class:`~plgraph.errors.InputError` naming the
    stored options); without a checkpoint it starts afresh.  When the checkpoint already
    has ``config.epochs`` epochs nothing trains, and the pass's files are rewritten from
    it if ``parser.json`` lags behind (a run killed between the two).  Training a pass
    further forgets the passes trained after it (:meth:`ParserFolder.save_pass`).  Call it
    inside :func:`plgraph.learn.loop.training_folder` (lock, Ctrl-C at safe points);
    shuffling uses ``folder.seed`` and the pass name, so a resumed run equals an
    uninterrupted one bit for bit.  ``client`` (a ``distributed.Client``): batches are
    decoded on the Dask cluster's workers (:mod:`plgraph.learn.replicas`)."""
    if not train_corpus.sents:
        raise InputError(f"{name}: no training sentence to train on")
    say = log or (lambda *_: None)
    lrn, first, rows = _learner(config, model.n_weights), 1, []
    found = _resume_pass(folder, name, config, model.n_weights) if resume else None
    if found is not None:
        lrn, first, rows = found
        say(f"{name}: resuming after epoch {first - 1}")
    history = folder.curves_without(name) + rows
    trainee = PassTrainee(folder, name, model, config, lrn, train_corpus, dev_corpus, rules, batch_gradient_fn,
                          evaluate_fn, threads)
    train_epochs(trainee, lrn, len(train_corpus.sents), epochs=config.epochs, batch_size=config.batch,
                 seed=folder.seed, first_epoch=first, history=history, rng_extra=(zlib.crc32(name.encode()),),
                 progress=progress, log=say, client=client)
    weights = trainee.weights
    if weights is None:          # nothing left to train: the checkpoint's final weights
        say(f"{name}: the checkpoint has {first - 1} epoch(s) already (epochs {config.epochs}): nothing to train")
        weights = lrn.final_weights(np.float32)
        if folder.header["passes"].get(name, {}).get("epochs") != first - 1:    # killed before parser.json
            folder.save_pass(name, config, weights, first - 1, history, model.stored_arrays())
    return PassResult(name, weights, [r for r in history if r.get("model") == name], max(first - 1, config.epochs),
                      first)



__all__ = ["PassResult", "PassTrainee", "PassDecoder", "BatchView", "train_pass", "pass_conflicts", "option_suffix"]
