"""Raw text in, sentences with their traces out: :class:`Document` and :class:`ParsedSentence`.

``Parser.__call__`` (:meth:`plgraph.parser.parsing.parser.Parser.__call__`) finds the
sentences of running text (:class:`plgraph.text.sentences.SentenceSplitter`), tokenises
them as the treebank is (:func:`plgraph.text.tokenize.tokenize`), parses each and gives
a :class:`Document`::

    nlp = plgraph.load()
    doc = nlp("I don't know who she wanted to see.")
    s = doc.sentences[0]
    s.tree            # '(TOP (S (NP-SBJ (PRP I)) ... (NP (-NONE- *T*-1)) ...))'
    s.traces          # [TraceRecord(type='*', ...), TraceRecord(type='*T*', function='object', predicate='see', ...)]
    s.to_nltk(), s.graph, s.to_json(), s.to_conllu()

A sentence whose tokens the parser cannot take (a control character in a word) is kept
in its place with ``status`` ``unreadable`` and the reason, and no tree; every other
sentence has a tree, its ``status`` saying how it was parsed
(:data:`plgraph.parser.parsing.parser.STATUSES`).  In a notebook a sentence shows itself
as the arc diagram of its graph (:func:`plgraph.viz.render_svg`: spines, structural and
trace edges) above its trace records; a document shows its sentences.  The parser sits
below the presentation layer and does not import :mod:`plgraph.viz`: importing it (as
:func:`plgraph.load` does) hands its drawing function to :func:`set_drawing`; until then a
sentence shows its tree and records without the picture.
"""
from __future__ import annotations

import html
from dataclasses import dataclass, field
from functools import cached_property

from .output import UNREADABLE
from .trace_records import TraceRecord, trace_records

#: how a sentence draws its graph as SVG in a notebook (:func:`set_drawing`)
_DRAWING = {"svg": None}


def set_drawing(render_svg) -> None:
    """Draw sentences' graphs with ``render_svg(graph) -> str`` (:func:`plgraph.viz.render_svg`,
    which :mod:`plgraph.viz` hands over when it is imported)."""
    _DRAWING["svg"] = render_svg


@dataclass
class ParsedSentence:
    """One sentence of a :class:`Document`: its ``text`` (as found in the input; None
    when it came as tokens), ``id``, and the parser's
    :class:`~plgraph.parser.parsing.parser.ParseResult` (``result``; None when
    ``status`` is ``unreadable``, with the ``reason``)."""

    text: str | None
    id: str | None
    result: object = None
    words: list = field(default_factory=list)
    reason: str = ""

    @property
    def status(self) -> str:
        return UNREADABLE if self.result is None else self.result.status

    @property
    def tags(self) -> list:
        return [] if self.result is None else list(self.result.tags)

    @property
    def graph(self):
        """The parsed :class:`~plgraph.graph.Graph` (None when unreadable)."""
        return None if self.result is None else self.result.graph

    @property
    def tree(self) -> str | None:
        """The PTB tree as ``python -m plgraph parse`` writes it: one line, root ``TOP``,
        null elements and co-indices (None when unreadable)."""
        from .output import tree_text

        return None if self.result is None else tree_text(self.result, "TOP")

    def to_nltk(self):
        """The tree as an :class:`nltk.Tree` (None when unreadable)."""
        from nltk import Tree as NltkTree

        return None if self.result is None else NltkTree.fromstring(self.tree)

    @cached_property
    def traces(self) -> list[TraceRecord]:
        """One :class:`~plgraph.parser.parsing.trace_records.TraceRecord` per null element
        of the tree, in the tree's order."""
        return [] if self.result is None else trace_records(self.result.tree)

    def to_json(self) -> dict:
        """The sentence as ``parse --to json`` writes it (:func:`plgraph.parser.parsing.output.sentence_json`)."""
        from .output import sentence_json

        return sentence_json(self.result, sid=self.id, text=self.text, words=self.words, reason=self.reason,
                             traces=self.traces)

    def to_conllu(self) -> str:
        """The sentence as ``parse --to conllu`` writes it (:mod:`plgraph.parser.parsing.conllu_graph`)."""
        from .output import sentence_conllu

        return sentence_conllu(self.result, sid=self.id, text=self.text, reason=self.reason)

    def __str__(self) -> str:
        return self.tree if self.result is not None else f"() unreadable: {self.reason}"

    def __repr__(self) -> str:
        words = " ".join(self.words)
        return (f"ParsedSentence({self.id!r}, {words[:40] + '...' if len(words) > 40 else words!r}, "
                f"status={self.status!r}, traces={len(self.traces)})")

    def _repr_svg_(self):
        draw = _DRAWING["svg"]
        return None if self.result is None or draw is None else draw(self.result.graph)

    def _repr_html_(self) -> str:
        head = f"<p><b>{html.escape(self.id or '')}</b> {html.escape(' '.join(self.words))} <i>({self.status})</i></p>"
        if self.result is None:
            return head + f"<p>unreadable: {html.escape(self.reason)}</p>"
        svg = self._repr_svg_()
        picture = (f"<div style='overflow-x:auto'>{svg}</div>" if svg is not None
                   else f"<pre>{html.escape(self.tree)}</pre>")
        rows = "".join(f"<li><code>{html.escape(str(r))}</code></li>" for r in self.traces)
        return head + picture + (f"<ul>{rows}</ul>" if rows else "<p>no null elements</p>")


