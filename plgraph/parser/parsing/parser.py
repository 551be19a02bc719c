"""Parsing text with a trained model: :class:`Parser` (``Parser.load(M).parse(words)``).

:meth:`Parser.load` gives the parser of a model folder's scorer: :class:`LinearParser`
(the reproduced thesis's cascade of linear passes) or
:class:`~plgraph.neural.parser.NeuralParser` (the network's scores in the same chart); both
share what this base class does with a sentence (checked input, tags, the fallback ladder,
the output check, threads).

One sentence goes through the linear scorer's cascade:

1. tags: given, or from the model folder's POS tagger (:mod:`plgraph.parser.parsing.tagger`);
2. pass 1 and the trace and spine classifiers (``Pruners.prune``);
3. pass 2 (labelled 1EC graph without spines) with outside scores;
4. pass 3 (spines x labels, pruned by pass 2), once more under relaxed pruning
   (:func:`~plgraph.parser.scoring.pass3.relaxed`) when it finds no parse;
5. the decode as a :class:`~plgraph.graph.Graph` (:func:`~plgraph.parser.parsing.decode.decoded_graph`),
   made valid where it is not (:func:`~plgraph.convert.validity.repair_graph`), and as a PTB
   tree (:func:`~plgraph.convert.graph_to_tree` with the reference's null placement,
   ``use_null_positions=False``), both checked (:func:`graph_result`).

A sentence never stops a run.  Each :class:`ParseResult` says how it was parsed
(``status``): ``parsed`` (pass 3), ``relaxed`` (pass 3 under relaxed pruning), ``pass2``
(pass 3 found nothing: pass 2's graph with the spine classifier's first spines, kept when
it gives a tree -- crossing structural edges give none), ``pass1`` (pass 2 found nothing
or its graph gives no tree: pass 1's projective tree with the first spines and no traces,
:func:`~plgraph.parser.parsing.baseline.baseline_graph`), ``fallback`` (the reference's
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
from dataclasses import dataclass, field, replace

import numpy as np

from ...convert import graph_to_tree
from ...convert.validity import output_problems, repair_graph, with_head_spines
from ...errors import InputError
from ...graph import Graph
from ...tree import Tree
from .decode import decoded_graph, fallback_graph

#: how many words a sentence may have before it gets the fallback parse (the model's
#: training limit is usually 40; longer sentences are parsed, more slowly)
DEFAULT_MAX_WORDS = 100
#: how a sentence was parsed, best first
STATUSES = ("parsed", "relaxed", "pass2", "pass1", "fallback")
#: why a chart that stopped at its item budget gave no parse (:data:`plgraph.parser.chart.run.MAX_ITEMS`)
GAVE_UP_REASON = "stopped at its budget of items (the sentence is too long for this pruning)"


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
    """A trained parser of graphs with traces, ready to parse: load one with
    :meth:`Parser.load`, which picks the model folder's scorer (:class:`LinearParser`, the
    neural :class:`~plgraph.neural.parser.NeuralParser`).  Every parser offers checked
    input, tags from the model's tagger, a :class:`ParseResult` for every sentence
    whatever happens, and parsing many sentences in threads.  A subclass sets ``tagger``,
    ``max_words``, ``model_dir``, ``options`` (the conversion options) and ``vocab`` (the
    edge labels) and implements :meth:`_cascade`, :meth:`baseline` and :meth:`known_tags`."""

    tagger = None
    max_words: int = DEFAULT_MAX_WORDS
    model_dir: str | None = None
    options: dict = {}
    #: the scorer's name (``linear``, ``neural``)
    scorer: str = ""

    @classmethod
    def load(cls, model_dir=None, *, scorer: str | None = None, max_words: int | None = None) -> "Parser":
        """The parser of model folder ``model_dir`` (default: plgraph's released model,
        :func:`~plgraph.models.default_model_dir`) with scorer ``scorer``
        (``linear`` or ``neural``; default: the one ``python -m plgraph parse`` picks,
        :func:`~plgraph.parser.parsing.scorers.default_scorer` -- the neural one when the
        folder holds it and PyTorch is installed).  ``max_words``: longer sentences get the
        fallback parse (default :data:`DEFAULT_MAX_WORDS`).  Every file of the model is
        read and checked first (:class:`~plgraph.errors.ModelFileError` naming the file).
        A subclass's ``load`` loads its own scorer."""
        from .scorers import load_scorer

        return load_scorer(model_dir, scorer, max_words=max_words)

    def _cascade(self, words, tags, sid):
        """``(graph, status, reason, state)``: the parser's graph of a checked sentence
        (None when nothing parsed, with the status to report and why), and what
        :meth:`baseline` may reuse of the work (``state``)."""
        raise NotImplementedError

    def baseline(self, words, tags, *, sid: str | None = None, state=None) -> Graph:
        """The parser's baseline graph of a sentence: its first-order projective tree
        with the most probable spines and no traces (``state``: :meth:`_cascade`'s)."""
        raise NotImplementedError

    def known_tags(self) -> tuple[set, str | None]:
        """The tags the model was trained on, and its unknown-tag symbol (None: none)."""
        raise NotImplementedError

    # -- one sentence -----------------------------------------------------------------------
    def tag(self, words) -> list[str]:
        """POS tags of ``words`` from the model folder's tagger."""
        self.require_tagger()
        return self.tagger.tag(words)

    def require_tagger(self) -> None:
        """InputError saying how to give tags when the model folder has no POS tagger."""
        if self.tagger is None:
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
        tags = self.tag(words) if tags is None else [str(t) for t in tags]
        if len(tags) != len(words):
            raise InputError(f"{len(words)} words but {len(tags)} tags", sentence=sid)
        problem = sentence_problem(words, tags)
        if problem:
            raise InputError(problem, sentence=sid)
        if len(words) > self.max_words:
            return self._fallback(words, tags, sid, f"more than {self.max_words} words", start)
        graph, status, reason, pruned = self._cascade(words, tags, sid)
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


