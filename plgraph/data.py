"""Finding corpora and the fixed splits.

Resolver order (first hit wins):

1. an explicit ``path`` argument;
2. the ``PLGRAPH_DATA`` environment variable (a data folder laid out like
   ``shared/data``, or an ``nltk_data`` folder);
3. the ``shared/data`` folder beside the checkout (``<repo>/../shared/data``);
4. NLTK's own data path (e.g. after ``nltk.download("treebank")``).

A corpus found nowhere raises :class:`~plgraph.errors.CorpusNotFoundError`
with every place tried and how to get it.

Splits of the Penn Treebank
---------------------------
* NLTK sample (wsj_0001-0199): train wsj_0001-0139, dev wsj_0140-0169,
  test wsj_0170-0199.
* Full LDC treebank (``--ptb DIR`` with section folders 00-24): train 02-21,
  dev 22, test 23; ``all`` is every section present.

Sentence ids are ``wsj_NNNN.K`` with K the 0-based tree index in the file.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from .errors import CorpusNotFoundError

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"
SPLITS = ("all", "train", "dev", "test")


@dataclass(frozen=True)
class CorpusSpec:
    """Where a corpus lives inside a data folder and how to obtain it."""

    name: str
    relpath: str          # under a shared/data-style folder
    nltk_relpath: str | None  # under an nltk_data folder
    marker: str           # a file or glob that must exist inside the corpus folder
    how_to_get: str


CORPORA = {
    "ptb-sample": CorpusSpec(
        "ptb-sample",
        "nltk_data/corpora/treebank/combined",
        "corpora/treebank/combined",
        "wsj_0001.mrg",
        "run python -c \"import nltk; nltk.download('treebank')\" (NLTK's 10% WSJ sample), "
        "or set PLGRAPH_DATA to a folder that holds nltk_data/corpora/treebank/combined",
    ),
    "ud-english-ewt": CorpusSpec(
        "ud-english-ewt", "ud/UD_English-EWT", None, "en_ewt-ud-train.conllu",
        "download UD_English-EWT (UD 2.x) from https://universaldependencies.org and set PLGRAPH_DATA to a "
        "folder holding ud/UD_English-EWT"),
    "ud-basque-bdt-r1.4": CorpusSpec(
        "ud-basque-bdt-r1.4", "ud/UD_Basque-BDT-r1.4", None, "eu-ud-train.conllu",
        "download UD_Basque-BDT release r1.4 and set PLGRAPH_DATA to a folder holding ud/UD_Basque-BDT-r1.4"),
    "ud-basque-bdt": CorpusSpec(
        "ud-basque-bdt", "ud/UD_Basque-BDT", None, "eu_bdt-ud-dev.conllu",
        "download UD_Basque-BDT and set PLGRAPH_DATA to a folder holding ud/UD_Basque-BDT"),
    "ud-russian-taiga": CorpusSpec(
        "ud-russian-taiga", "ud/UD_Russian-Taiga-r2.7", None, "ru_taiga-ud-train.conllu",
        "download UD_Russian-Taiga release r2.7 and set PLGRAPH_DATA to a folder holding ud/UD_Russian-Taiga-r2.7"),
    "ud-russian-gsd": CorpusSpec(
        "ud-russian-gsd", "ud/UD_Russian-GSD", None, "ru_gsd-ud-dev.conllu",
        "download UD_Russian-GSD and set PLGRAPH_DATA to a folder holding ud/UD_Russian-GSD"),
    "ud-catalan-ancora": CorpusSpec(
        "ud-catalan-ancora", "ud/UD_Catalan-AnCora-r2.8", None, "ca_ancora-ud-dev.conllu",
        "download UD_Catalan-AnCora release r2.8 and set PLGRAPH_DATA to a folder holding ud/UD_Catalan-AnCora-r2.8"),
    "conll2007": CorpusSpec(
        "conll2007", "nltk_data/corpora/conll2007", "corpora/conll2007", "eus.train",
        "run python -c \"import nltk; nltk.download('conll2007')\""),
    "brown": CorpusSpec(
        "brown", "nltk_data/corpora/brown", "corpora/brown", "ca01",
        "run python -c \"import nltk; nltk.download('brown')\""),
    "lm-ptb": CorpusSpec(
        "lm-ptb", "lm/ptb", None, "train.txt",
        "get Mikolov's PTB language-model split (simple-examples/data/ptb.{train,valid,test}.txt) and set "
        "PLGRAPH_DATA to a folder holding lm/ptb/{train,valid,test}.txt"),
    "lm-ru-taiga": CorpusSpec(
        "lm-ru-taiga", "lm/ru_taiga_ud27", None, "train.txt",
        "derive it from UD_Russian-Taiga r2.7 (FORM column, one sentence per line) and set PLGRAPH_DATA to a "
        "folder holding lm/ru_taiga_ud27/{train,valid,test}.txt"),
    # test fixtures: the reference converter's SHP output for wsj_0001-0020 (lives in shared/design)
    "reference-shp": CorpusSpec(
        "reference-shp",
        "../design/reference-shp",
        None,
        "wsj_0001-0020.main.shp",
        "it ships with the project's shared/ folder (shared/design/reference-shp); "
        "set PLGRAPH_DATA to the shared/data folder beside it",
    ),
    # external oracle: the C EVALB source (Sekine & Collins), compiled by the tests into a temporary folder
    "reference-evalb": CorpusSpec(
        "reference-evalb",
        "../design/reference-evalb",
        None,
        "evalb.c",
        "it ships with the project's shared/ folder (shared/design/reference-evalb, from "
        "nikitakit/self-attentive-parser EVALB/); set PLGRAPH_DATA to the shared/data folder beside it",
    ),
}

SAMPLE_SPLITS = {"train": (1, 139), "dev": (140, 169), "test": (170, 199)}
LDC_SPLITS = {"train": [f"{s:02d}" for s in range(2, 22)], "dev": ["22"], "test": ["23"]}


def _candidates(spec: CorpusSpec, path=None) -> list[tuple[str, Path]]:
    out: list[tuple[str, Path]] = []
    if path is not None:
        out.append(("path argument", Path(path)))
        return out
    env = os.environ.get("PLGRAPH_DATA")
    if env:
        root = Path(env)
        out.append(("PLGRAPH_DATA", root / spec.relpath))
        if spec.nltk_relpath:
            out.append(("PLGRAPH_DATA (as nltk_data)", root / spec.nltk_relpath))
    out.append(("shared/data beside the checkout", SHARED_DATA / spec.relpath))
    if spec.nltk_relpath:
        for root in _nltk_paths():
            out.append(("NLTK data path", Path(root) / spec.nltk_relpath))
    return out


def _nltk_paths() -> list[str]:
    try:
        import nltk.data
    except ImportError:  # pragma: no cover - nltk is a dependency
        return []
    return [p for p in nltk.data.path if isinstance(p, (str, os.PathLike))]


def find_corpus(name: str = "ptb-sample", path=None) -> Path:
    """Folder of corpus ``name`` following the resolver order above.

    Raises
    ------
    CorpusNotFoundError
        Listing every place tried and how to get the corpus.
    """
    if name not in CORPORA:
        raise KeyError(f"unknown corpus {name!r}; known: {sorted(CORPORA)}")
    spec = CORPORA[name]
    tried = []
    for origin, folder in _candidates(spec, path):
        if folder.is_dir() and any(folder.glob(spec.marker)):
            return folder
        tried.append(f"{origin}: {folder}")
    raise CorpusNotFoundError(
        f"corpus {name!r} not found. Tried:\n  " + "\n  ".join(tried) + f"\nTo get it: {spec.how_to_get}."
    )


_SAMPLE_FILE = re.compile(r"wsj_(\d{4})\.mrg$")


def sample_files(split: str = "all", path=None) -> list[Path]:
    """``.mrg`` files of the NLTK PTB sample for ``split``, in file order."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    folder = find_corpus("ptb-sample", path)
    files = []
    for f in sorted(folder.glob("wsj_*.mrg")):
        m = _SAMPLE_FILE.search(f.name)
        if not m:
            continue
        num = int(m.group(1))
        if split != "all":
            lo, hi = SAMPLE_SPLITS[split]
            if not lo <= num <= hi:
                continue
        files.append(f)
    return files


