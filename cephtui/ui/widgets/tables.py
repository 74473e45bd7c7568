"""In-place widget updates: change only what changed (at 5,000 OSDs, each skipped update is
a layout pass of the whole screen the UI thread does not make)."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Union
from weakref import WeakKeyDictionary

from rich.console import RenderableType
from rich.text import Text
from textual.widget import Widget
from textual.widgets import Static

from cephtui.ui import palette
from cephtui.ui.compat import DataTable
from cephtui.ui.widgets.inplace import update_in_place

Cell = Union[str, Text, int, float]


def _same(a: Cell, b: Cell) -> bool:
    if isinstance(a, Text) and isinstance(b, Text):
        return a.plain == b.plain and a.style == b.style and a.spans == b.spans
    return type(a) is type(b) and a == b


def sync_table(table: DataTable, rows: Mapping[Any, Sequence[Cell]], ordered: bool = False) -> bool:
    """Make `table` show exactly `rows` (key -> cells), touching only what differs.

    Rows keep their place and new rows are appended; returns whether rows were
    added, so a caller that wants an order can sort. Cursor and scroll survive.
    ordered=True: the rows also read in `rows`' order (a short table whose order means something,
    the Doctor's errors first): a row that came later is not left below the ones it outranks,
    and the cursor stays on the row it was on, wherever that row moves.
    """
    wanted: dict[str, Sequence[Cell]] = {str(k): v for k, v in rows.items()}
    columns = list(table.columns.keys())
    existing = {str(rk.value): rk for rk in table.rows.keys()}
    added = False
    with table.app.batch_update():
        for key in [k for k in existing if k not in wanted]:
            table.remove_row(existing[key])
        for skey, cells in wanted.items():
            if skey in existing:
                old = table.get_row(skey)
                for col, new, prev in zip(columns, cells, old):
                    if not _same(new, prev):
                        table.update_cell(skey, col, new, update_width=True)
            else:
                table.add_row(*cells, key=skey)
                added = True
        if ordered and [str(rk.value) for rk in table.rows.keys()] != list(wanted):
            _reorder(table, wanted)
    return added


def _reorder(table: DataTable, wanted: Mapping[str, Sequence[Cell]]) -> None:
    """Rows again in `wanted`'s order, the cursor on the same key (DataTable.sort orders by cells, not keys)."""
    try:
        at: str | None = str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
    except Exception:  # noqa: BLE001  # an empty table has no cursor row
        at = None
    table.clear()
    for skey, cells in wanted.items():
        table.add_row(*cells, key=skey)
    if at is not None and at in wanted:
        table.move_cursor(row=list(wanted).index(at), animate=False)


# What each Static last drew (by the key of the data it was drawn from); weak: a removed widget is forgotten.
_SHOWN: WeakKeyDictionary[Widget, object] = WeakKeyDictionary()


def sync_static(widget: Static, key: object, render: Callable[[], RenderableType], layout: bool = True) -> bool:
    """Show `render()` in `widget` unless `key` (the frozen data it is drawn from) is what the
    widget shows already; returns whether it was redrawn. layout=False for a widget whose size
    never changes; otherwise a layout pass of the whole screen only when the new content's height
    differs (update_in_place). A theme change draws it again (new colours)."""
    key = (palette.generation(), key)
    if _SHOWN.get(widget) == key:
        return False
    _SHOWN[widget] = key
    if layout:
        update_in_place(widget, render())
    else:
        widget.update(render(), layout=False)
    return True


def set_subtitle(widget: Widget, text: str) -> None:
    """Set a border subtitle only when it changes: Textual redraws the whole widget on every set,
    which for a box around a table of 5,000 OSDs is every visible row formatted again."""
    if widget.border_subtitle is None or str(widget.border_subtitle) != text:
        widget.border_subtitle = text
