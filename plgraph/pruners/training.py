"""Training the three coarse models (:func:`train_pruners`).

:func:`train_pruners` trains, on the train split, the projective arc pass, the trace
classifier and the spine classifier with the online primal subgradient + AdaGrad
learner (hyperparameters of the reference parser's released configurations as
defaults: :class:`~plgraph.pruners.model.PrunerConfig`), logs per-epoch training curves,
checkpoints every epoch (``resume=True`` continues), then tunes the pruning thresholds on
dev (:func:`plgraph.pruners.measure.tune_thresholds`: 99% of gold structural edges and
99.5% of gold spines kept, as the thesis did; the trace thresholds default to the released
ones, 0.011 and 0.067) and saves everything as ``.npz`` + JSON.
"""
from __future__ import annotations

import functools
import json
import os
import time
from dataclasses import asdict

import numpy as np

from ..learn import learner_from_state, make_learner
from ..signals import check_interrupt
from ..learn.loop import (BoundGradient, changed_options, conversion_record, read_checkpoint, refuse_resume,
                          train_epochs, training_folder, write_checkpoint, write_curves)
from ..learn.online import WARMUP_BATCH
from ..files.modelfile import load_json, model_errors
from .classifiers import SpineClassifier, TraceClassifier, encode
from .data import Vocabulary, WordNormaliser, sentence_data
from .measure import spine_accuracy, trace_prf, tune_thresholds
from .model import PrunerConfig, Pruners, Thresholds

#: version of the classifiers' ``checkpoint-<name>.json`` (files without it: 1)
CHECKPOINT_VERSION = 1
def _log_curves(folder, curves) -> None:
    write_curves(folder, curves)


CHECKPOINT_FORMAT = "plgraph-pruners-checkpoint"


class _ClassifierTrainee:
    """A trace or spine classifier as a client of :func:`plgraph.learn.loop.train_epochs`.

    ``gradient(learner, batch)`` is the classifier's loss-augmented batch gradient and
    ``evaluate_weights(w)`` its dev scores (a dict) under weights ``w``.  After each
    epoch: the checkpoint ``checkpoint-<name>-<epoch>.npz`` + ``checkpoint-<name>.json``
    (pointing to it, with this model's curve rows, so the curves are derivable from it),
    then the curves of all models."""

    def __init__(self, short, lrn, gradient, evaluate_weights, folder, batch, seed, conversion=None):
        self.short, self.name, self.conversion = short, f"{short} classifier", conversion
        self.lrn, self.gradient, self.evaluate_weights = lrn, gradient, evaluate_weights
        self.folder, self.batch, self.seed = folder, batch, seed
        self.warm_up_key = getattr(gradient, "__code__", gradient)     # spine and trace compile different kernels

    def batch_gradient(self, batch):
        return self.gradient(self.lrn, batch)

    def warm_up(self, scratch):
        return self.gradient(scratch, WARMUP_BATCH)

    def replica(self):
        return functools.partial(BoundGradient, self.gradient)

    def add_counters(self, counters: dict) -> None:
        """The classifiers count nothing per batch."""

    def evaluate(self, epoch, stats) -> dict:
        record = {"model": self.short, "epoch": epoch, "loss": stats.loss, "train_seconds": round(stats.seconds, 2)}
        record.update(self.evaluate_weights(self.lrn.final_weights(np.float64)))
        return record

    def save(self, epoch, record, history) -> None:
        if self.folder is None:
            return
        lrn, name = self.lrn, self.short
        arrays, scalars = lrn.state()
        doc = {"model": name, "learner": scalars, "config": lrn.config(), "n_weights": int(lrn.w.shape[0]),
               "batch": self.batch, "seed": self.seed, "curves": [r for r in history if r.get("model") == name],
               "conversion": self.conversion}
        write_checkpoint(self.folder, f"checkpoint-{name}", epoch, arrays, doc, format=CHECKPOINT_FORMAT,
                         version=CHECKPOINT_VERSION, crc_keys=_CHECKPOINT_CRC_KEYS + ("conversion",), compressed=True)
        _log_curves(self.folder, history)


