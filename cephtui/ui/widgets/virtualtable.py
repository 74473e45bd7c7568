"""A read-only table that renders only the rows on screen: 100k PGs cost what 40 do.

Textual's DataTable measures and stores every cell when a row is added (about
0.3 ms a row here, so 30 s for 100k PGs) and removes rows one at a time. This
widget keeps the caller's row objects in a list and formats a row only when it
is painted, via the `cells` callable. Replacing the list is O(1); the cursor
follows its row by key.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, Generic, TypeVar

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.events import Click
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from cephtui.ui.palette import contrast

T = TypeVar("T")
Cell = tuple[str, str]  # text, rich style string
CURSOR_CONTRAST = 3.0  # below this a cell on the cursor row takes the cursor's text colour


class VirtualTable(ScrollView, Generic[T], can_focus=True):
    class Activated(Message):
        """A row was double-clicked: open it, as enter does on the pane (the app runs the pane's enter)."""

        def __init__(self, table: VirtualTable[Any]) -> None:
            super().__init__()
            self.table = table

    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "jump(0)", "Top", show=False),
        Binding("end", "jump(-1)", "Bottom", show=False),
    ]
    COMPONENT_CLASSES = {"virtual-table--header", "virtual-table--cursor"}
    DEFAULT_CSS = """
    VirtualTable { height: 1fr; }
    VirtualTable > .virtual-table--header { text-style: bold; background: $panel; }
    VirtualTable > .virtual-table--cursor { background: $primary 30%; }
    VirtualTable:focus > .virtual-table--cursor { background: $primary 60%; }
    """

    cursor = reactive(0, repaint=True)

    def __init__(self, columns: Sequence[tuple[str, int]], cells: Callable[[T], Sequence[Cell]],
                 key: Callable[[T], Hashable], locate: Callable[[Sequence[T], Hashable], int | None] | None = None,
                 **kw: object) -> None:
        """`locate(rows, key)` finds a row by key faster than a scan (200,000 sorted PGs: bisect)."""
        super().__init__(**kw)  # type: ignore[arg-type]
        self.columns = list(columns)  # (label, width)
        self._order: list[int] | None = None  # set_columns: which of cells() each shown column is
        self._cells = cells
        self._key = key
        self._locate = locate
        self._rows: Sequence[T] = ()
        self._styles: dict[str, Style] = {}
        self._cursor_styles: dict[tuple[str, Style], Style] = {}

    # ------------------------------------------------------------ data
    @property
    def row_count(self) -> int:
        return len(self._rows)

    @property
    def rows(self) -> Sequence[T]:
        return self._rows

    def set_rows(self, rows: Sequence[T]) -> None:
        """Show `rows` (already filtered and ordered); keep the cursor on the same row if it is still there."""
        current = self._key(self._rows[self.cursor]) if 0 <= self.cursor < len(self._rows) else None
        self._rows = rows
        if current is not None and (len(rows) <= self.cursor or self._key(rows[self.cursor]) != current):
            if self._locate is not None:
                self.cursor = self._locate(rows, current) or 0
            else:
                self.cursor = next((i for i, r in enumerate(rows) if self._key(r) == current), 0)
        self.cursor = min(self.cursor, max(len(rows) - 1, 0))
        width = sum(w + 2 for _, w in self.columns)
        self.virtual_size = Size(width, len(rows) + 1)
        self.refresh()

    def set_columns(self, columns: Sequence[tuple[str, int]], order: Sequence[int] | None = None) -> None:
        """Show other columns, e.g. fewer and narrower on 80 columns, more on a wide terminal:
        display column i is cells()[order[i]] (a missing cell shows blank). get_row_at is unaffected."""
        if list(columns) == self.columns and (None if order is None else list(order)) == self._order:
            return
        self.columns = list(columns)
        self._order = None if order is None else list(order)
        self.set_rows(self._rows)

    def get_row_at(self, index: int) -> list[str]:
        return [text for text, _ in self._cells(self._rows[index])]

    # ------------------------------------------------------------ rendering
    def _style(self, spec: str) -> Style:
        if spec not in self._styles:
            self._styles[spec] = Style.parse(spec) if spec else Style()
        return self._styles[spec]

    def _on_cursor(self, spec: str, base: Style) -> Style:
        """A cell on the cursor row: in its own colour where that stays readable on the cursor's background,
        else in the cursor's text colour (a warning colour on the highlight bar can all but vanish)."""
        key = (spec, base)
        style = self._cursor_styles.get(key)
        if style is None:
            style = base + self._style(spec)
            fg, bg = style.color, base.bgcolor
            if fg is not None and bg is not None and base.color is not None and not fg.is_default \
                    and contrast(fg.get_truecolor().hex, bg.get_truecolor().hex) < CURSOR_CONTRAST:
                style += Style(color=base.color)
            if len(self._cursor_styles) > 512:
                self._cursor_styles.clear()
            self._cursor_styles[key] = style
        return style

    def _line(self, cells: Sequence[Cell], base: Style, shown: bool = False, cursor: bool = False) -> list[Segment]:
        """One line; `shown`: cells already in display order (the header); `cursor`: the cursor's row."""
        segs = [Segment(" ", base)]
        if self._order is not None and not shown:
            cells = [cells[i] if i < len(cells) else ("", "") for i in self._order]
        for (text, style), (_, width) in zip(cells, self.columns):
            text = text[:width].ljust(width)
            segs.append(Segment(text, (self._on_cursor(style, base) if cursor else base + self._style(style))
                                if style else base))
            segs.append(Segment("  ", base))
        return segs

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.size.width
        base = self.rich_style
        if y == 0:  # the header stays put while rows scroll under it
            header = self.get_component_rich_style("virtual-table--header")
            segs = self._line([(label, "") for label, _ in self.columns], base + header, shown=True)
        else:
            index = scroll_y + y - 1
            if index >= len(self._rows):
                return Strip.blank(width, base)
            style = base + self.get_component_rich_style("virtual-table--cursor") if index == self.cursor else base
            segs = self._line(self._cells(self._rows[index]), style, cursor=index == self.cursor)
        return Strip(segs).crop_extend(scroll_x, scroll_x + width, base)

    # ------------------------------------------------------------ cursor
    def watch_cursor(self, _old: int, new: int) -> None:
        visible = max(self.size.height - 1, 1)
        top = self.scroll_offset.y
        if new < top:
            self.scroll_to(y=new, animate=False)
        elif new >= top + visible:
            self.scroll_to(y=new - visible + 1, animate=False)

    def on_click(self, event: Click) -> None:
        index = self.scroll_offset.y + event.y - 1
        if event.y >= 1 and 0 <= index < len(self._rows):
            self.cursor = index
            if event.chain == 2:  # a double click opens the row, as enter does where the pane has it
                self.post_message(self.Activated(self))

    def action_cursor(self, delta: int) -> None:
        if self._rows:
            self.cursor = max(0, min(len(self._rows) - 1, self.cursor + delta))

    def action_page(self, direction: int) -> None:
        self.action_cursor(direction * max(self.size.height - 2, 1))

    def action_jump(self, where: int) -> None:
        if self._rows:
            self.cursor = 0 if where == 0 else len(self._rows) - 1
