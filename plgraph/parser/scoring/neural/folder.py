"""The neural scorer's model folder (``.npz`` + JSON, never a pickle; every file written
atomically, :mod:`plgraph.files.atomic`): a :class:`~plgraph.parser.folder.ScorerFolder`
whose payload is the network.

``neural.json``
    format ``plgraph-neural`` and ``format_version``; ``network`` (the
    :class:`~plgraph.parser.scoring.neural.network.NetworkConfig` as a dict), ``sizes`` (the network's
    input and output sizes), ``vocabularies`` (word forms, characters, tags, spine
    identities: :class:`~plgraph.parser.scoring.neural.data.Vocabularies`), ``options`` (the training
    run's options), ``conversion`` (the graphs' conversion options), ``rules`` (how the
    rules were counted), ``files`` (CRC-32 of ``labels.json``, ``rules.npz``,
    ``rules.npz.json``), ``weights`` (the epoch of ``neural.npz``, its dev scores and the
    CRC-32 of its arrays), ``decode`` (the decoding options,
    :class:`~plgraph.parser.scoring.neural.prune.PruneConfig`, tuned on dev) and ``curves`` (one row per
    epoch).
``neural.npz``
    the network's parameters (float32, by their torch names) after the best epoch on dev.
``labels.json``, ``rules.npz`` (+ ``.json``), ``tagger.json``
    the edge labels, the rules and the POS tagger of the train split, as in the linear
    parser's folder (:mod:`plgraph.parser.model`).
``checkpoint.json`` + ``checkpoint.npz``
    the parameters, the optimiser's state and the random generators' after the last
    finished epoch: ``resume`` continues from there.
``curves.csv``
    the curves as a table.
``.plgraph-overwrite/`` (:data:`~plgraph.files.replacement.OVERWRITE_DIR`)
    only while ``parser train --scorer neural --overwrite`` trains a new model to replace
    the finished one: the new run's folder, of this same layout (:func:`replace_model`).
"""
from __future__ import annotations

import csv
import io
import os

import numpy as np

from ....errors import ModelFileError
from ....files.atomic import atomic_json, atomic_savez, atomic_text
from ....files.modelfile import content_crc32, load_json, load_npz
from ....files.replacement import replace_folder
from ....rules.tables import RuleTables
from ...folder import ScorerFolder
from ..labels import LabelVocab
from ..registry import SCORERS, scorer_dir

FORMAT = "plgraph-neural"
FORMAT_VERSION = 1
CHECKPOINT_FORMAT = "plgraph-neural-checkpoint"
HEADER = SCORERS["neural"].header
WEIGHTS = "neural.npz"
CHECKPOINT = "checkpoint.json"
CHECKPOINT_NPZ = "checkpoint.npz"
HEADER_KEYS = {"format": str, "network": dict, "sizes": dict, "vocabularies": dict, "options": dict,
               "files": dict}
#: the fields of neural.json its own ``crc32`` covers
HEADER_CRC_KEYS = ("format", "format_version", "network", "sizes", "vocabularies", "options", "conversion",
                   "files", "weights")


#: the neural model's folder inside a model folder ``M`` (``parser train --scorer neural``)
SUBDIR = SCORERS["neural"].subdir


def neural_dir(model_dir) -> str:
    """The neural model folder of ``model_dir``: itself when it holds a neural model's
    header, else ``model_dir/neural`` (:func:`~plgraph.parser.scoring.registry.scorer_dir`)."""
    return scorer_dir(model_dir, "neural")


def is_neural_folder(path) -> bool:
    """Does ``path`` hold a neural model's header?"""
    return os.path.isfile(os.path.join(os.fspath(path), HEADER))


