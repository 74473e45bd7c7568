"""Pools: every pool with its protection, PGs, autoscaler, applications, rule, quotas, usage and IO.

Create through the wizard; edit size/min_size, pg_num, quotas, application and
name through checked forms; delete with the pool's name typed. Every change
shows its `ceph` commands and the monitor's answer.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from rich.markup import escape
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from cephtui.ceph import ops
from cephtui.ceph.format import human_bytes, human_rate, percent
from cephtui.ceph.ops import pgcalc, poolplan
from cephtui.ceph.ops.poolplan import PoolPlan
from cephtui.ceph.snapshot.cluster_snapshot import ClusterSnapshot
from cephtui.ceph.snapshot.pools import PoolInfo
from cephtui.ui import palette
from cephtui.ui.compat import DataTable
from cephtui.ui.dialog_types import Field
from cephtui.ui.pane import Fetch, Pane
from cephtui.ui.screens.pool_detail import PoolDetailScreen
from cephtui.ui.widgets.tables import sync_table

if TYPE_CHECKING:  # the wizard is imported when first opened
    from cephtui.ui.screens.wizards.pool import PoolWizard

# Explicit widths: auto-sized columns stayed at their label's width when rows arrived with the tab hidden.
# Capacity first after the name and its protection (what `ceph df` shows, and what an admin looks for): at 160
# columns every column up to the autoscaler fits; the rule, quota and rates are a scroll away.
COLUMNS = (("id", 3), ("name", 22), ("type", 24), ("size", 5), ("stored", 10), ("used", 10), ("%used", 6),
           ("max avail", 10), ("objects", 8), ("pg_num", 11), ("autoscale", 12), ("apps", 16), ("rule", 18),
           ("quota", 14), ("rd/wr", 22))
UNITS = {"": 1, "b": 1, "k": 1024, "kb": 1024, "kib": 1024, "m": 1024 ** 2, "mb": 1024 ** 2, "mib": 1024 ** 2,
         "g": 1024 ** 3, "gb": 1024 ** 3, "gib": 1024 ** 3, "t": 1024 ** 4, "tb": 1024 ** 4, "tib": 1024 ** 4}


def parse_bytes(text: str) -> int:
    """'10G', '500 MiB', '0' (no quota) -> bytes; IEC multiples, as ceph prints them."""
    # ASCII digits only (\d also takes other scripts' digits), and a bound: 400 digits made float() inf
    # and int(inf) an OverflowError, a traceback instead of a message.
    m = re.fullmatch(r"\s*([0-9]{1,20}(?:\.[0-9]{1,20})?)\s*([A-Za-z]*)\s*", text)
    if not m or m.group(2).lower() not in UNITS:
        raise ValueError(f"max bytes: '{text}' is not a size (e.g. 0, 500M, 10G, 2TiB)")
    value = int(float(m.group(1)) * UNITS[m.group(2).lower()])
    if value >= 2 ** 63:
        raise ValueError(f"max bytes: '{text.strip()}' is too large (at most 8 EiB)")
    return value


def _quota(p: PoolInfo) -> str:
    parts = []
    if p.quota_max_bytes:
        parts.append(human_bytes(p.quota_max_bytes))
    if p.quota_max_objects:
        parts.append(f"{p.quota_max_objects} obj")
    return ", ".join(parts) or "-"


class PoolsPane(Pane):
    HELP = "If a step of a multi-step change fails, the dialog says which, what already happened, and offers Undo."
    ACTION_HELP = {
        "create": ("create-pool wizard: name, type (replicated / erasure), application, size and min_size, pg_num "
                   "from the PG calculator (its working shown), autoscale mode"),
        "detail": "every setting of the pool (`ceph osd pool get POOL all`)",
        "size": "size and min_size",
        "pg_num": "pg_num (split or merge: data moves)",
        "quota": "quotas (`10G`; `0` removes)",
        "delete": "delete (type the pool's name)",
    }
    # What each key would change: dimmed and refused in --read-only mode (see ui/readonly.py).
    MUTATING = {
        "create": "creating a pool",
        "size": "changing a pool's size",
        "pg_num": "changing pg_num",
        "quota": "setting a quota",
        "application": "enabling an application",
        "rename": "renaming a pool",
        "delete": "deleting a pool",
    }
    BINDINGS = [
        Binding("c", "create", "Create pool"),
        Binding("enter", "detail", "Detail"),
        Binding("s", "size", "Size"),
        Binding("p", "pg_num", "pg_num"),
        Binding("Q", "quota", "Quota"),
        Binding("a", "application", "Application"),
        Binding("R", "rename", "Rename"),
        Binding("D", "delete", "Delete"),
    ]

    def __init__(self, **kw: object) -> None:
        super().__init__(**kw)  # type: ignore[arg-type]
        self.pools: tuple[PoolInfo, ...] = ()
        self.snap: ClusterSnapshot | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="pools-summary")
        yield DataTable(id="pools-table", classes="box", cursor_type="row", zebra_stripes=True)
        yield Static(id="pools-selected", classes="box")

    def on_mount(self) -> None:
        table = self.query_one("#pools-table", DataTable)
        table.border_title = "Pools (osd dump + df detail + osd pool stats + autoscale-status)"
        for c, width in COLUMNS:
            table.add_column(c, key=c, width=width)
        self.query_one("#pools-selected").border_title = "Selected pool"

    @property
    def table(self) -> DataTable:
        return self.query_one("#pools-table", DataTable)

    def focus_table(self) -> None:
        self.table.focus()

    # ------------------------------------------------------------ rendering
    def fetch(self) -> Fetch:
        return Fetch(crush=True, pools=True)  # the CRUSH map: the plans' warnings and the create wizard

    def show(self, snap: ClusterSnapshot) -> None:
        if snap.pool_table is None:
            return
        self.snap, self.pools = snap, snap.pool_table
        rows = {}
        for p in self.pools:
            style = palette.style("bold err" if p.percent_used >= snap.ratios.full else (
                "warn" if p.percent_used >= snap.ratios.nearfull else ""))
            auto = p.autoscale_mode + (f" → {p.autoscale_target}" if p.autoscale_target not in (None, p.pg_num)
                                       and p.autoscale_mode != "off" else "")
            pg = str(p.pg_num) + (f" → {p.pg_num_target}" if p.pg_num_target != p.pg_num else "")
            size = f"{p.size}/{p.min_size}"
            kind = p.kind + (f" ({p.ec_profile})" if p.ec_profile else "")
            rows[p.id] = (str(p.id), Text(p.name, style="bold"), kind,
                          Text(size, style=palette.style("warn") if p.type == "replicated"
                               and (p.size < 3 or p.min_size < 2) else ""),
                          human_bytes(p.stored), human_bytes(p.used), Text(percent(p.percent_used), style=style),
                          human_bytes(p.max_avail), str(p.objects),
                          pg, auto, ",".join(p.applications) or Text("none", style=palette.style("warn")),
                          p.crush_rule, _quota(p),
                          # Rates come from the mgr: without it they are unknown, not 0.
                          Text("mgr down", style=palette.style("warn")) if snap.mgr_down
                          else f"{human_rate(p.read_bps)} / {human_rate(p.write_bps)}")
        sync_table(self.table, rows)
        total = sum(p.stored for p in self.pools)
        why = snap.missing("osd pool stats", "osd pool autoscale-status", "osd crush rule dump")
        warn = " · " + palette.markup("warn", f"⚠ rates, autoscale or rule names unavailable: {escape(why)}") \
            if why else ""
        lead = warn if snap.mgr_down else ""  # first, where a narrow terminal does not cut it off
        self.query_one("#pools-summary", Static).update(
            f" [b]{len(self.pools)}[/] pools, {human_bytes(total)} stored{lead} · c create · enter detail · s size "
            f"· p pg_num · Q quota · a application · R rename · D delete{'' if lead else warn}")
        self._selected_info()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._selected_info()

    def selected(self) -> PoolInfo | None:
        if not self.table.row_count:
            return None
        key = self.table.coordinate_to_cell_key(self.table.cursor_coordinate).row_key.value
        return next((p for p in self.pools if str(p.id) == str(key)), None)

    def _selected_info(self) -> None:
        p = self.selected()
        box = self.query_one("#pools-selected", Static)
        if p is None:
            box.update("")
            return
        t = Table.grid(padding=(0, 2))
        for _ in range(4):
            t.add_column()
        t.add_row(Text("type", style="bold"), p.kind + (f", profile {p.ec_profile}" if p.ec_profile else ""),
                  Text("rule", style="bold"), p.crush_rule)
        t.add_row(Text("size/min_size", style="bold"), f"{p.size}/{p.min_size}", Text("pg_num/pgp_num", style="bold"),
                  f"{p.pg_num}/{p.pgp_num} (target {p.pg_num_target}, autoscaler {p.autoscale_mode}"
                  + (f" → {p.autoscale_target})" if p.autoscale_target is not None else ")"))
        t.add_row(Text("applications", style="bold"), ", ".join(p.applications) or "none",
                  Text("quotas", style="bold"), _quota(p))
        t.add_row(Text("IO", style="bold"), f"{human_rate(p.read_bps)} rd, {human_rate(p.write_bps)} wr, "
                  f"{p.read_ops} op/s rd, {p.write_ops} op/s wr", Text("flags", style="bold"), ", ".join(p.flags))
        box.update(t)

    # ------------------------------------------------------------ actions
    def _form(self, title: str, fields: list[Field], build: Callable[[dict[str, str]], list[ops.Operation]],
              help: str = "", warn: Callable[[dict[str, str]], Sequence[str]] | None = None) -> None:
        self.services.form_then_confirm(title, fields, build, help, warn)

    def _need_pool(self) -> PoolInfo | None:
        p = self.selected()
        if p is None:
            self.app.notify("No pool selected.", severity="warning")
        return p

    def action_create(self) -> None:
        from cephtui.ui.screens.wizards.pool import PoolWizard

        snap = self.snap
        osd_count = snap.osds.in_ if snap else 1

        client = self.services.client
        self._create(PoolWizard([p.name for p in self.pools], osd_count, snap.crush if snap else None,
                                [(p.pg_num_target, p.size) for p in self.pools],
                                shares=[pgcalc.PoolShare(p.name, p.used, p.target_ratio) for p in self.pools],
                                read_defaults=lambda: poolplan.read_defaults(client)), snap)

    @work(group="pool-wizard", description="pool wizard")
    async def _create(self, wizard: PoolWizard, snap: ClusterSnapshot | None) -> None:
        """The wizard's plan, then the confirm dialog with its warnings (and the undo if a step fails)."""
        plan: PoolPlan | None = await self.app.push_screen_wait(wizard)
        if plan is None:
            return
        notes = poolplan.warnings(plan, snap.crush if snap else None)
        explain = Text("\n".join(f"⚠ {n}" for n in notes), style=palette.style("warn")) if notes else ""
        await self.services.ask_confirm(poolplan.plan_ops(plan), explain=explain, undo=poolplan.undo_ops)

    def action_detail(self) -> None:
        p = self._need_pool()
        if p is not None:
            self.app.push_screen(PoolDetailScreen(self.services.client, p))

    def action_size(self) -> None:
        p = self._need_pool()
        if p is None:
            return
        crush = self.snap.crush if self.snap else None
        plan = PoolPlan(p.name, size=p.size, min_size=p.min_size, rule=p.crush_rule)

        def build(v: dict[str, str]) -> list[ops.Operation]:
            size, min_size = poolplan.check_replication(v["size"], v["min_size"])
            if p.type == "erasure" and size != p.size:
                raise ValueError("the size of an erasure-coded pool is k+m, fixed by its profile")
            if p.type == "erasure" and min_size < p.k:
                raise ValueError(f"min_size below k={p.k} would let the pool serve data it cannot reconstruct")
            if p.type == "replicated":  # more copies than its rule's failure domains can hold: never active
                poolplan.check_placement(replace(plan, size=size, min_size=min_size), crush)
            out = []
            # Growing: raise size first so min_size never exceeds it in between; shrinking: the other way round.
            steps = [("size", size, p.size), ("min_size", min_size, p.min_size)]
            for var, new, old in (steps if size >= p.size else reversed(steps)):
                if new != old:
                    out.append(ops.pool_set(p.name, var, new))
            if not out:
                raise ValueError("nothing changed")
            return out

        def warn(v: dict[str, str]) -> list[str]:
            try:
                size, min_size = poolplan.check_replication(v["size"], v["min_size"])
            except ValueError:
                return []
            notes = poolplan.warnings(replace(plan, size=size, min_size=min_size), crush) \
                if p.type == "replicated" else []
            if size > p.size:
                notes.append(f"raising size to {size} copies every object once more: expect backfill.")
            return notes

        self._form(f"Size of pool {p.name}", [Field("size", "size (copies)", str(p.size)),
                                              Field("min_size", "min_size", str(p.min_size))], build, warn=warn)

    def action_pg_num(self) -> None:
        p = self._need_pool()
        if p is None:
            return

        def build(v: dict[str, str]) -> list[ops.Operation]:
            n, _ = pgcalc.check_pg_num(v["pg_num"])
            if n == p.pg_num_target:
                raise ValueError("nothing changed")
            return [ops.pool_set(p.name, "pg_num", n)]

        def warn(v: dict[str, str]) -> list[str]:
            try:
                n, note = pgcalc.check_pg_num(v["pg_num"])
            except ValueError:
                return []
            notes = [note] if note else []
            if n > p.pg_num:
                notes.append(f"{p.pg_num} → {n}: PGs split and the new ones are placed anew; data moves.")
            elif n < p.pg_num:
                notes.append(f"{p.pg_num} → {n}: PGs merge pairwise, one step at a time; data moves.")
            if p.autoscale_mode == "on":
                notes.append("the autoscaler is on for this pool and may change pg_num back; set its mode to "
                             "warn or off to keep a manual value.")
            return notes

        self._form(f"pg_num of pool {p.name}", [Field("pg_num", "pg_num", str(p.pg_num_target))], build, warn=warn,
                   help="Pacific moves pgp_num along by itself, gradually, to limit misplaced data.")

    def action_quota(self) -> None:
        p = self._need_pool()
        if p is None:
            return

        def build(v: dict[str, str]) -> list[ops.Operation]:
            max_bytes = parse_bytes(v["bytes"])
            raw = v["objects"].strip() or "0"
            if not (raw.isascii() and raw.lstrip("-").isdigit()) or len(raw) > 19:  # int() takes '٣' and 4,300 digits
                raise ValueError(f"max objects must be a whole number below 2^63 (got '{v['objects']}')")
            max_objects = int(raw)
            if max_objects < 0:
                raise ValueError("max objects cannot be negative (0 removes the quota)")
            out = []
            if max_bytes != p.quota_max_bytes:
                out.append(ops.pool_set_quota(p.name, "max_bytes", max_bytes))
            if max_objects != p.quota_max_objects:
                out.append(ops.pool_set_quota(p.name, "max_objects", max_objects))
            if not out:
                raise ValueError("nothing changed")
            return out

        self._form(f"Quotas of pool {p.name}", [
            Field("bytes", "max bytes (0: none; 500M, 10G …)", str(p.quota_max_bytes)),
            Field("objects", "max objects (0: none)", str(p.quota_max_objects)),
        ], build, help="A pool at its quota refuses writes (POOL_FULL) until data is deleted or the quota raised.")

    def action_application(self) -> None:
        p = self._need_pool()
        if p is None:
            return

        def build(v: dict[str, str]) -> list[ops.Operation]:
            app = v["custom"].strip() if v["app"] == "custom" else v["app"]
            if not app:
                raise ValueError("choose an application")
            if app in p.applications:
                raise ValueError(f"pool {p.name} is already tagged {app}")
            return [ops.pool_application_enable(p.name, app)]

        self._form(f"Application of pool {p.name}", [
            Field("app", "Application", "rbd", choices=(*poolplan.APPLICATIONS, "custom")),
            Field("custom", "Custom name"),
        ], build, help=f"Current: {', '.join(p.applications) or 'none'}. Untagged pools raise POOL_APP_NOT_ENABLED.")

    def action_rename(self) -> None:
        p = self._need_pool()
        if p is None:
            return
        names = [x.name for x in self.pools if x.id != p.id]

        def build(v: dict[str, str]) -> list[ops.Operation]:
            return [ops.pool_rename(p.name, poolplan.check_name(v["name"], names))]

        self._form(f"Rename pool {p.name}", [Field("name", "New name", p.name)], build,
                   help="Clients that name the pool (RBD images' config, CephFS, RGW zones) must follow.")

    def action_delete(self) -> None:
        p = self._need_pool()
        if p is None:
            return
        explain = Text(f"{p.name} holds {p.objects} objects, {human_bytes(p.stored)}; all of it is destroyed.",
                       style=palette.style("bold err"))
        self.services.confirm_operations([ops.pool_delete(p.name)], explain=explain)
