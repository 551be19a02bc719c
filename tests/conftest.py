"""Shared fixtures.  Corpora are found through plgraph's own resolver; a test
whose corpus is missing is skipped with a message saying how to get it."""
from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from plgraph.data import CORPORA, find_corpus  # noqa: E402
from plgraph.errors import CorpusNotFoundError  # noqa: E402


def corpus_or_skip(name: str) -> Path:
    try:
        return find_corpus(name)
    except CorpusNotFoundError:
        pytest.skip(f"corpus {name!r} not found; to get it: {CORPORA[name].how_to_get}")


@pytest.fixture(scope="session")
def sample_dir() -> Path:
    return corpus_or_skip("ptb-sample")


@pytest.fixture(scope="session")
def reference_shp_dir() -> Path:
    return corpus_or_skip("reference-shp")


@pytest.fixture(scope="session")
def sample_trees(sample_dir):
    """Every tree of the PTB sample (cleaned), read once per session."""
    from plgraph.corpora import iter_trees
    from plgraph.data import sample_files

    bad: list = []
    trees = list(iter_trees(sample_files("all"), progress=False, bad=bad))
    assert not bad, bad
    return trees


@pytest.fixture(scope="session")
def sample_graphs(sample_trees):
    from plgraph.convert import tree_to_graph

    return [tree_to_graph(t.tree, sid=t.id) for t in sample_trees]


@pytest.fixture(scope="session")
def parser_base(sample_graphs):
    """What the pass-2 and pass-3 tests start from: the sample's train and dev graphs, the
    quick-mode coarse models (shared cache), the train split's edge labels and its rules
    seen at least once."""
    from plgraph.data import SAMPLE_SPLITS
    from plgraph.parser.scoring.labels import LabelVocab
    from plgraph.pruners.notebook import notebook_models
    from plgraph.rules.usage import count_rules

    def part(name):
        lo, hi = SAMPLE_SPLITS[name]
        return [g for g in sample_graphs if lo <= int(g.id[4:8]) <= hi]

    class _S:               # what count_rules reads
        def __init__(self, g):
            self.id, self.graph = g.id, g

    train, dev = part("train"), part("dev")
    rules = count_rules([_S(g) for g in train]).pruned(1)
    return dict(train=train, dev=dev, pr=notebook_models(quick=True), vocab=LabelVocab.from_graphs(train), rules=rules)


@pytest.fixture(scope="session")
def small_ptb(sample_dir, tmp_path_factory) -> str:
    """A small treebank in the LDC layout, for training runs that test the pipeline
    rather than accuracy (a run reads its whole train split for labels and rules): section
    02 holds the sample's wsj_0001-0034 (358 sentences, among them the first 46 train
    sentences of at most 12 words, as in the sample), 22 and 23 the sample's dev and test
    files, 03-21 are empty.  Its folder, for ``--ptb`` / ``ptb=``."""
    import shutil

    from plgraph.data import sample_files

    root = tmp_path_factory.mktemp("ptb")
    parts = {"02": [sample_dir / f"wsj_{k:04d}.mrg" for k in range(1, 35)], "22": sample_files("dev", sample_dir),
             "23": sample_files("test", sample_dir)}
    for section in range(2, 24):
        folder = root / f"{section:02d}"
        folder.mkdir()
        for path in parts.get(folder.name, []):
            shutil.copyfile(path, folder / path.name)
    return str(root)


# -- corpora of the dependency-parser tests ------------------------------------------------
@pytest.fixture(scope="session")
def ewt_dir() -> Path:
    return corpus_or_skip("ud-english-ewt")


@pytest.fixture(scope="session")
def ewt_dev(ewt_dir):
    """UD English-EWT dev sentences, read once per session."""
    from plgraph.dep.conll import read_conll

    return read_conll(ewt_dir / "en_ewt-ud-dev.conllu")


@pytest.fixture(scope="session")
def ewt_train_small(ewt_dir):
    """The first 600 sentences of UD English-EWT train."""
    from plgraph.dep.conll import read_conll

    return read_conll(ewt_dir / "en_ewt-ud-train.conllu")[:600]


@pytest.fixture(scope="session")
def conll2007_dir() -> Path:
    return corpus_or_skip("conll2007")


def pytest_configure(config):
    os.environ.setdefault("MPLBACKEND", "Agg")


def pytest_sessionstart(session):
    """Under ``make test`` (``PLGRAPH_WARMUP=1``, xdist workers) compile each group of
    numba kernels once for all workers before the first test (:mod:`compile_warmup`)."""
    from compile_warmup import warm_up

    warm_up(session.config)


