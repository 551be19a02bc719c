"""Hostile CoNLL-U / CoNLL-X input: no tracebacks, no lost sentences.

* ids and HEADs written with superscript digits (``²``: ``str.isdigit`` says yes,
  ``int`` says no) are a clear error naming file, line and sentence, or a counted skip;
* a UTF-8 byte order mark does not cost the first sentence;
* fuzz: :func:`read_conll` returns sentences whose words are the input's, or raises
  plgraph's own :class:`ConllFormatError` / marks a sentence bad, whatever the bytes.
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from plgraph.dep.conll import BadSentence, ConllFormatError, DepSentence, read_conll, read_conll_string
from plgraph.errors import PlgraphError

pytestmark = pytest.mark.timeout(60)


def row(i, form, head, rel="dep"):
    return f"{i}\t{form}\t_\tX\t_\t_\t{head}\t{rel}\t_\t_\n"


GOOD = "# sent_id = s1\n" + row(1, "Bob", 2, "nsubj") + row(2, "ran", 0, "root") + "\n"
GOOD2 = "# sent_id = s3\n" + row(1, "Yes", 0, "root") + "\n"


def write(tmp_path, name, text: str | bytes):
    p = tmp_path / name
    if isinstance(text, str):
        p.write_text(text, encoding="utf-8")
    else:
        p.write_bytes(text)
    return p


SUPERSCRIPTS = [
    ("HEAD", "# sent_id = s2\n" + row(1, "a", 0, "root") + row(2, "b", "\u00b9") + "\n", 7,
     "HEAD '\u00b9' of word 2 is not a number"),
    ("ID", "# sent_id = s2\n" + row(1, "a", 0, "root") + row("\u00b2", "b", 1) + "\n", 7, "bad token id '\u00b2'"),
    ("range", "# sent_id = s2\n" + "1-\u00b2\tab\t_\t_\t_\t_\t_\t_\t_\t_\n" + row(1, "a", 0, "root") + row(2, "b", 1)
     + "\n", 6, "bad multiword token id '1-\u00b2'"),
    ("empty node", "# sent_id = s2\n" + row(1, "a", 0, "root") + "1.\u00b9\tx\t_\t_\t_\t_\t_\t_\t_\t_\n" + "\n", 7,
     "bad empty node id '1.\u00b9'"),
    ("arabic-indic", "# sent_id = s2\n" + row(1, "a", 0, "root") + row(2, "b", "\u0661") + "\n", 7,
     "HEAD '\u0661' of word 2 is not a number"),
]


@pytest.mark.parametrize("what, bad, line, reason", SUPERSCRIPTS, ids=[s[0] for s in SUPERSCRIPTS])
def test_superscript_digits_are_an_error_naming_file_and_line(tmp_path, what, bad, line, reason):
    path = write(tmp_path, "sup.conllu", GOOD + bad + GOOD2)
    with pytest.raises(ConllFormatError) as info:
        read_conll(path)
    assert str(info.value).startswith(f"{path}:{line}, sentence sup.1: {reason}")


@pytest.mark.parametrize("what, bad, line, reason", SUPERSCRIPTS, ids=[s[0] for s in SUPERSCRIPTS])
def test_superscript_digits_are_a_counted_skip(tmp_path, what, bad, line, reason):
    path = write(tmp_path, "sup.conllu", GOOD + bad + GOOD2)
    items = read_conll(path, on_error="skip")
    assert [type(it) for it in items] == [DepSentence, BadSentence, DepSentence]
    assert items[0].forms == ["Bob", "ran"] and items[2].forms == ["Yes"]
    skipped = items[1]
    assert skipped.source == str(path) and reason in skipped.reason
    assert skipped.line == line and str(skipped).startswith(f"sup.1 ({path}:{line}): {reason}")


def test_superscript_heads_in_the_dep_cli_are_counted(tmp_path, capsys):
    """`dep train` reads with on_error="skip": the bad sentence is listed with file:line."""
    from plgraph.dep.cli import _read

    path = write(tmp_path, "t.conllu", GOOD + SUPERSCRIPTS[0][1] + GOOD2)

    class Args:
        encoding = "auto"

    sents = _read(path, Args, gold=True, label="training file")
    assert [s.forms for s in sents] == [["Bob", "ran"], ["Yes"]]
    err = capsys.readouterr().err
    assert f"skipped 1 bad sentence(s) of training file {path}" in err
    assert f"{path}:7" in err and "HEAD '\u00b9' of word 2 is not a number" in err


def test_a_byte_order_mark_keeps_the_first_sentence(tmp_path):
    path = write(tmp_path, "bom.conllu", b"\xef\xbb\xbf" + (GOOD + GOOD2).encode())
    for mode in ("raise", "skip"):
        items = read_conll(path, on_error=mode)
        assert [s.forms for s in items] == [["Bob", "ran"], ["Yes"]]
        assert items[0].id == "s1" and items[0].line == 1 and items[0].comments == ["# sent_id = s1"]
    assert read_conll_string("\ufeff" + GOOD)[0].forms == ["Bob", "ran"]


def test_a_byte_order_mark_with_latin1_lines(tmp_path):
    """The BOM is dropped on every reading path, also the one that marks undecodable lines."""
    latin = b"# sent_id = s2\n# caf\xe9\n" + row(1, "z", 0, "root").encode() + b"\n"
    path = write(tmp_path, "mix.conllu", b"\xef\xbb\xbf" + GOOD.encode() + latin + GOOD2.encode())
    assert [s.forms for s in read_conll(path)] == [["Bob", "ran"], ["z"], ["Yes"]]
    items = read_conll(path, encoding="utf-8", on_error="skip")
    assert [type(it) for it in items] == [DepSentence, BadSentence, DepSentence]
    assert items[0].forms == ["Bob", "ran"] and items[1].line == 6
    with pytest.raises(ConllFormatError, match=r"mix.conllu:6: bytes that are not UTF-8"):
        read_conll(path, encoding="utf-8")


def test_a_bom_inside_the_file_is_not_stripped(tmp_path):
    """Only a leading BOM is an encoding mark; one in a later line is bad data."""
    path = write(tmp_path, "mid.conllu", GOOD + "\ufeff" + GOOD2)
    items = read_conll(path, on_error="skip")
    assert isinstance(items[0], DepSentence) and isinstance(items[1], BadSentence)
    assert items[1].line == 5


# ---------------------------------------------------------------------------------------------
# fuzz

FORMS = st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"),
                                       blacklist_characters="\t\n\r\x0b\x0c\x1c\x1d\x1e\x85\ufeff"),
                min_size=1, max_size=6).filter(lambda s: s.strip() == s and s.strip() != "")


@st.composite
def valid_sentence(draw):
    n = draw(st.integers(1, 6))
    forms = draw(st.lists(FORMS, min_size=n, max_size=n))
    heads = [0] + [draw(st.integers(1, i)) for i in range(1, n)]  # word i+1 -> an earlier word: a tree
    return forms, heads


def render(sentences) -> str:
    out = []
    for k, (forms, heads) in enumerate(sentences):
        out.append(f"# sent_id = f{k}\n")
        for i, (f, h) in enumerate(zip(forms, heads), 1):
            out.append(row(i, f, h, "root" if h == 0 else "dep"))
        out.append("\n")
    return "".join(out)


def check_items(items, path):
    for it in items:
        assert isinstance(it, (DepSentence, BadSentence))
        if isinstance(it, BadSentence):
            assert it.source == str(path) and it.line is not None and it.line >= 1
        else:
            it.heads  # noqa: B018 - every accepted HEAD converts


@pytest.mark.timeout(120)
@settings(max_examples=150, deadline=None)
@given(st.lists(valid_sentence(), min_size=1, max_size=4), st.booleans())
def test_fuzz_valid_sentences_read_back_word_for_word(tmp_path_factory, sentences, bom):
    text = render(sentences)
    path = tmp_path_factory.mktemp("fz") / "v.conllu"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    items = read_conll(path)
    assert [s.forms for s in items] == [f for f, _ in sentences]
    assert [list(s.heads) for s in items] == [h for _, h in sentences]


HOSTILE_PIECES = st.sampled_from([
    "1", "2", "\u00b2", "\u00b9", "\u0661", "1-2", "1-\u00b2", "1.1", "1.\u00b9", "2.1", "_", "0", "-1", "x",
    "\t", "\n", "\n\n", "# c", "#", " ", "\r\n", "\ufeff", "10", "99999999999999999999", "1.0", "0.1", "1-1",
])


@pytest.mark.timeout(120)
@settings(max_examples=250, deadline=None)
@given(st.lists(valid_sentence(), min_size=1, max_size=3), st.data())
def test_fuzz_hostile_text_raises_only_plgraph_errors(tmp_path_factory, sentences, data):
    text = render(sentences)
    mode = data.draw(st.sampled_from(["truncate", "splice", "bytes", "random"]))
    if mode == "truncate":
        raw = text.encode("utf-8")[: data.draw(st.integers(0, len(text.encode("utf-8"))))]
    elif mode == "splice":
        pieces = data.draw(st.lists(st.tuples(st.integers(0, len(text)), HOSTILE_PIECES), min_size=1, max_size=5))
        for pos, piece in sorted(pieces, reverse=True):
            text = text[:pos] + piece + text[pos:]
        raw = text.encode("utf-8")
    elif mode == "bytes":
        raw = bytearray(text.encode("utf-8"))
        for pos, value in data.draw(st.lists(st.tuples(st.integers(0, max(0, len(raw) - 1)), st.integers(0, 255)),
                                             min_size=1, max_size=4)):
            if raw:
                raw[pos] = value
        raw = bytes(raw)
    else:
        raw = data.draw(st.one_of(st.binary(max_size=200), st.text(max_size=200).map(lambda t: t.encode("utf-8"))))
    path = tmp_path_factory.mktemp("fz") / "h.conllu"
    path.write_bytes(raw)
    for kwargs in ({}, {"encoding": "utf-8"}, {"require_heads": False, "check_tree": False}):
        try:
            items = read_conll(path, **kwargs)
        except ConllFormatError as err:
            assert err.source == str(path) and err.line is not None
        else:
            check_items(items, path)
        try:
            items = read_conll(path, on_error="skip", **kwargs)
        except PlgraphError as err:  # pragma: no cover - skip mode never raises on content
            pytest.fail(f"skip mode raised {err!r}")
        check_items(items, path)
