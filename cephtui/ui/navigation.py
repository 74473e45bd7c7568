"""One way to move in every table (less / k9s habits): `g`/`G`, `n`/`N` over matches, `/` search, `:` jump.

The panes use two kinds of table: VirtualTable (big, rows formatted when painted) and Textual's
DataTable (small). The helpers below hide the difference; Navigation, owned by the app, does what the
keys ask on the tab shown (the app's actions and message handlers hand them over).
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Union

from textual.app import App
from textual.css.query import NoMatches
from textual.widget import Widget
from textual.widgets import DataTable, Input, TabbedContent

from cephtui.ui.compat import node_bindings
from cephtui.ui.jump import Names, row_names, suggestions
from cephtui.ui.pane import Pane
from cephtui.ui.tab_panes import TabPanes
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


class Navigation:
    """Tabs by number, `:` and `/` prompts, `n`/`N`, `g`/`G`, enter on a row."""

    def __init__(self, app: App[Any], tabs: TabbedContent, panes: TabPanes,
                 keys_wait_for: Callable[[Callable[[], bool]], None]) -> None:
        self.app = app
        self.tabs = tabs
        self.panes = panes
        self._keys_wait_for = keys_wait_for  # compat.KeysInOrder: the keys typed behind wait for a condition
        self.tab_opening: str | None = None  # a tab switched to whose pane has not taken the focus yet
        self.names = Names()  # names `:` completes, kept across snapshots
        self._search: dict[str, str] = {}  # tab -> the `/` search of a tab without a filter of its own
        self._revealing: object | None = None  # the jump whose row is still looked for (reveal)
        self._keys_held: object | None = None  # the jump the keys typed behind it wait for

    @property
    def prompt(self) -> PromptBar:
        return self.app.query_one(PromptBar)

    def show_tab(self, key: str) -> None:
        if key == self.tabs.active:
            # No tab change, so no TabActivated to refocus the pane: focus it here, or its keys
            # would stop working until another tab was picked.
            self.focus_pane()
            return
        # Drop focus first: a focused widget in the old pane would pull its tab back to the front.
        self.app.set_focus(None)
        # The new pane takes the focus only after its TabActivated and a refresh (tab_activated below): until
        # then a key typed behind this one reaches no pane (`5c` in one read opened no pool wizard), so the
        # keys wait for it.
        self.tab_opening = key
        self._keys_wait_for(lambda: self.tab_opening != key)
        self.tabs.active = key

    def tab_activated(self, pane: Pane | None) -> None:
        """The tab holding `pane` was opened: its pane takes the focus after the tab's own focus handling."""
        if pane is None:
            self.tab_opening = None
            return
        # After the tab's own focus handling, so digits switch tabs instead of typing in the filter.
        self.app.call_after_refresh(self._focus_opened, pane)

    def _focus_opened(self, pane: Pane) -> None:
        pane.focus_table()
        # Behind the focus callback that focus_table queued: the keys held for this tab go on after it.
        self.app.call_later(self._tab_opened)

    def _tab_opened(self) -> None:
        self.tab_opening = None

    def focus_pane(self) -> None:
        self.panes.active.focus_table()

    def open_jump(self) -> None:
        n = self.names
        self.prompt.open("jump", completions=suggestions(n.pools, n.osds, sorted(self.app.available_themes),
                                                          n.users, n.buckets))

    def search(self) -> None:
        """`/` on a tab without a filter of its own: find rows by their text (less's search)."""
        filter_box = filter_of(self.panes.active)
        if filter_box is not None:
            self.app.screen.set_focus(filter_box)  # at once: the keys typed after `/` are the filter's
            return
        if table_of(self.panes.active, self.app.focused) is None:
            self.app.notify("Nothing to search on this tab.", timeout=3)
            return
        self.prompt.open("search", self._search.get(self.tabs.active, ""))

    def searched(self, text: str, cancelled: bool) -> None:
        self._search[self.tabs.active] = "" if cancelled else text.strip()
        self.focus_pane()

    def search_changed(self, message: PromptBar.Changed) -> None:
        if message.mode == "search" and message.text.strip():
            table = table_of(self.panes.active, None)
            if table is not None:  # as you type, the cursor goes to the first match from where it is
                index, _ = find(table, text_matcher(table, message.text), cursor(table), 0)
                if index is not None:
                    move(table, index)

    def reveal(self, pane: Pane, name: str, until: float) -> None:
        """Put the cursor on the row called `name`: the tab's data may still be coming, so try a while.

        The keys typed behind the jump wait until the cursor is there, or until the table has rows and none is
        called `name`: `:osd.1⏎w` in one read reweighted no OSD, because the OSD tree comes with the first
        poll after its tab opens and `w` found an empty table."""
        token = object()
        self._revealing = self._keys_held = token
        self._keys_wait_for(lambda: self._keys_held is not token)
        self._reveal(pane, name, until, token)

    def _reveal(self, pane: Pane, name: str, until: float, token: object) -> None:
        if self._revealing is not token:
            return  # a later jump took over
        table = table_of(pane, None)
        index = named_row(table, name) if table is not None else None
        if table is not None and index is not None:
            move(table, index)
        elif time.monotonic() < until and pane is self._shown_pane():
            if table is not None and row_count(table) and self._keys_held is token:
                self._keys_held = None  # rows, none of them `name` (yet): the keys behind act on what is there
            self.app.set_timer(0.25, lambda: self._reveal(pane, name, until, token))
            return
        self._revealing = None
        if self._keys_held is token:
            self._keys_held = None

    def _shown_pane(self) -> Pane | None:
        """The active pane, or None between tabs or while the app is torn down (a timer may fire then)."""
        try:
            return self.panes.shown()
        except NoMatches:
            return None

    def next_match(self, step: int) -> None:
        """`n` / `N`: the next / previous row matching the tab's filter or `/` search, wrapping."""
        pane = self.panes.active
        table = table_of(pane, self.app.focused)
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
            self.app.notify("Nothing to match: `/` first (filter or search).", timeout=3)
            return
        if index is None:
            self.app.notify(f"Pattern not found: {what}", severity="warning", timeout=3)
            return
        move(table, index)
        table.focus()
        if wrapped:
            self.app.notify(f"{what}: wrapped to the {'top' if step > 0 else 'bottom'}", timeout=2)

    def open_row(self, table: Widget) -> None:
        """Run the `enter` of the pane holding `table` (OSD detail, pool settings …), if it has one: enter on a
        DataTable (or a click on its highlighted row), a double click on a VirtualTable."""
        pane = next((p for p in table.ancestors if p in self.panes.panes), None)
        if pane is None or table.screen is not self.app.screen:
            return
        enter = node_bindings(pane).get("enter")
        if enter:
            self.app.run_worker(self.app.run_action(enter[0].action, pane), exit_on_error=False)

    def edge(self, where: int) -> None:
        table = table_of(self.panes.active, self.app.focused)
        if table is not None and row_count(table):
            move(table, 0 if where == 0 else row_count(table) - 1)
            table.focus()
