"""Training the dependency parser: epochs of mini-batches, dev evaluation, checkpoints.

:func:`train` builds the model from the training sentences (label set, feature
dictionary, projectivised trees), then runs ``epochs`` passes of
:func:`plgraph.learn.run_epoch`.  Each batch's sentences are decoded in parallel
(``threads`` numba threads) with Hamming-loss-augmented scores, and the summed
subgradient goes to the learner (:mod:`plgraph.learn.learners`).

After every epoch it writes, atomically (temporary file + ``os.replace``):

* ``checkpoint-<epoch>.npz`` + ``checkpoint.json`` -- the complete training state
  (model structure, learner arrays such as AdaGrad's ``q`` and time stamps, history),
  from which ``resume=True`` continues; the previous checkpoint's ``.npz`` is deleted
  only after the new ``checkpoint.json`` points to the new one;
* ``model.json`` + ``model.npz`` -- the best model so far by dev LAS (or the last one
  without a dev set), with averaged / caught-up float32 weights; after the last epoch
  it is replaced by the pruned model (see below);
* ``log.jsonl`` -- one line per epoch (loss, dev scores, seconds); derived from the
  history in ``checkpoint.json``, so a resumed run rewrites it (a line lost to a kill
  between the checkpoint and the log comes back).

Ctrl-C stops training at the next safe point (between batches or stages): every file
on disk is either the old complete version or the new complete version.  The model
folder is locked for the run (:mod:`plgraph.files.lock`), checked writable before any work,
and the temporaries of killed runs are removed at the start.  ``resume=True`` keeps
the checkpoint's options: other options given are refused, naming the stored ones.
Model files and checkpoints carry a ``format_version`` (:data:`CHECKPOINT_VERSION`,
:data:`plgraph.dep.model.FORMAT_VERSION`); damaged ones raise
:class:`~plgraph.errors.ModelFileError`.

Pruning (Schiehlen & Spranger kept only the features that were non-null after the
first iteration; we prune after training): features whose weights are all zero never
count, and with a dev set the largest threshold on a feature's largest |weight| (tried
at the 30/45/60/70/80/85/90 % quantiles) whose dev LAS stays within ``prune_tolerance``
(0.1 points) of the best epoch's is applied to the saved model -- on EWT 85 % of the
features go at no measurable cost, and parsing gets ~35 % faster.
"""
from __future__ import annotations

import functools
import os
import time
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError, ModelFileError
from ..learn import SparseGradient, learner_from_state, make_learner
from ..learn._kernels import weight_view
from ..learn.features import FeatureTable
from ..signals import check_interrupt
from ..learn.loop import (changed_options, normal_json, read_checkpoint, refuse_resume, train_epochs, training_folder,
                          write_checkpoint, write_log)
from ..learn.online import WARMUP_BATCH
from ..files.modelfile import model_errors
from ..progress import warm_up
from . import _kernels as KN
from .evaluate import evaluate
from .features import Encoded, encode
from .model import DepConfig, DepModel, check_model_parts, kernel_sentences

#: the defaults of ``dep train`` -- the best settings found on EWT dev (first order, 5 epochs:
#: averaged PA 87.84 / 85.95, averaged perceptron 87.41 / 85.51, AdaGrad l1 as in Algorithm 1
#: 86.27 / 84.14 UAS / LAS; PA peaks after 7-8 epochs, first and second order).  PA is what
#: S&S used (their abstract: Crammer et al. 2006); their paper describes no averaging
#: -- averaging is our choice (Collins 2002, as in MSTParser), worth ~1 point here.
DEFAULT_LEARNER = "pa"
DEFAULT_LEARNER_OPTIONS = {
    "adagrad": {"eta": 0.1, "C": 1e-7, "reg": "l1", "average": False},
    "pa": {"C": None, "average": True},
    "perceptron": {"average": True},
}
DEFAULT_EPOCHS = 8
DEFAULT_BATCH = 8


PRUNE_QUANTILES = (0.3, 0.45, 0.6, 0.7, 0.8, 0.85, 0.9)
DEFAULT_PRUNE_TOLERANCE = 0.1


@dataclass
class TrainResult:
    model: DepModel
    history: list = field(default_factory=list)
    best_epoch: int = 0
    seconds: float = 0.0
    model_dir: str | None = None
    pruning: dict = field(default_factory=dict)


