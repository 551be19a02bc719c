"""Corpus jobs on a Dask cluster: chunks out, results back in input order, kept on disk.

A corpus command (``parse``, ``parser evaluate``, ``dep parse``, ``convert``, ``coverage``)
with ``--dask`` cuts its input into chunks (of sentences, or of files) and calls
:func:`run_chunks` with a *task*: a module-level function ``task(spec, chunk) -> result``
that a worker runs on one chunk.  ``spec`` is a small JSON-able dict (model folder,
options); the task loads what it needs once per worker process
(:func:`plgraph.dist.cluster.worker_cached`) and returns a JSON-able result (a list with
one entry per item, typically: the item's output text and what the command reports of it).
The command then assembles the output from the results, in input order, with the same
code as its serial run, so the two outputs are byte-identical.

Contract of :func:`run_chunks`:

* every chunk is submitted at once; Dask spreads them over the workers.  A worker that
  dies mid-run loses only the chunks it held, which the scheduler runs again elsewhere
  (a task is pure: the same chunk gives the same result on any worker), so the output
  does not change;
* with a ``state_dir`` (``OUT.chunks`` beside the output), each finished chunk is written
  there at once, atomically, as ``chunk-<index>.json`` beside a ``job.json`` naming the
  job (a fingerprint of the task, the spec and every chunk's content).  A driver killed
  half-way is run again with ``resume=True`` and computes only the chunks not on disk;
  a state folder of another job, or one found without ``resume``, is an
  :class:`~plgraph.errors.InputError` (finished results are never silently dropped);
* the caller removes the state folder (:func:`remove_state`) once its output is written;
* results come back as a list, one per chunk, in chunk order, whatever order the workers
  finished in.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from dataclasses import dataclass, field
from typing import Callable

from ..files.atomic import atomic_json, check_writable_dir
from ..errors import InputError

#: the format name of a state folder's ``job.json``
STATE_FORMAT = "plgraph-dask-chunks"


@dataclass
class ChunkRun:
    """What :func:`run_chunks` did: the ``results`` (one per chunk, in order), how many
    chunks were ``computed`` now and ``reused`` from the state folder, and the wall
    ``seconds`` of the run."""

    results: list
    computed: int
    reused: int
    seconds: float
    state_dir: str | None = None
    workers: int = 0
    extra: dict = field(default_factory=dict)


def cut(items: list, size: int) -> list[list]:
    """``items`` in consecutive chunks of ``size`` (the last may be shorter)."""
    size = max(1, int(size))
    return [list(items[i:i + size]) for i in range(0, len(items), size)]


def state_folder(out) -> str:
    """Where the finished chunks of a run writing ``out`` are kept: ``OUT.chunks``."""
    return os.fspath(out) + ".chunks"


def job_fingerprint(task: Callable, spec: dict, chunks: list) -> str:
    """A SHA-256 over the task's name, ``spec`` and the content of every chunk."""
    h = hashlib.sha256()
    h.update(f"{task.__module__}:{task.__qualname__}\n".encode())
    h.update(json.dumps(spec, sort_keys=True).encode())
    for chunk in chunks:
        h.update(b"\n")
        h.update(json.dumps(chunk).encode())
    return h.hexdigest()


def _chunk_path(state_dir: str, index: int) -> str:
    return os.path.join(state_dir, f"chunk-{index:06d}.json")


def _open_state(state_dir: str, job: str, n_chunks: int, resume: bool) -> dict[int, object]:
    """Prepare ``state_dir`` for job ``job``; the results already in it (index -> result)."""
    path = os.path.join(state_dir, "job.json")
    if os.path.isdir(state_dir) and os.listdir(state_dir):
        if not resume:
            raise InputError("this folder holds the finished chunks of an earlier, unfinished run: add --resume to "
                             "continue it, or delete the folder to start again", state_dir)
        try:
            with open(path, encoding="utf-8") as handle:
                doc = json.load(handle)
        except (OSError, ValueError) as err:
            raise InputError(f"cannot read {path} ({err}); delete {state_dir} to start again", state_dir) from None
        if doc.get("format") != STATE_FORMAT or doc.get("job") != job or doc.get("chunks") != n_chunks:
            raise InputError("this folder holds the chunks of another job (other input, model or options): "
                             "delete it to start again, or run the original command with --resume", state_dir)
    else:
        os.makedirs(state_dir, exist_ok=True)
        check_writable_dir(state_dir)
        atomic_json(path, {"format": STATE_FORMAT, "job": job, "chunks": n_chunks})
    done = {}
    for name in os.listdir(state_dir):
        if not (name.startswith("chunk-") and name.endswith(".json")):
            continue
        try:
            with open(os.path.join(state_dir, name), encoding="utf-8") as handle:
                doc = json.load(handle)
        except (OSError, ValueError):
            continue           # cannot happen for atomically written files; recomputed if it does
        if isinstance(doc, dict) and doc.get("job") == job and isinstance(doc.get("index"), int) \
                and 0 <= doc["index"] < n_chunks:
            done[doc["index"]] = doc.get("result")
    return done


def remove_state(state_dir: str | None) -> None:
    """Delete a run's state folder (after its output has been written)."""
    if state_dir and os.path.isdir(state_dir):
        shutil.rmtree(state_dir, ignore_errors=True)


def run_chunks(client, task: Callable, spec: dict, chunks: list[list], *, state_dir: str | None = None,
               resume: bool = False, progress=None, desc: str = "chunks", unit: str = "item",
               sizes: list[int] | None = None, log: Callable[[str], object] | None = None) -> ChunkRun:
    """Run ``task(spec, chunk)`` for every chunk on ``client``'s cluster (module
    docstring).  ``sizes`` (default: the chunks' lengths) are the units the progress bar
    counts; ``log`` gets one line about resumed chunks."""
    from distributed import as_completed

    from .. import progress as P
    from .cluster import worker_addresses

    start = time.perf_counter()
    sizes = [len(c) for c in chunks] if sizes is None else list(sizes)
    job = job_fingerprint(task, spec, chunks)
    done = _open_state(state_dir, job, len(chunks), resume) if state_dir else {}
    if done and log is not None:
        log(f"resuming: {len(done)} of {len(chunks)} chunks are done already, {len(chunks) - len(done)} to compute")
    results: list = [None] * len(chunks)
    for i, r in done.items():
        results[i] = r
    todo = [i for i in range(len(chunks)) if i not in done]
    n_workers = len(worker_addresses(client))
    with P.bar(sum(sizes), desc, progress, unit=unit) as bar:
        bar.update(sum(sizes[i] for i in done))
        futures = {}
        for i in todo:
            fut = client.submit(task, spec, chunks[i], key=f"plgraph-{job[:12]}-{i}", pure=False)
            futures[fut] = i
        try:
            for fut, result in as_completed(list(futures), with_results=True):
                i = futures[fut]
                if state_dir:
                    atomic_json(_chunk_path(state_dir, i), {"job": job, "index": i, "result": result}, indent=None)
                results[i] = result
                bar.update(sizes[i])
        finally:
            for fut in futures:
                if not fut.done():
                    fut.cancel()
    return ChunkRun(results, len(todo), len(done), time.perf_counter() - start, state_dir, n_workers)


__all__ = ["STATE_FORMAT", "ChunkRun", "cut", "state_folder", "job_fingerprint", "run_chunks", "remove_state"]
