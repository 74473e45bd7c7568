"""The guided OSD removal/replacement: plan and typed confirmation, then a live view of the workflow.

The workflow itself runs in the app (`WorkflowRunner` ticks it from a worker
every two seconds, whether or not this screen is open); the screen only shows
its persisted state and sends pause / resume / abort.
"""
from __future__ import annotations

import time

from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Static

from ...ceph.format import human_duration, human_rate
from ...ceph.workflows.removal import STEPS, Removal, RemovalEngine, stop_command
from .. import palette
from ..widgets.dialog import Dialog

LEVEL_STYLE = {"ok": "ok", "warn": "warn", "wait": "info", "block": "bold err"}  # palette specs
STEP_TEXT = {
    "preflight": "Preflight: fill after the move vs the cluster's full ratios, ok-to-stop, other PGs, flags",
    "drain": "Drain: mark out (or CRUSH weight 0) so data moves off",
    "wait_safe": "Wait until `ceph osd safe-to-destroy` says yes",
    "stop": "Stop the daemon(s) and wait until reported down",
    "remove": "`ceph osd destroy-actual` (replace) / `purge-actual` (remove), after safe-to-destroy",
    "replace": "New disk: `ceph-volume lvm create --osd-id ID`; wait until up and in",
    "backfill": "Follow recovery/backfill to all PGs active+clean",
    "done": "Done",
}


def planned_commands(r: Removal) -> list[str]:
    ids = " ".join(str(i) for i in r.osds)
    cmds = [f"ceph osd ok-to-stop {ids}   (preflight, read-only)"]
    if r.drain_mode == "crush0":
        cmds += [f"ceph osd crush reweight osd.{i} 0" for i in r.osds]
    else:
        cmds.append(f"ceph osd out {ids}")
    cmds.append(f"ceph osd safe-to-destroy {ids}   (polled until yes)")
    for i in r.osds:
        cmds.append(stop_command(r.stop_template, i) or f"(stop osd.{i} on its host; cephtui waits until it is down)")
    verb = "destroy-actual" if r.replace else "purge-actual"
    cmds += [f"ceph osd {verb} {i} --yes-i-really-mean-it   (what `ceph osd {verb[:-7]}` runs after its check; "
             "only once safe-to-destroy said yes in this run)" for i in r.osds]
    if r.replace:
        cmds += [f"ceph-volume lvm create --osd-id {i} --data /dev/DEVICE   (you, on the host)" for i in r.osds]
    return cmds


