"""The linear scorer: the reproduced thesis's cascade of linear passes as a
:class:`~plgraph.parser.scoring.protocol.Scorer`.

One sentence (``python -m plgraph parser train`` trains the model folder):

1. :meth:`LinearScorer.prepare`: pass 1 and the trace and spine classifiers
   (``Pruners.prune``), then pass 2 (labelled 1EC graph without spines, its own chart)
   with outside scores; a pass-2 chart that gives up or finds no derivation leaves the
   sentence to the parser's baseline;
2. :meth:`LinearScorer.requests`: pass 3's tables (spines x labels, pruned by pass 2),
   then once more under relaxed pruning (:func:`~plgraph.parser.scoring.pass3.relaxed`);
   both with pass 3's tuned ``beam`` / ``cube`` and ``trace_bias``;
3. when neither parses: pass 2's graph with the spine classifier's first spines
   (:meth:`LinearScorer.without_chart`, status ``pass2``: plgraph's step, the reference
   goes from a failed pass 3 straight to the flat NP);
4. the baseline: pass 1's projective tree with the first spines and no traces
   (:func:`~plgraph.parser.parsing.baseline.baseline_graph`).

How each pass scores (features, weights, the chart's tables) stays the passes' business
(:class:`~plgraph.parser.scoring.pass_scorer.PassScorer`).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, replace

import numpy as np

from ...graph import Graph
from .protocol import GAVE_UP_REASON, ChartRequest, Prepared


@dataclass
class LinearState:
    """One sentence's work in the linear scorer: its untagged ``graph`` (words and tags),
    encoded ``tokens``, pass 1's ``pruned`` sentence, pass 2's sentence ``s2`` and
    pruning ``out2`` (None when pass 2 did not run), and the last pass-3 sentence
    requested (``s3``: its fallback spines are :meth:`LinearScorer.without_chart`'s)."""

    graph: Graph
    tokens: object
    pruned: object
    s2: object = None
    out2: object = None
    s3: object = None


class LinearScorer:
    """The linear passes of a model folder (module docstring); load with :meth:`load`."""

    name = "linear"
    chart_name = "pass 3's chart"
    decoder_name = "pass 3"
    baseline_description = "pass 1's tree + most probable spines, no traces"
    #: tags come from the model folder's POS tagger, never from the passes
    predicts_tags = False

    def __init__(self, model, model2, read2, model3, read3, inventory):
        self.model = model
        self.vocab, self.rules, self.pruners = model.vocab, model.rules, model.pruners
        self.model2, self.read2 = model2, read2
        self.model3, self.read3 = model3, read3
        self.inventory = inventory
        self.options = dict(model.folder.header.get("conversion") or {})
        self._types = self.pruners.trace.labels.index
        self._spine_labels = self.pruners.spine.labels.items

    @classmethod
    def load(cls, model_dir) -> "LinearScorer":
        """The scorer of model folder ``model_dir`` (passes 2 and 3 trained; its coarse
        models checked against the fingerprint of training; its POS tagger is the
        parser's, not read here)."""
        from ..model import ModelFileError, ParserModel
        from .pass2 import Pass2Config, Pass2Model
        from .pass3 import Pass3Config, Pass3Model, SpineInventory

        m = ParserModel.load(model_dir, tagger=False)
        trained = set(m.folder.header.get("trained") or [])
        if not {"pass2", "pass3"} <= trained:
            raise ModelFileError(f"passes 2 and 3 are not both trained here (trained: {sorted(trained) or 'none'}); "
                                 f"finish training with `python -m plgraph parser train --model-dir {model_dir} "
                                 f"--resume`", source=os.path.join(str(model_dir), "parser.json"))
        inv = SpineInventory(m.pruners.spine.labels.items, m.vocab)
        model2, read2 = m.pass_model("pass2", Pass2Config, lambda c: Pass2Model(m.vocab, c))
        model3, read3 = m.pass_model("pass3", Pass3Config, lambda c: Pass3Model(m.vocab, inv, c))
        return cls(m, model2, read2, model3, read3, inv)

    def tag_and_prepare(self, words, sid):
        """ValueError: the passes read tags, they do not predict them (:attr:`predicts_tags`)."""
        raise ValueError("the linear scorer does not tag sentences: its tags come from the model folder's POS tagger")

    def prepare(self, words, tags, sid) -> Prepared:
        """Pass 1, the classifiers and pass 2's chart (module docstring)."""
        from ...encoding import encode_graph, encode_tokens
        from .pass2 import pass2_pruning, pass2_sentence

        g = Graph.from_edges(words, tags, ["_"] * len(words), [], id=sid)
        pr = self.pruners
        tokens = encode_tokens([encode_graph(g)], pr.normaliser, pr.tags)
        state = LinearState(g, tokens, pr.prune(g))
        state.s2 = pass2_sentence(g, state.pruned, self.vocab, self._types, 0)
        state.out2 = pass2_pruning(self.model2, state.s2, tokens, self.read2, self.rules)
        if state.out2.gave_up:
            return Prepared(state, f"pass 2's chart {GAVE_UP_REASON}")
        if not np.isfinite(state.out2.best):
            return Prepared(state, "pass 2 found no derivation under its beams")
        return Prepared(state)

    def requests(self, words, tags, state: LinearState):
        """Pass 3's tables under the tuned pruning, then under relaxed pruning."""
        from . import pass3 as P3

        cfg3 = self.model3.config
        for config in (cfg3, P3.relaxed(cfg3)):
            state.s3 = P3.pass3_sentence(state.graph, state.s2, state.out2, state.pruned, self.inventory, self.vocab,
                                         self._spine_labels, config)
            tables = self.model3.tables(state.s3, state.tokens, self.read3)
            yield ChartRequest(tables, cfg3.beam, cfg3.cube, state.s3)

    def spines(self, request: ChartRequest, result) -> list[str]:
        return [self.inventory.identities[int(s)] for s in request.context.chosen_spines(result)]

    def without_chart(self, words, tags, sid, state: LinearState):
        """Pass 2's graph with the spine classifier's first spines (``pass2``)."""
        from ...convert.validity import with_head_spines
        from ..parsing.decode import decoded_graph

        idents = [self.inventory.identities[int(s)] if s >= 0 else "_" for s in state.s3.fallback_spines]
        graph = decoded_graph(words, tags, state.out2.edges, idents, self.vocab, sid=sid, options=self.options)
        return with_head_spines(graph), "pass2"

    def baseline(self, words, tags, *, sid: str | None = None, state: LinearState | None = None) -> Graph:
        """Pass 1's projective tree with the spine classifier's first spines
        (:func:`~plgraph.parser.parsing.baseline.baseline_graph`; ``state``: the sentence's
        :meth:`prepare` when known, whose pruning it reuses)."""
        from ..parsing.baseline import baseline_graph

        return baseline_graph(self.pruners, words, tags, sid=sid, options=self.options,
                              pruned=None if state is None else state.pruned)

    def known_tags(self) -> tuple[set, str | None]:
        return self.pruners.tags.index, self.pruners.tags.unk

    def with_options(self, **changes) -> "LinearScorer":
        """A copy whose pass 3 runs with other settings (``beam``, ``cube``, ``trace_bias``,
        ``trace_prob`` ...: :class:`~plgraph.parser.scoring.pass3.Pass3Config` fields)."""
        m3 = self.model3.with_config(replace(self.model3.config, **changes))
        return LinearScorer(self.model, self.model2, self.read2, m3, self.read3, self.inventory)


__all__ = ["LinearScorer", "LinearState"]