def _dev_scores(model, dev_sents, dev_enc):
    heads, labels = model.parse_encoded(dev_enc)
    pred = [s.with_parse(h, ls) for s, (h, ls) in zip(dev_sents, model.decode_labels(dev_enc, heads, labels))]
    return evaluate(dev_sents, pred)


def prune_on_dev(model: DepModel, dev_sents, best_las: float, tolerance: float = DEFAULT_PRUNE_TOLERANCE,
                 say=None):
    """The most pruned copy of ``model`` whose dev LAS is at least ``best_las - tolerance``
    (thresholds at :data:`PRUNE_QUANTILES` of the features' largest |weight|, all tried:
    dev LAS moves by a few hundredths from one threshold to the next, which is noise);
    returns ``(model, record)``."""
    dev_enc = model.encode(dev_sents)
    w = np.abs(model.weights[:model.n_arc_weights])
    fmax = np.maximum.reduceat(w, model.foff[:-1]) if model.n_features else np.zeros(0)
    chosen, record = model.pruned(0.0), {"threshold": 0.0, "features_before": model.n_features}
    record["features_after"] = chosen.n_features
    for q in PRUNE_QUANTILES:
        thr = float(np.quantile(fmax, q)) if fmax.size else 0.0
        cand = model.pruned(thr)
        check_interrupt()
        sc = _dev_scores(cand, dev_sents, dev_enc)
        if say:
            say(f"pruning at |w| <= {thr:.6g} ({q:.0%} quantile): {cand.n_features} features, dev UAS {sc.uas:.2f} "
                f"LAS {sc.las:.2f}")
        if sc.las < best_las - tolerance:
            continue
        chosen = cand
        record.update(threshold=thr, quantile=q, features_after=cand.n_features, dev_uas=round(sc.uas, 2),
                      dev_las=round(sc.las, 2))
    return chosen, record


def _loss(err, n, kind):
    if kind == "sqrt":      # Schiehlen & Spranger: sqrt of the labelled error rate
        return float(np.sqrt(err / max(n, 1)))
    return float(err)


class _BatchDecoder:
    """``batch_gradient`` for :func:`plgraph.learn.run_epoch`: the parallel kernel call."""

    def __init__(self, model: DepModel, enc: Encoded, learner, loss: str):
        self.model, self.enc, self.learner, self.loss = model, enc, learner, loss
        st = model.templates
        K = model.taxonomy.K
        self.per_word = (len(st.head_t) + len(st.dep_t) + len(st.pair_t)) * (K + 1)
        self.per_word_between = len(st.betw_t) * (K + 1)
        self.sib = len(st.sib_t) if model.config.order == 2 else 0
        self.pred_heads = np.full(enc.heads.shape[0], -1, np.int64)
        self.pred_labels = np.full(enc.heads.shape[0], -1, np.int64)
        self.sents = kernel_sentences(enc)
        self.tpl, self.feat = model.kernel_tables()
        cfg = model.config
        self.settings = KN.DecodeSettings(cfg.order, model.multi_root, float(cfg.cost_head), float(cfg.cost_label))
        self.errors = 0.0
        self.words = 0

    def take_counters(self) -> dict:
        """The labelled errors and words decoded since the last call (a Dask replica's
        report, :mod:`plgraph.learn.replicas`); resets them."""
        out = {"errors": self.errors, "words": self.words}
        self.errors, self.words = 0.0, 0
        return out

    def __call__(self, batch: np.ndarray) -> SparseGradient:
        enc = self.enc
        n = enc.n[batch]
        bound = 2 * n * (self.per_word + self.per_word_between * (n + 1)) + 2 * (n + 1) * self.sib + 1
        goff = np.zeros(len(batch) + 1, np.int64)
        np.cumsum(bound, out=goff[1:])
        out_idx = np.empty(int(goff[-1]), np.int64)
        out_val = np.empty(int(goff[-1]), np.float64)
        cnt = np.zeros(len(batch), np.int64)
        err = np.zeros(len(batch), np.float64)
        KN.train_batch(batch, self.sents, self.tpl, self.feat, weight_view(self.learner.read_args()),
                       self.settings, KN.TrainOutputs(goff, out_idx, out_val, cnt, err, self.pred_heads,
                                                      self.pred_labels))
        self.errors += float(err.sum())
        self.words += int(n.sum())
        if cnt.sum() == 0:
            return SparseGradient(np.zeros(0, np.int64), np.zeros(0), 0.0)
        sel = np.concatenate([np.arange(goff[k], goff[k] + cnt[k]) for k in range(len(batch)) if cnt[k]])
        loss = sum(_loss(e, k, self.loss) for e, k in zip(err, n))
        return SparseGradient(out_idx[sel], out_val[sel], loss)


