"""Replacing a finished model by a newly trained one, crash-safely: the one mechanism
behind ``--overwrite`` for every model folder of plgraph (the graph parser's linear
scorer, :mod:`plgraph.parser.model`, and its neural scorer, :mod:`plgraph.parser.scoring.neural.folder`).

A run that replaces the model of folder ``F`` trains into ``F/.plgraph-overwrite``
(:data:`OVERWRITE_DIR`) and never writes outside it, so that ``F``'s old model stays
untouched, and loads, until the new one is complete.  Then :func:`replace_folder` writes
the list of the new model's files (``F/.plgraph-overwrite/replacing.json``,
:data:`REPLACING_FILE`) and moves each into ``F`` by one rename (a sub-folder by two),
the model's header last; then it deletes the old run's files the new run has not (those
whose names match ``stale``), and the work folder.  Nothing is copied or computed: ``F``
holds a mix of the two models only for the time of these renames, and never loses a file
of the new model.  Ctrl-C waits for the end.

A run killed midway leaves the list behind: loaders refuse ``F``, naming it
(:func:`refuse_pending`), and the next training command into ``F`` first completes the
replacement (:func:`finish_replacement`).  Call these functions holding ``F``'s lock
(:func:`plgraph.files.lock.folder_lock`).
"""
from __future__ import annotations

import os
import re
import shutil

from .atomic import atomic_json
from ..errors import ModelFileError
from .modelfile import load_json

#: the sub-folder a run replacing a finished model trains into
OVERWRITE_DIR = ".plgraph-overwrite"
#: in :data:`OVERWRITE_DIR`: the files of the new model, written when they start replacing the old ones
REPLACING_FILE = "replacing.json"


def work_dir(folder) -> str:
    """Where a run replacing ``folder``'s model trains (:data:`OVERWRITE_DIR` inside it)."""
    return os.path.join(os.fspath(folder), OVERWRITE_DIR)


def pending(folder) -> str | None:
    """The list of files of a replacement of ``folder``'s model that began and has not
    ended (its path), or None."""
    listing = os.path.join(work_dir(folder), REPLACING_FILE)
    return listing if os.path.exists(listing) else None


def refuse_pending(folder, complete_with: str) -> None:
    """ModelFileError naming the list when a replacement of ``folder``'s model is
    pending; ``complete_with``: the command that completes it."""
    listing = pending(folder)
    if listing is not None:
        raise ModelFileError(f"a new model is replacing the one in {os.fspath(folder)} (or its run was killed while "
                             f"doing it): run {complete_with} to complete the replacement", source=listing)


def replace_folder(work, folder, *, header: str, stale: str | None = None) -> None:
    """Put the complete model a run trained into ``work`` (:func:`work_dir` of
    ``folder``) in place of ``folder``'s (module docstring): every file and sub-folder of
    ``work`` whose name does not start with a dot, ``header`` (the model's header file)
    last; then the files of ``folder`` matching the regular expression ``stale`` that
    the new model has not are deleted."""
    from ..signals import deferred_interrupts

    names = sorted(n for n in os.listdir(work) if not n.startswith(".") and n != header)
    with deferred_interrupts():
        atomic_json(os.path.join(os.fspath(work), REPLACING_FILE),
                    {"files": names + [header], "stale": stale})
        finish_replacement(folder)


def finish_replacement(folder) -> bool:
    """Complete a replacement of ``folder``'s model begun by :func:`replace_folder` (the
    moves not yet done, then the clean-up); False when none is pending."""
    work = work_dir(folder)
    listing = os.path.join(work, REPLACING_FILE)
    if not os.path.exists(listing):
        return False
    doc = load_json(listing, {"files": list}, "list of a replacing model's files")
    names = [str(n) for n in doc["files"]]
    for name in names:
        src, dst = os.path.join(work, name), os.path.join(os.fspath(folder), name)
        if not os.path.lexists(src):            # moved before the run was killed
            continue
        if os.path.isdir(dst) and not os.path.islink(dst):
            old = os.path.join(work, f".replaced-{name}")
            shutil.rmtree(old, ignore_errors=True)
            os.replace(dst, old)
        os.replace(src, dst)
    if doc.get("stale"):
        remove_matching(folder, str(doc["stale"]), keep=set(names))
    for name in os.listdir(work):               # the list last: a kill here leaves it to finish the clean-up
        path = os.path.join(work, name)
        if name == REPLACING_FILE:
            continue
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.unlink(path)
    os.unlink(listing)
    os.rmdir(work)
    return True


def remove_matching(folder, pattern: str, keep=()) -> None:
    """Delete the files of ``folder`` whose whole name matches the regular expression,
    but those named in ``keep``."""
    folder = os.fspath(folder)
    if not os.path.isdir(folder):
        return
    stale = re.compile(pattern)
    for name in os.listdir(folder):
        if stale.fullmatch(name) and name not in keep and os.path.isfile(os.path.join(folder, name)):
            os.unlink(os.path.join(folder, name))


__all__ = ["OVERWRITE_DIR", "REPLACING_FILE", "work_dir", "pending", "refuse_pending", "replace_folder",
           "finish_replacement", "remove_matching"]
