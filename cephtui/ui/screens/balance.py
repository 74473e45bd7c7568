"""The balancer and the autoscaler: status and score explained; a dry run of `balancer optimize` shown as the
upmap commands it would send; each pool's autoscaler target and what it is about to do, with `a` to apply
a suggested pg_num through the confirmation."""
from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from cephtui.ceph import ops
from cephtui.ceph.doctor.balance import (
    DRY_RUN_PLAN,
    AutoscalePool,
    explain_score,
    parse_autoscale,
    parse_score,
    parse_status,
    upmap_commands,
)
from cephtui.ceph.errors import CephError
from cephtui.ceph.ops.health import balancer_active, balancer_optimize, balancer_rm
from cephtui.ui import palette
from cephtui.ui.screens.reading import ReadingDialog
from cephtui.ui.services import services_of


class BalanceScreen(ReadingDialog):
    BINDINGS = [Binding("escape", "dismiss", "Close"), Binding("o", "dry_run", "Dry run"),
                Binding("a", "apply_autoscale", "Apply pg_num"), Binding("r", "reload", "Reload")]
    DEFAULT_CSS = """
    BalanceScreen > VerticalScroll { width: 130; height: 90%; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.pools: tuple[AutoscalePool, ...] = ()
        self.active = False
        self.dry_run: RenderableType = Text("")

    def compose(self) -> ComposeResult:
        with VerticalScroll() as box:
            box.border_title = "Balancer and autoscaler (o dry run · a apply suggested pg_num · r reload · escape)"
            yield Static(Text("Loading balancer status…", style="italic"), id="balance-body")
            yield Static("", id="balance-dry-run")

    async def load(self) -> None:
        c = self.client
        status = await self.ask("balancer status", lambda: c.mgr("balancer status"))
        score = await self.ask("balancer eval", lambda: b" ".join(
            x if isinstance(x, bytes) else x.encode() for x in c.mgr_raw("balancer eval")).decode())
        auto = await self.ask("autoscale-status", lambda: c.mgr("osd pool autoscale-status"))
        parts: list[RenderableType] = [Text("Balancer", style="bold underline")]
        if isinstance(status, CephError):
            parts.append(Text(f"balancer status: {status.message}", style=palette.style("warn")))
        else:
            st = parse_status(status)
            self.active = st.active
            parts.append(Text(f"{'on' if st.active else 'OFF'}, mode {st.mode or '?'}"
                              + (f"; last run: {st.last_result}" if st.last_result else "")))
        if isinstance(score, CephError):
            parts.append(Text(f"balancer eval: {score.message}", style=palette.style("warn")))
        else:
            parts.append(Text(explain_score(parse_score(str(score)))))
        parts.append(Text("\nAutoscaler (osd pool autoscale-status)", style="bold underline"))
        if isinstance(auto, CephError):
            parts.append(Text(f"autoscale-status: {auto.message}", style=palette.style("warn")))
        else:
            self.pools = parse_autoscale(auto)
            t = Table(box=None)
            # The CLI's own columns: NEW PG_NUM only where the autoscaler would act (pg_num_final is computed
            # for every pool, and a bare "32" beside "no change" read as a target it is not).
            for col in ("pool", "mode", "pg_num", "new pg_num", "ratio", "what it does"):
                t.add_column(col)
            for p in self.pools:
                plan = Text(p.plan, style=palette.style("warn") if p.would_adjust else "")
                t.add_row(p.name, p.mode, str(p.pg_num), str(p.final) if p.would_adjust else "",
                          f"{p.capacity_ratio:.4f}", plan)
            parts.append(t)
        self.query_one("#balance-body", Static).update(Group(*parts))

    @work(group="balance-flow", exclusive=True, exit_on_error=False)
    async def action_dry_run(self) -> None:
        """`balancer optimize` refuses while the balancer is on: off (if on), optimize into a plan, read the
        plan's moves, then the plan dropped and the balancer put back as it was, each step confirmed."""
        app = services_of(self)
        box = self.query_one("#balance-dry-run", Static)
        was_on = self.active
        first = ([balancer_active(False)] if was_on else []) + [balancer_optimize(DRY_RUN_PLAN)]
        explain = ("The balancer must be off while it computes a plan by hand; the next dialog puts it back on."
                   if was_on else "")
        outcome = await app.ask_confirm(first, explain=explain)
        if outcome is None or not outcome.ran:
            return
        planned = outcome.ok
        if planned:
            dump = await self.ask("balancer dump", lambda: self.client.mgr("balancer dump", plan=DRY_RUN_PLAN))
            if isinstance(dump, CephError):
                box.update(Text(f"balancer dump: {dump.message}", style=palette.style("warn")))
            else:
                cmds = upmap_commands(dump)
                lines = [Text(f"  {c}") for c in cmds[:200]] or [
                    Text("  nothing: no move improves the spread", style=palette.style("ok"))]
                box.update(Group(Text("\nDry run: the balancer would send", style="bold underline"), *lines))
        else:
            # EALREADY "Unable to find further optimization …" is how a balanced cluster answers.
            why = next((m for _, ok, m in outcome.results if not ok), "refused")
            box.update(Text(f"\nDry run: {why}", style=palette.style("ok" if "optimization" in why or
                                                                          "perfect" in why else "warn")))
        turned_off = was_on and bool(outcome.results) and outcome.results[0][1]
        back = ([balancer_rm(DRY_RUN_PLAN)] if planned else []) + ([balancer_active(True)] if turned_off else [])
        if back:
            await app.ask_confirm(back, explain="Put things back as they were: "
                                  + ", ".join(op.title.lower() for op in back) + ".")
        self.action_reload()

    def action_apply_autoscale(self) -> None:
        todo = [p for p in self.pools if p.would_adjust]
        if not todo:
            self.app.notify("The autoscaler suggests no pg_num change.")
            return
        services_of(self).confirm_operations([ops.pool_set(p.name, "pg_num", p.final) for p in todo])
