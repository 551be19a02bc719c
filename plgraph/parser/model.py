"""The graph parser's model folder, and training one pass into it.

``python -m plgraph parser train`` writes a folder ``M`` (``.npz`` + JSON only, never a
pickle; every file written atomically, :mod:`plgraph.files.atomic`):

``parser.json``
    format ``plgraph-parser`` and ``format_version``; ``conversion``, the training graphs'
    conversion options (:func:`plgraph.learn.loop.conversion_record`); ``pruners``, the
    coarse models' folder (relative to ``M`` when inside it) and their ``fingerprint``
    (the ``crc32`` fields of its ``pruners.json`` and ``arc/model.json``); ``max_words``,
    ``limit`` and ``seed`` of the run; ``rules``, how the rules were counted; ``files``,
    the CRC-32 of the bytes of ``labels.json``, ``rules.npz`` and ``rules.npz.json``;
    ``passes``, per trained pass its ``config`` (the pass's config dataclass as a dict),
    the ``epochs`` trained, its weights file ``npz`` and their ``crc32``; ``trained``, the
    passes in training order; ``curves``, one row per pass and epoch; and a ``crc32`` over
    all of it but the curves.
``labels.json``
    the edge labels of the train split (:class:`~plgraph.parser.scoring.labels.LabelVocab`).
``rules.npz`` + ``rules.npz.json``
    the rules of the train split's derivations (:class:`~plgraph.rules.tables.RuleTables`).
``<pass>.npz`` (``pass2.npz``)
    the pass's final weights ``w`` after its last finished epoch, float32.  Dev scores
    during training and every loaded model decode with exactly these values (widened to
    float64), so the chart's score and ``w . phi`` always read the same weights.
``checkpoint-<pass>.json`` + ``checkpoint-<pass>-<epoch>.npz``
    the pass's learner after its last finished epoch
    (:func:`plgraph.learn.loop.write_checkpoint`): ``--resume`` continues bit for bit.
``curves.json``, ``curves.csv``, ``log.jsonl``
    the training curves of every pass (column ``model`` names the pass).
``pruners/``
    the coarse models, when ``parser train`` trained them (no ``--pruners``).
``.plgraph-overwrite/`` (:data:`~plgraph.files.replacement.OVERWRITE_DIR`)
    only while ``parser train --overwrite`` trains a new model to replace the finished one
    in ``M``: the new run's folder, of this same layout (:func:`replace_model`,
    :mod:`plgraph.files.replacement`).

Every reader of a folder loads it with :meth:`ParserModel.load`, which reads and checks
every file of the model before the caller does any work.

The passes are trained into the folder by :func:`plgraph.parser.training.passes.train_pass`.
"""
from __future__ import annotations

import os
import re
import shutil
from dataclasses import asdict, fields

import numpy as np

from ..files.atomic import atomic_savez_compressed
from ..errors import InputError, ModelFileError
from ..learn.learners import plain_read_args
from ..learn.loop import write_curves, write_log
from ..files.modelfile import check_array, check_crc32, content_crc32, load_json, load_npz, model_errors
from ..files.replacement import OVERWRITE_DIR, remove_matching, replace_folder
from ..rules.tables import RuleTables
from .folder import ScorerFolder
from .scoring.labels import LabelVocab

FORMAT = "plgraph-parser"
#: version of ``parser.json``
FORMAT_VERSION = 1
CHECKPOINT_FORMAT = "plgraph-parser-checkpoint"
#: version of ``checkpoint-<pass>.json``
CHECKPOINT_VERSION = 1
#: the files every run writes into the folder (checked writable before any work)
FOLDER_FILES = ("parser.json", "labels.json", "rules.npz", "rules.npz.json", "curves.json", "curves.csv",
                "log.jsonl", "tagger.json")
#: what ``parser.json`` must hold (key -> JSON type)
HEADER_KEYS = {"format": str, "pruners": dict, "max_words": int, "seed": int, "files": dict, "passes": dict,
               "trained": list}
#: the fields of ``parser.json`` its CRC covers; the curves are free
HEADER_CRC_KEYS = ("format", "format_version", "conversion", "pruners", "max_words", "limit", "seed", "rules",
                   "files", "passes", "trained")
