"""A trained parser for notebooks and tests, shared through plgraph's cache.

:func:`notebook_parser` returns a model folder holding passes 2 and 3 (and a POS tagger):

* quick mode (``PLGRAPH_QUICK=1``, as under ``make test``): a tiny model trained once on
  the first :data:`QUICK_LIMIT` train sentences of at most :data:`QUICK_MAX_WORDS` words
  (one epoch a pass, 2^18 weights, trace bias 0: not tuned) over the quick coarse models
  (:func:`plgraph.pruners.pipeline.notebook_models`), in ``parser-quick-<code>`` of the
  cache; ``<code>`` digests the parser's, the coarse models' and the learner's code, so a
  code change retrains.  It parses, badly: it exists to run the notebook's cells.
* full mode: the repository's ``runs/parser`` (``make parser-model``) when it holds a
  trained model, otherwise the default model trained into ``parser-full-<code>`` of the
  cache (about 36 minutes on 2 cores).

Several processes may ask at once (a notebook and a test worker): the first trains under
the folder's lock, the others wait for it and load what it wrote.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

#: the quick model's training slice
QUICK_LIMIT = 60
QUICK_MAX_WORDS = 15


def _code_digest() -> str:
    here = Path(__file__).resolve().parent
    digest = hashlib.sha1()
    for folder in (here, here.parent / "pruners", here.parent / "learn", here.parent / "rules"):
        for path in sorted(folder.glob("*.py")):
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def repository_model() -> Path:
    """``runs/parser`` of the checkout plgraph is imported from (``make parser-model``)."""
    return Path(__file__).resolve().parents[2] / "runs" / "parser"


def _trained(folder: Path) -> bool:
    import json

    try:
        doc = json.loads((folder / "parser.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return {"pass2", "pass3"} <= set(doc.get("trained") or []) and (folder / "tagger.json").exists()


def notebook_parser_folder(quick: bool) -> Path:
    """The cache folder of :func:`notebook_parser`'s model (may not hold one yet)."""
    from ..cache import cache_dir

    return Path(cache_dir(f"parser-{'quick' if quick else 'full'}-{_code_digest()}"))


def notebook_parser(quick: bool | None = None, progress=None, log=print) -> Path:
    """The folder of a trained parser (module docstring), trained first if needed."""
    from ..cli import main
    from ..config import quick_mode
    from ..lock import FolderLockedError, held_by
    from ..pruners.pipeline import _wait_for_writer, notebook_models, notebook_models_folder

    quick = quick_mode() if quick is None else quick
    if not quick and _trained(repository_model()):
        return repository_model()
    folder = notebook_parser_folder(quick)
    notebook_models(quick=quick, progress=progress, log=log)
    args = ["parser", "train", "--model-dir", str(folder), "--pruners", str(notebook_models_folder(quick)),
            "--threads", "2", "--no-progress" if not progress else "--progress",
            "--overwrite"]          # a folder not _trained may still hold a finished model (no tagger.json)
    if quick:
        args += ["--limit", str(QUICK_LIMIT), "--max-words", str(QUICK_MAX_WORDS), "--bits2", "18", "--bits3", "18",
                 "--epochs2", "1", "--epochs3", "1", "--trace-bias3", "0"]     # no threshold tuning: 11 dev decodes
    for _attempt in range(3):
        _wait_for_writer(folder, log)
        if _trained(folder):
            return folder
        if log:
            log(f"training the {'quick' if quick else 'full'} parser model into {folder} "
                f"({'about a minute' if quick else 'about 36 minutes on 2 cores'})")
        os.makedirs(folder, exist_ok=True)
        if main(args) == 0:
            return folder
        if held_by(folder) is None:       # not another process's lock: a real failure
            raise RuntimeError(f"training the notebook parser into {folder} failed (see the messages above)")
    raise FolderLockedError(folder, None, "parser model folder")


__all__ = ["notebook_parser", "notebook_parser_folder", "repository_model", "QUICK_LIMIT", "QUICK_MAX_WORDS"]
