"""Training, tuning, applying and measuring the three coarse models.

:func:`train_pruners` trains, on the train split, the projective arc pass, the
trace classifier and the spine classifier with the online primal subgradient +
AdaGrad learner (hyperparameters of the released configurations, design notes
§5.4, as defaults), logs per-epoch training curves, checkpoints every epoch
(``resume=True`` continues), then tunes the pruning thresholds on dev and saves
everything as ``.npz`` + JSON.  :class:`Pruners` applies the models to a
sentence (:meth:`Pruners.prune`, the arrays the full pass consumes) and
:func:`pruning_stats` measures kept fractions against gold recall.

Pruning semantics (§5.1): an arc or chart cell is kept iff its max-marginal
``m > min + ratio * (max - min)`` (max = best tree, min = smallest finite arc
max-marginal); a trace (pair, type) iff its probability exceeds ``trace_prob``
and its score is in the sentence's top ``trace_rank`` fraction of trace scores;
a spine iff its probability exceeds ``spine_prob``.  Thresholds are tuned on dev
to keep 99% of gold structural edges and 99.5% of gold spines, as the seed did;
the trace thresholds default to the released ones (0.011, 0.067).
"""
from __future__ import annotations

import functools
import json
import os
import time
from dataclasses import asdict, dataclass

import numpy as np

from ..atomic import atomic_json, atomic_savez_compressed
from ..errors import ModelFileError
from ..learn import learner_from_state, make_learner
from ..learn.interrupts import check_interrupt
from ..learn.loop import (BoundGradient, changed_options, conversion_record, read_checkpoint, refuse_resume,
                          train_epochs, training_folder, write_checkpoint, write_curves)
from ..learn.online import WARMUP_BATCH
from ..modelfile import (check_array, check_crc32, check_index_range, check_keys, check_offsets, content_crc32,
                         load_header, load_json, load_npz, model_errors)
from .classifiers import SpineClassifier, TraceClassifier, encode
from .data import SentenceData, Vocabulary, WordNormaliser, sentence_data

FORMAT = "plgraph-pruners"
#: version of ``pruners.json`` (``format_version``; older files: ``version`` or nothing = 1)
FORMAT_VERSION = 1
#: version of the classifiers' ``checkpoint-<name>.json`` (files without it: 1)
CHECKPOINT_VERSION = 1


@dataclass
class PrunerConfig:
    """Hyperparameters (defaults: the released configurations, notes §5.4) and targets."""

    spine_epochs: int = 8
    spine_batch: int = 10
    spine_eta: float = 0.01
    spine_C: float = 1e-5
    spine_reg: str = "l2"
    trace_epochs: int = 6
    trace_batch: int = 10
    trace_eta: float = 0.03
    trace_C: float = 1e-8
    trace_reg: str = "l1"
    arc_epochs: int = 4
    arc_batch: int = 20
    arc_eta: float = 0.005
    arc_C: float = 1e-5
    arc_reg: str = "l1"
    trace_bits: int = 22
    spine_bits: int = 21
    arc_recall: float = 0.99
    spine_recall: float = 0.995
    trace_prob: float = 0.011
    trace_rank: float = 0.067
    seed: int = 0
    threads: int | None = None


@dataclass
class Thresholds:
    arc_ratio: float = 0.5
    spine_prob: float = 0.019
    trace_prob: float = 0.011
    trace_rank: float = 0.067


@dataclass
class PrunedSentence:
    """What the full 1EC pass consumes for one sentence (positions: words 1..n, 0 = ROOT).

    ``arcs``: (k, 3) int array (child, parent, index into ``arc_mm``) of kept arcs;
    ``arc_mm``: the kept arcs' max-marginals; ``cells``: (n+1, n+1) bool, kept chart
    cells over positions with ROOT at 0; ``traces``: (k, 3) (child, parent, trace-type
    id) kept trace candidates with ``trace_prob``; ``spines``: per word, the kept spine
    label ids, most probable first, with ``spine_prob``."""

    id: str
    arcs: np.ndarray
    arc_mm: np.ndarray
    cells: np.ndarray
    traces: np.ndarray
    trace_prob: np.ndarray
    spines: list
    spine_prob: list


_atomic_json = atomic_json
_atomic_npz = atomic_savez_compressed


def keep_threshold(mm: np.ndarray, best: float, ratio: float) -> float:
    finite = mm[np.isfinite(mm)]
    lo = float(finite.min()) if finite.size else best
    return lo + ratio * (best - lo)


