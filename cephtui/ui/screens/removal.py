"""The guided OSD removal/replacement: plan and typed confirmation, then a live view of the workflow.

The workflow itself runs in the app (`WorkflowRunner` ticks it from a worker
every two seconds, whether or not this screen is open); the screen only shows
its persisted state and sends pause / resume / abort.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Optional

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Footer, Input, Static

from cephtui.ceph.errors import CephError
from cephtui.ceph.format import human_duration, human_rate
from cephtui.ceph.workflows import removal_plan
from cephtui.ceph.workflows.removal import OVERRIDES, STEPS, Check, Removal, StopCommandError
from cephtui.ceph.workflows.removal_checks import preflight
from cephtui.ceph.workflows.removal_engine import RemovalEngine
from cephtui.ceph.workflows.removal_stop import check_stop_template, describe_stop
from cephtui.ui import palette
from cephtui.ui.holds import held_checks
from cephtui.ui.screens.dialog import Dialog
from cephtui.ui.services import services_of

LEVEL_STYLE = {"ok": "ok", "warn": "warn", "wait": "info", "block": "bold err", "override": "bold warn"}
LEVEL_MARK = {"ok": "✔", "warn": "⚠", "wait": "…", "block": "✖", "override": "⚠!"}
RECHECK_WAITS_EVERY = 5.0  # seconds between the plan's own preflights while a check says "wait"
OVERRIDABLE = ("block", "wait")  # levels whose override the plan offers (a wait may turn into a blocker)
# Steps before the stop: a resume there may change how the OSDs are stopped.
BEFORE_STOP = ("preflight", "drain", "wait_safe", "stop")
STEP_TEXT = {
    "preflight": "Preflight: fill after the move vs the cluster's full ratios, ok-to-stop, other PGs, flags",
    "drain": "Drain: mark out (or CRUSH weight 0) so data moves off",
    "wait_safe": "Wait until clean by fresh PG stats, 0 PGs on the OSD(s), and safe-to-destroy: yes",
    "stop": "Stop the daemon(s) and wait until reported down",
    "remove": "`ceph osd destroy-actual` (replace) / `purge-actual` (remove), after safe-to-destroy",
    "replace": "New disk: `ceph-volume lvm create --osd-id ID`; wait until up and in",
    "backfill": "Follow recovery/backfill to all PGs active+clean",
    "done": "Done",
}


def planned_commands(r: Removal) -> list[str]:
    """The plan's lines, from the engine's own operations (removal_plan): the command approved is the one sent."""
    return [c.cli + (f"   ({c.note})" if c.note else "") for c in removal_plan.planned_commands(r)]


def checks_table(checks: list[Check] | list[dict[str, Any]]) -> Table:
    grid = Table.grid(padding=(0, 1))
    for c in checks:
        d = c if isinstance(c, dict) else c.__dict__
        level = palette.style(LEVEL_STYLE.get(d["level"], ""))
        grid.add_row(Text(LEVEL_MARK.get(d["level"], "?"), style=level), Text(d["name"], style="bold"),
                     Text(d["detail"], style=level))
    return grid


class PlanScreen(Dialog[bool]):
    """The whole plan with its commands and the preflight's answers; starts only when no blocker stands (or
    the operator ticked the override that names its risk) and the OSD names are typed."""

    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("ctrl+r", "recheck", "Preflight again")]
    DEFAULT_CSS = """
    PlanScreen > Vertical { width: 110; border: thick $error; }
    PlanScreen #plan-body { height: auto; max-height: 60vh; }
    PlanScreen #plan-checks { height: auto; margin-top: 1; }
    PlanScreen #plan-overrides { height: auto; }
    PlanScreen .override-risk { height: auto; padding-left: 4; }
    PlanScreen Input { margin-top: 1; }
    PlanScreen #plan-error { height: auto; }
    """

    def __init__(self, plan: Removal, client: Any = None) -> None:
        super().__init__()
        self.plan = plan
        self.client = client
        self.expected = " ".join(f"osd.{i}" for i in plan.osds)
        self.checks: list[Check] | None = None  # None: the preflight has not answered yet
        self.preflight_error = ""

    def compose(self) -> ComposeResult:
        t = Text()
        t.append("\ncephtui will run, step by step, never skipping a check:\n", style="bold")
        for c in planned_commands(self.plan):
            t.append("$ ", style=palette.style("muted"))
            t.append(c + "\n", style=palette.style("info"))
        out_removal = self.plan.drain_mode == "out" and not self.plan.replace  # a second move at the purge
        t.append("\n" + removal_plan.drain_cost(self.plan), style=palette.style("bold warn") if out_removal else "")
        t.append("\nThe OSD is stopped only when every PG is active+clean by PG stats newer than the drain, `osd df` "
                 "shows no PG on it and safe-to-destroy says yes on polls spanning the mgr's stats period. You can "
                 "pause, resume or abort at any step; abort marks the OSDs back in until they are destroyed. The "
                 "state is saved after every step: a restarted cephtui offers to resume.\n")
        with Vertical():
            with VerticalScroll(id="plan-body"):
                # The preflight's answers first: they decide whether to type the names at all.
                yield Static(Text(self.plan.title, style="bold"))
                yield Static(Text("Preflight: asking the cluster …", style=palette.style("info")), id="plan-checks")
                yield Vertical(id="plan-overrides")
                yield Static(t)
            yield Input(placeholder=f"type {self.expected} to start", id="plan-typed")
            yield Static("", id="plan-error")
            with Horizontal():
                yield Button("Cancel", id="plan-cancel")
                yield Button("Start", id="plan-start", variant="error")

    def on_mount(self) -> None:
        self.query_one("#plan-typed", Input).focus()
        self.action_recheck()
        # A wait (PGs peering or not yet reported, seconds after a map change) turns into its answer by itself:
        # the plan asks again while one stands, as the engine would, so the operator sees the real answer.
        self.set_interval(RECHECK_WAITS_EVERY, self._recheck_waits)

    def _recheck_waits(self) -> None:
        asking = any(w.group == "plan-preflight" and w.is_running for w in self.workers)
        if self.client is not None and not asking and any(c.level == "wait" for c in self.checks or ()):
            self._preflight()

    def action_recheck(self) -> None:
        self.checks = None
        self.query_one("#plan-checks", Static).update(Text("Preflight: asking the cluster …",
                                                           style=palette.style("info")))
        if self.client is None:  # no cluster to ask (a layout test): the engine runs the preflight at start
            self.call_later(self._show, [], "")
            return
        self._preflight()

    @work(thread=True, exclusive=True, exit_on_error=False, group="plan-preflight")
    def _preflight(self) -> None:
        try:
            checks, error = preflight(self.client, self.plan.osds), ""
        except CephError as e:
            checks, error = [], f"the preflight could not ask the cluster: {e.message}"
        checks += held_checks(services_of(self).workflow_store, self.plan.osds)  # a removal or maintenance, anyone's
        self.app.call_from_thread(self.call_later, self._show, checks, error)

    async def _show(self, checks: list[Check], error: str) -> None:
        """The preflight's answers; `checks` is set last, once the override boxes are mounted."""
        body = Text()
        body.append("Preflight (ctrl+r asks again):\n", style="bold")
        panel = self.query_one("#plan-checks", Static)
        if error:
            body.append(error, style=palette.style("bold err"))
            panel.update(body)
        else:
            grid = checks_table(checks)
            panel.update(Group(body, grid) if checks else Text("Preflight runs when the workflow starts.",
                                                               style=palette.style("muted")))
        box = self.query_one("#plan-overrides", Vertical)
        # Asking again keeps what the operator ticked; the old boxes are gone before the new ones (same ids) come.
        ticked = {cb.id for cb in box.query(Checkbox) if cb.value}
        await box.remove_children()
        widgets: list[Widget] = []
        for c in checks:
            if c.level in OVERRIDABLE and c.override:
                label = f"Override {c.override}: I accept the risk" + (" if Ceph still says no" if c.level == "wait"
                                                                        else "")
                widgets.append(Checkbox(label, f"override-{c.override}" in ticked, id=f"override-{c.override}"))
                widgets.append(Static(Text(f"risk: {OVERRIDES[c.override]} (written to the audit log)",
                                           style=palette.style("warn")), classes="override-risk"))
        await box.mount_all(widgets)
        self.checks, self.preflight_error = checks, error

    def overrides(self) -> list[str]:
        return [c.override for c in self.checks or () if c.level in OVERRIDABLE and c.override
                and self.query_one(f"#override-{c.override}", Checkbox).value]

    def refusal(self) -> str:
        """Why Start cannot go ahead yet, or ''."""
        if self.checks is None:
            return "The preflight has not answered yet."
        if self.preflight_error:
            return "The preflight could not ask the cluster; ctrl+r asks again."
        fixed = [c for c in self.checks if c.level == "block" and not c.override]
        if fixed:
            return f"{', '.join(c.name for c in fixed)} must be fixed first (see the preflight)."
        open_ = [c.override for c in self.checks if c.level == "block" and c.override
                 and c.override not in self.overrides()]
        if open_:
            return f"Blocked by {', '.join(open_)}: fix it, or tick its override to accept the risk."
        return ""

    @on(Input.Submitted, "#plan-typed")
    @on(Button.Pressed, "#plan-start")
    def _start(self) -> None:
        error = self.query_one("#plan-error", Static)
        if self.query_one("#plan-typed", Input).value.strip() != self.expected:
            error.update(Text(f"Type exactly '{self.expected}'. Nothing was done.", style=palette.style("bold err")))
            return
        why = self.refusal()
        if why:
            error.update(Text(f"{why} Nothing was done.", style=palette.style("bold err")))
            return
        self.plan.overrides = self.overrides()
        self.dismiss(True)

    @on(Button.Pressed, "#plan-cancel")
    def action_cancel(self) -> None:
        self.dismiss(False)


