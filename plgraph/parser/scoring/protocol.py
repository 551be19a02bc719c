"""What a scorer offers the parser: a sentence in, the chart's score tables out.

:class:`~plgraph.parser.parsing.parser.Parser` owns everything a sentence goes through
that does not depend on where the scores come from -- checked input, tags, the exact 1EC
chart (:func:`~plgraph.parser.chart.run.parse_chart`), the decoded graph, the fallback
ladder and the output check.  A *scorer* owns the rest, and offers it as :class:`Scorer`:

1. :meth:`~Scorer.prepare` -- the scorer's work on one sentence before any chart of the
   parser runs (the linear scorer: pass 1, the trace and spine classifiers and pass 2's
   chart, whose outside scores prune pass 3; the neural scorer: the network's scores),
   kept as the sentence's ``state``; or why it has nothing to give the chart;
2. :meth:`~Scorer.requests` -- the chart's tables (:class:`ChartRequest`): first under
   the tuned pruning, then once more under relaxed pruning; the parser decodes each
   until one parses (status ``parsed`` / ``relaxed``) and stops at a chart that gave up;
3. :meth:`~Scorer.spines` -- the spine identity of each word in a parsed chart result;
4. :meth:`~Scorer.without_chart` -- the scorer's own graph when no chart parsed (the
   linear scorer: pass 2's graph, status ``pass2``; the neural scorer: none);
5. :meth:`~Scorer.baseline` -- the scorer's first-order projective tree with the most
   probable spines and no traces (status ``pass1``, and the evaluation's baseline).

A scorer that tags sentences itself (``predicts_tags``: the neural network trained with a
tagging head) also offers :meth:`~Scorer.tag_and_prepare`, the sentence's tags and its
:meth:`~Scorer.prepare` outcome at once; the parser then takes the tags of untagged input
from it, with no separate tagger.

A scorer also knows the tags it was trained on (:meth:`~Scorer.known_tags`), its edge
labels (``vocab``), the rules of its train split (``rules``) and the graphs' conversion
options (``options``).  The scorers plgraph has are registered in
:data:`plgraph.parser.scoring.registry.SCORERS`: the linear cascade
(:class:`~plgraph.parser.scoring.linear.LinearScorer`) and the neural network
(:class:`~plgraph.parser.scoring.neural.scorer.NeuralScorer`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, NamedTuple, Protocol, runtime_checkable

if TYPE_CHECKING:                   # the chart's modules load numba: not at import
    from ...graph import Graph
    from ..chart.run import ChartResult
    from ..chart.tables import ChartTables

#: why a chart that stopped at its item budget gave no parse (:data:`plgraph.parser.chart.run.MAX_ITEMS`)
GAVE_UP_REASON = "stopped at its budget of items (the sentence is too long for this pruning)"

class ChartRequest(NamedTuple):
    """One chart the parser runs for a scorer: its ``tables``, the search's ``beam`` and
    ``cube`` depth (:func:`~plgraph.parser.chart.run.parse_chart`; 0: exhaustive), and
    the scorer's own view of the sentence the tables were built from (``context``),
    handed back to :meth:`Scorer.spines`."""

    tables: "ChartTables"
    beam: int
    cube: int
    context: Any


class Prepared(NamedTuple):
    """:meth:`Scorer.prepare`'s outcome: the sentence's ``state`` (handed to every later
    call for the sentence) and ``failure``, why the scorer gives the chart nothing
    (``""``: it does)."""

    state: Any
    failure: str = ""


@runtime_checkable
class Scorer(Protocol):
    """A trained scorer of graphs with traces (module docstring).  ``name``: its name in
    the registry (``linear``, ``neural``); ``chart_name`` / ``decoder_name``: what a
    parse's ``reason`` calls its chart ("pass 3's chart") and its decoder ("pass 3");
    ``baseline_description``: one line saying what :meth:`baseline` is."""

    name: str
    chart_name: str
    decoder_name: str
    baseline_description: str
    #: the edge labels (:class:`~plgraph.parser.scoring.labels.LabelVocab`)
    vocab: Any
    #: the rules of the train split (:class:`~plgraph.rules.tables.RuleTables`)
    rules: Any
    #: the conversion options of the graphs it was trained on
    options: dict
    #: does the scorer tag sentences itself (:meth:`tag_and_prepare`)?
    predicts_tags: bool

    @classmethod
    def load(cls, model_dir, **options) -> "Scorer":
        """The scorer of its model folder ``model_dir``, every file read and checked
        (:class:`~plgraph.errors.ModelFileError` naming the file)."""

    def prepare(self, words: list, tags: list, sid: str | None) -> Prepared:
        """The scorer's work on one checked sentence before the parser's chart."""

    def tag_and_prepare(self, words: list, sid: str | None) -> tuple[list, Prepared]:
        """``(tags, prepared)``: the scorer's own tags of an untagged sentence and
        :meth:`prepare`'s outcome for them; only called when :attr:`predicts_tags`."""

    def requests(self, words: list, tags: list, state) -> Iterator[ChartRequest]:
        """The charts to try, in order (the tuned pruning, then relaxed); built lazily,
        so a request after a parsed one costs nothing."""

    def spines(self, request: ChartRequest, result: ChartResult) -> list[str]:
        """The spine identity of each word of a parsed ``result`` of ``request``."""

    def without_chart(self, words: list, tags: list, sid: str | None, state) -> tuple[Graph, str] | None:
        """``(graph, status)`` when no chart parsed, or None."""

    def baseline(self, words: list, tags: list, *, sid: str | None = None, state=None) -> Graph:
        """The first-order projective tree with the most probable spines and no traces
        (``state``: :meth:`prepare`'s, when known)."""

    def known_tags(self) -> tuple[set, str | None]:
        """The tags the scorer was trained on, and its unknown-tag symbol (None: none)."""

    def with_options(self, **changes) -> "Scorer":
        """A copy (sharing the parameters) decoding with other options (beam, cube,
        trace bias...); TypeError naming an option it does not have."""


__all__ = ["Scorer", "ChartRequest", "Prepared", "GAVE_UP_REASON"]
