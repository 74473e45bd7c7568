"""One way to move in every table (less / k9s habits): `g`/`G`, `n`/`N` over matches, `/` search, `:` jump.

The panes use two kinds of table: VirtualTable (big, rows formatted when painted) and Textual's
DataTable (small). These helpers hide the difference.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, Union

from textual.widget import Widget
from textual.widgets import DataTable, Input

from cephtui.ui.jump import row_names
from cephtui.ui.widgets.filterinput import FilterInput
from cephtui.ui.widgets.virtualtable import VirtualTable

Table = Union[VirtualTable[Any], DataTable[Any]]


def table_of(pane: Widget, focused: Widget | None) -> Table | None:
    """The table keys act on: the focused one if it is in `pane`, else the pane's first shown table."""
    if isinstance(focused, (VirtualTable, DataTable)) and pane in focused.ancestors:
        return focused
    for table in pane.query("VirtualTable, DataTable"):
        if isinstance(table, (VirtualTable, DataTable)) and table.display and table.region.height:
            return table
    return None


def row_count(table: Table) -> int:
    return table.row_count


def cells(table: Table, index: int) -> list[str]:
    return [str(c) for c in table.get_row_at(index)]


def cursor(table: Table) -> int:
    return table.cursor if isinstance(table, VirtualTable) else table.cursor_row


def move(table: Table, index: int) -> None:
    if isinstance(table, VirtualTable):
        table.cursor = index
    else:
        table.move_cursor(row=index, animate=False)


def find(table: Table, match: Callable[[int], bool], start: int, step: int) -> tuple[int | None, bool]:
    """The next row from `start` (exclusive when step is ±1, inclusive when 0) that matches, wrapping;
    returns (index, wrapped)."""
    n = row_count(table)
    if n == 0:
        return None, False
    first = start if step == 0 else start + step
    step = step or 1
    for k in range(n):
        i = first + k * step
        if match(i % n):
            return i % n, not (0 <= i < n)
    return None, False


def text_matcher(table: Table, text: str) -> Callable[[int], bool]:
    """Rows whose text contains every word of `text`, case-insensitive (like the filters)."""
    words = text.lower().split()
    return lambda i: all(w in " ".join(cells(table, i)).lower() for w in words)


def named_row(table: Table, name: str) -> int | None:
    """The row called `name` (`osd.3`, a host, a pool, a user, a bucket; see jump.row_names)."""
    for i in range(row_count(table)):
        if name in row_names(cells(table, i)):
            return i
    return None


def filter_of(pane: Widget) -> FilterInput | None:
    """The pane's own filter box (PGs, OSDs, Users), if it has one."""
    found = pane.query(FilterInput)
    return found.first() if found else None


def typing(focused: Widget | None) -> bool:
    return isinstance(focused, Input)