class LinearParser(Parser):
    """The linear scorer's parser (``python -m plgraph parser train``): the thesis's
    cascade of passes (module docstring).

    ``max_words``: longer sentences get the fallback parse (default
    :data:`DEFAULT_MAX_WORDS`).  Load with :meth:`load` (or :meth:`Parser.load` with
    ``scorer="linear"``)."""

    scorer = "linear"

    def __init__(self, model, model2, read2, model3, read3, inventory, tagger=None, *,
                 max_words: int = DEFAULT_MAX_WORDS, model_dir: str | None = None):
        self.model = model
        self.vocab, self.rules, self.pruners = model.vocab, model.rules, model.pruners
        self.model2, self.read2 = model2, read2
        self.model3, self.read3 = model3, read3
        self.inventory = inventory
        self.tagger = tagger
        self.max_words = int(max_words)
        self.model_dir = model_dir
        self.options = dict(model.folder.header.get("conversion") or {})
        self._types = self.pruners.trace.labels.index
        self._spine_labels = self.pruners.spine.labels.items

    @classmethod
    def load(cls, model_dir, *, max_words: int = DEFAULT_MAX_WORDS, tagger: bool = True) -> "LinearParser":
        """Load the model folder ``model_dir`` (passes 2 and 3 trained) with its coarse
        models and, if the folder has one and ``tagger``, its POS tagger."""
        import os

        from ..model import ModelFileError, ParserModel
        from ..scoring.pass2 import Pass2Config, Pass2Model
        from ..scoring.pass3 import Pass3Config, Pass3Model, SpineInventory

        m = ParserModel.load(model_dir, tagger=tagger)
        trained = set(m.folder.header.get("trained") or [])
        if not {"pass2", "pass3"} <= trained:
            raise ModelFileError(f"passes 2 and 3 are not both trained here (trained: {sorted(trained) or 'none'}); "
                                 f"finish training with `python -m plgraph parser train --model-dir {model_dir} "
                                 f"--resume`", source=os.path.join(str(model_dir), "parser.json"))
        inv = SpineInventory(m.pruners.spine.labels.items, m.vocab)
        model2, read2 = m.pass_model("pass2", Pass2Config, lambda c: Pass2Model(m.vocab, c))
        model3, read3 = m.pass_model("pass3", Pass3Config, lambda c: Pass3Model(m.vocab, inv, c))
        return cls(m, model2, read2, model3, read3, inv, m.tagger, max_words=max_words, model_dir=str(model_dir))

    def _cascade(self, words, tags, sid):
        """``(graph, status, reason, pruned)``; graph None when nothing parsed; ``pruned``: pass 1's
        pruning of the sentence (the pass-1 baseline reuses it)."""
        from ...encoding import encode_graph, encode_tokens
        from ..scoring import pass3 as P3
        from ..scoring.pass2 import pass2_pruning, pass2_sentence

        g = Graph.from_edges(words, tags, ["_"] * len(words), [], id=sid)
        pr = self.pruners
        tokens = encode_tokens([encode_graph(g)], pr.normaliser, pr.tags)
        pruned = pr.prune(g)
        s2 = pass2_sentence(g, pruned, self.vocab, self._types, 0)
        out2 = pass2_pruning(self.model2, s2, tokens, self.read2, self.rules)
        if out2.gave_up:
            return None, "pass2", f"pass 2's chart {GAVE_UP_REASON}", pruned
        if not np.isfinite(out2.best):
            return None, "pass2", "pass 2 found no derivation under its beams", pruned
        cfg3 = self.model3.config
        status, reason = "parsed", "pass 3 found no parse, also under relaxed pruning"
        for config in (cfg3, P3.relaxed(cfg3)):
            s3 = P3.pass3_sentence(g, s2, out2, pruned, self.inventory, self.vocab, self._spine_labels, config)
            d = self.model3.decode(s3, tokens, self.read3, self.rules)
            if d.result.parsed:
                idents = [self.inventory.identities[int(s)] for s in d.spines]
                return decoded_graph(words, tags, d.result.edges, idents, self.vocab, sid=sid,
                                     options=self.options), status, "" if status == "parsed" else \
                    "pass 3 found no parse under the tuned pruning", pruned
            if d.result.gave_up:            # relaxed pruning would only need more
                reason = f"pass 3's chart {GAVE_UP_REASON}"
                break
            status = "relaxed"
        # pass 3 found nothing: pass 2's graph with the spine classifier's first spines
        idents = [self.inventory.identities[int(s)] if s >= 0 else "_" for s in s3.fallback_spines]
        graph = decoded_graph(words, tags, out2.edges, idents, self.vocab, sid=sid, options=self.options)
        return with_head_spines(graph), "pass2", reason, pruned

    def baseline(self, words, tags, *, sid: str | None = None, state=None) -> Graph:
        """Pass 1's projective tree with the spine classifier's first spines
        (:func:`~plgraph.parser.parsing.baseline.baseline_graph`; ``state``: the sentence's
        pruning when known)."""
        from .baseline import baseline_graph

        return baseline_graph(self.pruners, words, tags, sid=sid, options=self.options, pruned=state)

    def known_tags(self) -> tuple[set, str | None]:
        return self.pruners.tags.index, self.pruners.tags.unk

    def with_config3(self, **changes) -> "LinearParser":
        """A copy whose pass 3 runs with other settings (``beam``, ``cube``, ``trace_bias`` ...)."""
        m3 = self.model3.with_config(replace(self.model3.config, **changes))
        return LinearParser(self.model, self.model2, self.read2, m3, self.read3, self.inventory, self.tagger,
                      max_words=self.max_words, model_dir=self.model_dir)


__all__ = ["Parser", "LinearParser", "ParseResult", "fallback_result", "graph_result", "DEFAULT_MAX_WORDS", "STATUSES",
           "GAVE_UP_REASON"]
