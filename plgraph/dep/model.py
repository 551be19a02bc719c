"""The labelled dependency parsing model (Schiehlen & Spranger 2007).

Sources: the copy of the paper we hold stops after its §2.1 (Eisner's algorithm in McDonald
et al.'s formulation, the second-order extension); everything after that follows a summary of
the full paper, and where a detail is inferred, or where we deviate, it is said here.

* Decoding: Eisner (S&S §2.1), first order, or McDonald & Pereira (2006)'s second-order
  sibling model (S&S §2.1: "the last dependent s assigned to a head").
* Arc features (:data:`~plgraph.dep.features.ARC_TEMPLATES`) come from a
  frozen dictionary of the features seen on gold arcs of the training data (as in
  MSTParser); each carries label copies with the pruned deprel taxonomy of
  :mod:`plgraph.learn.labels` / :mod:`plgraph.dep.taxonomy`.  The parser
  scores, for every candidate arc, every candidate label and keeps the best one (parsing
  only uses the best label per arc), then runs Eisner.
* Second order (``order=2``) adds the sibling features (unlabelled, hashed into
  ``2**sib_bits`` weights, so features of wrong parses get weights too); labels stay
  exact because sibling scores do not depend on labels.  S&S dropped the in-between
  features in their second-order model; we keep them (McDonald & Pereira
  do), since the second-order model is then a strict extension of the first-order one.
* ROOT: ``root="single"`` (one dependent of ROOT, UD), ``"multi"`` (several,
  CoNLL 2007 Basque), ``"auto"`` = multi when some training tree has several.
  S&S's root model is a separate maximisation over the root word with token features
  (inferred from a garbled equation in their paper); ours scores ROOT -> r arcs with
  the ordinary templates, ROOT being a token with its own atoms.
* Candidate labels per arc (``label_constraint="pos"``): those seen in training with the
  arc's coarse POS pair and direction (Kummerfeld's arc-pass constraint) --
  faster, and it keeps ROOT arcs to ROOT labels.  Our addition.
* Non-projective training arcs are lifted (Nivre & Nilsson 2005, :mod:`.projective`);
  S&S ignored them.

Model files are a folder with ``model.json`` (configuration, labels, taxonomy,
training record, ``format_version``, a CRC of the arrays and the model-defining fields) and ``model.npz`` (feature
keys, block layout, float32 weights); no pickle.  Features whose weights are all zero
are dropped when saving.  A damaged, mismatched or other-version file is a
:class:`~plgraph.errors.ModelFileError` naming it (see :mod:`plgraph.files.modelfile`).
"""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass

import numpy as np

from ..errors import InputError, ModelFileError
from ..learn._kernels import bloom_build, pack_block_refs
from ..learn.features import FeatureTable
from ..learn.labels import LabelTaxonomy, label_blocks
from . import _kernels as KN
from ..files.atomic import atomic_json as _atomic_json
from ..files.atomic import atomic_savez as _atomic_savez
from ..files.modelfile import check_crc32, check_keys, content_crc32, load_header, load_npz, model_errors
from .features import (ARC_TEMPLATES, KIND_BETWEEN, KIND_DEP, KIND_HEAD, KIND_PAIR, KIND_SIB, NONE_SIB,
                       SIBLING_TEMPLATES, Encoded, TemplateSet, compile_templates, encode)
from .projective import deprojectivise, projectivise_corpus
from .taxonomy import deprel_taxonomy

FORMAT = "plgraph-dep-model"
#: version of the model files (``format_version`` in model.json; files written before
#: that field existed carry the same number as ``version``, or nothing: version 1)
FORMAT_VERSION = 1
VERSION = FORMAT_VERSION      # the former name


