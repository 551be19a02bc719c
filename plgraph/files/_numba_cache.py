"""Keep numba's on-disk cache honest across modules (used by every kernel module).

Numba invalidates a cached kernel only when the file that *defines* it changes, not
when an ``@njit`` function it calls (and inlines) from another module changes (numba
docs, "cache limitations"; numba issues #1833, #9483).  :func:`guard_cache` is called
at the end of a kernel module, after its last kernel, with the files its kernels
depend on: when their content differs from the stamp saved beside the module's cache
files, that module's cache files are deleted, so the next call recompiles instead of
running stale code.

Modules whose kernels call another module's ``@njit`` functions must call it with those
files: ``plgraph.dep._kernels`` (``learn._kernels``, ``dep._eisner``),
``plgraph.pruners._kernels`` (``learn._kernels``), ``plgraph.pruners._chart``
(``dep._eisner``), and the rules modules (``rules._apply``, ``rules._chart``,
``rules.bruteforce``).  Modules whose kernels call only their own
(``plgraph.learn._kernels``, ``plgraph.structure._kernels``) call it with none, so that
the call is there, to be given the file, the day a kernel starts calling another
module's; ``plgraph.lm._kernels`` and ``plgraph.dep._eisner`` are self-contained too.
(This lived in ``plgraph.learn._cache`` before; it is not about learning.)
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path


def guard_cache(module_file: str, kernel, *dependencies: str) -> bool:
    """Purge ``module_file``'s numba cache if ``dependencies`` changed; True if purged.

    ``kernel`` is any ``@njit(cache=True)`` dispatcher of the module (its cache folder is
    where numba keeps the module's ``.nbi``/``.nbc`` files).  Call this at the end of
    the module, before any kernel has run."""
    module = Path(module_file)
    cache = getattr(kernel, "_cache", None)
    path = getattr(cache, "_cache_path", None)
    if path is None:          # NUMBA_DISABLE_JIT or caching off
        return False
    cache_dir = Path(path)
    digest = hashlib.sha256()
    for dep in dependencies:
        try:
            digest.update(Path(dep).read_bytes())
        except OSError:
            digest.update(dep.encode())
    stamp = cache_dir / f"{module.stem}.deps-sha256"
    want = digest.hexdigest()
    try:
        if stamp.read_text() == want:
            return False
    except OSError:
        pass
    purged = False
    if cache_dir.is_dir():
        for f in cache_dir.glob(f"{module.stem}.*"):
            if f.suffix in (".nbi", ".nbc"):
                try:
                    f.unlink()
                    purged = True
                except OSError:
                    pass
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = stamp.with_suffix(".tmp")
        tmp.write_text(want)
        os.replace(tmp, stamp)
    except OSError:
        pass
    return purged
