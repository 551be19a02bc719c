"""A model replacement killed midway, for the tests of both scorers' ``--overwrite``."""
from __future__ import annotations

import os

import pytest


def replace_killed_after(monkeypatch, replace_model, work, folder, renames: int = 3) -> list:
    """Run ``replace_model(work, folder)`` with ``os.replace`` stopping the process (a
    ``KeyboardInterrupt`` standing for SIGKILL: nothing runs after it) after ``renames``
    renames; the sources renamed, in order."""
    real, moved = os.replace, []

    def killed(src, dst):
        if len(moved) == renames:
            raise KeyboardInterrupt
        moved.append(src)
        real(src, dst)

    monkeypatch.setattr(os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        replace_model(work, folder)
    monkeypatch.undo()
    return moved
