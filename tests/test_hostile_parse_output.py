"""What ``plgraph parse`` writes under hostile input: one output record per input
sentence (placeholders that EVALB and plgraph's readers stay aligned on), input read as
a stream with a bound on a line, closed standard streams, option values that start with
``-``, and a sentence too long for the chart.  Every input is made here; the model is the
shared quick one (:func:`plgraph.parser.notebook_model.notebook_parser`)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import tracemalloc

import pytest

from conftest import corpus_or_skip
from plgraph.cli import main
from plgraph.errors import InputError
from plgraph.parser.parsing.inputs import Skipped, iter_input, read_input

pytestmark = pytest.mark.timeout(600)

#: eight sentences; the fifth has a control character in a word
LINES = ["The_DT cat_NN sat_VBD ._.", "A_DT dog_NN barked_VBD ._.", "We_PRP left_VBD early_RB ._.",
         "It_PRP rained_VBD ._.", "The_DT bi\x07rd_NN sang_VBD ._.", "They_PRP won_VBD ._.",
         "She_PRP smiled_VBD ._.", "Prices_NNS fell_VBD ._."]


@pytest.fixture(scope="module")
def model(sample_dir):
    from plgraph.parser.notebook_model import notebook_parser

    return str(notebook_parser(quick=True, log=None))


def _run(model, tmp_path, capsys, content: str, *extra, fmt="tagged"):
    src = tmp_path / "in.txt"
    src.write_text(content, encoding="utf-8")
    out = tmp_path / "out.txt"
    rc = main(["parse", "--model-dir", model, "--in", fmt, str(src), "--out", str(out), "--no-progress", *extra])
    err = capsys.readouterr().err
    return rc, out.read_text(encoding="utf-8") if out.exists() else "", err


# -- one output record per input sentence ---------------------------------------------------------
def test_a_skipped_sentence_keeps_its_line_in_the_output(model, tmp_path, capsys):
    rc, out, err = _run(model, tmp_path, capsys, "\n".join(LINES) + "\n")
    lines = out.splitlines()
    assert rc == 0 and len(lines) == 8
    assert lines[4] == "()" and all(line.startswith("(TOP ") for k, line in enumerate(lines) if k != 4)
    assert "in.txt:5" in err and "a placeholder each in the output" in err
    assert ["Prices", "fell", "."] == [t.split("_")[0] for t in LINES[7].split()]
    assert "(NNS Prices)" in lines[7]


def test_skipped_trees_in_ptb_input_keep_their_place_and_stray_text_takes_none(model, tmp_path, capsys):
    text = ("( (S (NP (DT The) (NN cat)) (VP (VBD sat)) (. .)) )\n"
            "( (S (NP (DT A) (NN dog)) (VP (VBD ran) (. .)) )\n"       # unclosed: resumes at the next line
            "( (S (NP (PRP We)) (VP (VBD left)) (. .)) )\n"
            "stray words\n"
            "( (S (NP (PRP It)) (VP (VBD rained)) (. .)) )\n")
    rc, out, err = _run(model, tmp_path, capsys, text, fmt="ptb")
    lines = out.splitlines()
    assert rc == 0 and len(lines) == 4 and lines[1] == "()"
    assert "We" in lines[2] and "rained" in lines[3]
    assert "skipped unreadable sentence in.txt:2" in err and "skipped text outside any tree at in.txt:4" in err


def test_shp_output_keeps_a_comment_block_for_a_skipped_sentence(model, tmp_path, capsys):
    from plgraph.shp import read_shp_string

    rc, out, _ = _run(model, tmp_path, capsys, "\n".join(LINES[3:6]) + "\n", "--to", "shp")
    blocks = out.split("\n\n")
    assert rc == 0 and blocks[1] == "# SentID in.txt:2\n# plgraph-skipped word 2 contains the control character U+0007"
    graphs = read_shp_string(out, "out.shp")
    assert [g.id for g in graphs] == ["in.txt:1", "in.txt:3"]


@pytest.fixture(scope="module")
def c_evalb(tmp_path_factory):
    ref = corpus_or_skip("reference-evalb")
    if shutil.which("gcc") is None:
        pytest.skip("gcc not found: the C EVALB cannot be compiled (install gcc)")
    folder = tmp_path_factory.mktemp("evalb")
    subprocess.run(["gcc", "-O2", "-w", "-o", str(folder / "evalb"), str(ref / "evalb.c")], check=True,
                   capture_output=True)
    return folder / "evalb", ref / "COLLINS.prm"


def test_evalb_and_the_trace_scorer_stay_aligned_past_a_placeholder(model, tmp_path, capsys, c_evalb):
    """The gold file has all eight sentences; the C EVALB scores the placeholder's line as
    a skipped sentence and every other line against its own gold line (same length, the
    words matched), as do plgraph's evalb and trace scorer."""
    from plgraph.eval.evalb import evalb_files, read_prm
    from plgraph.eval.traces import read_trace_file

    rc, out, _ = _run(model, tmp_path, capsys, "\n".join(LINES) + "\n")
    test = tmp_path / "out.txt"
    gold = tmp_path / "gold.txt"
    gold.write_text("".join(f"(TOP (S {' '.join(f'({t} {w})' for w, t in (x.rsplit('_', 1) for x in line.split()))}))\n"
                            for line in LINES).replace("\x07", ""), encoding="utf-8")
    exe, prm = c_evalb
    report = subprocess.run([str(exe), "-p", str(prm), str(gold), str(test)], capture_output=True, text=True).stdout
    rows = [r.split() for r in report.splitlines() if r.strip()[:1].isdigit() and len(r.split()) == 12]
    assert [r[0] for r in rows] == [str(k) for k in range(1, 9)]
    assert [r[2] for r in rows] == ["0"] * 4 + ["2"] + ["0"] * 3        # status 2: skipped
    assert all(r[9] == r[10] for k, r in enumerate(rows) if k != 4)     # every tag right: each line its own
    assert "Number of Skip  sentence  =      1" in report and "Number of Error sentence  =      0" in report
    port = evalb_files(gold, test, read_prm(prm))
    assert port.report() == report
    read = read_trace_file(test)
    assert len(read) == 8 and read[4][1] is None and read[7][1].words() == ["Prices", "fell", "."]


