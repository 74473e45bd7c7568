"""Slow ops: on the OSDs SLOW_OPS names (never every OSD), the blocked, in-flight and recent slow ops grouped by
state, age, pool and client; the peer the stuck writes all wait for; `osd perf` outliers with their hosts."""
from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from cephtui.ceph.doctor.slowops import SlowOp, group, named_osds, parse_ops, perf_outliers
from cephtui.ceph.errors import CephError
from cephtui.ui import palette
from cephtui.ui.dialog_flows import in_thread
from cephtui.ui.screens.reading import ReadingDialog
from cephtui.ui.services import services_of

DUMPS = (("dump_blocked_ops", False), ("dump_ops_in_flight", False), ("dump_historic_slow_ops", True))


def _counts(title: str, rows: tuple[tuple[str, int], ...]) -> Table:
    t = Table(title=title, title_justify="left", box=None, show_header=False, padding=(0, 1))
    t.add_column(justify="right")
    t.add_column()
    for label, n in rows:
        t.add_row(str(n), label)
    return t


class SlowOpsScreen(ReadingDialog):
    BINDINGS = [Binding("escape", "dismiss", "Close"), Binding("r", "reload", "Reload")]
    DEFAULT_CSS = """
    SlowOpsScreen > VerticalScroll { width: 140; height: 90%; }
    """

    def __init__(self, osds: tuple[int, ...]) -> None:
        super().__init__()
        self.osds = named_osds(osds)
        self.ops: list[SlowOp] = []

    def compose(self) -> ComposeResult:
        with VerticalScroll() as box:
            box.border_title = "Slow ops (r reload · escape closes)"
            yield Static(Text(f"Asking {', '.join(f'osd.{i}' for i in self.osds) or 'no OSD'}…", style="italic"),
                         id="slowops-body")

    async def load(self) -> None:
        app = services_of(self)
        client = app.client
        body = self.query_one("#slowops-body", Static)
        if not self.osds:
            body.update(Text("SLOW_OPS names no OSD (only mons or other daemons): their ops are not OSD ops.",
                             style=palette.style("warn")))
            return
        ops: list[SlowOp] = []
        unanswered: list[str] = []
        for osd in self.osds:
            seen: set[str] = set()
            for prefix, historic in DUMPS:
                try:
                    raw = await in_thread(self, self._tell(client, osd, prefix), f"tell osd.{osd} {prefix}")
                except CephError as e:
                    unanswered.append(f"osd.{osd} {prefix}: {e.message}")
                    break  # a hung OSD: do not queue two more tells behind the first
                for op in parse_ops(osd, raw, historic=historic):
                    if op.description not in seen:  # blocked ops are in flight too
                        seen.add(op.description)
                        ops.append(op)
        snap = app.snapshot
        hosts = {o.id: o.host for o in snap.osd_table.osds} if snap is not None and snap.osd_table else {}
        pools = {p.id: p.name for p in snap.pool_table} if snap is not None and snap.pool_table else {}
        try:
            outliers = perf_outliers(await in_thread(self, lambda: client.mgr("osd perf"), "osd perf"), hosts)
        except CephError as e:
            outliers = [f"osd perf: {e.message}"]
        self.ops = ops
        suspects = group(ops).suspects
        silent: list[int] = []
        if 1 < len(suspects) <= 4:  # one primary's writes name two peers: which one does not answer at all?
            for osd in suspects:
                try:
                    await in_thread(self, self._tell(client, osd, "version"), f"tell osd.{osd} version")
                except CephError:
                    silent.append(osd)
        body.update(self.render_ops(ops, hosts, pools, outliers, unanswered, silent))

    @staticmethod
    def _tell(client: Any, osd: int, prefix: str) -> Any:
        return lambda: client.osd_tell(osd, prefix)

    def render_ops(self, ops: list[SlowOp], hosts: dict[int, str], pools: dict[int, str], outliers: list[str],
                   unanswered: list[str], silent: list[int]) -> RenderableType:
        g = group(ops, pools)
        live = [o for o in ops if not o.historic]
        parts: list[RenderableType] = [Text(
            f"Asked {', '.join(f'osd.{i}' for i in self.osds)}: {len(live)} ops in flight (oldest "
            f"{g.oldest:.0f} s), {len(ops) - len(live)} recent slow ops done.", style="bold")]
        culprits = [i for i in g.suspects if i in silent] if silent else list(g.suspects)
        if culprits:
            who = ", ".join(f"osd.{i}{' on ' + hosts[i] if hosts.get(i) else ''}" for i in culprits)
            how = (f" (of {', '.join(f'osd.{i}' for i in g.suspects)}, the one that does not answer "
                   "`ceph tell osd.N version`)" if silent and len(g.suspects) > 1 else "")
            lead = "Every stuck write waits for" if len(culprits) == 1 else "Every stuck write waits for one of"
            parts.append(Text(f"{lead} {who}{how}: that OSD (or its host, disk or network) is the likely cause, "
                              "even if SLOW_OPS does not name it. Look at its log and disk; restarting a hung OSD "
                              "releases the ops.", style=palette.style("bold warn")))
        for line in unanswered:
            parts.append(Text(f"no answer: {line}", style=palette.style("warn")))
        grid = Table.grid(padding=(0, 4))
        grid.add_row(_counts("by state", g.by_state), _counts("by age", g.by_age), _counts("by OSD", g.by_osd),
                     _counts("by pool", g.by_pool), _counts("by client", g.by_client))
        parts.append(grid)
        if outliers:
            parts.append(Text("osd perf outliers:", style="bold"))
            parts.extend(Text(f"  {line}") for line in outliers)
        t = Table(title="oldest ops", title_justify="left", box=None)
        for col in ("age", "osd", "state", "pool", "client", "op"):
            t.add_column(col)
        for o in sorted(ops, key=lambda o: -o.age)[:25]:
            t.add_row(f"{o.age:.0f}s{' (done)' if o.historic else ''}", f"osd.{o.osd}", o.state,
                      pools.get(o.pool, str(o.pool) if o.pool >= 0 else ""), o.client, o.description[:70])
        parts.append(t)
        return Group(*parts)