def _set_threads(threads):
    import numba

    old = numba.get_num_threads()
    if threads:
        numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
    return old


#: the checkpoint format (``checkpoint.json``); files without ``format_version`` are version 1
CHECKPOINT_FORMAT = "plgraph-dep-checkpoint"
CHECKPOINT_VERSION = 1
#: what ``checkpoint.json`` must hold (key -> JSON type)
CHECKPOINT_KEYS = {"epoch": int, "npz": str, "config": dict, "labels": list, "taxonomy": dict, "multi_root": bool,
                   "learner": dict, "learner_scalars": dict, "history": list}
#: what ``checkpoint-<epoch>.npz`` must hold (the ``learner_*`` arrays are checked by the learner)
CHECKPOINT_ARRAYS = {"keys": (1, "u"), "foff": (1, "iu"), "fnode": (1, "iu"), "cpos_keys": (1, "u"),
                     "lab_off": (1, "iu"), "lab_list": (1, "iu")}
#: the fields of ``checkpoint.json`` its CRC covers (with the arrays of its .npz)
CHECKPOINT_CRC_KEYS = ("format", "format_version", "epoch", "npz", "config", "labels", "taxonomy", "multi_root",
                       "learner", "learner_scalars", "history", "best_las", "best_epoch", "batch_size", "seed",
                       "loss")
#: files ``train`` writes into the model folder (checked writable before training)
MODEL_FOLDER_FILES = ("model.json", "model.npz", "checkpoint.json", "log.jsonl")


def _write_log(model_dir, history) -> None:
    write_log(model_dir, history)


def _write_checkpoint(model_dir, epoch, model: DepModel, learner, history, meta):
    """``checkpoint-<epoch>.npz`` then ``checkpoint.json`` pointing to it (with the whole
    history: ``log.jsonl`` is derived from it), then the older ``.npz`` files go
    (:func:`plgraph.learn.loop.write_checkpoint`)."""
    arrays, scalars = learner.state()
    arrays = {"keys": model.table.keys(), "foff": model.foff, "fnode": model.fnode, "cpos_keys": model.cpos_keys,
              "lab_off": model.lab_off, "lab_list": model.lab_list, **{f"learner_{k}": v for k, v in arrays.items()}}
    doc = {"config": model.config.to_json(), "labels": model.labels,
           "taxonomy": model.taxonomy.to_json(), "multi_root": model.multi_root, "info": model.info,
           "learner": learner.config(), "learner_scalars": scalars, "history": history, **meta}
    write_checkpoint(model_dir, "checkpoint", epoch, arrays, doc, format=CHECKPOINT_FORMAT,
                     version=CHECKPOINT_VERSION, crc_keys=CHECKPOINT_CRC_KEYS)


def _read_checkpoint(model_dir):
    """``(doc, model, learner)`` from ``model_dir``'s last checkpoint.  Raises
    :class:`~plgraph.errors.ModelFileError` naming the file for a missing, damaged,
    inconsistent or other-version checkpoint."""
    from ..learn.labels import LabelTaxonomy

    model_dir = os.fspath(model_dir)
    found = read_checkpoint(model_dir, "checkpoint", CHECKPOINT_KEYS, CHECKPOINT_ARRAYS, format=CHECKPOINT_FORMAT,
                            version=CHECKPOINT_VERSION, crc_keys=CHECKPOINT_CRC_KEYS, what="training checkpoint",
                            version_what="dependency training checkpoint", check_doc=_check_history)
    if found is None:
        raise ModelFileError("no checkpoint to resume from (checkpoint.json missing)", source=model_dir)
    doc, arrays, _, npath = found
    with model_errors(npath, "training checkpoint"):
        config = DepConfig.from_json(doc["config"])
        taxonomy = LabelTaxonomy.from_json(doc["taxonomy"])
        foff = arrays["foff"].astype(np.int64)
        if foff.size == 0 or int(foff[0]) != 0:
            raise ModelFileError("array 'foff' is not an offset array from 0", source=npath)
        classes = (arrays["cpos_keys"], arrays["lab_off"], arrays["lab_list"])
        n_weights = int(foff[-1]) + ((1 << config.sib_bits) if config.order == 2 else 0)
        check_model_parts(npath, config, doc["labels"], taxonomy, arrays["keys"], np.diff(foff), arrays["fnode"],
                          classes, n_weights)
        model = DepModel(config, doc["labels"], taxonomy, FeatureTable.from_keys(arrays["keys"]), foff,
                         arrays["fnode"], classes, doc["multi_root"], info=doc.get("info"))
        learner = learner_from_state(doc["learner"], model.n_weights,
                                     {k[8:]: v for k, v in arrays.items() if k.startswith("learner_")},
                                     doc["learner_scalars"])
    return doc, model, learner


