"""sync_table keeps rows in place (a 5,000-OSD table is not rebuilt); ordered=True also keeps them in the
caller's order, for a short table whose order means something: the Doctor's checks, errors first, however
late a check was raised, the cursor staying on the check it was on (a CI run selected the wrong check when
OSD_DOWN came in after RECENT_CRASH and was appended below it)."""
from __future__ import annotations

from textual.app import App, ComposeResult

from cephtui.ui.compat import DataTable
from cephtui.ui.widgets.tables import sync_table


class TableApp(App[None]):
    def compose(self) -> ComposeResult:
        table = DataTable(id="t")
        table.add_columns("sev", "code")
        yield table


def keys(table: DataTable) -> list[str]:
    return [str(rk.value) for rk in table.rows.keys()]


def cursor_key(table: DataTable) -> str:
    return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)


async def test_a_late_error_goes_above_the_warning_and_the_cursor_stays_on_its_check() -> None:
    app = TableApp()
    async with app.run_test() as pilot:
        table = app.query_one("#t", DataTable)
        sync_table(table, {"RECENT_CRASH": ("WRN", "RECENT_CRASH"), "OSDMAP_FLAGS": ("WRN", "OSDMAP_FLAGS")},
                   ordered=True)
        table.move_cursor(row=table.get_row_index("OSDMAP_FLAGS"))
        await pilot.pause()
        sync_table(table, {"OSD_DOWN": ("ERR", "OSD_DOWN"), "RECENT_CRASH": ("WRN", "RECENT_CRASH"),
                           "OSDMAP_FLAGS": ("WRN", "OSDMAP_FLAGS")}, ordered=True)
        await pilot.pause()
        assert keys(table) == ["OSD_DOWN", "RECENT_CRASH", "OSDMAP_FLAGS"]
        assert cursor_key(table) == "OSDMAP_FLAGS"
        sync_table(table, {"RECENT_CRASH": ("WRN", "RECENT_CRASH"), "OSDMAP_FLAGS": ("WRN", "OSDMAP_FLAGS")},
                   ordered=True)  # the error cleared: the rest keep their order and the cursor its check
        await pilot.pause()
        assert keys(table) == ["RECENT_CRASH", "OSDMAP_FLAGS"] and cursor_key(table) == "OSDMAP_FLAGS"


async def test_unordered_rows_keep_their_place_and_new_ones_are_appended() -> None:
    app = TableApp()
    async with app.run_test() as pilot:
        table = app.query_one("#t", DataTable)
        sync_table(table, {"b": ("1", "b"), "c": ("1", "c")})
        added = sync_table(table, {"a": ("2", "a"), "b": ("1", "b"), "c": ("1", "c")})
        await pilot.pause()
        assert added and keys(table) == ["b", "c", "a"]  # the caller sorts if it wants an order
