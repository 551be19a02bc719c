"""The three coarse models applied to a sentence: :class:`Pruners` and its files.

:class:`Pruners` holds the projective arc pass, the trace classifier and the spine
classifier with their vocabularies and thresholds; :meth:`Pruners.prune` gives the
arrays the full pass consumes (:class:`PrunedSentence`), and :meth:`Pruners.save` /
:meth:`Pruners.load` write and read them as ``.npz`` + JSON (every file checked).

Pruning semantics: an arc or chart cell is kept iff its max-marginal
``m > min + ratio * (max - min)`` (max = best tree, min = smallest finite arc
max-marginal; :func:`keep_threshold`); a trace (pair, type) iff its probability exceeds
``trace_prob`` and its score is in the sentence's top ``trace_rank`` fraction of trace
scores (:func:`trace_keep`); a spine iff its probability exceeds ``spine_prob``.
Training is :mod:`plgraph.pruners.training`, the tuning of the thresholds and the
measures of pruning :mod:`plgraph.pruners.measure`.
"""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass

import numpy as np

from ..files.shards import record_type
from ..files.atomic import atomic_json, atomic_savez_compressed
from ..errors import ModelFileError
from ..files.modelfile import (check_array, check_crc32, check_index_range, check_keys, check_offsets, content_crc32,
                         load_header, load_npz, model_errors)
from .classifiers import SpineClassifier, TraceClassifier, encode, read_weights
from .data import SentenceData, Vocabulary, WordNormaliser, sentence_data
FORMAT = "plgraph-pruners"
#: version of ``pruners.json`` (``format_version``; older files: ``version`` or nothing = 1)
FORMAT_VERSION = 1


@dataclass
class PrunerConfig:
    """Hyperparameters (defaults: the reference parser's released configurations) and targets."""

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


@record_type
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
    """The three coarse models, their vocabularies and thresholds.  ``trace_w`` /
    ``spine_w``: the classifiers' weights, float64 from training, float32 as loaded from
    their files (the kernels read either; a loaded model keeps half the memory)."""

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
        doc["crc32"] = pruners_crc(trace, spine, doc)
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
        check_crc32(doc, jpath, pruners_crc(tz, sz, doc), "the trace.npz and spine.npz beside it")
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
        return cls(normaliser, tags, trace, read_weights(tz["w"]), spine, read_weights(sz["w"]), arc,
                   thresholds, cfg, doc.get("curves", []), conversion)


#: what :meth:`Pruners.load` requires of ``pruners.json`` (key -> JSON type)
PRUNERS_JSON_KEYS = {"format": str, "config": dict, "thresholds": dict, "normaliser": dict, "tags": list,
                     "tags_unk": (str, type(None)), "trace_labels": list, "trace_bits": int, "spine_labels": list,
                     "spine_bits": int}


#: the fields of ``pruners.json`` its CRC covers (with trace.npz and spine.npz), and ``conversion``
#: when present (files written before it was recorded have none); curves are free
PRUNERS_CRC_KEYS = ("format", "format_version", "config", "thresholds", "normaliser", "tags", "tags_unk",
                    "trace_labels", "trace_bits", "spine_labels", "spine_bits")


def pruners_crc(trace: dict, spine: dict, doc: dict) -> int:
    """The ``crc32`` of ``pruners.json`` ``doc``: its :data:`PRUNERS_CRC_KEYS` with the
    arrays of ``trace.npz`` (``trace``) and ``spine.npz`` (``spine``)."""
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
