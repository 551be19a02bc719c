"""The released parser: a compact trained model shipped with plgraph, and how it is made.

* :mod:`plgraph.models`: where it lives (:func:`released_dir`, package data) and
  :func:`default_model_dir` (what ``parse`` uses without ``--model-dir``), exported here too;
* :mod:`~plgraph.release.record`: its record ``release.json`` (checksums, how it was made,
  its scores);
* :mod:`~plgraph.release.pack`: a trained model folder packed into the folder a release
  ships (non-zero weights in reduced precision, compressed: :mod:`plgraph.files.packing`);
* :mod:`~plgraph.release.build`: :func:`release_model` packs, scores, refuses a packing
  that moves dev F1 too much, records and replaces the release; :func:`rescore_release`
  scores a release again when plgraph's parsing changed and its files did not;
* :mod:`~plgraph.release.card`: the model card written from the record.
"""
from __future__ import annotations

from ..models import default_model_dir, has_release, released_dir
from .record import load_record

__all__ = ["default_model_dir", "has_release", "load_record", "released_dir", "release_model", "rescore_release",
           "ReleaseConfig"]


def __getattr__(name):
    if name in ("release_model", "rescore_release", "ReleaseConfig"):
        from . import build

        return getattr(build, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
