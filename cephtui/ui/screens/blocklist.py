"""The OSD blocklist (`ceph osd blocklist ls`): every client address the cluster refuses, until when, and which
CephFS client it was where the File systems tab knows it; `D` removes the selected entry (`ceph osd blocklist rm
ADDR`) through the usual confirmation. An evicted CephFS client still has to remount after that."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from cephtui.ceph.cephfs.ops import BlocklistEntry, blocklist_from_raw, build_unblock
from cephtui.ceph.errors import CephError
from cephtui.ui import palette
from cephtui.ui.compat import DataTable
from cephtui.ui.screens.reading import ReadingDialog
from cephtui.ui.widgets.tables import sync_table


class BlocklistScreen(ReadingDialog):
    BINDINGS = [
        Binding("escape", "dismiss", "Close"),
        Binding("D", "remove", "Remove entry"),
        Binding("r", "reload", "Reload"),
    ]
    DEFAULT_CSS = """
    BlocklistScreen > Vertical { width: 110; height: auto; max-height: 90%; }
    BlocklistScreen #blocklist-table { height: auto; max-height: 20; }
    """

    def __init__(self, known: Mapping[str, str] | None = None) -> None:
        """`known`: address -> who it was ("client.4118 on pve2"), for the addresses this session has seen."""
        super().__init__()
        self.known = dict(known or {})
        self.entries: list[BlocklistEntry] = []

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "OSD blocklist (ceph osd blocklist ls · D removes · r reloads · escape closes)"
            yield Static(Text("Reading osd blocklist ls…", style="italic"), id="blocklist-summary")
            table: DataTable[Any] = DataTable(id="blocklist-table", cursor_type="row", zebra_stripes=True)
            for label, width in (("address", 40), ("until", 28), ("who", 32)):
                table.add_column(label, width=width)
            yield table

    async def load(self) -> None:
        summary = self.query_one("#blocklist-summary", Static)
        answer = await self.ask("osd blocklist ls", lambda: self.client.mon_raw("osd blocklist ls", format="json")[0])
        if isinstance(answer, CephError):
            summary.update(Text(f"osd blocklist ls: {answer.message}", style=palette.style("warn")))
            return
        self.entries = blocklist_from_raw(answer)
        n = len(self.entries)
        if n:
            said = (f"{n} address{'es' if n != 1 else ''} refused by the OSDs. An entry expires at its time; removing "
                    "it early lets that client write again (an evicted CephFS client still has to remount).")
        else:
            said = "No address is blocklisted: every client may write to the OSDs."
        summary.update(Text(said, style="" if n else palette.style("ok")))
        sync_table(self.query_one("#blocklist-table", DataTable),
                   {e.addr: (e.addr, e.until, self.known.get(e.addr, "")) for e in self.entries}, ordered=True)

    def selected(self) -> BlocklistEntry | None:
        key = self.row_key(self.query_one("#blocklist-table", DataTable))
        return next((e for e in self.entries if e.addr == key), None)

    def action_remove(self) -> None:
        entry = self.selected()
        if entry is None:
            self.app.notify("No entry selected.", severity="warning")
            return
        self.confirm_then_reload([build_unblock(entry)])