class Pruners:
    """The three coarse models, their vocabularies and thresholds."""

    def __init__(self, normaliser, tags, trace, trace_w, spine, spine_w, arc, thresholds, config, curves=None,
                 conversion=None):
        self.normaliser: WordNormaliser = normaliser
        self.tags: Vocabulary = tags
        self.trace: TraceClassifier = trace
        self.trace_w = trace_w
        self.spine: SpineClassifier = spine
        self.spine_w = spine_w
        self.arc = arc
        self.thresholds: Thresholds = thresholds
        self.config: PrunerConfig = config
        self.curves = curves or []
        #: the tree-to-graph conversion options of the training graphs (head rules, null
        #: reversal, gapping shift; :meth:`plgraph.convert.ConversionOptions.as_dict`), None
        #: if unknown (graphs not from :func:`~plgraph.convert.tree_to_graph`, or files
        #: written before the options were recorded)
        self.conversion = conversion

    # -- applying ----------------------------------------------------------------------------
    def scores(self, sds: list[SentenceData]):
        """Raw outputs for a list of sentences: per sentence (arc_mm, cell_mm, best,
        trace probabilities, trace scores, spine probabilities, spine candidates)."""
        enc = encode(sds, self.normaliser, self.tags)
        dep = self.arc.encode(sds, self.normaliser)
        out = []
        for k, sd in enumerate(sds):
            arc_mm, cell_mm, best = self.arc.max_marginals(dep, k)
            ts = self.trace.scores(self.trace_w, enc, k)
            tp = _softmax(ts)
            sp = _softmax(self.spine.scores(self.spine_w, enc, k))
            out.append((arc_mm, cell_mm, best, tp, ts, sp, self.spine.candidates(enc, k)))
        return out

    def prune(self, graph_or_data) -> PrunedSentence:
        sd = graph_or_data if isinstance(graph_or_data, SentenceData) else sentence_data(graph_or_data)
        (arc_mm, cell_mm, best, tp, ts, sp, cands), = self.scores([sd])
        th = self.thresholds
        cut = keep_threshold(arc_mm, best, th.arc_ratio)
        keep = arc_mm > cut
        h, d = np.nonzero(keep)
        arcs = np.stack([d, h, np.arange(d.size)], 1).astype(np.int64)
        tk = trace_keep(tp, ts, th.trace_prob, th.trace_rank)
        c, p, t = np.nonzero(tk)
        spines = [cands[i][sp[i, :len(cands[i])] > th.spine_prob] for i in range(len(cands))]
        probs = [sp[i, :len(cands[i])][sp[i, :len(cands[i])] > th.spine_prob] for i in range(len(cands))]
        order = [np.argsort(-pr, kind="stable") for pr in probs]
        return PrunedSentence(sd.id, arcs, arc_mm[h, d], cell_mm > cut,
                              np.stack([c + 1, p + 1, t], 1).astype(np.int64), tp[c, p, t],
                              [s[o] for s, o in zip(spines, order)], [pr[o] for pr, o in zip(probs, order)])

    # -- files -------------------------------------------------------------------------------
    def save(self, folder) -> None:
        """``folder/pruners.json`` + ``trace.npz`` + ``spine.npz``; the arc model in ``folder/arc``.
        ``pruners.json`` records the conversion options (``conversion``, covered by its CRC)."""
        os.makedirs(folder, exist_ok=True)
        trace = {"w": self.trace_w.astype(np.float32), "allowed": self.trace.allowed}
        spine = {"w": self.spine_w.astype(np.float32), "cand_off": self.spine.cand_off,
                 "cand_lab": self.spine.cand_lab}
        _atomic_npz(os.path.join(folder, "trace.npz"), **trace)
        _atomic_npz(os.path.join(folder, "spine.npz"), **spine)
        doc = {"format": FORMAT, "format_version": FORMAT_VERSION, "version": FORMAT_VERSION, "config": asdict(self.config), "thresholds": asdict(self.thresholds),
               "normaliser": self.normaliser.to_json(), "tags": self.tags.items, "tags_unk": self.tags.unk,
               "trace_labels": self.trace.labels.items, "trace_bits": self.trace.bits,
               "spine_labels": self.spine.labels.items, "spine_bits": self.spine.bits, "curves": self.curves,
               "conversion": self.conversion}
        doc["crc32"] = _pruners_crc(trace, spine, doc)
        _atomic_json(os.path.join(folder, "pruners.json"), doc)

    @classmethod
    def load(cls, folder) -> "Pruners":
        """Load a folder written by :meth:`save`.  Raises
        :class:`~plgraph.errors.ModelFileError` naming the file for a missing, damaged,
        mis-shaped or other-version ``pruners.json`` / ``trace.npz`` / ``spine.npz`` /
        ``arc`` model (files without ``format_version`` are version 1)."""
        from ..dep.model import DepModel
        from .arcpass import ArcPass

        folder = os.fspath(folder)
        jpath = os.path.join(folder, "pruners.json")
        if not os.path.exists(jpath):
            raise ModelFileError(f"not a plgraph pruner model folder: {jpath} is missing", source=folder)
        doc = load_header(jpath, PRUNERS_JSON_KEYS, "pruner models header", FORMAT, FORMAT_VERSION, "pruner models")
        tpath, spath = os.path.join(folder, "trace.npz"), os.path.join(folder, "spine.npz")
        tz = load_npz(tpath, {"w": (1, "f"), "allowed": (3, "b")}, "trace classifier")
        sz = load_npz(spath, {"w": (1, "f"), "cand_off": (1, "iu"), "cand_lab": (1, "iu")}, "spine classifier")
        check_crc32(doc, jpath, _pruners_crc(tz, sz, doc), "the trace.npz and spine.npz beside it")
        with model_errors(jpath, "pruner models"):
            tags = Vocabulary(unk=doc["tags_unk"])
            for t in doc["tags"]:
                tags.add(t)
            tags.freeze()
            trace_labels = Vocabulary(doc["trace_labels"]).freeze()
            spine_labels = Vocabulary(doc["spine_labels"]).freeze()
            _check_bits(doc, jpath, ("trace_bits", "spine_bits"))
            check_array(tz, tpath, "allowed", shape=(len(tags), len(tags), len(trace_labels)))
            check_array(tz, tpath, "w", shape=(1 << doc["trace_bits"],))
            check_array(sz, spath, "w", shape=(1 << doc["spine_bits"],))
            check_offsets(sz["cand_off"], spath, "cand_off", sz["cand_lab"].shape[0])
            check_array(sz, spath, "cand_off", shape=(len(tags) + 1,))
            check_index_range(sz["cand_lab"], spath, "cand_lab", 0, len(spine_labels))
            trace = TraceClassifier(trace_labels, tz["allowed"], doc["trace_bits"])
            spine = SpineClassifier(spine_labels, sz["cand_off"].astype(np.int64), sz["cand_lab"].astype(np.int64),
                                    doc["spine_bits"])
            cfg = PrunerConfig(**{k: v for k, v in check_keys(doc["config"], jpath, (), "config").items()
                                  if k in PrunerConfig.__dataclass_fields__})
            thresholds = Thresholds(**check_keys(doc["thresholds"], jpath, {f: float for f in
                                                                           Thresholds.__dataclass_fields__},
                                                 "thresholds"))
            normaliser = WordNormaliser.from_json(doc["normaliser"])
            conversion = doc.get("conversion")
            if conversion is not None and not isinstance(conversion, dict):
                raise ModelFileError(f"'conversion' is a {type(conversion).__name__}, not an object", source=jpath)
        arc = ArcPass(DepModel.load(os.path.join(folder, "arc")))
        return cls(normaliser, tags, trace, tz["w"].astype(np.float64), spine, sz["w"].astype(np.float64), arc,
                   thresholds, cfg, doc.get("curves", []), conversion)


