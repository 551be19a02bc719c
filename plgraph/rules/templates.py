"""The deduction rule templates of the one-endpoint-crossing dynamic program.

Transcribed from the thesis's template figure as used by the reference parser
(``rule-generation/templates_used.tex``).
The code implements the thesis-style templates (no "hat" bookkeeping of the
TACL paper), as the reference does.

Notation of an item: ``(types, side, mult, points, patterns)``

* ``types``: the item types allowed (``I``, ``X``, ``N``, ``L``, ``R``, ``B``;
  ``BLRN`` = any of those four);
* ``side``: ``<`` the external point lies left of the span, ``>`` right, ``""``
  either;
* ``mult``: ``~`` more than one edge from the external point into the span,
  ``-`` exactly one, ``""`` not constrained;
* ``points``: the template's names for the item's left end, right end and
  external point (``+`` stands for ``i+1``);
* ``patterns``: one string per point with one symbol per relation slot, in the
  order (wrt the other end, wrt the external point) for the ends and (wrt the
  left end, wrt the right end) for the external point: ``.`` anything, ``F``
  no relation, an upper-case letter a direct parent, ``j`` an indirect one,
  ``!Y`` not a direct parent (none or indirect), and ``!F`` alone: "has some
  parent among the item's points".  A single symbol stands for both slots.

An arc template is ``(goal, item, (parent, child))``: add the edge
child -> parent between two of the item's points.
"""
from __future__ import annotations

# item tuples: (types, side, mult, points, patterns)
I_ANY = ("I", "", "", None, (".", "."))


def I(points, pi=".", pj="."):  # noqa: E743 - reads like the thesis
    return ("I", "", "", points, (pi, pj))


def item(types, points, *patterns, side="", mult=""):
    return (types, side, mult, points, tuple(patterns))


GOAL_I_F = I("ij", "F", "!I")
GOAL_I_J = I("ij", "j", "F")
GOAL_SPECS = {
    "~L": item("L", "ijx", "!J!X", "!I!X", "!I!J", mult="~"),
    "-L": item("L", "ijx", "!J!X", "!I!X", "!I!J", mult="-"),
    "B>": item("B", "ijx", "F", "!I!X", "!I!J", side=">"),
    "<B": item("B", "ijx", "!J!X", "F", "!I!J", side="<"),
    "~N": item("N", "ijx", "!J!X", "!I!X", "!I!J", mult="~"),
    "-N": item("N", "ijx", "!J!X", "!I!X", "!I!J", mult="-"),
    "~R": item("R", "ijx", "!J!X", "!I!X", "!I!J", mult="~"),
    "-R": item("R", "ijx", "!J!X", "!I!X", "!I!J", mult="-"),
}
_KJ = I("kj")
_IK = I("ik")

