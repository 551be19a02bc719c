"""Iterating over a treebank as sentences with their trees and graphs."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from .convert import ConversionOptions, DEFAULT_OPTIONS, tree_to_graph
from .data import ptb_files
from .errors import InputError
from .graph import Graph
from .ptb.reader import BadSentence, SentenceTree, read_ptb
from .tree import Tree


@dataclass
class Sentence:
    """One treebank sentence: ``id`` (``wsj_0001.0``), the cleaned ``tree`` and its ``graph``."""

    id: str
    tree: Tree
    graph: Graph
    source: str = ""

    @property
    def words(self) -> list[str]:
        return self.graph.words

    def __repr__(self) -> str:
        text = " ".join(self.graph.words)
        return f"Sentence({self.id!r}, {text[:50] + '...' if len(text) > 50 else text!r})"


def _progress(iterable, progress, total=None, desc=None):
    from tqdm.auto import tqdm

    disable = None if progress is None else not progress
    return tqdm(iterable, total=total, desc=desc, disable=disable, leave=False)


def iter_trees(files, progress=None, on_error: str = "skip", bad: list | None = None,
               desc: str = "reading") -> Iterator[SentenceTree]:
    """Read ``.mrg`` files; bad trees are appended to ``bad`` (or raise with
    ``on_error="raise"``)."""
    files = list(files)
    for path in _progress(files, progress, total=len(files), desc=desc):
        for item in read_ptb(path, on_error=on_error):
            if isinstance(item, BadSentence):
                if bad is not None:
                    bad.append(item)
                continue
            yield item


class Corpus:
    """A treebank split as a re-iterable sequence of :class:`Sentence`.

    Trees that cannot be read, and trees that cannot be converted, are skipped
    and listed in :attr:`skipped` (a list of :class:`BadSentence`); nothing is
    lost from the sentences that were fine.  The first full pass is cached
    (``cache=False`` to stream a large treebank).
    """

    def __init__(self, split: str = "all", ptb=None, options: ConversionOptions | None = None, *,
                 files=None, progress=None, strict: bool = False, cache: bool = True):
        self.split = split
        self.ptb = ptb
        self.options = options or DEFAULT_OPTIONS
        self.files = [Path(f) for f in files] if files is not None else ptb_files(split, ptb)
        self.progress = progress
        self.strict = strict
        self.cache = cache
        self.skipped: list[BadSentence] = []
        self._sentences: list[Sentence] | None = None

    def __iter__(self) -> Iterator[Sentence]:
        if self._sentences is not None:
            yield from self._sentences
            return
        skipped: list[BadSentence] = []
        collected: list[Sentence] = []
        for item in iter_trees(self.files, self.progress, bad=skipped):
            try:
                graph = tree_to_graph(item.tree, self.options, sid=item.id, strict=self.strict)
            except InputError as err:
                skipped.append(BadSentence(item.id, item.source, item.index, None, err.reason))
                continue
            sent = Sentence(item.id, item.tree, graph, item.source)
            if self.cache:
                collected.append(sent)
            yield sent
        self.skipped = skipped
        if self.cache:
            self._sentences = collected

    def sentences(self) -> list[Sentence]:
        """All sentences as a list (reads the corpus if needed)."""
        if self._sentences is None:
            for _ in self:
                pass
        return list(self._sentences) if self._sentences is not None else list(self)

    def __len__(self) -> int:
        return len(self.sentences())

    def __getitem__(self, key):
        sents = self.sentences()
        if isinstance(key, str):
            for s in sents:
                if s.id == key:
                    return s
            raise KeyError(key)
        return sents[key]

    def graphs(self) -> list[Graph]:
        return [s.graph for s in self.sentences()]

    def __repr__(self) -> str:
        where = self.ptb or "PTB sample"
        return f"Corpus(split={self.split!r}, source={str(where)!r}, files={len(self.files)})"


def corpus(split: str = "all", ptb=None, options: ConversionOptions | None = None, **kwargs) -> Corpus:
    """The Penn Treebank ``split`` (``all``/``train``/``dev``/``test``) as a :class:`Corpus`.

    Without ``ptb`` the NLTK WSJ sample is used (found by :func:`plgraph.data.find_corpus`);
    with ``ptb=DIR`` a full LDC treebank (section folders 00-24).

    >>> import plgraph
    >>> dev = plgraph.corpus("dev")                      # doctest: +SKIP
    >>> s = dev["wsj_0140.0"]; s.graph.spines[:3]        # doctest: +SKIP
    """
    return Corpus(split, ptb, options, **kwargs)
