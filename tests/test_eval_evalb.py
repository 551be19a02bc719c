"""plgraph.eval.evalb against the C program EVALB, compiled from
``../shared/design/reference-evalb/evalb.c`` into a temporary folder (the oracle: every
line of its standard output and every message of its standard error must be equal)."""
from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from argparse import Namespace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import corpus_or_skip
from plgraph.errors import InputError
from plgraph.eval.evalb import EvalbParams, cli_main, evalb, evalb_files, read_evalb_file, read_prm


# -- the oracle --------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def ref_dir() -> Path:
    return corpus_or_skip("reference-evalb")


@pytest.fixture(scope="session")
def evalb_bin(ref_dir, tmp_path_factory) -> Path:
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc not found: the C EVALB oracle cannot be compiled (install gcc)")
    folder = tmp_path_factory.mktemp("evalb-c")
    exe = folder / "evalb"
    subprocess.run([gcc, "-O2", "-w", "-o", str(exe), str(ref_dir / "evalb.c")], check=True,
                   capture_output=True)
    return exe


def run_c(exe, prm, gold, test):
    proc = subprocess.run([str(exe), "-p", str(prm), str(gold), str(test)], capture_output=True)
    return proc.stdout.decode("utf-8", "surrogateescape"), proc.stderr.decode("utf-8", "surrogateescape"), \
        proc.returncode


def port_err(result) -> str:
    return "".join(m + "\n" for m in result.messages)


def assert_same_as_c(exe, prm, gold, test, strict=True):
    """The port's report and messages equal the C program's stdout and stderr."""
    out, err, rc = run_c(exe, prm, gold, test)
    result = evalb_files(gold, test, read_prm(prm), strict=strict)
    assert result.report() == out
    assert port_err(result) == err
    assert result.stopped == (rc == 1)
    return result, out


@pytest.fixture(scope="session")
def collins_big_prm(ref_dir, tmp_path_factory) -> Path:
    """COLLINS.prm with MAX_ERROR raised (the harness setting)."""
    text = (ref_dir / "COLLINS.prm").read_text().replace("MAX_ERROR 10", "MAX_ERROR 100000")
    assert "MAX_ERROR 100000" in text
    path = tmp_path_factory.mktemp("prm") / "collins-big.prm"
    path.write_text(text)
    return path


@pytest.fixture(scope="session")
def newprm_big(ref_dir, tmp_path_factory) -> Path:
    text = (ref_dir / "new.prm").read_text().replace("MAX_ERROR 10", "MAX_ERROR 100000")
    assert "MAX_ERROR 100000" in text
    path = tmp_path_factory.mktemp("prm") / "new-big.prm"
    path.write_text(text)
    return path


@pytest.fixture(scope="session")
def ptb_lines(sample_dir):
    """Every tree of the PTB sample, raw (function tags, -NONE-, empty root), one per line."""
    from plgraph.data import sample_files
    from plgraph.ptb.reader import read_ptb

    return [s.tree.to_string() for f in sample_files("all") for s in read_ptb(f, clean=False)]


# -- the files shipped with EVALB ------------------------------------------------------------------
def test_sample_files_equal_c(evalb_bin, ref_dir):
    s = ref_dir / "sample"
    result, out = assert_same_as_c(evalb_bin, s / "sample.prm", s / "sample.gld", s / "sample.tst")
    # hand-checked against sample.rsl / PROVENANCE.md: 24 sentences, 5 errors, 2 skipped,
    # len<=40: R 81.25, P 85.25
    a, b = result.summary["all"], result.summary["len40"]
    assert (a["sentences"], a["errors"], a["skipped"], a["valid"]) == (24, 5, 2, 17)
    assert "%.2f %.2f" % (b["recall"], b["precision"]) == "81.25 85.25"
    assert list(result.sentences.status) == [int(line.split()[2]) for line in out.splitlines()[3:27]]


@pytest.mark.parametrize("prm", ["COLLINS.prm", "new.prm"])
def test_bug_files_equal_c(evalb_bin, ref_dir, prm):
    b = ref_dir / "bug"
    result, _ = assert_same_as_c(evalb_bin, ref_dir / prm, b / "bug.gld", b / "bug.tst")
    if prm == "new.prm":
        # the 2006 quote fix: no length mismatch left, as bug.rsl-new shows
        assert result.summary["all"]["errors"] == 0 and result.summary["all"]["valid"] == 5
        new = [line.split() for line in (b / "bug.rsl-new").read_text().splitlines()[3:8]]
        assert [line.split() for line in result.report().splitlines()[3:8]] == new