#: The 47 combination templates T0-T46 as (goal, items), numbered as in the
#: reference's usage statistics.
COMBINATION_TEMPLATES = (
    # goal I[ij F !I]: i has no parent inside, j is not i's direct child
    (GOAL_I_F, (I("i+", "F", "F"), I("+j", "!F", "F"))),                                          # T0
    (GOAL_I_F, (I("ik", "F", "I"), _KJ)),                                                         # T1
    (GOAL_I_F, (item("BLRN", "ikj", "F", "I!J", "!I!K", side=">"), _KJ)),                         # T2
    (GOAL_I_F, (item("RN", "ikl", "F", "I!L", "!I!K", side=">"), I("kl"),
                item("LNX", "ljk", ".!K", ".", "!L.", side="<"))),                                # T3
    (GOAL_I_F, (item("BLRN", "ikl", "F", "I!L", "!I!K", side=">"), I("kl"), I("lj"))),            # T4
    (GOAL_I_F, (I("il", "F", "."), item("LN", "lki", ".!I", ".I", "F", side="<"),
                item("N", "kjl", "!J!L", "!K.", "!K.", side="<", mult="~"))),                     # T5
    (GOAL_I_F, (item("RNX", "ilk", "F", ".!K", "I!L", side=">"), I("lk"),
                item("LN", "kjl", ".!L", ".", "!K.", side="<", mult="~"))),                       # T6
    # goal I[ij j F]: i has j as an indirect ancestor
    (GOAL_I_J, (I("ik", "!F", "."), I("kj", "J", "F"))),                                          # T7
    (GOAL_I_J, (I("ik", "!F", "."), item("BLRN", "kji", "J!I", "F", "!K!J", side="<"))),          # T8
    (GOAL_I_J, (item("RNX", "ilk", "!F", ".!K", ".!L", side=">"), I("lk"),
                item("LN", "kjl", "J!L", "F", "!K!J", side="<"))),                                # T9
    (GOAL_I_J, (I("il", "!F", "."), I("lk"), item("BLRN", "kjl", "J!L", "F", "!K!J", side="<"))),  # T10
    (GOAL_I_J, (item("N", "ikl", "!K!F", "!I!L", ".!K", side=">", mult="~"),
                item("RN", "klj", ".J", ".!J", "F", side=">"), I("lj", ".", "F"))),               # T11
    (GOAL_I_J, (item("RN", "ikl", "!F", ".!L", ".!K", side=">", mult="~"), I("kl"),
                item("LNX", "ljk", ".!K", "F", "!LJ", side="<"))),                                # T12
    # goal ~L
    (GOAL_SPECS["~L"], (item("LN", "ikx", ".!X", ".X", "!I!K"), item("N", "kji", "!J!I", "!K!I", "!K!J", side="<"))),  # T13
    (GOAL_SPECS["~L"], (item("LN", "ikx", ".!X", ".!X", "!IK"), item("N", "kji", "!J!I", "!K!I", "!K!J", side="<"))),  # T14
    (GOAL_SPECS["~L"], (item("L", "ikx", ".!X", ".X", "!I!K"), _KJ)),                              # T15
    (GOAL_SPECS["~L"], (item("L", "ikx", ".!X", ".!X", "!IK"), _KJ)),                              # T16
    (GOAL_SPECS["~L"], (item("N", "ikx", "!K!X", "IX", "!I!K"), _KJ)),                             # T17
    (GOAL_SPECS["~L"], (item("N", "ikx", "!K!X", "I!X", "!IK"), _KJ)),                             # T18
    (GOAL_SPECS["~L"], (item("N", "ikx", "K!X", "!IX", "!I!K"), _KJ)),                             # T19
    (GOAL_SPECS["~L"], (item("N", "ikx", "K!X", "!I!X", "!IK"), _KJ)),                             # T20
    # goal -L
    (GOAL_SPECS["-L"], (item("X", "ikx", ".!X", ".X", "F"), item("LN", "kji", ".!I", ".!I", "!K!J", side="<"))),      # T21
    (GOAL_SPECS["-L"], (item("X", "ikx", ".!X", ".!X", "!IK"), item("LN", "kji", ".!I", ".!I", "!K!J", side="<"))),   # T22
    # goal B>
    (GOAL_SPECS["B>"], (item("LN", "ikx", "F", "I!X", "!I!K", side=">"), item("R", "kjx", ".", ".!X", ".!J", side=">"))),    # T23
    (GOAL_SPECS["B>"], (item("LN", "ikx", "F", "I!X", "!I!K", side=">"), item("N", "kjx", "!J.", "K!X", ".!J", side=">"))),  # T24
    (GOAL_SPECS["B>"], (item("LN", "ikx", "F", "I!X", "!I!K", side=">"), item("N", "kjx", "J.", "!K!X", ".!J", side=">"))),  # T25
    # goal <B
    (GOAL_SPECS["<B"], (item("L", "ikx", ".!X", ".", "!I.", side="<"), item("RN", "kjx", "J!X", "F", "!K!J", side="<"))),    # T26
    (GOAL_SPECS["<B"], (item("N", "ikx", "K!X", "!I.", "!I.", side="<"), item("RN", "kjx", "J!X", "F", "!K!J", side="<"))),  # T27
    (GOAL_SPECS["<B"], (item("N", "ikx", "!K!X", "I.", "!I.", side="<"), item("RN", "kjx", "J!X", "F", "!K!J", side="<"))),  # T28
    # goal ~N
    (GOAL_SPECS["~N"], (item("N", "ikx", "!K!X", "!IX", "!I!K", side="<"), _KJ)),                  # T29
    (GOAL_SPECS["~N"], (item("N", "ikx", "!K!X", "!I!X", "!IK", side="<"), _KJ)),                  # T30
    (GOAL_SPECS["~N"], (_IK, item("N", "kjx", "!JX", "!K!X", "!K!J", side=">"))),                  # T31
    (GOAL_SPECS["~N"], (_IK, item("N", "kjx", "!J!X", "!K!X", "K!J", side=">"))),                  # T32
    # goal -N
    (GOAL_SPECS["-N"], (item("X", "ikx", ".!X", ".X", "!I!K", side="<"), _KJ)),                    # T33
    (GOAL_SPECS["-N"], (item("X", "ikx", ".!X", ".!X", "!IK", side="<"), _KJ)),                    # T34
    (GOAL_SPECS["-N"], (_IK, item("X", "kjx", ".X", ".!X", "!K!J", side=">"))),                    # T35
    (GOAL_SPECS["-N"], (_IK, item("X", "kjx", ".!X", ".!X", "K!J", side=">"))),                    # T36
    # goal ~R
    (GOAL_SPECS["~R"], (item("N", "ikj", "!K!J", "!I!J", "!I!K", side=">"), item("RN", "kjx", ".X", ".!X", "!K!J"))),  # T37
    (GOAL_SPECS["~R"], (item("N", "ikj", "!K!J", "!I!J", "!I!K", side=">"), item("RN", "kjx", ".!X", ".!X", "K!J"))),  # T38
    (GOAL_SPECS["~R"], (_IK, item("R", "kjx", ".X", ".!X", "!K!J"))),                              # T39
    (GOAL_SPECS["~R"], (_IK, item("R", "kjx", ".!X", ".!X", "K!J"))),                              # T40
    (GOAL_SPECS["~R"], (_IK, item("N", "kjx", "JX", "!K!X", "!K!J"))),                             # T41
    (GOAL_SPECS["~R"], (_IK, item("N", "kjx", "J!X", "!K!X", "K!J"))),                             # T42
    (GOAL_SPECS["~R"], (_IK, item("N", "kjx", "!JX", "K!X", "!K!J"))),                             # T43
    (GOAL_SPECS["~R"], (_IK, item("N", "kjx", "!J!X", "K!X", "K!J"))),                             # T44
    # goal -R
    (GOAL_SPECS["-R"], (item("RN", "ikj", ".!J", ".!J", "!I!K", side=">"), item("X", "kjx", ".X", ".!X", "F"))),     # T45
    (GOAL_SPECS["-R"], (item("RN", "ikj", ".!J", ".!J", "!I!K", side=">"), item("X", "kjx", ".!X", ".!X", "K!J"))),  # T46
)