#: what :meth:`Pruners.load` requires of ``pruners.json`` (key -> JSON type)
PRUNERS_JSON_KEYS = {"format": str, "config": dict, "thresholds": dict, "normaliser": dict, "tags": list,
                     "tags_unk": (str, type(None)), "trace_labels": list, "trace_bits": int, "spine_labels": list,
                     "spine_bits": int}


#: the fields of ``pruners.json`` its CRC covers (with trace.npz and spine.npz), and ``conversion``
#: when present (files written before it was recorded have none); curves are free
PRUNERS_CRC_KEYS = ("format", "format_version", "config", "thresholds", "normaliser", "tags", "tags_unk",
                    "trace_labels", "trace_bits", "spine_labels", "spine_bits")


def _pruners_crc(trace: dict, spine: dict, doc: dict) -> int:
    keys = PRUNERS_CRC_KEYS + (("conversion",) if "conversion" in doc else ())
    return content_crc32({**{f"trace.{k}": v for k, v in trace.items()}, **{f"spine.{k}": v for k, v in spine.items()}},
                         doc, keys)


def _check_bits(doc, path, keys) -> None:
    for key in keys:
        if not 1 <= doc[key] <= 40:
            raise ModelFileError(f"{key} = {doc[key]} is out of range", source=os.fspath(path))