def _train_classifier(name, lrn, gradient, evaluate_weights, n_items, epochs, batch, seed, folder, curves, log,
                      progress, first_epoch=1, conversion=None, client=None):
    """Epochs ``first_epoch..epochs`` of classifier ``name`` (see :class:`_ClassifierTrainee`);
    its curve rows are appended to ``curves``.  Shuffled with ``[seed, epoch, len(name)]``.
    ``client``: batches decoded on a Dask cluster (:mod:`plgraph.learn.replicas`)."""
    trainee = _ClassifierTrainee(name, lrn, gradient, evaluate_weights, folder, batch, seed, conversion)
    train_epochs(trainee, lrn, n_items, epochs=epochs, batch_size=batch, seed=seed, first_epoch=first_epoch,
                 history=curves, rng_extra=(len(name),), progress=progress, log=log, client=client)


#: what a classifier's ``checkpoint-<name>.json`` must hold
_CHECKPOINT_KEYS = {"epoch": int, "learner": dict, "config": dict}
#: the fields of a classifier's checkpoint JSON its CRC covers (with its .npz), and ``conversion``
#: when present (checkpoints written before it was recorded have none)
_CHECKPOINT_CRC_KEYS = ("format", "format_version", "model", "epoch", "npz", "learner", "config", "n_weights",
                        "batch", "seed", "curves")


def _resume_learner(folder, name, expected, batch=None, seed=None, old_curves=(), conversion=None):
    """``(learner, first_epoch, curve_rows)`` from ``folder``'s checkpoint of
    classifier ``name`` (``(None, 1, [])`` without one).  ``expected`` is a fresh
    learner of the current configuration: the checkpoint must match its options,
    weight count, ``batch``, ``seed`` and the training graphs' ``conversion`` options
    (when the checkpoint records them), else InputError naming the stored ones.
    Damaged files raise ModelFileError."""
    found = None
    if folder is not None:
        path = os.path.join(folder, f"checkpoint-{name}.json")
        keys = _CHECKPOINT_CRC_KEYS + (("conversion",) if _json_has(path, "conversion") else ())
        found = read_checkpoint(folder, f"checkpoint-{name}", _CHECKPOINT_KEYS, None, format=CHECKPOINT_FORMAT,
                                version=CHECKPOINT_VERSION, crc_keys=keys,
                                what=f"{name} classifier checkpoint", version_what="pruner checkpoint",
                                default_npz=f"checkpoint-{name}.npz")
    if found is None:
        return None, 1, []
    doc, arrays, path, npath = found
    stored, want = doc["config"], expected.config()
    conflicts = [f"{k} {new} (checkpoint: {old})"
                 for k, new, old in changed_options({k: v for k, v in want.items() if k != "kind"}, stored,
                                                    missing_differs=True)]
    if stored.get("kind") != want["kind"]:
        conflicts.insert(0, f"learner {want['kind']} (checkpoint: {stored.get('kind')})")
    for key, val in (("n_weights", int(expected.w.shape[0])), ("batch", batch), ("seed", seed)):
        if val is not None and key in doc and doc[key] != val:
            conflicts.append(f"{'weights (2**bits)' if key == 'n_weights' else key} {val} (checkpoint: {doc[key]})")
    if "conversion" in doc and doc["conversion"] != conversion:
        conflicts.append(f"graphs converted with {conversion} (checkpoint: {doc['conversion']})")
    shown = ", ".join(f"{k}={v}" for k, v in stored.items())
    refuse_resume(conflicts, doc["epoch"], shown + (f", batch={doc['batch']}, seed={doc['seed']}" if "batch" in doc
                                                    else ""), path, what=f"{name} classifier",
                  advice=f"Resume with the same --{name}-* options, or train into a new folder")
    with model_errors(npath, f"{name} classifier checkpoint"):
        lrn = learner_from_state(stored, int(expected.w.shape[0]), arrays, doc["learner"])
    rows = doc.get("curves")
    if not isinstance(rows, list):      # checkpoints written before the curves went into them
        rows = [r for r in old_curves if isinstance(r, dict) and r.get("model") == name]
    rows = [r for r in rows if isinstance(r, dict) and isinstance(r.get("epoch"), int) and r["epoch"] <= doc["epoch"]]
    return lrn, doc["epoch"] + 1, rows


