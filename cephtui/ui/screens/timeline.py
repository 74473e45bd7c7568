"""The timeline: health checks raised, changed and cleared, newest first, with the cluster log around the
selected moment ("something was slow at 03:00: what happened?"). Enter puts the time cursor there, so the
Health and OSDs tabs show the cluster as it was."""
from __future__ import annotations

import time
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable as _DataTable
from textual.widgets import Static

from cephtui.ceph.history.model import HealthEvent, HistorySource
from cephtui.ceph.snapshot.parse import parse_stamp
from cephtui.ui import palette
from cephtui.ui.compat import DataTable
from cephtui.ui.dialog_flows import in_thread
from cephtui.ui.screens.reading import ReadingDialog
from cephtui.ui.services import services_of

SPAN = 7 * 86400  # the events listed: the last week
AROUND = 120.0  # seconds of cluster log shown before and after the selected event
CHANGE_STYLE = {"raised": "warn", "changed": "bold warn", "cleared": "ok"}


def _when(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t))


class TimelineScreen(ReadingDialog):
    BINDINGS = [
        Binding("escape", "dismiss", "Close"),
        Binding("enter", "go_there", "Show the cluster then"),
    ]
    DEFAULT_CSS = """
    TimelineScreen > Vertical { width: 130; height: 90%; }
    TimelineScreen #timeline-table { height: 1fr; min-height: 6; }
    TimelineScreen #timeline-log-box { height: 1fr; border-top: solid $primary; }
    """

    def __init__(self, source: HistorySource, local: Any = None) -> None:
        super().__init__()
        self.source = source
        self.local = local  # the local store: only it keeps the cluster log (Prometheus does not)
        self.events: list[HealthEvent] = []

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Timeline: health checks raised and cleared (enter: show the cluster then · escape)"
            box.border_subtitle = self.source.label
            yield Static(Text("Reading the history…", style="italic"), id="timeline-summary")
            table: DataTable[Any] = DataTable(id="timeline-table", cursor_type="row", zebra_stripes=True)
            for label, width in (("when", 19), ("", 7), ("check", 26), ("severity", 8), ("summary", 60)):
                table.add_column(label, width=width)
            yield table
            with VerticalScroll(id="timeline-log-box"):
                yield Static("", id="timeline-log")

    async def load(self) -> None:
        def read() -> tuple[list[HealthEvent], str]:
            now = time.time()
            try:
                return list(reversed(self.source.events(now - SPAN, now))), ""
            except Exception as e:  # Prometheus away, a file that cannot be read: said, not raised
                return [], f"could not read the history: {e}"

        self._show(*await in_thread(self, read, "read the health timeline"))

    def _show(self, events: list[HealthEvent], why: str) -> None:
        self.events = events
        table = self.query_one("#timeline-table", DataTable)
        table.clear()
        for e in events:
            sev = e.severity.removeprefix("HEALTH_")
            table.add_row(_when(e.t), Text(e.change, style=palette.style(CHANGE_STYLE.get(e.change, ""))), e.code,
                          sev, e.summary)
        summary = why or (f"{len(events)} changes in the last 7 days, newest first" if events
                          else "No health check was raised or cleared in the last 7 days of history.")
        self.query_one("#timeline-summary", Static).update(Text(summary, style=palette.style("warn" if why else "")))
        if events:
            table.focus()
            self.show_detail()

    async def detail(self) -> None:
        """The cluster log around the highlighted moment (read from the local store, off the UI thread)."""
        row = self.query_one("#timeline-table", DataTable).cursor_row
        if not 0 <= row < len(self.events):
            return
        e = self.events[row]
        text = await in_thread(self, lambda: self._log_around(e), "the cluster log around it")
        self.query_one("#timeline-log", Static).update(text)

    def _log_around(self, e: HealthEvent) -> Text:
        if self.local is None:
            lines = [Text("The cluster log is kept by the local history only (`cephtui record`, or an open UI).",
                          style=palette.style("muted"))]
        else:
            try:
                rows = self.local.log_between(e.t - AROUND, e.t + AROUND)
            except Exception as err:
                rows, lines = [], [Text(f"could not read the log: {err}", style=palette.style("warn"))]
            else:
                lines = []
            marked = False
            for stamp, name, _channel, priority, message in rows:
                if not marked and (parse_stamp(stamp) or 0.0) >= e.t:
                    marked = True
                    lines.append(self._marker(e))
                line = Text(f"{stamp[11:19]} ", style=palette.style("muted"))
                line.append(f"{name} {priority} ", style=palette.style("info"))
                line.append(message)
                lines.append(line)
            if not marked:
                lines.append(self._marker(e))
            if len(lines) == 1:
                lines = [Text("No cluster log recorded within 2 minutes of this moment.", style=palette.style("muted"))]
        head = Text(f"Cluster log from {_when(e.t - AROUND)} to {_when(e.t + AROUND)}:", style="bold")
        return Text("\n").join([head, *lines])

    @on(_DataTable.RowSelected, "#timeline-table")
    def _selected(self) -> None:  # enter on the table: the table takes the key, this is its message
        self.action_go_there()

    @staticmethod
    def _marker(e: HealthEvent) -> Text:
        return Text(f"──── {time.strftime('%H:%M:%S', time.localtime(e.t))} {e.code} {e.change} "
                    "────", style=palette.style(f"bold {CHANGE_STYLE.get(e.change, '')}"))

    def action_go_there(self) -> None:
        table = self.query_one("#timeline-table", DataTable)
        if not self.events or not 0 <= table.cursor_row < len(self.events):
            return
        app = services_of(self)
        app.history.cursor = self.events[table.cursor_row].t
        app.history.read()
        self.dismiss(None)
