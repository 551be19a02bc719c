"""``plgraph parse`` under hostile but fair input: bounded time on huge tokens, undecodable
bytes, null-element and unknown tags, brackets, odd line separators, byte order marks,
non-finite settings, signals, closed pipes and full disks.  Every input is made here; the
model is the shared quick one (:func:`plgraph.parser.notebook_model.notebook_parser`)."""
from __future__ import annotations

import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plgraph.cli import main
from plgraph.parser.parsing.output import PLACEHOLDER
from plgraph.ptb.reader import read_ptb_string

pytestmark = pytest.mark.timeout(600)

#: the treebank's forms of bracket words (the expectation, written out independently)
BRACKET_WORDS = {"(": "-LRB-", ")": "-RRB-", "{": "-LCB-", "}": "-RCB-"}


@pytest.fixture(scope="module")
def model(sample_dir):
    from plgraph.parser.notebook_model import notebook_parser

    return str(notebook_parser(quick=True, log=None))


def _parse(model, tmp_path, content: bytes | str, fmt: str, *extra, out: bool = True, name: str = "in.txt"):
    """Run ``plgraph parse`` in-process on ``content``; ``(rc, trees, stderr)`` where
    ``trees`` are the output lines (from ``--out``, or standard output)."""
    src = tmp_path / name
    src.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    argv = ["parse", "--model-dir", model, "--in", fmt, str(src), "--no-progress", *extra]
    dst = tmp_path / (name + ".out")
    if out:
        argv += ["--out", str(dst)]
    return argv, dst


def run_parse(capsys, model, tmp_path, content, fmt, *extra, out=True, name="in.txt"):
    argv, dst = _parse(model, tmp_path, content, fmt, *extra, out=out, name=name)
    dst.unlink(missing_ok=True)
    rc = main(argv)
    cap = capsys.readouterr()
    text = dst.read_text(encoding="utf-8") if out and dst.exists() else cap.out
    return rc, text.splitlines(), cap.err


def _words(line: str) -> list[str]:
    (tree,) = read_ptb_string(line)
    return tree.tree.words()


def _sentences(trees: list[str]) -> list:
    """The words of each output line, None for the placeholder of a skipped sentence."""
    return [None if t == PLACEHOLDER else _words(t) for t in trees]


def _tags(line: str) -> list[str]:
    (tree,) = read_ptb_string(line, clean=False)
    return [p.label for p in tree.tree.preterminals() if not p.is_null_leaf()]


# -- 1. huge tokens: bounded time ----------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["text", "tagged"])
def test_a_million_character_token_parses_in_bounded_time(model, tmp_path, capsys, fmt):
    big = "x" * 1_000_000
    line = f"The {big} sat ." if fmt == "text" else f"The_DT {big}_NN sat_VBD ._."
    short = line.replace(big, "x")
    assert run_parse(capsys, model, tmp_path, short + "\n", fmt)[0] == 0     # kernels compiled, not timed
    start = time.perf_counter()
    rc, trees, err = run_parse(capsys, model, tmp_path, line + "\n", fmt)
    assert time.perf_counter() - start < 60
    assert rc == 0 and len(trees) == 1
    assert _words(trees[0]) == ["The", big, "sat", "."]


def _normalise_unbounded(norm, word: str) -> str:
    """The normaliser's rule looking at every suffix (the reference's loop)."""
    from plgraph.pruners.data import shape

    w = shape(word)
    if w in norm.frequent:
        return w
    for k in range(1, len(w)):
        if w[k:] in norm.suffixes:
            return "_" + w[k:]
    return "_UNK"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abcdeginsty0A", max_size=14))
def test_the_word_normaliser_looks_only_as_far_as_its_longest_suffix(word):
    from plgraph.pruners.data import WordNormaliser

    norm = WordNormaliser(2, {"a", "the", "sing"}, {"s", "ing", "ed", "tion", "0", "aaaaa"})
    assert norm.longest == 5
    assert norm(word) == _normalise_unbounded(norm, word)
    assert norm(word + "x" * 5000 + "ing") == "_ing"


