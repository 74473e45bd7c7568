"""Doctor: every raised health check explained, what it names on this cluster, and its fix.

The findings come from cephtui.ceph.doctor (pure, on the snapshot); this pane lists them, shows the selected
one, and sends its fix, a mute or an unmute through the usual form → exact CLI → confirmation → audit path.
"""
from __future__ import annotations

from functools import partial
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Static

from cephtui.ceph.doctor import fixes
from cephtui.ceph.doctor.configdb import blocked_set, daemons_for, read_running
from cephtui.ceph.doctor.diagnose import diagnose
from cephtui.ceph.doctor.failslow import findings as failslow_findings
from cephtui.ceph.doctor.model import Finding
from cephtui.ceph.errors import CephError
from cephtui.ceph.history.failslow import FailSlowReport
from cephtui.ceph.ops.health import health_mute, health_unmute, parse_reweight_plan, reweight_by_utilization
from cephtui.ceph.snapshot.cluster_snapshot import ClusterSnapshot
from cephtui.ui import palette
from cephtui.ui.compat import DataTable
from cephtui.ui.dialog_flows import in_thread
from cephtui.ui.dialog_types import Field
from cephtui.ui.pane import Fetch, Pane
from cephtui.ui.screens.wizards.form import FormScreen
from cephtui.ui.widgets.tables import set_subtitle, sync_static, sync_table

SEVERITY_STYLE = {"HEALTH_ERR": "bold err", "HEALTH_WARN": "warn"}


def _raised_by(who: str) -> str:
    if who == "cephtui":  # a finding of ours (fail-slow): Ceph itself raises nothing for it
        return "raised by cephtui, not by Ceph"
    return f"raised by the {who}" if who else ""


def mute_text(f: Finding) -> str:
    if f.mute is None:
        return "muted" if f.check.muted else ""
    zone = " UTC" if f.mute.ttl.endswith(("+0000", "Z")) else ""
    until = f"until {f.mute.ttl[:16].replace('T', ' ')}{zone}" if f.mute.ttl else "until unmuted"
    return f"muted {until}{', sticky' if f.mute.sticky else ''}"


def render_finding(f: Finding) -> RenderableType:
    e, a = f.explanation, f.affected
    out: list[RenderableType] = []
    head = Text()
    head.append(f"{f.code}", style="bold")
    head.append(f"  {f.check.summary}")
    if mute_text(f):
        head.append(f"  ({mute_text(f)})", style=palette.style("italic muted"))
    out.append(head)
    if e is None:
        out.append(Text("cephtui has no explanation for this code yet. Ceph's own detail:",
                        style=palette.style("warn")))
        out.extend(Text(f"  {d}") for d in f.check.detail[:30])
        return Group(*out)
    out.append(Text(f"{e.title}. {e.meaning}", style=palette.style("bold info")))
    out.append(Text.assemble(("Why it matters: ", "bold"), e.why))
    named = [("OSDs", ", ".join(f"osd.{i}" for i in a.osds)), ("Hosts", ", ".join(a.hosts)),
             ("Pools", ", ".join(a.pools)),
             ("PGs", ", ".join(a.pgs[:24]) + (f" … ({len(a.pgs)} listed)" if len(a.pgs) > 24 else "")),
             ("Daemons", ", ".join(a.daemons)), ("Also", ", ".join(a.other))]
    if any(v for _, v in named) or f.context:
        out.append(Text("\nOn this cluster", style="bold underline"))
        out.extend(Text.assemble((f"{k}: ", "bold"), v) for k, v in named if v)
        out.extend(Text(f"• {line}") for line in f.context)
    for line in a.unparsed[:8]:
        out.append(Text(f"  {line}", style=palette.style("muted")))
    out.append(Text("\nLikely causes", style="bold underline"))
    out.extend(Text(f"• {c}") for c in e.causes)
    out.append(Text("\nWhat to do", style="bold underline"))
    out.extend(Text(f"{i}. {s}") for i, s in enumerate(e.actions, 1))
    if f.fixes:
        out.append(Text("\nf offers", style="bold underline"))
        out.extend(Text.assemble(f"• {x.label}: ", (x.cli, palette.style("bold info"))) for x in f.fixes[:12])
    if e.options:
        out.append(Text.assemble(("\nOptions: ", "bold"), ", ".join(e.options)))
    if e.raised_by or e.releases:
        out.append(Text(" · ".join(x for x in (_raised_by(e.raised_by), e.releases)
                                   if x), style=palette.style("muted")))
    return Group(*out)


