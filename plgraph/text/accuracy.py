"""How well raw text comes back as the treebank's sentences and tokens.

* :func:`tokenisation_accuracy`: each sentence's gold words detokenised (NLTK's
  ``TreebankWordDetokenizer``) and tokenised again (:func:`plgraph.text.tokenize.tokenize`);
  a sentence counts when every token comes back exactly.
* :func:`splitting_accuracy`: each file of a split written as running text
  (:func:`plgraph.text.sentences.running_text`), split and tokenised
  (:meth:`~plgraph.text.sentences.SentenceSplitter.sentences`); a treebank sentence counts
  as found when one of the sentences found has exactly its tokens (each found sentence
  matched once).
"""
from __future__ import annotations

from collections import Counter, defaultdict

from .sentences import SentenceSplitter, default_splitter, detokenize, running_text


def _words_of(sentence) -> list:
    return list(getattr(sentence, "words", None) or sentence.graph.words)


def tokenisation_accuracy(sentences, splitter: SentenceSplitter | None = None) -> dict:
    """``{"sentences", "exact", "percent", "mismatches": [{"id", "gold", "got"}]}`` over
    treebank ``sentences`` (:class:`plgraph.corpora.Sentence`)."""
    splitter = splitter or default_splitter()
    n = exact = 0
    mismatches = []
    for s in sentences:
        gold = _words_of(s)
        got = splitter.tokenize(detokenize(gold))
        n += 1
        if got == gold:
            exact += 1
        else:
            mismatches.append({"id": s.id, "gold": gold, "got": got})
    return {"sentences": n, "exact": exact, "percent": round(100.0 * exact / max(n, 1), 2), "mismatches": mismatches}


def documents(sentences) -> dict:
    """``{file id: [sentence, ...]}`` in corpus order (``wsj_0140.3`` is in ``wsj_0140``)."""
    out = defaultdict(list)
    for s in sentences:
        out[s.id.rsplit(".", 1)[0]].append(s)
    return dict(out)


def splitting_accuracy(sentences, splitter: SentenceSplitter | None = None, wrapped: bool = False) -> dict:
    """``{"sentences", "found", "percent", "files": {file: [found, of]}, "missed": [{"id",
    "gold"}], "extra": [tokens of found sentences matching none]}`` over the files of
    treebank ``sentences`` written as running text (module docstring; ``wrapped``: the
    text read as hard-wrapped, :func:`plgraph.text.sentences.paragraphs`)."""
    splitter = splitter or default_splitter()
    total = found = 0
    files, missed, extra = {}, [], []
    for name, group in documents(sentences).items():
        text = running_text(_words_of(s) for s in group)
        pred = Counter(tuple(t) for t in splitter.sentences(text, wrapped))
        hit = 0
        for s in group:
            key = tuple(_words_of(s))
            if pred[key] > 0:
                pred[key] -= 1
                hit += 1
            else:
                missed.append({"id": s.id, "gold": list(key)})
        extra += [list(k) for k, v in pred.items() for _ in range(v)]
        files[name] = [hit, len(group)]
        total += len(group)
        found += hit
    return {"sentences": total, "found": found, "percent": round(100.0 * found / max(total, 1), 2),
            "files": files, "missed": missed, "extra": extra}


__all__ = ["documents", "splitting_accuracy", "tokenisation_accuracy"]