def test_raw_text_keeps_evalb_aligned_past_an_unreadable_line(model, tmp_path, capsys, c_evalb):
    """Raw input (tokenised by plgraph): the unreadable third line leaves ``()``, and the C
    EVALB matches every other line with its own gold line, words and all."""
    raw = ["The cat didn't sit.", "A dog barked (twice).", "A bi\x07rd sang.", "Prices fell 5%."]
    gold_words = ["The cat did n't sit .", "A dog barked -LRB- twice -RRB- .", "A bird sang .", "Prices fell 5 % ."]
    rc, out, err = _run(model, tmp_path, capsys, "\n".join(raw) + "\n", fmt="raw")
    lines = out.splitlines()
    assert rc == 0 and len(lines) == 4 and lines[2] == "()" and "skipped unreadable sentence in.txt:3" in err
    gold = tmp_path / "gold.txt"
    tag = {".": "."}                # '.' deleted by COLLINS.prm, as in the parse
    gold.write_text("".join("(TOP (S " + " ".join(f"({tag.get(w, 'X')} {w})" for w in g.split()) + "))\n"
                            for g in gold_words), encoding="utf-8")
    exe, prm = c_evalb
    report = subprocess.run([str(exe), "-p", str(prm), str(gold), str(tmp_path / "out.txt")], capture_output=True,
                            text=True).stdout
    rows = [r.split() for r in report.splitlines() if r.strip()[:1].isdigit() and len(r.split()) == 12]
    assert [r[2] for r in rows] == ["0", "0", "2", "0"]
    assert "Number of Error sentence  =      0" in report


# -- reading as a stream -----------------------------------------------------------------------------
def test_a_line_over_the_bound_stops_the_reading_with_memory_bounded(tmp_path):
    big = tmp_path / "zeros.txt"
    with open(big, "wb") as handle:
        handle.write(b"fine line\n")
        handle.write(b"\0" * (16 << 20))              # 16 MB with no newline, as /dev/zero gives
    tracemalloc.start()
    records = iter_input(big, "text", max_bytes=1 << 20)
    assert next(records) == (["fine", "line"], None, "zeros.txt:1")
    with pytest.raises(InputError, match=r"zeros\.txt:2: the line starting here is longer than 1,048,576 bytes"):
        next(records)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 4 << 20
    with open(big, "r+b") as handle:                   # a tree first: plain text would be refused as not trees
        handle.write(b"(S (X fi))\n")
    with pytest.raises(InputError, match=r"zeros\.txt:2: the tree starting here is longer"):
        list(iter_input(big, "ptb", max_bytes=1 << 20))


def test_parse_stops_on_a_line_over_the_bound_and_keeps_what_it_parsed(model, tmp_path, capsys):
    src = tmp_path / "in.txt"
    src.write_bytes(b"The_DT cat_NN sat_VBD ._.\n" + b"x" * 5000 + b"\n")
    out = tmp_path / "out.txt"
    rc = main(["parse", "--model-dir", model, "--in", "tagged", str(src), "--out", str(out), "--no-progress",
               "--max-line-bytes", "1000"])
    err = capsys.readouterr().err
    assert rc == 2 and "in.txt:2: the line starting here is longer than 1,000 bytes" in err
    assert not out.exists() and (tmp_path / "out.txt.partial").read_text().startswith("(TOP ")