def _json_has(path, key) -> bool:
    """Whether the JSON object in ``path`` has ``key`` (False if it cannot be read:
    reading it properly then reports the damage)."""
    try:
        with open(path, encoding="utf-8") as handle:
            doc = json.load(handle)
    except (OSError, ValueError):
        return False
    return isinstance(doc, dict) and key in doc


def _arc_row(rec) -> dict:
    """A training-curve row of the arc pass from a dependency-training epoch record."""
    row = {"model": "arc", "epoch": rec["epoch"], "loss": rec["loss"], "train_seconds": rec["train_seconds"]}
    row.update({k: v for k, v in rec.items() if k.startswith("dev_")})
    return row


def _resumed_arc_rows(arc_dir) -> list:
    """The arc pass's curve rows of the epochs in its checkpoint (its history)."""
    path = os.path.join(arc_dir, "checkpoint.json")
    if not os.path.exists(path):
        return []
    doc = load_json(path, {"history": list}, "arc pass checkpoint")
    with model_errors(path, "arc pass checkpoint"):
        return [_arc_row(r) for r in doc["history"]]


#: files :func:`train_pruners` writes into its folder (checked writable before training)
PRUNERS_FILES = ("pruners.json", "trace.npz", "spine.npz", "curves.json", "curves.csv", "checkpoint-spine.json",
                 "checkpoint-trace.json")


def train_pruners(train_graphs, dev_graphs, model_dir=None, config: PrunerConfig | None = None, *,
                  resume: bool = False, progress=None, log=None, client=None) -> Pruners:
    """Train the three coarse models on ``train_graphs``, tune thresholds on ``dev_graphs``.

    With ``model_dir``: the folder (and its ``arc`` subfolder) is checked writable before
    any work, locked for the run (:mod:`plgraph.files.lock`; a second run into it fails at
    once) and cleared of the temporaries of killed runs.  ``resume=True`` continues each
    model from its checkpoint, whose options must match ``config`` (else InputError);
    the training curves are rebuilt from the checkpoints.  Ctrl-C stops at the next
    safe point (:mod:`plgraph.signals`).  Every model's epochs run in
    :func:`plgraph.learn.loop.train_epochs`.

    The conversion options the graphs were made with (head rules, null reversal,
    gapping shift: ``Graph.options``) are recorded in ``pruners.json`` and in the arc
    model's ``model.json`` (``info["conversion"]``), and are :attr:`Pruners.conversion`;
    graphs of different options are an :class:`~plgraph.errors.InputError`.

    ``client`` (a ``distributed.Client``): the three models' batches are decoded on the
    Dask cluster's workers (:mod:`plgraph.learn.replicas`), giving the weights of one
    process (to rounding: they learn with AdaGrad)."""
    with training_folder(model_dir, PRUNERS_FILES, ("arc",), "pruner model folder"):
        return _train_pruners(train_graphs, dev_graphs, model_dir, config, resume, progress, log, client)


