"""Every OSD removal/replacement in the cluster's queue, like `ceph orch osd rm status`.

The rows come from the app (`removals.rows()`): the cluster's queue as last read by a worker, with
this session's own workflows at their live state. Enter opens one: this session's, or one paused,
blocked or failed elsewhere (taken over here, still paused: `p` on its screen resumes it). One that
another cephtui is driving right now is only shown: pause it there first.
"""
from __future__ import annotations

import time
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Static

from cephtui.ceph.workflows.queue import driven_elsewhere
from cephtui.ui import palette
from cephtui.ui.compat import DataTable
from cephtui.ui.services import services_of

STATUS_ROLE = {"running": "ok", "paused": "warn", "blocked": "bold err", "failed": "bold err", "done": "muted",
               "aborted": "muted"}
COLUMNS = ("ID", "OSDs", "kind", "step", "status", "PGs left", "started", "by")


class RemovalQueueScreen(Screen[None]):
    BINDINGS = [
        Binding("enter", "open", "Open"),
        Binding("escape", "close", "Close"),
    ]
    DEFAULT_CSS = """
    RemovalQueueScreen #rq-table { height: 1fr; }
    RemovalQueueScreen #rq-detail { height: auto; min-height: 3; }
    """

    def compose(self) -> ComposeResult:
        yield Static(Text.assemble(("OSD removals and replacements", "bold"), " · the cluster's queue "
                                   "(config-key cephtui/workflows/removal/) · enter opens one · esc closes"),
                     id="rq-title")
        yield DataTable(id="rq-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="rq-detail", classes="box")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns(*COLUMNS)
        self.query_one("#rq-detail").border_title = "Selected"
        self._rows: list[dict[str, Any]] = []
        self.set_interval(1.0, self.render_rows)
        self.render_rows()
        table.focus()

    def render_rows(self) -> None:
        rows = services_of(self).removals.rows()
        table = self.query_one(DataTable)
        if [r["id"] for r in rows] != [r["id"] for r in self._rows]:
            keep = self._rows[table.cursor_row]["id"] if self._rows and 0 <= table.cursor_row < len(self._rows) \
                else None
            table.clear()
            for r in rows:
                table.add_row(*self._cells(r), key=r["id"])
            ids = [r["id"] for r in rows]
            if keep in ids:
                table.move_cursor(row=ids.index(keep))
        else:
            for r in rows:
                for col, cell in zip(table.ordered_columns, self._cells(r)):
                    table.update_cell(r["id"], col.key, cell)
        self._rows = rows
        self.render_detail()

    @staticmethod
    def _cells(r: dict[str, Any]) -> tuple[Any, ...]:
        status = Text(r["status"], style=palette.style(STATUS_ROLE.get(r["status"], "")))
        return (r["id"], ",".join(r["osds"]), r["kind"], r["step"], status,
                "—" if r["pgs_left"] is None else str(r["pgs_left"]),
                time.strftime("%m-%d %H:%M:%S", time.localtime(r["started"])), r["started_by"] or "?")

    def selected(self) -> dict[str, Any] | None:
        row = self.query_one(DataTable).cursor_row
        return self._rows[row] if self._rows and 0 <= row < len(self._rows) else None

    def render_detail(self) -> None:
        r = self.selected()
        problem = services_of(self).workflow_store.problem
        t = Text()
        if problem:
            t.append(f"⚠ {problem}\n", style=palette.style("warn"))
        if r is None:
            t.append("No OSD removal or replacement in the queue. X on the OSDs tab starts one.",
                     style=palette.style("muted"))
        else:
            t.append(f"{r['kind']} {', '.join(r['osds'])} · {r['status']} at {r['step']}", style="bold")
            local = r["id"] in services_of(self).removals.engines
            if local:
                t.append(" · in this cephtui", style=palette.style("ok"))
            elif driven_elsewhere(r, services_of(self).workflow_store.me):
                t.append(f" · driven by {r['driven_by'] or 'another cephtui'} "
                         f"(updated {time.time() - r['updated']:.0f} s ago): shown only", style=palette.style("warn"))
            if r["waiting_for"]:
                t.append(f"\n{r['waiting_for']}")
        self.query_one("#rq-detail", Static).update(t)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.render_detail()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_open()

    def action_open(self) -> None:
        r = self.selected()
        if r is not None:
            services_of(self).removals.open(r["id"])

    def action_close(self) -> None:
        self.dismiss(None)
