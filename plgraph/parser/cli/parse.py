"""``python -m plgraph parse`` and ``python -m plgraph parser evaluate|tagger``.

::

    python -m plgraph parse [--model-dir M] IN [IN ...] [--in auto|ptb|tagged|text|raw|doc] [--wrapped]
                            [--out PATH] [--to ptb|shp|json|conllu]
                            [--gold-tags|--predicted-tags] [--jobs N] [--max-words N] [--root TOP|ROOT]
    python -m plgraph parser evaluate [--model-dir M] --split dev|test [--gold-tags|--predicted-tags]
                                      [--json PATH] [--jobs N] [--limit K]
    python -m plgraph parser tagger --model-dir M      # (re)train the folder's POS tagger

Without ``--model-dir`` both use plgraph's released model (:mod:`plgraph.release`).
``parse`` reads sentences from one or more files (:mod:`plgraph.parser.parsing.inputs`), parses them
(:class:`~plgraph.parser.parsing.parser.Parser`) and writes one PTB tree a line (null elements and
co-indices; root ``TOP`` by default, which EVALB's COLLINS.prm deletes), SHP blocks, JSON
Lines (tokens, tags, tree, trace records, graph) or CoNLL-U (:mod:`plgraph.parser.parsing.output`).
``--in raw`` reads untokenised text, a sentence a line, ``--in doc`` running text whose
sentences plgraph finds (:mod:`plgraph.parser.parsing.inputs`); the default ``auto`` reads
bracketed trees as ``ptb`` and anything else as ``raw``, and says which it chose.  Tags
come from the input (``--in ptb|tagged``) unless ``--predicted-tags``; ``--in text|raw|doc``
is tagged by the scorer when it predicts tags, else by the model folder's POS tagger.  The
input is read as a stream while it is parsed, a line (``ptb``: a tree) of at most
``--max-line-bytes`` at a time.

Output record N is input sentence N, always: a sentence the parser cannot parse gets
the reference's fallback parse, and a sentence the reader cannot read a placeholder --
the empty tree ``()`` on its line (EVALB skips it and stays aligned), or in SHP a block
of comments only (:mod:`plgraph.parser.parsing.output`).
Every graph written is checked and, where a fallback step built it inconsistent, made
valid first (:mod:`plgraph.convert.validity`): every edge names a node of its spines,
every co-index has its null element.  The summary on standard error counts the
statuses, the placeholders and the repairs, and names every sentence concerned.  Ctrl-C
writes the sentences parsed so far to ``PATH.partial`` (with ``--out``) and stops with
exit status 130.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter, deque

from ...cliargs import finite_float, positive_int, progress_of
from ...dist.cli import (add_dask_options, add_resume_option, client_for, dask_state_dir, dask_summary,
                        run_corpus_chunks, write_output)
from ..parsing.output import render, tree_text


def _report(results, seconds: float, prog: str, unknown=None) -> None:
    """The run's summary on standard error: counts by status, of the unreadable
    sentences skipped (placeholders in the output) and of the output check's repairs;
    every sentence not parsed by pass 3, every repaired and every skipped one with
    where it is, and the tags the model does not know (``unknown``: ``{tag: tokens}``).
    ``results``: the run's records in input order, parse results and
    :class:`~plgraph.parser.parsing.inputs.Skipped` ones."""
    from ..analysis.evaluate import output_check, status_counts
    from ..parsing.inputs import Skipped

    skipped = [r for r in results if isinstance(r, Skipped)]
    parsed = [r for r in results if not isinstance(r, Skipped)]
    n = len(parsed)
    counts = status_counts(parsed)
    placeholders = sum(r.sentence for r in skipped)
    repaired = [r for r in parsed if r.repairs]
    print(f"{prog}: {n} sentences in {seconds:.1f} s ({n / max(seconds, 1e-9):.2f} sentences/s); "
          + ", ".join(f"{k} {v}" for k, v in counts.items())
          + (f"; skipped {placeholders} unreadable (a placeholder each in the output)" if placeholders else "")
          + "; " + output_check(len(repaired), sum(len(r.repairs) for r in repaired),
                                sum(bool(r.problems) for r in parsed)),
          file=sys.stderr)
    if unknown:
        print(f"{prog}: warning: {sum(unknown.values())} tokens have tags the model never saw in training, "
              "parsed as unknown tags: " + ", ".join(f"{t} ({k})" for t, k in unknown.items()), file=sys.stderr)
    for r in parsed:
        if r.failed:
            print(f"{prog}: fallback parse for {r.id}: {r.reason}", file=sys.stderr)
        elif r.status in ("pass2", "pass1"):
            print(f"{prog}: {r.id} not parsed by pass 3, {r.status}'s output kept: {r.reason}", file=sys.stderr)
        for repair in r.repairs:
            print(f"{prog}: repaired {r.id}: {repair}", file=sys.stderr)
        for problem in r.problems:
            print(f"{prog}: invalid output for {r.id} (a bug of plgraph's): {problem}", file=sys.stderr)
    for r in skipped:
        what = "skipped unreadable sentence" if r.sentence else "skipped text outside any tree at"
        print(f"{prog}: {what} {r.where}: {r.reason}", file=sys.stderr)


def _records(args, parser=None, prog: str = "plgraph parse"):
    """The records of every input file in order (:func:`~plgraph.parser.parsing.inputs.iter_input`,
    each file opened now, read as the parse goes on).  With ``--in auto`` the format
    chosen for each file is said on standard error, and checked against the options
    (``--gold-tags`` needs tags, untagged input a tagger) before its first sentence."""
    from itertools import chain

    from ..parsing.inputs import UNTAGGED, iter_input

    def chosen(path, fmt):
        what = {"ptb": "bracketed trees (--in ptb)",
                "raw": "raw text, one sentence a line (--in raw; --in doc for running text, --in text for "
                       "tokenised lines)"}[fmt]
        print(f"{prog}: reading {'standard input' if path == '-' else path} as {what}", file=sys.stderr)
        if fmt in UNTAGGED:
            _check_untagged(args, parser)

    return chain.from_iterable([iter_input(path, args.input_format, max_bytes=args.max_line_bytes,
                                           wrapped=args.wrapped, on_format=chosen)
                                for path in args.input])


def _check_untagged(args, parser) -> None:
    """InputError for ``--gold-tags`` on input without tags; the parser's tagger required."""
    from ...errors import InputError

    if args.gold_tags:
        raise InputError("--gold-tags needs tagged input (--in ptb or --in tagged)")
    if parser is not None:
        parser.require_tagger()


