"""plgraph: a notebook-centric research environment for syntactic parsing with traces.

Main entry points::

    import plgraph
    nlp = plgraph.load()                    # the released graph parser (its neural scorer with PyTorch)
    doc = nlp("I don't know who she wanted to see.")           # raw text in
    doc.sentences[0].tree, doc.sentences[0].traces           # PTB tree with null elements; who did what to whom
    print(nlp.parse_tree("Who did you see ?".split()))         # tokens in
    dev = plgraph.corpus("dev")            # PTB sample sentences with .id, .tree, .graph
    g = dev["wsj_0140.0"].graph            # words, tags, spines, edge arrays
    plgraph.classify(g).category           # 'projective graph', ...
    plgraph.write_shp(dev.graphs(), "dev.shp"); plgraph.read_shp("dev.shp")
"""
from __future__ import annotations

import importlib

__version__ = "0.1.0"

#: the names ``plgraph`` exports and the modules that define them, imported on first use
#: (so that ``python -m plgraph`` starts without loading numba and the numpy stack
#: before it can answer Ctrl-C)
_EXPORTS = {
    ".convert": ("ConversionOptions", "graph_to_tree", "tree_to_graph", "canonical_indices"),
    ".corpora": ("Corpus", "Sentence", "corpus"),
    ".data": ("find_corpus",),
    ".errors": ("ConversionError", "CorpusNotFoundError", "InputError", "PTBFormatError", "SHPFormatError"),
    ".graph": ("Graph",),
    ".ptb": ("read_ptb", "read_ptb_string"),
    ".shp": ("read_shp", "write_shp", "format_shp"),
    ".structure": ("Structure", "classify"),
    ".tree": ("Tree",),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = ["load"] + [name for names in _EXPORTS.values() for name in names]


def load(model_dir=None, *, scorer: str | None = None, max_words: int | None = None):
    """A trained graph parser ready to parse: the model folder ``model_dir`` (default:
    plgraph's released model) with scorer ``scorer`` (``linear`` or ``neural``; default:
    the neural one when the folder holds it and PyTorch is installed, as ``python -m
    plgraph parse`` chooses).  The same as :meth:`plgraph.parser.Parser.load`;
    ``max_words``: longer sentences get the fallback parse (default: the parser's).  Call
    it on text: ``plgraph.load()("Who did you see?")`` is a
    :class:`~plgraph.parser.parsing.document.Document` whose sentences show their graphs
    in a notebook (this imports :mod:`plgraph.viz`)."""
    from . import viz  # noqa: F401  (parsed sentences draw their graphs in notebooks)
    from .parser.parsing.parser import Parser

    return Parser.load(model_dir, scorer=scorer, max_words=max_words)


def __getattr__(name: str):
    """An exported name (imported from its module on first use) or a sub-module."""
    module = _WHERE.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module, __name__), name)
    else:
        try:
            value = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as err:
            if err.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
