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
Scores are those of :func:`plgraph.parser.analysis.evaluate.evaluate_split`.  The
folder a release replaces must be an earlier release, an empty folder or a new path
(:func:`check_release_target`).  :func:`rescore_release` measures a release's scores
again when plgraph's parsing changed and its files did not.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from ..files.atomic import atomic_json
from ..errors import PlgraphError
from ..models import RECORD, released_dir
from ..parser.parsing.parser import Parser
from .pack import pack_model_folder
from .record import FORMAT, FORMAT_VERSION, check_sentences, file_digests


class ReleaseRefused(PlgraphError):
    """Packing changed a model's dev score by more than the release allows."""


@dataclass(frozen=True)
class ReleaseConfig:
    """What :func:`release_model` packs and how.

    ``model_dir``: the trained folder; ``out``: the released folder (None:
    :func:`~plgraph.models.released_dir`); ``linear_precision`` /
    ``neural_precision``: of packed weights (:data:`plgraph.files.packing.PRECISIONS`);
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
    the headline scores of sentences <= 40 words and of all, statuses, the output check's
    counts (graphs repaired, outputs still invalid), speed, tagging."""
    from ..parser.analysis.evaluate import headline

    out = {"sentences": doc["sentences"], "tags": doc["tags"], "len40": headline(doc, "len40"),
           "all": headline(doc, "all"), "statuses": doc["statuses"], "repaired": len(doc["repaired"]),
           "invalid": len(doc["invalid"]), "sentences_per_second": doc["sentences_per_second"], "jobs": doc["jobs"]}
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
    from ..files.modelfile import load_json

    if scorer == "neural":
        from ..parser.scoring.neural.folder import HEADER, neural_dir

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
    check_release_target(out)
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
            before = Parser.load(config.model_dir, scorer=scorer)
            packed = Parser.load(work, scorer=scorer)
            entry = {"precision": getattr(config, f"{scorer}_precision"),
                     "trained_with": _trained_with(config.model_dir, scorer)}
            log(f"{scorer}: dev, gold tags, before and after packing")
            entry["dev_unpacked"] = evaluate(before, dev, predicted_tags=False, jobs=config.jobs, progress=progress)
            del before
            entry["dev"] = evaluate(packed, dev, predicted_tags=False, jobs=config.jobs, progress=progress)
            f1 = [entry[k]["len40"]["evalb_f1"] for k in ("dev_unpacked", "dev")]
            if None in f1:
                raise ReleaseRefused(f"the {scorer} model's dev evalb F1 (<= 40 words) could not be measured "
                                     f"({entry['dev']['sentences']} dev sentences, none of at most 40 words scored): "
                                     f"the release checks packing on it, and is unchanged")
            change = f1[1] - f1[0]
            entry["dev_f1_change"] = round(change, 4)
            if abs(change) >= config.max_f1_change:
                raise ReleaseRefused(f"packing the {scorer} model in {entry['precision']} moved its dev evalb F1 by "
                                     f"{change:+.3f} (limit {config.max_f1_change}); the release is unchanged -- "
                                     f"pack it with a finer precision")
            entry.update(_scores(packed, scorer, {"dev_predicted": dev, "test": test, "test_predicted": test,
                                                  "check": check}, config.jobs, progress, log))
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


def _scores(parser, scorer: str, splits: dict, jobs: int, progress, log) -> dict:
    """``{name: evaluate(...)}`` of ``parser`` on each of ``splits`` (``{name: sentences}``;
    a name ending in ``_predicted`` tags with the model's tagger, the others use gold tags)."""
    out = {}
    for name, sentences in splits.items():
        log(f"{scorer}: {name.replace('_', ', ')}")
        out[name] = evaluate(parser, sentences, predicted_tags=name.endswith("_predicted"), jobs=jobs,
                             progress=progress)
    return out


def rescore_release(out=None, *, jobs: int = 2, ptb: str | None = None, command: str = "", progress=None,
                    log=print) -> dict:
    """Score the released folder ``out`` (default :func:`~plgraph.models.released_dir`)
    again with this version of plgraph, when its parsing changed but its files did not:
    the files are checked against the record first (OutputError naming those that
    differ), then every score the release took of the packed model -- dev and test with
    gold and predicted tags, the check sentences -- is measured again and replaces the
    recorded one.  The packing check's figures (``dev_unpacked``, ``dev_f1_change``) stay
    as measured when the model was packed (the trained folder is not part of a release);
    ``made.rescored`` records when, how and on which code.  Returns the new record,
    written atomically."""
    from ..errors import OutputError
    from ..parser.training.pipeline import read_split
    from .record import changed_files, load_record

    out = Path(out or released_dir())
    record = load_record(out)
    problems = changed_files(out, record)
    if problems:
        raise OutputError(f"{out} differs from its record ({'; '.join(problems)}): rescoring would record scores of "
                          f"other files; make the release again")
    started = time.perf_counter()
    dev, _ = read_split("dev", ptb, progress, warn=log)
    test, _ = read_split("test", ptb, progress, warn=log)
    check = check_sentences(dev, record["made"]["check"]["count"])
    for scorer, entry in record["scorers"].items():
        entry.update(_scores(Parser.load(out, scorer=scorer), scorer, {"dev": dev, "dev_predicted": dev, "test": test,
                                                                "test_predicted": test, "check": check},
                             jobs, progress, log))
    record["made"]["rescored"] = {"command": command, **code_version(), "date": time.strftime("%Y-%m-%d %H:%M:%S %z"),
                                  "seconds": round(time.perf_counter() - started, 1), "jobs": jobs}
    atomic_json(out / RECORD, record)
    log(f"rescored {out}")
    return record


def check_release_target(out: Path) -> None:
    """OutputError unless ``out`` can take a release: a new folder, an empty one, or an
    earlier release (it holds :data:`~plgraph.release.record.RECORD`), which the new one
    replaces.  Any other folder or file is somebody's and is left alone."""
    from ..errors import OutputError
    from ..models import has_release

    if not out.exists() or has_release(out):
        return
    if not out.is_dir():
        raise OutputError(f"{out} is a file, not a released model's folder: give another --out")
    if any(out.iterdir()):
        raise OutputError(f"{out} is not a released model (it holds no {RECORD}) and is not empty: a release "
                          f"replaces the whole folder, so give a new or empty folder, or an earlier release")


def _replace(work: Path, out: Path) -> None:
    """Put the complete folder ``work`` in ``out``'s place; the old ``out`` is removed
    only once the new one is there."""
    old = out.parent / f".{out.name}.old-{os.getpid()}"
    if out.exists():
        os.replace(out, old)
    os.replace(work, out)
    if old.exists():
        shutil.rmtree(old)


__all__ = ["ReleaseConfig", "ReleaseRefused", "release_model", "rescore_release", "check_release_target",
           "evaluate", "summary"]