def cmd_parse(args) -> int:
    """Parse ``IN`` (module docstring).  The model is loaded, the inputs opened and the
    output checked writable before the first sentence is read; the input is read as a
    stream while the sentences are parsed, and every input sentence has its output
    record, a placeholder for one that cannot be read (:func:`~plgraph.parser.parsing.output.render_skipped`)."""
    from ...files.atomic import atomic_text, check_writable
    from ...errors import InputError, OutputError
    from ...signals import check_interrupt, deferred_interrupts
    from ..parsing.inputs import Skipped
    from ..parsing.jobs import Reported
    from ..parsing.output import render_skipped

    prog = "plgraph parse"
    released = use_released_model(args)
    state = dask_state_dir(args, args.out)          # --resume checks, before any work
    if args.out:
        check_writable(args.out)
    elif getattr(sys.stdout, "closed_at_start", False):
        raise OutputError("standard output is closed: give --out PATH")
    from ..parsing.inputs import UNTAGGED

    if args.input_format in UNTAGGED:
        _check_untagged(args, None)
    if args.wrapped and args.input_format != "doc":
        raise InputError("--wrapped is for running text (--in doc)")
    scorer = scorers_of(args)[0]
    if released:
        print(f"{prog}: the released model's {scorer} scorer ({args.model_dir}; --model-dir M for another, "
              f"--scorer to choose)", file=sys.stderr)
    parser = _load_parser(args, scorer)
    if args.input_format in UNTAGGED or args.predicted_tags:
        parser.require_tagger()         # before anything is read
    records = _records(args, parser, prog)
    if args.dask is not None:
        return _parse_on_dask(args, parser, list(records), prog, state)
    results, chunks, tags = [], [], Counter()
    texts = deque()             # raw input's sentence texts, in order, while their sentences are parsed
    start = time.perf_counter()

    def items():
        for record in records:
            if isinstance(record, Skipped):
                yield record
                continue
            words, given, sid = record
            given = None if args.predicted_tags else given
            tags.update(given or ())
            texts.append(getattr(record, "text", None))
            yield words, given, sid

    try:
        with deferred_interrupts():     # Ctrl-C stops between sentences, never inside a kernel
            for r in parser.parse_many(items(), jobs=args.jobs, progress=progress_of(args)):
                results.append(r if isinstance(r, Skipped) else Reported.of(r))   # the graphs let go
                chunks.append(render_skipped(r, args.to) if isinstance(r, Skipped)
                              else render(r, args.to, args.root, texts.popleft()))
                if not args.out:
                    sys.stdout.write(chunks[-1])
                check_interrupt()
    except (KeyboardInterrupt, InputError) as err:      # Ctrl-C, or an input line too long to be a sentence
        if args.out and chunks:
            atomic_text(args.out + ".partial", "".join(chunks))
            print(f"{prog}: {'interrupted' if isinstance(err, KeyboardInterrupt) else 'stopped'}; the first "
                  f"{len(chunks)} sentences are in {args.out}.partial", file=sys.stderr)
        raise
    seconds = time.perf_counter() - start
    if all(isinstance(r, Skipped) for r in results):
        _report(results, 0.0, prog)
        raise InputError("no sentence could be read", source=", ".join(args.input))
    if args.out:
        atomic_text(args.out, "".join(chunks))
    _report(results, seconds, prog, {t: tags[t] for t in parser.unknown_tags(tags)})
    return 0


