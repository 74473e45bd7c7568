"""One OSD in detail: what the tree row shows, its metadata and its PGs by state."""
from __future__ import annotations

from collections import Counter
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from cephtui.ceph.cluster import Cluster
from cephtui.ceph.errors import CephError
from cephtui.ceph.format import human_bytes
from cephtui.ceph.snapshot.osdtree import OSDInfo
from cephtui.ui import palette
from cephtui.ui.screens.dialog import Dialog

METADATA_KEYS = (
    ("hostname", "host"), ("devices", "devices"), ("osd_objectstore", "objectstore"),
    ("ceph_version_short", "version"), ("bluestore_bdev_type", "device type"),
    ("bluestore_bdev_size", "device size"), ("bluestore_bdev_path", "block"), ("bluefs_dedicated_db", "dedicated DB"),
    ("bluefs_dedicated_wal", "dedicated WAL"), ("osd_data", "data dir"), ("front_addr", "public addr"),
    ("back_addr", "cluster addr"), ("distro_description", "OS"), ("kernel_version", "kernel"),
    ("device_ids", "device ids"),
)


class OSDDetailScreen(Dialog[None]):
    BINDINGS = [Binding("escape,q,enter", "dismiss", "Close")]
    DEFAULT_CSS = """
    OSDDetailScreen > VerticalScroll { width: 110; }
    """

    def __init__(self, client: Cluster, osd: OSDInfo) -> None:
        super().__init__()
        self.client = client
        self.osd = osd

    def compose(self) -> ComposeResult:
        with VerticalScroll() as box:
            box.border_title = f"{self.osd.name} (escape closes)"
            yield Static(self._summary(), id="detail-summary")
            yield Static(Text("Loading metadata and PGs…", style="italic"), id="detail-extra")

    def on_mount(self) -> None:
        self._load()

    def _summary(self) -> Table:
        o = self.osd
        t = Table.grid(padding=(0, 2))
        t.add_column(style="bold")
        t.add_column()
        t.add_row("state", Text(f"{o.status}, {'in' if o.in_ else 'out'}",
                                style=palette.style("ok" if o.up and o.in_ else "bold err")))
        t.add_row("location", " > ".join(o.path) or "(not in the CRUSH tree)")
        t.add_row("class", o.device_class or "-")
        t.add_row("weights", f"CRUSH {o.crush_weight:.5f}, reweight {o.reweight:.5f}, "
                             f"primary affinity {o.primary_affinity:.3f}")
        if o.kb:
            t.add_row("usage", f"{human_bytes(o.kb_used * 1024)} of {human_bytes(o.kb * 1024)} "
                               f"({o.utilization:.2f}%, var {o.var:.2f}), {o.pgs} PGs")
        if o.commit_ms is not None:
            t.add_row("latency", f"commit {o.commit_ms} ms, apply {o.apply_ms} ms")
        t.add_row("flags", ", ".join(o.flags) or "-")
        return t

    @work(thread=True, exit_on_error=False)
    def _load(self) -> None:
        parts: list[Any] = []
        try:
            meta = self.client.mon("osd metadata", id=self.osd.id) or {}
            parts.append(Text("\nMetadata (ceph osd metadata)", style="bold"))
            t = Table(show_header=False, box=None)
            t.add_column(style="bold")
            t.add_column()
            for key, label in METADATA_KEYS:
                if meta.get(key) not in (None, ""):
                    value = meta[key]
                    if key == "bluestore_bdev_size" and str(value).isdigit():
                        value = f"{human_bytes(int(value))} ({value} bytes)"
                    t.add_row(label, str(value))
            parts.append(t)
        except CephError as e:
            parts.append(Text(f"osd metadata: {e.message}", style=palette.style("warn")))
        try:
            ls = self.client.mgr("pg ls-by-osd", osd=self.osd.id) or {}
            stats = ls.get("pg_stats", ls) if isinstance(ls, dict) else ls
            states = Counter(p.get("state", "?") for p in stats or ())
            primary = sum(1 for p in stats or () if p.get("acting_primary") == self.osd.id)
            parts.append(Text(f"\nPGs on {self.osd.name} (ceph pg ls-by-osd): {sum(states.values())}, "
                              f"primary for {primary}", style="bold"))
            t = Table(box=None)
            t.add_column("pgs", justify="right")
            t.add_column("state")
            for state, n in states.most_common():
                t.add_row(str(n), Text(state, style=palette.style("ok" if state == "active+clean" else "warn")))
            parts.append(t)
        except CephError as e:
            parts.append(Text(f"pg ls-by-osd: {e.message}", style=palette.style("warn")))
        self.app.call_from_thread(self.query_one("#detail-extra", Static).update, Group(*parts))
