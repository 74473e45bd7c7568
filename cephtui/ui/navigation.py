"""One way to move in every table (less / k9s habits): `g`/`G`, `n`/`N` over matches, `/` search, `:` jump.

The panes use two kinds of table: VirtualTable (big, rows formatted when painted) and Textual's
DataTable (small). The helpers below hide the difference; Moving, a mixin of CephTUI (ui/app.py),
binds them to keys on the tab shown.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Union

from textual.app import App
from textual.css.query import NoMatches
from textual.widget import Widget
from textual.widgets import DataTable, Input, TabbedContent, TextArea

from cephtui.ui.compat import node_bindings
from cephtui.ui.jump import Names, row_names, suggestions
from cephtui.ui.pane import Pane, tab_of
from cephtui.ui.widgets.filterinput import FilterInput
from cephtui.ui.widgets.promptbar import PromptBar
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


class Moving(App[None]):
    """Tabs by number, `:` and `/` prompts, `n`/`N`, `g`/`G`, enter on a row. The attributes annotated
    here are set in CephTUI.__init__/on_mount."""

    tabs: TabbedContent
    _tab_opening: str | None  # the tab whose pane has not taken the focus yet (action_show_tab)
    keys_wait_for: Callable[[Callable[[], bool]], None]  # compat.KeysInOrder
    panes: tuple[Pane, ...]
    _jump_names: Names  # names `:` completes, kept across snapshots
    _search: dict[str, str]  # tab -> the `/` search of a tab without a filter of its own

    def action_show_tab(self, key: str) -> None:
        if key == self.tabs.active:
            # No tab change, so no TabActivated to refocus the pane: focus it here, or its keys
            # would stop working until another tab was picked.
            self._focus_pane()
            return
        # Drop focus first: a focused widget in the old pane would pull its tab back to the front.
        self.set_focus(None)
        # The new pane takes the focus only after its TabActivated and a refresh (CephTUI.
        # on_tabbed_content_tab_activated): until then a key typed behind this one reaches no pane (`5c` in
        # one read opened no pool wizard), so the keys wait for it.
        self._tab_opening = key
        self.keys_wait_for(lambda: self._tab_opening != key)
        self.tabs.active = key

    @property
    def active_pane(self) -> Pane:
        key = self.tabs.active
        return next(p for p in self.panes if tab_of(p) == key)

    @property
    def prompt(self) -> PromptBar:
        return self.query_one(PromptBar)

    def _focus_pane(self) -> None:
        self.active_pane.focus_table()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("jump", "search"):  # priority bindings: the main screen only, never over typing
            return len(self.screen_stack) == 1 and not isinstance(self.focused, (Input, TextArea))
        return True

    def action_jump(self) -> None:
        n = self._jump_names
        self.prompt.open("jump", completions=suggestions(n.pools, n.osds, sorted(self.available_themes),
                                                          n.users, n.buckets))

    def action_search(self) -> None:
        """`/` on a tab without a filter of its own: find rows by their text (less's search)."""
        filter_box = filter_of(self.active_pane)
        if filter_box is not None:
            self.screen.set_focus(filter_box)  # at once: the keys typed after `/` are the filter's
            return
        if table_of(self.active_pane, self.focused) is None:
            self.notify("Nothing to search on this tab.", timeout=3)
            return
        self.prompt.open("search", self._search.get(self.tabs.active, ""))

    def on_prompt_bar_changed(self, message: PromptBar.Changed) -> None:
        if message.mode == "search" and message.text.strip():
            table = table_of(self.active_pane, None)
            if table is not None:  # as you type, the cursor goes to the first match from where it is
                index, _ = find(table, text_matcher(table, message.text), cursor(table), 0)
                if index is not None:
                    move(table, index)

    def _reveal(self, pane: Pane, name: str, until: float) -> None:
        """Put the cursor on the row called `name`: the tab's data may still be coming, so try a while."""
        table = table_of(pane, None)
        index = named_row(table, name) if table is not None else None
        if table is not None and index is not None:
            move(table, index)
        elif time.monotonic() < until and pane is self._shown_pane():
            self.set_timer(0.25, lambda: self._reveal(pane, name, until))

    def _shown_pane(self) -> Pane | None:
        """The active pane, or None between tabs or while the app is torn down (a timer may fire then)."""
        try:
            return self.active_pane
        except (StopIteration, NoMatches):
            return None

    def action_next_match(self, step: int) -> None:
        """`n` / `N`: the next / previous row matching the tab's filter or `/` search, wrapping."""
        pane = self.active_pane
        table = table_of(pane, self.focused)
        if table is None:
            return
        box = filter_of(pane)
        if box is not None and box.value.strip():
            what = f"filter '{box.value.strip()}'"
            index, wrapped = find(table, lambda i: pane.is_match(table, i), cursor(table), step)
        elif self._search.get(self.tabs.active):
            what = f"search '{self._search[self.tabs.active]}'"
            index, wrapped = find(table, text_matcher(table, self._search[self.tabs.active]),
                                  cursor(table), step)
        else:
            self.notify("Nothing to match: `/` first (filter or search).", timeout=3)
            return
        if index is None:
            self.notify(f"Pattern not found: {what}", severity="warning", timeout=3)
            return
        move(table, index)
        table.focus()
        if wrapped:
            self.notify(f"{what}: wrapped to the {'top' if step > 0 else 'bottom'}", timeout=2)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a DataTable (or a click on its highlighted row) is the pane's `enter`: the table's own
        enter binding would otherwise swallow it (the Pools tab's settings view never opened from its table)."""
        self._open_row(event.data_table)

    def on_virtual_table_activated(self, event: VirtualTable.Activated) -> None:
        self._open_row(event.table)  # a double click

    def _open_row(self, table: Widget) -> None:
        """Run the `enter` of the pane holding `table` (OSD detail, pool settings …), if it has one."""
        pane = next((p for p in table.ancestors if p in self.panes), None)
        if pane is None or table.screen is not self.screen:
            return
        enter = node_bindings(pane).get("enter")
        if enter:
            self.run_worker(self.run_action(enter[0].action, pane), exit_on_error=False)

    def action_edge(self, where: int) -> None:
        table = table_of(self.active_pane, self.focused)
        if table is not None and row_count(table):
            move(table, 0 if where == 0 else row_count(table) - 1)
            table.focus()

