"""``python -m plgraph dep train|parse|eval`` -- the dependency parser's command line.

::

    python -m plgraph dep train --train T.conllu --dev D.conllu --model M [--order 1|2]
                                [--epochs N] [--learner adagrad|pa|perceptron]
    python -m plgraph dep parse --model M IN.conllu > OUT.conllu
    python -m plgraph dep parse --model M IN.conllu --out OUT.conllu --dask [ADDRESS] [--chunk-size K] [--resume]
    python -m plgraph dep eval GOLD PRED [--json]

``M`` is a folder (model.json + model.npz, checkpoints, log.jsonl).  Bad sentences in
training data are skipped and counted (each listed with file:line); ``eval`` prints
UAS/LAS with and without punctuation (CoNLL 2018 conventions, see
:mod:`plgraph.dep.evaluate`).
"""
from __future__ import annotations

import argparse
import json
import sys
import time

from ..cliargs import finite_float, positive_int, progress_of
from ..dist.cli import add_dask_options, add_resume_option


def fraction(text: str) -> float:
    """argparse type: a number strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a fraction between 0 and 1, got {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a fraction between 0 and 1, got {text}")
    return value


def _read(path, args, *, gold: bool, label: str):
    """The readable sentences of ``path`` (bad ones listed on stderr and skipped); a
    file that cannot be read at all, or holds no readable sentence, is an InputError."""
    from ..errors import InputError
    from .conll import read_conll, sentences_only

    try:
        items = read_conll(path, encoding=args.encoding, on_error="skip", require_heads=gold, check_tree=gold)
    except OSError as err:
        raise InputError(f"cannot read the {label}: {err.strerror or err}", path) from None
    bad: list = []
    sents = sentences_only(items, bad)
    if bad:
        print(f"plgraph dep: skipped {len(bad)} bad sentence(s) of {label} {path}:", file=sys.stderr)
        for b in bad[:10]:
            print(f"  {b}", file=sys.stderr)
        if len(bad) > 10:
            print(f"  ... and {len(bad) - 10} more", file=sys.stderr)
    if not sents:
        raise InputError(f"no readable sentence in the {label}" + (f" ({len(bad)} bad)" if bad else " (empty)"),
                         path)
    return sents


#: ``dep train`` options that define the model or its training (None = not given);
#: with ``--resume`` they must match the checkpoint's
_CONFIG_OPTIONS = ("order", "root", "pseudo_projective", "label_constraint")


def _learner_options(args) -> dict:
    """The learner options given on the command line (only those)."""
    from ..errors import InputError

    learner = args.learner
    opts = {}
    for key in ("eta", "C", "reg"):
        val = getattr(args, key)
        if val is None:
            continue
        if learner is not None and (learner == "perceptron" or (learner == "pa" and key != "C")):
            raise InputError(f"--{key} does not apply to --learner {learner}")
        opts[key] = None if (key == "reg" and val == "none") else val
    if args.average and args.no_average:
        raise InputError("give either --average or --no-average")
    if args.average:
        if learner not in (None, "adagrad"):
            raise InputError("--average applies to --learner adagrad (PA and the perceptron average by default)")
        opts["average"] = True
    if args.no_average:
        opts["average"] = False
    return opts


def _check_outputs(model_dir) -> None:
    from ..files.atomic import check_writable, check_writable_dir
    from .train import MODEL_FOLDER_FILES

    check_writable_dir(model_dir)
    for name in MODEL_FOLDER_FILES:
        check_writable(f"{model_dir}/{name}")


def cmd_train(args) -> int:
    """Train (or, with ``--resume``, continue) into ``--model``.  Options left out
    take the defaults, or with ``--resume`` the checkpoint's; options given with
    ``--resume`` that differ from the checkpoint's are an error listing the stored
    ones.  The model folder is checked writable and locked before the data is read."""
    from ..dist.cli import client_for
    from ..errors import InputError
    from ..files.lock import folder_lock
    from .train import DEFAULT_EPOCHS, DEFAULT_LEARNER, DEFAULT_PRUNE_TOLERANCE, train

    _check_outputs(args.model)
    if args.dev and args.holdout:
        raise InputError("give either --dev or --holdout, not both")
    if not args.resume:
        args.learner = args.learner or DEFAULT_LEARNER
    given_opts = _learner_options(args)
    config = {k: getattr(args, k) for k in _CONFIG_OPTIONS if getattr(args, k) is not None}
    epochs = args.epochs or DEFAULT_EPOCHS
    with folder_lock(args.model):      # train() defers Ctrl-C to safe points itself
        train_sents = _read(args.train, args, gold=True, label="training file")
        dev_sents = _read(args.dev, args, gold=True, label="dev file") if args.dev else None
        if args.holdout:
            cut = len(train_sents) - max(1, int(round(args.holdout * len(train_sents))))
            if cut < 1:
                raise InputError(f"--holdout {args.holdout} leaves no training sentence", args.train)
            train_sents, dev_sents = train_sents[:cut], train_sents[cut:]
            print(f"plgraph dep train: the last {len(dev_sents)} of {len(train_sents) + len(dev_sents)} training "
                  f"sentences are the dev set", file=sys.stderr)
        start = time.perf_counter()
        with client_for(args) as client:
            res = train(train_sents, dev_sents, args.model, config, learner=args.learner,
                        learner_options=given_opts, epochs=epochs, batch_size=args.batch_size, threads=args.threads,
                        seed=args.seed, prune_tolerance=None if args.no_prune else DEFAULT_PRUNE_TOLERANCE,
                        resume=args.resume, progress=progress_of(args),
                        log=lambda s: print(s, file=sys.stderr, flush=True), client=client)
    best = next((r for r in res.history if r["epoch"] == res.best_epoch), None)
    last = res.history[-1]["epoch"] if res.history else 0
    msg = f"plgraph dep train: model in {args.model} (epoch {res.best_epoch or last}"
    if best and "dev_las" in best:
        msg += f" of {last}, dev UAS {best['dev_uas']:.2f} LAS {best['dev_las']:.2f}"
    print(msg + f"), {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return 0


def _model_stamp(folder) -> list:
    """``[size, mtime_ns]`` of the model's two files: part of a ``--dask`` job's spec, so
    a worker never reuses a cached model that has since been retrained, and finished
    chunks kept for ``--resume`` belong to this model."""
    import os

    stamp = []
    for name in ("model.json", "model.npz"):
        st = os.stat(os.path.join(folder, name))
        stamp += [st.st_size, st.st_mtime_ns]
    return stamp


def parse_task(spec: dict, chunk: list) -> list[str]:
    """Dask task of ``dep parse --dask``: parse a chunk of sentences (each as
    ``[comments, rows, words, source, line, index]``, the fields of a
    :class:`~plgraph.dep.conll.DepSentence`) with the model at ``spec["model"]``, loaded
    once per worker process; returns each sentence's CoNLL text
    (:meth:`~plgraph.dep.conll.DepSentence.to_conll`, what the serial output is made of),
    in order."""
    from ..dist.cluster import worker_cached
    from .conll import DepSentence
    from .model import DepModel

    model = worker_cached(("dep-model", spec["model"], tuple(spec["stamp"])), lambda: DepModel.load(spec["model"]))
    sents = [DepSentence(list(c), [list(r) for r in rows], list(w), src, line, index)
             for c, rows, w, src, line, index in chunk]
    return [s.to_conll() for s in model.parse(sents)]


def _parse_on_dask(args, sents, client, state) -> tuple[str, object]:
    """``(text, run)``: the serial run's output text, from :func:`parse_task` on chunks of
    ``--chunk-size`` sentences (finished chunks kept in ``state``)."""
    import os

    from ..dist.cli import run_corpus_chunks
    from ..dist.chunks import cut

    model = os.path.abspath(args.model)
    items = [[s.comments, s.rows, s.words, s.source, s.line, s.index] for s in sents]
    run = run_corpus_chunks("dep parse", client, parse_task, {"model": model, "stamp": _model_stamp(model)},
                            cut(items, args.chunk_size), state, args, desc="dep parse", unit="sentence")
    return "".join(text for part in run.results for text in part), run


def cmd_parse(args) -> int:
    """Parse ``IN`` into ``--out`` (or stdout).  A model or input that cannot be read, or
    an input without one readable sentence, is an error that leaves ``--out`` as it was.

    With ``--dask`` the input is read (and its bad sentences skipped and listed) here as
    in the serial run, the sentences go out in chunks of ``--chunk-size``
    (:func:`parse_task`; each worker loads the model once) and the parses come back in
    input order: the output is byte-identical to the serial run's.  With ``--out``,
    finished chunks are kept in ``OUT.chunks/`` until the output is written
    (``--resume`` continues a killed run)."""
    from ..dist.cli import dask_state_dir
    from .conll import format_conll, write_conll
    from .model import DepModel

    state = dask_state_dir(args, args.out)      # --resume checks, before any work
    if args.out:
        from ..files.atomic import check_writable

        check_writable(args.out)
    model = DepModel.load(args.model)
    sents = _read(args.input, args, gold=False, label="input file")
    if args.dask is not None:
        from ..dist.cli import client_for, dask_summary, write_output

        del model                       # the workers load their own
        start = time.perf_counter()
        with client_for(args) as client:
            text, run = _parse_on_dask(args, sents, client, state)
        dt = time.perf_counter() - start
        write_output(args.out, text, state)
        dask_summary("dep parse", run)
        print(f"plgraph dep parse: {len(sents)} sentences in {dt:.2f} s ({len(sents) / max(dt, 1e-9):.0f} "
              f"sentences/s)", file=sys.stderr)
        return 0
    if args.threads:
        import numba

        numba.set_num_threads(max(1, min(args.threads, numba.config.NUMBA_NUM_THREADS)))
    start = time.perf_counter()
    parsed = model.parse(sents)
    dt = time.perf_counter() - start
    if args.out:
        write_conll(parsed, args.out)
    else:
        sys.stdout.write(format_conll(parsed))
    print(f"plgraph dep parse: {len(parsed)} sentences in {dt:.2f} s ({len(parsed) / max(dt, 1e-9):.0f} sentences/s)",
          file=sys.stderr)
    return 0


def cmd_eval(args) -> int:
    from .conll import read_conll
    from .evaluate import evaluate

    gold = read_conll(args.gold, encoding=args.encoding)
    pred = read_conll(args.pred, encoding=args.encoding, check_tree=False)
    scores = evaluate(gold, pred, pred_source=args.pred)
    if args.json:
        print(json.dumps(scores.as_dict()))
    else:
        print(scores)
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("dep", help="labelled dependency parsing: train, parse, eval",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="dep_command", required=True)

    def common(q):
        q.add_argument("--encoding", default="auto", choices=["auto", "utf-8"],
                       help="auto: UTF-8 with a Latin-1 fallback per line (default); utf-8: strict")

    t = sub.add_parser("train", help="train a parser (defaults: the best settings found)")
    t.add_argument("--train", required=True, metavar="T", help="training trees (CoNLL-U or CoNLL-X)")
    t.add_argument("--dev", metavar="D", help="dev trees: scored after every epoch, the best epoch is kept")
    t.add_argument("--holdout", type=fraction, metavar="F",
                   help="use the last fraction F of the training file as the dev set (instead of --dev)")
    t.add_argument("--model", required=True, metavar="M", help="model folder (created)")
    t.add_argument("--order", type=int, default=None, choices=[1, 2], help="1: arcs (default); 2: arcs + siblings")
    t.add_argument("--epochs", type=positive_int, default=None,
                   help="passes over the training data (default 8; with --resume: the total)")
    t.add_argument("--learner", default=None, choices=["adagrad", "pa", "perceptron"],
                   help="default: pa (averaged passive-aggressive)")
    t.add_argument("--eta", type=finite_float, help="AdaGrad learning rate")
    t.add_argument("--C", type=finite_float, help="AdaGrad regularisation constant / PA aggressiveness cap")
    t.add_argument("--reg", choices=["l1", "l2", "none"], help="AdaGrad regulariser")
    t.add_argument("--no-average", action="store_true", help="PA/perceptron: use the last weights, not the average")
    t.add_argument("--average", action="store_true", help="AdaGrad: average the iterates (our extension)")
    t.add_argument("--batch-size", type=positive_int, default=None, help="sentences per update (default 8)")
    t.add_argument("--no-prune", action="store_true",
                   help="keep every non-zero feature (default: prune as far as dev LAS stays within 0.1)")
    t.add_argument("--threads", type=positive_int, default=2, help="numba threads decoding a batch (default 2)")
    t.add_argument("--root", default=None, choices=["auto", "single", "multi"],
                   help="ROOT children: auto (default) = multi when a training tree has several")
    t.add_argument("--pseudo-projective", default=None, choices=["head", "none"],
                   help="lift non-projective training arcs with Nivre & Nilsson's Head encoding (default head)")
    t.add_argument("--label-constraint", default=None, choices=["pos", "root", "none"],
                   help="candidate labels per arc: seen with the POS pair (default), by ROOT/word head, all")
    t.add_argument("--seed", type=int, default=None, help="shuffling seed (default 0)")
    t.add_argument("--resume", action="store_true",
                   help="continue from the model folder's last checkpoint, with its options (other options "
                        "given are refused)")
    t.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None)
    add_dask_options(t, chunks=None)
    common(t)
    t.set_defaults(func=cmd_train)

    q = sub.add_parser("parse", help="parse a CoNLL-U/CoNLL-X file (HEAD and DEPREL are replaced)")
    q.add_argument("input", metavar="IN", help="input file (words; HEAD/DEPREL may be _)")
    q.add_argument("--model", required=True, metavar="M")
    q.add_argument("--out", metavar="PATH", help="output file (default: standard output)")
    q.add_argument("--threads", type=positive_int, default=None,
                   help="numba threads (default: all; a --dask worker uses one)")
    q.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar of a --dask run (default: on a terminal)")
    add_dask_options(q, chunks="sentences", chunk_default=64)
    add_resume_option(q)
    common(q)
    q.set_defaults(func=cmd_parse)

    e = sub.add_parser("eval", help="UAS/LAS of PRED against GOLD (CoNLL 2018 conventions)")
    e.add_argument("gold", metavar="GOLD")
    e.add_argument("pred", metavar="PRED")
    e.add_argument("--json", action="store_true",
                   help='print {"uas", "las", "uas_nopunct", "las_nopunct", "sentences"} in percent')
    common(e)
    e.set_defaults(func=cmd_eval)