def _parse_on_dask(args, parser, records, prog, state) -> int:
    """``parse --dask``: chunks of sentences parsed on the cluster (:mod:`plgraph.parser.parsing.jobs`),
    the output assembled in input order -- byte for byte the serial run's, placeholders
    included -- and written atomically; finished chunks wait in ``OUT.chunks`` for
    ``--resume`` until then."""
    from ...errors import InputError
    from ..parsing.inputs import Skipped
    from ..parsing.jobs import Reported, parse_chunk, parse_spec, sentence_chunks
    from ..parsing.output import render_skipped

    items = [(w, None if args.predicted_tags else t, sid) for w, t, sid in
             (r for r in records if not isinstance(r, Skipped))]
    if not items:
        _report(records, 0.0, prog)
        raise InputError("no sentence could be read", source=", ".join(args.input))
    parser.check_tags(items)
    spec = {**parse_spec(args.model_dir, args.max_words, decode_overrides(args)), "to": args.to, "root": args.root}
    with client_for(args) as client:
        run = run_corpus_chunks("parse", client, parse_chunk, spec, sentence_chunks(items, args.chunk_size), state,
                                args, desc="parsing", unit="sentence")
    parsed = iter(r for part in run.results for r in part)
    out, texts = [], []
    for record in records:
        if isinstance(record, Skipped):
            out.append(record)
            texts.append(render_skipped(record, args.to))
            continue
        r = next(parsed)
        out.append(Reported(r["id"], r["status"], r["reason"], r.get("repairs", []), r.get("problems", [])))
        texts.append(r["text"])
    write_output(args.out, "".join(texts), state)
    dask_summary("parse", run)
    tags = Counter(t for _, given, _ in items if given is not None for t in given)
    _report(out, run.seconds, prog, {t: tags[t] for t in parser.unknown_tags(tags)})
    return 0