#: what a ``checkpoint-<pass>.json`` must hold
CHECKPOINT_KEYS = {"epoch": int, "model": str, "learner": dict, "learner_config": dict, "config": dict,
                   "n_weights": int, "curves": list}
CHECKPOINT_CRC_KEYS = ("format", "format_version", "model", "epoch", "npz", "learner", "learner_config", "config",
                       "n_weights", "seed", "curves")
#: the sub-folder holding a training run's prepared sentences (shards, :mod:`plgraph.files.shards`)
PREPARED_DIR = "prepared"


def pass_files(name: str) -> tuple[str, ...]:
    """The files of pass ``name`` in the folder (besides its numbered checkpoint arrays)."""
    return (f"{name}.npz", f"checkpoint-{name}.json")


def pruners_fingerprint(folder) -> dict:
    """What identifies a trained set of coarse models: the ``crc32`` fields (content
    checksums over their arrays and model-defining fields) of ``folder/pruners.json`` and
    ``folder/arc/model.json``.  ModelFileError naming the file when one is missing or
    damaged."""
    out = {}
    for name, what in (("pruners.json", "pruner models header"), ("arc/model.json", "arc pass model header")):
        doc = load_json(os.path.join(os.fspath(folder), name), {}, what)
        out[name] = doc.get("crc32")
    return out


def _stored_path(path, folder) -> str:
    """``path`` as recorded in ``folder``'s ``parser.json``: relative when inside it."""
    path, folder = os.path.abspath(path), os.path.abspath(folder)
    return os.path.relpath(path, folder) if os.path.commonpath([path, folder]) == folder else path


def _pass_files_pattern(name_pattern: str) -> str:
    """The files of the passes whose names match ``name_pattern``: weights and checkpoints."""
    return rf"({name_pattern})\.npz|checkpoint-({name_pattern})(-\d+)?\.(json|npz)"


#: the files of a run that a fresh run removes first (:func:`clear_previous_run`)
_RUN_FILES = r"parser\.json|tagger\.json|" + _pass_files_pattern(r"pass\d+")


def clear_previous_run(folder) -> None:
    """Before a fresh (not resumed) run into a folder without a finished model
    (:func:`holds_finished_model`): remove ``parser.json``, the POS tagger, every pass's
    weights and checkpoints and the unfinished work of an earlier ``--overwrite``
    (:data:`OVERWRITE_DIR`) that a previous run left in ``folder``, so that no later
    ``--resume`` mixes the two runs.  Other files are overwritten by the run itself;
    ``pruners/`` is left to the coarse models' own training.  Prepared sentences a run
    kept (:data:`PREPARED_DIR`) go too."""
    remove_matching(folder, _RUN_FILES)
    shutil.rmtree(os.path.join(os.fspath(folder), OVERWRITE_DIR), ignore_errors=True)
    shutil.rmtree(os.path.join(os.fspath(folder), PREPARED_DIR), ignore_errors=True)


def holds_finished_model(folder, passes) -> bool:
    """Whether ``folder`` holds a model that a fresh run must not clear: its
    ``parser.json`` names every pass of ``passes`` trained, or exists but cannot be read
    (a damaged model is still somebody's)."""
    path = os.path.join(os.fspath(folder), "parser.json")
    if not os.path.lexists(path):
        return False
    try:
        trained = load_json(path, {"trained": list}, "parser model header")["trained"]
    except ModelFileError:
        return True
    return set(passes) <= set(trained)


# ---------------------------------------------------------------------------------------------
# replacing a finished model
# ---------------------------------------------------------------------------------------------
def replace_model(work, folder) -> None:
    """Put the complete model a run trained into ``work`` (``folder``'s
    :data:`~plgraph.files.replacement.OVERWRITE_DIR`) in place of the model of ``folder``
    (:func:`plgraph.files.replacement.replace_folder`: each file moved by one rename, a
    sub-folder such as ``pruners/`` by two, ``parser.json`` last; then the old run's pass
    files and tagger the new run has not are deleted); call it holding ``folder``'s lock.
    A run killed midway leaves the replacement for the next ``parser train`` into
    ``folder`` to complete (``--overwrite --resume`` then stops there); until then
    loaders refuse the folder (:meth:`ParserFolder.open`)."""
    replace_folder(work, folder, header="parser.json", stale=_RUN_FILES)


