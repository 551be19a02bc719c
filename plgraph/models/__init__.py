"""The models shipped with plgraph (package data): the released graph parser in
``plgraph/models/parser`` (:func:`released_dir`), made by :mod:`plgraph.release`.

:func:`default_model_dir` is the folder every command and loader uses without
``--model-dir`` (``python -m plgraph parse``, ``plgraph.load()``).
"""
from __future__ import annotations

from pathlib import Path

from ..errors import ModelFileError

#: the file a released folder keeps its record in (:mod:`plgraph.release.record`)
RECORD = "release.json"


def released_dir() -> Path:
    """The folder the released model is shipped in (``plgraph/models/parser``)."""
    return Path(__file__).resolve().parent / "parser"


def has_release(folder=None) -> bool:
    """Does ``folder`` (default :func:`released_dir`) hold a released model's record?"""
    return (Path(folder or released_dir()) / RECORD).is_file()


def default_model_dir() -> str:
    """The model folder commands use without ``--model-dir``: the released model.
    ModelFileError saying how to make one when plgraph was installed without it."""
    folder = released_dir()
    if not has_release(folder):
        raise ModelFileError("plgraph's released parser model is missing (an install without package data?); "
                             "give --model-dir M, or make it: `make release-model`", source=str(folder))
    return str(folder)


__all__ = ["RECORD", "released_dir", "has_release", "default_model_dir"]
