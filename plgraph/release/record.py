"""Where the released model lives, and the record it is shipped with.

The released model is the folder :func:`~plgraph.models.released_dir` (package data of
plgraph: ``plgraph/models/parser``, :mod:`plgraph.models`): a packed linear parser (:mod:`plgraph.release.pack`) with
its neural model in ``neural/``.  Beside its files, ``release.json`` (:data:`RECORD`)
holds what :func:`plgraph.release.build.release_model` measured when it made them: the
SHA-256 and size of every file, how it was made (source folder, precisions, command), and
per scorer the scores on dev and test with gold and predicted tags, the dev score of
the folder before packing, and the scores on :func:`check_sentences`, which the test
suite recomputes.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ..files.modelfile import load_header
from ..models import RECORD, default_model_dir, has_release, released_dir

FORMAT = "plgraph-release"
FORMAT_VERSION = 1
#: what a record must hold
RECORD_KEYS = {"format": str, "files": dict, "scorers": dict, "made": dict}


def file_digests(folder) -> dict:
    """``{relative path: {"bytes", "sha256"}}`` of every file below ``folder`` except the
    record, paths with ``/``, sorted."""
    folder = Path(folder)
    out = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.name != RECORD):
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        out[path.relative_to(folder).as_posix()] = {"bytes": path.stat().st_size, "sha256": digest.hexdigest()}
    return out


def load_record(folder=None) -> dict:
    """The record of the released folder ``folder`` (default :func:`released_dir`);
    ModelFileError naming the file when it is missing or damaged."""
    path = os.path.join(os.fspath(folder or released_dir()), RECORD)
    return load_header(path, RECORD_KEYS, "release record", FORMAT, FORMAT_VERSION, "release record")


def changed_files(folder=None, record: dict | None = None) -> list[str]:
    """The files of ``folder`` that differ from its record (missing, extra, other
    size or SHA-256), one line each; empty when the folder is as released."""
    folder = folder or released_dir()
    record = load_record(folder) if record is None else record
    found, listed = file_digests(folder), record["files"]
    out = [f"{name}: missing" for name in listed if name not in found]
    out += [f"{name}: not in the release" for name in found if name not in listed]
    for name in listed:
        if name not in found or found[name] == listed[name]:
            continue
        now, then = found[name], listed[name]
        if now["sha256"] != then["sha256"]:
            out.append(f"{name}: changed (sha256 {now['sha256'][:12]}..., released {then['sha256'][:12]}...)")
        else:
            out.append(f"{name}: the record says {then['bytes']} bytes, the file has {now['bytes']} (the same "
                       f"sha256: the record was edited)")
    return out


def scorer_bytes(record: dict, scorer: str) -> int:
    """Bytes of the files of ``scorer`` (``linear``: all but ``neural/``; ``neural``:
    ``neural/``) in a record."""
    inside = [n for n in record["files"] if n.startswith("neural/")]
    names = inside if scorer == "neural" else [n for n in record["files"] if n not in inside]
    return sum(record["files"][n]["bytes"] for n in names)


def check_sentences(dev, count: int, max_words: int = 25) -> list:
    """The dev sentences the release scores for the test suite to recompute: the first
    ``count`` of at most ``max_words`` words (short, so that the check is quick)."""
    return [s for s in dev if len(s.graph.words) <= max_words][:count]


__all__ = ["RECORD", "released_dir", "has_release", "default_model_dir", "file_digests", "load_record",
           "changed_files", "scorer_bytes", "check_sentences"]