# -- notebooks whose corpus is missing are skipped too ----------------------------------------
# The notebooks run as pytest items (nbmake) under `make test`, which puts `tests` on the
# command line, so this conftest is loaded and its collection hook sees the notebook items.
# (`make notebooks` runs `--nbmake notebooks` alone: this file is not loaded there and a
# notebook without its data fails loudly, as a full run should.)

#: calls in a notebook's code that need a corpus although they do not name it
#: (``notebook_models`` and ``kenlm_parity_brown`` need theirs only to build a cached result
#: they lack; the corpus is required regardless, as on a fresh machine that has no cache)
IMPLICIT_CORPORA = {
    "ptb-sample": re.compile(r"\b(?:corpus|Corpus|sample_files|ptb_files|notebook_models)\(|\bfind_corpus\(\s*\)"),
    "brown": re.compile(r"\bkenlm_parity_brown\("),
}
#: ``find_corpus("name")`` with a literal name
_FIND_CORPUS = re.compile(r"""\bfind_corpus\(\s*["']([\w.-]+)["']""")
#: an LM corpus loaded by name, and the data corpus each LM name comes from
_LM_LOAD = re.compile(r"""\b(?:LMData\.load|lm_corpus)\(\s*["']([\w.-]+)["']""")
LM_SOURCES = {"ptb": "lm-ptb", "brown": "brown", "ru-taiga": "lm-ru-taiga"}


def notebook_code(path) -> str:
    """The source of the code cells of notebook ``path``, cells separated by a blank
    line; ``""`` when the file cannot be read as a notebook (nbmake reports that)."""
    try:
        nb = json.loads(Path(path).read_text(encoding="utf-8"))
        cells = nb["cells"]
    except (OSError, ValueError, KeyError, TypeError):
        return ""
    return "\n\n".join("".join(c.get("source", "")) for c in cells if c.get("cell_type") == "code")


def corpora_needed(code: str) -> list[str]:
    """The corpora (names of :data:`plgraph.data.CORPORA`, sorted) that notebook ``code``
    needs: those named in ``find_corpus("...")``, the sources of LM corpora loaded by
    name (``LMData.load``/``lm_corpus``), and the ones helpers use without naming them
    (:data:`IMPLICIT_CORPORA`: ``plgraph.corpus``, ``sample_files``, ``notebook_models``
    ... read the PTB sample).  Names not in ``CORPORA`` are ignored."""
    names = set(_FIND_CORPUS.findall(code))
    names.update(LM_SOURCES[n] for n in _LM_LOAD.findall(code) if n in LM_SOURCES)
    names.update(name for name, pattern in IMPLICIT_CORPORA.items() if pattern.search(code))
    return sorted(names & CORPORA.keys())


def notebook_corpora(path) -> list[str]:
    """The corpora notebook ``path`` needs (see :func:`corpora_needed`)."""
    return corpora_needed(notebook_code(path))


def missing_corpora_reason(names) -> str | None:
    """``None`` when the resolver finds every corpus in ``names``; otherwise the skip
    reason: the resolver's own message (the corpus, every place tried, how to get it)
    for each missing corpus, one after the other."""
    missing = []
    for name in names:
        try:
            find_corpus(name)
        except CorpusNotFoundError as err:
            missing.append(str(err))
    return "\n".join(missing) if missing else None


def pytest_collection_modifyitems(config, items):
    """Mark each notebook item (an ``.ipynb`` collected by nbmake) skipped when a corpus
    it needs cannot be found, with the resolver's message as the reason."""
    reasons: dict[Path, str | None] = {}
    for item in items:
        path = Path(item.path)
        if path.suffix != ".ipynb":
            continue
        if path not in reasons:
            reasons[path] = missing_corpora_reason(notebook_corpora(path))
        if reasons[path]:
            item.add_marker(pytest.mark.skip(reason=f"notebook needs data: {reasons[path]}"))


# -- Dask ---------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def dask_cluster():
    """A ``LocalCluster`` of 2 worker processes started inside the tests (nothing is
    assumed running), one thread and one numba thread each; skipped, saying how to get
    it, when the ``plgraph[dist]`` extra is not installed.  Yields ``(cluster, client)``;
    pass ``cluster.scheduler_address`` to a command's ``--dask``."""
    pytest.importorskip("distributed", reason="Dask's distributed is not installed: pip install 'plgraph[dist]'")
    import logging

    from distributed import Client, LocalCluster

    from plgraph.dist.cluster import WORKER_ENV

    for name in ("distributed", "distributed.nanny", "distributed.scheduler", "distributed.worker"):
        logging.getLogger(name).setLevel(logging.ERROR)
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                           env=dict(WORKER_ENV))
    client = Client(cluster)
    try:
        yield cluster, client
    finally:
        client.close()
        cluster.close()


def worker_pids(client) -> dict:
    """``{worker address: pid}`` of a Dask cluster's worker processes."""
    return client.run(os.getpid)
