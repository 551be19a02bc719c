"""Command line: ``python -m plgraph <command> ...`` (also installed as ``plgraph``).

This module only dispatches: each subsystem adds its commands from its own ``cli``
module, listed in :data:`COMMAND_MODULES`, which defines ``register(subparsers)``; a
sub-command's ``func(args) -> int`` runs it.  :func:`main` runs one command with the
standard streams, Ctrl-C and SIGTERM handled alike for every command (exit status 0, 2
on an error named on standard error, 130 / 143 when interrupted / terminated, 141 when
standard output's reader stopped).

Commands (``python -m plgraph --help`` lists them all): ``coverage`` (the thesis's two
coverage tables, :mod:`plgraph.coverage.cli`), ``convert`` (PTB <-> SHP,
:mod:`plgraph.convert.cli`), ``parse`` and ``parser`` (the graph parser,
:mod:`plgraph.parser.cli`), ``dep`` (the dependency parser), ``lm`` (language models),
``rules``, ``pruners``, ``eval``, ``release``, ``figures`` and ``synthetic-treebank``
(:mod:`plgraph.ptb.cli`).

``coverage``, ``convert`` and ``dep parse`` take ``--dask [ADDRESS]``
(:mod:`plgraph.dist`): the work goes out in chunks of files (or sentences), the output is
byte-identical to the serial run's, and with an output file the finished chunks are kept
in ``OUT.chunks/`` so that an interrupted run continues with ``--resume``.
"""
from __future__ import annotations

import argparse
import os
import sys

from .cliargs import ArgumentParser
from .errors import OutputError, PlgraphError
from .signals import TerminationAsInterrupt, held_interrupts

#: what ``python -m plgraph --help`` says above the list of commands
DESCRIPTION = """plgraph: parsing with traces (null elements and co-indexation) as lexicalised graphs.

Commands (each has --help):
  parse               parse sentences with a trained graph parser (PTB trees with traces, or SHP)
  demo                parse three sentences with traces with the released model
  parser              train, evaluate and inspect graph parser models
  coverage            the two coverage tables of the thesis, ours beside the paper's
  convert             PTB <-> SHP conversion of one file, or of every .mrg file under a folder
  rules, pruners      the 1EC deduction rules; the graph parser's coarse passes
  dep, lm, eval       dependency parsing; language models; evalb and trace scores
  text                raw text in: PTB tokenisation, sentence splitting, their accuracy
  release, figures    pack the released model; regenerate every figure of figures/
  synthetic-treebank  lay out the PTB sample as an LDC treebank (for exercising --ptb DIR)

coverage, convert and dep parse take --dask [ADDRESS]: the output is byte-identical to the
serial run's, and an interrupted run continues with --resume.
"""

#: modules that add sub-commands via ``register(subparsers)``, in the order of ``--help``
COMMAND_MODULES: list[str] = [
    "plgraph.rules.cli",
    "plgraph.pruners.cli",
    "plgraph.lm.cli",
    "plgraph.dep.cli",
    "plgraph.eval.cli",
    "plgraph.parser.cli.train",
    "plgraph.parser.cli.parse",
    "plgraph.parser.cli.demo",
    "plgraph.text.cli",
    "plgraph.release.cli",
    "plgraph.coverage.cli",
    "plgraph.figures",
    "plgraph.ptb.cli",
    "plgraph.convert.cli",
]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every command (:data:`COMMAND_MODULES`)."""
    import importlib

    parser = ArgumentParser(prog="python -m plgraph", description=DESCRIPTION,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def _tolerant_streams() -> None:
    """Let messages that quote undecodable input (surrogate escapes) or characters the
    terminal's encoding lacks print as escapes instead of dying with UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError):  # replaced streams (pytest capture, notebooks)
            pass


def _closed_standard_streams() -> None:
    """Standard streams closed when plgraph started (``<&-``, ``>&-``, ``2>&-``): each
    free descriptor 0-2 gets ``os.devnull``, so that no file opened later takes it (and
    the writes meant for the stream); then standard error writes to ``os.devnull`` --
    messages are lost, as with any Unix tool, never mixed into standard output --
    standard output fails at its first write (:class:`_StandardOutput`) and standard
    input stays None (reading ``-`` says it is closed)."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            devnull = os.open(os.devnull, os.O_RDWR)
            if devnull != fd:
                os.dup2(devnull, fd)
                os.close(devnull)
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")


class StandardOutputError(OutputError):
    """Standard output cannot be written (a full disk, a closed terminal)."""


class _StandardOutput:
    """``sys.stdout`` while a command runs: a failed write or flush is a
    :class:`StandardOutputError` that names standard output; a closed pipe stays a
    ``BrokenPipeError``."""

    def __init__(self, stream):
        self._stream = stream
        #: standard output was closed when plgraph started (``>&-``): every write fails
        self.closed_at_start = stream is None

    def _guarded(self, method, *args):
        if self._stream is None:
            raise StandardOutputError("standard output is closed: give --out PATH (where the command has it)")
        try:
            return method(*args)
        except BrokenPipeError:
            raise
        except OSError as err:
            raise StandardOutputError(f"cannot write to standard output: {err.strerror or err}") from None

    def write(self, text):
        return self._guarded(lambda: self._stream.write(text))

    def flush(self):
        if self._stream is not None:
            return self._guarded(self._stream.flush)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _silence_stdout() -> None:
    """Point file descriptor 1 at ``os.devnull``, so that the interpreter's last flush of
    what is left in ``sys.stdout``'s buffer (for a closed pipe or a full disk) neither
    fails nor prints."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.__stdout__.fileno())
        os.close(devnull)
    except (AttributeError, OSError, ValueError):       # no real standard output (tests, notebooks)
        pass


def main(argv=None) -> int:
    """Run a command; its exit status: 0 done, 2 an error (named on standard error), 130
    interrupted (Ctrl-C), 143 terminated (SIGTERM), 141 standard output closed (a pipe's
    reader stopped: nothing more is written, nothing is printed, as Unix tools do)."""
    _closed_standard_streams()
    try:
        with held_interrupts():          # start-up: imports every command module
            _tolerant_streams()
            parser = build_parser()
        args = parser.parse_args(argv)
    except KeyboardInterrupt:
        print("plgraph: interrupted", file=sys.stderr)
        return 130
    stdout, sys.stdout = sys.stdout, _StandardOutput(sys.stdout)
    terminated = TerminationAsInterrupt()
    try:
        with terminated:
            status = args.func(args)
            sys.stdout.flush()
        return status
    except BrokenPipeError:
        _silence_stdout()
        return 141
    except PlgraphError as err:
        if isinstance(err, StandardOutputError):
            _silence_stdout()
        print(f"plgraph {args.command}: error: {err}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, SystemError) as err:
        from .signals import caused_by_interrupt

        if not caused_by_interrupt(err):     # a SystemError of a kernel that no interrupt hit
            raise
        print(f"plgraph {args.command}: {'terminated' if terminated.seen else 'interrupted'}", file=sys.stderr)
        return 143 if terminated.seen else 130
    except OSError as err:
        print(f"plgraph {args.command}: error: {err}", file=sys.stderr)
        return 2
    finally:
        sys.stdout = stdout


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
