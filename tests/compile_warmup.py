"""Compile each group of numba kernels once for a whole ``pytest -n N`` run.

In a fresh clone numba's on-disk cache is empty, and every process that calls a kernel
first compiles it.  Under ``pytest-xdist`` both workers reach the same kernels at about
the same time (the dependency trainer, the coarse pruners, the chart) and both pay for
the compilation.

When ``PLGRAPH_WARMUP=1`` (``make test`` sets it) each xdist worker, before its first
test, runs :data:`GROUPS`: small real jobs that call the kernels as the tests do, with
the same argument types, so that numba writes their cache files.  The workers share the
groups through claim files in a folder named after the run (``testrunuid``): a worker
runs a group only if it claimed it first and the groups it depends on are done (by either
worker), so each group is compiled by one process and loaded by every other (the other
worker, the notebook kernels, the Dask workers).  Worker 0 looks through the groups in
order, worker 1 from the end; a worker goes on to its tests as soon as no unclaimed group
is ready.  A test that needs a cached model another worker is still training waits for
it (:func:`plgraph.files.cache.cached_model`'s lock) instead of training it again.  Each
worker writes the groups it ran, their outcome and seconds to ``<folder>/<worker>.log``
(the folder: ``plgraph-warmup-<testrunuid>`` in the temporary directory).

A group that fails is recorded and otherwise ignored: the tests that use those kernels
compile them themselves and report any error.  On a warm cache each group only loads its
kernels and cached models.  Nothing here asserts anything: it changes when kernels are
compiled, never what a test sees.
"""
from __future__ import annotations

import contextlib
import io
import os
import tempfile
import time
import traceback
from pathlib import Path


def _first_sentences(src: Path, dst: Path, n: int) -> None:
    blocks = src.read_text(encoding="utf-8").split("\n\n")[:n]
    dst.write_text("\n\n".join(blocks) + "\n\n", encoding="utf-8")


def _dep(work: Path) -> None:
    """The dependency trainer and parser (the coarse arc pruner's kernels too): 2 epochs
    on the first 30 sentences of UD English-EWT train with 8 dev sentences, then a parse."""
    from plgraph.cli import main
    from plgraph.data import find_corpus

    ewt = find_corpus("ud-english-ewt")
    _first_sentences(ewt / "en_ewt-ud-train.conllu", work / "train.conllu", 30)
    _first_sentences(ewt / "en_ewt-ud-dev.conllu", work / "dev.conllu", 8)
    assert main(["dep", "train", "--train", str(work / "train.conllu"), "--dev", str(work / "dev.conllu"),
                 "--model", str(work / "dep"), "--epochs", "2", "--threads", "1", "--no-progress"]) == 0
    assert main(["dep", "parse", "--model", str(work / "dep"), str(work / "dev.conllu"),
                 "--out", str(work / "dev.out.conllu"), "--no-progress"]) == 0


def _pruners(work: Path) -> None:
    """The quick coarse models of plgraph's cache, which most parser tests and the
    notebooks load (trained here if the cache lacks them): the pruners' kernels."""
    from plgraph.pruners.notebook import notebook_models

    notebook_models(quick=True, log=None)


def _parse_linear(work: Path) -> None:
    """The released model parsing two raw sentences: the chart, the passes' scoring and
    the pruners' inference kernels."""
    from plgraph.cli import main

    (work / "two.txt").write_text("I don't know who she wanted to see.\nThe company said it would hire workers.\n")
    assert main(["parse", "--scorer", "linear", "--in", "raw", str(work / "two.txt"), "--out",
                 str(work / "two.ptb"), "--no-progress"]) == 0


def _parser(work: Path) -> None:
    """The quick parser model of plgraph's cache (passes 2 and 3 trained on the quick
    coarse models): the passes' training kernels and the loss-augmented chart."""
    from plgraph.parser.notebook_model import notebook_parser

    notebook_parser(quick=True, log=None)


def _small(work: Path) -> None:
    """The structure classes' and the language models' kernels."""
    import plgraph.lm
    import plgraph.structure

    plgraph.structure.warmup()
    plgraph.lm.warmup()


#: ``name: (job, names of the groups it needs done first)``, in worker 0's order
GROUPS = {
    "dep": (_dep, ()),
    "pruners": (_pruners, ("dep",)),
    "parser": (_parser, ("pruners", "parse-linear")),
    "small": (_small, ()),
    "parse-linear": (_parse_linear, ()),
}


class _Run:
    """The claim and done files of one test run's warm-up, in ``folder``."""

    def __init__(self, folder: Path, log):
        self.folder, self.log = folder, log
        folder.mkdir(parents=True, exist_ok=True)

    def claimed(self, name: str) -> bool:
        return (self.folder / f"{name}.claim").exists()

    def claim(self, name: str) -> bool:
        try:
            os.close(os.open(self.folder / f"{name}.claim", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            return True
        except FileExistsError:
            return False

    def done(self, name: str) -> bool:
        return (self.folder / f"{name}.done").exists()

    def run(self, name: str, work: Path) -> None:
        start, said = time.monotonic(), io.StringIO()
        work.mkdir()
        try:
            with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
                GROUPS[name][0](work)
            status = "ok"
        except Exception:            # noqa: BLE001 - the tests report kernel errors themselves
            status = f"failed:\n{said.getvalue()[-2000:]}{traceback.format_exc()}"
        self.log(f"{name}: {status} in {time.monotonic() - start:.1f} s")
        (self.folder / f"{name}.done").write_text(status)

    def work_through(self, order, work: Path) -> None:
        """Claim and run, in ``order``, each group that no worker claimed yet and whose
        dependencies are done; return when no such group is left."""
        while True:
            ready = [n for n in order if not self.claimed(n) and all(self.done(d) for d in GROUPS[n][1])]
            if not ready:
                return
            if self.claim(ready[0]):        # else the other worker just took it: look again
                self.run(ready[0], work / ready[0])


def warm_up(config) -> None:
    """Run this xdist worker's share of :data:`GROUPS` (module docstring); does nothing
    outside an xdist worker or without ``PLGRAPH_WARMUP=1``."""
    info = getattr(config, "workerinput", None)
    if info is None or os.environ.get("PLGRAPH_WARMUP") != "1":
        return
    worker = info["workerid"]
    folder = Path(tempfile.gettempdir()) / f"plgraph-warmup-{info['testrunuid']}"
    log_file = folder / f"{worker}.log"

    def log(line: str) -> None:
        with open(log_file, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")

    run = _Run(folder, log)
    order = list(GROUPS)
    if int(worker.removeprefix("gw") or 0) % 2:
        order.reverse()
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"plgraph-warmup-{worker}-") as tmp:
        run.work_through(order, Path(tmp))
    log(f"{worker}: warm-up finished after {time.monotonic() - start:.1f} s")
