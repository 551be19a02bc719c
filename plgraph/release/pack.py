"""Pack a trained model folder into the compact folder a release ships.

:func:`pack_model_folder` copies what parsing needs from a folder of ``python -m plgraph
parser train`` (the linear passes, their coarse models and POS tagger, and the neural
model in ``M/neural`` when there is one) and leaves out what only training needs
(checkpoints, logs; the training curves stay, in ``curves.json`` and the neural header).
Every weight archive is rewritten packed (:mod:`plgraph.files.packing`: non-zero weights only,
in the release's value precision, LZMA) and the POS tagger LZMA-compressed
(``tagger.json.xz``).  The checksums each model's JSON keeps of its arrays are
recomputed on the arrays as the loaders will read them back, so the packed folder loads
through the ordinary loader (:meth:`Parser.load <plgraph.parser.parsing.parser.Parser.load>`,
with each scorer) with every check it makes.
"""
from __future__ import annotations

import copy
import lzma
import os
import shutil

from ..files.atomic import atomic_json, atomic_open
from ..files.modelfile import content_crc32, load_json, load_npz
from ..files.packing import save_packed

#: the linear folder's files copied as they are (their CRCs in parser.json stay valid)
LINEAR_COPIED = ("labels.json", "rules.npz", "rules.npz.json")
#: copied too when the folder has them: the training curves (notebook 08 shows them)
LINEAR_OPTIONAL = ("curves.json",)
#: the neural folder's files copied as they are
NEURAL_COPIED = ("labels.json", "rules.npz", "rules.npz.json")


def _write_json(path, doc) -> None:
    atomic_json(path, doc, indent=None)


def _pack_npz(src, dst, precision: str) -> dict:
    """Pack the arrays of ``src`` into ``dst``; the arrays as read back."""
    return save_packed(dst, load_npz(src), precision)


def _pack_tagger(src_dir, dst_dir) -> None:
    """The folder's POS tagger, if it has one, LZMA-compressed into ``dst_dir``."""
    from ..parser.parsing.tagger import PACKED_FILE, tagger_file

    path = tagger_file(src_dir)
    if path is None:
        return
    out = os.path.join(dst_dir, PACKED_FILE)
    if path.endswith(".xz"):
        shutil.copyfile(path, out)
        return
    with open(path, "rb") as handle:
        data = handle.read()
    with atomic_open(out, "wb") as handle:
        handle.write(lzma.compress(data, preset=9 | lzma.PRESET_EXTREME))


def _pack_pruners(src, dst, precision: str) -> None:
    """The coarse models: ``pruners.json``, ``trace.npz``, ``spine.npz``, ``arc/``."""
    from ..dep.model import MODEL_CRC_KEYS
    from ..pruners.model import pruners_crc

    os.makedirs(os.path.join(dst, "arc"), exist_ok=True)
    doc = load_json(os.path.join(src, "pruners.json"), {}, "pruner models header")
    trace = _pack_npz(os.path.join(src, "trace.npz"), os.path.join(dst, "trace.npz"), precision)
    spine = _pack_npz(os.path.join(src, "spine.npz"), os.path.join(dst, "spine.npz"), precision)
    doc["crc32"] = pruners_crc(trace, spine, doc)
    _write_json(os.path.join(dst, "pruners.json"), doc)
    arc_doc = load_json(os.path.join(src, "arc", "model.json"), {}, "arc pass model header")
    arcs = _pack_npz(os.path.join(src, "arc", "model.npz"), os.path.join(dst, "arc", "model.npz"), precision)
    arc_doc["crc32"] = content_crc32(arcs, arc_doc, MODEL_CRC_KEYS)
    _write_json(os.path.join(dst, "arc", "model.json"), arc_doc)


def pack_linear(src, dst, precision: str = "float16") -> None:
    """Pack the linear parser of folder ``src`` (``parser.json`` and its passes, its coarse
    models wherever ``parser.json`` points, its tagger) into ``dst`` (created), the coarse
    models into ``dst/pruners``."""
    from ..parser.model import HEADER_CRC_KEYS, ParserFolder, pruners_fingerprint

    folder = ParserFolder.open(src)
    os.makedirs(dst, exist_ok=True)
    doc = copy.deepcopy(folder.header)
    for name in LINEAR_COPIED + tuple(n for n in LINEAR_OPTIONAL if os.path.exists(os.path.join(src, n))):
        shutil.copyfile(os.path.join(src, name), os.path.join(dst, name))
    for name in doc.get("trained") or []:
        entry = doc["passes"][name]
        arrays = save_packed(os.path.join(dst, entry["npz"]), folder.pass_arrays(name)[0], precision)
        entry["crc32"] = content_crc32(arrays)
    _pack_pruners(folder.pruners_dir(), os.path.join(dst, "pruners"), precision)
    doc["pruners"] = {"path": "pruners", "fingerprint": pruners_fingerprint(os.path.join(dst, "pruners"))}
    doc["crc32"] = content_crc32(None, doc, HEADER_CRC_KEYS)
    _write_json(os.path.join(dst, "parser.json"), doc)
    _pack_tagger(src, dst)


def pack_neural(src, dst, precision: str = "float16") -> None:
    """Pack the neural model folder ``src`` (``neural.json``, ``neural.npz``, its rules,
    labels and tagger) into ``dst`` (created)."""
    from ..parser.scoring.neural.folder import HEADER, HEADER_CRC_KEYS, WEIGHTS, NeuralFolder

    folder = NeuralFolder.open(src)
    os.makedirs(dst, exist_ok=True)
    doc = copy.deepcopy(folder.header)
    for name in NEURAL_COPIED:
        shutil.copyfile(os.path.join(src, name), os.path.join(dst, name))
    arrays = save_packed(os.path.join(dst, WEIGHTS), folder.load_weights(), precision)
    doc["weights"]["crc32"] = content_crc32(arrays)
    doc["crc32"] = content_crc32(None, doc, HEADER_CRC_KEYS)
    _write_json(os.path.join(dst, HEADER), doc)
    _pack_tagger(src, dst)


def pack_model_folder(src, dst, *, linear_precision: str = "bfloat16", neural_precision: str = "float16") -> list[str]:
    """Pack model folder ``src`` into the new folder ``dst``: its linear parser when it has
    one (``parser.json``) and its neural model (``src/neural``) when it has one, into
    ``dst`` and ``dst/neural``, with their weights in the given precisions
    (:data:`plgraph.files.packing.PRECISIONS`).  Returns the scorers packed (``"linear"``,
    ``"neural"``); ModelFileError when ``src`` holds neither, or a damaged one."""
    from ..errors import ModelFileError
    from ..parser.scoring.neural.folder import SUBDIR, is_neural_folder, neural_dir

    src = os.fspath(src)
    packed = []
    if os.path.isfile(os.path.join(src, "parser.json")):
        pack_linear(src, dst, linear_precision)
        packed.append("linear")
    ndir = neural_dir(src)
    if is_neural_folder(ndir):
        pack_neural(ndir, dst if ndir == src else os.path.join(dst, SUBDIR), neural_precision)
        packed.append("neural")
    if not packed:
        raise ModelFileError("no trained parser here (neither parser.json nor neural/neural.json)", source=src)
    return packed


__all__ = ["pack_model_folder", "pack_linear", "pack_neural"]