def _softmax(S):
    from .classifiers import softmax_rows

    return softmax_rows(S)


def trace_keep(probs: np.ndarray, scores: np.ndarray, prob: float, rank: float) -> np.ndarray:
    """Kept (child, parent, type) trace candidates of a sentence (type 0 = none is never kept)."""
    cand = np.isfinite(scores)
    cand[..., 0] = False
    vals = scores[cand]
    if vals.size == 0:
        return cand
    k = max(1, int(np.ceil(rank * vals.size)))
    cut = np.partition(vals, vals.size - k)[vals.size - k]
    return cand & (probs > prob) & (scores >= cut)


# ---------------------------------------------------------------------------------------------
# training
# ---------------------------------------------------------------------------------------------
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
    ``client``: batches decoded on a Dask cluster (:mod:`plgraph.dist.training`)."""
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


def spine_accuracy(spine: SpineClassifier, weights, enc, gold: np.ndarray) -> float:
    correct = total = 0
    k = 0
    for s in range(len(enc.tok_off) - 1):
        S = spine.scores(weights, enc, s)
        cands = spine.candidates(enc, s)
        for i in range(S.shape[0]):
            if len(cands[i]):
                correct += int(cands[i][int(np.argmax(S[i, :len(cands[i])]))] == gold[k])
            total += 1
            k += 1
    return 100.0 * correct / max(total, 1)


def trace_prf(trace: TraceClassifier, weights, enc, sds: list[SentenceData]) -> dict:
    tp = n_pred = n_gold = 0
    for s, sd in enumerate(sds):
        S = trace.scores(weights, enc, s)
        pred = np.argmax(np.where(np.isfinite(S), S, -1e300), axis=-1)
        np.fill_diagonal(pred, 0)
        gold = np.zeros_like(pred)
        for (c, p), t in sd.traces.items():
            gold[c, p] = trace.labels.get(t) if t in trace.labels.index else -1
        n_pred += int((pred > 0).sum())
        n_gold += int((gold != 0).sum())
        tp += int(((pred > 0) & (pred == gold)).sum())
    p = 100.0 * tp / max(n_pred, 1)
    r = 100.0 * tp / max(n_gold, 1)
    return {"dev_trace_p": round(p, 2), "dev_trace_r": round(r, 2),
            "dev_trace_f": round(2 * p * r / max(p + r, 1e-9), 2)}


#: files :func:`train_pruners` writes into its folder (checked writable before training)
PRUNERS_FILES = ("pruners.json", "trace.npz", "spine.npz", "curves.json", "curves.csv", "checkpoint-spine.json",
                 "checkpoint-trace.json")


def train_pruners(train_graphs, dev_graphs, model_dir=None, config: PrunerConfig | None = None, *,
                  resume: bool = False, progress=None, log=None, client=None) -> Pruners:
    """Train the three coarse models on ``train_graphs``, tune thresholds on ``dev_graphs``.

    With ``model_dir``: the folder (and its ``arc`` subfolder) is checked writable before
    any work, locked for the run (:mod:`plgraph.lock`; a second run into it fails at
    once) and cleared of the temporaries of killed runs.  ``resume=True`` continues each
    model from its checkpoint, whose options must match ``config`` (else InputError);
    the training curves are rebuilt from the checkpoints.  Ctrl-C stops at the next
    safe point (:mod:`plgraph.learn.interrupts`).  Every model's epochs run in
    :func:`plgraph.learn.loop.train_epochs`.

    The conversion options the graphs were made with (head rules, null reversal,
    gapping shift: ``Graph.options``) are recorded in ``pruners.json`` and in the arc
    model's ``model.json`` (``info["conversion"]``), and are :attr:`Pruners.conversion`;
    graphs of different options are an :class:`~plgraph.errors.InputError`.

    ``client`` (a ``distributed.Client``): the three models' batches are decoded on the
    Dask cluster's workers (:mod:`plgraph.dist.training`), giving the weights of one
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