def _train_pruners(train_graphs, dev_graphs, model_dir, config, resume, progress, log, client=None) -> Pruners:
    from ..dep.train import train as train_dep
    from .arcpass import ARC_CONFIG, ArcPass, dep_sentence

    cfg = config or PrunerConfig()
    say = log or (lambda *_: None)
    conversion = conversion_record(train_graphs)
    tr = [sentence_data(g) for g in train_graphs]
    dv = [sentence_data(g) for g in dev_graphs]
    norm = WordNormaliser.fit([w for s in tr for w in s.words])
    tags = Vocabulary([t for s in tr for t in s.tags], unk="<UNK>").freeze()
    etr, edv = encode(tr, norm, tags), encode(dv, norm, tags)
    curves: list = []
    old_curves: list = []      # curves.json of a run whose checkpoints predate the curves in them
    if resume and model_dir is not None and os.path.exists(os.path.join(model_dir, "curves.json")):
        try:
            with open(os.path.join(model_dir, "curves.json"), encoding="utf-8") as handle:
                old_curves = json.load(handle)
        except (OSError, ValueError):
            old_curves = []
        old_curves = old_curves if isinstance(old_curves, list) else []
    start = time.perf_counter()

    def resumed(name, fresh, batch):
        if not resume:
            return fresh, 1
        lrn, first, rows = _resume_learner(model_dir, name, fresh, batch, cfg.seed, old_curves, conversion)
        curves.extend(rows)
        if lrn is not None:
            say(f"{name} classifier: resuming after epoch {first - 1}")
        return lrn or fresh, first

    # spine classifier
    spine = SpineClassifier.build(tr, tags, cfg.spine_bits)
    gold_sp, dev_sp = spine.gold_array(tr), spine.gold_array(dv)
    lrn, first = resumed("spine", make_learner("adagrad", spine.n_weights, eta=cfg.spine_eta, C=cfg.spine_C,
                                               reg=cfg.spine_reg), cfg.spine_batch)
    say(f"spine classifier: {len(spine.labels)} spines, {np.mean(np.diff(spine.cand_off)):.1f} candidates per tag")
    _train_classifier("spine", lrn, lambda learner, b: spine.batch_gradient(learner, etr, gold_sp, b),
                      lambda w: {"dev_spine_acc": round(spine_accuracy(spine, w, edv, dev_sp), 2)},
                      len(tr), cfg.spine_epochs, cfg.spine_batch, cfg.seed, model_dir, curves, say, progress, first,
                      conversion, client)
    spine_w = lrn.final_weights(np.float64)

    # trace classifier
    trace = TraceClassifier.build(tr, tags, cfg.trace_bits)
    gold_tr = trace.gold_arrays(tr)
    lrn, first = resumed("trace", make_learner("adagrad", trace.n_weights, eta=cfg.trace_eta, C=cfg.trace_C,
                                               reg=cfg.trace_reg), cfg.trace_batch)
    say(f"trace classifier: {len(trace.labels) - 1} trace types, {int(trace.allowed.sum())} (POS pair, type) candidates")
    _train_classifier("trace", lrn, lambda learner, b: trace.batch_gradient(learner, etr, gold_tr, b),
                      lambda w: trace_prf(trace, w, edv, dv), len(tr), cfg.trace_epochs, cfg.trace_batch, cfg.seed,
                      model_dir, curves, say, progress, first, conversion, client)
    trace_w = lrn.final_weights(np.float64)

    # arc pass (plgraph.dep)
    arc_dir = os.path.join(model_dir, "arc") if model_dir is not None else None
    resume_arc = resume and arc_dir is not None and os.path.exists(os.path.join(arc_dir, "checkpoint.json"))
    if resume_arc:
        curves.extend(_resumed_arc_rows(arc_dir))

    def on_epoch(rec):
        curves.append(_arc_row(rec))
        _log_curves(model_dir, curves)

    res = train_dep([dep_sentence(s, norm) for s in tr], [dep_sentence(s, norm) for s in dv], arc_dir, ARC_CONFIG,
                    learner="adagrad", learner_options={"eta": cfg.arc_eta, "C": cfg.arc_C, "reg": cfg.arc_reg},
                    epochs=cfg.arc_epochs, batch_size=cfg.arc_batch, threads=cfg.threads, seed=cfg.seed,
                    resume=resume_arc, progress=progress, log=say, on_epoch=on_epoch, name="arc pass",
                    conversion=conversion, client=client)
    check_interrupt()
    pr = Pruners(norm, tags, trace, trace_w, spine, spine_w, ArcPass(res.model),
                 Thresholds(trace_prob=cfg.trace_prob, trace_rank=cfg.trace_rank), cfg, curves, conversion)
    say(f"tuning the pruning thresholds on dev ({len(dv)} sentences: inside-outside of the arc pass, "
        f"then the trace and spine classifiers)…")
    pr.thresholds = tune_thresholds(pr, dv)
    say(f"thresholds tuned on dev: {asdict(pr.thresholds)}; trained in {time.perf_counter() - start:.0f} s")
    if model_dir is not None:
        _log_curves(model_dir, curves)
        pr.save(model_dir)
    return pr