def _check_history(doc, path) -> None:
    """The checkpoint's history: one record (a JSON object) per epoch 1..epoch."""
    epochs = [r.get("epoch") if isinstance(r, dict) else None for r in doc["history"]]
    if doc["epoch"] < 1 or epochs != list(range(1, doc["epoch"] + 1)):
        raise ModelFileError(f"checkpoint of epoch {doc['epoch']} has a history of epochs {epochs[:20]}", source=path)


_normal = normal_json


def _options_text(doc) -> str:
    """The options stored in a checkpoint, as command-line options."""
    cfg, lrn = doc["config"], doc["learner"]
    parts = [f"--{k.replace('_', '-')} {cfg[k]}" for k in ("order", "root", "pseudo_projective", "label_constraint")
             if k in cfg]
    kind = lrn.get("kind")
    parts.append(f"--learner {kind}")
    for key, val in lrn.items():
        if key == "average":
            if bool(val) != (kind != "adagrad"):       # shown only when not the learner's default
                parts.append("--average" if val else "--no-average")
        elif key not in ("kind", "delta") and val is not None:
            parts.append(f"--{key} {val}")
    parts += [f"--{k.replace('_', '-')} {doc[k]}" for k in ("batch_size", "seed") if k in doc]
    return " ".join(parts)


def resume_conflicts(doc, config=None, learner=None, learner_options=None, batch_size=None, seed=None) -> list[str]:
    """The options given to a resumed :func:`train` that differ from those the
    checkpoint ``doc`` was trained with (None / missing = not given, i.e. keep)."""
    out = []
    if config is not None:
        given = config.to_json() if isinstance(config, DepConfig) else dict(config)
        for key, val, stored in changed_options(given, doc["config"]):
            shown = "(other templates)" if key in ("templates", "sib_templates") else val
            out.append(f"--{key.replace('_', '-')} {shown} (checkpoint: "
                       f"{'(other templates)' if key.endswith('templates') else stored})")
    stored_lrn = doc["learner"]
    if learner is not None and learner != stored_lrn.get("kind"):
        out.append(f"--learner {learner} (checkpoint: {stored_lrn.get('kind')})")
    elif learner_options:
        for key, val, stored in changed_options(learner_options, stored_lrn, missing_differs=True):
            if key in stored_lrn:
                out.append(f"--{key} {val} (checkpoint: {stored})")
            else:
                out.append(f"--{key} {val} (the checkpoint's {stored_lrn.get('kind')} learner has no {key})")
    for key, val in (("batch_size", batch_size), ("seed", seed)):
        if val is not None and key in doc and val != doc[key]:
            out.append(f"--{key.replace('_', '-')} {val} (checkpoint: {doc[key]})")
    return out


