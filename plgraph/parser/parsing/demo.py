"""The parsing demo of ``make demo``: the quick-start sentence and three constructions with
traces, from raw text, through a trained parser.

:data:`QUICKSTART` is the sentence the README and the documentation's home page open with;
:data:`DEMO_SENTENCES` are raw sentences of three constructions that need null elements
and co-indexation in the PTB: wh-movement, a passive, and raising with control.
:func:`run_demo` parses them (:meth:`~plgraph.parser.parsing.parser.Parser.__call__`:
tokenised as the treebank is, tags predicted) and returns them with the time the model
took to load and each sentence to parse; :func:`demo_text` formats them: each tree and
its trace records.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

#: the quick start's raw sentence (an embedded question with control: two null elements)
QUICKSTART = ("embedded question with control (the object of `see` moved to `who`; `she` the subject of `to see`)",
              "I don't know who she wanted to see.")
#: (construction, raw sentence) of the demo, the quick start first
DEMO_SENTENCES = (
    QUICKSTART,
    ("wh-question (embedded; the object of `do` moved to `what`)", "Analysts asked what the company would do."),
    ("passive (the subject is the object of `acquired`)", "The company was acquired by a Japanese investor in 1988."),
    ("raising and control (`seems` raises, `want` controls)", "The chairman seems to want to leave the board."),
)


@dataclass
class DemoRun:
    """What :func:`run_demo` did: the parser's ``scorer`` and folder, ``load_seconds``,
    and per sentence its construction, its
    :class:`~plgraph.parser.parsing.document.ParsedSentence` and parse seconds."""

    scorer: str
    model_dir: str
    load_seconds: float
    items: list = field(default_factory=list)


def run_demo(model_dir, scorer: str, sentences=DEMO_SENTENCES) -> DemoRun:
    """Load ``scorer`` (``linear`` / ``neural``) of model folder ``model_dir`` and parse
    ``sentences`` (``(construction, raw sentence)`` pairs) as raw text."""
    from .parser import Parser

    start = time.perf_counter()
    parser = Parser.load(model_dir, scorer=scorer)
    run = DemoRun(scorer, str(model_dir), time.perf_counter() - start)
    for construction, text in sentences:
        start = time.perf_counter()
        doc = parser(text)
        run.items.append((construction, doc.sentences[0], time.perf_counter() - start))
    return run


def demo_text(run: DemoRun) -> str:
    """The demo's printout: each sentence, its construction, tokens, status, PTB tree (null
    elements and co-indices, root ``TOP``), trace records, and the times."""
    from nltk import Tree as NltkTree

    lines = [f"{run.scorer} scorer of {run.model_dir}: loaded in {run.load_seconds:.2f} s"]
    for k, (construction, sentence, seconds) in enumerate(run.items):
        note = " (includes compiling the parser's kernels when they are not cached yet)" if k == 0 else ""
        lines += ["", f"# {construction}", f"# {sentence.text}", f"# tokens: {' '.join(sentence.words)}",
                  f"# parsed in {seconds:.2f} s{note}; status {sentence.status}",
                  NltkTree.fromstring(sentence.tree).pformat(margin=100)]
        lines += [f"  {r}" for r in sentence.traces]
    return "\n".join(lines) + "\n"


__all__ = ["DEMO_SENTENCES", "QUICKSTART", "DemoRun", "run_demo", "demo_text"]
