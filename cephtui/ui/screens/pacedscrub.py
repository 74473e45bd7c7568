"""Scrub the overdue PGs, paced (cephtui.ceph.doctor.pacing): the plan with its exact commands, a
confirmation, then progress as each PG's stamp moves; escape stops sending (what is in flight finishes)."""
from __future__ import annotations

import threading
import time

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from cephtui.ceph.doctor.pacing import MAX_IN_FLIGHT, ScrubPacer, plan_overdue, run_paced
from cephtui.ceph.errors import CephError
from cephtui.ceph.format import human_duration
from cephtui.ceph.ops.health import pg_scrub
from cephtui.ui import palette
from cephtui.ui.dialog_flows import in_thread
from cephtui.ui.screens.bench_views import BenchConfirmScreen
from cephtui.ui.screens.dialog import Dialog
from cephtui.ui.services import services_of


class PacedScrubScreen(Dialog[None]):
    BINDINGS = [Binding("escape", "stop_or_close", "Stop / close")]
    DEFAULT_CSS = """
    PacedScrubScreen > VerticalScroll { width: 110; height: auto; max-height: 80%; }
    """

    def __init__(self, deep: bool, named: tuple[str, ...], count: int) -> None:
        super().__init__()
        self.deep, self.named, self.count = deep, named, count
        self.stopping = threading.Event()
        self.pacer: ScrubPacer | None = None
        self.running = False
        self.started = 0.0

    @property
    def verb(self) -> str:
        return "deep-scrub" if self.deep else "scrub"

    def compose(self) -> ComposeResult:
        with VerticalScroll() as box:
            box.border_title = f"Paced {self.verb} of the overdue PGs (escape stops)"
            yield Static(Text("Reading the PGs' scrub stamps (pg dump pgs)…", style="italic"), id="paced-body")

    def on_mount(self) -> None:
        self._flow()

    @work(group="paced-scrub", exclusive=True, exit_on_error=False)
    async def _flow(self) -> None:
        app = services_of(self)
        body = self.query_one("#paced-body", Static)
        try:
            plan = await in_thread(self, lambda: plan_overdue(app.client, self.deep, self.named, self.count),
                                   "pg dump pgs")
        except CephError as e:
            body.update(Text(f"pg dump pgs: {e.message}", style=palette.style("warn")))
            return
        if not plan:
            body.update(Text("No overdue PG found.", style=palette.style("ok")))
            return
        operations = [pg_scrub(p.pgid, self.deep) for p in plan]
        explain = (f"{len(plan)} PGs, oldest stamp first; at most {MAX_IN_FLIGHT} at once and one per primary OSD, "
                   "the next only once the previous one's stamp has moved. Each reads "
                   f"{'every byte of' if self.deep else 'the metadata of'} its PG on every copy.")
        if app.refuse_if_read_only(f"{self.verb} of {len(plan)} PGs"):
            self.dismiss()
            return
        if not await self.app.push_screen_wait(BenchConfirmScreen(f"Paced {self.verb} of {len(plan)} PGs", operations,
                                                             explain)):
            self.dismiss()
            return
        self.running = True
        self.started = time.monotonic()
        client, audit = app.client, app.audit

        def progress(pacer: ScrubPacer, note: str) -> None:
            self.pacer = pacer
            self.app.call_from_thread(body.update, self._progress(pacer, len(plan), note))

        pacer = await in_thread(self, lambda: run_paced(client, plan, self.deep, audit, progress,
                                                         self.stopping.is_set), "paced scrub")
        self.running = False
        body.update(self._progress(pacer, len(plan), "stopped" if self.stopping.is_set() else "finished"))
        app.refresh_now()

    def _progress(self, pacer: ScrubPacer, total: int, note: str) -> Text:
        t = Text(f"{len(pacer.done)} of {total} PGs {self.verb}bed"
                 f", {len(pacer.in_flight)} in flight ({', '.join(sorted(pacer.in_flight)) or '-'})"
                 f", {len(pacer.pending)} waiting", style="bold")
        if self.started:
            t.append(f"\n{self._pace(pacer, total)}", style=palette.style("muted"))
        if pacer.given_up:
            t.append(f"\nnot done: {', '.join(pacer.given_up[:20])}", style=palette.style("warn"))
        if note:
            t.append(f"\n{note}", style=palette.style("muted"))
        if note in ("finished", "stopped"):
            t.append("\nescape closes", style=palette.style("muted"))
        return t

    def _pace(self, pacer: ScrubPacer, total: int) -> str:
        """Elapsed, and the time left at the pace so far (thousands of overdue PGs take hours)."""
        elapsed = time.monotonic() - self.started
        line = f"elapsed {human_duration(elapsed)}"
        left = total - len(pacer.done) - len(pacer.given_up)
        if pacer.done and left > 0:
            line += f", about {human_duration(elapsed / len(pacer.done) * left)} left at this pace"
        return line

    def action_stop_or_close(self) -> None:
        if self.running and not self.stopping.is_set():
            self.stopping.set()
            self.app.notify("Stopping: no more scrubs are asked for; those in flight finish on their own.")
            return
        if not self.running:
            self.dismiss()

    def on_unmount(self) -> None:
        self.stopping.set()