def cmd_evaluate(args) -> int:
    """Parse a split and score it (:func:`plgraph.parser.analysis.evaluate.evaluate_split`)."""
    from ...files.atomic import atomic_json, check_writable
    from ..analysis.evaluate import construction_report, evaluate_split, format_evaluation
    from ..training.pipeline import read_split

    use_released_model(args)
    state = dask_state_dir(args, args.json or args.trees, "--json")        # --resume checks, before any work
    for path in (args.json, args.trees):
        if path:
            check_writable(path)
    scorers = scorers_of(args)
    parsers = {name: _load_parser(args, name) for name in scorers}      # every model checked before any work
    sentences, unreadable = read_split(args.split, args.ptb, progress_of(args), prog="plgraph parser evaluate")
    if args.limit:
        sentences = sentences[:args.limit]
    docs, first_results, parse_items, train = {}, None, None, None
    for name, parser in parsers.items():
        with client_for(args if name == "linear" else _no_dask(args)) as client:
            parse_items = None if client is None else _EvaluateOnDask(args, client, state)
            doc, results = evaluate_split(parser, sentences, predicted_tags=args.predicted_tags, jobs=args.jobs,
                                          ceiling=not args.no_ceiling and not docs, progress=progress_of(args),
                                          parse_items=parse_items)
        doc.update({"model_dir": os.path.abspath(args.model_dir), "split": args.split, "unreadable": unreadable,
                    "scorer": name})
        if args.by_construction:
            if train is None:
                train, _ = read_split("train", args.ptb, progress_of(args), prog="plgraph parser evaluate")
            doc["by_construction"] = construction_report(sentences, results, train)
        if client is not None:
            doc["dask_workers"] = parse_items.workers
        docs[name] = doc
        first_results = results if first_results is None else first_results
    doc = docs[scorers[0]]
    if len(docs) > 1:
        doc = dict(doc, **{name: d for name, d in docs.items() if name != scorers[0]})
    if args.json:
        atomic_json(args.json, doc)
    if args.trees:
        from ...files.atomic import atomic_text

        atomic_text(args.trees, "".join(tree_text(r, "TOP") + "\n" for r in first_results))
    if parse_items is not None:
        from ...dist.chunks import remove_state

        remove_state(state)         # only now: the results are written
    for name, d in docs.items():
        title = f" ({name} scorer)" if len(docs) > 1 else ""
        sys.stdout.write(f"split {args.split}{title}: " + format_evaluation(d))
    return 0


def _no_dask(args):
    """``args`` without ``--dask`` (the neural scorer parses in this process)."""
    return argparse.Namespace(**dict(vars(args), dask=None))


class _EvaluateOnDask:
    """``parse_items`` of :func:`~plgraph.parser.analysis.evaluate.evaluate_split` under ``--dask``:
    chunks parsed on the cluster, kept beside ``--json`` (else ``--trees``) for
    ``--resume``, the results rebuilt in input order."""

    def __init__(self, args, client, state):
        self.args, self.client, self.state, self.workers = args, client, state, 0

    def __call__(self, items):
        from ..parsing.jobs import evaluate_chunk, parse_spec, result_from_record, sentence_chunks

        args = self.args
        run = run_corpus_chunks("parser evaluate", self.client, evaluate_chunk,
                                parse_spec(args.model_dir, args.max_words, decode_overrides(args)),
                                sentence_chunks(items, args.chunk_size),
                                self.state, args, desc="parsing", unit="sentence")
        dask_summary("parser evaluate", run)
        self.workers = run.workers
        return [result_from_record(r) for part in run.results for r in part]


def cmd_tagger(args) -> int:
    """(Re)train the model folder's POS tagger on the train split (``--limit``: as the
    folder was trained).  Every other file of the model is checked first
    (:meth:`~plgraph.parser.model.ParserModel.load`); ``tagger.json`` is replaced, so a
    damaged one does not stop it."""
    from ... import corpus
    from ...files.lock import folder_lock
    from ..training.pipeline import train_tagger
    from ..model import ParserModel

    folder = ParserModel.load(args.model_dir, tagger=False).folder
    with folder_lock(args.model_dir, "parser model folder"):
        graphs = [s.graph for s in corpus("train", args.ptb, progress=progress_of(args))]
        limit = folder.header.get("limit")
        if limit:
            graphs = [g for g in graphs if len(g) <= folder.max_words][:limit]
        train_tagger(args.model_dir, graphs)
        dev = [(s.graph.words, s.graph.tags) for s in corpus("dev", args.ptb)]
    from ..parsing.tagger import FILE, PosTagger

    acc = PosTagger.load(os.path.join(args.model_dir, FILE)).accuracy(dev)
    print(f"POS tagger dev accuracy {acc:.2f}%")
    return 0


def _decode_options(p) -> None:
    p.add_argument("--trace-bias", type=finite_float, default=None, metavar="B",
                   help="the trace threshold, added to every trace edge's score (pass 3's, or the neural "
                        "scorer's; default: the model's; a finite number: -1e9 keeps no trace)")
    p.add_argument("--trace-prob", type=finite_float, default=None, metavar="P",
                   help="pass 3 considers a trace only if the trace classifier gave it at least this "
                        "probability (default: the model's; 0 = as the reference)")