# ---------------------------------------------------------------------------------------------
# the folder
# ---------------------------------------------------------------------------------------------
class ParserFolder(ScorerFolder):
    """A parser model folder: its path and its ``parser.json`` document (``header``),
    the linear scorer's :class:`~plgraph.parser.folder.ScorerFolder`.

    :meth:`create` starts one (labels, rules, a header without passes), :meth:`open`
    reads one back (checked), :meth:`save_pass` records a pass after each epoch."""

    HEADER = "parser.json"
    FORMAT = FORMAT
    FORMAT_VERSION = FORMAT_VERSION
    HEADER_KEYS = HEADER_KEYS
    HEADER_CRC_KEYS = HEADER_CRC_KEYS
    WHAT = "parser model"

    def __init__(self, path, header: dict):
        super().__init__(path, header)
        #: pass name -> its arrays, read and checked by :meth:`check_passes`, until :meth:`pass_arrays` takes them
        self._checked: dict = {}

    # -- writing ---------------------------------------------------------------------------
    @classmethod
    def create(cls, path, *, vocab: LabelVocab, rules: RuleTables, rules_info: dict, conversion, pruners_dir,
               pruners_print: dict, max_words: int, limit: int | None, seed: int) -> "ParserFolder":
        """Write ``labels.json``, ``rules.npz`` (+ ``.json``) and a ``parser.json`` with no
        pass yet into ``path`` (created); ``pruners_print``: :func:`pruners_fingerprint` of
        ``pruners_dir``; ``rules_info``: how the rules were counted (for the record)."""
        path = os.fspath(path)
        files = cls.write_tied(path, vocab, rules, rules_info)
        header = {"format": FORMAT, "format_version": FORMAT_VERSION, "conversion": conversion,
                  "pruners": {"path": _stored_path(pruners_dir, path), "fingerprint": pruners_print},
                  "max_words": int(max_words), "limit": limit, "seed": int(seed), "rules": rules_info,
                  "files": files, "passes": {}, "trained": [], "curves": []}
        folder = cls(path, header)
        folder.write_header()
        return folder

    def save_pass(self, name: str, config, weights: np.ndarray, epoch: int, curves: list,
                  extra: dict | None = None) -> None:
        """After epoch ``epoch`` of pass ``name``: its final ``weights`` (stored float32) and
        the model's ``extra`` arrays (pass 3's positive bitmap) in ``<name>.npz``, then
        ``parser.json`` (the pass's config, epochs and the arrays' CRC; ``curves``, the
        rows of every pass), ``curves.json``/``.csv`` and ``log.jsonl``."""
        arrays = {**(extra or {}), "w": np.asarray(weights, np.float32)}
        npz = f"{name}.npz"
        atomic_savez_compressed(os.path.join(self.path, npz), **arrays)
        dropped = self._drop_passes_after(name)
        self.header["passes"][name] = {"config": asdict(config), "epochs": int(epoch), "npz": npz,
                                       "crc32": content_crc32(arrays)}
        if name not in self.header["trained"]:
            self.header["trained"].append(name)
        curves = [r for r in curves if r.get("model") not in dropped]
        self.header["curves"] = curves
        self.write_header()
        write_curves(self.path, curves)
        write_log(self.path, curves)

    def set_tuned_option(self, name: str, key: str, value, curve: list | None = None) -> None:
        """Record a decoding option tuned on dev after pass ``name`` was trained (pass 3's
        ``trace_bias``) in its stored config, with the ``curve`` it was read off
        (``tuned_curves[key]`` of the pass's entry), and rewrite ``parser.json``.  The
        checkpoint keeps the untuned value, so a resumed run trains the same pass."""
        entry = self._pass_entry(name)
        entry["config"][key] = value
        if curve is not None:
            entry.setdefault("tuned_curves", {})[key] = curve
        self.write_header()

    def _drop_passes_after(self, name: str) -> list[str]:
        """A pass trained further invalidates the passes trained after it (they were
        pruned by its older weights): forget them and delete their weights and
        checkpoints (``parser.json`` is rewritten by the caller).  Returns their names."""
        trained = self.header["trained"]
        later = trained[trained.index(name) + 1:] if name in trained else []
        for other in later:
            self.header["passes"].pop(other, None)
            remove_matching(self.path, _pass_files_pattern(re.escape(other)))
        del trained[len(trained) - len(later):]
        return later

    # -- reading ---------------------------------------------------------------------------
    @classmethod
    def open(cls, path) -> "ParserFolder":
        """The folder at ``path`` with its checked ``parser.json``.  Raises
        :class:`~plgraph.errors.ModelFileError` naming the file when ``parser.json`` is
        missing, damaged, of another format or version, or does not belong to the
        ``labels.json`` / ``rules.npz`` beside it, and while a new model is replacing the
        folder's (:func:`replace_model`; naming its list of files)."""
        path = os.fspath(path)
        jpath = os.path.join(path, "parser.json")
        doc = cls.read_header(path)
        with model_errors(jpath, "parser model header"):
            for name, entry in doc["passes"].items():
                ok = isinstance(entry, dict) and isinstance(entry["config"], dict) and entry["npz"] == f"{name}.npz"
                if not ok or not isinstance(entry["epochs"], int):
                    raise ModelFileError(f"pass {name!r} is not described by a config, epochs and {name}.npz",
                                         source=jpath)
        return cls(path, doc)

    @property
    def max_words(self) -> int:
        return int(self.header["max_words"])

    @property
    def seed(self) -> int:
        return int(self.header["seed"])

    def pruners_dir(self) -> str:
        """The coarse models' folder the parser was trained with (absolute)."""
        return os.path.abspath(os.path.join(self.path, self.header["pruners"]["path"]))

    def curves_without(self, name: str) -> list:
        """The curve rows of every pass but ``name``."""
        return [r for r in self.header.get("curves") or [] if isinstance(r, dict) and r.get("model") != name]

    def pass_config(self, name: str, config_cls):
        """Pass ``name``'s config as stored in ``parser.json`` (a ``config_cls``,
        :func:`stored_config`)."""
        entry = self._pass_entry(name)
        with model_errors(os.path.join(self.path, "parser.json"), f"{name} config"):
            return stored_config(config_cls, entry["config"])

    def pass_arrays(self, name: str) -> tuple[dict, str]:
        """``(arrays, path)`` of pass ``name``'s ``<name>.npz``: ``w`` and any extra arrays,
        checked against the CRC ``parser.json`` records; ModelFileError naming the file
        when it is missing, damaged, or not the one ``parser.json`` records.  Arrays that
        :meth:`check_passes` read are handed over (once), not read again."""
        entry = self._pass_entry(name)
        npath = os.path.join(self.path, entry["npz"])
        if name in self._checked:
            return self._checked.pop(name), npath
        arrays = load_npz(npath, {"w": (1, "f")}, f"{name} weights")
        check_crc32(entry, npath, content_crc32(arrays), os.path.join(self.path, "parser.json"))
        return arrays, npath

    def check_passes(self) -> None:
        """Read and check the weights file of every trained pass (:meth:`pass_arrays`),
        keeping the arrays for the pass's first :meth:`pass_arrays`."""
        for name in self.header["passes"]:
            self._checked[name] = self.pass_arrays(name)[0]

    def _pass_entry(self, name: str) -> dict:
        entry = self.header["passes"].get(name)
        if entry is None:
            trained = ", ".join(self.header["trained"]) or "none"
            raise InputError(f"the parser model has no trained {name} (passes trained: {trained}); "
                             f"run python -m plgraph parser train", os.path.join(self.path, "parser.json"))
        return entry