def test_input_is_read_while_it_is_parsed(model, tmp_path):
    """A FIFO whose writer sends its second line only once the first sentence's tree is
    out: reading everything first would wait forever."""
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    out_r, out_w = os.pipe()
    proc = subprocess.Popen([sys.executable, "-m", "plgraph", "parse", "--model-dir", model, "--in", "tagged",
                             str(fifo), "--no-progress"], stdout=out_w, stderr=subprocess.DEVNULL)
    os.close(out_w)
    first = threading.Event()

    def writer():
        with open(fifo, "w") as handle:
            handle.write(LINES[0] + "\n")
            handle.flush()
            first.wait(300)
            handle.write(LINES[1] + "\n")

    t = threading.Thread(target=writer)
    t.start()
    with os.fdopen(out_r) as reader:
        line1 = reader.readline()
        first.set()
        line2 = reader.readline()
    t.join()
    assert proc.wait(300) == 0
    assert "(NN cat)" in line1 and "(NN dog)" in line2


def test_read_input_keeps_the_records_in_order(tmp_path):
    f = tmp_path / "in.txt"
    f.write_bytes(b"\xef\xbb\xbfa_DT b_NN\n\nbad\n\xff_NN\nc_NN\n")
    got = read_input(f, "tagged")
    assert got.records == [(["a", "b"], ["DT", "NN"], "in.txt:1"), Skipped("in.txt:3", "token 'bad' is not word_TAG"),
                           Skipped("in.txt:4", "bytes that are not UTF-8: 0xff at byte 18 of the file (byte 1 of "
                                               "the line)"), (["c"], ["NN"], "in.txt:5")]


# -- closed standard streams ------------------------------------------------------------------------------
def _shell(cmd: str, tmp_path) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, cwd=tmp_path, timeout=300)


def test_closed_standard_streams(model, tmp_path):
    (tmp_path / "in.txt").write_text(LINES[0] + "\n")
    base = f"{sys.executable} -m plgraph parse --model-dir {model} --in tagged --no-progress"
    closed_in = _shell(f"{base} - <&-", tmp_path)
    assert closed_in.returncode == 2 and "-: standard input is closed: give the input as a file" in closed_in.stderr
    closed_out = _shell(f"{base} in.txt >&-", tmp_path)
    assert closed_out.returncode == 2 and "standard output is closed: give --out PATH" in closed_out.stderr
    assert "Traceback" not in closed_in.stderr + closed_out.stderr
    closed_err = _shell(f"{base} in.txt 2>&-", tmp_path)
    assert closed_err.returncode == 0
    assert closed_err.stdout.splitlines() == [closed_err.stdout.strip()] and closed_err.stdout.startswith("(TOP ")
    with_out = _shell(f"{base} in.txt --out out.txt >&- 2>&-", tmp_path)
    assert with_out.returncode == 0 and (tmp_path / "out.txt").read_text().startswith("(TOP ")


# -- option values -------------------------------------------------------------------------------------
def test_option_values_starting_with_a_minus_are_values(model, tmp_path, capsys):
    rc, out, err = _run(model, tmp_path, capsys, "Who_WP did_VBD you_PRP see_VB ?_.\n", "--trace-bias", "-1e9")
    assert rc == 0 and out.startswith("(TOP ")
    with pytest.raises(SystemExit):
        main(["parse", "--model-dir", model, "--trace-bias", "-inf", str(tmp_path / "in.txt")])
    assert "argument --trace-bias: expected a finite number, got '-inf'" in capsys.readouterr().err


# -- a sentence too long for the chart -------------------------------------------------------------------
def test_a_chart_over_its_item_budget_gives_the_baseline_and_says_why(model, monkeypatch):
    import plgraph.parser.chart.run as R
    from plgraph.parser.parsing.parser import Parser

    parser = Parser.load(model)
    words = "The company said it would buy the shares of the bank .".split()
    tags = ["DT", "NN", "VBD", "PRP", "MD", "VB", "DT", "NNS", "IN", "DT", "NN", "."]
    assert parser.parse_result(words, tags).status in ("parsed", "relaxed")
    monkeypatch.setattr(R, "MAX_ITEMS", 50)
    r = parser.parse_result(words, tags)
    assert r.status == "pass1" and r.reason == ("pass 2's chart stopped at its budget of items (the sentence is too "
                                                "long for this pruning)")
    assert r.problems == [] and r.tree.words() == words
