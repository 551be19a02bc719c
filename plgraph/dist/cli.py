"""The ``--dask`` options the corpus and training commands share.

::

    --dask [ADDRESS]    run on Dask: no address = a LocalCluster on this machine,
                        an address (tcp://host:8786) = that existing cluster
    --workers N         worker processes of the local cluster (default: this machine's cores)
    --chunk-size K      sentences (or files) a task handles (corpus commands)

``ADDRESS`` must look like an address (``local``, ``tcp://host:port``, ``host:port``), so a
file name right after a bare ``--dask`` is refused with a message instead of being taken
for a scheduler; write ``--dask=ADDRESS`` or put ``--dask`` after the input files.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from contextlib import contextmanager

from ..cliargs import positive_int
from .cluster import LOCAL

_ADDRESS = re.compile(r"^(local|[a-z][a-z0-9+.-]*://\S+|[A-Za-z0-9_.-]+:\d+)$")


def dask_address(text: str) -> str:
    """argparse type of ``--dask``'s value."""
    if not _ADDRESS.match(text):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a scheduler address (local, tcp://host:port or host:port); if it is an input file, "
            f"write --dask without a value after the inputs, or --dask=ADDRESS")
    return text


def add_dask_options(p: argparse.ArgumentParser, *, chunks: str | None = "sentences", chunk_default: int = 8) -> None:
    """Add ``--dask``, ``--workers`` and (with ``chunks``, what a chunk holds)
    ``--chunk-size`` to the command ``p``."""
    g = p.add_argument_group("distributed run (Dask; needs pip install 'plgraph[dist]')")
    g.add_argument("--dask", nargs="?", const=LOCAL, default=None, type=dask_address, metavar="ADDRESS",
                   help="run on Dask: no ADDRESS starts a local cluster of worker processes; tcp://host:8786 "
                        "uses that cluster (workers must see the same files at the same paths)")
    g.add_argument("--workers", type=positive_int, default=None, metavar="N",
                   help="worker processes of the local cluster (default: this machine's cores)")
    if chunks:
        g.add_argument("--chunk-size", type=positive_int, default=chunk_default, metavar="K",
                       help=f"{chunks} a task handles (default {chunk_default})")


@contextmanager
def client_for(args):
    """:func:`~plgraph.dist.cluster.optional_client` of the command's ``--dask`` /
    ``--workers``: None without ``--dask``."""
    from .cluster import optional_client

    with optional_client(getattr(args, "dask", None), workers=getattr(args, "workers", None)) as client:
        yield client


# -- corpus commands: resume folders, chunks, reports ----------------------------------------
def add_resume_option(p: argparse.ArgumentParser, output: str = "--out") -> None:
    """Add ``--resume`` (continue an interrupted ``--dask`` run from the chunks kept
    beside ``output``) to ``p``, unless the shared ``--dask`` options already did."""
    try:
        p.add_argument("--resume", action="store_true",
                       help=f"with --dask: continue an interrupted run from the finished chunks kept in "
                            f"{output.lstrip('-').upper()}.chunks/ (needs the same {output})")
    except argparse.ArgumentError:     # already there
        pass


def dask_state_dir(args, out, option: str = "--out") -> str | None:
    """Where a ``--dask`` run keeps its finished chunks: ``OUT.chunks`` beside the output
    file ``out`` (given by ``option``); None without ``--dask`` or without an output file
    (output on standard output cannot be resumed).  ``--resume`` without ``--dask``, or
    without an output file, is an :class:`~plgraph.errors.InputError`."""
    from ..errors import InputError

    resume = bool(getattr(args, "resume", False))
    if getattr(args, "dask", None) is None:
        if resume:
            raise InputError("--resume continues an interrupted --dask run: add --dask (and the same "
                             f"{option})")
        return None
    if not out or os.fspath(out) == "-":
        if resume:
            raise InputError(f"--resume needs {option}: the finished chunks of a --dask run are kept beside the "
                             f"output file only (not for standard output)")
        return None
    from .chunks import state_folder

    return state_folder(out)


def file_items(files) -> list[list]:
    """What a task gets for each input file: ``[name, path, size, mtime_ns]`` -- the name
    the reports use (as the serial run spells it), the absolute path a worker reads
    (workers may run in another folder), and a stamp that ties finished chunks kept for
    ``--resume`` to the file's content."""
    out = []
    for f in files:
        st = os.stat(f)
        out.append([os.fspath(f), os.path.abspath(f), st.st_size, st.st_mtime_ns])
    return out


def bad_to_json(b, name: str, path: str) -> list:
    """A BadSentence as a JSON-able list, its ``source`` spelled as the serial run does."""
    return [b.id, name if b.source == path else b.source, b.index, b.line, b.reason]


def bad_from_json(doc):
    from ..ptb.reader import BadSentence

    return BadSentence(*doc)


def run_log(command: str):
    return lambda line: print(f"plgraph {command}: {line}", file=sys.stderr, flush=True)


def run_corpus_chunks(command: str, client, task, spec: dict, chunks: list, state: str | None, args, *,
                      desc: str, unit: str):
    """:func:`plgraph.dist.chunks.run_chunks` for a corpus command's ``args``
    (``--resume``, ``--progress``), its resume line on stderr; interrupted (Ctrl-C), it
    says where the finished chunks are before the interrupt goes on."""
    from .chunks import run_chunks

    try:
        return run_chunks(client, task, spec, chunks, state_dir=state, resume=bool(args.resume),
                          progress=args.progress, desc=desc, unit=unit, log=run_log(command))
    except KeyboardInterrupt:
        if state and os.path.isdir(state):
            print(f"plgraph {command}: the finished chunks are kept in {state}: run the same command with --resume "
                  f"to continue", file=sys.stderr)
        raise


def write_output(out, text: str, state: str | None) -> None:
    """A corpus command's output: written atomically to ``out`` and only then the run's
    state folder ``state`` removed (its chunks are no longer needed); standard output
    when ``out`` is None."""
    if out:
        from ..files.atomic import atomic_text
        from .chunks import remove_state

        atomic_text(out, text)
        remove_state(state)
    else:
        sys.stdout.write(text)


def dask_summary(command: str, run) -> None:
    reused = f", {run.reused} reused from an earlier run" if run.reused else ""
    print(f"plgraph {command}: {run.computed} chunk(s) computed on {run.workers} Dask worker(s){reused} "
          f"({run.seconds:.1f} s)", file=sys.stderr)


__all__ = ["add_dask_options", "client_for", "dask_address", "add_resume_option", "dask_state_dir", "file_items",
           "bad_to_json", "bad_from_json", "run_corpus_chunks", "write_output", "dask_summary", "run_log"]
