"""A synthetic treebank in the LDC layout, made of the PTB sample's files: for exercising
``--ptb DIR`` (reading, training, memory and time) at several times the sample's size
without LDC data.

:func:`write_synthetic_treebank` writes into a new folder ``out``:

* sections ``02``-``21`` (the LDC train split): ``copies`` renamed copies of each of the
  sample's train files (``wsj_0001``-``wsj_0139``), spread over the twenty sections in
  order, named ``wsj_SSNN.mrg`` as the LDC names them (at most 100 files a section, so
  ``copies`` <= 14);
* section ``22`` (dev): the sample's dev files (``wsj_0140``-``wsj_0169``) as
  ``wsj_2200``-``wsj_2229``; section ``23`` (test): its test files (``wsj_0170``-
  ``wsj_0199``) as ``wsj_2300``-``wsj_2329``;
* ``SYNTHETIC.txt``, which says what the folder is.

The files are byte copies, so sentence ids differ (they come from the file names) but the
train sentences repeat ``copies`` times: **the accuracy of a model trained on it means
nothing** (it measures the sample's train split seen ``copies`` times, not more data).
Its sizes, times and memory are the point.  The folder is written under a temporary name
beside ``out`` and renamed at the end, so an interrupted run leaves no half treebank.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..data import LDC_SPLITS, sample_files
from ..errors import InputError, OutputError

#: files a section can hold under the LDC naming ``wsj_SSNN.mrg``
FILES_PER_SECTION = 100
#: what ``SYNTHETIC.txt`` starts with
WARNING = ("SYNTHETIC TREEBANK: renamed copies of the NLTK PTB sample (train copied {copies} times into sections "
           "02-21; dev as 22, test as 23). The accuracy of a model trained on it means nothing; use it for sizes, "
           "times and memory only.")


@dataclass
class SyntheticTreebank:
    """What :func:`write_synthetic_treebank` wrote: the folder and the files per split."""

    path: Path
    copies: int
    files: dict

    def summary(self) -> str:
        counts = ", ".join(f"{split} {len(files)} files" for split, files in self.files.items())
        return f"{self.path}: {counts}. " + WARNING.format(copies=self.copies)


def layout(copies: int, train_files: list, dev_files: list, test_files: list) -> dict:
    """``{section: [(source file, target name), ...]}`` of the synthetic treebank
    (module docstring); ValueError when the train copies do not fit in sections 02-21."""
    train_sections = LDC_SPLITS["train"]
    total = copies * len(train_files)
    if copies < 1:
        raise ValueError(f"copies must be at least 1, got {copies}")
    if total > FILES_PER_SECTION * len(train_sections):
        most = FILES_PER_SECTION * len(train_sections) // max(len(train_files), 1)
        raise ValueError(f"{copies} copies of {len(train_files)} train files do not fit in sections 02-21 "
                         f"({FILES_PER_SECTION} files a section): at most {most} copies")
    sources: dict = {s: [] for s in train_sections}
    for i in range(total):
        sources[train_sections[i * len(train_sections) // total]].append(train_files[i % len(train_files)])
    sources["22"], sources["23"] = list(dev_files), list(test_files)
    return {s: [(src, f"wsj_{s}{k:02d}.mrg") for k, src in enumerate(files)] for s, files in sources.items()}


def write_synthetic_treebank(out, copies: int = 4, sample=None) -> SyntheticTreebank:
    """Write the synthetic treebank of ``copies`` train copies into the new folder ``out``
    (module docstring); ``sample``: the PTB sample folder (default: found as
    :func:`plgraph.data.find_corpus` finds it).  OutputError if ``out`` exists and is
    not an empty folder; InputError if the sample lacks a split's files."""
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise OutputError(f"{out} exists and is not an empty folder: give a new folder for the synthetic treebank")
    splits = {split: sample_files(split, sample) for split in ("train", "dev", "test")}
    for split, files in splits.items():
        if not files:
            raise InputError(f"the PTB sample has no {split} files", source=str(sample or "PTB sample"))
    try:
        plan = layout(copies, splits["train"], splits["dev"], splits["test"])
    except ValueError as err:
        raise InputError(str(err)) from None
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        for section, files in plan.items():
            (tmp / section).mkdir()
            for src, name in files:
                shutil.copyfile(src, tmp / section / name)
        (tmp / "SYNTHETIC.txt").write_text(WARNING.format(copies=copies) + "\n", encoding="utf-8")
        if out.exists():
            out.rmdir()             # empty, checked above
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    written = {"train": [out / s / n for s in LDC_SPLITS["train"] for _, n in plan[s]],
               "dev": [out / "22" / n for _, n in plan["22"]], "test": [out / "23" / n for _, n in plan["23"]]}
    return SyntheticTreebank(out, copies, written)


__all__ = ["write_synthetic_treebank", "layout", "SyntheticTreebank", "FILES_PER_SECTION", "WARNING"]