@dataclass
class DepConfig:
    """Everything that defines a model's features and decoding (saved in model.json)."""

    order: int = 1
    root: str = "auto"                      # single | multi | auto
    templates: tuple = ARC_TEMPLATES
    sib_templates: tuple = SIBLING_TEMPLATES
    dd: str = "both"                        # plain and/or direction+distance variants
    taxonomy_depth: int = 4                 # 4: class/urel/label, 3: class/label, 2: flat
    sib_bits: int = 22
    pseudo_projective: str = "head"         # head | none
    cost_head: float = 1.0
    cost_label: float = 1.0
    label_constraint: str = "pos"           # pos | root | none

    def __post_init__(self):
        self.templates = tuple(self.templates)
        self.sib_templates = tuple(self.sib_templates)
        if self.order not in (1, 2):
            raise ValueError("order must be 1 or 2")
        if self.root not in ("single", "multi", "auto"):
            raise ValueError("root must be 'single', 'multi' or 'auto'")
        if self.pseudo_projective not in ("head", "none"):
            raise ValueError("pseudo_projective must be 'head' or 'none'")
        if self.label_constraint not in ("pos", "root", "none"):
            raise ValueError("label_constraint must be 'pos', 'root' or 'none'")
        if self.taxonomy_depth not in (2, 3, 4):
            raise ValueError("taxonomy_depth must be 2, 3 or 4")

    def to_json(self) -> dict:
        d = asdict(self)
        d["templates"] = list(self.templates)
        d["sib_templates"] = list(self.sib_templates)
        return d

    @classmethod
    def from_json(cls, d: dict) -> "DepConfig":
        known = {k: v for k, v in d.items() if k in cls.__dataclass_fields__}
        return cls(**known)


def kernel_templates(arc: TemplateSet, sib: TemplateSet | None) -> KN.Templates:
    """The compiled arc templates ``arc`` and sibling templates ``sib`` (None: first
    order), grouped by kind, as the kernels take them."""
    if sib is not None:
        tseed = np.concatenate([arc.seed, sib.seed])
        length = np.concatenate([arc.length, sib.length])
        pos = np.concatenate([arc.pos, sib.pos])
        atom = np.concatenate([arc.atom, sib.atom])
        dd = np.concatenate([arc.dd, sib.dd])
        kind = np.concatenate([arc.kind, sib.kind])
    else:
        tseed, length, pos, atom, dd, kind = arc.seed, arc.length, arc.pos, arc.atom, arc.dd, arc.kind
    has_agr = (atom == 99).any(axis=1)
    tmpl = np.concatenate([length[:, None], dd[:, None], kind[:, None], pos, atom, has_agr[:, None]],
                          axis=1).astype(np.int64)
    groups = [np.flatnonzero(kind == k).astype(np.int64) for k in (KIND_HEAD, KIND_DEP, KIND_PAIR, KIND_BETWEEN,
                                                                   KIND_SIB)]
    betw_col = np.array([atom[t][list(pos[t][:length[t]]).index(6)] for t in groups[3]], np.int64)
    tflags = np.stack([has_agr, dd != 0]).astype(np.uint64)
    return KN.Templates(tseed.astype(np.uint64), tmpl, tflags, *groups[:4], betw_col, groups[4], NONE_SIB)


def kernel_sentences(enc: Encoded, lo: int = 0, hi: int | None = None) -> KN.Sentences:
    """Sentences ``lo .. hi - 1`` of ``enc`` as the kernels take them (the word arrays
    whole: the sentences' word offsets index them)."""
    hi = len(enc) if hi is None else hi
    return KN.Sentences(enc.row0[lo:hi], enc.word0[lo:hi], enc.n[lo:hi], enc.atoms, enc.heads, enc.labels)


#: sentences whose gold feature keys :func:`gold_features` collects at a time
GOLD_KEY_CHUNK = 1000


