"""The neural scorer: the network's scores in the exact 1EC chart, as a
:class:`~plgraph.parser.scoring.protocol.Scorer` (``python -m plgraph parser train
--scorer neural`` trains it; :meth:`Parser.load <plgraph.parser.parsing.parser.Parser.load>`
loads it).

One sentence:

1. :meth:`NeuralScorer.prepare`: the network (:mod:`plgraph.parser.scoring.neural.network`)
   gives head, trace and spine scores (POS tags are read only when the network was
   trained with them); a network trained to predict tags (``predict_tags``) tags the
   sentence in the same pass (:meth:`NeuralScorer.tag_and_prepare`), and the parser
   then needs no separate tagger;
2. :meth:`NeuralScorer.requests`: pruning by those marginals and the labels of the kept
   pairs (:mod:`plgraph.parser.scoring.neural.prune`) as the chart's tables, once more
   under :func:`~plgraph.parser.scoring.neural.prune.relaxed` pruning (status ``relaxed``);
3. no graph of its own when no chart parses (:meth:`NeuralScorer.without_chart`): the
   sentence gets the baseline, the best projective tree of the head scores (Eisner) with
   each edge's most probable label and each word's most probable spine, no traces
   (:meth:`NeuralScorer.baseline`, also the evaluation's baseline column).

Torch runs ``threads`` intra-op threads (default 1); the parser runs sentences in
threads of its own.
"""
from __future__ import annotations

from dataclasses import asdict, replace
from functools import cached_property

import numpy as np

from ....graph import Graph
from ..protocol import ChartRequest, Prepared
from .prune import PruneConfig, SentenceScores, candidate_sentence, chart_tables, head_pairs, relaxed, trace_pairs


