"""Make the released model: pack a trained folder, score it, record it, replace the release.

:func:`release_model` packs the model folder ``config.model_dir`` (a folder of ``python
-m plgraph parser train``, with ``neural/`` when the neural scorer was trained) into a new
folder beside the release (:mod:`plgraph.release.pack`), then, per scorer:

1. scores the folder before packing and the packed folder on dev with gold tags; a
   packed model whose evalb F1 (<= 40 words) moves by ``max_f1_change`` or more is
   refused (:class:`ReleaseRefused`) and the release stays as it was;
2. scores the packed folder on dev with predicted tags, on test with gold and predicted
   tags, and on :func:`~plgraph.release.record.check_sentences`;

writes ``release.json`` (:mod:`plgraph.release.record`) and only then puts the new
folder in the release's place (the old one is removed after the new one is there).
Scores are those of :func:`plgraph.parser.analysis.evaluate.evaluate_split`.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from ..atomic import atomic_json
from ..errors import PlgraphError
from ..parser.parsing.scorers import load_scorer
from .pack import pack_model_folder
from .record import FORMAT, FORMAT_VERSION, RECORD, check_sentences, file_digests, released_dir


class ReleaseRefused(PlgraphError):
    """Packing changed a model's dev score by more than the release allows."""


@dataclass(frozen=True)
class ReleaseConfig:
    """What :func:`release_model` packs and how.

    ``model_dir``: the trained folder; ``out``: the released folder (None:
    :func:`~plgraph.release.record.released_dir`); ``linear_precision`` /
    ``neural_precision``: of packed weights (:data:`plgraph.packing.PRECISIONS`);
    ``max_f1_change``: the largest change of dev evalb F1 (<= 40 words, gold tags) packing
    may cause; ``check_count``: sentences of the test suite's check; ``jobs``: parsing
    threads; ``ptb``: a full LDC treebank instead of the sample."""

    model_dir: str = "runs/parser"
    out: str | None = None
    linear_precision: str = "bfloat16"
    neural_precision: str = "float16"
    max_f1_change: float = 0.05
    check_count: int = 40
    jobs: int = 2
    ptb: str | None = None


def summary(doc: dict) -> dict:
    """The figures a release records of one evaluation (:func:`evaluate_split`'s dict):
    the headline scores of sentences <= 40 words and of all, statuses, speed, tagging."""
    from ..parser.analysis.evaluate import headline

    out = {"sentences": doc["sentences"], "tags": doc["tags"], "len40": headline(doc, "len40"),
           "all": headline(doc, "all"), "statuses": doc["statuses"],
           "sentences_per_second": doc["sentences_per_second"], "jobs": doc["jobs"]}
    if "tagging_accuracy" in doc:
        out["tagging_accuracy"] = doc["tagging_accuracy"]
    return out


def evaluate(parser, sentences, *, predicted_tags: bool, jobs: int, progress=None) -> dict:
    """:func:`summary` of ``parser`` on ``sentences``."""
    from ..parser.analysis.evaluate import evaluate_split

    doc, _ = evaluate_split(parser, sentences, predicted_tags=predicted_tags, jobs=jobs, ceiling=False,
                            progress=progress)
    return summary(doc)


def _git(*args: str) -> str | None:
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "-C", str(here), *args], capture_output=True, text=True, timeout=10,
                             check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def code_version() -> dict:
    """The checkout plgraph runs from: ``{"commit", "changed"}`` (the HEAD commit, and
    whether plgraph's code differs from it), both None outside a git checkout."""
    commit = _git("rev-parse", "HEAD")
    status = _git("status", "--porcelain", "--", str(Path(__file__).resolve().parents[1]))
    return {"commit": commit or None, "changed": None if status is None else bool(status)}


