"""The POS tagger ``plgraph parse --in text`` runs before the parser.

NLTK's averaged perceptron (:class:`nltk.tag.perceptron.PerceptronTagger`, Honnibal's
tagger), trained offline on the train split's words and tags -- a well-kept tagger rather
than one written here.  It is stored in the parser's model folder as one JSON file
(:data:`FILE`) written atomically; NLTK's own ``save_to_json`` writes three files into a
folder it validates itself, so plgraph writes the tagger's three parameter tables
(:meth:`~nltk.tag.perceptron.PerceptronTagger.encode_json_obj`) under its own header.

Training shuffles the sentences between iterations with Python's ``random``; it runs
under a fixed seed (the global state is restored afterwards), so the same data give the
same tagger.
"""
from __future__ import annotations

import json
import lzma
import os
import random
from pathlib import Path

from ...files.atomic import atomic_json
from ...errors import InputError, ModelFileError

#: the tagger's file in a parser model folder
FILE = "tagger.json"
#: the same file LZMA-compressed, as released models store it (:mod:`plgraph.release`)
PACKED_FILE = FILE + ".xz"
FORMAT = "plgraph-pos-tagger"
VERSION = 1


class PosTagger:
    """A trained tagger: :meth:`tag` maps a tokenised sentence to its PTB tags."""

    def __init__(self, nltk_tagger, info: dict | None = None):
        self._tagger = nltk_tagger
        self.info = dict(info or {})

    @classmethod
    def train(cls, sentences, *, iterations: int = 5, seed: int = 0) -> "PosTagger":
        """Train on ``sentences``: ``(words, tags)`` pairs (lists of strings of one length)."""
        from nltk.tag.perceptron import PerceptronTagger

        data = []
        for k, (words, tags) in enumerate(sentences):
            if len(words) != len(tags):
                raise InputError(f"{len(words)} words but {len(tags)} tags", sentence=k)
            if words:
                data.append(list(zip(words, tags)))
        if not data:
            raise InputError("no tagged sentences to train the POS tagger on")
        tagger = PerceptronTagger(load=False)
        state = random.getstate()
        random.seed(seed)
        try:
            tagger.train(data, nr_iter=iterations)
        finally:
            random.setstate(state)
        return cls(tagger, {"sentences": len(data), "iterations": iterations, "seed": seed})

    def tag(self, words) -> list[str]:
        """The tags of ``words`` (a list of tokens; an empty list gives no tags)."""
        words = list(words)
        if not words:
            return []
        return [t for _, t in self._tagger.tag(words)]

    def accuracy(self, sentences) -> float:
        """Tagging accuracy (percent) on ``(words, tags)`` pairs."""
        good = total = 0
        for words, tags in sentences:
            pred = self.tag(words)
            good += sum(p == t for p, t in zip(pred, tags))
            total += len(tags)
        return round(100.0 * good / total, 2) if total else 0.0

    # -- file --------------------------------------------------------------------------
    def save(self, path) -> None:
        """Write the tagger to ``path`` (JSON, atomically)."""
        weights, tagdict, classes = self._tagger.encode_json_obj()
        atomic_json(path, {"format": FORMAT, "format_version": VERSION, "info": self.info, "weights": weights,
                           "tagdict": tagdict, "classes": sorted(classes)}, indent=None)

    @classmethod
    def load(cls, path) -> "PosTagger":
        """Read a file :meth:`save` wrote, or that file LZMA-compressed (a name ending in
        ``.xz``); a missing or damaged file is a :class:`~plgraph.errors.ModelFileError`
        naming it."""
        from nltk.tag.perceptron import PerceptronTagger

        path = Path(path)
        try:
            if path.suffix == ".xz":
                with lzma.open(path, "rt", encoding="utf-8") as handle:
                    doc = json.load(handle)
            else:
                doc = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ModelFileError("no POS tagger here (train the parser again, or give tags: --in tagged|ptb)",
                                 source=str(path)) from None
        except (OSError, EOFError, lzma.LZMAError, UnicodeDecodeError, json.JSONDecodeError) as err:
            raise ModelFileError(f"cannot read the POS tagger: {err}", source=str(path)) from None
        if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("format_version") != VERSION:
            raise ModelFileError(f"not a {FORMAT} file of version {VERSION}", source=str(path))
        try:
            weights, tagdict, classes = doc["weights"], doc["tagdict"], doc["classes"]
            if not (isinstance(weights, dict) and isinstance(tagdict, dict) and isinstance(classes, list)):
                raise TypeError("weights, tagdict and classes must be an object, an object and a list")
        except (KeyError, TypeError) as err:
            raise ModelFileError(f"damaged POS tagger: {err}", source=str(path)) from None
        tagger = PerceptronTagger(load=False)
        tagger.decode_json_params((weights, tagdict, classes))
        return cls(tagger, doc.get("info"))


def tagger_file(model_dir) -> str | None:
    """The tagger file of the model folder ``model_dir``: :data:`FILE`, else
    :data:`PACKED_FILE`, else None when it has neither."""
    for name in (FILE, PACKED_FILE):
        path = os.path.join(os.fspath(model_dir), name)
        if os.path.lexists(path):
            return path
    return None


__all__ = ["PosTagger", "FILE", "PACKED_FILE", "tagger_file"]
