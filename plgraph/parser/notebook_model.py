"""A trained parser for notebooks and tests, shared through plgraph's cache.

:func:`notebook_parser` returns a model folder holding passes 2 and 3 (and a POS tagger):

* quick mode (``PLGRAPH_QUICK=1``, as under ``make test``): a tiny model trained once on
  the first :data:`QUICK_LIMIT` train sentences of at most :data:`QUICK_MAX_WORDS` words
  (one epoch a pass, 2^18 weights, trace bias 0: not tuned) over the quick coarse models
  (:func:`plgraph.pruners.notebook.notebook_models`), in ``parser-quick-<code>`` of the
  cache; ``<code>`` digests the parser's, the coarse models' and the learner's code, so a
  code change retrains.  It parses, badly: it exists to run the notebook's cells.
* full mode: the repository's ``runs/parser`` (``make parser-model``) when it holds a
  trained model, otherwise the default model trained into ``parser-full-<code>`` of the
  cache (about 33 minutes on 2 cores).

Several processes may ask at once (a notebook and a test worker): the first trains under
the folder's lock, the others wait for it and load what it wrote.
"""
from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

#: the quick model's training slice
QUICK_LIMIT = 60
QUICK_MAX_WORDS = 15


def _code_digest() -> str:
    from ..files.cache import code_digest

    here = Path(__file__).resolve().parent
    return code_digest(here, here.parent / "pruners", here.parent / "learn", here.parent / "rules")


def repository_model() -> Path:
    """``runs/parser`` of the checkout plgraph is imported from (``make parser-model``)."""
    return Path(__file__).resolve().parents[2] / "runs" / "parser"


def holds_trained_parser(folder) -> bool:
    """Does ``folder`` hold a parser with passes 2 and 3 trained and a POS tagger
    (``tagger.json``, or the released folders' ``tagger.json.xz``)?"""
    from .parsing.tagger import tagger_file

    folder = Path(folder)
    try:
        doc = json.loads((folder / "parser.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return {"pass2", "pass3"} <= set(doc.get("trained") or []) and tagger_file(folder) is not None


def notebook_parser_folder(quick: bool) -> Path:
    """The cache folder of :func:`notebook_parser`'s model (may not hold one yet)."""
    from ..files.cache import cache_dir

    return Path(cache_dir(f"parser-{'quick' if quick else 'full'}-{_code_digest()}"))


def notebook_train_config(quick: bool, folder, progress=None):
    """The :class:`~plgraph.parser.training.pipeline.TrainConfig` of the notebook model
    (module docstring) in ``folder``."""
    from ..pruners.notebook import notebook_models_folder
    from .training.pipeline import TrainConfig

    # overwrite: a folder without a trained parser may still hold a finished model (no tagger.json)
    config = TrainConfig(model_dir=str(folder), pruners=str(notebook_models_folder(quick)), threads=2,
                         progress=bool(progress), overwrite=True)
    if quick:       # no threshold tuning: 11 dev decodes
        config = replace(config, limit=QUICK_LIMIT, max_words=QUICK_MAX_WORDS, pass2={"bits": 18, "epochs": 1},
                         pass3={"bits": 18, "epochs": 1, "trace_bias": 0.0})
    return config


def notebook_parser(quick: bool | None = None, progress=None, log=print) -> Path:
    """The folder of a trained parser (module docstring), trained first if needed."""
    from ..files.cache import cached_model
    from ..config import quick_mode
    from ..pruners.notebook import notebook_models
    from .training.pipeline import train

    quick = quick_mode() if quick is None else quick
    if not quick and holds_trained_parser(repository_model()):
        return repository_model()
    folder = notebook_parser_folder(quick)
    notebook_models(quick=quick, progress=progress, log=log)

    def build(folder: Path) -> Path:
        if log:
            log(f"training the {'quick' if quick else 'full'} parser model into {folder} "
                f"({'about a minute' if quick else 'about 33 minutes on 2 cores'})")
        os.makedirs(folder, exist_ok=True)
        return Path(train(notebook_train_config(quick, folder, progress)))

    return cached_model(folder, ready=holds_trained_parser, load=lambda f: f, build=build, what="parser model",
                        log=log)


__all__ = ["notebook_parser", "notebook_parser_folder", "notebook_train_config", "holds_trained_parser",
           "repository_model", "QUICK_LIMIT", "QUICK_MAX_WORDS"]
