"""Crash reports: `crash ls` grouped by signature (the same bug), new ones first, the selected report's
backtrace (`crash info`), and archive / archive-all / delete through the usual confirmation."""
from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from cephtui.ceph.doctor.crashes import CrashGroup, group_crashes, info_lines, parse_crash_ls
from cephtui.ceph.errors import CephError
from cephtui.ceph.ops.health import crash_archive, crash_archive_all, crash_rm
from cephtui.ui import palette
from cephtui.ui.compat import DataTable
from cephtui.ui.dialog_flows import in_thread
from cephtui.ui.screens.reading import ReadingDialog
from cephtui.ui.widgets.tables import sync_table


class CrashScreen(ReadingDialog):
    BINDINGS = [
        Binding("escape", "dismiss", "Close"),
        Binding("a", "archive", "Archive group"),
        Binding("A", "archive_all", "Archive all"),
        Binding("D", "delete", "Delete newest"),
        Binding("r", "reload", "Reload"),
    ]
    DEFAULT_CSS = """
    CrashScreen > Vertical { width: 130; height: 90%; }
    CrashScreen #crash-table { height: 12; }
    CrashScreen #crash-info-box { height: 1fr; border-top: solid $primary; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.groups: tuple[CrashGroup, ...] = ()
        self.info: dict[str, list[str]] = {}  # crash id -> `crash info` lines, fetched once each

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Crash reports (a archive group · A archive all · D delete · escape closes)"
            yield Static(Text("Loading crash ls…", style="italic"), id="crash-summary")
            table: DataTable[Any] = DataTable(id="crash-table", cursor_type="row", zebra_stripes=True)
            for label, width in (("new", 5), ("all", 4), ("last seen", 19), ("daemons", 24), ("hosts", 16),
                                 ("what", 40)):
                table.add_column(label, width=width)
            yield table
            with VerticalScroll(id="crash-info-box"):
                yield Static("", id="crash-info")

    async def load(self) -> None:
        summary = self.query_one("#crash-summary", Static)
        try:
            raw = await in_thread(self, lambda: self.client.mgr("crash ls"), "crash ls")
        except CephError as e:
            summary.update(Text(f"crash ls: {e.message}", style=palette.style("warn")))
            return
        crashes = parse_crash_ls(raw)
        self.groups = group_crashes(crashes)
        new = sum(1 for c in crashes if c.new)
        summary.update(Text.assemble(
            (f"{new} new", palette.style("bold warn" if new else "ok")),
            f" of {len(crashes)} reports, {len(self.groups)} distinct crashes (by backtrace signature). "
            "Archiving keeps a report but clears RECENT_CRASH; deleting loses it."))
        table = self.query_one("#crash-table", DataTable)
        sync_table(table, {g.key: (Text(str(g.new), style=palette.style("bold warn") if g.new else ""),
                                   str(len(g.crashes)), g.newest.when, ", ".join(g.daemons)[:40],
                                   ", ".join(g.hosts)[:30], g.newest.what[:80]) for g in self.groups}, ordered=True)
        if self.groups:
            table.focus()
            self.show_detail()
        else:
            self.query_one("#crash-info", Static).update(Text("No crash reports.", style=palette.style("ok")))

    def selected(self) -> CrashGroup | None:
        key = self.row_key(self.query_one("#crash-table", DataTable))
        return next((g for g in self.groups if g.key == key), None)

    async def detail(self) -> None:
        g = self.selected()
        if g is None:
            return
        box = self.query_one("#crash-info", Static)
        listing = [Text(f"{'NEW ' if c.new else '    '}{c.when}  {c.entity:<10} {c.host:<12} {c.crash_id}",
                        style=palette.style("warn") if c.new else "") for c in g.crashes[:20]]
        if len(g.crashes) > 20:
            listing.append(Text(f"… and {len(g.crashes) - 20} more"))
        newest = g.newest.crash_id
        if newest not in self.info:
            box.update(Group(*listing, Text("\nLoading crash info…", style="italic")))
            try:
                raw = await in_thread(self, lambda: self.client.mgr("crash info", id=newest), "crash info")
                self.info[newest] = info_lines(raw)
            except CephError as e:
                self.info[newest] = [f"crash info: {e.message}"]
        if self.selected() is g:
            box.update(Group(*listing, Text(f"\nThe newest report (ceph crash info {newest}):", style="bold"),
                             Text("\n".join(self.info[newest]))))

    def action_archive(self) -> None:
        g = self.selected()
        if g is None:
            return
        new = [c for c in g.crashes if c.new]
        if not new:
            self.app.notify("Every report of this crash is archived already.")
            return
        self.confirm_then_reload([crash_archive(c.crash_id) for c in new])

    def action_archive_all(self) -> None:
        if not any(g.new for g in self.groups):
            self.app.notify("No new crash reports to archive.")
            return
        self.confirm_then_reload([crash_archive_all()])

    def action_delete(self) -> None:
        g = self.selected()
        if g is None:
            return
        self.confirm_then_reload([crash_rm(g.newest.crash_id, g.newest.entity)])