# -- 2. undecodable bytes -----------------------------------------------------------------------
@pytest.mark.parametrize("to_file", [True, False])
def test_bytes_that_are_not_utf8_skip_their_line_with_its_byte_offset(model, tmp_path, capsys, to_file):
    content = b"A dog ran .\nThe caf\xe9 sat .\nIt rained .\n"
    rc, trees, err = run_parse(capsys, model, tmp_path, content, "text", out=to_file)
    assert rc == 0
    assert _sentences(trees) == [["A", "dog", "ran", "."], None, ["It", "rained", "."]]
    assert "skipped unreadable sentence in.txt:2: bytes that are not UTF-8: 0xe9 at byte 19 of the file " \
           "(byte 8 of the line)" in err
    assert "skipped 1 unreadable" in err


def test_undecodable_bytes_in_a_ptb_input_skip_the_tree(model, tmp_path, capsys):
    content = b"( (S (NP (NN caf\xe9)) (VP (VBD sat))) )\n( (S (NP (NN dog)) (VP (VBD ran))) )\n"
    rc, trees, err = run_parse(capsys, model, tmp_path, content, "ptb", name="t.mrg")
    assert rc == 0 and _sentences(trees) == [None, ["dog", "ran"]]
    assert "bytes that are not UTF-8" in err and "0xe9" in err


# -- 3. a sentence that cannot be written never stops the run ---------------------------------------
def test_a_null_element_tag_skips_its_sentence_and_the_run_goes_on(model, tmp_path, capsys):
    content = "The_DT cat_NN sat_VBD\nx_-NONE- y_NN\nA_DT dog_NN ran_VBD\n"
    rc, trees, err = run_parse(capsys, model, tmp_path, content, "tagged")
    assert rc == 0
    assert _sentences(trees) == [["The", "cat", "sat"], None, ["A", "dog", "ran"]]
    assert ("skipped unreadable sentence in.txt:2: word 1: tag '-NONE-' marks a null element; "
            "input sentences hold overt words only") in err


def test_the_library_gives_a_fallback_for_a_sentence_whose_tags_cannot_be_written(model):
    from plgraph.parser.parsing.parser import Parser

    parser = Parser.load(model)
    results = list(parser.parse_many([(["x", "y"], ["-NONE-", "NN"], "a"), (["The", "cat"], ["DT", "NN"], "b")]))
    assert [r.id for r in results] == ["a", "b"]
    assert results[0].status == "fallback" and "marks a null element" in results[0].reason
    assert results[0].tags == ["XX", "XX"] and results[0].tree.words() == ["x", "y"]
    assert results[1].tree.words() == ["The", "cat"]


# -- 5. brackets read back ----------------------------------------------------------------------------
def test_bracket_words_are_written_as_the_treebank_writes_them(model, tmp_path, capsys):
    rc, trees, err = run_parse(capsys, model, tmp_path, "( a ) b { c } f(x)\n", "text")
    assert rc == 0 and len(trees) == 1
    assert _words(trees[0]) == ["-LRB-", "a", "-RRB-", "b", "-LCB-", "c", "-RCB-", "f-LRB-x-RRB-"]
    rc, trees, err = run_parse(capsys, model, tmp_path, "(_-LRB- a_DT )_-RRB-\n(_( b_NN )_)\nc_NN(\n", "tagged")
    assert rc == 0
    assert _sentences(trees) == [["-LRB-", "a", "-RRB-"], ["-LRB-", "b", "-RRB-"], None]
    assert [_tags(t) for t in trees[:2]] == [["-LRB-", "DT", "-RRB-"], ["-LRB-", "NN", "-RRB-"]]
    assert "in.txt:3: word 1: tag 'NN(' contains a bracket or white space" in err
    # and the output is a file plgraph's own scorer reads
    out = tmp_path / "in.txt.out"
    assert main(["eval", "trees", str(out), str(out)]) == 0
    assert "100.00" in capsys.readouterr().out          # the placeholder line: a skipped sentence


