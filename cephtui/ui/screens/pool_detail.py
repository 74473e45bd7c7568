"""One pool's settings, as `ceph osd pool get NAME all` lists them (enter on the Pools tab)."""
from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from cephtui.ceph.cluster import Cluster
from cephtui.ceph.errors import CephError
from cephtui.ceph.snapshot.pools import PoolInfo
from cephtui.ui import palette
from cephtui.ui.screens.dialog import Dialog


class PoolDetailScreen(Dialog[None]):
    """`osd pool get NAME all`, fetched in a worker."""

    BINDINGS = [Binding("escape,q,enter", "dismiss", "Close")]
    DEFAULT_CSS = """
    PoolDetailScreen > VerticalScroll { width: 90; }
    """

    def __init__(self, client: Cluster, pool: PoolInfo) -> None:
        super().__init__()
        self.client = client
        self.pool = pool

    def compose(self) -> ComposeResult:
        with VerticalScroll() as box:
            box.border_title = f"pool {self.pool.name} (ceph osd pool get {self.pool.name} all; escape closes)"
            yield Static(Text("Loading…", style="italic"), id="pool-detail")

    def on_mount(self) -> None:
        self._load()

    @work(thread=True, exit_on_error=False, description="osd pool get all")
    def _load(self) -> None:
        try:
            values = self.client.mon("osd pool get", pool=self.pool.name, var="all") or {}
            t = Table(box=None, show_header=False)
            t.add_column(style="bold")
            t.add_column()
            for k, v in values.items():
                t.add_row(str(k), str(v))
            body: Table | Text = t
        except CephError as e:
            body = Text(f"osd pool get: {e.message}", style=palette.style("warn"))
        self.app.call_from_thread(self.query_one("#pool-detail", Static).update, body)