class ParserModel:
    """A trained parser loaded from its folder: ``folder`` (:class:`ParserFolder`),
    ``vocab``, ``rules``, ``pruners`` (:class:`~plgraph.pruners.Pruners`, checked
    against the fingerprint recorded at training) and ``tagger``
    (:class:`~plgraph.parser.parsing.tagger.PosTagger`; None when not loaded or absent)."""

    def __init__(self, folder: ParserFolder, vocab: LabelVocab, rules: RuleTables, pruners, tagger=None):
        self.folder, self.vocab, self.rules, self.pruners, self.tagger = folder, vocab, rules, pruners, tagger

    @classmethod
    def load(cls, path, pruners: bool = True, tagger: bool = True) -> "ParserModel":
        """Load the folder ``path``, reading and checking every file of its model before
        the caller does any work: ``parser.json``, ``labels.json``, ``rules.npz`` (+
        ``.json``), every trained pass's ``<pass>.npz`` (against the CRC in
        ``parser.json``; the arrays are kept for :meth:`pass_model`), the coarse models
        unless ``pruners=False``, and ``tagger.json`` (or ``tagger.json.xz``) when there is
        one unless ``tagger=False``.  Every command that reads a model folder loads it here first
        (``parser stats|evaluate|tagger``, and ``parse`` through
        :meth:`plgraph.parser.scoring.linear.LinearScorer.load`).  Damaged or missing files raise
        :class:`~plgraph.errors.ModelFileError` naming the file; coarse models other than
        those the parser was trained with too."""
        from ..pruners import Pruners
        from .parsing.tagger import PosTagger, tagger_file

        folder = ParserFolder.open(path)
        vocab, rules = folder.vocab(), folder.rules()
        folder.check_passes()
        pdir = folder.pruners_dir() if pruners else None
        pr = Pruners.load(pdir) if pdir else None
        if pdir:
            stored = folder.header["pruners"].get("fingerprint")
            if pruners_fingerprint(pdir) != stored:
                raise ModelFileError(f"the coarse models in {pdir} are not those the parser was trained with "
                                     f"(fingerprint {pruners_fingerprint(pdir)}, trained with {stored}); retrain "
                                     f"the parser or restore them", source=os.path.join(pdir, "pruners.json"))
        tpath = tagger_file(folder.path) if tagger else None
        pos = PosTagger.load(tpath) if tpath else None
        return cls(folder, vocab, rules, pr, pos)

    @property
    def max_words(self) -> int:
        return self.folder.max_words

    def pass_model(self, name: str, config_cls, make):
        """``(model, read_args)`` of trained pass ``name``: ``make(config)`` (``config``: the
        stored config as a ``config_cls``; e.g. ``lambda c: Pass2Model(m.vocab, c)``) and the
        ``wread`` arguments of its final weights."""
        config = self.folder.pass_config(name, config_cls)
        model = make(config)
        arrays, npath = self.folder.pass_arrays(name)
        if "positive" in arrays:
            with model_errors(npath, f"{name} weights"):
                check_array(arrays, npath, "positive", 1, "u")
                check_array(arrays, npath, "pool_bits", 0, "i")
                model.set_positive(arrays["positive"].astype(np.uint8), int(arrays["pool_bits"]))
        elif getattr(config, "negative_pool", 0):
            raise ModelFileError(f"{name} was trained with a negative pool (negative_pool "
                                 f"{config.negative_pool}) but its file has no positive bitmap", source=npath)
        check_array(arrays, npath, "w", shape=(model.n_weights,))
        return model, plain_read_args(np.ascontiguousarray(arrays["w"], np.float32))


