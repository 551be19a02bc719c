"""The training loop every plgraph model uses: epochs, checkpoints, resume, curves.

A model trains by handing a *trainee* and its learner to :func:`train_epochs`.  The
trainee is any object with

``name`` : str
    What progress bars and log lines call it ("arc pass", "spine classifier").
``batch_gradient(batch) -> SparseGradient``
    The loss-augmented decode of the items in ``batch`` (an int array) with the
    learner's current weights, summed (see :mod:`plgraph.learn.online`).
``evaluate(epoch, stats) -> dict``
    After epoch ``epoch`` (``stats``: its :class:`~plgraph.learn.online.EpochStats`):
    the epoch's record -- one curve row, a JSON object with at least ``"epoch"``
    (typically loss, seconds and dev scores).
``save(epoch, record, history) -> None``
    Write whatever this epoch leaves on disk (usually :func:`write_checkpoint`, plus
    the best model and the curves); ``history`` already ends with ``record``, and
    ``save`` may add fields to ``record`` (e.g. the saved model's size).
``warm_up(scratch) -> SparseGradient`` (optional)
    A decode of one item (:data:`~plgraph.learn.online.WARMUP_BATCH`) with the scratch
    learner ``scratch``: run once per process before epoch 1 is timed, so numba's
    compiler is announced and never counted as training time
    (:func:`plgraph.learn.online.warm_up`).
``warm_up_key`` (optional)
    What identifies the kernels ``warm_up`` compiles (default: ``warm_up``'s code): the
    warm-up runs once per process for each key and learner class, so two trainees of
    one class whose decodes call different kernels give different keys.
``replica() -> build`` and ``add_counters(counters)`` (needed for training on Dask)
    ``build(learner) -> decoder`` is a picklable builder of the decode that
    ``batch_gradient`` runs, bound to a learner: ``decoder(batch) -> SparseGradient``,
    and optionally ``decoder.take_counters() -> dict`` (additive counters since the last
    call: search errors, training errors...).  With a Dask ``client``, every worker
    builds one replica, batches are decoded there (:mod:`plgraph.learn.replicas`), and
    the counters the replicas report are handed to ``add_counters`` after each epoch,
    before ``evaluate``.

The loop itself is fixed (with or without Dask): for each epoch, shuffle with ``default_rng([seed, epoch,
*rng_extra])`` (the order each model has always used, so a given seed gives the same
weights), run :func:`~plgraph.learn.online.run_epoch`, stop at a Ctrl-C safe point,
evaluate, stop at a safe point, append the record to the history, save, log one line
and call ``on_epoch(record)``.  Everything that can be killed half-way is written
atomically (:mod:`plgraph.files.atomic`), so the files on disk are always those of a complete
epoch.

The file helpers are shared too, so every model folder has the same layout:

* :func:`training_folder` -- the context of a run into a folder: checked writable
  before any work, locked (:mod:`plgraph.files.lock`), cleared of killed runs' temporaries,
  Ctrl-C deferred to safe points (:mod:`plgraph.signals`);
* :func:`write_checkpoint` / :func:`read_checkpoint` -- ``<stem>-<epoch>.npz`` plus
  ``<stem>.json`` pointing to it, with a format name, a ``format_version`` and a CRC
  (:mod:`plgraph.files.modelfile`); the older ``.npz`` goes only after the new JSON is in
  place;
* :func:`changed_options` / :func:`refuse_resume` -- a resumed run keeps the
  checkpoint's options and refuses different ones, naming the stored ones;
* :func:`write_curves` (``curves.json`` + ``curves.csv``) and :func:`write_log`
  (``log.jsonl``).
"""
from __future__ import annotations

import csv
import io
import json
import os
from contextlib import contextmanager
from typing import Any, Callable, Protocol

import numpy as np

from ..files.atomic import (atomic_json, atomic_savez, atomic_savez_compressed, atomic_text, check_writable,
                      check_writable_dir, clean_stale_temporaries)
from ..errors import InputError, ModelFileError
from ..files.lock import folder_lock
from ..files.modelfile import check_crc32, check_format, check_version, content_crc32, load_json, load_npz
from ..signals import check_interrupt, deferred_interrupts
from .learners import Learner, SparseGradient
from .online import EpochStats, run_epoch


class Trainee(Protocol):
    """What :func:`train_epochs` needs of a model (see the module docstring)."""

    name: str

    def batch_gradient(self, batch: np.ndarray) -> SparseGradient: ...

    def evaluate(self, epoch: int, stats: EpochStats) -> dict: ...

    def save(self, epoch: int, record: dict, history: list) -> None: ...