def gold_features(enc: Encoded, tpl: KN.Templates, chunk: int = GOLD_KEY_CHUNK):
    """The feature table of the labelled features (templates ``tpl``) on the gold arcs of
    ``enc`` (ids in the order of first occurrence, sentence by sentence) and the distinct
    ``(feature id, label id)`` pairs observed on them (two int64 arrays, sorted).

    The keys are collected ``chunk`` sentences at a time, so that memory holds one chunk's
    keys (16 bytes a key with its label) and the distinct pairs, not every key of the corpus:
    the table and the pairs do not depend on ``chunk``."""
    if chunk < 1:
        raise ValueError(f"chunk {chunk}: expected at least 1 sentence")
    seen = FeatureTable()
    codes = []
    n_lab = int(enc.labels.max(initial=-1)) + 2          # label ids -1 .. max, coded with an offset of 1
    for lo in range(0, len(enc), chunk):
        hi = min(lo + chunk, len(enc))
        sents = kernel_sentences(enc, lo, hi)
        total = KN.gold_feature_keys(sents, tpl, True, np.zeros(0, np.uint64), np.zeros(0, np.int64))
        keys = np.empty(total, np.uint64)
        labs = np.empty(total, np.int64)
        KN.gold_feature_keys(sents, tpl, False, keys, labs)
        _, first = np.unique(keys, return_index=True)
        seen.add(keys[np.sort(first)])                    # new keys get the next ids, in order
        codes.append(np.unique(seen.lookup(keys) * n_lab + (labs + 1)))
    table = FeatureTable.from_keys(seen.keys())            # the table one pass over every key builds
    pairs = np.unique(np.concatenate(codes)) if codes else np.zeros(0, np.int64)
    return table, pairs // n_lab, pairs % n_lab - 1


