"""Activity: every command this session sent to change the cluster, with its CLI equivalent.

The entries are the audit log's own (ops.AuditLog.session): what ran, as whom,
the return code and the monitor's message. `c` copies the selected command,
`C` all of them, `e` writes them to a 0600 shell script; the detail box can
also be selected with the mouse.
"""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from cephtui.ceph import ops
from cephtui.ceph.owner_only import replace_text
from cephtui.paths import state_dir
from cephtui.ui import palette
from cephtui.ui.compat import DataTable
from cephtui.ui.pane import Pane, tab_of
from cephtui.ui.widgets.inplace import update_in_place
from cephtui.ui.widgets.tables import set_subtitle, sync_table


def result_cell(entry: dict[str, Any]) -> Text:
    rc = entry.get("rc", 0 if entry.get("ok") else -1)
    return Text("✔ 0", style=palette.style("ok")) if rc == 0 else Text(f"✖ {rc}", style=palette.style("bold err"))


def session_script(entries: list[dict[str, Any]], identity: str) -> str:
    """This session's commands as a shell script an admin can read, keep or replay by hand."""
    lines = ["#!/bin/sh", f"# cephtui session, {time.strftime('%Y-%m-%d %H:%M:%S %z')}, as {identity}",
             "# Each command as cephtui ran it, with the monitor's answer. Review before running any of it.", ""]
    for e in entries:
        status = "ok" if e.get("rc", 0) == 0 and e.get("ok", True) else f"refused (rc {e.get('rc')})"
        message = " ".join(str(e.get("message", "")).split())
        lines.append(f"# {e.get('time', '')} {status}: {message}"[:400])
        lines.append(str(e.get("cli", "")))
    return "\n".join(lines) + "\n"


class ActivityPane(Pane):
    HELP = ("What the cluster answered, accepted or refused, also goes to the audit log "
            "(`~/.local/state/cephtui/audit.log`, or `$CEPHTUI_AUDIT_LOG`, mode 0600).")
    ACTION_HELP = {
        "copy": "copy the selected command's CLI line",
        "copy_all": "copy all of this session's commands",
        "export": "write this session's commands, the monitor's answers as comments, to a 0600 script",
    }
    BINDINGS = [
        Binding("c", "copy", "Copy command"),
        Binding("C", "copy_all", "Copy all"),
        Binding("e", "export", "Export script"),
    ]

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self._shown = -1

    def compose(self) -> ComposeResult:
        yield Static(id="activity-summary")
        with Vertical(id="activity-box", classes="box"):
            table: DataTable[Any] = DataTable(id="activity-table", cursor_type="row", zebra_stripes=True)
            table.add_column("time", width=8)
            table.add_column("result", width=7)
            table.add_column("command (CLI equivalent)", width=60)
            table.add_column("monitor's answer", width=60)
            yield table
        yield Static(id="activity-detail", classes="box")

    def on_mount(self) -> None:
        self.query_one("#activity-box").border_title = "This session's commands (newest last)"
        self.query_one("#activity-detail").border_title = "Selected"
        self.set_interval(1.0, self._poll_entries)  # entries arrive from worker threads
        self.refresh_entries()

    @property
    def audit(self) -> ops.AuditLog:
        return self.services.audit

    def entries(self) -> list[dict[str, Any]]:
        audit = self.audit
        return list(audit.session) if audit is not None else []

    def focus_table(self) -> None:
        self.query_one("#activity-table", DataTable).focus()

    def show(self, snap: object) -> None:
        self.refresh_entries()

    def retheme(self) -> None:
        self._shown = -1  # draw the entries again (new colours) at the next show

    def _poll_entries(self) -> None:
        # Hidden, the table waits for its tab: a new row changes its size, and a size change lays out the whole
        # screen, which the tab on show (a live bench) would pay for a table nobody sees.
        if tab_of(self) != self.services.active_tab:
            if len(self.entries()) != self._shown:
                self.services.when_opened(self, self.refresh_entries)
            return
        self.refresh_entries()

    def refresh_entries(self) -> None:
        entries = self.entries()
        if len(entries) == self._shown:
            return
        self._shown = len(entries)
        table = self.query_one("#activity-table", DataTable)
        sync_table(table, {i: (str(e.get("time", ""))[11:19], result_cell(e), Text(str(e.get("cli", ""))),
                               Text(" ".join(str(e.get("message", "")).split()), style=palette.style("muted")))
                           for i, e in enumerate(entries)})
        if entries:
            table.move_cursor(row=len(entries) - 1)
        refused = sum(1 for e in entries if e.get("rc", 0) != 0)
        n = len(entries)
        set_subtitle(self.query_one("#activity-box"), f"{n} command{'s' if n != 1 else ''}, {refused} refused")
        self._summary()
        self._detail()

    def _summary(self) -> None:
        audit = self.audit
        parts = [f"audit log: [b]{escape(str(audit.path))}[/] (0600, every session)" if audit is not None else ""]
        if audit is not None and audit.write_error:
            parts.append(palette.markup("bold err", f"⚠ not written: {escape(audit.write_error)}"))
        if self.services.read_only:
            parts.append(palette.markup("bold warn", "read-only session: nothing is sent"))
        parts.append("c copy · C copy all · e export as a script")
        update_in_place(self.query_one("#activity-summary", Static), " · ".join(p for p in parts if p))

    def selected(self) -> dict[str, Any] | None:
        entries = self.entries()
        row = self.query_one("#activity-table", DataTable).cursor_row
        return entries[row] if 0 <= row < len(entries) else None

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._detail()

    def _detail(self) -> None:
        detail = self.query_one("#activity-detail", Static)
        e = self.selected()
        if e is None:
            update_in_place(detail, Text("Nothing sent yet this session. Every change made from any tab shows "
                                         "here, as the exact ceph command.", style=palette.style("muted")))
            return
        t = Table.grid(padding=(0, 2))
        t.add_column(style="bold", width=9)
        t.add_column()
        t.add_row("command", Text(str(e.get("cli", "")), style=palette.style("bold info")))
        t.add_row("result", result_cell(e))
        t.add_row("answer", Text(str(e.get("message", "")) or "(no message)"))
        t.add_row("as", Text(f"{e.get('identity', '')} (login {e.get('user', '?')}) at {e.get('time', '')}"))
        t.add_row("json", Text(json.dumps(e.get("command", {}), default=str), style=palette.style("muted")))
        update_in_place(detail, t)

    def action_copy(self) -> None:
        e = self.selected()
        if e is None:
            self.app.notify("Nothing to copy yet.")
            return
        self.app.copy_to_clipboard(str(e.get("cli", "")))
        self.app.notify(f"Copied: {e.get('cli', '')}", timeout=4)

    def action_copy_all(self) -> None:
        entries = self.entries()
        if not entries:
            self.app.notify("Nothing to copy yet.")
            return
        self.app.copy_to_clipboard("\n".join(str(e.get("cli", "")) for e in entries) + "\n")
        self.app.notify(f"Copied {len(entries)} commands.", timeout=4)

    def action_export(self) -> None:
        entries = self.entries()
        if not entries:
            self.app.notify("Nothing to export yet.")
            return
        identity = getattr(self.audit, "entity", "")
        path = export_path()
        try:
            replace_text(path, session_script(entries, identity))
        except OSError as e:
            self.app.notify(f"Could not write {path}: {e.strerror or e}", severity="error")
            return
        self.app.notify(f"Wrote {len(entries)} commands to {path} (mode 0600).", timeout=8)


def export_path() -> Path:
    return state_dir() / f"session-{time.strftime('%Y%m%d-%H%M%S')}.sh"
