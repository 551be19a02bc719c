"""The one folder where plgraph keeps what it derives or trains for reuse.

Contract
--------
:func:`cache_root` is, in this order:

1. ``$PLGRAPH_CACHE`` when it is set and not empty (``~`` is expanded; a relative
   path is taken relative to the current directory and returned absolute);
2. ``$XDG_CACHE_HOME/plgraph`` when ``XDG_CACHE_HOME`` is set to an absolute path
   (the XDG base-directory rule: a relative value is ignored);
3. ``~/.cache/plgraph``.

:func:`cache_dir` ``(*parts)`` is ``cache_root() / part / ...``.  Neither creates
anything: the code that writes there creates its folder (with the atomic writers of
:mod:`plgraph.files.atomic`), so merely asking for a path has no side effect.  The variables
are read at every call, so a test or a notebook can point them elsewhere at run time.

What lives there (everything can be deleted; it is rebuilt on the next use):

* ``pruners-quick-<code>/``, ``pruners-full-<code>/`` -- the coarse models the
  notebooks share (:func:`plgraph.pruners.notebook.notebook_models`; ``<code>`` is a
  digest of the training code, so a code change trains a new set; old sets are not
  removed): 30-60 s to train in quick mode (``PLGRAPH_QUICK=1``), ~6.5 min (390 s) on
  the whole train split, on 2 cores; a quick set takes about 40 MB of disk;
* ``parser-quick-<code>/``, ``parser-full-<code>/`` -- the graph parser the notebooks
  and tests share (:func:`plgraph.parser.notebook_model.notebook_parser`);
* ``lm/brown-protocol/`` -- the Brown language-model protocol files built from NLTK's
  Brown corpus (:func:`plgraph.lm.corpora.brown_protocol`).

A model shared this way is reached through :func:`cached_model`: its folder is named
with :func:`code_digest` of the code that trains it, several processes may ask for it at
once (a notebook and a test worker), the first trains it under the folder's lock and the
others wait for that lock (:func:`wait_for_writer`) and load what it wrote.

Before this module the pruner cache followed ``XDG_CACHE_HOME`` and the LM cache
``PLGRAPH_CACHE``; both now follow the rule above (with neither variable set, both
were and still are under ``~/.cache/plgraph``).
"""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable, TypeVar

T = TypeVar("T")

#: the environment variable that overrides the cache location
ENV = "PLGRAPH_CACHE"


def cache_root() -> Path:
    """The cache folder (see the module docstring for the rule); not created."""
    value = os.environ.get(ENV, "")
    if value:
        return Path(value).expanduser().absolute()
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "plgraph"
    return Path.home() / ".cache" / "plgraph"


def cache_dir(*parts: str) -> Path:
    """``cache_root() / parts[0] / parts[1] ...`` (not created).

    Each part must be a plain relative name or path inside the cache: an absolute
    part or one with ``..`` raises ``ValueError`` (it would leave the cache)."""
    root = cache_root()
    for part in parts:
        p = Path(part)
        if p.is_absolute() or ".." in p.parts:
            raise ValueError(f"cache path parts must stay inside the cache folder, got {part!r}")
    return root.joinpath(*parts)


def code_digest(*folders) -> str:
    """12 hex digits of a SHA-1 over the bytes of every ``.py`` file under ``folders``
    (sub-folders included), in path order: the ``<code>`` of a cached model's folder."""
    import hashlib

    digest = hashlib.sha1()
    for path in sorted(p for folder in folders for p in Path(folder).rglob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def wait_for_writer(folder, log: Callable[[str], None] | None = None, what: str = "models",
                    timeout: float = 4 * 3600.0) -> None:
    """Wait (up to ``timeout`` seconds) while another process holds ``folder``'s lock
    (:mod:`plgraph.files.lock`), saying so once through ``log``."""
    from .lock import held_by

    waited = 0.0
    while held_by(folder) is not None and waited < timeout:
        if waited == 0.0 and log:
            log(f"waiting for process {held_by(folder)}, which trains the {what} in {folder}")
        time.sleep(2.0)
        waited += 2.0


def cached_model(folder, *, ready: Callable[[Path], bool], load: Callable[[Path], T], build: Callable[[Path], T],
                 what: str, log: Callable[[str], None] | None = None, attempts: int = 3) -> T:
    """``load(folder)`` once ``ready(folder)``, else ``build(folder)`` (which trains into
    it under its lock).  Another process training into it is waited for; one that takes
    the lock between the check and ``build`` (:class:`~plgraph.files.lock.FolderLockedError`)
    is waited for too, up to ``attempts`` times."""
    from .lock import FolderLockedError

    folder = Path(folder)
    for _attempt in range(attempts):
        wait_for_writer(folder, log, what)
        if ready(folder):
            return load(folder)
        try:
            return build(folder)
        except FolderLockedError:
            continue
    raise FolderLockedError(folder, None, f"{what} folder")