# ---------------------------------------------------------------------------------------------
# training one pass
# ---------------------------------------------------------------------------------------------
def stored_config(config_cls, stored: dict):
    """A ``config_cls`` from a stored config dict, which must hold every field of
    ``config_cls`` and no other (TypeError naming the fields otherwise; the loaders turn
    it into a ModelFileError naming the file)."""
    names = [f.name for f in fields(config_cls)]
    missing = [n for n in names if n not in stored]
    if missing:
        raise TypeError(f"{config_cls.__name__}: missing {', '.join(missing)}")
    return config_cls(**stored)


def stored_pass_config(folder, name: str) -> dict | None:
    """Pass ``name``'s config as its checkpoint in ``folder`` records it (None without a
    checkpoint); ModelFileError naming the file when it is damaged."""
    path = os.path.join(os.fspath(folder), f"checkpoint-{name}.json")
    if not os.path.exists(path):
        return None
    return load_json(path, CHECKPOINT_KEYS, f"{name} checkpoint")["config"]


def folder_files(passes) -> tuple[str, ...]:
    """Every file a run of ``passes`` (names) writes into the folder."""
    return FOLDER_FILES + tuple(f for name in passes for f in pass_files(name))


__all__ = ["FORMAT", "FORMAT_VERSION", "ParserFolder", "ParserModel", "pruners_fingerprint", "clear_previous_run",
           "stored_config", "stored_pass_config",
           "folder_files", "pass_files", "holds_finished_model", "replace_model",
           "PREPARED_DIR"]