def decode_overrides(args) -> dict:
    """Pass 3's decode settings given on the command line (``--trace-bias``, ``--trace-prob``;
    InputError naming the option for a probability outside [0, 1])."""
    from ..scoring.pass3 import check_trace_prob

    given = {"trace_bias": getattr(args, "trace_bias", None), "trace_prob": getattr(args, "trace_prob", None)}
    over = {k: float(v) for k, v in given.items() if v is not None}
    if "trace_prob" in over:
        check_trace_prob(over["trace_prob"], "--trace-prob")
    return over


def use_released_model(args) -> bool:
    """Without ``--model-dir``, the released model (:func:`plgraph.models.default_model_dir`)
    into ``args.model_dir``; True if so."""
    if args.model_dir is not None:
        return False
    from ...models import default_model_dir

    args.model_dir = default_model_dir()
    return True


def scorers_of(args) -> list[str]:
    """The scorers ``--scorer`` asks for in ``--model-dir`` M (``linear``: M's passes,
    ``neural``: ``M/neural``, :func:`plgraph.parser.scoring.neural.folder.neural_dir`); without
    ``--scorer``: :func:`~plgraph.parser.scoring.registry.default_scorer` (the neural one
    when M holds it and PyTorch is installed), but ``linear`` under ``--dask`` when M
    holds it (Dask workers parse with the linear scorer); both for ``parser evaluate``
    (``both=True`` on its arguments) when M holds both."""
    from ..scoring.registry import default_scorer, scorers_in

    if getattr(args, "scorer", None):
        return [args.scorer]
    held = scorers_in(args.model_dir)
    if len(held) == 2 and getattr(args, "both", False):
        return list(held)
    if "linear" in held and getattr(args, "dask", None) is not None:
        return ["linear"]
    return [default_scorer(args.model_dir)]


def _load_parser(args, scorer: str = "linear"):
    """The model folder's :class:`~plgraph.parser.parsing.parser.Parser` with scorer
    ``scorer`` (the neural one's folder is ``M/neural``) and the decode settings of the command line (checked before the model is read).  Ctrl-C
    while it loads is held until it is loaded (a ``KeyboardInterrupt`` inside a compiled
    kernel or a destructor would come out as a ``SystemError`` or be lost)."""
    from ...signals import deferred_interrupts
    from ..parsing.parser import Parser

    over = decode_overrides(args)
    if scorer == "neural":
        from ...errors import InputError

        if "trace_prob" in over:
            raise InputError("--trace-prob: an option of the linear scorer's pass 3 (the neural scorer keeps "
                             "traces by its own probabilities)")
        if getattr(args, "dask", None) and (args.scorer == "neural" or not getattr(args, "both", False)):
            raise InputError("--dask: parsing on Dask workers is for the linear scorer; the neural one parses "
                             "here, --jobs threads")
    with deferred_interrupts():
        parser = Parser.load(args.model_dir, scorer=scorer, max_words=args.max_words)
    return parser.with_options(**over) if over else parser


def _scorer_option(p, evaluate: bool = False) -> None:
    both = " (default: both when M holds both, the one there is otherwise)" if evaluate else \
        " (default: neural when M holds a neural model and PyTorch is installed, else linear)"
    p.add_argument("--scorer", choices=["linear", "neural"], default=None,
                   help="the model of M to use: linear (M's passes 2-3) or neural (M/neural)" + both)
    if evaluate:
        p.set_defaults(both=True)


def _tag_options(p) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--gold-tags", action="store_true",
                   help="use the input's tags (the default for --in ptb|tagged, and for evaluate)")
    g.add_argument("--predicted-tags", action="store_true",
                   help="tag with the model folder's POS tagger (NLTK's averaged perceptron, trained on train)")


