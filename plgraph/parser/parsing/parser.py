"""Parsing text with a trained model: :class:`Parser` (``Parser.load(M).parse(words)``).

A :class:`Parser` composes a POS tagger, a scorer
(:class:`~plgraph.parser.scoring.protocol.Scorer`: the reproduced thesis's linear cascade,
:class:`~plgraph.parser.scoring.linear.LinearScorer`, or the neural network,
:class:`~plgraph.parser.scoring.neural.scorer.NeuralScorer`), the exact 1EC chart, the
decoded graph and the fallback ladder.  :meth:`Parser.load` picks a model folder's scorer
as ``python -m plgraph parse`` does (:mod:`plgraph.parser.scoring.registry`).

One sentence goes through:

1. the checked input, and tags: given, or the scorer's own when it predicts them (the
   neural network trained with a tagging head; ``predicts_tags``), or else from the model
   folder's POS tagger (:mod:`plgraph.parser.parsing.tagger`);
2. the scorer's own work on it (:meth:`~plgraph.parser.scoring.protocol.Scorer.prepare`:
   the linear passes 1 and 2 with the classifiers, or the network's scores);
3. the chart over the scorer's tables (:func:`~plgraph.parser.chart.run.parse_chart`), under
   the tuned pruning and, when that finds no parse, once more under relaxed pruning;
4. the decode as a :class:`~plgraph.graph.Graph` (:func:`~plgraph.parser.parsing.decode.decoded_graph`),
   made valid where it is not (:func:`~plgraph.convert.validity.repair_graph`), and as a PTB
   tree (:func:`~plgraph.convert.graph_to_tree` with the reference's null placement,
   ``use_null_positions=False``), both checked (:func:`graph_result`).

A sentence never stops a run.  Each :class:`ParseResult` says how it was parsed
(``status``): ``parsed`` (the chart under the tuned pruning), ``relaxed`` (under relaxed
pruning), ``pass2`` (no chart parsed: the scorer's own graph, the linear scorer's pass 2
with the spine classifier's first spines, kept when it gives a tree -- crossing
structural edges give none), ``pass1`` (the scorer's baseline: its first-order projective
tree with the most probable spines and no traces), ``fallback`` (the reference's
``fix-no-tag.py`` flat NP, :func:`~plgraph.parser.parsing.decode.fallback_graph`: longer than
``max_words``, or nothing above gives a tree) with the ``reason``.  The ``pass2`` and
``pass1`` steps are plgraph's: the reference goes from a failed pass 3 straight to the
flat NP.  A chart that outgrows its item budget (:data:`plgraph.parser.chart.run.MAX_ITEMS`)
gives no parse and the sentence goes on to the next step, without the relaxed retry.

Sentences are parsed in ``jobs`` threads (:meth:`Parser.parse_many`): the chart kernels
release the GIL, and the model is shared, not copied.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from ...convert import graph_to_tree
from ...convert.validity import output_problems, repair_graph
from ...errors import InputError
from ...graph import Graph
from ...tree import Tree
from ..scoring.protocol import GAVE_UP_REASON, Scorer
from .decode import decoded_graph, fallback_graph

#: how many words a sentence may have before it gets the fallback parse (the model's
#: training limit is usually 40; longer sentences are parsed, more slowly)
DEFAULT_MAX_WORDS = 100
#: how a sentence was parsed, best first
STATUSES = ("parsed", "relaxed", "pass2", "pass1", "fallback")


@dataclass
class ParseResult:
    """One parsed sentence: its ``graph`` and ``tree`` (``ROOT`` on top), ``status``
    (module docstring), ``reason`` (why it is not ``parsed``), the ``tags`` used,
    ``seconds`` spent, what the conversion to a tree noted (``warnings``) and the
    ``repairs`` that made the graph valid (:func:`~plgraph.convert.validity.repair_graph`:
    empty when the cascade's graph was valid as it came) and the ``problems`` the output
    check still finds in graph and tree (:func:`~plgraph.convert.validity.output_problems`:
    empty unless plgraph has a bug)."""

    id: str | None
    words: list
    tags: list
    graph: Graph
    tree: Tree
    status: str
    reason: str = ""
    seconds: float = 0.0
    warnings: list = field(default_factory=list)
    repairs: list = field(default_factory=list)
    problems: list = field(default_factory=list)

    @property
    def failed(self) -> bool:
        """True when the output is the reference's fallback parse."""
        return self.status == "fallback"


def fallback_result(words, tags, sid, reason: str, options: dict | None = None, seconds: float = 0.0) -> ParseResult:
    """The reference's fallback parse of a sentence as a :class:`ParseResult` (``fallback``)."""
    g = fallback_graph(words, tags, sid=sid, options=options)
    tree = graph_to_tree(g, use_null_positions=False)
    return ParseResult(sid, list(words), list(tags), g, tree, "fallback", reason, seconds,
                       problems=output_problems(g, tree))


def graph_result(graph: Graph, status: str, reason: str = "", start: float | None = None) -> ParseResult:
    """The :class:`ParseResult` of a parser's graph (a cascade step's, a baseline's, an
    oracle's): the graph made valid (:func:`~plgraph.convert.validity.repair_graph`), its
    tree, and the output check; InputError (ConversionError) when the graph gives no
    tree.  ``start``: the :func:`time.perf_counter` the sentence's parse began at."""
    graph, repairs = repair_graph(graph)
    tree = graph_to_tree(graph, use_null_positions=False)
    seconds = 0.0 if start is None else time.perf_counter() - start
    return ParseResult(graph.id, list(graph.words), list(graph.tags), graph, tree, status, reason, seconds,
                       list(graph.warnings), repairs, output_problems(graph, tree))


class Parser:
    """A trained parser of graphs with traces, ready to parse: a ``scorer``
    (:class:`~plgraph.parser.scoring.protocol.Scorer`), the model folder's POS ``tagger``
    (:class:`~plgraph.parser.parsing.tagger.PosTagger`; None: tags must be given, unless the
    scorer tags sentences itself, :attr:`own_tags`), the
    chart and the fallback ladder (module docstring).  ``max_words``: longer sentences
    get the fallback parse; ``model_dir``: the scorer's folder.  Load one with
    :meth:`load`, which picks the folder's scorer.  Every parser offers checked input,
    tags from the tagger, a :class:`ParseResult` for every sentence whatever happens, and
    parsing many sentences in threads."""

    def __init__(self, scorer: Scorer, tagger=None, *, max_words: int = DEFAULT_MAX_WORDS,
                 model_dir: str | None = None):
        self.scorer = scorer
        self.tagger = tagger
        self.max_words = int(max_words)
        self.model_dir = model_dir

    @classmethod
    def load(cls, model_dir=None, *, scorer: str | None = None, max_words: int | None = None,
             tagger: bool = True, **scorer_options) -> "Parser":
        """The parser of model folder ``model_dir`` (default: plgraph's released model,
        :func:`~plgraph.models.default_model_dir`) with scorer ``scorer`` (``linear`` or
        ``neural``; default: the one ``python -m plgraph parse`` picks,
        :func:`~plgraph.parser.scoring.registry.default_scorer` -- the neural one when the
        folder holds it and PyTorch is installed) and, if the scorer's folder has one and
        ``tagger``, its POS tagger.  ``max_words``: longer sentences get the fallback parse
        (default :data:`DEFAULT_MAX_WORDS`); ``scorer_options`` go to the scorer's ``load``
        (the neural one's ``threads``).  Every file of the model is read and checked first
        (:class:`~plgraph.errors.ModelFileError` naming the file); ValueError for an
        unknown scorer."""
        from ..scoring.registry import load_scorer
        from .tagger import PosTagger, tagger_file

        sc, folder = load_scorer(model_dir, scorer, **scorer_options)
        tpath = tagger_file(folder) if tagger and not getattr(sc, "predicts_tags", False) else None
        return cls(sc, PosTagger.load(tpath) if tpath else None,
                   max_words=DEFAULT_MAX_WORDS if max_words is None else max_words, model_dir=folder)

    def with_options(self, **changes) -> "Parser":
        """A copy whose scorer decodes with other options (the linear scorer's pass-3
        settings, :class:`~plgraph.parser.scoring.pass3.Pass3Config`; the neural one's
        pruning, :class:`~plgraph.parser.scoring.neural.prune.PruneConfig`), sharing the
        parameters."""
        return Parser(self.scorer.with_options(**changes), self.tagger, max_words=self.max_words,
                      model_dir=self.model_dir)

    @property
    def vocab(self):
        """The scorer's edge labels (:class:`~plgraph.parser.scoring.labels.LabelVocab`)."""
        return self.scorer.vocab

    @property
    def options(self) -> dict:
        """The conversion options of the graphs the scorer was trained on."""
        return self.scorer.options

    @property
    def own_tags(self) -> bool:
        """Does the scorer tag untagged sentences itself (no separate tagger)?"""
        return bool(getattr(self.scorer, "predicts_tags", False))

    def _cascade(self, words, tags, sid, prepared=None):
        """``(graph, status, reason, state)``: the graph of a checked sentence from the
        scorer's charts (None when none parsed and the scorer has no graph of its own,
        with why), and the scorer's ``state`` of the sentence (:meth:`baseline` reuses it).
        ``prepared``: the scorer's :class:`~plgraph.parser.scoring.protocol.Prepared`
        outcome when already known (:meth:`~plgraph.parser.scoring.protocol.Scorer.tag_and_prepare`)."""
        from ..chart.run import parse_chart

        sc = self.scorer
        state, failure = prepared if prepared is not None else sc.prepare(words, tags, sid)
        if failure:
            return None, "pass1", failure, state
        status, reason = "parsed", f"{sc.decoder_name} found no parse, also under relaxed pruning"
        for request in sc.requests(words, tags, state):
            res = parse_chart(request.tables, sc.rules, beam=request.beam, cube=request.cube, keep_items=False)
            if res.parsed:
                graph = decoded_graph(words, tags, res.edges, sc.spines(request, res), sc.vocab, sid=sid,
                                      options=sc.options)
                return graph, status, "" if status == "parsed" else \
                    f"{sc.decoder_name} found no parse under the tuned pruning", state
            if res.gave_up:                 # relaxed pruning would only need more
                reason = f"{sc.chart_name} {GAVE_UP_REASON}"
                break
            status = "relaxed"
        own = sc.without_chart(words, tags, sid, state)
        if own is None:
            return None, "pass1", reason, state
        return own[0], own[1], reason, state

    def baseline(self, words, tags, *, sid: str | None = None, state=None) -> Graph:
        """The scorer's baseline graph of a sentence: its first-order projective tree
        with the most probable spines and no traces (``state``: the scorer's state of the
        sentence, when known)."""
        return self.scorer.baseline(words, tags, sid=sid, state=state)

    def known_tags(self) -> tuple[set, str | None]:
        """The tags the model was trained on, and its unknown-tag symbol (None: none)."""
        return self.scorer.known_tags()

    # -- one sentence -----------------------------------------------------------------------
    def tag(self, words) -> list[str]:
        """POS tags of ``words``: the scorer's own (:attr:`own_tags`), else the model
        folder's tagger's."""
        if self.own_tags:
            return self.scorer.tag_and_prepare([str(w) for w in words], None)[0]
        self.require_tagger()
        return self.tagger.tag(words)

    def require_tagger(self) -> None:
        """InputError saying how to give tags when neither the scorer (:attr:`own_tags`)
        nor the model folder's POS tagger can tag."""
        if self.tagger is None and not self.own_tags:
            raise InputError(f"the model in {self.model_dir} has no POS tagger (tagger.json): give the tags "
                             f"(word_TAG tokens, --in tagged, or PTB trees, --in ptb)")

    def unknown_tags(self, tags) -> list[str]:
        """The tags among ``tags`` that the model never saw in training, in order of
        first appearance (the model parses them, as tags it knows nothing about)."""
        known, unk = self.known_tags()
        return list(dict.fromkeys(t for t in tags if t not in known or t == unk))

    def check_tags(self, sentences) -> None:
        """InputError, before anything is parsed, when any of ``sentences`` (``(words,
        tags or None, id)`` triples) has no tags and the model folder has no POS tagger."""
        if any(tags is None for _, tags, _ in sentences):
            self.require_tagger()

    def parse(self, words, tags=None, *, sid: str | None = None) -> Graph:
        """The predicted :class:`Graph` of ``words`` (tags from the tagger when ``tags`` is None)."""
        return self.parse_result(words, tags, sid=sid).graph

    def parse_tree(self, words, tags=None, *, sid: str | None = None) -> Tree:
        """The predicted PTB tree (``ROOT`` on top, null elements and co-indices) of ``words``."""
        return self.parse_result(words, tags, sid=sid).tree

    def __call__(self, text: str, *, wrapped: bool = True, splitter=None, progress: bool | None = None):
        """Parse running ``text`` (raw: untokenised, one sentence or many) into a
        :class:`~plgraph.parser.parsing.document.Document`: sentences found and tokenised
        as the treebank is, each parsed, with its tree, graph and trace records
        (:func:`~plgraph.parser.parsing.document.parse_document`; ``wrapped``: a line
        break inside a paragraph is a space, blank lines end paragraphs; False: every
        line break ends one; ``progress``: a bar over the sentences, None when standard
        error is a terminal)."""
        from .document import parse_document

        return parse_document(self, text, splitter=splitter, wrapped=wrapped, progress=progress)

    def parse_result(self, words, tags=None, *, sid: str | None = None) -> ParseResult:
        """Parse one sentence into a :class:`ParseResult` (never raises on a sentence the
        model cannot parse; raises :class:`InputError` on malformed input: no words, an
        empty word or one with white space, a number of tags other than of words, or a
        word or tag that cannot stand in a tree that reads back --
        :func:`plgraph.ptb.escape.sentence_problem`; words and tags are taken in the
        treebank's form, ``-LRB-`` for ``(``, see :mod:`plgraph.ptb.escape`)."""
        from ...ptb.escape import sentence_problem

        start = time.perf_counter()
        words = [str(w) for w in words]
        if not words:
            raise InputError("empty sentence", sentence=sid)
        if any(not w or any(ch.isspace() for ch in w) for w in words):
            raise InputError("a word is empty or contains white space", sentence=sid)
        prepared = None
        if tags is None and self.own_tags:      # one pass of the scorer tags and scores
            tags, prepared = self.scorer.tag_and_prepare(words, sid)
        else:
            tags = self.tag(words) if tags is None else [str(t) for t in tags]
        if len(tags) != len(words):
            raise InputError(f"{len(words)} words but {len(tags)} tags", sentence=sid)
        problem = sentence_problem(words, tags)
        if problem:
            raise InputError(problem, sentence=sid)
        if len(words) > self.max_words:
            return self._fallback(words, tags, sid, f"more than {self.max_words} words", start)
        graph, status, reason, pruned = self._cascade(words, tags, sid, prepared)
        if graph is not None:
            try:
                return graph_result(graph, status, reason, start)
            except InputError as err:
                reason = f"{reason}; the {status} graph gives no tree: {err.reason}" if reason else \
                    f"the {status} graph gives no tree: {err.reason}"
        try:                   # the first-order projective tree with the first spines (plgraph's step)
            return graph_result(self.baseline(words, tags, sid=sid, state=pruned), "pass1", reason, start)
        except InputError as err:
            return self._fallback(words, tags, sid, f"{reason}; the baseline tree gives no tree: {err.reason}", start)

    def _fallback(self, words, tags, sid, reason: str, start: float) -> ParseResult:
        return fallback_result(words, tags, sid, reason, self.options, time.perf_counter() - start)

    # -- many sentences ---------------------------------------------------------------------
    def parse_many(self, sentences, *, jobs: int = 1, progress=None, desc: str = "parsing"):
        """Parse ``sentences`` (``(words, tags or None, id)`` triples) in ``jobs`` threads,
        yielding :class:`ParseResult` s in input order as they finish (so a caller can
        write them out as it goes); one for every input item, always.  A sentence with
        malformed input (say a word with white space) gives a fallback parse with the
        error as its ``reason`` (tags ``XX`` when its own do not fit or cannot be
        written); an input record that could not be read
        (:class:`~plgraph.parser.parsing.inputs.Skipped`) comes back as it is, in its
        place.  ``sentences`` may be an iterator (a stream being read): it is read as the
        work goes on.  Untagged input and no tagger raise :class:`InputError` -- before
        anything is parsed when ``sentences`` is a list, at the first untagged sentence
        otherwise."""
        from ... import progress as P
        from .inputs import Skipped

        if isinstance(sentences, (list, tuple)):
            self.check_tags([s for s in sentences if not isinstance(s, Skipped)])

        def one(item):
            if isinstance(item, Skipped):
                return item
            words, tags, sid = item
            if tags is None:
                self.require_tagger()
            try:
                return self.parse_result(words, tags, sid=sid)
            except (InputError, ValueError) as err:     # this sentence only: the run goes on
                words = [str(w) for w in words] or ["_"]
                tags = [str(t) for t in tags] if tags is not None and len(tags) == len(words) else ["XX"] * len(words)
                try:
                    return self._fallback(words, tags, sid, f"bad input: {err}", time.perf_counter())
                except (InputError, ValueError):        # its tags give no tree (say -NONE-)
                    return self._fallback(words, ["XX"] * len(words), sid, f"bad input: {err}", time.perf_counter())

        yield from P.thread_imap(one, sentences, jobs, progress=progress, desc=desc, unit="sentence")


__all__ = ["Parser", "ParseResult", "fallback_result", "graph_result", "DEFAULT_MAX_WORDS", "STATUSES"]
