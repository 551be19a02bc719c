"""plgraph: a notebook-centric research environment for syntactic parsing with traces.

Main entry points::

    import plgraph
    dev = plgraph.corpus("dev")            # PTB sample sentences with .id, .tree, .graph
    g = dev["wsj_0140.0"].graph            # words, tags, spines, edge arrays
    plgraph.classify(g).category           # 'projective graph', ...
    plgraph.write_shp(dev.graphs(), "dev.shp"); plgraph.read_shp("dev.shp")
"""
from .convert import ConversionOptions, graph_to_tree, tree_to_graph, canonical_indices
from .corpora import Corpus, Sentence, corpus
from .data import find_corpus
from .errors import ConversionError, CorpusNotFoundError, InputError, PTBFormatError, SHPFormatError
from .graph import Graph
from .ptb import read_ptb, read_ptb_string
from .shp import read_shp, write_shp, format_shp
from .structure import Structure, classify
from .tree import Tree

__version__ = "0.1.0"

__all__ = [
    "ConversionOptions", "graph_to_tree", "tree_to_graph", "canonical_indices", "Corpus", "Sentence", "corpus",
    "find_corpus", "ConversionError", "CorpusNotFoundError", "InputError", "PTBFormatError", "SHPFormatError",
    "Graph", "read_ptb", "read_ptb_string", "read_shp", "write_shp", "format_shp", "Structure", "classify", "Tree",
]