# -- the loop ---------------------------------------------------------------------------------
def train_epochs(trainee: Trainee, learner: Learner, n_items: int, *, epochs: int, batch_size: int, seed: int,
                 first_epoch: int = 1, history: list | None = None, rng_extra: tuple = (),
                 progress: bool | None = None, log: Callable[[str], Any] | None = None,
                 on_epoch: Callable[[dict], Any] | None = None, client=None) -> list:
    """Epochs ``first_epoch .. epochs`` of ``trainee`` (items ``0 .. n_items - 1``,
    ``batch_size`` per update of ``learner``); returns ``history`` (a new list if None)
    with one record per epoch appended.  ``log`` gets one ``key=value`` line per epoch.

    ``client`` (a ``distributed.Client``): decode each batch on the cluster's workers,
    each holding a replica of the weights (:mod:`plgraph.learn.replicas`); the same
    batches in the same order, so the same weights as in one process (bitwise without
    lazy AdaGrad catch-up, else to rounding: see that module)."""
    history = [] if history is None else history
    warmup = getattr(trainee, "warm_up", None)
    replicas = None
    if client is not None and first_epoch <= epochs:
        from .replicas import ReplicatedDecoder

        replicas = ReplicatedDecoder(client, trainee.replica(), learner, trainee.name)
    try:
        for ep in range(first_epoch, epochs + 1):
            rng = np.random.default_rng([seed, ep, *rng_extra])
            gradient = trainee.batch_gradient if replicas is None else replicas.batch_gradient
            stats = run_epoch(learner, n_items, gradient, batch_size=batch_size, rng=rng, epoch=ep,
                              progress=progress, name=trainee.name, desc=f"{trainee.name} epoch {ep}/{epochs}",
                              warmup=warmup if replicas is None else None,
                              warmup_key=getattr(trainee, "warm_up_key", None))
            if replicas is not None:
                trainee.add_counters(replicas.take_counters())
                if ep == first_epoch:
                    stats.compile_seconds = replicas.compile_seconds
            check_interrupt()
            record = trainee.evaluate(ep, stats)
            check_interrupt()
            history.append(record)
            trainee.save(ep, record, history)
            if log is not None:
                log(" ".join(f"{k}={v}" for k, v in record.items()))
            if on_epoch is not None:
                on_epoch(record)
    finally:
        if replicas is not None:
            replicas.close()
    return history


class BoundGradient:
    """A trainee's ``gradient(learner, batch)`` bound to one learner: the decoder a
    replica builder returns (``functools.partial(BoundGradient, gradient)`` is the
    builder)."""

    def __init__(self, gradient: Callable, learner: Learner):
        self.gradient, self.learner = gradient, learner

    def __call__(self, batch: np.ndarray) -> SparseGradient:
        return self.gradient(self.learner, batch)


# -- the folder -------------------------------------------------------------------------------
@contextmanager
def training_folder(folder, files=(), subfolders=(), what: str = "model folder"):
    """The ``with`` block of a training run into ``folder`` (None: no folder, only the
    deferred Ctrl-C).  Before the block: ``folder`` and ``subfolders`` (names inside
    it) must be writable folders and ``files`` (names inside it) writable
    (:class:`~plgraph.errors.OutputError` otherwise); then the folder is locked for the
    block (reentrant: an outer run of this process into the same folder shares its
    lock; another process's run fails at once with
    :class:`~plgraph.files.lock.FolderLockedError`) and the temporaries of killed runs are
    removed.  Ctrl-C inside the block is deferred to the next safe point."""
    if folder is None:
        with deferred_interrupts():
            yield
        return
    check_writable_dir(folder)
    for name in files:
        check_writable(os.path.join(folder, name))
    for name in subfolders:
        check_writable_dir(os.path.join(folder, name))
    with folder_lock(folder, what, reentrant=True), deferred_interrupts():
        clean_stale_temporaries(folder)
        yield


# -- checkpoints ------------------------------------------------------------------------------
def write_checkpoint(folder, stem: str, epoch: int, arrays: dict, doc: dict, *, format: str, version: int,
                     crc_keys, compressed: bool = False) -> dict:
    """``<stem>-<epoch>.npz`` (``arrays``) then ``<stem>.json`` pointing to it, then the
    older ``<stem>-<n>.npz`` are deleted; returns the JSON
    document written: ``format``, ``format_version``, ``doc``'s fields, ``epoch``,
    ``npz`` and a ``crc32`` over ``arrays`` and ``doc``'s ``crc_keys``."""
    folder = os.fspath(folder)
    npz = f"{stem}-{epoch}.npz"
    (atomic_savez_compressed if compressed else atomic_savez)(os.path.join(folder, npz), **arrays)
    out = {"format": format, "format_version": version, "epoch": epoch, "npz": npz, **doc}
    out["epoch"], out["npz"] = epoch, npz
    out["crc32"] = content_crc32(arrays, out, crc_keys)
    atomic_json(os.path.join(folder, f"{stem}.json"), out)
    for name in os.listdir(folder):
        if name != npz and _is_checkpoint_npz(name, stem):
            os.unlink(os.path.join(folder, name))
    return out


def _is_checkpoint_npz(name: str, stem: str) -> bool:
    return name.startswith(f"{stem}-") and name.endswith(".npz") and name[len(stem) + 1:-4].isdigit()


