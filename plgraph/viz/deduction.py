"""Drawing deduction rules with matplotlib: each rule as premises over a bar and its
conclusion below, under the heading of its group, in a grid of cells; a cell marked
``boxed`` sits in a blue box.

The layout is measured, not guessed: every text is drawn once, its extent read from the
renderer, and the columns are as wide as their widest rule, so no text overlaps another.
Texts are matplotlib mathtext (``$...$``) or plain.
"""
from __future__ import annotations

from dataclasses import dataclass

#: the blue of unseen rules: box edge and fill
BOX_EDGE = "#1f4fbf"
BOX_FILL = "#dbe6fb"


@dataclass(frozen=True)
class Cell:
    """One rule: ``premises`` and ``goal`` (mathtext without ``$``), a ``label`` and a
    ``note`` (plain text, under the rule), ``boxed`` to box it in blue."""

    label: str
    premises: str
    goal: str
    note: str
    boxed: bool = False


@dataclass(frozen=True)
class Section:
    """A heading (text, may hold ``$...$``) over its cells, laid out ``ncols`` to a row."""

    heading: str
    cells: tuple
    ncols: int = 3


def draw_deductions(sections, title: str = "", footer: tuple = (), fontsize: float = 9.5):
    """A figure of ``sections`` top to bottom, ``title`` above and the lines of ``footer``
    (plain or mathtext) below; its size follows from the measured texts."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyBboxPatch

    fig = plt.figure(figsize=(10, 10))
    tr = fig.dpi_scale_trans
    renderer = fig.canvas.get_renderer()

    def text(s, **kw):
        return fig.text(0, 0, s, transform=tr, **kw)

    def size(artist):
        box = artist.get_window_extent(renderer)
        return box.width / fig.dpi, box.height / fig.dpi

    small = fontsize * 0.8
    drawn = []
    for sec in sections:
        heading = text(sec.heading, fontsize=fontsize + 1, fontweight="bold", va="top", ha="left")
        cells = []
        for c in sec.cells:
            cells.append((c,
                          text(f"${c.premises}$", fontsize=fontsize, va="bottom", ha="left"),
                          text(f"${c.goal}$", fontsize=fontsize, va="top", ha="left"),
                          text(f"{c.label}   {c.note}", fontsize=small, va="top", ha="left",
                               color="#1f1f1f" if not c.boxed else BOX_EDGE)))
        drawn.append((sec, heading, cells))
    title_artist = text(title, fontsize=fontsize + 3, fontweight="bold", va="top", ha="left") if title else None
    footer_artists = [text(line, fontsize=small, va="top", ha="left", color="#333333") for line in footer]

    pad, gap, margin = 0.08, 0.30, 0.3
    prem_h = max((size(p)[1] for _, _, cs in drawn for _, p, _, _ in cs), default=0.2)
    goal_h = max((size(g)[1] for _, _, cs in drawn for _, _, g, _ in cs), default=0.2)
    note_h = max((size(n)[1] for _, _, cs in drawn for _, _, _, n in cs), default=0.15)
    cell_h = prem_h + 0.06 + goal_h + 0.05 + note_h + 2 * pad
    widths = {}
    for sec, _, cs in drawn:
        w = max((max(size(p)[0], size(g)[0], size(n)[0]) for _, p, g, n in cs), default=1.0)
        widths[id(sec)] = w + 2 * pad
    total_w = max((widths[id(sec)] + gap) * sec.ncols for sec, _, _ in drawn) - gap
    total_w = max(total_w, *(size(a)[0] for a in footer_artists), size(title_artist)[0] if title_artist else 0)

    # top-down positions (inches from the top), then flipped once the height is known
    placed = []
    y = margin
    if title_artist is not None:
        placed.append((title_artist, margin, y))
        y += size(title_artist)[1] + 0.25
    boxes = []
    for sec, heading, cs in drawn:
        placed.append((heading, margin, y))
        y += size(heading)[1] + 0.12
        colw = widths[id(sec)]
        for k, (cell, prem, goal, note) in enumerate(cs):
            row, col = divmod(k, sec.ncols)
            x0 = margin + col * (colw + gap)
            top = y + row * (cell_h + 0.12)
            wp, wg = size(prem)[0], size(goal)[0]
            bar = max(wp, wg)
            placed.append((prem, x0 + pad + (bar - wp) / 2, top + pad + prem_h))
            placed.append((goal, x0 + pad + (bar - wg) / 2, top + pad + prem_h + 0.06))
            placed.append((note, x0 + pad, top + pad + prem_h + 0.06 + goal_h + 0.05))
            boxw = max(bar, size(note)[0]) + 2 * pad
            boxes.append((cell.boxed, x0, top, boxw, bar, top + pad + prem_h + 0.03))
        rows = -(-len(cs) // sec.ncols)
        y += rows * (cell_h + 0.12) + 0.18
    for artist in footer_artists:
        placed.append((artist, margin, y))
        y += size(artist)[1] + 0.06
    height = y + margin
    width = total_w + 2 * margin
    fig.set_size_inches(width, height)
    # final positions as fractions of the figure (bbox_inches="tight" crops texts placed in
    # inches wrongly when the saving dpi differs from the figure's)
    frac = fig.transFigure
    for artist, x, ytop in placed:
        artist.set_transform(frac)
        artist.set_position((x / width, 1 - ytop / height))
    for boxed, x0, top, boxw, bar, bar_y in boxes:
        if boxed:
            fig.add_artist(FancyBboxPatch((x0 / width, 1 - (top + cell_h) / height), boxw / width, cell_h / height,
                                          transform=frac, boxstyle="square,pad=0", facecolor=BOX_FILL,
                                          edgecolor=BOX_EDGE, linewidth=1.2, zorder=0))
        fig.add_artist(plt.Line2D([(x0 + pad) / width, (x0 + pad + bar) / width], [1 - bar_y / height] * 2,
                                  transform=frac, color="black", linewidth=0.8))
    return fig
