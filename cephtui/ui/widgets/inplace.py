"""Update a Static without reflowing the screen when its content keeps its height.

Textual's `Static.update` defaults to a layout pass, and a layout pass arranges and re-renders the
whole screen. Panes that update several Statics on a timer (the Bench tab's live view, twice a second)
paid that several times per tick: profiled (py-spy) on a 3-OSD sandbox on two busy cores, the UI thread
was busy 39% of a run, 44% of that in reflows, and they made its longest stalls (docs/performance.md).

`update_in_place` measures the new content at the widget's width and asks for a layout only when its
height differs from what was laid out last (or the width changed since, or nothing was measured yet).
A widget with `width: auto` always gets its layout: its width follows its content. One whose height is
set in cells never needs one, nor a measurement.
"""
from __future__ import annotations

from weakref import WeakKeyDictionary

from textual.css.scalar import Unit
from textual.visual import VisualType
from textual.widgets import Static

# widget -> (content width, content height) when it was last laid out with a known height
_measured: WeakKeyDictionary[Static, tuple[int, int]] = WeakKeyDictionary()


def update_in_place(static: Static, content: VisualType) -> None:
    height_rule = static.styles.height
    if height_rule is not None and height_rule.unit == Unit.CELLS:
        static.update(content, layout=False)  # its height is set in cells: its content never moves anything
        return
    width = static.content_region.width
    if static.styles.width is not None and static.styles.width.is_auto:
        static.update(content)  # sized by its content's width too: any change may move its neighbours
        return
    if width <= 0:  # not laid out yet, or hidden: a layout is asked all the same, or showing its tab would reuse
        _measured.pop(static, None)  # the arrangement its box cached, with the old height (the Doctor's
        static.update(content)  # explanation stayed one line, as 'nothing to explain', until a resize). Cheap:
        return  # a hidden pane renders when its tab is opened (ui/poller.py), and that opening lays out anyway
    static.update(content, layout=False)
    height = static.visual.get_height(static.styles, width)  # type: ignore[arg-type]  # as Widget.get_content_height does
    if _measured.get(static) != (width, height):
        _measured[static] = (width, height)
        static.refresh(layout=True)

