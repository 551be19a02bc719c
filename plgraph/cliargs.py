"""argparse types shared by the command modules."""
from __future__ import annotations

import argparse
import math


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


def progress_of(args) -> bool:
    """Whether a command shows progress bars: its ``--progress`` / ``--no-progress``, else
    when standard error is a terminal (:func:`plgraph.progress.shown`)."""
    from .progress import shown

    return shown(getattr(args, "progress", None))