# ---------------------------------------------------------------------------------------------
# tuning and statistics
# ---------------------------------------------------------------------------------------------
def _outputs(pr: Pruners, dv):
    return pr.scores(dv)


def arc_recall_at(outputs, dv, ratio, label_counts=None) -> tuple[float, float, float, float]:
    """(gold structural edges kept, possible (child, parent) pairs kept, cells kept,
    labelled edges kept), as fractions.  Labelled edges: a kept pair keeps every
    label allowed for it (``label_counts[s][h, d]``, out of ``label_counts`` total)."""
    gold_kept = gold = pairs_kept = pairs = cells_kept = cells = 0
    lab_kept = lab_all = 0.0
    for k, ((arc_mm, cell_mm, best, *_), sd) in enumerate(zip(outputs, dv)):
        n = len(sd.words)
        cut = keep_threshold(arc_mm, best, ratio)
        keep = arc_mm > cut
        d = np.arange(1, n + 1)
        gold_kept += int(keep[sd.heads, d].sum())
        gold += n
        pairs_kept += int(keep[:, 1:].sum())
        pairs += n * n
        iu = np.triu_indices(n + 1, 1)
        cells_kept += int((cell_mm[iu] > cut).sum())
        cells += len(iu[0])
        if label_counts is not None:
            allowed, total = label_counts[k]
            lab_kept += float(allowed[keep].sum())
            lab_all += float(n * n * total)
    return (gold_kept / max(gold, 1), pairs_kept / max(pairs, 1), cells_kept / max(cells, 1),
            lab_kept / max(lab_all, 1.0))


def spine_recall_at(pr, outputs, dv, prob, reachable_only: bool = False) -> tuple[float, float, float]:
    """(gold spines kept, spines kept among POS candidates, spines kept among all spines).

    With ``reachable_only`` the recall counts only gold spines that are among the
    word's candidates (spines seen with its POS in training): the others can never
    be kept by any threshold."""
    gold_kept = gold = kept = cands = 0
    n_all = len(pr.spine.labels)
    for (*_, sp, cand), sd in zip(outputs, dv):
        for i, spid in enumerate(sd.spines):
            c = cand[i]
            k = sp[i, :len(c)] > prob
            kept += int(k.sum())
            cands += len(c)
            g = pr.spine.labels.index.get(spid, -1)
            reachable = g >= 0 and bool((c == g).any())
            if reachable_only and not reachable:
                continue
            gold += 1
            gold_kept += int(reachable and bool(k[c == g].any()))
    words = sum(len(sd.words) for sd in dv)
    return gold_kept / max(gold, 1), kept / max(cands, 1), kept / max(words * n_all, 1)


def trace_recall_at(pr, outputs, dv, prob, rank) -> tuple[float, float, float]:
    """(gold traces kept, kept among all (pair, type), kept among POS-allowed candidates)."""
    gold_kept = gold = kept = space = cands = 0
    T = len(pr.trace.labels) - 1
    for (arc_mm, cell_mm, best, tp, ts, *_), sd in zip(outputs, dv):
        n = len(sd.words)
        k = trace_keep(tp, ts, prob, rank)
        kept += int(k.sum())
        space += n * (n - 1) * T
        c = np.isfinite(ts)
        c[..., 0] = False
        cands += int(c.sum())
        for (ci, pi), t in sd.traces.items():
            gold += 1
            lab = pr.trace.labels.index.get(t, -1)
            gold_kept += int(lab > 0 and bool(k[ci, pi, lab]))
    return gold_kept / max(gold, 1), kept / max(space, 1), kept / max(cands, 1)


def tune_thresholds(pr: Pruners, dv: list[SentenceData]) -> Thresholds:
    """Largest arc ratio keeping >= ``arc_recall`` of gold edges and largest spine
    probability keeping >= ``spine_recall`` of the gold spines the candidate sets
    contain (a gold spine never seen with its POS in training cannot be kept at any
    threshold; on WSJ 2-21 that is 0.07% of dev spines, on the sample's smaller
    train split 0.8%), on dev."""
    outputs = _outputs(pr, dv)
    cfg = pr.config
    ratio = 0.0
    for r in np.round(np.arange(0.0, 1.0001, 0.002), 3):
        if arc_recall_at(outputs, dv, r)[0] >= cfg.arc_recall:
            ratio = float(r)
        else:
            break
    prob = 0.0
    for p in np.geomspace(1e-5, 0.5, 120):
        if spine_recall_at(pr, outputs, dv, p, reachable_only=True)[0] >= cfg.spine_recall:
            prob = float(p)
    return Thresholds(arc_ratio=ratio, spine_prob=prob, trace_prob=cfg.trace_prob, trace_rank=cfg.trace_rank)