@dataclass
class Document:
    """The ``text`` given and its :class:`ParsedSentence` list, in order."""

    text: str
    sentences: list

    def __len__(self) -> int:
        return len(self.sentences)

    def __iter__(self):
        return iter(self.sentences)

    def __getitem__(self, k):
        return self.sentences[k]

    @property
    def traces(self) -> list[TraceRecord]:
        """Every sentence's trace records, in order."""
        return [r for s in self.sentences for r in s.traces]

    def to_json(self) -> list[dict]:
        return [s.to_json() for s in self.sentences]

    def to_conllu(self) -> str:
        return "".join(s.to_conllu() for s in self.sentences)

    def __repr__(self) -> str:
        return f"Document({len(self.sentences)} sentences, {len(self.traces)} null elements)"

    def _repr_html_(self) -> str:
        return "".join(s._repr_html_() for s in self.sentences)


def parse_document(parser, text: str, *, splitter=None, wrapped: bool = True, id_prefix: str = "s",
                   progress: bool | None = None) -> Document:
    """``text`` (running text) parsed by ``parser`` into a :class:`Document`: paragraphs
    end at blank lines and, unless ``wrapped``, at every line break
    (:func:`plgraph.text.sentences.paragraphs`); tokens in the treebank's form
    (:func:`plgraph.ptb.escape.escape_word`); sentence ids ``s1``, ``s2``, ...
    (``id_prefix``); a progress bar (``tqdm.auto``) over the sentences when ``progress``
    (None: when standard error is a terminal)."""
    from ...errors import InputError
    from ...progress import bar
    from ...ptb.escape import escape_word
    from ...text.sentences import default_splitter, paragraphs

    splitter = splitter or default_splitter()
    found = []
    for _, para in paragraphs(str(text), wrapped):
        for a, b in splitter.spans(para):
            words = [escape_word(t) for t in splitter.tokenize(para[a:b])]
            if words:
                found.append((para[a:b], words))
    out = []
    with bar(len(found), "parsing", progress, unit="sentence") as shown:
        for raw, words in found:
            sid = f"{id_prefix}{len(out) + 1}"
            try:
                out.append(ParsedSentence(raw, sid, parser.parse_result(words, sid=sid), words))
            except InputError as err:
                out.append(ParsedSentence(raw, sid, None, words, err.reason))
            shown.update(1)
    return Document(str(text), out)


__all__ = ["Document", "ParsedSentence", "UNREADABLE", "parse_document", "set_drawing"]