class NeuralScorer:
    """A trained neural scorer (module docstring); load with :meth:`load`.  ``prune``:
    the pruning and decoding options (:class:`~plgraph.parser.scoring.neural.prune.PruneConfig`,
    the folder's tuned ones by default)."""

    name = "neural"
    chart_name = "the chart"
    decoder_name = "the chart"
    baseline_description = "the network's projective tree (Eisner) + most probable labels and spines, no traces"

    def __init__(self, net, vocab, rules, vocabs, prune: PruneConfig, *, options: dict | None = None,
                 pretrained_index=None):
        from ..pass3 import SpineInventory
        from .data import LabelMaps

        self.net, self.vocab, self.rules, self.vocabs = net, vocab, rules, vocabs
        self.maps = LabelMaps(vocab)
        self.inventory = SpineInventory(vocabs.spines, vocab)
        self.prune = prune
        self.options = dict(options or {})
        self.pretrained_index = pretrained_index

    @classmethod
    def load(cls, model_dir, *, threads: int | None = 1) -> "NeuralScorer":
        """Load the neural model folder ``model_dir``, or the one in ``model_dir/neural``
        (:func:`~plgraph.parser.scoring.neural.folder.neural_dir`; every file checked,
        :class:`~plgraph.parser.scoring.neural.folder.NeuralFolder`); ``threads``: torch's
        intra-op threads (None: leave torch's setting).  Its POS tagger is the parser's,
        not read here."""
        from . import require_torch
        from .data import Vocabularies
        from .folder import NeuralFolder, neural_dir
        from .network import build_network, load_state

        torch = require_torch()
        if threads is not None:
            torch.set_num_threads(int(threads))
        folder = NeuralFolder.open(neural_dir(model_dir))
        net = build_network(folder.header)
        load_state(net, folder.load_weights(), folder.file("neural.npz"))
        net.eval()
        voc = folder.header["vocabularies"]
        pre = {w: i + 2 for i, w in enumerate(voc["pretrained"])} if voc.get("pretrained") else None
        prune = PruneConfig(**folder.header["decode"]) if folder.header.get("decode") else PruneConfig()
        return cls(net, folder.vocab(), folder.rules(), Vocabularies.from_json(voc), prune,
                   options=folder.header.get("conversion") or {}, pretrained_index=pre)

    def with_options(self, **changes) -> "NeuralScorer":
        """A copy (sharing the network) decoding with other :class:`PruneConfig` options."""
        other = object.__new__(NeuralScorer)
        other.__dict__.update(self.__dict__)
        other.prune = replace(self.prune, **changes)
        return other

    def known_tags(self) -> tuple[set, str | None]:
        return set(self.vocabs.tags.items[2:]), None

    @property
    def uses_tags(self) -> bool:
        """Does the network read POS tags?"""
        return bool(self.net.tags_used)

    @property
    def predicts_tags(self) -> bool:
        """Does the network tag sentences itself (a tagging head trained with it)?"""
        return bool(getattr(self.net, "tags_predicted", False))

    # -- scores --------------------------------------------------------------------------------
    def scores(self, words, tags):
        """``(SentenceScores, label_logp)`` of one sentence: the network's scores in chart
        positions, and ``label_logp(c, p, trace) -> (K, labels)`` the label
        log-probabilities of pairs (chart positions).  ``tags`` are read only when the
        network was trained with them (:attr:`uses_tags`)."""
        return self._scores(words, tags)[0]

    def _scores(self, words, tags):
        """``(scores, predicted tags or None)``: :meth:`scores` and, for a network that
        predicts tags, the tag of every word from the same pass."""
        from types import SimpleNamespace

        import torch

        from .batches import chart_to_encoder, make_batch

        n = len(words)
        tags = list(tags) if self.uses_tags else ["_"] * n
        sentence = SimpleNamespace(words=list(words), tags=tags)
        with torch.no_grad():
            enc = self.net.encode(make_batch([sentence], self.vocabs, self.pretrained_index))
            tag_ids = self.net.predicted_tags(enc)
            own = None if tag_ids is None else [self.vocabs.tags.items[int(t)] for t in tag_ids[0, 1:n + 1]]
            order = np.r_[1:n + 1, 0]                    # chart positions -> encoder positions
            arc = torch.log_softmax(enc.s_arc[0, 1:n + 1][:, order], -1).numpy().astype(np.float64)
            trace = enc.s_trace[0, 1:n + 1, 1:n + 1].numpy().astype(np.float64)
            spine = torch.log_softmax(enc.s_spine[0, 1:n + 1], -1).numpy().astype(np.float64)

        def label_logp(c, p, trace_kind: bool = False) -> np.ndarray:
            if len(c) == 0:
                k = self.maps.trace.shape[0] if trace_kind else self.maps.structural.shape[0]
                return np.zeros((0, k))
            with torch.no_grad():
                x = torch.from_numpy(chart_to_encoder(c, n))
                y = torch.from_numpy(chart_to_encoder(p, n))
                logits = self.net.label_logits(enc, torch.zeros_like(x), x, y, trace=trace_kind)
                return torch.log_softmax(logits, -1).numpy().astype(np.float64)

        return (SentenceScores(arc, trace, spine), label_logp), own

    # -- the scorer protocol ---------------------------------------------------------------------
    def prepare(self, words, tags, sid) -> Prepared:
        """The network's scores of the sentence (:meth:`scores`)."""
        return Prepared(self.scores(words, tags))

    def tag_and_prepare(self, words, sid) -> tuple[list, Prepared]:
        """``(tags, prepared)``: the network's own POS tags of ``words`` and
        :meth:`prepare`'s outcome, from one pass of the network; ValueError for a network
        that does not predict tags (:attr:`predicts_tags`)."""
        if not self.predicts_tags:
            raise ValueError("this neural model does not predict POS tags (trained without predict_tags)")
        scores, tags = self._scores(words, None)
        return tags, Prepared(scores)

    def tag(self, words) -> list:
        """The network's own POS tags of ``words`` (:meth:`tag_and_prepare`)."""
        return self.tag_and_prepare(words, None)[0]

    def request(self, scores, config: PruneConfig | None = None) -> ChartRequest:
        """The chart's tables of a sentence's :meth:`scores` under ``config`` (default:
        the scorer's pruning), its context the candidate sentence."""
        config = config or self.prune
        sc, label_logp = scores
        s_pairs, t_pairs = head_pairs(sc, config), trace_pairs(sc, config)
        sent = candidate_sentence(sc, s_pairs, label_logp(*s_pairs), t_pairs, label_logp(*t_pairs, True), self.maps,
                                  self.inventory, config)
        return ChartRequest(chart_tables(sent, self.inventory), config.beam, config.cube, sent)

    def requests(self, words, tags, state):
        """The tables under the tuned pruning, then under relaxed pruning."""
        for config in (self.prune, relaxed(self.prune)):
            yield self.request(state, config)

    def spines(self, request: ChartRequest, result) -> list[str]:
        return [self.inventory.identities[int(s)] for s in request.context.chosen_spines(result)]

    def without_chart(self, words, tags, sid, state):
        """None: the neural scorer has no graph of its own besides the baseline."""
        return None

    def decode(self, words, tags, scores=None, config: PruneConfig | None = None):
        """``(ChartResult, NeuralSentence)`` of one decode of a sentence under ``config``
        (default: the scorer's pruning); ``scores``: :meth:`scores`' pair when known."""
        from ...chart.run import parse_chart

        req = self.request(scores if scores is not None else self.scores(words, tags), config)
        res = parse_chart(req.tables, self.rules, beam=req.beam, cube=req.cube, keep_items=False)
        return res, req.context

    def graph_of(self, words, tags, res, sent, sid=None) -> Graph:
        """The :class:`~plgraph.graph.Graph` of a chart result over ``sent``."""
        from ...parsing.decode import decoded_graph

        spines = [self.inventory.identities[int(s)] for s in sent.chosen_spines(res)]
        return decoded_graph(words, tags, res.edges, spines, self.vocab, sid=sid, options=self.options)

    def baseline(self, words, tags, *, sid: str | None = None, state=None) -> Graph:
        """The best projective tree of the head scores (Eisner, one ROOT dependent) with
        each word's most probable spine and each edge's most probable structural label
        among those that join the two spines (:meth:`_joining`), no traces (``state``:
        :meth:`prepare`'s, the sentence's :meth:`scores`, when known)."""
        from ....convert.validity import with_head_spines
        from ....dep._eisner import eisner1
        from ...parsing.decode import decoded_graph

        sc, label_logp = state if state is not None else self.scores(words, tags)
        n = sc.n
        S = np.full((n + 1, n + 1), -np.inf)            # Eisner's positions: 0 ROOT, word w at w + 1
        S[0, 1:] = sc.arc[:, n]
        S[1:, 1:] = sc.arc[:, :n].T
        heads, _ = eisner1(S, False)
        c = np.arange(n, dtype=np.int64)
        p = np.where(heads[1:] == 0, n, heads[1:] - 1).astype(np.int64)
        spines = [self.inventory.identities[int(s)].split("|", 1)[0] for s in sc.spine.argmax(-1)]
        labels = self.maps.structural[(label_logp(c, p) + self._joining(spines, p)).argmax(-1)]
        edges = {(int(a), int(b), "S"): int(lab) for a, b, lab in zip(c, p, labels)}
        return with_head_spines(decoded_graph(words, tags, edges, spines, self.vocab, sid=sid, options=self.options))

    @cached_property
    def _label_nodes(self) -> tuple[np.ndarray, np.ndarray]:
        """The non-null child and parent node of each structural label class (``""``
        where the node is null): the label's side of :meth:`_joining`."""
        labels = [self.vocab.labels[int(i)] for i in self.maps.structural]
        return (np.array([lab.child if not lab.child_null else "" for lab in labels]),
                np.array([lab.parent if not lab.parent_null else "" for lab in labels]))

    def _joining(self, spines, parents) -> np.ndarray:
        """``(n, K)``: 0 where structural label class ``k`` joins word ``w``'s spine to its
        parent's (leaves from the top node of ``spines[w]`` and attaches to a node of the
        parent's spine, or to ``ROOT_0``; ``parents``: chart positions, ROOT = n),
        ``-inf`` elsewhere.  Where no label does, the labels that attach to a node of the
        parent's spine stay possible, and where none does either, every label
        (:func:`~plgraph.convert.validity.repair_graph` then mends the edge)."""
        from ....convert.validity import ROOT_NODE
        from ....shp import top_node_name
        from ....spine import spine_node_names

        child, parent = self._label_nodes
        n = len(spines)
        out = np.zeros((n, child.shape[0]))
        for w, p in enumerate(parents.tolist()):
            attaches = np.isin(parent, [ROOT_NODE] if p == n else spine_node_names(spines[p])[0])
            for ok in (attaches & (child == top_node_name(spines[w])), attaches):
                if ok.any():
                    out[w, ~ok] = -np.inf
                    break
        return out


def prune_dict(config: PruneConfig) -> dict:
    """The options of ``config`` as stored in ``neural.json``'s ``decode``."""
    return asdict(config)


__all__ = ["NeuralScorer", "prune_dict"]