class RemovalScreen(Screen[None]):
    BINDINGS = [
        Binding("p", "pause", "Pause/resume"),
        Binding("a", "abort", "Abort"),
        Binding("escape", "close", "Close (keeps running)"),
    ]
    DEFAULT_CSS = """
    RemovalScreen #rm-top { height: auto; }
    RemovalScreen #rm-steps { width: 1fr; height: auto; }
    RemovalScreen #rm-checks { width: 1fr; height: auto; }
    RemovalScreen #rm-status { height: auto; min-height: 4; }
    RemovalScreen #rm-log { height: 1fr; }
    """

    def __init__(self, engine: RemovalEngine) -> None:
        super().__init__()
        self.engine = engine
        self.confirm_abort = False

    @property
    def state(self) -> Removal:
        """The workflow as last saved, whole: the engine's live state changes in a worker mid-step (a torn read
        said HOLDING over the previous wait's words). Read it once per use: each save replaces it."""
        return self.engine.published

    def compose(self) -> ComposeResult:
        with Horizontal(id="rm-top"):
            yield Static(id="rm-steps", classes="box")
            yield Static(id="rm-checks", classes="box")
        yield Static(id="rm-status", classes="box")
        with VerticalScroll(id="rm-log", classes="box"):
            yield Static(id="rm-log-text")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#rm-steps").border_title = self.state.title
        self.query_one("#rm-checks").border_title = "Preflight"
        self.query_one("#rm-status").border_title = "Now"
        self.query_one("#rm-log").border_title = "What was done (exact commands)"
        self.set_interval(0.5, self.render_state)
        self.render_state()

    def render_state(self) -> None:
        s = self.state
        steps = [x for x in STEPS if s.replace or x != "replace"]
        cur = steps.index(s.step) if s.step in steps else 0
        t = Text()
        for i, step in enumerate(steps):
            mark, spec = ("✔ ", "ok") if i < cur or s.step == "done" else (("▶ ", "bold") if i == cur else
                                                                          ("· ", "muted"))
            t.append(mark + STEP_TEXT[step] + "\n", style=palette.style(spec))
        self.query_one("#rm-steps", Static).update(t)

        checks = checks_table(s.checks)
        self.query_one("#rm-checks", Static).update(checks if s.checks
                                                    else Text("not run yet", style=palette.style("muted")))

        status_style = palette.style({"running": "ok", "paused": "warn", "blocked": "bold err", "failed": "bold err",
                                      "done": "bold ok", "aborted": "warn"}.get(s.status, ""))
        now = Text()
        if s.status == "running" and s.held_by and s.step == "wait_safe":  # another OSD died: say so at a glance
            now.append("HOLDING", style=palette.style("bold warn"))
        else:
            now.append(f"{s.status.upper()}", style=status_style)
        now.append(f" · step {s.step} · stop: {describe_stop(s.stop_template, s.stop_shell)}")
        if s.waiting_for:
            now.append(f"\n{s.waiting_for}")
        p = s.progress
        if p and s.step in ("wait_safe", "backfill"):
            eta = p.get("eta_seconds")
            now.append(f"\nPGs on the OSD(s): {p.get('pgs_on_osds', '?')} · not clean: {p.get('pgs_not_clean', '?')}"
                       f" · misplaced {p.get('misplaced', 0)} / degraded {p.get('degraded', 0)} objects"
                       f" · {p.get('objects_per_sec', 0)} obj/s, {human_rate(p.get('bytes_per_sec', 0))}"
                       f" · time left {'-' if eta == 0 else ('unknown' if eta is None else '~' + human_duration(eta))}",
                       style=palette.style("info"))
        if self.confirm_abort:
            now.append("\nPress a again to abort (OSDs not yet destroyed are marked back in).",
                       style=palette.style("bold warn"))
        self.query_one("#rm-status", Static).update(now)

        log = Text()
        for e in s.log[-60:]:
            log.append(time.strftime("%H:%M:%S ", time.localtime(e["time"])), style=palette.style("muted"))
            if e.get("cli"):
                log.append(f"$ {e['cli']}  ", style=palette.style("info"))
            log.append(f"{e['text']}\n")
        self.query_one("#rm-log-text", Static).update(log)

    def action_pause(self) -> None:
        if self.state.status == "running":
            self.app.run_worker(self.engine.pause, thread=True, group="workflow-control")
        elif not self.state.finished:
            if self.state.step in BEFORE_STOP:  # the stop is still ahead: its method may change now
                configured = services_of(self).osd_stop_cmd or ""
                self._ask_and_resume(ResumeScreen(self.state, configured, interrupted=False))
            else:
                self._resume_with(None)
        self.render_state()

    @work(group="removal-resume", description="resume a removal")
    async def _ask_and_resume(self, dialog: ResumeScreen) -> None:
        choice: StopChoice | None = await self.app.push_screen_wait(dialog)
        if choice is not None:  # None: cancelled, nothing changes
            self._resume_with(choice)

    def _resume_with(self, choice: StopChoice | None) -> None:
        def go() -> None:
            if choice is None:
                self.engine.resume()
            else:
                self.engine.resume(choice.template, choice.shell)
            self.app.call_from_thread(services_of(self).removals.tick)
        self.app.run_worker(go, thread=True, group="workflow-control")

    def action_abort(self) -> None:
        if self.state.finished:
            return
        if not self.confirm_abort:
            self.confirm_abort = True
            self.render_state()
            return
        self.confirm_abort = False
        services_of(self).removals.abort(self.engine)

    def action_close(self) -> None:
        self.dismiss(None)


