"""Sparklines as text: one cell per time slot, so a line fits in a box, a table cell or a test's screen text.

Textual's Sparkline widget spreads whatever data it gets over its width; a history line must put each
point at its time instead (a gap in the recording is a gap on screen, the time cursor is one cell), so
the points are binned by time here, the highest value of a slot drawn (a spike is what an admin looks for).
"""
from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

BARS = "▁▂▃▄▅▆▇█"
GAP = " "  # no point recorded in the slot


def bin_points(points: Sequence[tuple[float, float]], since: float, until: float, width: int) -> list[float | None]:
    """The highest value per slot of (until - since) / width seconds; None where no point fell."""
    slots: list[float | None] = [None] * width
    span = max(until - since, 1e-9)
    for t, v in points:
        if t < since or t > until:
            continue
        i = min(int((t - since) / span * width), width - 1)
        slots[i] = v if slots[i] is None else max(slots[i], v)  # type: ignore[type-var]
    return slots


def spark(values: Sequence[float | None], top: float | None = None) -> str:
    """One character per value: ▁ for 0 (or the least), █ for `top` (default: the highest)."""
    real = [v for v in values if v is not None]
    top = max(real, default=0.0) if top is None else top
    out = []
    for v in values:
        if v is None:
            out.append(GAP)
        elif top <= 0:
            out.append(BARS[0])
        else:
            out.append(BARS[min(int(v / top * (len(BARS) - 1) + 0.5), len(BARS) - 1)])
    return "".join(out)


def spark_line(points: Sequence[tuple[float, float]], since: float, until: float, width: int,
               cursor: float | None = None, style: str = "", cursor_style: str = "reverse") -> Text:
    """The points binned over [since, until] as a sparkline, the cursor's slot drawn in cursor_style."""
    slots = bin_points(points, since, until, width)
    text = Text(spark(slots), style=style)
    if cursor is not None and since <= cursor <= until:
        i = min(int((cursor - since) / max(until - since, 1e-9) * width), width - 1)
        text.stylize(cursor_style, i, i + 1)
    return text
