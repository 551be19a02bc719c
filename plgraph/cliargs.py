"""argparse types shared by the command modules."""
from __future__ import annotations

import argparse
import math
import re


def _int_at_least(text: str, minimum: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a {what} integer, got {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"expected a {what} integer, got {value}")
    return value


def positive_int(text: str) -> int:
    """An integer >= 1 (``0`` and negatives are errors, never "the default")."""
    return _int_at_least(text, 1, "positive")


def non_negative_int(text: str) -> int:
    """An integer >= 0."""
    return _int_at_least(text, 0, "non-negative")


def finite_float(text: str) -> float:
    """A finite number (``nan`` and ``inf`` are errors: no setting means them)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def positive_float(text: str) -> float:
    """A finite number > 0."""
    value = finite_float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def probability(text: str) -> float:
    """A number in [0, 1]."""
    value = finite_float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a probability between 0 and 1, got {text!r}")
    return value


#: what an option's value may look like when it starts with ``-``: a number (``-2``,
#: ``-1.5``, ``-.5``, ``-1e9``) or ``-inf`` / ``-infinity`` / ``-nan`` (which the option's
#: type then refuses, saying why)
_NEGATIVE_VALUE = re.compile(r"^-(\d+\.?\d*(e[-+]?\d+)?|\.\d+(e[-+]?\d+)?|inf(inity)?|nan)$", re.IGNORECASE)


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser, taking ``--trace-bias -1e9`` or ``--trace-bias -inf`` as an option
    and its value (plain argparse reads only ``-2`` and ``-1.5`` as negative numbers and
    ``-1e9`` or ``-inf`` as an unknown option).  Its sub-command parsers are of the same
    class."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = _NEGATIVE_VALUE


def progress_of(args) -> bool:
    """Whether a command shows progress bars: its ``--progress`` / ``--no-progress``, else
    when standard error is a terminal (:func:`plgraph.progress.shown`)."""
    from .progress import shown

    return shown(getattr(args, "progress", None))