def test_the_tree_writer_escapes_brackets_so_that_every_tree_reads_back():
    from plgraph.tree import Tree

    t = Tree("ROOT", [Tree("NP", [Tree("(", word="("), Tree("NN", word="f(x)"), Tree(")", word=")")])])
    assert t.to_string() == "(ROOT (NP (-LRB- -LRB-) (NN f-LRB-x-RRB-) (-RRB- -RRB-)))"
    (back,) = read_ptb_string(t.to_string())
    assert back.tree.words() == ["-LRB-", "f-LRB-x-RRB-", "-RRB-"]


# -- 6. only \n ends a line ---------------------------------------------------------------------
def test_only_newlines_end_a_sentence_and_line_numbers_stay_right(model, tmp_path, capsys):
    seps = ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
    for fmt, first, rest, bad in (("text", "The", "cat sat .", "a\x00b"), ("tagged", "The_DT", "cat_NN sat_VBD ._.",
                                                                        "bad token_NN")):
        lines = [f"{first}{sep}{rest}" for sep in seps] + [bad]
        content = "\r\n".join(lines[:4]) + "\r\n" + "\n".join(lines[4:]) + "\n"
        rc, trees, err = run_parse(capsys, model, tmp_path, content, fmt)
        assert rc == 0 and _sentences(trees) == [["The", "cat", "sat", "."]] * 8 + [None]
        assert re.findall(r"skipped unreadable sentence in\.txt:(\d+)", err) == ["9"]


# -- 7. non-finite settings ----------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
@pytest.mark.parametrize("command", [["parse", "x.txt"], ["parser", "evaluate"]])
def test_non_finite_trace_settings_are_refused(model, capsys, command, value):
    with pytest.raises(SystemExit) as exit_:
        main([*command, "--model-dir", model, f"--trace-bias={value}"])
    assert exit_.value.code == 2
    assert f"expected a finite number, got '{value}'" in capsys.readouterr().err


def test_a_non_finite_trace_bias_is_refused_by_the_library():
    from plgraph.errors import InputError
    from plgraph.parser.scoring.pass3 import Pass3Config

    with pytest.raises(InputError, match="trace_bias nan: expected a finite number"):
        Pass3Config(trace_bias=float("nan"))


# -- 8. tags outside the model's tag set -----------------------------------------------------------------
def test_unknown_tags_are_counted_and_misreadable_ones_skipped(model, tmp_path, capsys):
    content = ("a_XYZ b_nn c_NP d_TOP e_XYZ\n"
               "e_NN-1 f_NN\n"
               "g_NN=2\n"
               "h_-NONE-X\n"
               "i_NN|VB\n"
               "The_DT cat_NN\n")
    rc, trees, err = run_parse(capsys, model, tmp_path, content, "tagged")
    assert rc == 0
    assert trees[1:5] == [PLACEHOLDER] * 4
    assert [_tags(t) for t in trees[:1] + trees[5:]] == [["XYZ", "nn", "NP", "TOP", "XYZ"], ["DT", "NN"]]
    assert "warning: 5 tokens have tags the model never saw in training, parsed as unknown tags: " \
           "XYZ (2), nn (1), NP (1), TOP (1)" in err
    assert "in.txt:2: word 1: tag 'NN-1' would read back as a node with co-index 1" in err
    assert "in.txt:3: word 1: tag 'NN=2' would read back as a node with gapping index 2" in err
    assert "in.txt:4: word 1: tag '-NONE-X' marks a null element" in err
    assert "in.txt:5: word 1: tag 'NN|VB' would read back as 'NN'" in err
    assert "skipped 4 unreadable" in err


# -- 9. byte order marks --------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt,line", [("text", "The cat sat ."), ("tagged", "The_DT cat_NN sat_VBD ._.")])
def test_a_byte_order_mark_is_dropped(model, tmp_path, capsys, fmt, line):
    rc, trees, err = run_parse(capsys, model, tmp_path, b"\xef\xbb\xbf" + f"{line}\n\n{line}\n".encode(), fmt)
    assert rc == 0 and [_words(t) for t in trees] == [["The", "cat", "sat", "."]] * 2
    assert "skipped" not in err


