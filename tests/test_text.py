"""Raw text in: PTB tokenisation, the shipped Punkt splitter, paragraphs, and their
accuracy against the treebank on dev (the figures the raw-text issue asks for)."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plgraph.errors import InputError
from plgraph.text.sentences import SPLITTER_FILE, SentenceSplitter, default_splitter, paragraphs, running_text
from plgraph.text.tokenize import normalise, tokenize


@pytest.mark.parametrize("text,tokens", [
    ("I don't know who she wanted to see.", "I do n't know who she wanted to see ."),
    ("Who did you see?", "Who did you see ?"),
    ('He said, "It\'s over (for now)."', "He said , `` It 's over -LRB- for now -RRB- . ''"),
    ("S&P futures rose 5% to $12.5 million, AT&T's US$3 shares too.",
     "S&P futures rose 5 % to $ 12.5 million , AT&T 's US$ 3 shares too ."),
    ("They can't and won't go to the U.S.", "They ca n't and wo n't go to the U.S. ."),
    ("It sold the unit to Acme Corp.", "It sold the unit to Acme Corp ."),
    ("\u201cYes,\u201d she said \u2014 twice\u2026", "`` Yes , '' she said -- twice ..."),
])
def test_raw_sentences_are_tokenised_as_the_treebank_is(text, tokens):
    assert default_splitter().tokenize(text) == tokens.split()


def test_normalise_writes_typographic_characters_as_the_treebank():
    assert normalise("a\u2013b \u2013 c\u00a0d \u2019s") == "a-b -- c d 's"


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80))
def test_tokens_are_never_empty_and_never_hold_white_space(text):
    for token in tokenize(text):
        assert token and not any(c.isspace() for c in token)


def test_paragraphs_end_at_line_breaks_unless_the_text_is_wrapped():
    text = "Headline\nFirst line of a\nparagraph.\n\n  Next one.\n"
    assert list(paragraphs(text)) == [(0, "Headline"), (1, "First line of a"), (2, "paragraph."), (4, "Next one.")]
    assert list(paragraphs(text, wrapped=True)) == [(0, "Headline First line of a paragraph."), (4, "Next one.")]


def test_running_text_writes_headlines_on_lines_of_their_own():
    text = running_text([["Treasury", "Securities"], ["Prices", "rose", "in", "the", "U.S.", "."],
                         ["They", "fell", "."]])
    assert text == "Treasury Securities\nPrices rose in the U.S. They fell.\n"
    assert default_splitter().sentences(text) == [["Treasury", "Securities"], "Prices rose in the U.S. .".split(),
                                                  ["They", "fell", "."]]


def test_splitting_knows_company_abbreviations_that_end_sentences():
    splitter = default_splitter()
    got = splitter.split("He joined Acme Inc. Mr. Wolf left. The U.S. Army and Dr. Smith stayed.")
    assert got == ["He joined Acme Inc.", "Mr. Wolf left.", "The U.S. Army and Dr. Smith stayed."]


def test_the_shipped_splitter_is_the_one_trained_on_the_train_split(sample_dir):
    """``python -m plgraph text train-splitter`` remakes the shipped JSON exactly."""
    import plgraph
    from plgraph.text.accuracy import documents

    docs = documents(plgraph.corpus("train"))
    trained = SentenceSplitter.train([[s.words for s in d] for d in docs.values()], "x")
    with open(SPLITTER_FILE, encoding="utf-8") as f:
        shipped = json.load(f)
    assert {**trained.to_json(), "source": shipped["source"]} == shipped
    assert shipped["final_abbreviations"] == ["U.S."] and "Inc." in shipped["ending_abbreviations"]


def test_a_damaged_splitter_file_is_named(tmp_path):
    bad = tmp_path / "s.json"
    bad.write_text('{"format": "plgraph-punkt", "format_version": 1}', encoding="utf-8")
    with pytest.raises(InputError, match=r"s\.json: damaged plgraph-punkt file"):
        SentenceSplitter.load(bad)
    with pytest.raises(InputError, match="train-splitter"):
        SentenceSplitter.load(tmp_path / "none.json")


def test_dev_comes_back_from_raw_text_as_the_issue_asks(sample_dir, tmp_path, capsys):
    """At least 99% of dev sentences tokenised exactly from their detokenised words, and
    at least 97% found with exactly their tokens in each file written as running text
    (measured 429/433 and 424/433: the misses are named here, not loosened)."""
    from plgraph.cli import main

    out = tmp_path / "text.json"
    assert main(["text", "evaluate", "--split", "dev", "--json", str(out), "--no-progress"]) == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    tok, split = doc["tokenisation"], doc["splitting"]
    assert (tok["exact"], tok["sentences"]) == (429, 433) and tok["percent"] >= 99.0
    assert {m["id"] for m in tok["mismatches"]} == {"wsj_0159.0", "wsj_0159.1", "wsj_0159.5", "wsj_0159.7"}
    assert all("Dunkin'" in m["gold"] for m in tok["mismatches"])      # the treebank keeps a name's apostrophe
    assert (split["found"], split["sentences"]) == (424, 433) and split["percent"] >= 97.0
    assert "tokenised exactly 429/433 sentences (99.08%)" in capsys.readouterr().out