def pruning_stats(pr: Pruners, graphs, curves: bool = False, label_vocab=None) -> dict:
    """Kept fractions and gold recall of the three pruners on ``graphs`` (percent),
    plus pass-1 attachment scores, spine accuracy and trace P/R/F.

    ``edges_kept_pct`` counts, for every kept (child, parent) pair, the arc pass's own
    labels allowed for it (attachment nodes seen with the pair's POS class), against
    Σ n² × its label count.  With ``label_vocab`` (a
    :class:`plgraph.parser.labels.LabelVocab` of the train split) it adds
    ``edges_kept_seed_pct``, the seed's definition (the reference's ``PruningStats``:
    kept labelled arcs against Σ n² × the number of edge labels, the parser's full
    labels): each kept pair counts its structural EITHER candidates, out of all
    labels of the vocabulary."""
    from ..dep.evaluate import evaluate
    from .arcpass import dep_sentence

    dv = [sentence_data(g) for g in graphs]
    start = time.perf_counter()
    outputs = _outputs(pr, dv)
    seconds = time.perf_counter() - start
    th = pr.thresholds
    dep = pr.arc.encode(dv, pr.normaliser)
    label_counts = [pr.arc.allowed_label_counts(dep, k) for k in range(len(dv))]
    arc_rec, pairs_kept, cells_kept, labelled_kept = arc_recall_at(outputs, dv, th.arc_ratio, label_counts)
    seed_counts = None
    if label_vocab is not None:   # [parent, child] as arc_recall_at reads them
        seed_counts = [(label_vocab.candidate_counts(g.tags, kind=0).T, len(label_vocab)) for g in graphs]
    sp_rec, sp_kept_cand, sp_kept_all = spine_recall_at(pr, outputs, dv, th.spine_prob)
    sp_rec_reach = spine_recall_at(pr, outputs, dv, th.spine_prob, reachable_only=True)[0]
    tr_rec, tr_kept_all, tr_kept_cand = trace_recall_at(pr, outputs, dv, th.trace_prob, th.trace_rank)
    n_labels = pr.arc.labels_allowed()
    gold = [dep_sentence(s, pr.normaliser) for s in dv]
    pred = pr.arc.parse([dep_sentence(s, pr.normaliser, with_tree=False) for s in dv])
    att = evaluate(gold, pred)
    enc = encode(dv, pr.normaliser, pr.tags)
    doc = {
        "sentences": len(dv),
        "edges_kept_pct": round(100 * labelled_kept, 3),
        "edge_pairs_kept_pct": round(100 * pairs_kept, 3),
        "edges_gold_recall_pct": round(100 * arc_rec, 2),
        "cells_kept_pct": round(100 * cells_kept, 2),
        "traces_kept_pct": round(100 * tr_kept_all, 3),
        "traces_kept_of_candidates_pct": round(100 * tr_kept_cand, 2),
        "traces_gold_recall_pct": round(100 * tr_rec, 2),
        "spines_kept_pct": round(100 * sp_kept_all, 3),
        "spines_kept_of_candidates_pct": round(100 * sp_kept_cand, 2),
        "spines_gold_recall_pct": round(100 * sp_rec, 2),
        "spines_reachable_recall_pct": round(100 * sp_rec_reach, 2),
        "arc_uas": round(att.uas, 2), "arc_las": round(att.las, 2),
        "spine_acc": round(spine_accuracy(pr.spine, pr.spine_w, enc, pr.spine.gold_array(dv)), 2),
        "thresholds": asdict(th),
        "labels": n_labels,
        "sentences_per_second": round(len(dv) / seconds, 1),
    }
    if seed_counts is not None:
        doc["edges_kept_seed_pct"] = round(100 * arc_recall_at(outputs, dv, th.arc_ratio, seed_counts)[3], 4)
        doc["edge_labels_seed"] = len(label_vocab)
    doc.update({k.replace("dev_", ""): v for k, v in trace_prf(pr.trace, pr.trace_w, enc, dv).items()})
    if curves:
        doc["arc_curve"] = [dict(zip(("ratio", "recall_pct", "pairs_kept_pct", "cells_kept_pct", "edges_kept_pct"),
                                     (float(r), *[round(100 * x, 4)
                                                  for x in arc_recall_at(outputs, dv, r, label_counts)])))
                            for r in np.round(np.linspace(0, 0.99, 34), 3)]
        if seed_counts is not None:
            for row in doc["arc_curve"]:
                row["edges_kept_seed_pct"] = round(100 * arc_recall_at(outputs, dv, row["ratio"], seed_counts)[3], 5)
        doc["spine_curve"] = [dict(zip(("prob", "recall_pct", "kept_of_candidates_pct", "kept_pct"),
                                       (float(p), *[round(100 * x, 4) for x in spine_recall_at(pr, outputs, dv, p)])))
                              for p in np.geomspace(1e-4, 0.5, 30)]
        doc["trace_curve"] = [dict(zip(("prob", "recall_pct", "kept_pct", "kept_of_candidates_pct"),
                                       (float(p), *[round(100 * x, 4) for x in trace_recall_at(pr, outputs, dv, p, 1.0)])))
                              for p in np.geomspace(1e-4, 0.9, 30)]
    return doc


