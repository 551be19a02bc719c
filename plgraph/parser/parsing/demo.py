"""The parsing demo of ``make demo``: three sentences with traces through a trained parser.

:data:`DEMO_SENTENCES` are tokenised sentences of three constructions that need null
elements and co-indexation in the PTB: wh-movement, a passive, and raising with
control.  :func:`run_demo` tags them with the model's POS tagger, parses them and
returns the results with the time the model took to load and each sentence to parse;
:func:`demo_text` formats them.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

#: (construction, tokenised sentence) of the demo
DEMO_SENTENCES = (
    ("wh-question (embedded; the object of `do` moved to `what`)", "Analysts asked what the company would do ."),
    ("passive (the subject is the object of `acquired`)", "The company was acquired by a Japanese investor in 1988 ."),
    ("raising and control (`seems` raises, `want` controls)", "The chairman seems to want to leave the board ."),
)


@dataclass
class DemoRun:
    """What :func:`run_demo` did: the parser's ``scorer`` and folder, ``load_seconds``,
    and per sentence its construction, :class:`~plgraph.parser.parsing.parser.ParseResult`
    and parse seconds."""

    scorer: str
    model_dir: str
    load_seconds: float
    items: list = field(default_factory=list)


def run_demo(model_dir, scorer: str, sentences=DEMO_SENTENCES) -> DemoRun:
    """Load ``scorer`` (``linear`` / ``neural``) of model folder ``model_dir`` and parse
    ``sentences`` (``(construction, tokenised text)`` pairs) with predicted tags."""
    from .parser import Parser

    start = time.perf_counter()
    parser = Parser.load(model_dir, scorer=scorer)
    run = DemoRun(scorer, str(model_dir), time.perf_counter() - start)
    for construction, text in sentences:
        start = time.perf_counter()
        result = parser.parse_result(text.split(), sid=construction.split(" (")[0])
        run.items.append((construction, result, time.perf_counter() - start))
    return run


def demo_text(run: DemoRun) -> str:
    """The demo's printout: each sentence, its construction, status and PTB tree (null
    elements and co-indices, root ``TOP``), and the times."""
    from nltk import Tree as NltkTree

    from .output import tree_text

    lines = [f"{run.scorer} scorer of {run.model_dir}: loaded in {run.load_seconds:.2f} s"]
    for k, (construction, result, seconds) in enumerate(run.items):
        note = " (includes compiling the parser's kernels when they are not cached yet)" if k == 0 else ""
        lines += ["", f"# {construction}", f"# {' '.join(result.words)}",
                  f"# parsed in {seconds:.2f} s{note}; status {result.status}",
                  NltkTree.fromstring(tree_text(result, "TOP")).pformat(margin=100)]
    return "\n".join(lines) + "\n"


__all__ = ["DEMO_SENTENCES", "DemoRun", "run_demo", "demo_text"]