def _label_classes(enc: Encoded, n_labels: int, constraint: str):
    """Candidate labels per arc class (coarse POS of head and dependent, direction).

    ``constraint="pos"``: the labels seen on training arcs of that class (Kummerfeld's
    arc-pass constraint); a class never seen in training falls back to the labels seen
    on ROOT arcs (head = ROOT) or on word-headed arcs.  ``"root"``: only that fallback;
    ``"none"``: every label everywhere.
    Returns ``(cpos_keys, lab_off, lab_list)`` (see ``plgraph.dep._kernels``).
    """
    n_words = enc.heads.shape[0]
    sent = np.repeat(np.arange(len(enc)), enc.n)
    d = np.arange(n_words) - enc.word0[sent] + 1
    r0 = enc.row0[sent] + 1
    ok = (enc.heads >= 0) & (enc.labels >= 0)
    h = np.where(ok, enc.heads, 0)
    ch = enc.atoms[r0 + h, 2]
    cd = enc.atoms[r0 + d, 2]
    cpos_keys = np.unique(np.concatenate([cd, enc.atoms[enc.row0 + 1, 2]]))
    NC = cpos_keys.shape[0] + 1
    ih = np.searchsorted(cpos_keys, ch)      # every training value is present, so no "unknown" here
    idd = np.searchsorted(cpos_keys, cd)
    root_cls = np.searchsorted(cpos_keys, enc.atoms[enc.row0[0] + 1, 2]) if len(enc) else 0
    dirv = (h < d).astype(np.int64)
    cls = (ih * NC + idd) * 2 + dirv
    labs = enc.labels
    root_arc = (h == 0) & ok
    fallback = {}
    for key, mask in (("root", root_arc), ("word", ok & ~root_arc)):
        seen = np.unique(labs[mask])
        fallback[key] = seen if (constraint != "none" and seen.size) else np.arange(n_labels)
    n_cls = NC * NC * 2
    lists = []
    seen_by_cls = {}
    if constraint == "pos":
        pairs = np.unique(np.stack([cls[ok], labs[ok]], 1), axis=0)
        for c, lab in pairs:
            seen_by_cls.setdefault(int(c), []).append(int(lab))
    for c in range(n_cls):
        if c in seen_by_cls:
            lists.append(np.array(sorted(seen_by_cls[c]), np.int64))
        else:
            head_is_root = (c // 2) // NC == root_cls
            lists.append(fallback["root" if head_is_root else "word"])
    lab_off = np.zeros(n_cls + 1, np.int64)
    np.cumsum([len(x) for x in lists], out=lab_off[1:])
    return cpos_keys, lab_off, np.concatenate(lists).astype(np.int64)


class DepModel:
    """A labelled projective dependency parser (first or second order).

    Build one from training data with :meth:`build` (the feature dictionary and the
    label set), train it with :func:`plgraph.dep.train.train`, then :meth:`parse`,
    :meth:`save`, :meth:`load`.
    """

    def __init__(self, config: DepConfig, labels: list, taxonomy: LabelTaxonomy, table: FeatureTable,
                 foff: np.ndarray, fnode: np.ndarray, label_classes: tuple, multi_root: bool, weights=None,
                 info: dict | None = None):
        self.config = config
        self.labels = list(labels)
        self.label_index = {lab: i for i, lab in enumerate(self.labels)}
        self.taxonomy = taxonomy
        self._table, self._keys = table, None
        self.foff = np.ascontiguousarray(foff, np.int64)
        self.btable = pack_block_refs(table.table, self.foff)   # key -> packed (start, size)
        # Bloom filter in front of the table: ~4 bits per feature, at most 2 MB (an L2 cache)
        words = 1 << int(np.clip(np.ceil(np.log2(max(len(table), 1) / 16)), 6, 18))
        self.bloom = bloom_build(table.table, words)
        self.fnode = np.ascontiguousarray(fnode, np.int32)
        cpos_keys, lab_off, lab_list = label_classes
        self.cpos_keys = np.ascontiguousarray(cpos_keys, np.uint64)
        self.lab_off = np.ascontiguousarray(lab_off, np.int64)
        self.lab_list = np.ascontiguousarray(lab_list, np.int64)
        self.multi_root = bool(multi_root)
        self.info = dict(info or {})
        arc = compile_templates(config.templates, config.dd)
        sib = compile_templates(config.sib_templates, config.dd) if config.order == 2 else None
        self.templates = kernel_templates(arc, sib)
        self.weights = (np.zeros(self.n_weights, np.float32) if weights is None
                        else np.ascontiguousarray(weights, np.float32))
        if self.weights.shape[0] != self.n_weights:
            raise ValueError(f"{self.weights.shape[0]} weights given, the model has {self.n_weights}")

    # -- the feature table ------------------------------------------------------------------
    @property
    def table(self) -> FeatureTable:
        """The feature table (hash key -> feature id).  Parsing reads only the block
        table built from it; a model loaded from files keeps just its keys
        (:meth:`keep_keys_only`) and rebuilds the table here when something needs it
        (training on, :meth:`pruned`, :meth:`save`)."""
        if self._table is None:
            self._table = FeatureTable.from_keys(self._keys)
            self._keys = None
        return self._table

    def keep_keys_only(self, keys: np.ndarray | None = None) -> None:
        """Hold the feature keys (8 bytes a feature) instead of the feature table (a hash
        table of 32 bytes a slot at most half full) until :attr:`table` is needed again;
        ``keys``: the table's keys in id order when the caller has them."""
        if self._table is not None:
            self._keys = self._table.keys() if keys is None else np.ascontiguousarray(keys, np.uint64)
            self._table = None

    # -- sizes ------------------------------------------------------------------------------
    @property
    def n_features(self) -> int:
        return len(self._table) if self._table is not None else int(self._keys.shape[0])

    @property
    def n_arc_weights(self) -> int:
        return int(self.foff[-1])

    @property
    def sib_size(self) -> int:
        return (1 << self.config.sib_bits) if self.config.order == 2 else 0

    @property
    def n_weights(self) -> int:
        return self.n_arc_weights + self.sib_size

    # -- building ---------------------------------------------------------------------------
    @classmethod
    def build(cls, sentences, config: DepConfig | None = None, *, progress: bool | None = None):
        """Label set, taxonomy and feature dictionary from training sentences.

        Returns ``(model, encoded, report)``: the model with zero weights, the training
        data encoded for the kernels (projectivised trees when
        ``config.pseudo_projective`` is ``"head"``; plain lifting otherwise), and the
        :class:`~plgraph.dep.projective.ProjectiviseReport`.
        """
        config = config or DepConfig()
        if not sentences:
            raise InputError("no training sentences")
        heads_list = [np.concatenate([[-1], s.heads]) for s in sentences]
        labels_list = [["<root>"] + s.deprels for s in sentences]
        for s, hs in zip(sentences, heads_list):
            if (hs[1:] < 0).any():
                raise InputError("training sentence without heads", s.source, s.id, s.line)
        enc_mode = config.pseudo_projective
        p_heads, p_labels, report = projectivise_corpus(heads_list, labels_list, enc_mode)
        labels = sorted({lab for ls in p_labels for lab in ls[1:]})
        label_index = {lab: i for i, lab in enumerate(labels)}
        taxonomy = deprel_taxonomy(labels, config.taxonomy_depth)
        enc = encode(sentences, label_index, p_heads, p_labels)
        n_roots = np.array([(h[1:] == 0).sum() for h in p_heads])
        multi = config.root == "multi" or (config.root == "auto" and bool((n_roots > 1).any()))
        label_classes = _label_classes(enc, len(labels), config.label_constraint)
        arc = compile_templates(config.templates, config.dd)
        table, fids, labs = gold_features(enc, kernel_templates(arc, None))
        foff, fnode = label_blocks(fids, labs, len(table), taxonomy)
        del fids, labs
        info = {"train_sentences": len(sentences), "train_words": int(enc.n.sum()),
                "lifted_arcs": report.lifted_arcs, "nonprojective_sentences": report.nonprojective_sentences,
                "restored_exactly": report.restored_exactly}
        model = cls(config, labels, taxonomy, table, foff, fnode, label_classes, multi, info=info)
        return model, enc, report

    # -- kernel arguments -------------------------------------------------------------------
    def kernel_tables(self) -> tuple[KN.Templates, KN.FeatureTables]:
        """The model's templates and feature tables as the kernels take them."""
        tx = self.taxonomy
        feat = KN.FeatureTables(self.btable, self.bloom, self.fnode, tx.nodelevel, tx.anc, tx.K, self.cpos_keys,
                                self.lab_off, self.lab_list, np.int64(self.n_arc_weights),
                                np.uint64(max(self.sib_size, 1) - 1))
        return self.templates, feat

    def encode(self, sentences, gold: bool = False) -> Encoded:
        """Atoms of ``sentences`` (with gold heads/labels when ``gold``)."""
        return encode(sentences, self.label_index if gold else None)

    # -- parsing ----------------------------------------------------------------------------
    def parse_encoded(self, enc: Encoded, sents=None, weights=None) -> tuple[np.ndarray, np.ndarray]:
        """Predicted heads and label ids (flat over words) for ``enc``'s sentences."""
        sents = np.arange(len(enc), dtype=np.int64) if sents is None else np.asarray(sents, np.int64)
        heads = np.full(enc.heads.shape[0], -1, np.int64)
        labels = np.full(enc.heads.shape[0], -1, np.int64)
        w = self.weights if weights is None else weights
        KN.parse_batch(sents, kernel_sentences(enc), *self.kernel_tables(), w, self.config.order, self.multi_root,
                       heads, labels)
        return heads, labels

    def decode_labels(self, enc: Encoded, heads, labels) -> list:
        """Per sentence (heads, deprels) with pseudo-projective labels resolved."""
        out = []
        for i in range(len(enc)):
            a, b = enc.word0[i], enc.word0[i] + enc.n[i]
            hs = np.concatenate([[-1], heads[a:b]])
            ls = ["<root>"] + [self.labels[x] for x in labels[a:b]]
            if self.config.pseudo_projective == "head":
                hs, ls = deprojectivise(hs, ls)
            out.append((hs[1:], ls[1:]))
        return out

    def parse(self, sentences, weights=None) -> list:
        """Parse :class:`~plgraph.dep.conll.DepSentence` objects; returns copies carrying
        the predicted HEAD and DEPREL (comments, multiword tokens and empty nodes kept)."""
        if not sentences:
            return []
        enc = self.encode(sentences)
        heads, labels = self.parse_encoded(enc, weights=weights)
        return [s.with_parse(h, ls) for s, (h, ls) in zip(sentences, self.decode_labels(enc, heads, labels))]

    def arc_scores(self, sentence, i: int = 0):
        """(S, LAB, SIB) of one sentence (a DepSentence, or sentence ``i`` of an
        :class:`~plgraph.dep.features.Encoded` batch): best-label arc scores ``S[h, d]``
        (h = 0 is ROOT), the best label ids ``LAB[h, d]``, and sibling scores (order 2)."""
        enc, i = self._encoded(sentence, i)
        return KN.sentence_scores(i, kernel_sentences(enc), *self.kernel_tables(), self.weights, self.config.order)

    def _encoded(self, source, i):
        """``(enc, i)`` for a DepSentence (encoded here, i = 0) or an already
        :class:`~plgraph.dep.features.Encoded` batch and a sentence index."""
        if isinstance(source, Encoded):
            if not 0 <= int(i) < len(source):
                raise IndexError(f"sentence {i} of an encoded batch of {len(source)}")
            return source, int(i)
        return self.encode([source]), 0

    def label_scores(self, source, i: int = 0, root: str = "first") -> np.ndarray:
        """Per-label arc scores ``T[h, d, l]`` (float64, shape (n+1, n+1, L)) of one
        sentence: a :class:`~plgraph.dep.conll.DepSentence`, or sentence ``i`` of an
        :class:`~plgraph.dep.features.Encoded` batch (score from arrays, no strings).

        ``T[h, d, l]`` is the model's score of the arc h -> d with label id ``l``
        (``self.labels[l]``) for every label the model's label constraint allows on
        that arc; labels it does not allow, ``d`` = ROOT and ``h == d`` are ``-inf``.
        So ``T.max(-1)`` is :meth:`arc_scores`' ``S`` and ``T.argmax(-1)`` its ``LAB``
        wherever an arc exists (ties: the lowest label id among the candidates, as
        there).  Positions: ``root="first"`` -- the CoNLL / :meth:`arc_scores`
        convention, 0 = ROOT and word k at k; ``root="last"`` -- the chart convention
        (the reference parser's), word k at k - 1 and ROOT at n."""
        if root not in ("first", "last"):
            raise ValueError("root must be 'first' or 'last'")
        enc, i = self._encoded(source, i)
        T = KN.label_score_table(i, kernel_sentences(enc), *self.kernel_tables(), self.weights, len(self.labels),
                                 np.int64(0), 0.0, 0.0, np.int64(0))
        if root == "last":
            n = int(enc.n[i])
            perm = np.concatenate([np.arange(1, n + 1), [0]])
            T = T[perm][:, perm]
        return T

    def max_marginals(self, sentence) -> tuple[np.ndarray, float]:
        """Per-arc max-marginals ``M[h, d]`` (score of the best projective tree that
        contains h -> d; -inf if none) and the best tree's score -- what the graph
        parser's first pass prunes with."""
        S, LAB, SIB = self.arc_scores(sentence)
        return KN.max_marginals(S, SIB if self.config.order == 2 else np.zeros((0, 0, 0)), self.config.order,
                                self.multi_root)

    # -- size -------------------------------------------------------------------------------
    def pruned(self, threshold: float = 0.0) -> "DepModel":
        """A copy without the arc features whose weights are all at most ``threshold`` in
        absolute value (``0``: only all-zero features, which changes no score -- what
        :meth:`save` always does; S&S likewise kept only non-null features).  A
        positive threshold trades a little accuracy for a smaller, faster model."""
        w = self.weights
        na = self.n_arc_weights
        sizes = np.diff(self.foff)
        big = (np.abs(w[:na]) > threshold).astype(np.int64)
        keep = (np.add.reduceat(big, self.foff[:-1]) > 0) if self.n_features else np.zeros(0, bool)
        idx_keep = np.repeat(keep, sizes)
        foff = np.zeros(int(keep.sum()) + 1, np.int64)
        np.cumsum(sizes[keep], out=foff[1:])
        table = FeatureTable.from_keys(self.table.keys()[keep])
        weights = np.concatenate([w[:na][idx_keep], w[na:]])
        info = dict(self.info, pruned_threshold=threshold)
        return DepModel(self.config, self.labels, self.taxonomy, table, foff, self.fnode[idx_keep],
                        (self.cpos_keys, self.lab_off, self.lab_list), self.multi_root, weights, info)

    # -- files ------------------------------------------------------------------------------
    def save(self, folder, extra_info: dict | None = None) -> dict:
        """Write ``folder/model.json`` + ``folder/model.npz`` atomically (each through a
        temporary file and ``os.replace``); all-zero features are dropped.  Returns the
        file sizes in bytes."""
        folder = os.fspath(folder)
        m = self.pruned(0.0)
        na = m.n_arc_weights
        sizes = np.diff(m.foff)
        arrays = {
            "keys": m.table.keys(),
            "block_sizes": sizes.astype(np.uint16 if sizes.max(initial=0) < 65535 else np.int64),
            "fnode": m.fnode.astype(np.int16 if m.taxonomy.n_nodes < 32767 else np.int32),
            "arc_weights": m.weights[:na],
            "sib_weights": m.weights[na:],
            "cpos_keys": m.cpos_keys,
            "lab_off": m.lab_off,
            "lab_list": m.lab_list,
        }
        doc = {"format": FORMAT, "format_version": FORMAT_VERSION, "version": FORMAT_VERSION,
               "config": m.config.to_json(), "labels": m.labels, "taxonomy": m.taxonomy.to_json(),
               "multi_root": m.multi_root, "n_features": m.n_features, "n_weights": m.n_weights,
               "info": {**self.info, **(extra_info or {})}}
        doc["crc32"] = content_crc32(arrays, doc, MODEL_CRC_KEYS)
        os.makedirs(folder, exist_ok=True)
        _atomic_savez(os.path.join(folder, "model.npz"), **arrays)
        _atomic_json(os.path.join(folder, "model.json"), doc)
        return {"model.npz": os.path.getsize(os.path.join(folder, "model.npz")),
                "model.json": os.path.getsize(os.path.join(folder, "model.json"))}

    @classmethod
    def load(cls, folder) -> "DepModel":
        """Load a model written by :meth:`save` (no retraining, no pickle).

        Raises :class:`~plgraph.errors.ModelFileError` naming the file for a missing,
        empty, truncated or corrupt ``model.json`` / ``model.npz``, another format or
        :data:`FORMAT_VERSION` (files without ``format_version`` are version 1), missing
        or mis-shaped parts, or a ``model.npz`` that does not belong to the
        ``model.json`` beside it."""
        folder = os.fspath(folder)
        jpath = os.path.join(folder, "model.json")
        npath = os.path.join(folder, "model.npz")
        for p in (jpath, npath):
            if not os.path.exists(p):
                raise ModelFileError(f"not a plgraph dependency model: {p} is missing", source=folder)
        doc = load_header(jpath, MODEL_JSON_KEYS, "dependency model header", FORMAT, FORMAT_VERSION,
                          "dependency model")
        arrays = load_npz(npath, MODEL_ARRAYS, "dependency model weights")
        check_crc32(doc, jpath, content_crc32(arrays, doc, MODEL_CRC_KEYS), "the model.npz beside it")
        with model_errors(npath, "dependency model"):
            config = DepConfig.from_json(check_keys(doc["config"], jpath, (), "config"))
            taxonomy = LabelTaxonomy.from_json(check_keys(doc["taxonomy"], jpath, {"labels": list, "paths": list},
                                                          "taxonomy"))
            sizes = arrays["block_sizes"].astype(np.int64)
            foff = np.zeros(sizes.shape[0] + 1, np.int64)
            np.cumsum(sizes, out=foff[1:])
            weights = np.concatenate([arrays["arc_weights"], arrays["sib_weights"]]).astype(np.float32)
            classes = (arrays["cpos_keys"], arrays["lab_off"], arrays["lab_list"])
            check_model_parts(npath, config, doc["labels"], taxonomy, arrays["keys"], sizes, arrays["fnode"],
                              classes, weights.shape[0])
            table = FeatureTable.from_keys(arrays["keys"])
            model = cls(config, doc["labels"], taxonomy, table, foff, arrays["fnode"].astype(np.int32), classes,
                        doc["multi_root"], weights, doc.get("info"))
            model.keep_keys_only(arrays["keys"])
        for key, n in (("n_features", model.n_features), ("n_weights", model.n_weights)):
            if doc.get(key, n) != n:
                raise ModelFileError(f"model.npz has {n} {key[2:]}, model.json says {doc[key]}: the files do not "
                                     f"belong together", source=npath)
        return model


#: what :meth:`DepModel.load` requires of ``model.json`` (key -> JSON type)
MODEL_JSON_KEYS = {"format": str, "config": dict, "labels": list, "taxonomy": dict, "multi_root": bool}
#: the fields of ``model.json`` its CRC covers (with model.npz's arrays); ``info`` is free
MODEL_CRC_KEYS = ("format", "format_version", "config", "labels", "taxonomy", "multi_root", "n_features",
                  "n_weights")
#: what :meth:`DepModel.load` requires of ``model.npz`` (name -> (ndim, dtype kinds))
MODEL_ARRAYS = {"keys": (1, "u"), "block_sizes": (1, "iu"), "fnode": (1, "iu"), "arc_weights": (1, "f"),
                "sib_weights": (1, "f"), "cpos_keys": (1, "u"), "lab_off": (1, "iu"), "lab_list": (1, "iu")}


def check_model_parts(path, config: DepConfig, labels, taxonomy: LabelTaxonomy, keys, block_sizes, fnode,
                      label_classes, n_weights: int) -> None:
    """Refuse parts of a model file that do not fit together (the kernels index with
    them unchecked): one block per feature key, block sizes 1 or at least K + 1 and
    below the packing limit, taxonomy nodes in range, label classes covering every
    (coarse POS pair, direction) with valid label ids, and the weight count.  Raises
    ModelFileError naming ``path``."""
    from ..learn._kernels import BLOCK_MASK

    def bad(what):
        raise ModelFileError(f"inconsistent dependency model: {what}", source=os.fspath(path))

    if not all(isinstance(x, str) for x in labels) or list(labels) != list(taxonomy.labels):
        bad("the labels differ from the taxonomy's labels")
    if keys.shape[0] != block_sizes.shape[0]:
        bad(f"{keys.shape[0]} feature keys but {block_sizes.shape[0]} weight blocks")
    K = taxonomy.K
    if block_sizes.size and (int(block_sizes.min()) < 1 or int(block_sizes.max()) > int(BLOCK_MASK)
                             or bool(((block_sizes > 1) & (block_sizes < K + 1)).any())):
        bad("weight block sizes out of range")
    n_arc = int(block_sizes.sum())
    if fnode.shape[0] != n_arc:
        bad(f"{fnode.shape[0]} taxonomy nodes for {n_arc} weights")
    if fnode.size and (int(fnode.min()) < -1 or int(fnode.max()) >= taxonomy.n_nodes):
        bad("taxonomy node ids out of range")
    sib = (1 << config.sib_bits) if config.order == 2 else 0
    if n_weights != n_arc + sib:
        bad(f"{n_weights} weights, expected {n_arc} arc + {sib} sibling weights")
    cpos_keys, lab_off, lab_list = label_classes
    nc = cpos_keys.shape[0] + 1
    if lab_off.shape[0] != nc * nc * 2 + 1 or (lab_off.size and int(lab_off[0]) != 0) \
            or bool((np.diff(lab_off) < 0).any()) or int(lab_off[-1]) != lab_list.shape[0]:
        bad("label class offsets do not fit the coarse POS keys")
    if lab_list.size and (int(lab_list.min()) < 0 or int(lab_list.max()) >= len(labels)):
        bad("label ids out of range")