def train(train_sents, dev_sents=None, model_dir=None, config: DepConfig | dict | None = None, *,
          learner: str | None = None, learner_options: dict | None = None, epochs: int = DEFAULT_EPOCHS,
          batch_size: int | None = None, threads: int | None = None, seed: int | None = None, loss: str = "hamming",
          prune_tolerance: float | None = DEFAULT_PRUNE_TOLERANCE, resume: bool = False, progress: bool | None = None,
          log=None, on_epoch=None, name: str = "dependency parser", conversion: dict | None = None,
          client=None) -> TrainResult:
    """Train a parser.

    Parameters
    ----------
    train_sents, dev_sents : lists of DepSentence
        Training trees (projectivised internally) and optional dev trees (scored
        against the original trees after every epoch; the best epoch is kept).
    model_dir : path, optional
        Folder for the model, checkpoints and log (nothing is written without it).  It
        is locked for the run (:mod:`plgraph.files.lock`: a second run into the same folder
        fails at once), checked writable before any work, and cleared of the
        temporary files of killed runs.
    config : DepConfig, or a dict of DepConfig fields
        Features and decoding (order, root mode, templates, ...); a dict gives only
        some fields (the others: defaults, or the checkpoint's when resuming).
    learner, learner_options :
        ``"pa"`` (default; ``C``, ``average``), ``"adagrad"`` (``eta``, ``C``, ``reg``,
        ``average``) or ``"perceptron"`` (``average``); missing options take
        :data:`DEFAULT_LEARNER_OPTIONS`.
    batch_size, threads, seed :
        Sentences per update (default :data:`DEFAULT_BATCH`); numba threads decoding a
        batch in parallel; shuffling seed (default 0).
    loss : {"hamming", "sqrt"}
        Margin used by PA: Hamming errors, or S&S's sqrt of the error rate.
    prune_tolerance : float or None
        With a dev set, prune the final model as far as dev LAS stays within this many
        points of the best epoch (None: only drop all-zero features).
    resume : bool
        Continue from ``model_dir``'s last checkpoint up to ``epochs`` epochs, with the
        checkpoint's options: options given here (not None) that differ from them are
        an :class:`~plgraph.errors.InputError` listing the stored options.  The log is
        rewritten from the checkpoint's history first (a line lost to a kill after the
        checkpoint comes back).
    log : callable, optional
        Called with one line of text per event (default: silent).
    on_epoch : callable, optional
        Called with each epoch's record (a dict), e.g. to plot live.
    name : str
        What the progress bars call the model ("<name> epoch 2/4"; the graph parser's
        arc pass passes "arc pass").  The kernels are compiled on one sentence before
        epoch 1 is timed (:func:`plgraph.learn.online.warm_up`), so ``train_seconds``
        never counts numba's compiler.
    conversion : dict, optional
        The tree-to-graph conversion options the sentences come from (head rules,
        null reversal, gapping shift: :class:`plgraph.convert.ConversionOptions` as a
        dict), recorded as ``info["conversion"]`` in ``model.json`` and the
        checkpoint (a resumed run keeps the checkpoint's).  None (the default: CoNLL
        data is no conversion of ours) records nothing -- no ``conversion`` key, so
        such model folders are byte for byte what they were before the key existed.
    client : distributed.Client, optional
        Decode each batch on the Dask cluster's workers (:mod:`plgraph.learn.replicas`):
        the same weights as in one process, bitwise for PA and the perceptron.

    Ctrl-C (SIGINT) is deferred to the next safe point (between batches or stages,
    :mod:`plgraph.signals`) and raises ``KeyboardInterrupt`` there; the files
    on disk are then those of the last complete epoch.  The epochs run in
    :func:`plgraph.learn.loop.train_epochs`.
    """
    if not isinstance(epochs, (int, np.integer)) or epochs < 1:
        raise InputError(f"epochs must be a positive integer, got {epochs!r}")
    if batch_size is not None and (not isinstance(batch_size, (int, np.integer)) or batch_size < 1):
        raise InputError(f"batch_size must be a positive integer, got {batch_size!r}")
    if resume and model_dir is None:
        raise ValueError("resume needs model_dir")
    with training_folder(model_dir, MODEL_FOLDER_FILES):
        return _train(train_sents, dev_sents, model_dir, config, learner, learner_options, epochs, batch_size,
                      threads, seed, loss, prune_tolerance, resume, progress, log, on_epoch, name, conversion,
                      client)