class NeuralFolder(ScorerFolder):
    """A neural model folder (module docstring): :meth:`create` starts one, :meth:`open`
    reads one back (header checked), :meth:`save_weights` / :meth:`save_checkpoint`
    record an epoch."""

    HEADER = HEADER
    FORMAT = FORMAT
    FORMAT_VERSION = FORMAT_VERSION
    HEADER_KEYS = HEADER_KEYS
    HEADER_CRC_KEYS = HEADER_CRC_KEYS
    WHAT = "neural model"
    TRAIN_OPTIONS = " --scorer neural"

    @classmethod
    def create(cls, path, *, vocab: LabelVocab, rules: RuleTables, rules_info: dict, vocabularies: dict,
               network: dict, sizes: dict, options: dict, conversion) -> "NeuralFolder":
        """Write the labels, the rules and a ``neural.json`` with no weights yet into
        ``path`` (created)."""
        files = cls.write_tied(path, vocab, rules, rules_info)
        header = {"format": FORMAT, "format_version": FORMAT_VERSION, "network": network, "sizes": sizes,
                  "vocabularies": vocabularies, "options": options, "conversion": conversion, "rules": rules_info,
                  "files": files, "weights": None, "decode": None, "curves": []}
        folder = cls(path, header)
        folder.write_header()
        return folder

    def write_header(self) -> None:
        """``neural.json`` with a fresh CRC, and ``curves.csv``."""
        super().write_header()
        self._write_curves()

    def _write_curves(self) -> None:
        rows = self.header.get("curves") or []
        if not rows:
            return
        keys = list(dict.fromkeys(k for r in rows for k in r))
        out = io.StringIO()
        w = csv.DictWriter(out, keys)
        w.writeheader()
        w.writerows(rows)
        atomic_text(self.file("curves.csv"), out.getvalue())

    @classmethod
    def open(cls, path) -> "NeuralFolder":
        """Read ``neural.json`` (ModelFileError naming it when missing or damaged) and
        check the CRC-32 of the files tied to it; ModelFileError naming the list of files
        while a new model is replacing the folder's (:func:`replace_model`)."""
        return cls(path, cls.read_header(path))

    # -- parts ------------------------------------------------------------------------------------
    @property
    def trained(self) -> bool:
        return bool(self.header.get("weights"))

    def save_weights(self, arrays: dict, epoch: int, scores: dict) -> None:
        """``neural.npz`` (float32) and the header's ``weights`` entry."""
        arrays = {k: np.asarray(v, np.float32) for k, v in arrays.items()}
        atomic_savez(self.file(WEIGHTS), **arrays)
        self.header["weights"] = {"epoch": int(epoch), "dev": scores, "crc32": content_crc32(arrays)}
        self.write_header()

    def load_weights(self) -> dict:
        """The arrays of ``neural.npz``, checked against the header's CRC-32."""
        if not self.trained:
            raise ModelFileError("no trained weights yet: finish training with --resume", source=self.file(HEADER))
        arrays = load_npz(self.file(WEIGHTS), what="neural weights")
        if content_crc32(arrays) != self.header["weights"]["crc32"]:
            raise ModelFileError("checksum mismatch: the weights do not belong to this neural.json",
                                 source=self.file(WEIGHTS))
        return arrays

    def save_checkpoint(self, arrays: dict, state: dict) -> None:
        """``checkpoint.npz`` then ``checkpoint.json`` (``state`` with the arrays' CRC-32)."""
        atomic_savez(self.file(CHECKPOINT_NPZ), **arrays)
        doc = dict(state, format=CHECKPOINT_FORMAT, crc32=content_crc32(arrays))
        atomic_json(self.file(CHECKPOINT), doc)

    def load_checkpoint(self) -> tuple[dict, dict] | None:
        """``(arrays, state)`` of the last finished epoch, None when there is none."""
        if not os.path.isfile(self.file(CHECKPOINT)):
            return None
        state = load_json(self.file(CHECKPOINT), what="neural checkpoint")
        arrays = load_npz(self.file(CHECKPOINT_NPZ), what="neural checkpoint")
        if content_crc32(arrays) != state.get("crc32"):
            raise ModelFileError("checksum mismatch: checkpoint.npz does not belong to checkpoint.json",
                                 source=self.file(CHECKPOINT_NPZ))
        return arrays, state


#: the files of an earlier run that a replacing model may lack (:func:`replace_model` deletes them)
_RUN_FILES = r"tagger\.json|checkpoint\.(json|npz)|curves\.csv"


def replace_model(work, folder) -> None:
    """Put the complete model trained into ``work`` (``folder``'s
    :data:`~plgraph.files.replacement.OVERWRITE_DIR`) in place of ``folder``'s
    (:func:`plgraph.files.replacement.replace_folder`: each file moved by one rename,
    ``neural.json`` last, then the old run's tagger, checkpoint and curves the new run has
    not deleted); call it holding ``folder``'s lock.  A run killed midway leaves the
    replacement for the next ``parser train --scorer neural`` into ``folder`` to complete;
    until then :meth:`NeuralFolder.open` refuses the folder, naming it."""
    replace_folder(work, folder, header=HEADER, stale=_RUN_FILES)


__all__ = ["NeuralFolder", "replace_model", "is_neural_folder", "neural_dir", "SUBDIR", "FORMAT", "FORMAT_VERSION"]