_BASE_3 = ".!X", ".!X", "!I!J"        # no direct edge from the external point's side
_BASE_PQ = "!J!X", "!I!X", "!I!J"     # no direct edge at all

#: Arc templates (goal, item, (parent, child)) for the crossing items; the
#: Interval and Exterval arc rules are fixed sets (see generate.py).
ARC_TEMPLATES = (
    (item("L", "ijx", ".!X", ".X", "!I!J", mult="~"), item("L", "ijx", *_BASE_3), ("x", "j")),
    (item("L", "ijx", ".!X", ".!X", "!IJ", mult="~"), item("L", "ijx", *_BASE_3), ("j", "x")),
    (item("L", "ijx", "J!X", "!I!X", "!I!J"), item("L", "ijx", *_BASE_PQ), ("j", "i")),
    (item("L", "ijx", "!J!X", "I!X", "!I!J"), item("L", "ijx", *_BASE_PQ), ("i", "j")),
    (item("R", "ijx", ".X", ".!X", "!I!J", mult="~"), item("R", "ijx", *_BASE_3), ("x", "i")),
    (item("R", "ijx", ".!X", ".!X", "I!J", mult="~"), item("R", "ijx", *_BASE_3), ("i", "x")),
    (item("R", "ijx", "J!X", "!I!X", "!I!J"), item("R", "ijx", *_BASE_PQ), ("j", "i")),
    (item("R", "ijx", "!J!X", "I!X", "!I!J"), item("R", "ijx", *_BASE_PQ), ("i", "j")),
    (item("N", "ijx", ".X", ".!X", "!I!J", mult="~"), item("N", "ijx", *_BASE_3), ("x", "i")),
    (item("N", "ijx", ".!X", ".!X", "I!J", mult="~"), item("N", "ijx", *_BASE_3), ("i", "x")),
    (item("N", "ijx", ".!X", ".X", "!I!J", mult="~"), item("N", "ijx", *_BASE_3), ("x", "j")),
    (item("N", "ijx", ".!X", ".!X", "!IJ", mult="~"), item("N", "ijx", *_BASE_3), ("j", "x")),
    (item("N", "ijx", "J!X", "!I!X", "!I!J"), item("N", "ijx", *_BASE_PQ), ("j", "i")),
    (item("N", "ijx", "!J!X", "I!X", "!I!J"), item("N", "ijx", *_BASE_PQ), ("i", "j")),
    (item("B", "ijx", "F", "I!X", "!I!J", side=">"), item("B", "ijx", "F", "!I!X", "!I!J", side=">"), ("i", "j")),
    (item("B", "ijx", "J!X", "F", "!I!J", side="<"), item("B", "ijx", "!J!X", "F", "!I!J", side="<"), ("j", "i")),
)
