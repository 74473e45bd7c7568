"""OSD removals and replacements, owned by the app: the queue (kept in the cluster, colleagues' too), the
status-bar indicator, starting, resuming, taking over and advancing them. The engine is cephtui.ceph.workflows.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from textual.app import App

from cephtui.ceph import ops
from cephtui.ceph.cluster import Cluster
from cephtui.ceph.workflows.queue import driven_elsewhere, indicator, queue_rows
from cephtui.ceph.workflows.removal import KIND, Removal
from cephtui.ceph.workflows.removal_engine import RemovalEngine
from cephtui.ceph.workflows.store import WorkflowConflict, WorkflowStore
from cephtui.ui.readonly import refusal
from cephtui.ui.screens.removal import RemovalScreen, ResumeScreen, StopChoice
from cephtui.ui.widgets.statusbar import StatusBar

log = logging.getLogger("cephtui")


class RemovalQueue:
    """The app's removals (ui/services.py RemovalService). `read_only` and `osd_stop_cmd` are read when used: the
    app may set them after making this."""

    def __init__(self, app: App[Any], client: Cluster, store: WorkflowStore, audit: ops.AuditLog,
                 statusbar: StatusBar, read_only: Callable[[], tuple[bool, str]],
                 osd_stop_cmd: Callable[[], str]) -> None:
        self.app = app
        self.client = client
        self.store = store
        self.audit = audit
        self.statusbar = statusbar
        self._read_only = read_only  # (on, why)
        self._osd_stop_cmd = osd_stop_cmd
        self.engines: dict[str, RemovalEngine] = {}  # this session's workflows (started or taken over here)
        self.queue: list[dict[str, Any]] = []  # the store's queue as last read (colleagues' too)
        self._loading = False
        self._ticking = False

    def _refused(self, what: str) -> bool:
        on, why = self._read_only()
        if on:
            self.app.notify(refusal(what, why), severity="warning", timeout=6)
        return on

    # ------------------------------------------------------------ the queue
    def load(self, offer: bool = False) -> None:
        """Read the cluster's queue in a thread; `offer`: then offer to resume an interrupted removal."""
        if not self._loading:
            self._loading = True
            self.app.run_worker(lambda: self._read(offer), thread=True, exit_on_error=False,
                                group="workflow-queue", description="read the removal queue")

    def _read(self, offer: bool) -> None:
        try:
            queue = self.store.load_all(KIND)
        except Exception:  # a bug here must not stop the indicator for good
            log.exception("reading the removal queue failed")
            queue = self.queue
        finally:
            self._loading = False
        self.app.call_from_thread(self._loaded, queue, offer)

    def _loaded(self, queue: list[dict[str, Any]], offer: bool) -> None:
        self.queue = queue
        self.show_indicator()
        if offer:
            self._offer_resume()

    def rows(self) -> list[dict[str, Any]]:
        """The queue as rows: the cluster's as last read, this session's own workflows as they last saved (their
        engines' published copies: a tick in its worker changes the live state step by step)."""
        by_id = {d.get("id"): d for d in self.queue}
        for wf_id, engine in self.engines.items():
            meta = dict(by_id.get(wf_id, {}).get("_cephtui") or {})
            meta.setdefault("started_by", self.store.me)
            meta["driven_by"] = self.store.me
            by_id[wf_id] = {**engine.published.to_json(), "_cephtui": meta}
        return queue_rows(list(by_id.values()))

    def show_indicator(self) -> None:
        rows = self.rows()
        text = indicator(rows)
        live = [r["status"] for r in rows if r["status"] not in ("done", "aborted")]
        role = "err" if {"blocked", "failed"} & set(live) else ("warn" if "paused" in live else "info")
        self.statusbar.set_removals(text, role)

    # ------------------------------------------------------------ opening, resuming, starting
    def open(self, wf_id: str) -> None:
        """One workflow of the queue: this session's, or one taken over (it stays paused until `p`)."""
        engine = self.engines.get(wf_id)
        if engine is None:
            row = next((r for r in self.rows() if r["id"] == wf_id), None)
            data = next((d for d in self.queue if d.get("id") == wf_id), None)
            if row is None or data is None:
                return
            if driven_elsewhere(row, self.store.me):
                self.app.notify(f"{wf_id} is being driven by {row['driven_by'] or 'another cephtui'}: pause it "
                                "there first to take it over here.", severity="warning")
                return
            if row["status"] not in ("done", "aborted") and self._refused("taking over a removal"):
                return
            state = Removal.from_json(data)
            if state.status == "running":  # its driver is gone (nothing saved for a minute): held until `p`
                state.status = "paused"
                state.note("taken over by " + self.store.me + ": paused until resumed here")
            engine = RemovalEngine(self.client, state, self.store, self.audit)
            self.engines[wf_id] = engine
        self.app.push_screen(RemovalScreen(engine))

    def _offer_resume(self) -> None:
        pending = []
        for row in self.rows():
            if row["id"] in self.engines or row["status"] in ("done", "aborted") \
                    or driven_elsewhere(row, self.store.me):
                continue  # finished, or another cephtui (a colleague's, a `cephtui remove`) is ticking it now
            data = next(d for d in self.queue if d.get("id") == row["id"])
            pending.append(Removal.from_json(data))
        if not pending:
            return
        on, why = self._read_only()
        if on:
            self.app.notify(f"{len(pending)} unfinished OSD removal(s) left as they are: "
                            + refusal("resuming them", why), severity="warning", timeout=10)
            return
        self.app.run_worker(self._resume_or_pause(pending[0]), group="dialog-flow",
                            description="offer to resume a removal")

    async def _resume_or_pause(self, r: Removal) -> None:
        choice: StopChoice | None = await self.app.push_screen_wait(ResumeScreen(r, self._osd_stop_cmd() or ""))
        engine = RemovalEngine(self.client, r, self.store, self.audit)
        self.engines[r.id] = engine
        if choice is not None:
            # The stop method may have been changed in the dialog (a failing one is not kept for ever).
            self.app.run_worker(lambda: engine.resume(choice.template, choice.shell), thread=True,
                                group="workflow-control")
            self.app.push_screen(RemovalScreen(engine))
        else:
            # kept, paused, until resumed from the OSDs tab (key P)
            self.app.run_worker(engine.pause, thread=True, group="workflow-control")

    def start(self, plan: Removal) -> None:
        if self._refused("removing or replacing an OSD"):
            return
        engine = RemovalEngine(self.client, plan, self.store, self.audit)
        self.app.run_worker(lambda: self._save_first(engine), thread=True, exit_on_error=False,
                            group="workflow-control", description="start a removal")

    def _save_first(self, engine: RemovalEngine) -> None:
        # The first save reads and writes the cluster's queue (one workflow per OSD, whoever started it):
        # mon round trips, so off the UI thread.
        try:
            engine.save()
        except WorkflowConflict as e:
            self.app.call_from_thread(self.app.notify, f"Not started: {e}", title="Removal", severity="error",
                                      timeout=15)
            return
        except Exception as e:  # e.g. the local cache not writable: the removal must not start unsaved
            log.exception("saving a new removal failed")
            self.app.call_from_thread(self.app.notify, f"Not started: the workflow could not be saved ({e})",
                                      title="Removal", severity="error", timeout=15)
            return
        self.app.call_from_thread(self._started, engine)

    def _started(self, engine: RemovalEngine) -> None:
        self.engines[engine.state.id] = engine
        self.app.push_screen(RemovalScreen(engine))
        self.tick()

    def abort(self, engine: RemovalEngine) -> None:
        def run() -> None:
            undone = engine.abort()
            self.app.call_from_thread(self.app.notify, "Aborted. " + "; ".join(undone), timeout=15)

        self.app.run_worker(run, thread=True, exit_on_error=False, group="workflows-abort",
                            description="abort a workflow")

    # ------------------------------------------------------------ quitting while driving a removal
    def driven_here(self) -> list[RemovalEngine]:
        """This session's workflows that are running: nothing else ticks them once this process ends."""
        return [e for e in self.engines.values() if e.state.status == "running"]

    def pause_driven(self, why: str) -> list[str]:
        """Pause (and save, in the cluster's queue) every removal this cephtui drives; blocking, so never on the
        UI thread while the UI runs: from a worker, the signal watcher, or after the app has ended. Returns the
        ids paused."""
        paused = []
        for engine in self.driven_here():
            try:
                engine.pause(f"paused: {why} ({self.store.me})")
                paused.append(engine.state.id)
            except Exception:  # the cache was written first; a mon that does not answer must not stop the exit
                log.exception("pausing removal %s on exit failed", engine.state.id)
        return paused

    def quit(self, ask: bool = True) -> None:
        """Quit; while this cephtui drives a removal, ask first (`ask`), and pause it before the process ends."""
        if not self.driven_here():
            self.app.exit()
            return
        self.app.run_worker(self._quit_flow(ask), group="dialog-flow", description="quit while a removal runs")

    async def _quit_flow(self, ask: bool) -> None:
        from cephtui.ui.screens.removal_quit import QuitRemovalScreen

        if ask and not await self.app.push_screen_wait(QuitRemovalScreen([e.state.title for e in
                                                                          self.driven_here()])):
            return  # stay: it keeps running
        self.app.notify("Pausing the removal(s) in the cluster's queue, then quitting …", timeout=10)
        self.app.run_worker(self._pause_then_exit, thread=True, exit_on_error=False, group="workflow-control",
                            description="pause removals, then quit")

    def _pause_then_exit(self) -> None:
        try:
            self.pause_driven("cephtui quit")
        finally:
            self.app.call_from_thread(self.app.exit)

    # ------------------------------------------------------------ advancing
    def tick(self) -> None:
        running = any(e.state.status == "running" for e in self.engines.values())
        if not self._ticking and not self._read_only()[0] and running:
            self._ticking = True
            self.app.run_worker(self._tick_all, thread=True, exit_on_error=False, group="workflows",
                                description="advance workflows")

    def _tick_all(self) -> None:
        try:
            for engine in list(self.engines.values()):
                try:
                    engine.tick()
                except Exception:  # a bug in one step must not kill the app or the other workflows
                    log.exception("workflow %s failed", engine.state.id)
                    engine.state.status = "failed"
                    engine.state.waiting_for = "internal error (see the log); resume to retry or abort"
                    engine.save()
        finally:
            self._ticking = False