class PlanScreen(Dialog[bool]):
    """The whole plan with its commands; starts only when the OSD names are typed."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    PlanScreen { align: center middle; }
    PlanScreen > Vertical { width: 110; max-width: 95%; height: auto; max-height: 95%; border: thick $error;
        background: $surface; padding: 1 2; }
    PlanScreen #plan-body { height: auto; max-height: 30; }
    PlanScreen Input { margin-top: 1; }
    PlanScreen #plan-error { height: auto; }
    PlanScreen Horizontal { height: auto; margin-top: 1; align-horizontal: right; }
    PlanScreen Button { margin-left: 2; }
    """

    def __init__(self, plan: Removal) -> None:
        super().__init__()
        self.plan = plan
        self.expected = " ".join(f"osd.{i}" for i in plan.osds)

    def compose(self) -> ComposeResult:
        t = Text()
        t.append(f"{self.plan.title}\n\n", style="bold")
        t.append("cephtui will run, step by step, never skipping a check:\n", style="bold")
        for c in planned_commands(self.plan):
            t.append("$ ", style=palette.style("muted"))
            t.append(c + "\n", style=palette.style("info"))
        t.append("\nDrain: " + ("mark out — the OSD keeps its CRUSH weight, so its host's weight (and placement of "
                                "other PGs) is unchanged; data moves off once, and back if you mark it in."
                                if self.plan.drain_mode == "out" else
                                "CRUSH weight 0 — the host's weight shrinks too, so some PGs move between other "
                                "OSDs as well, but nothing moves again when the OSD is finally removed."), style="")
        t.append("\nYou can pause, resume or abort at any step; abort marks the OSDs back in until they are "
                 "destroyed. The state is saved after every step: a restarted cephtui offers to resume.\n")
        with Vertical():
            with VerticalScroll(id="plan-body"):
                yield Static(t)
            yield Input(placeholder=f"type {self.expected} to start", id="plan-typed")
            yield Static("", id="plan-error")
            with Horizontal():
                yield Button("Cancel", id="plan-cancel")
                yield Button("Start", id="plan-start", variant="error")

    def on_mount(self) -> None:
        self.query_one("#plan-typed", Input).focus()

    @on(Input.Submitted, "#plan-typed")
    @on(Button.Pressed, "#plan-start")
    def _start(self) -> None:
        if self.query_one("#plan-typed", Input).value.strip() != self.expected:
            self.query_one("#plan-error", Static).update(Text(f"Type exactly '{self.expected}'. Nothing was done.",
                                                              style=palette.style("bold err")))
            return
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
        return self.engine.state

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

        checks = Table.grid(padding=(0, 1))
        for c in s.checks:
            level = palette.style(LEVEL_STYLE.get(c["level"], ""))
            checks.add_row(Text({"ok": "✔", "warn": "⚠", "wait": "…", "block": "✖"}.get(c["level"], "?"),
                                style=level), Text(c["name"], style="bold"), Text(c["detail"], style=level))
        self.query_one("#rm-checks", Static).update(checks if s.checks
                                                    else Text("not run yet", style=palette.style("muted")))

        status_style = palette.style({"running": "ok", "paused": "warn", "blocked": "bold err", "failed": "bold err",
                                      "done": "bold ok", "aborted": "warn"}.get(s.status, ""))
        now = Text()
        if s.status == "running" and s.held_by and s.step == "wait_safe":  # another OSD died: say so at a glance
            now.append("HOLDING", style=palette.style("bold warn"))
        else:
            now.append(f"{s.status.upper()}", style=status_style)
        now.append(f" · step {s.step}")
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
            self.engine.pause()
        elif not self.state.finished:
            self.engine.resume()
        self.render_state()

    def action_abort(self) -> None:
        if self.state.finished:
            return
        if not self.confirm_abort:
            self.confirm_abort = True
            self.render_state()
            return
        self.confirm_abort = False
        self.app.abort_workflow(self.engine)  # type: ignore[attr-defined]

    def action_close(self) -> None:
        self.dismiss(None)


class ResumeScreen(Dialog[bool]):
    """Offered at start when a removal was interrupted."""

    BINDINGS = [Binding("escape", "later", "Later")]
    DEFAULT_CSS = """
    ResumeScreen { align: center middle; }
    ResumeScreen > Vertical { width: 90; height: auto; border: thick $warning; background: $surface; padding: 1 2; }
    ResumeScreen Horizontal { height: auto; margin-top: 1; align-horizontal: right; }
    ResumeScreen Button { margin-left: 2; }
    """

    def __init__(self, removal: Removal) -> None:
        super().__init__()
        self.removal = removal

    def compose(self) -> ComposeResult:
        r = self.removal
        t = Text()
        t.append("An interrupted workflow was found\n\n", style="bold")
        t.append(f"{r.title}, started {time.strftime('%Y-%m-%d %H:%M', time.localtime(r.started))}\n")
        t.append(f"stopped at step '{r.step}' ({r.status}), last saved "
                 f"{time.strftime('%H:%M:%S', time.localtime(r.updated))}\n")
        if r.waiting_for:
            t.append(f"it was: {r.waiting_for}\n", style=palette.style("muted"))
        t.append("\nResume continues exactly there (safety checks are asked again before anything "
                 "irreversible).", style="")
        with Vertical():
            yield Static(t)
            with Horizontal():
                yield Button("Later", id="resume-later")
                yield Button("Resume", id="resume-go", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#resume-go", Button).focus()

    @on(Button.Pressed, "#resume-go")
    def _go(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#resume-later")
    def action_later(self) -> None:
        self.dismiss(False)