def test_gold_against_gold_whole_sample(evalb_bin, collins_big_prm, ptb_lines, tmp_path):
    gold = tmp_path / "gold"
    gold.write_text("\n".join(ptb_lines) + "\n")
    result, _ = assert_same_as_c(evalb_bin, collins_big_prm, gold, gold)
    for group in ("all", "len40"):
        s = result.summary[group]
        assert s["errors"] == s["skipped"] == 0
        for key in ("recall", "precision", "f1", "complete_match", "tagging_accuracy", "no_crossing"):
            assert s[key] == 100.0, (group, key)
    assert result.summary["all"]["sentences"] == len(ptb_lines) == 3914
    # the API on plgraph Trees gives the same report as on the strings
    from plgraph.data import sample_files
    from plgraph.ptb.reader import read_ptb

    trees = [s.tree for f in sample_files("all")[:20] for s in read_ptb(f, clean=False)]
    lines = [t.to_string() for t in trees]
    assert evalb(trees, trees).report() == evalb(lines, lines).report()
    nl = [t.to_nltk() for t in trees]
    assert evalb(nl, trees).report() == evalb(lines, lines).report()


# -- hypothesis-generated pairs from the PTB sample ----------------------------------------------
def to_node(line: str):
    """A one-line tree as nested lists: [label, [children]] or [tag, word]."""
    stack = [["", []]]
    for tok in line.replace("(", " ( ").replace(")", " ) ").split():
        if tok == "(":
            if stack[-1][0] is None:
                stack[-1][0] = ""              # an unlabelled root: ( (S ...))
            stack.append([None, []])
        elif tok == ")":
            node = stack.pop()
            if len(node[1]) == 1 and isinstance(node[1][0], str):
                node = [node[0], node[1][0]]
            stack[-1][1].append(node)
        elif stack[-1][0] is None:
            stack[-1][0] = tok
        else:
            stack[-1][1].append(tok)
    root = stack[0][1][0]
    return root


def to_line(node) -> str:
    label, rest = node
    if isinstance(rest, str):
        return f"({label} {rest})"
    if not rest:
        return f"({label})"                 # a zero-width bracket
    return f"({label} " + " ".join(to_line(c) for c in rest) + ")"


def walk(node, parent=None):
    yield node, parent
    if not isinstance(node[1], str):
        for child in node[1]:
            yield from walk(child, node)


PHRASE_LABELS = ["NP", "VP", "S", "SBAR", "PP", "ADJP", "ADVP", "PRT", "NP-SBJ", "S-TPC-1", "NP=2", "TOP",
                 "ROOT", "", "-NONE-", "X", "WHNP", "S1", "ADVP-TMP", "PRT-1"]
TAGS = ["NN", "NNS", "VB", ",", ".", ":", "``", "''", "POS", "-NONE-", "DT", "JJ", "CD", "$", "#", "VBZ",
        "-LRB-", "PRP$"]
PUNCT = {",", ".", ":", "``", "''", "-LRB-", "-RRB-", "#", "$"}