def _resume_state(model_dir, train_sents, config, learner, learner_options, batch_size, seed, say, conversion=None):
    """What a resumed run starts from: the checkpoint, its options checked against
    the given ones (and the given ``conversion`` options against those the checkpoint
    records, if both are known), the training data encoded with the checkpoint's labels."""
    from .projective import projectivise_corpus

    doc, model, lrn = _read_checkpoint(model_dir)
    conflicts = resume_conflicts(doc, config, learner, learner_options, batch_size, seed)
    stored = (doc.get("info") or {}).get("conversion") if isinstance(doc.get("info"), dict) else None
    if conversion is not None and stored is not None and normal_json(conversion) != normal_json(stored):
        conflicts.append(f"sentences converted with {conversion} (checkpoint: {stored})")
    refuse_resume(conflicts, doc["epoch"],
                  _options_text(doc), os.path.join(os.fspath(model_dir), "checkpoint.json"))
    hl = [np.concatenate([[-1], s.heads]) for s in train_sents]
    ll = [["<root>"] + s.deprels for s in train_sents]
    ph, pl, _ = projectivise_corpus(hl, ll, model.config.pseudo_projective)
    enc = encode(train_sents, model.label_index, ph, pl)
    _write_log(model_dir, doc["history"])
    say(f"resuming after epoch {doc['epoch']} from {model_dir} (options: {_options_text(doc)})")
    return doc, model, lrn, enc


class _DepTrainee:
    """The dependency parser as a client of :func:`plgraph.learn.loop.train_epochs`:
    per epoch, the training error rate, dev scores (the best epoch by dev LAS is kept),
    the best model (``model.json`` / ``model.npz``), the checkpoint and ``log.jsonl``."""

    def __init__(self, model, enc, lrn, loss, dev_sents, dev_enc, model_dir, name, best, best_epoch, meta, clock):
        self.model, self.enc, self.lrn, self.loss = model, enc, lrn, loss
        self.dev_sents, self.dev_enc, self.model_dir, self.name = dev_sents, dev_enc, model_dir, name
        self.best, self.best_epoch, self.best_weights = best, best_epoch, None
        self.meta, self.clock = meta, clock          # batch_size, seed, ...; clock() = seconds so far
        self.decoder = _BatchDecoder(model, enc, lrn, loss)
        self.weights, self.improved = None, False

    def batch_gradient(self, batch):
        return self.decoder(batch)

    def warm_up(self, scratch):
        return _BatchDecoder(self.model, self.enc, scratch, self.loss)(WARMUP_BATCH)

    def replica(self):
        return functools.partial(_BatchDecoder, self.model, self.enc, loss=self.loss)

    def add_counters(self, counters: dict) -> None:
        self.decoder.errors += float(counters.get("errors", 0.0))
        self.decoder.words += int(counters.get("words", 0))

    def evaluate(self, epoch, stats) -> dict:
        model, dec = self.model, self.decoder
        t_eval = time.perf_counter()
        weights = self.lrn.final_weights(np.float32)
        record = {"epoch": epoch, "loss": round(stats.loss, 4), "train_errors_pct":
                  round(100 * dec.errors / max(dec.words, 1), 3), "updates": stats.updates,
                  "train_seconds": round(stats.seconds, 2), "nonzero_weights": int(np.count_nonzero(weights))}
        dec.errors, dec.words = 0.0, 0
        improved = self.dev_sents is None
        if self.dev_sents:
            model.weights = weights
            sc = _dev_scores(model, self.dev_sents, self.dev_enc)
            record.update({f"dev_{k}": v for k, v in sc.as_dict().items() if k != "sentences"})
            improved = sc.las > self.best
            if improved:
                self.best, self.best_epoch = sc.las, epoch
        record["eval_seconds"] = round(time.perf_counter() - t_eval, 2)
        self.weights, self.improved = weights, improved
        return record

    def save(self, epoch, record, history) -> None:
        model, lrn = self.model, self.lrn
        elapsed = self.clock()
        if self.model_dir is not None:
            if self.improved:
                model.weights = self.weights
                sizes = model.save(self.model_dir, {"epoch": epoch, "train_seconds_total": round(elapsed, 1),
                                                    "learner": lrn.config(), "batch_size": self.meta["batch_size"],
                                                    "seed": self.meta["seed"], "history": history})
                record["model_bytes"] = sizes["model.npz"] + sizes["model.json"]
            _write_checkpoint(self.model_dir, epoch, model, lrn, history,
                              {"best_las": self.best, "best_epoch": self.best_epoch, "seconds": elapsed, **self.meta})
            _write_log(self.model_dir, history)
        if self.improved:
            self.best_weights = self.weights


