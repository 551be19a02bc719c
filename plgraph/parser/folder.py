"""What every scorer's model folder shares (``.npz`` + JSON, never a pickle; every file
written atomically, :mod:`plgraph.files.atomic`).

A scorer's folder has a JSON header (``parser.json`` for the linear scorer,
:class:`~plgraph.parser.model.ParserFolder`; ``neural.json`` for the neural one,
:class:`~plgraph.parser.scoring.neural.folder.NeuralFolder`) with a format name, a
``format_version`` and a ``crc32`` over the fields that define the model; and the files
tied to it by their CRC-32 (``files``): the train split's edge labels (``labels.json``)
and rules (``rules.npz`` + ``rules.npz.json``).  What else it holds is the scorer's
payload (the passes' weights; the network's parameters and vocabularies), described by
the subclass.

:class:`ScorerFolder` writes and checks that common part.  Replacing a finished model
crash-safely (:mod:`plgraph.files.replacement`) and the lock of a training run
(:mod:`plgraph.files.lock`) are shared too: a folder whose model is being replaced is
refused by :meth:`ScorerFolder.read_header`, naming the command that completes it.
"""
from __future__ import annotations

import os
import zlib

from ..errors import InputError, ModelFileError
from ..files.atomic import atomic_json
from ..files.modelfile import check_crc32, content_crc32, load_header, require_file
from ..files.replacement import refuse_pending
from ..rules.tables import RuleTables
from .scoring.labels import LabelVocab

#: the files tied to every scorer's header by their CRC-32
TIED_FILES = ("labels.json", "rules.npz", "rules.npz.json")


def file_crc32(path) -> int:
    """CRC-32 of the bytes of ``path`` (ModelFileError naming it when it cannot be read)."""
    require_file(path, "model file")
    try:
        with open(path, "rb") as handle:
            return zlib.crc32(handle.read())
    except OSError as err:
        raise ModelFileError(f"cannot be read ({err.strerror or err})", source=os.fspath(path)) from None


class ScorerFolder:
    """A scorer's model folder: its ``path`` and its header document (``header``).  A
    subclass names its header file (``HEADER``), ``FORMAT`` and ``FORMAT_VERSION``, the
    keys the header must hold (``HEADER_KEYS``: key -> JSON type), those its CRC covers
    (``HEADER_CRC_KEYS``), what its messages call the model (``WHAT``) and the option
    of ``parser train`` that trains it (``TRAIN_OPTIONS``)."""

    HEADER: str = ""
    FORMAT: str = ""
    FORMAT_VERSION: int = 1
    HEADER_KEYS: dict = {}
    HEADER_CRC_KEYS: tuple = ()
    WHAT: str = "model"
    TRAIN_OPTIONS: str = ""

    def __init__(self, path, header: dict):
        self.path = os.fspath(path)
        self.header = header

    def file(self, name: str) -> str:
        """The path of ``name`` in the folder."""
        return os.path.join(self.path, name)

    # -- writing ---------------------------------------------------------------------------
    @staticmethod
    def write_tied(path, vocab: LabelVocab, rules: RuleTables, rules_info: dict) -> dict:
        """Write ``labels.json`` and ``rules.npz`` (+ ``.json``, ``rules_info``: how the
        rules were counted) into ``path`` (created); the header's ``files`` entry, their
        CRC-32."""
        path = os.fspath(path)
        os.makedirs(path, exist_ok=True)
        vocab.save(os.path.join(path, "labels.json"))
        rules.save(os.path.join(path, "rules.npz"), meta=rules_info)
        return {name: file_crc32(os.path.join(path, name)) for name in TIED_FILES}

    def write_header(self) -> None:
        """The header with a fresh CRC (atomically)."""
        doc = {k: v for k, v in self.header.items() if k != "crc32"}
        doc["crc32"] = content_crc32(None, doc, self.HEADER_CRC_KEYS)
        self.header = doc
        atomic_json(self.file(self.HEADER), doc)

    # -- reading ---------------------------------------------------------------------------
    @classmethod
    def read_header(cls, path) -> dict:
        """The checked header of the folder at ``path``.  ModelFileError naming the file
        when the header is missing, damaged, of another format or version, or a tied
        file is missing or does not belong to it; naming the list of files while a new
        model is replacing the folder's (:func:`plgraph.files.replacement.replace_folder`)."""
        path = os.fspath(path)
        refuse_pending(path, f"python -m plgraph parser train{cls.TRAIN_OPTIONS} --model-dir {path} "
                             f"--overwrite --resume")
        hpath = os.path.join(path, cls.HEADER)
        if not os.path.exists(hpath):
            raise ModelFileError(f"not a plgraph {cls.WHAT} folder: {hpath} is missing", source=path)
        doc = load_header(hpath, cls.HEADER_KEYS, f"{cls.WHAT} header", cls.FORMAT, cls.FORMAT_VERSION, cls.WHAT)
        check_crc32(doc, hpath, content_crc32(None, doc, cls.HEADER_CRC_KEYS), f"the {cls.WHAT} it describes")
        for name in TIED_FILES:
            fpath = os.path.join(path, name)
            if file_crc32(fpath) != doc["files"].get(name):
                raise ModelFileError(f"does not belong to {hpath} (checksum differs: written by another run, "
                                     f"or a save was interrupted); retrain or restore the folder", source=fpath)
        return doc

    def vocab(self) -> LabelVocab:
        """The edge labels (``labels.json``; ModelFileError naming it when damaged)."""
        lpath = self.file("labels.json")
        try:
            return LabelVocab.load(lpath)
        except InputError as err:
            raise ModelFileError(err.reason, source=lpath) from None

    def rules(self) -> RuleTables:
        """The rule tables (``rules.npz``; ModelFileError naming the file when damaged)."""
        return RuleTables.load(self.file("rules.npz"))


__all__ = ["ScorerFolder", "TIED_FILES", "file_crc32"]
