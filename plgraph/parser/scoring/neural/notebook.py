"""A trained neural parser for notebooks and tests, shared through plgraph's cache.

:func:`notebook_neural` returns a neural model folder (:mod:`plgraph.parser.scoring.neural.folder`), or
None when PyTorch is not installed (the extra ``plgraph[neural]``):

* full mode: ``runs/parser/neural`` of the checkout when it holds a trained model;
* otherwise, and in quick mode (``PLGRAPH_QUICK=1``, as under ``make test``), the
  released model's (:func:`plgraph.models.released_dir`, ``neural/``);
* without a released model: in quick mode a small network trained once for
  :data:`QUICK_EPOCHS` epochs on the quick linear model's slice of the train split
  (:data:`plgraph.parser.notebook_model.QUICK_LIMIT` sentences of at most
  :data:`~plgraph.parser.notebook_model.QUICK_MAX_WORDS` words), in ``neural-quick-<code>``
  of the cache (``<code>`` digests plgraph.parser.scoring.neural's code; it parses badly: it exists to
  run the notebooks' cells), in full mode the default one trained into
  ``neural-full-<code>``.
"""
from __future__ import annotations

from pathlib import Path

#: epochs of the quick model
QUICK_EPOCHS = 12
#: the quick model's network (small: it trains in seconds)
QUICK_NETWORK = dict(word_dim=32, char_dim=16, char_hidden=32, tag_dim=16, lstm_hidden=64, lstm_layers=2,
                     arc_mlp=64, label_mlp=64, trace_mlp=32, spine_mlp=64)


def torch_available() -> bool:
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def notebook_neural_folder(quick: bool) -> Path:
    """The cache folder of :func:`notebook_neural`'s model (may not hold one yet)."""
    from ....files.cache import cache_dir, code_digest

    return Path(cache_dir(f"neural-{'quick' if quick else 'full'}-{code_digest(Path(__file__).resolve().parent)}"))


def holds_trained_neural(folder) -> bool:
    """Does ``folder`` hold a neural model with weights that can tag a sentence: a network
    that predicts tags, or a POS tagger beside it (``tagger.json``, or the released
    folders' ``tagger.json.xz``)?"""
    import json

    from ...parsing.tagger import tagger_file

    folder = Path(folder)
    try:
        doc = json.loads((folder / "neural.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    tags_itself = bool((doc.get("network") or {}).get("predict_tags"))
    return bool(doc.get("weights")) and (tags_itself or tagger_file(folder) is not None)


def notebook_neural(quick: bool | None = None, progress=None, log=print) -> Path | None:
    """The folder of a trained neural model (module docstring), trained first if needed;
    None without PyTorch."""
    if not torch_available():
        return None
    from ....files.cache import cached_model
    from ....config import quick_mode
    from ...notebook_model import QUICK_LIMIT, QUICK_MAX_WORDS, repository_model
    from ....models import released_dir
    from .config import NetworkConfig
    from .config import NeuralTrainConfig
    from .train import train_neural

    quick = quick_mode() if quick is None else quick
    if not quick and holds_trained_neural(repository_model() / "neural"):
        return repository_model() / "neural"
    if holds_trained_neural(released_dir() / "neural"):
        return released_dir() / "neural"
    folder = notebook_neural_folder(quick)

    def build(folder: Path) -> Path:
        if quick:
            config = NeuralTrainConfig(str(folder), network=NetworkConfig(**QUICK_NETWORK), limit=QUICK_LIMIT,
                                       max_words=QUICK_MAX_WORDS, epochs=QUICK_EPOCHS, batch_words=200, lr=5e-3,
                                       overwrite=True, progress=bool(progress))
        else:
            config = NeuralTrainConfig(str(folder), overwrite=True, progress=bool(progress))
        if log:
            log(f"training the {'quick' if quick else 'full'} neural model into {folder} "
                f"({'about half a minute' if quick else 'about 45 minutes on 2 cores'})")
        train_neural(config, log=(lambda line: None) if quick else log)
        return folder

    return cached_model(folder, ready=holds_trained_neural, load=lambda f: f, build=build, what="neural model",
                        log=log)


__all__ = ["notebook_neural", "notebook_neural_folder", "holds_trained_neural", "torch_available", "QUICK_EPOCHS",
           "QUICK_NETWORK"]