def _wait_for_writer(folder, log=None, timeout: float = 4 * 3600.0) -> None:
    """Wait while another process trains into ``folder`` (shared notebook cache)."""
    from ..lock import held_by

    waited = 0.0
    while held_by(folder) is not None and waited < timeout:
        if waited == 0.0 and log:
            log(f"waiting for process {held_by(folder)}, which trains the pruners in {folder}")
        time.sleep(2.0)
        waited += 2.0


def notebook_models_folder(quick: bool) -> "Path":
    """The shared folder of :func:`notebook_models`' coarse models (quick or full):
    ``pruners-quick-<code>`` / ``pruners-full-<code>`` in plgraph's cache, ``<code>`` a
    digest of the training code (see :func:`notebook_models`); it may not hold a trained
    set yet."""
    import hashlib
    from pathlib import Path

    from ..cache import cache_dir

    here = Path(__file__).resolve().parent
    digest = hashlib.sha1()
    for path in sorted([*here.glob("*.py"), *(here.parent / "dep").glob("*.py"), *(here.parent / "learn").glob("*.py")]):
        digest.update(path.read_bytes())
    return Path(cache_dir(f"pruners-{'quick' if quick else 'full'}-{digest.hexdigest()[:12]}"))


def notebook_models(quick: bool | None = None, folder=None, progress=None, log=None) -> Pruners:
    """Coarse models for the notebooks: loaded from ``folder`` if it holds a trained
    set, otherwise trained (on the whole train split, or — in quick mode, as under
    ``make test`` — on its first 300 sentences with two epochs per model) and saved
    there.  The default folder is ``pruners-quick-<code>`` / ``pruners-full-<code>`` in
    plgraph's cache (:func:`plgraph.cache.cache_dir`: ``$PLGRAPH_CACHE``, else
    ``$XDG_CACHE_HOME/plgraph``, else ``~/.cache/plgraph``), ``<code>`` a digest of the
    training code, so notebooks share one trained set and a code change retrains.
    Training takes 30-60 s in quick mode and ~6.5 minutes in full (2 cores; a fresh clone
    compiles the numba kernels once on top)."""
    from pathlib import Path

    from ..config import quick_mode
    from ..lock import FolderLockedError

    quick = quick_mode() if quick is None else quick
    folder = Path(notebook_models_folder(quick) if folder is None else folder)
    for _attempt in range(3):
        _wait_for_writer(folder, log)
        if (folder / "pruners.json").exists():
            return Pruners.load(folder)
        try:
            return _train_notebook_models(folder, quick, progress, log)
        except FolderLockedError:
            # another process (a notebook or test run in parallel) took the folder
            # between the check and our lock: wait for it and load what it wrote
            continue
    raise FolderLockedError(folder, None, "pruner model folder")


def _train_notebook_models(folder, quick, progress, log) -> Pruners:
    from ..corpora import Corpus

    train = Corpus("train", progress=progress).graphs()
    dev = Corpus("dev", progress=progress).graphs()
    cfg = PrunerConfig()
    if quick:
        train = train[:300]
        cfg = PrunerConfig(spine_epochs=2, trace_epochs=2, arc_epochs=2, trace_bits=20, spine_bits=20)
    return train_pruners(train, dev, folder, cfg, progress=progress, log=log)
