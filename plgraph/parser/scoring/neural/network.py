"""The neural scorer's network (torch): a BiLSTM encoder and the scorers the chart reads.

**Encoder.**  Each word is the sum-free concatenation of a word-form embedding
(:func:`plgraph.parser.scoring.neural.data.word_form`; optionally initialised from a user's pretrained
vectors, :func:`load_embeddings`), a character BiLSTM's two final states and, with
``use_tags``, a POS tag embedding; a ROOT token is put in front (index 0 of the
encoder's positions, chart position ``n``), and a ``lstm_layers``-layer BiLSTM reads
the sentence (Kiperwasser & Goldberg 2016; Dozat & Manning 2017; SuPar's
``BiaffineDependencyModel``).  Dropout on the embeddings, between LSTM layers and in
the MLPs (``dropout``).

**Scorers** (encoder positions ``x`` = child, ``y`` = parent):

* structural heads: ``s_arc[x, y] = a_x^T U b_y + b_y . u`` (biaffine, Dozat & Manning),
  ``a = MLP_dep(h)``, ``b = MLP_head(h)``; a softmax over ``y`` per word;
* structural labels of a pair: ``W_l . LeakyReLU(c_x + p_y) + w_l`` with ``c`` / ``p``
  MLPs of the encoder states (the MLP scorer of Kiperwasser & Goldberg, split so that a
  pair costs one addition), a softmax over the structural labels;
* trace edges: a second biaffine, one logit per ordered pair (a sigmoid: a word can be
  the child of any number of traces) and trace types as the labels, over the trace
  labels;
* spines: an MLP per word, a softmax over the train split's spine identities;
* POS tags (``predict_tags``): an MLP per word, a softmax over the train split's tags.

**Local losses** (:meth:`GraphScorer.loss`): the sum of the cross-entropies of heads,
labels (at the gold head), spines, tags (with ``predict_tags``) and trace types (at gold
traces), and the binary
cross-entropy of every ordered word pair's trace logit, each divided by the number of
words of the batch.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import require_torch
from .config import NetworkConfig

torch = require_torch()
nn = torch.nn
F = torch.nn.functional


class MLP(nn.Module):
    """Linear, LeakyReLU(0.1), dropout."""

    def __init__(self, n_in: int, n_out: int, dropout: float):
        super().__init__()
        self.linear = nn.Linear(n_in, n_out)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(F.leaky_relu(self.linear(x), 0.1))


class Biaffine(nn.Module):
    """``s[b, x, y] = [a_x; 1]^T U b_y`` (a bias on the child side only: a head's prior)."""

    def __init__(self, n_in: int):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(n_in + 1, n_in))

    def forward(self, a, b):
        a = torch.cat([a, torch.ones_like(a[..., :1])], -1)
        return torch.einsum("bxi,ij,byj->bxy", a, self.weight, b)


