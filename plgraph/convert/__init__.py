"""Conversion between Penn Treebank trees and lexicalised graphs."""
from .tree_to_graph import tree_to_graph, ConversionOptions, DEFAULT_OPTIONS
from .graph_to_tree import graph_to_tree, canonical_indices

__all__ = ["tree_to_graph", "graph_to_tree", "canonical_indices", "ConversionOptions", "DEFAULT_OPTIONS"]