def test_a_byte_order_mark_before_ptb_trees_is_dropped(model, tmp_path, capsys):
    content = b"\xef\xbb\xbf( (S (NP (DT The) (NN cat)) (VP (VBD sat))) )\n( (S (NP (NN Dogs)) (VP (VBD ran))) )\n"
    rc, trees, err = run_parse(capsys, model, tmp_path, content, "ptb", name="b.mrg")
    assert rc == 0 and [_words(t) for t in trees] == [["The", "cat", "sat"], ["Dogs", "ran"]]
    assert "skipped" not in err and "stray" not in err


# -- 14. signals, pipes, full disks, control characters ----------------------------------------------------
def test_control_characters_skip_their_sentence(model, tmp_path, capsys):
    rc, trees, err = run_parse(capsys, model, tmp_path, "a\x00b c\nd\x1be f\nThe cat\n", "text")
    assert rc == 0 and _sentences(trees) == [None, None, ["The", "cat"]]
    assert "in.txt:1: word 1 contains the control character U+0000" in err
    assert "in.txt:2: word 1 contains the control character U+001B" in err


def _default_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _spawn(args, *, flags=(), **kw):
    """``python FLAGS -m plgraph ARGS`` with SIGINT at its default, as a terminal's foreground
    job has it: a process inherits an ignored SIGINT (pytest-xdist's workers ignore it),
    and Python then leaves Ctrl-C ignored, as Unix tools do under ``nohup`` or ``&``."""
    return subprocess.Popen([sys.executable, *flags, "-m", "plgraph", *args], preexec_fn=_default_sigint, **kw)


_IMPORT_TIME = re.compile(r"^import time:.*\|\s*(\S+)\s*$")


def _wait_for_import(proc, module: str) -> str:
    """Read the ``-X importtime`` lines of ``proc``'s stderr until ``module``'s import has
    finished; returns what was read."""
    seen = []
    for line in proc.stderr:
        seen.append(line)
        m = _IMPORT_TIME.match(line)
        if m and m.group(1) == module:
            break
    return "".join(seen)


def test_sigterm_writes_the_partial_output_as_ctrl_c_does(model, tmp_path):
    src, out = tmp_path / "many.txt", tmp_path / "many.out"
    src.write_text("The cat sat on the mat .\nA dog ran .\n" * 3000, encoding="utf-8")
    proc = _spawn(["parse", "--model-dir", model, "--in", "text", str(src), "--out", str(out), "--progress"],
                  stderr=subprocess.PIPE, text=True)
    seen = ""
    while proc.poll() is None:
        seen += proc.stderr.read(1)
        m = re.findall(r"(\d+)sentence", seen)
        if m and int(m[-1]) >= 50:
            break
    proc.send_signal(signal.SIGTERM)
    err = seen + proc.stderr.read()
    assert proc.wait(60) == 143, err
    assert "plgraph parse: terminated" in err and "Traceback" not in err
    partial = Path(str(out) + ".partial").read_text(encoding="utf-8").splitlines()
    assert 0 < len(partial) < 6000 and not out.exists()
    assert _words(partial[0]) == ["The", "cat", "sat", "on", "the", "mat", "."]


