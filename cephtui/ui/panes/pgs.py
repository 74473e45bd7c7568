"""PGs: counts by state, recovery progress, per-pool breakdown, stuck PGs and a filterable PG table."""
from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, Static

from cephtui.ceph.format import human_duration, human_rate, percent
from cephtui.ceph.snapshot.cluster_snapshot import ClusterSnapshot
from cephtui.ceph.snapshot.models import PGBrief, StuckPG
from cephtui.ceph.snapshot.pgfilter import PGColumns, PGFilter, pgid_key
from cephtui.ui import palette
from cephtui.ui.compat import DataTable
from cephtui.ui.dialog_types import readable
from cephtui.ui.pane import Fetch, Pane
from cephtui.ui.widgets.filterinput import FilterInput
from cephtui.ui.widgets.tables import set_subtitle, sync_static, sync_table
from cephtui.ui.widgets.virtualtable import VirtualTable

# Flags worth their own counter, in the order an admin scans them.
FLAGS = ("active", "clean", "degraded", "undersized", "peering", "stale", "incomplete", "inconsistent",
         "down", "recovering", "recovery_wait", "backfilling", "backfill_wait", "remapped", "scrubbing")
BAD = {"stale", "incomplete", "inconsistent", "down", "unknown", "inactive"}
WARN = {"degraded", "undersized", "peering", "recovering", "recovery_wait", "backfilling", "backfill_wait",
        "remapped", "backfill_toofull", "recovery_toofull", "activating"}


def state_style(state: str) -> str:
    parts = set(state.split("+"))
    if parts & BAD or "active" not in parts:
        return palette.style("bold err")
    if parts & WARN:
        return palette.style("warn")
    if state == "active+clean" or parts <= {"active", "clean", "scrubbing", "deep"}:
        return palette.style("ok")
    return ""


def osds(ids: tuple[int, ...]) -> str:
    return "[" + ",".join("NONE" if i == 0x7FFFFFFF else str(i) for i in ids) + "]"


PG_COLUMNS = (("pgid", 10), ("state", 44), ("up", 24), ("acting", 24), ("primary", 7))
PG_COLUMNS_NARROW = (("pgid", 8), ("state", 28), ("up", 11), ("acting", 11), ("prim", 4))  # < 100 columns
# >= 180 columns: the pool's name too (cell 5, see PGsPane._cells)
PG_COLUMNS_WIDE = (("pgid", 10), ("pool", 22), ("state", 44), ("up", 24), ("acting", 24), ("primary", 7))
PG_ORDER_WIDE = (0, 5, 1, 2, 3, 4)


# "since" is Ceph's own stamp (last_clean, last_active ...), by which `pg dump_stuck` judges.
STUCK_COLUMNS = (("pgid", 10), ("state", 36), ("stuck", 28), ("since", 12), ("up", 20), ("acting", 20))


def stuck_cells(s: StuckPG) -> tuple[tuple[str, str], ...]:
    since = f"{human_duration(s.seconds)} ago" if s.seconds is not None else "?"
    return ((s.pgid, ""), (s.state, state_style(s.state)), (s.kind, ""), (since, ""), (osds(s.up), ""),
            (osds(s.acting), ""))


def pg_cells(pg: PGBrief) -> tuple[tuple[str, str], ...]:
    return ((pg.pgid, ""), (pg.state, state_style(pg.state)), (osds(pg.up), ""), (osds(pg.acting), ""),
            (str(pg.acting_primary), ""))


def locate_pg(rows: Sequence[PGBrief], pgid: object) -> int | None:
    """Where a PG is in rows sorted by pgid (the table always is): a bisect, not a scan of 200,000."""
    if not isinstance(pgid, str):
        return None
    # bisect_left's key= is 3.10+: the same search by hand
    want, lo, hi = pgid_key(pgid), 0, len(rows)
    while lo < hi:
        mid = (lo + hi) // 2
        if pgid_key(rows[mid].pgid) < want:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < len(rows) and rows[lo].pgid == pgid else None