def perturb(root, op, rng):
    """Apply one edit to the tree (in place); returns the (possibly new) root or ``""``."""
    nodes = list(walk(root))
    phrases = [(n, p) for n, p in nodes if not isinstance(n[1], str)]
    leaves = [(n, p) for n, p in nodes if isinstance(n[1], str)]
    inner = [(n, p) for n, p in phrases if p is not None]
    if op == "relabel":
        n, _ = rng.choice(phrases)
        n[0] = rng.choice(PHRASE_LABELS + [m[0] for m, _ in phrases])
    elif op == "eq":
        for n, _ in phrases:
            if n[0].startswith("ADVP"):
                n[0] = "PRT" + n[0][4:]
            elif n[0].startswith("PRT"):
                n[0] = "ADVP" + n[0][3:]
    elif op == "retag" and leaves:
        n, _ = rng.choice(leaves)
        n[0] = rng.choice(TAGS)
    elif op == "punct_tag":
        cand = [(n, p) for n, p in leaves if n[0] in PUNCT or n[1] in ("'", "`", "'s")]
        if cand:
            n, _ = rng.choice(cand)
            n[0] = rng.choice(["NN", "POS", "''", "``", ",", ":", "CD", "."])
    elif op == "flatten" and inner:
        n, p = rng.choice(inner)
        i = next(k for k, c in enumerate(p[1]) if c is n)
        p[1][i:i + 1] = n[1]
    elif op == "add":
        cand = [(n, p) for n, p in phrases if len(n[1]) >= 2]
        if cand:
            n, _ = rng.choice(cand)
            i = rng.randrange(len(n[1]))
            j = rng.randrange(i + 1, len(n[1]) + 1)
            n[1][i:j] = [[rng.choice(PHRASE_LABELS), n[1][i:j]]]
    elif op in ("move_punct", "move_none", "move_leaf"):
        if op == "move_punct":
            cand = [(n, p) for n, p in leaves if n[0] in PUNCT]
        elif op == "move_none":
            cand = [(n, p) for n, p in leaves if n[0] == "-NONE-"]
        else:
            cand = leaves
        if cand:
            n, p = rng.choice(cand)
            p[1].remove(n)
            target, _ = rng.choice(phrases)
            target[1].insert(rng.randrange(len(target[1]) + 1), n)
    elif op == "reattach_punct":
        # punctuation first/last in its phrase moves out to the phrase's parent: same word order
        cand = [(n, p) for n, p in leaves if n[0] in PUNCT and p is not None]
        parents = {id(c): pp for c, pp in nodes}
        if cand:
            n, p = rng.choice(cand)
            gp = parents.get(id(p))
            if gp is not None and (p[1][0] is n or p[1][-1] is n):
                last = p[1][-1] is n
                p[1].remove(n)
                k = next(k for k, c in enumerate(gp[1]) if c is p)
                gp[1].insert(k + 1 if last else k, n)
    elif op == "cross":
        # the last child of a phrase joins the phrase's next sibling in a new bracket: same
        # words, a bracket that crosses the old phrase
        cand = [(n, p) for n, p in inner if len(n[1]) >= 2 and p[1][-1] is not n]
        if cand:
            n, p = rng.choice(cand)
            k = next(k for k, c in enumerate(p[1]) if c is n)
            p[1][k + 1] = [rng.choice(PHRASE_LABELS), [n[1].pop(), p[1][k + 1]]]
    elif op == "delete_leaf" and leaves:
        n, p = rng.choice(leaves)
        p[1].remove(n)
    elif op == "dup_leaf" and leaves:
        n, p = rng.choice(leaves)
        p[1].insert(p[1].index(n), [n[0], n[1]])
    elif op == "word" and leaves:
        n, _ = rng.choice(leaves)
        n[1] = rng.choice(["XYZ", n[1].lower(), n[1] + "s"])
    elif op == "none_add":
        target, _ = rng.choice(phrases)
        target[1].insert(rng.randrange(len(target[1]) + 1), ["-NONE-", rng.choice(["*", "*T*-1", "0"])])
    elif op == "root":
        kind = rng.randrange(4)
        if kind == 0:
            root[0] = rng.choice(["", "TOP", "ROOT", "S1"])
        elif kind == 1:
            root = [rng.choice(["TOP", "ROOT", ""]), [root]]
        elif kind == 2 and len(root[1]) == 1 and not isinstance(root[1][0][1], str):
            root = root[1][0]
    elif op == "empty":
        return rng.choice(["", "(TOP (-NONE- *))", "   ", "( (-NONE- *) (, ,))"])
    return root


OPS = ["cross", "relabel", "eq", "retag", "punct_tag", "flatten", "add", "move_punct", "move_none", "move_leaf",
       "reattach_punct", "delete_leaf", "dup_leaf", "word", "none_add", "root", "empty"]
#: edits that keep the words (scored sentences rather than errors), drawn more often
SAFE = ["cross", "cross", "relabel", "eq", "retag", "flatten", "add", "move_none", "reattach_punct", "none_add", "root",
        "punct_tag"]


def quote_both(g, t, rng):
    """Make the pair look like bug/: double quotes written ``"`` in both trees and, in the
    test, given a non-quote tag (what the 2006 fix of new.prm is for)."""
    gl = [n for n, _ in walk(g) if isinstance(n[1], str)]
    tl = [n for n, _ in walk(t) if isinstance(n[1], str)]
    if len(gl) != len(tl):
        return
    for a, b in zip(gl, tl):
        if a[1] in ("``", "''") and a[1] == b[1]:
            a[1] = b[1] = '"'
            b[0] = rng.choice(["CD", "NN", "JJ", "POS", "''", "``", ":"])