@pytest.mark.parametrize("delay", [0.05, 0.15, 0.3, 0.5, 0.7, 0.9, 1.2, 1.6, 2.2])
def test_ctrl_c_at_start_up_or_while_parsing_prints_no_traceback(model, tmp_path, delay):
    """Start-up (imports, the model's loading) and parsing: Ctrl-C never lands inside a
    compiled kernel or a destructor (where it would be a SystemError or be lost).

    ``delay`` counts from the moment the interpreter has imported the ``plgraph`` package
    (seen through ``-X importtime``): a Ctrl-C while Python itself is still starting (its
    ``site`` imports, ``runpy`` finding the module) is answered by Python's own
    KeyboardInterrupt traceback before any plgraph code runs, and how long that start
    takes depends on the machine's load."""
    src = tmp_path / "s.txt"
    src.write_text("The cat sat on the mat .\n" * 400, encoding="utf-8")
    proc = _spawn(["parse", "--model-dir", model, "--in", "text", str(src)], flags=("-X", "importtime"),
                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _wait_for_import(proc, "plgraph")
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    err = "".join(line for line in proc.stderr if not _IMPORT_TIME.match(line))
    rc = proc.wait(60)
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert rc in (130, -signal.SIGINT), (rc, err)
    if rc == 130:
        assert err.strip().splitlines()[-1] in ("plgraph: interrupted", "plgraph parse: interrupted")


def test_a_closed_pipe_ends_the_run_quietly(model, tmp_path):
    src = tmp_path / "long.txt"
    src.write_text(("The " + "x" * 20000 + " sat .\n") * 40, encoding="utf-8")
    proc = _spawn(["parse", "--model-dir", model, "--in", "text", str(src)], stdout=subprocess.PIPE,
                  stderr=subprocess.PIPE)
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(120) == 141
    assert first.startswith(b"(TOP") and err == ""


def test_a_full_standard_output_is_named(model, tmp_path):
    src = tmp_path / "s.txt"
    src.write_text("The cat sat .\n" * 50, encoding="utf-8")
    with open("/dev/full", "w") as full:
        proc = _spawn(["parse", "--model-dir", model, "--in", "text", str(src)], stdout=full,
                      stderr=subprocess.PIPE, text=True)
        err = proc.stderr.read()
    assert proc.wait(60) == 2
    assert err.strip().splitlines()[-1] == \
        "plgraph parse: error: cannot write to standard output: No space left on device"


def test_the_seeds_evalb_figure_is_labelled_with_its_section():
    from plgraph.parser.analysis.evaluate import THESIS

    assert THESIS["evalb_f1"] == (88.26, "seed, evalb F1, WSJ 22")


# -- fuzz: the text and tagged readers through parse ----------------------------------------------------------
_chars = st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\ufeff")
_token = st.one_of(st.text(_chars, min_size=1, max_size=6), st.sampled_from(["(", ")", "{", "}", "f(x)", "x" * 3000]))
_line = st.lists(st.one_of(_token, st.sampled_from([" ", "\t", "\x0b", "\x85", "\u2028", "\x00", "\r"])),
                 max_size=6)


def _expected_word(token: str) -> str:
    return BRACKET_WORDS.get(token, token.replace("(", "-LRB-").replace(")", "-RRB-"))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(_line, min_size=1, max_size=5), fmt=st.sampled_from(["text", "tagged"]),
       seed=st.integers(0, 2**16))
def test_fuzz_one_tree_per_readable_line_with_every_word_back(model, tmp_path, capsys, lines, fmt, seed):
    """Random unicode (separators, control characters, brackets, long tokens) through
    ``parse``: plgraph's own error or counted skips only (any other exception fails the
    test), one output line per line that is not blank -- a tree with every overt word
    back in order, in the treebank's form, or the placeholder of a skipped one."""
    rng = random.Random(seed)
    tags = ["NN", "DT", "VBD", "XYZ", "NN-1", "-NONE-", "(", "TOP"]
    text_lines = []
    for parts in lines:
        line = "".join(parts)
        if fmt == "tagged":
            line = " ".join(f"{tok}_{rng.choice(tags)}" for tok in line.split()) or line
        text_lines.append(line)
    rc, trees, err = run_parse(capsys, model, tmp_path, "\n".join(text_lines) + "\n", fmt, name="f.txt")
    skipped = [int(k) for k in re.findall(r"skipped unreadable sentence f\.txt:(\d+):", err)]
    sentences = [(k, line) for k, line in enumerate(text_lines, start=1) if line.split()]
    if all(k in skipped for k, _ in sentences):
        assert rc == 2 and "no sentence could be read" in err
        return
    assert rc == 0, err
    assert len(trees) == len(sentences)
    assert (f"skipped {len(skipped)} unreadable" in err) == bool(skipped)
    for tree, (k, line) in zip(trees, sentences):
        if k in skipped:
            assert tree == PLACEHOLDER, (k, line)
            continue
        tokens = line.split() if fmt == "text" else [t.rpartition("_")[0] for t in line.split()]
        assert _words(tree) == [_expected_word(t) for t in tokens], (k, line)
