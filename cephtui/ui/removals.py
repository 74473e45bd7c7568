"""OSD removals and replacements: the queue (kept in the cluster, colleagues' too), the status-bar
indicator, starting, resuming, taking over and advancing them. The engine is cephtui.ceph.workflows.

A mixin of CephTUI (ui/app.py): the attributes annotated below are set in CephTUI.__init__/on_mount.
"""
from __future__ import annotations

import logging
from typing import Any

from textual import work
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


class Removals(App[None]):
    client: Cluster
    audit: ops.AuditLog
    statusbar: StatusBar
    read_only: bool
    read_only_why: str
    osd_stop_cmd: str
    workflow_store: WorkflowStore
    removals: dict[str, RemovalEngine]  # this session's workflows (started or taken over here)
    removal_queue: list[dict[str, Any]]  # the store's queue as last read (colleagues' too)
    _queue_loading: bool
    _ticking: bool

    def refuse_if_read_only(self, what: str) -> bool:
        """In --read-only mode say why `what` cannot be done and return True."""
        if self.read_only:
            self.notify(refusal(what, self.read_only_why), severity="warning", timeout=6)
        return self.read_only

    def _load_queue(self, offer: bool = False) -> None:
        if not self._queue_loading:
            self._queue_loading = True
            self._queue_worker(offer)

    @work(thread=True, exit_on_error=False, group="workflow-queue", description="read the removal queue")
    def _queue_worker(self, offer: bool) -> None:
        try:
            queue = self.workflow_store.load_all(KIND)
        except Exception:  # a bug here must not stop the indicator for good
            log.exception("reading the removal queue failed")
            queue = self.removal_queue
        finally:
            self._queue_loading = False
        self.call_from_thread(self._queue_loaded, queue, offer)

    def _queue_loaded(self, queue: list[dict[str, Any]], offer: bool) -> None:
        self.removal_queue = queue
        self._show_removal_indicator()
        if offer:
            self._offer_resume()

    def removal_rows(self) -> list[dict[str, Any]]:
        """The queue as rows: the cluster's as last read, this session's own workflows as they last saved (their
        engines' published copies: a tick in its worker changes the live state step by step)."""
        by_id = {d.get("id"): d for d in self.removal_queue}
        for wf_id, engine in self.removals.items():
            meta = dict(by_id.get(wf_id, {}).get("_cephtui") or {})
            meta.setdefault("started_by", self.workflow_store.me)
            meta["driven_by"] = self.workflow_store.me
            by_id[wf_id] = {**engine.published.to_json(), "_cephtui": meta}
        return queue_rows(list(by_id.values()))

    def _show_removal_indicator(self) -> None:
        rows = self.removal_rows()
        text = indicator(rows)
        live = [r["status"] for r in rows if r["status"] not in ("done", "aborted")]
        role = "err" if {"blocked", "failed"} & set(live) else ("warn" if "paused" in live else "info")
        self.statusbar.set_removals(text, role)

    def open_removal(self, wf_id: str) -> None:
        """One workflow of the queue: this session's, or one taken over (it stays paused until `p`)."""
        engine = self.removals.get(wf_id)
        if engine is None:
            row = next((r for r in self.removal_rows() if r["id"] == wf_id), None)
            data = next((d for d in self.removal_queue if d.get("id") == wf_id), None)
            if row is None or data is None:
                return
            if driven_elsewhere(row, self.workflow_store.me):
                self.notify(f"{wf_id} is being driven by {row['driven_by'] or 'another cephtui'}: pause it there "
                            "first to take it over here.", severity="warning")
                return
            if self.read_only and row["status"] not in ("done", "aborted"):
                self.notify(refusal("taking over a removal", self.read_only_why), severity="warning")
                return
            state = Removal.from_json(data)
            if state.status == "running":  # its driver is gone (nothing saved for a minute): held until `p`
                state.status = "paused"
                state.note("taken over by " + self.workflow_store.me + ": paused until resumed here")
            engine = RemovalEngine(self.client, state, self.workflow_store, self.audit)
            self.removals[wf_id] = engine
        self.push_screen(RemovalScreen(engine))

    def _offer_resume(self) -> None:
        pending = []
        for row in self.removal_rows():
            if row["id"] in self.removals or row["status"] in ("done", "aborted") \
                    or driven_elsewhere(row, self.workflow_store.me):
                continue  # finished, or another cephtui (a colleague's, a `cephtui remove`) is ticking it now
            data = next(d for d in self.removal_queue if d.get("id") == row["id"])
            pending.append(Removal.from_json(data))
        if not pending:
            return
        if self.read_only:
            self.notify(f"{len(pending)} unfinished OSD removal(s) left as they are: "
                        + refusal("resuming them", self.read_only_why), severity="warning", timeout=10)
            return
        self._resume_or_pause(pending[0])

    @work(group="dialog-flow", description="offer to resume a removal")
    async def _resume_or_pause(self, r: Removal) -> None:
        choice: StopChoice | None = await self.push_screen_wait(ResumeScreen(r, self.osd_stop_cmd or ""))
        engine = RemovalEngine(self.client, r, self.workflow_store, self.audit)
        self.removals[r.id] = engine
        if choice is not None:
            # The stop method may have been changed in the dialog (a failing one is not kept for ever).
            self.run_worker(lambda: engine.resume(choice.template, choice.shell), thread=True,
                            group="workflow-control")
            self.push_screen(RemovalScreen(engine))
        else:
            # kept, paused, until resumed from the OSDs tab (key P)
            self.run_worker(engine.pause, thread=True, group="workflow-control")

    def start_removal(self, plan: Removal) -> None:
        if self.refuse_if_read_only("removing or replacing an OSD"):
            return
        self._start_removal(RemovalEngine(self.client, plan, self.workflow_store, self.audit))

    @work(thread=True, exit_on_error=False, group="workflow-control", description="start a removal")
    def _start_removal(self, engine: RemovalEngine) -> None:
        # The first save reads and writes the cluster's queue (one workflow per OSD, whoever started it):
        # mon round trips, so off the UI thread.
        try:
            engine.save()
        except WorkflowConflict as e:
            self.call_from_thread(self.notify, f"Not started: {e}", title="Removal", severity="error",
                                  timeout=15)
            return
        except Exception as e:  # e.g. the local cache not writable: the removal must not start unsaved
            log.exception("saving a new removal failed")
            self.call_from_thread(self.notify, f"Not started: the workflow could not be saved ({e})",
                                  title="Removal", severity="error", timeout=15)
            return
        self.call_from_thread(self._removal_started, engine)

    def _removal_started(self, engine: RemovalEngine) -> None:
        self.removals[engine.state.id] = engine
        self.push_screen(RemovalScreen(engine))
        self.tick_workflows()

    def open_removals(self) -> None:
        live = [e for e in self.removals.values() if not e.state.finished]
        if live:
            self.push_screen(RemovalScreen(live[0]))
        else:
            self.notify("No removal or replacement in progress.")

    def abort_workflow(self, engine: RemovalEngine) -> None:
        self._abort(engine)

    @work(thread=True, exit_on_error=False, group="workflows-abort", description="abort a workflow")
    def _abort(self, engine: RemovalEngine) -> None:
        undone = engine.abort()
        self.call_from_thread(self.notify, "Aborted. " + "; ".join(undone), timeout=15)

    # ------------------------------------------------------------ quitting while driving a removal
    def removals_driven_here(self) -> list[RemovalEngine]:
        """This session's workflows that are running: nothing else ticks them once this process ends."""
        return [e for e in self.removals.values() if e.state.status == "running"]

    def pause_driven_removals(self, why: str) -> list[str]:
        """Pause (and save, in the cluster's queue) every removal this cephtui drives; blocking, so never on the
        UI thread while the UI runs: from a worker, the signal watcher, or after the app has ended. Returns the
        ids paused."""
        paused = []
        for engine in self.removals_driven_here():
            try:
                engine.pause(f"paused: {why} ({self.workflow_store.me})")
                paused.append(engine.state.id)
            except Exception:  # the cache was written first; a mon that does not answer must not stop the exit
                log.exception("pausing removal %s on exit failed", engine.state.id)
        return paused

    def quit_with_removals(self, ask: bool = True) -> None:
        """Quit; while this cephtui drives a removal, ask first (`ask`), and pause it before the process ends."""
        if not self.removals_driven_here():
            self.exit()
            return
        self._quit_flow(ask)

    @work(group="dialog-flow", description="quit while a removal runs")
    async def _quit_flow(self, ask: bool) -> None:
        from cephtui.ui.screens.removal_quit import QuitRemovalScreen

        if ask and not await self.push_screen_wait(QuitRemovalScreen([e.state.title for e in
                                                                      self.removals_driven_here()])):
            return  # stay: it keeps running
        self.notify("Pausing the removal(s) in the cluster's queue, then quitting …", timeout=10)
        self._pause_then_exit()

    @work(thread=True, exit_on_error=False, group="workflow-control", description="pause removals, then quit")
    def _pause_then_exit(self) -> None:
        try:
            self.pause_driven_removals("cephtui quit")
        finally:
            self.call_from_thread(self.exit)

    def tick_workflows(self) -> None:
        running = any(e.state.status == "running" for e in self.removals.values())
        if not self._ticking and not self.read_only and running:
            self._ticking = True
            self._tick_worker()

    @work(thread=True, exit_on_error=False, group="workflows", description="advance workflows")
    def _tick_worker(self) -> None:
        try:
            for engine in list(self.removals.values()):
                try:
                    engine.tick()
                except Exception:  # a bug in one step must not kill the app or the other workflows
                    log.exception("workflow %s failed", engine.state.id)
                    engine.state.status = "failed"
                    engine.state.waiting_for = "internal error (see the log); resume to retry or abort"
                    engine.save()
        finally:
            self._ticking = False