class CharLSTM(nn.Module):
    """A word from its characters: the final states of a BiLSTM, ``n_out`` values."""

    def __init__(self, n_chars: int, n_embed: int, n_out: int):
        super().__init__()
        self.embed = nn.Embedding(n_chars, n_embed, padding_idx=0)
        self.lstm = nn.LSTM(n_embed, n_out // 2, batch_first=True, bidirectional=True)
        self.n_out = n_out

    def forward(self, chars):
        """``chars`` (B, L, C) character indices (0 padding) -> (B, L, n_out)."""
        B, L, C = chars.shape
        flat = chars.reshape(B * L, C)
        lens = (flat > 0).sum(-1)
        out = self.embed.weight.new_zeros((B * L, self.n_out))
        has = lens > 0
        if has.any():
            x = nn.utils.rnn.pack_padded_sequence(self.embed(flat[has]), lens[has].cpu(), batch_first=True,
                                                  enforce_sorted=False)
            _, (h, _) = self.lstm(x)
            out[has] = torch.cat([h[0], h[1]], -1)
        return out.reshape(B, L, self.n_out)


@dataclass
class Batch:
    """Padded network input of ``B`` sentences (encoder positions: 0 ROOT, 1..n words):
    ``words`` / ``tags`` (B, L+1), ``chars`` (B, L+1, C) and ``lens`` (B,) words per
    sentence; ``pretrained`` (B, L+1) indices into the pretrained vectors (None: none)."""

    words: "torch.Tensor"
    chars: "torch.Tensor"
    tags: "torch.Tensor"
    lens: "torch.Tensor"
    pretrained: "torch.Tensor | None" = None

    @property
    def mask(self):
        """(B, L+1) True at word positions (not ROOT, not padding)."""
        pos = torch.arange(self.words.shape[1])[None, :]
        return (pos >= 1) & (pos <= self.lens[:, None])


@dataclass
class Encoded:
    """The encoder's states of a :class:`Batch` and the scorers' per-position vectors."""

    s_arc: "torch.Tensor"
    s_trace: "torch.Tensor"
    s_spine: "torch.Tensor"
    lab_c: "torch.Tensor"
    lab_p: "torch.Tensor"
    tlab_c: "torch.Tensor"
    tlab_p: "torch.Tensor"
    s_tag: "torch.Tensor | None" = None


class GraphScorer(nn.Module):
    """The encoder and every scorer (module docstring) for ``n_words`` word forms,
    ``n_chars`` characters, ``n_tags`` tags, ``n_labels`` structural and ``n_traces``
    trace labels and ``n_spines`` spine identities."""

    def __init__(self, config: NetworkConfig, n_words: int, n_chars: int, n_tags: int, n_labels: int,
                 n_traces: int, n_spines: int, n_pretrained: int = 0):
        super().__init__()
        c = self.config = config
        self.sizes = dict(n_words=n_words, n_chars=n_chars, n_tags=n_tags, n_labels=n_labels, n_traces=n_traces,
                          n_spines=n_spines, n_pretrained=n_pretrained)
        self.word_embed = nn.Embedding(n_words, c.word_dim, padding_idx=0)
        self.char = CharLSTM(n_chars, c.char_dim, c.char_hidden)
        n_in = c.word_dim + c.char_hidden
        self.tags_used = bool(c.use_tags and c.tag_dim > 0)
        if self.tags_used:
            self.tag_embed = nn.Embedding(n_tags, c.tag_dim, padding_idx=0)
            n_in += c.tag_dim
        if c.pretrained_dim:
            self.pretrained = nn.Embedding(n_pretrained, c.pretrained_dim, padding_idx=0)
            self.pretrained.weight.requires_grad_(False)
            self.pretrained_proj = nn.Linear(c.pretrained_dim, c.word_dim, bias=False)
        self.root = nn.Parameter(torch.zeros(n_in))
        self.embed_dropout = nn.Dropout(c.dropout)
        self.lstm = nn.LSTM(n_in, c.lstm_hidden, num_layers=c.lstm_layers, batch_first=True, bidirectional=True,
                            dropout=c.dropout if c.lstm_layers > 1 else 0.0)   # between layers: none with one
        self.lstm_dropout = nn.Dropout(c.dropout)
        h = 2 * c.lstm_hidden
        self.arc_dep, self.arc_head = MLP(h, c.arc_mlp, c.dropout), MLP(h, c.arc_mlp, c.dropout)
        self.arc = Biaffine(c.arc_mlp)
        self.trace_dep, self.trace_head = MLP(h, c.trace_mlp, c.dropout), MLP(h, c.trace_mlp, c.dropout)
        self.trace = Biaffine(c.trace_mlp)
        self.lab_dep, self.lab_head = MLP(h, c.label_mlp, c.dropout), MLP(h, c.label_mlp, c.dropout)
        self.lab_out = nn.Linear(c.label_mlp, n_labels)
        self.tlab_dep, self.tlab_head = MLP(h, c.trace_mlp, c.dropout), MLP(h, c.trace_mlp, c.dropout)
        self.tlab_out = nn.Linear(c.trace_mlp, n_traces)
        self.spine = nn.Sequential(MLP(h, c.spine_mlp, c.dropout), nn.Linear(c.spine_mlp, n_spines))
        self.tags_predicted = bool(c.predict_tags)
        if self.tags_predicted:
            self.tagger = nn.Sequential(MLP(h, c.tag_mlp, c.dropout), nn.Linear(c.tag_mlp, n_tags))

    # -- encoding -----------------------------------------------------------------------------
    def encode(self, batch: Batch) -> Encoded:
        """Every per-position score and vector of ``batch`` (:class:`Encoded`)."""
        x = self.word_embed(batch.words)
        if self.config.pretrained_dim and batch.pretrained is not None:
            x = x + self.pretrained_proj(self.pretrained(batch.pretrained))
        parts = [x, self.char(batch.chars)]
        if self.tags_used:
            tags = batch.tags
            if self.training and self.config.tag_dropout > 0:
                drop = (torch.rand(tags.shape) < self.config.tag_dropout) & (tags > 0)
                tags = tags.masked_fill(drop, 1)
            parts.append(self.tag_embed(tags))
        x = self.embed_dropout(torch.cat(parts, -1))
        x = torch.cat([self.root.expand(x.shape[0], 1, -1), x[:, 1:]], 1)
        packed = nn.utils.rnn.pack_padded_sequence(x, (batch.lens + 1).cpu(), batch_first=True,
                                                   enforce_sorted=False)
        h, _ = self.lstm(packed)
        h, _ = nn.utils.rnn.pad_packed_sequence(h, batch_first=True, total_length=x.shape[1])
        h = self.lstm_dropout(h)
        return Encoded(self.arc(self.arc_dep(h), self.arc_head(h)), self.trace(self.trace_dep(h), self.trace_head(h)),
                       self.spine(h), self.lab_dep(h), self.lab_head(h), self.tlab_dep(h), self.tlab_head(h),
                       self.tagger(h) if self.tags_predicted else None)

    def predicted_tags(self, enc: Encoded):
        """(B, L+1) the most probable tag of every position (indices of the tag
        vocabulary, padding and the unknown tag never chosen); None without
        ``predict_tags``."""
        if enc.s_tag is None:
            return None
        return enc.s_tag[..., 2:].argmax(-1) + 2

    def label_logits(self, enc: Encoded, b, x, y, trace: bool = False):
        """Label logits of pairs ``(x[k], y[k])`` (encoder positions) of sentence(s) ``b``:
        (K, n_labels), or (K, n_traces) with ``trace``."""
        if trace:
            return self.tlab_out(F.leaky_relu(enc.tlab_c[b, x] + enc.tlab_p[b, y], 0.1))
        return self.lab_out(F.leaky_relu(enc.lab_c[b, x] + enc.lab_p[b, y], 0.1))

    # -- training -------------------------------------------------------------------------------
    def loss(self, batch: Batch, gold) -> tuple:
        """``(loss, parts)``: the local losses of ``batch`` against ``gold`` (a
        :class:`GoldBatch`), summed and divided by the batch's words; ``parts`` their
        values (floats) by name."""
        enc = self.encode(batch)
        mask = batch.mask
        n_words = mask.sum().clamp(min=1)
        L1 = batch.words.shape[1]
        cand = torch.arange(L1)[None, None, :] <= batch.lens[:, None, None]       # ROOT and words
        s_arc = enc.s_arc.masked_fill(~cand, float("-inf"))
        arc = F.cross_entropy(s_arc[mask], gold.heads[mask], reduction="sum")
        b, x = torch.nonzero(mask, as_tuple=True)
        lab_ok = gold.labels[mask] >= 0
        lab = F.cross_entropy(self.label_logits(enc, b[lab_ok], x[lab_ok], gold.heads[mask][lab_ok]),
                              gold.labels[mask][lab_ok], reduction="sum")
        sp_ok = gold.spines[mask] >= 0
        spine = F.cross_entropy(enc.s_spine[mask][sp_ok], gold.spines[mask][sp_ok], reduction="sum")
        pair = mask[:, :, None] & mask[:, None, :] & ~torch.eye(L1, dtype=torch.bool)[None]
        trace = F.binary_cross_entropy_with_logits(enc.s_trace[pair], gold.trace[pair], reduction="sum")
        tb, tx, ty, tl = gold.trace_edges
        ok = tl >= 0
        tlab = (F.cross_entropy(self.label_logits(enc, tb[ok], tx[ok], ty[ok], trace=True), tl[ok], reduction="sum")
                if ok.any() else s_arc.new_zeros(()))
        parts = {"arc": arc, "label": lab, "spine": spine, "trace": trace, "trace_label": tlab}
        if enc.s_tag is not None:
            tag_ok = batch.tags[mask] >= 2
            parts["tag"] = F.cross_entropy(enc.s_tag[mask][tag_ok], batch.tags[mask][tag_ok], reduction="sum")
        total = sum(parts.values()) / n_words
        return total, {k: float(v.detach()) / float(n_words) for k, v in parts.items()}


@dataclass
class GoldBatch:
    """What :meth:`GraphScorer.loss` learns, in encoder positions: ``heads`` / ``labels``
    / ``spines`` (B, L+1) (-1: none, or not learnt), ``trace`` (B, L+1, L+1) float 0/1
    and ``trace_edges`` = (b, x, y, type) of the gold traces."""

    heads: "torch.Tensor"
    labels: "torch.Tensor"
    spines: "torch.Tensor"
    trace: "torch.Tensor"
    trace_edges: tuple


def build_network(header: dict):
    """The :class:`~plgraph.parser.scoring.neural.network.GraphScorer` a folder's header describes (untrained)."""
    return GraphScorer(NetworkConfig(**header["network"]), **header["sizes"])


def state_arrays(net) -> dict:
    """The network's parameters and buffers as numpy arrays by name."""
    return {k: v.detach().cpu().numpy() for k, v in net.state_dict().items()}


def load_state(net, arrays: dict, source: str = "") -> None:
    """Put ``arrays`` (by name) into ``net``; ModelFileError naming ``source`` on a
    missing array, one of another shape, or one with values that are not finite (a
    diverged training's)."""
    from ....errors import ModelFileError

    state = net.state_dict()
    for k, v in state.items():
        if k not in arrays or tuple(arrays[k].shape) != tuple(v.shape):
            raise ModelFileError(f"weights do not fit the network: {k}", source=source)
        if not np.isfinite(arrays[k]).all():
            raise ModelFileError(f"weights {k} hold values that are not finite (nan or inf: the training that "
                                 f"wrote them diverged); train the model again, with a smaller --lr", source=source)
        state[k] = torch.from_numpy(np.asarray(arrays[k], np.float32)).to(v.dtype)
    net.load_state_dict(state)


def load_embeddings(path, vocab_words=None, limit: int | None = None) -> tuple[np.ndarray, list]:
    """``(vectors, forms)`` of a word2vec / GloVe text file (one word and its values per
    line; a first line of two integers is a word2vec header and skipped), each word under
    its :func:`~plgraph.parser.scoring.neural.data.word_form` (the first vector of a form wins): the
    words of the first ``limit`` vectors and those whose form is in ``vocab_words`` (any
    container of forms); every word when both are None.
    :class:`~plgraph.errors.InputError` naming the file and line on a line of another
    width or a value of a kept vector that is not a finite number (``nan``, ``inf``,
    beyond float32's range), or when no vector is kept."""
    from ....errors import InputError
    from .data import word_form

    words, rows, dim = [], [], None
    seen = set()
    position = 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            parts = line.rstrip().split(" ")
            if lineno == 1 and len(parts) == 2 and all(p.isdigit() for p in parts):
                continue
            if len(parts) < 2:
                continue
            if dim is None:
                dim = len(parts) - 1
            if len(parts) - 1 != dim:
                raise InputError(f"expected a word and {dim} values, got {len(parts) - 1} values", source=str(path),
                                 line=lineno)
            position += 1
            form = word_form(parts[0])
            leading = limit is not None and position <= limit
            wanted = vocab_words is not None and form in vocab_words
            if form in seen or not (leading or wanted or (vocab_words is None and limit is None)):
                continue
            try:
                with np.errstate(over="ignore"):
                    row = np.array(parts[1:], np.float32)
            except ValueError:
                raise InputError("a value is not a number", source=str(path), line=lineno) from None
            if not np.isfinite(row).all():
                raise InputError(f"value {parts[1 + int(np.flatnonzero(~np.isfinite(row))[0])]!r} is not a finite "
                                 f"number of float32's range", source=str(path), line=lineno)
            rows.append(row)
            seen.add(form)
            words.append(form)
    if not rows:
        raise InputError("no vectors of the vocabulary's words", source=str(path))
    return np.stack(rows), words


__all__ = ["NetworkConfig", "GraphScorer", "build_network", "state_arrays", "load_state", "Batch", "GoldBatch",
           "Encoded", "Biaffine", "CharLSTM", "MLP",
           "load_embeddings"]
