"""The language-model corpora: train/valid/test text files by name.

``ptb``       Mikolov's PTB split (``lm/ptb``; 10k vocabulary, ``<unk>`` in the text).
``brown``     the Brown protocol (:func:`make_brown_protocol`: the first 800k
              tokens train, the next 200k valid, the rest test; training words
              seen fewer than 4 times -> ``UNKTOK``), built from NLTK's Brown
              corpus into a cache folder on first use and checked against
              recorded MD5 sums (``BROWN_MD5``).
``ru-taiga``  Russian text from UD Russian-Taiga r2.7 (``lm/ru_taiga_ud27``).

Data is never copied into the repository: the derived Brown files go to
``lm/brown-protocol`` in plgraph's cache folder (:func:`plgraph.files.cache.cache_dir`:
``$PLGRAPH_CACHE``, else ``$XDG_CACHE_HOME/plgraph``, else ``~/.cache/plgraph``).

Each corpus has a default ``min_count`` for the vocabulary: the PLRE paper replaces
training singletons by ``<unk>`` ("In all cases, the singletons were replaced
with <unk> tokens"), which we do for Russian; the PTB split already has its
own ``<unk>`` and the Brown protocol maps rare words to ``UNKTOK`` itself, so
both keep every training word (as KenLM sees them).
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from ..data import CORPORA as DATA_CORPORA, find_corpus
from ..errors import InputError
from ..files.atomic import atomic_text
from ..files.cache import cache_dir

SPLIT_NAMES = ("train", "valid", "test")

#: Brown protocol: token budgets of train and train + valid, the vocabulary cut-off, the rare-word token
BROWN_TRAIN_TOKENS = 800_000
BROWN_VALID_TOKENS = 1_000_000
BROWN_MIN_COUNT = 4
BROWN_UNK = "UNKTOK"
BROWN_MD5 = {"train": "66dec6b8b6cf4c73bdb19ff09480b5ef", "valid": "fb4ff31bf83df55b49f6b6f7e3960767",
             "test": "cd1be12fab240c066a5c4b96bf8d4843"}


@dataclass(frozen=True)
class LMCorpus:
    """Paths of one corpus's splits and its vocabulary convention."""

    name: str
    train: Path
    valid: Path
    test: Path
    min_count: int
    description: str

    def split(self, name: str) -> Path:
        if name not in SPLIT_NAMES:
            raise ValueError(f"split must be one of {SPLIT_NAMES}, got {name!r}")
        return getattr(self, name)


LM_CORPORA = ("ptb", "brown", "ru-taiga")


def lm_corpus(name: str, path=None) -> LMCorpus:
    """The splits of LM corpus ``name`` (one of :data:`LM_CORPORA`).

    Raises :class:`~plgraph.errors.CorpusNotFoundError` (with how to get it) when
    the source data is missing.
    """
    if name == "ptb":
        folder = find_corpus("lm-ptb", path)
        return LMCorpus("ptb", folder / "train.txt", folder / "valid.txt", folder / "test.txt", 1,
                        "Mikolov PTB split (10k vocabulary, <unk> in the text)")
    if name == "ru-taiga":
        folder = find_corpus("lm-ru-taiga", path)
        return LMCorpus("ru-taiga", folder / "train.txt", folder / "valid.txt", folder / "test.txt", 2,
                        "UD Russian-Taiga r2.7 text (training singletons -> <unk>)")
    if name == "brown":
        files = brown_protocol(brown_dir=path)
        return LMCorpus("brown", files["train"], files["valid"], files["test"], 1,
                        "Brown protocol of the notes (800k/200k/161k tokens, count<4 -> UNKTOK)")
    raise KeyError(f"unknown LM corpus {name!r}; known: {', '.join(LM_CORPORA)}")


def _md5(path: Path) -> str:
    return hashlib.md5(path.read_bytes()).hexdigest()


_BROWN_FILE = re.compile(r"c[a-r]\d\d")


def brown_sentences(brown_dir) -> list[list[str]]:
    """Sentences of the tagged Brown files ``c[a-r]NN`` in name order, tags removed."""
    files = sorted(p for p in Path(brown_dir).iterdir() if _BROWN_FILE.fullmatch(p.name))
    if len(files) != 500:
        raise InputError(f"expected the 500 Brown files ca01..cr09, found {len(files)}", str(brown_dir))
    sentences = []
    for f in files:
        for line in f.read_text(encoding="ascii").split("\n"):
            line = line.strip()
            if not line:
                continue
            toks = [t[: t.rfind("/")] if "/" in t else t for t in line.split()]
            toks = [t for t in toks if t]
            if toks:
                sentences.append(toks)
    return sentences


def make_brown_protocol(brown_dir, out_dir) -> dict[str, Path]:
    """Write the Brown protocol's train/valid/test files to ``out_dir``."""
    from collections import Counter

    sentences = brown_sentences(brown_dir)
    splits: dict[str, list[list[str]]] = {s: [] for s in SPLIT_NAMES}
    assigned = 0
    for s in sentences:
        key = "train" if assigned < BROWN_TRAIN_TOKENS else "valid" if assigned < BROWN_VALID_TOKENS else "test"
        splits[key].append(s)
        assigned += len(s)
    counts = Counter(w for s in splits["train"] for w in s)
    keep = {w for w, c in counts.items() if c >= BROWN_MIN_COUNT}
    out = Path(out_dir)
    paths = {}
    for name, sents in splits.items():
        text = "".join(" ".join(w if w in keep else BROWN_UNK for w in s) + "\n" for s in sents)
        paths[name] = out / f"{name}.txt"
        atomic_text(paths[name], text)
    return paths


def brown_protocol(out_dir=None, brown_dir=None, check: bool = True) -> dict[str, Path]:
    """Paths of the Brown protocol files, building them on first use.

    The files are verified against the recorded MD5 sums (``BROWN_MD5``); a mismatch (a
    different copy of the Brown corpus) raises :class:`~plgraph.errors.InputError`
    unless ``check=False``.
    """
    out = Path(out_dir) if out_dir is not None else cache_dir("lm", "brown-protocol")
    paths = {name: out / f"{name}.txt" for name in SPLIT_NAMES}
    if not all(p.exists() and _md5(p) == BROWN_MD5[n] for n, p in paths.items()):
        source = find_corpus("brown", brown_dir)
        paths = make_brown_protocol(source, out)
    if check:
        for name, p in paths.items():
            digest = _md5(p)
            if digest != BROWN_MD5[name]:
                raise InputError(f"Brown protocol {name} file has MD5 {digest}, the notes' is {BROWN_MD5[name]}: "
                                 f"the Brown copy differs from NLTK's ({DATA_CORPORA['brown'].how_to_get})",
                                 str(p))
    return paths