def _trained_with(model_dir, scorer: str) -> dict:
    """The training settings a release records: each pass's config (linear) or the
    network's and training's (neural), as the trained folder's header has them."""
    from ..modelfile import load_json

    if scorer == "neural":
        from ..neural.folder import HEADER, neural_dir

        doc = load_json(os.path.join(neural_dir(model_dir), HEADER), {}, "neural model header")
        return {k: doc.get(k) for k in ("network", "options", "sizes")}
    doc = load_json(os.path.join(os.fspath(model_dir), "parser.json"), {}, "parser model header")
    return {"max_words": doc.get("max_words"), "limit": doc.get("limit"), "seed": doc.get("seed"),
            "rules": doc.get("rules"), "passes": {k: v.get("config") for k, v in doc.get("passes", {}).items()}}


def release_model(config: ReleaseConfig = ReleaseConfig(), *, command: str = "", progress=None,
                  log=print) -> dict:
    """Make the release (module docstring) and return its record.  ``command``: how it
    was invoked, recorded; ``log``: where progress lines go."""
    from ..parser.training.pipeline import read_split

    out = Path(config.out or released_dir())
    work = out.parent / f".{out.name}.new-{os.getpid()}"
    if work.exists():
        shutil.rmtree(work)
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        started = time.perf_counter()
        log(f"packing {config.model_dir} -> {work}")
        scorers = pack_model_folder(config.model_dir, work, linear_precision=config.linear_precision,
                                    neural_precision=config.neural_precision)
        dev, _ = read_split("dev", config.ptb, progress, warn=log)
        test, _ = read_split("test", config.ptb, progress, warn=log)
        check = check_sentences(dev, config.check_count)
        results = {}
        for scorer in scorers:
            before = load_scorer(config.model_dir, scorer)
            packed = load_scorer(work, scorer)
            entry = {"precision": getattr(config, f"{scorer}_precision"),
                     "trained_with": _trained_with(config.model_dir, scorer)}
            log(f"{scorer}: dev, gold tags, before and after packing")
            entry["dev_unpacked"] = evaluate(before, dev, predicted_tags=False, jobs=config.jobs, progress=progress)
            del before
            entry["dev"] = evaluate(packed, dev, predicted_tags=False, jobs=config.jobs, progress=progress)
            change = entry["dev"]["len40"]["evalb_f1"] - entry["dev_unpacked"]["len40"]["evalb_f1"]
            entry["dev_f1_change"] = round(change, 4)
            if abs(change) >= config.max_f1_change:
                raise ReleaseRefused(f"packing the {scorer} model in {entry['precision']} moved its dev evalb F1 by "
                                     f"{change:+.3f} (limit {config.max_f1_change}); the release is unchanged -- "
                                     f"pack it with a finer precision")
            for name, split, predicted in (("dev_predicted", dev, True), ("test", test, False),
                                           ("test_predicted", test, True), ("check", check, False)):
                log(f"{scorer}: {name.replace('_', ', ')}")
                entry[name] = evaluate(packed, split, predicted_tags=predicted, jobs=config.jobs,
                                       progress=progress)
            results[scorer] = entry
        record = {"format": FORMAT, "format_version": FORMAT_VERSION, "files": file_digests(work),
                  "scorers": results,
                  "made": {"model_dir": os.path.abspath(config.model_dir), "config": asdict(config),
                           "command": command, **code_version(),
                           "date": time.strftime("%Y-%m-%d %H:%M:%S %z"),
                           "seconds": round(time.perf_counter() - started, 1),
                           "check": {"count": config.check_count, "sentences": len(check)}}}
        atomic_json(work / RECORD, record)
        _replace(work, out)
        log(f"released -> {out}")
        return record
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)


def _replace(work: Path, out: Path) -> None:
    """Put the complete folder ``work`` in ``out``'s place; the old ``out`` is removed
    only once the new one is there."""
    old = out.parent / f".{out.name}.old-{os.getpid()}"
    if out.exists():
        os.replace(out, old)
    os.replace(work, out)
    if old.exists():
        shutil.rmtree(old)


__all__ = ["ReleaseConfig", "ReleaseRefused", "release_model", "evaluate", "summary"]