class PGsPane(Pane):
    HELP = ("The filters apply at every keystroke; on 200,000 PGs a keystroke's rows are on screen within tens of "
            "ms. The PG table, stuck PGs, OSD usage and latency are fetched only while their tab is shown; stuck PGs "
            "every 10 s (a PG is stuck after `mon_pg_stuck_threshold`, 5 minutes by default) and at once on `r`.")
    ACTION_HELP = {
        "focus_filter": ("filter: words match the PG id, state or pool name (`degraded`, `undersized 2.`, `rbd`); "
                         "`osd=3` keeps PGs on osd.3; `3.` means pool 3"),
    }
    BINDINGS = [
        Binding("slash", "focus_filter", "Filter PGs", show=True),
        Binding("escape", "clear_filter", "Clear filter", show=False),
    ]

    def compose(self) -> ComposeResult:
        with Horizontal(id="pgs-top"):
            yield DataTable(id="pgs-states", classes="box", cursor_type="row", zebra_stripes=True)
            with Vertical(id="pgs-mid"):
                yield Static(id="pgs-recovery", classes="box")
                yield DataTable(id="pgs-pools", classes="box", cursor_type="row", zebra_stripes=True)
        yield VirtualTable(STUCK_COLUMNS, stuck_cells, key=lambda s: s.pgid, id="pgs-stuck", classes="box")
        with Vertical(id="pgs-table-box", classes="box"):
            yield FilterInput("filter: words match pgid/state/pool (e.g. 'degraded 1.'), osd=N matches up/acting",
                              id="pgs-filter")
            yield VirtualTable(PG_COLUMNS, self._cells, key=lambda pg: pg.pgid, locate=locate_pg, id="pgs-table")

    def _cells(self, pg: PGBrief) -> tuple[tuple[str, str], ...]:
        """pg_cells and the pool's name (shown on a wide terminal); only rows on screen get here."""
        head = pg.pgid.partition(".")[0]  # the pool id, in decimal ("12.1f")
        pool = self.pool_names.get(int(head), "") if head.isdigit() else ""
        return (*pg_cells(pg), (pool, ""))

    def on_mount(self) -> None:
        self.query_one("#pgs-states").border_title = "PGs by state"
        self.query_one("#pgs-recovery").border_title = "Recovery"
        self.query_one("#pgs-pools").border_title = "Per pool"
        self.query_one("#pgs-stuck").border_title = "Stuck PGs (pg dump_stuck, every 10 s)"
        self.query_one("#pgs-table-box").border_title = "All PGs"
        # Counts first: state names can be 50 characters long and would push them out of sight.
        self._cols(self.query_one("#pgs-states", DataTable), ("pgs", "share", "state"))
        self._cols(self.query_one("#pgs-pools", DataTable), ("pool", "pgs", "clean", "not clean", "states"))
        self._pg_rows: Sequence[PGBrief] = ()
        self._pg_columns: PGColumns | None = None
        self._filter = PGFilter("")
        self._generation = 0
        self.pool_names: dict[int, str] = {}

    @staticmethod
    def _cols(table: DataTable, names: tuple[str, ...]) -> None:
        for n in names:
            table.add_column(n, key=n)

    # ------------------------------------------------------------ rendering
    def fetch(self) -> Fetch:
        return Fetch(pg_table=True)

    def show(self, snap: ClusterSnapshot) -> None:
        self.pool_names = {p.id: p.name for p in snap.capacity.pools}
        total = snap.pgs.num_pgs or 1
        if snap.mgr_down:  # PG states come from the mgr: its last digest is not shown as current
            warn = Text("mgr down", style=palette.style("bold warn"))
            sync_table(self.query_one("#pgs-states", DataTable), {"mgr down": ("?", "?", warn)})
            self.query_one("#pgs-stuck", VirtualTable).set_rows(())
            text = Text(f"⚠ {snap.mgr_down}", style=palette.style("warn"))
            sync_static(self.query_one("#pgs-recovery", Static), text, lambda: text)
        else:
            sync_table(self.query_one("#pgs-states", DataTable), {
                s.state: (str(s.count), percent(s.count / total), Text(s.state, style=state_style(s.state)))
                for s in snap.pgs.by_state
            })
            sync_static(self.query_one("#pgs-recovery", Static), (snap.recovery, snap.io, snap.pgs, snap.progress),
                        lambda: self._recovery(snap))
        if snap.stuck is not None:  # None: not fetched this time, the last answer stands
            self.query_one("#pgs-stuck", VirtualTable).set_rows(snap.stuck)
            set_subtitle(self.query_one("#pgs-stuck"), f"{len(snap.stuck)} stuck" if snap.stuck else "none stuck")
        if snap.pg_table is not None:
            self._pg_rows, self._pg_columns = snap.pg_table, snap.pg_columns
            self._pool_breakdown(snap)
            self._render_pg_table()
        elif (why := snap.missing("pg dump")) is not None:
            # The last table (if any) stays; the box says it is not current and why.
            set_subtitle(self.query_one("#pgs-table-box"), f"⚠ PG list unavailable: {why}")
        if snap.stuck is None and (why := snap.missing("pg dump_stuck", "pg dump", "pg stat")) is not None:
            set_subtitle(self.query_one("#pgs-stuck"), f"⚠ unavailable: {why}")

    @staticmethod
    def _recovery(snap: ClusterSnapshot) -> Table:
        r, io, pgs = snap.recovery, snap.io, snap.pgs
        t = Table.grid(padding=(0, 2))
        t.add_column(style="bold")
        t.add_column()
        flags = [(f, pgs.count_with(f)) for f in FLAGS if f not in ("active", "clean")]
        shown = ", ".join(f"{n} {f}" for f, n in flags if n) or "none"
        s = palette.style
        t.add_row("pgs", Text(f"{pgs.num_pgs} total, {pgs.clean} active+clean",
                              style=s("ok" if pgs.clean == pgs.num_pgs else "warn")))
        t.add_row("not clean", Text(shown, style=s("" if shown == "none" else "warn")))
        t.add_row("degraded", Text(f"{r.degraded_objects}/{r.degraded_total} objects ({percent(r.degraded_ratio)})",
                                   style=s("warn" if r.degraded_objects else "muted")))
        t.add_row("misplaced", Text(f"{r.misplaced_objects}/{r.misplaced_total} objects "
                                    f"({percent(r.misplaced_ratio)})",
                                    style=s("warn" if r.misplaced_objects else "muted")))
        if r.unfound_objects:
            t.add_row("unfound", Text(f"{r.unfound_objects} objects", style=s("bold err")))
        t.add_row("rate", f"{human_rate(io.recovering_bps)}, {io.recovering_objects_ps} objects/s")
        eta = r.eta_seconds(io)
        t.add_row("time left", "-" if eta == 0 else ("no progress yet" if eta is None else f"~{human_duration(eta)}"))
        for ev in snap.progress:
            t.add_row("progress", Text(f"{ev.message} {percent(ev.fraction)}", style=s("info")))
        return t

    def _pool_breakdown(self, snap: ClusterSnapshot) -> None:
        rows = {}
        for pool in snap.pool_pg_states or ():
            n, clean = pool.total, pool.clean
            others = ", ".join(f"{s.count} {s.state}" for s in pool.states if s.state != "active+clean") or "-"
            rows[pool.pool_id] = (self.pool_names.get(pool.pool_id, f"pool {pool.pool_id}"), str(n), str(clean),
                                  Text(str(n - clean), style=palette.style("warn" if n - clean else "muted")), others)
        sync_table(self.query_one("#pgs-pools", DataTable), rows)

    def _render_pg_table(self) -> None:
        flt = self._filter
        self._generation += 1
        if not (flt.words or flt.osds):
            self._show_rows(self._generation, flt, self._pg_rows)
        else:
            self._filter_rows(self._generation, flt, self._pg_rows, dict(self.pool_names), self._pg_columns)

    # An explicit description: by default Textual repr()s the arguments (100k PGs) on the UI thread.
    @work(thread=True, group="pg-filter", description="filter the PG table")
    def _filter_rows(self, generation: int, flt: PGFilter, rows: Sequence[PGBrief], names: dict[int, str],
                     columns: PGColumns | None) -> None:
        """Filtering 200k PGs takes tens of ms: in a thread, so keys and paint go on meanwhile."""
        matched = flt.select(rows, names, columns)
        self.app.call_from_thread(self._show_rows, generation, flt, matched)

    def _show_rows(self, generation: int, flt: PGFilter, rows: Sequence[PGBrief]) -> None:
        if generation != self._generation:  # a newer filter or snapshot already replaced this one
            return
        table = self.query_one("#pgs-table", VirtualTable)
        old = table.rows
        table.set_rows(rows)
        if isinstance(old, list) and len(old) > 10_000:  # a big filter result: freed off the UI thread
            self.services.bury(old)
        box = self.query_one("#pgs-table-box")
        # the typed text, cut and with control characters made visible
        note = f" match '{readable(flt.text, 60)}'" if flt.text.strip() else ""
        if flt.error:
            note += f" — {flt.error}"
        set_subtitle(box, f"{len(rows)} of {len(self._pg_rows)} PGs{note}")

    # ------------------------------------------------------------ filter
    @on(FilterInput.Applied, "#pgs-filter")
    def _apply_filter(self, event: FilterInput.Applied) -> None:
        self._filter = PGFilter(event.text)
        self._render_pg_table()

    @on(Input.Submitted, "#pgs-filter")
    def _filter_submitted(self) -> None:
        self.query_one("#pgs-table", VirtualTable).focus()

    def on_resize(self, event: events.Resize) -> None:
        width = self.app.size.width
        table = self.query_one("#pgs-table", VirtualTable)
        if width >= 180:
            table.set_columns(PG_COLUMNS_WIDE, PG_ORDER_WIDE)
        else:
            table.set_columns(PG_COLUMNS_NARROW if width < 100 else PG_COLUMNS)

    def focus_table(self) -> None:
        self.query_one("#pgs-table", VirtualTable).focus()

    def action_focus_filter(self) -> None:
        self.query_one("#pgs-filter", Input).focus()

    def action_clear_filter(self) -> None:
        self.query_one("#pgs-filter", FilterInput).clear_filter()
        self.query_one("#pgs-table", VirtualTable).focus()
