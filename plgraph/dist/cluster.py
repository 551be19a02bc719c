"""Connecting to a Dask cluster, and what a worker process keeps between tasks.

plgraph runs on an existing distributed engine, Dask's ``distributed`` scheduler (the
optional extra ``pip install 'plgraph[dist]'``); it has no scheduler of its own.

* :func:`open_client` -- a ``distributed.Client`` for ``--dask [ADDRESS]``: no address (or
  ``"local"``) starts a ``LocalCluster`` of worker *processes* on this machine (one thread
  each, numba limited to one thread, so ``n`` workers use ``n`` cores); an address
  (``tcp://host:8786``) joins an existing cluster, whose workers must see the model
  folders and input files at the same paths (a shared file system) and run the same
  plgraph.
* :func:`worker_cached` -- a per-process cache: the first task on a worker that needs a
  model loads it, the others reuse it ("each worker loads a model once").
* :func:`require_dask` -- the clear error when the extra is not installed.
"""
from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from typing import Any, Callable, Hashable

from ..errors import PlgraphError

#: what ``--dask`` without an address means
LOCAL = "local"
#: the environment every local worker process gets: one numba / BLAS thread, so that
#: ``n`` worker processes use ``n`` cores and never oversubscribe them
WORKER_ENV = {"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
              "MKL_NUM_THREADS": "1"}


class DaskMissingError(PlgraphError):
    """``--dask`` was asked for but Dask's ``distributed`` is not installed."""


def require_dask():
    """The ``distributed`` module, or :class:`DaskMissingError` saying how to get it."""
    try:
        import distributed
    except ImportError:
        raise DaskMissingError("--dask needs Dask's distributed scheduler, which is not installed: "
                               "pip install 'plgraph[dist]' (or: pip install 'dask[distributed]')") from None
    return distributed


def default_workers() -> int:
    """Worker processes of a local cluster when none is asked for: the cores this process
    may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:     # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


@contextmanager
def optional_client(address: str | None, *, workers: int | None = None):
    """:func:`open_client` of ``address`` for the block, or None when ``address`` is None
    (no Dask: the caller works in this process)."""
    if address is None:
        yield None
        return
    with open_client(address, workers=workers) as client:
        yield client


@contextmanager
def open_client(address: str | None = LOCAL, *, workers: int | None = None, quiet: bool = True):
    """A ``distributed.Client`` for the block: ``address`` None / ``"local"`` starts a
    ``LocalCluster`` of ``workers`` processes (default :func:`default_workers`) with
    :data:`WORKER_ENV`, closed after the block; any other address connects to that
    scheduler (left running).  ``quiet`` keeps Dask's own log lines off the terminal."""
    distributed = require_dask()
    if quiet:
        import logging

        for name in ("distributed", "distributed.nanny", "distributed.scheduler", "distributed.worker"):
            logging.getLogger(name).setLevel(logging.ERROR)
    if address in (None, "", LOCAL):
        n = workers or default_workers()
        cluster = distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                           dashboard_address=":0", env=dict(WORKER_ENV))
        try:
            with distributed.Client(cluster) as client:
                yield client
        finally:
            cluster.close()
    else:
        with distributed.Client(address) as client:
            yield client


def worker_addresses(client) -> list[str]:
    """The cluster's worker addresses, sorted (a fixed order: replica ``k`` is on worker
    ``k``)."""
    workers = sorted(client.scheduler_info(n_workers=-1)["workers"])
    if not workers:
        client.wait_for_workers(1)
        workers = sorted(client.scheduler_info(n_workers=-1)["workers"])
    return workers


# -- per-process state of a worker -------------------------------------------------------------
_CACHE: dict = {}
_CACHE_LOCK = threading.Lock()


def worker_cached(key: Hashable, load: Callable[[], Any]) -> Any:
    """``load()`` the first time ``key`` is asked for in this process, the same object
    afterwards.  Tasks of one worker process share it; one load runs at a time."""
    with _CACHE_LOCK:
        if key in _CACHE:
            return _CACHE[key]
        value = _CACHE[key] = load()
        return value


def worker_state() -> dict:
    """This process's plgraph state dict (training replicas live here, by run id)."""
    return _CACHE.setdefault("__state__", {})


__all__ = ["LOCAL", "WORKER_ENV", "DaskMissingError", "require_dask", "default_workers", "open_client",
           "worker_addresses", "worker_cached", "worker_state"]