class DoctorPane(Pane):
    HELP = ("Every raised health check, explained for this cluster: what it means, what it names (OSDs, hosts, "
            "pools, PGs), the likely causes and what to do. `f` runs the fix cephtui offers for it through the "
            "usual preview and confirmation; `m` mutes a check (`ceph health mute`) for a while, `u` unmutes. "
            "`c` opens the crash reports, `g` the config database, `s` the slow ops, `b` the balancer and "
            "autoscaler. `cephtui doctor` prints the same headless.")
    ACTION_HELP = {
        "fix": "run the fix offered for the selected check (form, exact command, confirmation)",
        "mute": "mute the selected check for a while (ceph health mute CODE TTL [--sticky])",
        "unmute": "unmute the selected check (ceph health unmute CODE)",
        "crashes": "the crash reports: grouped by signature, backtraces, archive, archive-all, delete",
        "slow_ops": "the ops in flight on the OSDs SLOW_OPS names: by state, age, pool, client, and the peer "
                    "every stuck write waits for",
        "balance": "the balancer (status, score explained, a dry run as upmap commands) and the autoscaler's "
                   "targets per pool",
        "config": "the config database: every stored option with its help, what the mons and mgr really run "
                  "(ceph.conf shadowing the database), any daemon's values and their sources, set and rm",
    }
    MUTATING = {"fix": "fixing a health check", "mute": "muting a health check", "unmute": "unmuting a health check"}
    BINDINGS = [
        Binding("f", "fix", "Fix"),
        Binding("m", "mute", "Mute"),
        Binding("u", "unmute", "Unmute"),
        Binding("c", "crashes", "Crashes"),
        Binding("g", "config", "Config db"),
        Binding("s", "slow_ops", "Slow ops"),
        Binding("b", "balance", "Balancer"),
    ]
    DEFAULT_CSS = """
    DoctorPane #doctor-body { height: 1fr; }
    DoctorPane #doctor-box { width: 52; }
    DoctorPane #doctor-detail-box { width: 1fr; }
    """

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.findings: tuple[Finding, ...] = ()
        self._key: object = None
        # cephtui's own findings: the fail-slow ranking over the recorded history (ui/history.py), shown as
        # findings even while Ceph raises nothing
        self.failslow: tuple[Finding, ...] = ()
        self.failslow_note = ""

    def compose(self) -> ComposeResult:
        yield Static(id="doctor-summary")
        with Horizontal(id="doctor-body"):
            with Vertical(id="doctor-box", classes="box"):
                table: DataTable[Any] = DataTable(id="doctor-table", cursor_type="row", zebra_stripes=True)
                table.add_column("sev", width=4)
                table.add_column("check", width=39)  # AUTH_INSECURE_GLOBAL_ID_RECLAIM_ALLOWED whole
                table.add_column("n", width=4)
                yield table
            with VerticalScroll(id="doctor-detail-box", classes="box"):
                yield Static(id="doctor-detail")

    def on_mount(self) -> None:
        self.query_one("#doctor-box").border_title = "Raised checks"
        self.query_one("#doctor-detail-box").border_title = "Explained"

    def fetch(self) -> Fetch:
        return Fetch(osd_tree=True, pools=True)  # which host an OSD is on, a pool's size and objects

    def focus_table(self) -> None:
        self.query_one("#doctor-table", DataTable).focus()

    def show(self, snap: ClusterSnapshot) -> None:
        # Diagnosed again only when what it reads changed: health, the flags, OSD and pool tables.
        key = (snap.health, snap.flags, snap.ratios, id(snap.osd_table), id(snap.pool_table), snap.pgs.num_pgs,
               self.failslow, self.failslow_note)
        if key == self._key:
            return
        self._key = key
        self.findings = (*diagnose(snap), *self.failslow)
        sev = {f.code: Text(f.check.severity.removeprefix("HEALTH_")[:3],
                            style=palette.style(SEVERITY_STYLE.get(f.check.severity, ""))) for f in self.findings}
        table = self.query_one("#doctor-table", DataTable)
        sync_table(table, {f.code: (sev[f.code], Text(f.code, style=palette.style("muted") if f.check.muted else ""),
                                    str(f.check.count or "")) for f in self.findings}, ordered=True)
        # Ceph's count and ours apart: "OK, 1 check" beside HEALTH_OK would read as a check Ceph raised.
        n, ours = len(self.findings) - len(self.failslow), len(self.failslow)
        subtitle = f"{snap.health.short}, {n} check{'s' if n != 1 else ''}"
        if ours:
            subtitle += f" + {ours} cephtui finding{'s' if ours != 1 else ''}"
        set_subtitle(self.query_one("#doctor-box"), subtitle)
        summary = Text(f"{snap.health.status}", style=palette.style(SEVERITY_STYLE.get(snap.health.status, "ok")))
        if snap.health.mutes:
            summary.append(f" · {len(snap.health.mutes)} muted", style=palette.style("muted"))
        summary.append("  (the footer lists the keys; ? explains them)", style=palette.style("muted"))
        if self.failslow_note:
            summary.append(f"\n{self.failslow_note}", style=palette.style("warn" if self.failslow else "muted"))
        self.query_one("#doctor-summary", Static).update(summary)
        self._detail()

    def retheme(self) -> None:
        self._key = None

    def show_failslow(self, report: FailSlowReport | None, note: str) -> None:
        """A new fail-slow ranking (every 30 s): its findings join Ceph's own checks."""
        found = tuple(failslow_findings(report)) if report is not None else ()
        if report is not None and report.notes:  # a class too small to judge, heartbeats unread or pointing
            note = "\n".join([note, *(f"  · {n}" for n in report.notes[:4])])  # at a host's network …
        if (found, note) == (self.failslow, self.failslow_note):
            return
        self.failslow, self.failslow_note = found, note
        snap = self.services.snapshot
        if snap is not None and self.is_mounted:
            self.show(snap)

    def selected(self) -> Finding | None:
        table = self.query_one("#doctor-table", DataTable)
        if not self.findings or table.row_count == 0:
            return None
        try:
            code = str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
        except Exception:  # noqa: BLE001  # an empty or changing table has no cursor row
            return None
        return next((f for f in self.findings if f.code == code), None)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._detail()

    def _detail(self) -> None:
        f = self.selected()
        detail = self.query_one("#doctor-detail", Static)
        if f is None:
            sync_static(detail, None, lambda: Text("No health checks raised: nothing to explain.",
                                                   style=palette.style("ok")))
            return
        sync_static(detail, f, lambda: render_finding(f))

    def _need(self) -> Finding | None:
        f = self.selected()
        if f is None:
            self.app.notify("No health check selected.", severity="warning")
        return f

    @work(group="doctor-fix", exclusive=True, exit_on_error=False)
    async def action_fix(self) -> None:
        f = self._need()
        if f is None:
            return
        if not f.fixes:
            self.app.notify(f"cephtui has no one-key fix for {f.code}: the steps under 'What to do' are the way.",
                            timeout=6)
            return
        view = fixes.view(f.fixes[0])
        if view == "crashes":
            self.action_crashes()
            return
        if view == "reweight":
            await self._reweight()
            return
        if view in ("deep-scrub", "scrub-paced"):
            from cephtui.ui.screens.pacedscrub import PacedScrubScreen

            self.app.push_screen(PacedScrubScreen(view == "deep-scrub", f.affected.pgs, f.check.count))
            return
        if view == "balance":
            self.action_balance()
            return
        if view == "slow_ops":
            self.action_slow_ops()
            return
        if view == "scrub":
            from cephtui.ui.screens.scrub import ScrubScreen

            self.app.push_screen(ScrubScreen())
            return
        if view == "osd_bench":  # the per-OSD bench on the suspects and their peers, in the Bench tab's form
            from cephtui.ui.panes.bench import BenchPane

            self.services.show_tab("bench")
            self.services.pane(BenchPane).osd_bench_for(tuple(int(t) for t in f.fixes[0].targets))
            return
        if view == "osd_perf_history":  # the OSDs tab filtered to the suspects: their latency and its trend
            self.services.jump_to_osds(tuple(int(t) for t in f.fixes[0].targets))
            return
        if view == "config":
            self.action_config(f.explanation.options[0] if f.explanation and f.explanation.options else "")
            return
        offers = {o.label: o for o in f.fixes}
        asks = fixes.asks(f.fixes[0])
        title = f.explanation.title if f.explanation else f.code
        if len(offers) == 1 and not asks:
            try:
                operations = fixes.build(f.fixes[0])
            except ValueError as e:
                self.app.notify(str(e), severity="error")
                return
        else:
            fields = []
            if len(offers) > 1:
                fields.append(Field("offer", "Fix", value=f.fixes[0].label, choices=tuple(offers)))
            fields.extend(Field(a.name, a.label, placeholder=", ".join(a.choices)) for a in asks)

            def build(values: dict[str, str]) -> list[Any]:
                return fixes.build(offers.get(values.get("offer", ""), f.fixes[0]), values)

            what = title if len(offers) > 1 else f"{title}: {f.fixes[0].label}"
            given = await self.app.push_screen_wait(FormScreen(f"Fix {f.code}", fields, build, help=what))
            if not given:
                return
            operations = list(given)
        warnings = await self._would_not_reach(operations)
        snap, client = self.services.snapshot, self.services.client
        if snap is not None and (checked := await in_thread(self, lambda: fixes.precheck(f.fixes[0], client, snap),
                                                             f"{f.code}: checks before the fix", form_follows=True)):
            if checked.blocked:
                self.app.notify("\n".join(checked.lines), severity="error", timeout=15)
                return
            warnings = [*checked.lines, *warnings]
        await self.services.ask_confirm(operations, explain="\n".join([title, *warnings]))

    async def _reweight(self) -> None:
        """The dry run first (`osd test-reweight-by-utilization`, changes nothing); its proposal, if any, goes
        to the confirmation as the real command, with the PG movement previewed from the proposed weights."""
        dry = reweight_by_utilization(dry_run=True)
        client = self.services.client
        try:
            out, outs = await in_thread(self, lambda: client.mgr_raw(dry.prefix, **dict(dry.args)), dry.cli)
        except CephError as e:
            self.app.notify(f"{dry.cli}: {e.message}", severity="warning", timeout=10)
            return
        text = "\n".join(x.strip() for x in (out.decode(errors="replace"), outs) if x.strip())
        plan = parse_reweight_plan(text)
        if not plan:
            self.app.notify(f"{dry.cli}: no OSD would change. {text.splitlines()[0] if text else ''}", timeout=10)
            return
        real = reweight_by_utilization(dry_run=False, weights=tuple((o, new) for o, _, new in plan))
        lines = [f"The dry run ({dry.cli}) proposes:"] + [f"  osd.{o}: reweight {old:.4f} → {new:.4f}"
                                                          for o, old, new in plan]
        lines.append("The real command decides again from the usage at the moment it runs.")
        await self.services.ask_confirm([real], explain="\n".join(lines))

    async def _would_not_reach(self, operations: list[Any]) -> list[str]:
        """For `config set`: the daemons that run the option from ceph.conf or an override, where the new
        database value would change nothing (asked with `config show`, off the UI thread)."""
        snap = self.services.snapshot
        out: list[str] = []
        for op in operations:
            if op.prefix != "config set" or snap is None:
                continue
            args = dict(op.args)
            for daemon in daemons_for(args["who"], snap.mons.quorum, snap.mgr.active):
                try:
                    running = await in_thread(self, partial(read_running, self.services.client, daemon),
                                              f"config show {daemon}")
                except CephError as e:
                    out.append(f"could not check what {daemon} runs: {e.message}")
                    continue
                why = blocked_set(daemon, running, args["name"], args["value"])
                if why:
                    out.append(f"⚠ {why}")
        return out

    def action_mute(self) -> None:
        f = self._need()
        if f is None:
            return
        fields = [Field("ttl", "For how long (30m, 4h, 7d; empty: until unmuted)", value="4h"),
                  Field("sticky", "Sticky: stay muted when the check clears and comes back", value="no",
                        choices=("no", "yes"))]
        self.services.form_then_confirm(
            f"Mute {f.code}", fields,
            lambda v: [health_mute(f.code, v.get("ttl", ""), v.get("sticky") == "yes")],
            help="A muted check no longer turns the cluster's status to WARN or ERR. A mute that is not sticky "
                 "ends by itself when the check clears or affects more items.")

    def action_unmute(self) -> None:
        f = self._need()
        if f is None:
            return
        if f.mute is None and not f.check.muted:
            self.app.notify(f"{f.code} is not muted.")
            return
        self.services.confirm_operations([health_unmute(f.code)])

    def action_crashes(self) -> None:
        from cephtui.ui.screens.crashes import CrashScreen

        self.app.push_screen(CrashScreen())

    def action_config(self, search: str = "") -> None:
        from cephtui.ui.screens.configdb import ConfigScreen

        self.app.push_screen(ConfigScreen(search))

    def action_slow_ops(self) -> None:
        from cephtui.ui.screens.slowops import SlowOpsScreen

        f = next((f for f in self.findings if f.code == "SLOW_OPS"), None)
        if f is None:
            self.app.notify("SLOW_OPS is not raised: no OSD reports slow ops.")
            return
        self.app.push_screen(SlowOpsScreen(f.affected.osds))

    def action_balance(self) -> None:
        from cephtui.ui.screens.balance import BalanceScreen

        self.app.push_screen(BalanceScreen())