def register(sub) -> None:
    """The top-level ``parse`` command."""
    from ..parsing.inputs import FORMATS, MAX_RECORD_BYTES
    from ..parsing.output import OUTPUT_FORMATS
    from ..parsing.parser import DEFAULT_MAX_WORDS

    p = sub.add_parser("parse", help="parse sentences with a trained graph parser into PTB trees with traces, or SHP",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", metavar="IN", nargs="+", help="input files, parsed in order (- for standard input)")
    p.add_argument("--model-dir", default=None, metavar="M",
                   help="a folder of `python -m plgraph parser train` (default: plgraph's released model)")
    p.add_argument("--in", dest="input_format", default="auto", choices=FORMATS,
                   help="auto (default): ptb when the input begins with '(', else raw, and says which; ptb: "
                        "bracketed trees; tagged: word_TAG tokens a line; text: tokens a line; raw: untokenised "
                        "text, a sentence a line; doc: running text, sentences found by plgraph (each line a "
                        "paragraph unless --wrapped). An input sentence that cannot be read keeps its place in "
                        "the output: the placeholder () (shp: a block of comments only; json: status "
                        "unreadable; conllu: one empty token)")
    p.add_argument("--wrapped", action="store_true",
                   help="--in doc: the text is hard-wrapped; a line break is a space, blank lines end paragraphs")
    p.add_argument("--max-line-bytes", type=positive_int, default=MAX_RECORD_BYTES, metavar="N",
                   help=f"the longest line (--in ptb: tree) read, in bytes; a longer one stops the run with an error "
                        f"(default {MAX_RECORD_BYTES})")
    p.add_argument("--out", metavar="PATH", help="output file (default: standard output)")
    p.add_argument("--to", default="ptb", choices=OUTPUT_FORMATS,
                   help="ptb: a tree a line (default); shp: SHP blocks; json: a JSON object a line (tokens, tags, "
                        "tree, traces, graph); conllu: CoNLL-U with plgraph's graph labels, trace edges in DEPS")
    p.add_argument("--root", default="TOP", choices=["TOP", "ROOT"],
                   help="root label of output trees (default TOP, deleted by EVALB's COLLINS.prm)")
    _tag_options(p)
    _decode_options(p)
    _scorer_option(p)
    p.add_argument("--jobs", type=positive_int, default=1, metavar="N", help="parse on N cores (threads; default 1)")
    p.add_argument("--max-words", type=positive_int, default=DEFAULT_MAX_WORDS, metavar="N",
                   help=f"longer sentences get the fallback parse (default {DEFAULT_MAX_WORDS})")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None)
    add_dask_options(p)
    add_resume_option(p)
    p.set_defaults(func=cmd_parse)


def add_parser_commands(ps) -> None:
    """``parser evaluate`` and ``parser tagger`` (``ps``: the ``parser`` sub-parsers)."""
    from ..parsing.parser import DEFAULT_MAX_WORDS

    e = ps.add_parser("evaluate", help="parse a split and score it: evalb, Johnson, trace edges, beside the seed")
    e.add_argument("--model-dir", default=None, metavar="M", help="the model folder (default: the released model)")
    e.add_argument("--split", default="dev", choices=["dev", "test"])
    e.add_argument("--ptb", metavar="DIR", help="full LDC treebank (dev 22, test 23)")
    _tag_options(e)
    _decode_options(e)
    _scorer_option(e, evaluate=True)
    e.add_argument("--json", metavar="PATH", help="also write every figure as JSON")
    e.add_argument("--trees", metavar="PATH", help="also write the parsed trees (TOP root), one a line")
    e.add_argument("--jobs", type=positive_int, default=1, metavar="N", help="parse on N cores (default 1)")
    e.add_argument("--limit", type=positive_int, default=None, metavar="K", help="only the first K sentences")
    e.add_argument("--max-words", type=positive_int, default=DEFAULT_MAX_WORDS, metavar="N",
                   help=f"longer sentences get the fallback parse (default {DEFAULT_MAX_WORDS})")
    e.add_argument("--no-ceiling", action="store_true", help="skip the representation's ceiling")
    e.add_argument("--by-construction", dest="by_construction", action="store_true",
                   help="also score the traces by construction (wh-questions, relative clauses, passives, raising/"
                        "control, *U*, *EXP*, *ICH*, *RNR*, gapping...), with their counts in the train split")
    e.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None)
    add_dask_options(e)
    add_resume_option(e, "--json")
    e.set_defaults(func=cmd_evaluate)
    t = ps.add_parser("tagger", help="(re)train the model folder's POS tagger on the train split")
    t.add_argument("--model-dir", required=True, metavar="M")
    t.add_argument("--ptb", metavar="DIR")
    t.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None)
    t.set_defaults(func=cmd_tagger)


__all__ = ["register", "add_parser_commands", "cmd_parse", "cmd_evaluate", "cmd_tagger", "scorers_of",
           "use_released_model"]
