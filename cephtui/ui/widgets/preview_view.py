"""Render a CRUSH change preview: PGs whose up set changes, per pool, and the data that would move."""
from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from cephtui.ceph import movement, ops
from cephtui.ceph.cluster import Cluster
from cephtui.ceph.crush import crushtool
from cephtui.ceph.format import human_bytes
from cephtui.ui import palette


class PreviewUnavailable(Exception):
    """The preview cannot be computed (tools missing, cluster refused): apply only after a second yes."""


def render(p: movement.Preview) -> RenderableType:
    t = Table(title=f"Preview against osdmap epoch {p.epoch}: PGs whose up set would change", title_justify="left",
              title_style="bold", box=None, padding=(0, 2))
    t.add_column("pool")
    t.add_column("pgs", justify="right")
    t.add_column("changed", justify="right")
    t.add_column("shards to move", justify="right")
    t.add_column("≈ data to move", justify="right")
    for pool in p.pools:
        style = palette.style("warn" if pool.changed_pgs else "muted")
        t.add_row(pool.pool_name, str(pool.pg_num), Text(str(pool.changed_pgs), style=style),
                  str(pool.shards_moved), "?" if pool.bytes_to_move is None else human_bytes(pool.bytes_to_move))
    total = "?" if p.bytes_to_move is None else human_bytes(p.bytes_to_move)
    t.add_row(Text("total", style="bold"), str(p.total_pgs), Text(str(p.changed_pgs), style="bold"),
              str(p.shards_moved), Text(total, style="bold"))
    share = p.changed_pgs / p.total_pgs if p.total_pgs else 0.0
    under: list[Text] = []
    if p.inactive_pgs:
        under.append(Text(f"✖ {p.inactive_pgs} PGs would keep fewer copies than their pool's min_size: they go "
                          "inactive and client IO to them stops until the OSDs are back.",
                          style=palette.style("bold err")))
    if p.undersized_pgs:
        sizes = ", ".join(f"{pm.pool_name} size {pm.size}: {pm.undersized_pgs}" for pm in p.pools if pm.undersized_pgs)
        under.append(Text(f"⚠ {p.undersized_pgs} PGs would keep fewer copies than their pool's size ({sizes}): "
                          "CRUSH finds no other OSD (or host) to re-replicate to, so they become undersized and "
                          "degraded instead of moving.", style=palette.style("bold err")))
    if not p.changed_pgs:
        verdict = Text("No PG changes its up set: no data moves.", style=palette.style("ok"))
    elif not p.shards_moved and p.undersized_pgs:
        verdict = Text(f"{p.changed_pgs} of {p.total_pgs} PGs ({share:.0%}) change their up set, but nothing is "
                       "backfilled: their copies on the affected OSDs are simply not replaced.",
                       style=palette.style("bold warn"))
    elif not p.shards_moved:
        verdict = Text(f"{p.changed_pgs} of {p.total_pgs} PGs ({share:.0%}) change their up set only in order "
                       "(new primaries): peering, but no data is copied.", style=palette.style("warn"))
    else:
        verdict = Text(f"{p.changed_pgs} of {p.total_pgs} PGs ({share:.0%}) change their up set: "
                       f"{p.shards_moved} shard copies, about {total}, will be backfilled.",
                       style=palette.style("bold warn"))
    notes = [Text(f"note: {n}", style=palette.style("muted")) for n in p.notes]
    return Group(t, verdict, *under, *notes, Text(f"computed offline with crushtool/osdmaptool in {p.seconds:.2f}s",
                                          style=palette.style("muted")))


class PreviewJob:
    """A preview to compute in the confirm dialog's thread; keeps the result for whoever asks later."""

    def __init__(self, compute: Callable[[], movement.Preview], client: Cluster | None = None) -> None:
        self._compute = compute
        self._client = client
        self.result: movement.Preview | None = None

    def __call__(self) -> RenderableType:
        missing = crushtool.missing_tools()
        if missing:
            raise PreviewUnavailable(f"{' and '.join(missing)} not installed (apt install ceph-base)")
        try:
            self.result = self._compute()
        except crushtool.CrushToolError as e:
            raise PreviewUnavailable(str(e)) from None
        return render(self.result)

    def impact(self) -> str | None:
        """The Impact line once computed: from the preview's numbers."""
        return movement.impact_label(self.result) if self.result is not None else None

    def stale(self) -> str | None:
        """Asked by the confirm dialog right before it applies: what changed in the osdmap since."""
        return movement.staleness(self._client, self.result) if self.result is not None and self._client else None


def preview_for(client: Cluster, operations: Sequence[ops.Operation]) -> PreviewJob | None:
    """A preview for operations that change CRUSH or OSD weights (in/out/reweight); None for the others."""
    if not any(op.previewable for op in operations):
        return None
    return PreviewJob(lambda: movement.preview(client, operations), client)


def preview_map_for(client: Cluster, compiled: bytes) -> PreviewJob:
    return PreviewJob(lambda: movement.preview_map(client, compiled), client)
