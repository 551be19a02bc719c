"""Exceptions raised by plgraph, each naming where the problem is."""
from __future__ import annotations


class PlgraphError(Exception):
    """Base class for plgraph errors."""


class CorpusNotFoundError(PlgraphError, LookupError):
    """A corpus could not be found anywhere on the resolver's search path."""


class InputError(PlgraphError, ValueError):
    """Bad input data.

    Parameters
    ----------
    message : str
        What is wrong.
    source : str, optional
        File name (or ``<string>``).
    sentence : str or int, optional
        Sentence id (``wsj_0001.3``) or 0-based tree index within the file.
    line : int, optional
        1-based line number in the source where the offending item starts.
    """

    def __init__(self, message: str, source: str | None = None, sentence=None, line: int | None = None):
        self.reason = message
        self.source = source
        self.sentence = sentence
        self.line = line
        where = []
        if source is not None:
            where.append(str(source) + (f":{line}" if line is not None else ""))
        if sentence is not None:
            where.append(f"sentence {sentence}")
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {message}" if prefix else message)


class PTBFormatError(InputError):
    """A Penn Treebank bracketed file that cannot be read."""


class SHPFormatError(InputError):
    """An SHP (split-head parse) file that cannot be read."""


class ConversionError(InputError):
    """A tree that cannot be converted to a graph (or back)."""


class OutputError(PlgraphError):
    """An output that cannot be written; the message names the user's path (never a
    temporary file) and what is wrong."""


class ModelFileError(InputError):
    """A model file (``.npz`` archive and its JSON header) that cannot be used: missing,
    empty, truncated, corrupt, of another format or format version, or whose parts do not
    fit together.  ``source`` is the file; the message says what is wrong."""