def read_checkpoint(folder, stem: str, keys: dict, arrays: dict | None, *, format: str, version: int,
                    crc_keys, what: str, version_what: str, check_doc=None, default_npz: str | None = None):
    """``(doc, arrays, json_path, npz_path)`` of ``folder``'s ``<stem>.json`` and the
    ``.npz`` it names, or None when there is no ``<stem>.json``.

    ``keys`` (key -> JSON type) and ``arrays`` (name -> (ndim, dtype kinds), None: any)
    are what the files must hold; ``check_doc(doc, path)`` further checks the JSON before
    the arrays are read; ``default_npz`` is the array file of checkpoints written before
    the JSON named it.  Raises :class:`~plgraph.errors.ModelFileError` naming the file for
    a damaged, inconsistent, other-format or other-version checkpoint (files without a
    ``format`` / ``format_version`` are taken as this format's version 1)."""
    folder = os.fspath(folder)
    path = os.path.join(folder, f"{stem}.json")
    if not os.path.exists(path):
        return None
    doc = load_json(path, keys, what)
    if "format" in doc:     # checkpoints written before format names existed have none
        check_format(doc, path, format)
    check_version(doc, path, version, version_what)
    npz = doc.get("npz", default_npz)
    if not isinstance(npz, str) or os.path.basename(npz) != npz or not npz.endswith(".npz"):
        raise ModelFileError(f"checkpoint names {npz!r}, not an .npz file of the folder", source=path)
    if check_doc is not None:
        check_doc(doc, path)
    npath = os.path.join(folder, npz)
    loaded = load_npz(npath, arrays, what)
    check_crc32(doc, path, content_crc32(loaded, doc, crc_keys), npz)
    return doc, loaded, path, npath


# -- resuming ---------------------------------------------------------------------------------
def normal_json(x):
    """``x`` as it reads back from JSON (tuples -> lists), for comparisons."""
    return json.loads(json.dumps(x))


def changed_options(given: dict, stored: dict, *, missing_differs: bool = False) -> list[tuple]:
    """``(key, given value, stored value)`` for each option of ``given`` whose value
    differs from ``stored``'s (compared as JSON).  A key ``stored`` lacks counts as
    changed only with ``missing_differs`` (its stored value is then None)."""
    out = []
    for key, val in given.items():
        if key not in stored:
            if missing_differs:
                out.append((key, val, None))
        elif normal_json(val) != normal_json(stored[key]):
            out.append((key, val, stored[key]))
    return out


def refuse_resume(conflicts: list[str], epoch: int, trained_with: str, path, *, what: str = "",
                  advice: str = "Resume without the differing options, or train into a new folder") -> None:
    """Raise :class:`~plgraph.errors.InputError` (naming ``path``) when a resumed run
    was given options (``conflicts``: one text each) other than those of the checkpoint
    of epoch ``epoch``, which was trained with ``trained_with``."""
    if conflicts:
        subject = f" the {what}" if what else ""
        raise InputError(f"cannot resume{subject} with options other than the checkpoint's: {'; '.join(conflicts)}. "
                         f"The checkpoint (epoch {epoch}) was trained with: {trained_with}. {advice}", path)


# -- curves and logs --------------------------------------------------------------------------
def write_curves(folder, rows: list, first=("model", "epoch")) -> None:
    """``folder/curves.json`` (the rows) and ``folder/curves.csv`` (columns ``first``,
    then the other keys in sorted order; a row's missing keys are empty cells)."""
    if folder is None:
        return
    atomic_json(os.path.join(folder, "curves.json"), rows)
    buf = io.StringIO()
    keys = sorted({k for r in rows for k in r})
    writer = csv.DictWriter(buf, fieldnames=list(first) + [k for k in keys if k not in first])
    writer.writeheader()
    writer.writerows(rows)
    atomic_text(os.path.join(folder, "curves.csv"), buf.getvalue())


def write_log(folder, history: list, name: str = "log.jsonl") -> None:
    """``folder/log.jsonl``: one JSON line per record of ``history``."""
    atomic_text(os.path.join(folder, name), "".join(json.dumps(r) + "\n" for r in history))


def conversion_record(graphs) -> dict | None:
    """The conversion options (:class:`plgraph.convert.ConversionOptions` as a dict:
    head rules, null reversal, gapping shift) the ``graphs`` were built with, for a
    model folder's JSON; None when they carry none (graphs not made by
    :func:`plgraph.convert.tree_to_graph`).  Graphs built with different options are an
    :class:`~plgraph.errors.InputError`: a model is trained on one representation."""
    seen = {}
    for g in graphs:
        opts = getattr(g, "options", None) or None
        key = json.dumps(opts, sort_keys=True)
        seen.setdefault(key, (opts, getattr(g, "id", None)))
    if len(seen) > 1:
        shown = "; ".join(f"{o} (e.g. sentence {sid})" for o, sid in seen.values())
        raise InputError(f"the training graphs were converted with different options: {shown}")
    return next(iter(seen.values()))[0] if seen else None