pair_spec = st.tuples(
    st.integers(0, 10 ** 6),                                            # which sentence
    st.lists(st.one_of(st.sampled_from(SAFE), st.sampled_from(OPS)), min_size=0, max_size=4),
    st.integers(0, 2 ** 32 - 1),                                        # seed of the edits
    st.booleans(),                                                      # edit the gold's root too
    st.booleans(),                                                      # quote mislabels
)


def make_pair(pool, spec):
    idx, ops, seed, gold_root, quotes = spec
    rng = random.Random(seed)
    line = pool[idx % len(pool)]
    gold = to_node(line)
    if gold_root:
        gold = perturb(gold, "root", rng)
    test = to_node(to_line(gold))
    if quotes:
        quote_both(gold, test, rng)
    for op in ops:
        if isinstance(test, str):
            break
        test = perturb(test, op, rng)
    return to_line(gold), (test if isinstance(test, str) else to_line(test))


@pytest.fixture(scope="session")
def pair_pool(ptb_lines):
    # EVALB's C arrays hold 200 words and 200 brackets a sentence: leave room for the edits;
    # sentences with double quotes first-class, so the quote fix is exercised
    pool = [line for line in ptb_lines if line.count("(") <= 300]
    return pool


def _compare_batch(exe, prm, folder, pairs, stats):
    gold = folder / "gold.txt"
    test = folder / "test.txt"
    gold.write_text("".join(g + "\n" for g, _ in pairs))
    test.write_text("".join(t + "\n" for _, t in pairs))
    out, err, rc = run_c(exe, prm, gold, test)
    assert rc == 0, err
    result = evalb_files(gold, test, read_prm(prm))
    assert result.report() == out
    assert port_err(result) == err
    stats["pairs"] += len(pairs)
    for status in result.sentences.status:
        stats[f"status{status}"] += 1
    stats["crossing"] += int((result.sentences.crossing > 0).sum())
    stats["imperfect"] += int(((result.sentences.status == 0) & (result.sentences.matched
                                                                  < result.sentences.gold)).sum())


@pytest.mark.parametrize("which", ["collins", "new"])
def test_generated_pairs_equal_c(evalb_bin, collins_big_prm, newprm_big, pair_pool, tmp_path, which):
    prm = collins_big_prm if which == "collins" else newprm_big
    stats = dict.fromkeys(["pairs", "status0", "status1", "status2", "crossing", "imperfect"], 0)
    quoted = [line for line in pair_pool if "(`` ``)" in line and "('' '')" in line]

    @settings(max_examples=int(os.environ.get("PLGRAPH_EVALB_EXAMPLES", "40")), deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                     HealthCheck.data_too_large])
    @given(st.lists(pair_spec, min_size=40, max_size=60))
    def check(specs):
        pairs = [make_pair(quoted if (spec[4] and quoted) else pair_pool, spec) for spec in specs]
        _compare_batch(evalb_bin, prm, tmp_path, pairs, stats)

    check()
    print(f"\nEVALB ({which}): {stats['pairs']} generated pairs identical to the C program: {stats}")
    assert stats["pairs"] >= 200
    # the batches reach every kind of sentence the C program distinguishes
    assert stats["status0"] and stats["status1"] and stats["status2"]
    assert stats["crossing"] and stats["imperfect"]


def test_generated_fix_quote_is_exercised(evalb_bin, newprm_big, collins_big_prm, pair_pool, tmp_path):
    """With new.prm's QUOTE_LABELs the quote mislabels are repaired (no length error), with
    COLLINS.prm they are length errors -- in both the C program and the port."""
    quoted = [line for line in pair_pool if "(`` ``)" in line and "('' '')" in line][:60]
    assert quoted
    rng = random.Random(7)
    pairs = []
    for line in quoted:
        g, t = to_node(line), to_node(line)
        quote_both(g, t, rng)
        pairs.append((to_line(g), to_line(t)))
    stats = dict.fromkeys(["pairs", "status0", "status1", "status2", "crossing", "imperfect"], 0)
    _compare_batch(evalb_bin, collins_big_prm, tmp_path, pairs, stats)
    errors_collins = stats["status1"]
    stats = dict.fromkeys(stats, 0)
    _compare_batch(evalb_bin, newprm_big, tmp_path, pairs, stats)
    assert errors_collins > stats["status1"]