@dataclass(frozen=True)
class StopChoice:
    template: str
    shell: bool


class StopMethodForm(Vertical):
    """The stop command and whether it runs through a shell, checked as it is typed."""

    DEFAULT_CSS = """
    StopMethodForm { height: auto; }
    StopMethodForm #stop-error { height: auto; }
    """

    def __init__(self, template: str, shell: bool) -> None:
        super().__init__()
        self.template, self.shell = template, shell

    def compose(self) -> ComposeResult:
        yield Static("How to stop the OSD(s) ({id}, {name} and {host} are filled in; empty: systemd here, the "
                     "orchestrator, or you):")
        yield Input(self.template, id="stop-template")
        yield Checkbox("run it through /bin/sh (for &&, pipes, redirections)", self.shell, id="stop-shell")
        yield Static("", id="stop-error")

    def choice(self) -> StopChoice | None:
        template = self.query_one("#stop-template", Input).value.strip()
        shell = self.query_one("#stop-shell", Checkbox).value
        try:
            check_stop_template(template, shell)
        except StopCommandError as e:
            self.query_one("#stop-error", Static).update(Text(f"{e}. Nothing was changed.",
                                                              style=palette.style("bold err")))
            return None
        return StopChoice(template, shell)


class ResumeScreen(Dialog[Optional[StopChoice]]):  # noqa: UP045 (a runtime expression: 3.9)
    """Resume a paused or interrupted removal. While the stop is still ahead it asks for the stop method,
    prefilled (a failing one must not be kept for ever). Resume returns the method to use from now on;
    Later/Cancel returns None and changes nothing.

    interrupted: offered at start for a workflow found in the queue (says where it stopped), rather than
    from the removal screen's own resume key."""

    BINDINGS = [Binding("escape", "later", "Later")]
    DEFAULT_CSS = """
    ResumeScreen > Vertical { border: thick $warning; }
    """

    def __init__(self, removal: Removal, configured: str = "", interrupted: bool = True) -> None:
        super().__init__()
        self.removal = removal
        self.configured = configured
        self.interrupted = interrupted

    def compose(self) -> ComposeResult:
        r = self.removal
        t = Text()
        if self.interrupted:
            t.append("An interrupted workflow was found\n\n", style="bold")
            t.append(f"{r.title}, started {time.strftime('%Y-%m-%d %H:%M', time.localtime(r.started))}\n")
            t.append(f"stopped at step '{r.step}' ({r.status}), last saved "
                     f"{time.strftime('%H:%M:%S', time.localtime(r.updated))}\n")
            if r.waiting_for:
                t.append(f"it was: {r.waiting_for}\n", style=palette.style("muted"))
        else:
            t.append(f"Resume: {r.title}\n", style="bold")
        t.append(f"saved stop method: {describe_stop(r.stop_template, r.stop_shell)}\n")
        if r.step in BEFORE_STOP and self.configured and self.configured != r.stop_template:
            t.append(f"this cephtui was started with: `{self.configured}` (filled in below)\n",
                     style=palette.style("info"))
        if self.interrupted:
            t.append("\nResume continues exactly there (safety checks are asked again before anything "
                     "irreversible).", style="")
        with Vertical():
            yield Static(t)
            if r.step in BEFORE_STOP:
                yield StopMethodForm(self.configured or r.stop_template, r.stop_shell)
            with Horizontal():
                yield Button("Later" if self.interrupted else "Cancel", id="resume-later")
                yield Button("Resume", id="resume-go", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#resume-go", Button).focus()

    @on(Input.Submitted, "#stop-template")
    @on(Button.Pressed, "#resume-go")
    def _go(self) -> None:
        forms = list(self.query(StopMethodForm))
        if not forms:
            self.dismiss(StopChoice(self.removal.stop_template, self.removal.stop_shell))
            return
        choice = forms[0].choice()
        if choice is not None:
            self.dismiss(choice)

    @on(Button.Pressed, "#resume-later")
    def action_later(self) -> None:
        self.dismiss(None)