def _train(train_sents, dev_sents, model_dir, config, learner, learner_options, epochs, batch_size, threads,
           seed, loss, prune_tolerance, resume, progress, log, on_epoch, name="dependency parser",
           conversion=None, client=None) -> TrainResult:
    say = log or (lambda *_: None)
    start = time.perf_counter()
    old_threads = _set_threads(threads)
    try:
        if resume:
            doc, model, lrn, enc = _resume_state(model_dir, train_sents, config, learner, learner_options,
                                                 batch_size, seed, say, conversion)
            history = list(doc["history"])
            first_epoch = doc["epoch"] + 1
            best = doc.get("best_las", -1.0)
            best_epoch = doc.get("best_epoch", 0)
            elapsed0 = doc.get("seconds", 0.0)
            batch_size = doc.get("batch_size", batch_size or DEFAULT_BATCH)
            seed = doc.get("seed", seed or 0)
            if first_epoch > epochs:
                say(f"the checkpoint has {doc['epoch']} epochs already (--epochs {epochs}): nothing to train")
        else:
            if not isinstance(config, DepConfig):
                config = DepConfig(**(config or {}))
            learner = learner or DEFAULT_LEARNER
            batch_size = batch_size or DEFAULT_BATCH
            seed = 0 if seed is None else seed
            t0 = time.perf_counter()
            model, enc, report = DepModel.build(train_sents, config, progress=progress)
            if conversion is not None:
                model.info["conversion"] = conversion
            opts = dict(DEFAULT_LEARNER_OPTIONS.get(learner, {}))
            opts.update(learner_options or {})
            lrn = make_learner(learner, model.n_weights, **opts)
            history = []
            first_epoch = 1
            best, best_epoch = -1.0, 0
            elapsed0 = 0.0
            say(f"{len(train_sents)} training sentences, {int(enc.n.sum())} words; projectivisation: {report}")
            say(f"{len(model.labels)} labels, {model.n_features} features, {model.n_weights} weights "
                f"({'multi' if model.multi_root else 'single'}-root, order {model.config.order}); "
                f"built in {time.perf_counter() - t0:.1f} s")
        check_interrupt()
        dev_enc = model.encode(dev_sents) if dev_sents else None
        if dev_sents:
            # compile the parsing kernels of the dev evaluation now, announced, not inside epoch 1's eval
            warm_up(("dep-parse", model.config.order, model.multi_root),
                    lambda: model.parse_encoded(dev_enc, sents=[0], weights=lrn.final_weights(np.float32)),
                    f"{name} (dev parsing)", progress)
        trainee = _DepTrainee(model, enc, lrn, loss, dev_sents, dev_enc, model_dir, name, best, best_epoch,
                              {"batch_size": batch_size, "seed": seed, "loss": loss},
                              lambda: elapsed0 + time.perf_counter() - start)
        train_epochs(trainee, lrn, len(enc), epochs=epochs, batch_size=batch_size, seed=seed,
                     first_epoch=first_epoch, history=history, progress=progress, log=say, on_epoch=on_epoch,
                     client=client)
        best_epoch, best_weights = trainee.best_epoch, trainee.best_weights
        pruning = {}
        if best_weights is not None:
            model.weights = best_weights
        elif model_dir is not None and os.path.exists(os.path.join(model_dir, "model.json")):
            model = DepModel.load(model_dir)       # resumed after the last epoch
            pruning = dict(model.info.get("pruning") or {})
        if dev_sents and prune_tolerance is not None and best_epoch and not pruning:
            best_las = next(r["dev_las"] for r in history if r["epoch"] == best_epoch)
            model, pruning = prune_on_dev(model, dev_sents, best_las, prune_tolerance, say)
            if model_dir is not None:
                best_rec = next(r for r in history if r["epoch"] == best_epoch)
                model.save(model_dir, {"epoch": best_epoch, "pruning": pruning, "history": history,
                                       "train_seconds_total": round(elapsed0 + time.perf_counter() - start, 1),
                                       "learner": lrn.config(), "batch_size": batch_size, "seed": seed,
                                       "dev_uas": best_rec.get("dev_uas"), "dev_las": best_rec.get("dev_las")})
                model = DepModel.load(model_dir)
        return TrainResult(model, history, best_epoch, elapsed0 + time.perf_counter() - start,
                           os.fspath(model_dir) if model_dir is not None else None, pruning)
    finally:
        _set_threads(old_threads) if threads else None
