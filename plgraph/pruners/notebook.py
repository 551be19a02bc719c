"""Coarse models shared by the notebooks and tests through plgraph's cache
(:func:`notebook_models`)."""
from __future__ import annotations

from .model import PrunerConfig, Pruners
from .training import train_pruners


def notebook_models_folder(quick: bool):
    """The shared folder of :func:`notebook_models`' coarse models (quick or full):
    ``pruners-quick-<code>`` / ``pruners-full-<code>`` in plgraph's cache, ``<code>`` a
    digest of the training code (see :func:`notebook_models`); it may not hold a trained
    set yet."""
    from pathlib import Path

    from ..files.cache import cache_dir, code_digest

    here = Path(__file__).resolve().parent
    code = code_digest(here, here.parent / "dep", here.parent / "learn")
    return Path(cache_dir(f"pruners-{'quick' if quick else 'full'}-{code}"))


def notebook_models(quick: bool | None = None, folder=None, progress=None, log=None) -> Pruners:
    """Coarse models for the notebooks: loaded from ``folder`` if it holds a trained
    set, otherwise trained (on the whole train split, or — in quick mode, as under
    ``make test`` — on its first 300 sentences with two epochs per model) and saved
    there.  The default folder is ``pruners-quick-<code>`` / ``pruners-full-<code>`` in
    plgraph's cache (:func:`plgraph.files.cache.cache_dir`: ``$PLGRAPH_CACHE``, else
    ``$XDG_CACHE_HOME/plgraph``, else ``~/.cache/plgraph``), ``<code>`` a digest of the
    training code, so notebooks share one trained set and a code change retrains.
    Training takes 30-60 s in quick mode and ~6.5 minutes in full (2 cores; a fresh clone
    compiles the numba kernels once on top)."""
    from pathlib import Path

    from ..files.cache import cached_model
    from ..config import quick_mode

    quick = quick_mode() if quick is None else quick
    folder = Path(notebook_models_folder(quick) if folder is None else folder)
    return cached_model(folder, ready=lambda f: (f / "pruners.json").exists(), load=Pruners.load,
                        build=lambda f: _train_notebook_models(f, quick, progress, log), what="pruners", log=log)


def _train_notebook_models(folder, quick, progress, log) -> Pruners:
    from ..corpora import Corpus

    train = Corpus("train", progress=progress).graphs()
    dev = Corpus("dev", progress=progress).graphs()
    cfg = PrunerConfig()
    if quick:
        train = train[:300]
        cfg = PrunerConfig(spine_epochs=2, trace_epochs=2, arc_epochs=2, trace_bits=20, spine_bits=20)
    return train_pruners(train, dev, folder, cfg, progress=progress, log=log)
