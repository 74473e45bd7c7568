"""The virtual PG table on 100k rows: cursor, paging, row-following across updates. No cluster needed."""
from __future__ import annotations

import msgspec
import pytest
from textual.app import App, ComposeResult

from cephtui.ceph.snapshot.models import PGBrief
from cephtui.ui.panes.pgs import PG_COLUMNS, locate_pg, pg_cells
from cephtui.ui.widgets.virtualtable import VirtualTable

pytestmark = pytest.mark.look  # no cluster: the look tier's fast loop (tests/conftest.py)

ROWS = [PGBrief(f"1.{i:x}", "active+clean", (i % 7, (i + 1) % 7), (i % 7, (i + 1) % 7), i % 7, i % 7)
        for i in range(100_000)]


class TableApp(App[None]):
    def __init__(self, locate: bool = False) -> None:
        super().__init__()
        self.locate = locate

    def compose(self) -> ComposeResult:
        yield VirtualTable(PG_COLUMNS, pg_cells, key=lambda pg: pg.pgid, locate=locate_pg if self.locate else None)


@pytest.mark.parametrize("locate", [False, True], ids=["scan", "bisect"])
async def test_cursor_paging_and_following_a_row(locate: bool) -> None:
    app = TableApp(locate)
    async with app.run_test(size=(120, 30)) as pilot:
        table = app.query_one(VirtualTable)
        table.set_rows(ROWS)
        table.focus()
        await pilot.pause()
        assert table.row_count == 100_000
        assert table.get_row_at(0)[:2] == ["1.0", "active+clean"]

        await pilot.press("end")
        assert table.cursor == 99_999
        assert table.scroll_offset.y > 99_000  # scrolled to keep the cursor visible
        await pilot.press("home", "down", "down", "pagedown")
        assert table.cursor == 2 + table.size.height - 2

        # A refresh that removes rows above keeps the cursor on the same PG.
        pgid = ROWS[table.cursor].pgid
        table.set_rows(ROWS[5:])
        assert table.rows[table.cursor].pgid == pgid
        # A refresh in which that PG changed state keeps it too (rows are matched by key).
        changed = [msgspec.structs.replace(pg, state="active+undersized+degraded") for pg in ROWS]
        table.set_rows(changed)
        assert table.rows[table.cursor].pgid == pgid
        assert table.get_row_at(table.cursor)[1] == "active+undersized+degraded"
        # When it disappears, the cursor stays in range.
        table.set_rows(ROWS[:3])
        assert 0 <= table.cursor < 3
        await pilot.click(VirtualTable, offset=(5, 3))  # header is line 0: line 3 is the third row
        assert table.cursor == 2
        table.set_rows([])
        await pilot.press("down", "end")
        assert table.cursor == 0
