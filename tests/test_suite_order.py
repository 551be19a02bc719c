"""The suite's file order (tests/conftest.py FILE_ORDER) names files that exist: a renamed
file would otherwise fall silently to the end of the order."""
from __future__ import annotations

from pathlib import Path

from conftest import FILE_ORDER

ROOT = Path(__file__).resolve().parents[1]


def test_every_file_of_the_order_exists_once():
    assert len(set(FILE_ORDER)) == len(FILE_ORDER)
    missing = [p for p in FILE_ORDER if not (ROOT / p).is_file()]
    assert not missing, missing