# -- special cases, each against the C program ----------------------------------------------------
def _write(path, lines):
    path.write_text("".join(x + "\n" for x in lines))
    return path


def test_all_skipped_prints_nan_like_c(evalb_bin, collins_big_prm, tmp_path):
    gold = _write(tmp_path / "g", ["(S (A x))", "(S (B y))"])
    test = _write(tmp_path / "t", ["", ""])
    result, out = assert_same_as_c(evalb_bin, collins_big_prm, gold, test)
    assert "Bracketing FMeasure       =   -nan" in out
    assert result.summary["all"]["f1"] is None and result.summary["all"]["skipped"] == 2


def test_max_error_stop_like_c(evalb_bin, ref_dir, tmp_path):
    gold = _write(tmp_path / "g", ["(S (A x) (B y))"] * 14)
    test = _write(tmp_path / "t", ["(S (A x))"] * 14)
    result, out = assert_same_as_c(evalb_bin, ref_dir / "COLLINS.prm", gold, test)
    assert result.stopped and len(result.rows) == 11 and "Summary" not in out
    # without a limit (the default) everything is scored
    free = evalb_files(gold, test)
    assert not free.stopped and free.summary["all"]["errors"] == 14


def test_odd_but_readable_trees_like_c(evalb_bin, collins_big_prm, tmp_path):
    gold = ["(S (NP (DT the) (NN cat)) (VP (VBZ sits)))"] * 9
    test = [
        "(S (NP (DT the) (NN cat)) (VP (VBZ sits)) (NP))",        # zero-width bracket
        "(S (NP (DT the) (NN cat)) (VP (VBZ sits) (X )))",        # terminal with an empty word
        "(S(NP(DT the)(NN cat))(VP(VBZ sits)))",                  # no spaces
        "\t(S  (NP (DT  the) (NN cat))\r (VP (VBZ sits)))\r",    # odd whitespace, CR
        "(S (NP-SBJ=1 (DT the) (NN cat)) (VP-2 (VBZ sits)))",   # label cutting
        "(TOP (S (NP (DT the) (NN cat)) (VP (VBZ sits))))",
        "(ROOT (S (NP (DT the) (NN cat)) (VP (VBZ sits))))",
        "( (S (NP (DT the) (NN cat)) (VP (VBZ sits))))",
        "(S (NP (DT the) (, cat)) (VP (VBZ sits)))",              # deleted tag: length error
    ]
    assert_same_as_c(evalb_bin, collins_big_prm, _write(tmp_path / "g", gold), _write(tmp_path / "t", test))


@pytest.mark.parametrize("n_gold,n_test", [(3, 2), (2, 3)])
def test_different_counts(evalb_bin, collins_big_prm, tmp_path, n_gold, n_test):
    line = "(S (NP (DT the) (NN cat)) (VP (VBZ sits)))"
    gold = _write(tmp_path / "gold.txt", [line] * n_gold)
    test = _write(tmp_path / "test.txt", [line] * n_test)
    with pytest.raises(InputError) as err:
        evalb_files(gold, test)
    msg = str(err.value)
    assert str(gold) in msg and str(test) in msg and f"{n_gold} sentence" in msg and f"has {n_test}" in msg
    # strict=False: what the C program does (prefix scored, "Number of lines unmatch")
    result, _ = assert_same_as_c(evalb_bin, collins_big_prm, gold, test, strict=False)
    assert "Number of lines unmatch" in result.messages[0]


def test_empty_lines(evalb_bin, collins_big_prm, tmp_path):
    line = "(S (NP (DT the) (NN cat)) (VP (VBZ sits)))"
    gold = _write(tmp_path / "gold.txt", [line, "", line])
    test = _write(tmp_path / "test.txt", [line, line, ""])
    with pytest.raises(InputError) as err:
        evalb_files(gold, test)
    assert err.value.source == str(gold) and err.value.line == 2 and "empty line" in str(err.value)
    result, _ = assert_same_as_c(evalb_bin, collins_big_prm, gold, test, strict=False)
    assert list(result.sentences.status) == [0, 1, 2]
    # an empty test line alone is a skip, also when strict
    ok = evalb_files(_write(tmp_path / "g2", [line, line]), _write(tmp_path / "t2", [line, ""]))
    assert list(ok.sentences.status) == [0, 2]
    # a trailing newline is not a line; a blank line at the end is
    assert read_evalb_file(_write(tmp_path / "g3", [line])) == [line]
    (tmp_path / "g4").write_text(line + "\n\n")
    assert read_evalb_file(tmp_path / "g4") == [line, ""]