def ldc_files(ptb_dir, split: str = "all") -> list[Path]:
    """``.mrg`` files of a full LDC Penn Treebank for ``split``.

    ``ptb_dir`` holds the WSJ section folders ``00``-``24`` (the LDC layout
    ``.../parsed/mrg/wsj`` is also accepted as its parent).
    """
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    root = Path(ptb_dir)
    if not root.is_dir():
        raise CorpusNotFoundError(f"--ptb folder {root} does not exist")
    nested = root / "parsed" / "mrg" / "wsj"
    if not (root / "00").is_dir() and nested.is_dir():
        root = nested
    sections = sorted(p.name for p in root.iterdir() if p.is_dir() and re.fullmatch(r"\d\d", p.name))
    if not sections:
        raise CorpusNotFoundError(f"{root} has no WSJ section folders 00-24 of .mrg files")
    wanted = sections if split == "all" else LDC_SPLITS[split]
    missing = [s for s in wanted if s not in sections]
    if missing:
        raise CorpusNotFoundError(f"{root} lacks section folder(s) {', '.join(missing)} needed for split {split!r}")
    files = []
    for s in wanted:
        files.extend(sorted((root / s).glob("*.mrg")))
    if not files:
        raise CorpusNotFoundError(f"no .mrg files under {root} for split {split!r}")
    return files


def ptb_files(split: str = "all", ptb=None) -> list[Path]:
    """Sample files, or LDC files when ``ptb`` (a folder) is given."""
    return ldc_files(ptb, split) if ptb is not None else sample_files(split)
