"""Penn Treebank reading, cleaning and tree edits."""
from .reader import read_ptb, read_ptb_string, iter_ptb_file, BadSentence, SentenceTree
from .clean import ptb_cleaning, homogenise, strip_coindex, coindex_of, gap_index_of, base_label

__all__ = [
    "read_ptb", "read_ptb_string", "iter_ptb_file", "BadSentence", "SentenceTree",
    "ptb_cleaning", "homogenise", "strip_coindex", "coindex_of", "gap_index_of", "base_label",
]
