"""CoNLL-U / CoNLL-X reading and writing: round trips, everything preserved, errors with
file:line, fuzzing."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from plgraph.dep.conll import (BadSentence, ConllFormatError, DepSentence, format_conll, read_conll,
                               read_conll_string, write_conll)
from plgraph.errors import InputError

SAMPLE = """# sent_id = s1
# text = I can't go.
1\tI\tI\tPRON\tPRP\tCase=Nom|Number=Sing|Person=1\t3\tnsubj\t3:nsubj\t_
2-3\tcan't\t_\t_\t_\t_\t_\t_\t_\t_
2\tca\tcan\tAUX\tMD\tVerbForm=Fin\t3\taux\t3:aux\t_
3\tn't\tnot\tPART\tRB\t_\t0\troot\t0:root\t_
3.1\tgo\tgo\tVERB\tVB\t_\t_\t_\t3:conj\t_
4\t.\t.\tPUNCT\t.\t_\t3\tpunct\t3:punct\tSpaceAfter=No

"""


def test_sample_fields_and_preservation():
    (s,) = read_conll_string(SAMPLE, "x.conllu")
    assert s.id == "s1" and len(s) == 4 and s.line == 1
    assert s.forms == ["I", "ca", "n't", "."]
    assert s.heads.tolist() == [3, 3, 0, 3]
    assert s.deprels == ["nsubj", "aux", "root", "punct"]
    assert len(s.rows) == 6 and s.comments[1] == "# text = I can't go."
    assert format_conll([s]) == SAMPLE
    p = s.with_parse([2, 0, 2, 2], ["nsubj", "root", "advmod", "punct"])
    out = p.to_conll()
    # multiword token, empty node, comments and all other columns untouched
    assert "2-3\tcan't\t_\t_\t_\t_\t_\t_\t_\t_" in out and "3.1\tgo\tgo\tVERB\tVB\t_\t_\t_\t3:conj\t_" in out
    assert out.splitlines()[2] == "1\tI\tI\tPRON\tPRP\tCase=Nom|Number=Sing|Person=1\t2\tnsubj\t3:nsubj\t_"
    assert out.splitlines()[4] == "2\tca\tcan\tAUX\tMD\tVerbForm=Fin\t0\troot\t3:aux\t_"
    assert s.heads.tolist() == [3, 3, 0, 3]  # the original is not modified


def test_ewt_dev_round_trips_byte_for_byte(ewt_dir, tmp_path):
    path = ewt_dir / "en_ewt-ud-dev.conllu"
    sents = read_conll(path)
    assert len(sents) == 2001 and sum(len(s) for s in sents) == 25147
    out = tmp_path / "dev.conllu"
    write_conll(sents, out)
    assert out.read_bytes() == path.read_bytes()


def test_conll_x_basque_with_mixed_encodings(conll2007_dir):
    sents = read_conll(conll2007_dir / "eus.train")
    assert len(sents) == 2595 and sum(len(s) for s in sents) == 40032
    # lines in ISO-8859-1 decode like the UTF-8 ones
    forms = {f for s in sents for f in s.forms}
    assert "iñaki_arakama" in forms and "ibañez" in forms
    multi = sum(1 for s in sents if (s.heads == 0).sum() > 1)
    assert multi / len(sents) == pytest.approx(0.39, abs=0.01)
    with pytest.raises(ConllFormatError, match=r"eus.train:\d+: .*not UTF-8"):
        read_conll(conll2007_dir / "eus.train", encoding="utf-8")


BAD = [
    ("1\tA\ta\tX\tX\t_\t0\troot\t_\n", "expected 10 tab-separated fields, found 9", 1),
    ("1\tA\ta\tX\tX\t_\t0\troot\t_\t_\n3\tB\tb\tX\tX\t_\t1\tdep\t_\t_\n", "word id 3 out of order", 2),
    ("1\tA\ta\tX\tX\t_\t2\tdep\t_\t_\n2\tB\tb\tX\tX\t_\t1\tdep\t_\t_\n", "cycle", 1),
    ("1\tA\ta\tX\tX\t_\t5\tdep\t_\t_\n", "outside the sentence", 1),
    ("1\tA\ta\tX\tX\t_\tx\tdep\t_\t_\n", "is not a number", 1),
    ("1\tA\ta\tX\tX\t_\t_\tdep\t_\t_\n", "has no HEAD", 1),
    ("1\tA\ta\tX\tX\t_\t0\troot\t_\t_\n# late\n", "comment line after", 2),
    ("2-3\tAB\t_\t_\t_\t_\t_\t_\t_\t_\n1\tA\ta\tX\tX\t_\t0\troot\t_\t_\n", "does not start at the next word", 1),
    ("1\tA\ta\tX\tX\t_\t0\troot\t_\t_\n2.1\tE\te\tX\tX\t_\t_\t_\t_\t_\n", "not placed after word 2", 2),
    ("1 A a X X _ 0 root _ _\n", "columns must be separated by tabs", 1),
    ("1\tA\ta\tX\tX\t_\t1\troot\t_\t_\n", "its own HEAD", 1),
]


@pytest.mark.parametrize("text,message,line", BAD)
def test_malformed_input_names_file_and_line(text, message, line):
    good = "1\tok\tok\tX\tX\t_\t0\troot\t_\t_\n\n"
    src = good + text + "\n" + good
    offset = 2  # the bad sentence starts on line 3
    with pytest.raises(ConllFormatError) as info:
        read_conll_string(src, "in.conllu")
    err = info.value
    assert message in str(err) and err.line == line + offset and err.source == "in.conllu"
    assert str(err).startswith(f"in.conllu:{line + offset}, sentence in.1: ")
    assert isinstance(err, InputError)
    items = read_conll_string(src, "in.conllu", on_error="skip")
    assert [type(x).__name__ for x in items] == ["DepSentence", "BadSentence", "DepSentence"]
    assert items[1].line == line + offset and message in items[1].reason


def test_parse_input_may_lack_heads():
    (s,) = read_conll_string("1\tA\ta\tX\tX\t_\t_\t_\t_\t_\n", require_heads=False)
    assert s.heads.tolist() == [-1]


def test_multiple_blank_lines_and_missing_final_newline():
    text = "\n\n1\tA\ta\tX\tX\t_\t0\troot\t_\t_\n\n\n\n1\tB\tb\tX\tX\t_\t0\troot\t_\t_"
    items = read_conll_string(text)
    assert [s.forms for s in items] == [["A"], ["B"]] and items[1].line == 7


# ---------------------------------------------------------------------------------------------
# fuzzing

_field = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"), blacklist_characters="\t\n\r "),
                 min_size=1, max_size=6)


@st.composite
def sentences(draw):
    n = draw(st.integers(1, 8))
    heads = [0] + [draw(st.integers(1, d - 1)) if d > 1 else 0 for d in range(2, n + 1)]
    perm = draw(st.permutations(range(1, n + 1)))   # relabel positions: a random tree
    pos = {old: new for old, new in zip(range(1, n + 1), perm)}
    head_of = {pos[d]: (pos[h] if h else 0) for d, h in zip(range(1, n + 1), heads)}
    lines = [f"# sent_id = {draw(_field)}"] if draw(st.booleans()) else []
    for w in range(1, n + 1):
        if draw(st.integers(0, 5)) == 0 and w < n:
            lines.append(f"{w}-{w + 1}\t{draw(_field)}\t_\t_\t_\t_\t_\t_\t_\t_")
        cols = [str(w)] + [draw(_field) for _ in range(5)] + [str(head_of[w]), draw(_field), draw(_field),
                                                                draw(_field)]
        lines.append("\t".join(cols))
        if draw(st.integers(0, 6)) == 0:
            lines.append(f"{w}.1\t{draw(_field)}\t_\t_\t_\t_\t_\t_\t{w}:dep\t_")
    return "\n".join(lines) + "\n\n"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(sentences(), min_size=1, max_size=4))
def test_fuzz_round_trip(texts):
    text = "".join(texts)
    items = read_conll_string(text)
    assert all(isinstance(s, DepSentence) for s in items) and len(items) == len(texts)
    assert format_conll(items) == text
    for s in items:
        np.testing.assert_array_equal(s.with_parse(s.heads, s.deprels).heads, s.heads)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sentences(), st.integers(0, 10_000), st.sampled_from(["\t", "x", "\n", "-", ".", "0", "#", "9", ""]))
def test_fuzz_corruptions_never_crash(text, where, char):
    k = where % (len(text) + 1)
    bad = text[:k] + char + text[k + 1:]
    try:
        items = read_conll_string(bad, "f.conllu")
    except ConllFormatError as err:
        assert err.line is not None and err.source == "f.conllu"
        return
    assert all(isinstance(s, DepSentence) for s in items)
    skipped = read_conll_string(bad, "f.conllu", on_error="skip")
    assert not any(isinstance(s, BadSentence) for s in skipped)