@pytest.mark.parametrize("bad,what", [
    ("(S (NP (DT the) (NN cat)) (VP (VBZ sits))", "unbalanced"),
    ("(S (NP (DT the) (NN cat))) (VP (VBZ sits)))", "too many close"),
    ("(S (NP the (NN cat)) (VP (VBZ sits)))", "not inside"),
    ("(S (NP (DT the big) (NN cat)) (VP (VBZ sits)))", "more than a label and a word"),
    ("S (NP (DT the) (NN cat)) (VP (VBZ sits)))", "not inside"),
])
def test_unreadable_trees(tmp_path, bad, what):
    line = "(S (NP (DT the) (NN cat)) (VP (VBZ sits)))"
    gold = _write(tmp_path / "gold.txt", [line, line, line])
    test = _write(tmp_path / "test.txt", [line, bad, line])
    with pytest.raises(InputError) as err:
        evalb_files(gold, test)
    assert err.value.source == str(test) and err.value.line == 2 and what in str(err.value)
    with pytest.raises(InputError) as err:
        evalb([line, line], [line, bad])
    assert err.value.sentence == 1


# -- parameters ---------------------------------------------------------------------------------------
def test_default_params_are_collins_without_max_error(ref_dir):
    collins = read_prm(ref_dir / "COLLINS.prm")
    assert collins.max_error == 10
    assert EvalbParams.collins() == EvalbParams.collins(max_error=None)
    assert EvalbParams.collins().max_error is None
    assert EvalbParams.collins(max_error=10) == collins
    # field by field, as written in COLLINS.prm
    assert collins.delete_labels == ("TOP", "-NONE-", ",", ":", "``", "''", ".")
    assert collins.delete_labels_for_length == ("-NONE-",)
    assert collins.eq_labels == (("ADVP", "PRT"),)
    assert (collins.labeled, collins.cutoff_len, collins.debug) == (1, 40, 0)
    new = read_prm(ref_dir / "new.prm")
    assert new.quote_labels == ("``", "''", "POS", "NN", "CD", "VBZ", ":")
    sample = read_prm(ref_dir / "sample" / "sample.prm")
    assert sample.eq_words == (("This", "this"),) and sample.eq_labels == (("T", "TT"),)


@pytest.mark.parametrize("line,what", [
    ("DELETE_LABEL", "no value"),
    ("FOO 1", "unknown keyword"),
    ("LABELED yes", "integer"),
    ("EQ_LABEL ADVP", "two values"),
])
def test_bad_prm_line(tmp_path, line, what):
    prm = tmp_path / "bad.prm"
    prm.write_text("# comment\nLABELED 1\n" + line + "\n")
    with pytest.raises(InputError) as err:
        read_prm(prm)
    assert err.value.source == str(prm) and err.value.line == 3 and what in str(err.value)


# -- command line ----------------------------------------------------------------------------------
def test_cli(evalb_bin, ref_dir, tmp_path, capsys):
    s = ref_dir / "sample"
    out_c, err_c, _ = run_c(evalb_bin, s / "sample.prm", s / "sample.gld", s / "sample.tst")
    js = tmp_path / "scores.json"
    rc = cli_main(Namespace(gold=str(s / "sample.gld"), test=str(s / "sample.tst"), prm=str(s / "sample.prm"),
                            json=str(js)))
    cap = capsys.readouterr()
    assert rc == 0 and cap.out == out_c and cap.err == err_c
    doc = json.loads(js.read_text())
    assert doc["all"]["valid"] == 17 and doc["len40"]["sentences"] == 23
    for key in ("recall", "precision", "f1", "complete_match", "tagging_accuracy", "sentences", "errors",
                "skipped", "valid"):
        assert key in doc["all"] and key in doc["len40"]
    assert "%.2f" % doc["all"]["f1"] in out_c
    # bad input: a message, exit 2, no traceback, no JSON
    bad = _write(tmp_path / "bad.txt", ["(S (A x)"])
    js2 = tmp_path / "no.json"
    rc = cli_main(Namespace(gold=str(bad), test=str(bad), prm=None, json=str(js2)))
    cap = capsys.readouterr()
    assert rc == 2 and cap.err.startswith("plgraph eval: error: ") and str(bad) in cap.err
    assert not js2.exists()
