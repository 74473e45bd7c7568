"""The app's history: a recorder thread writing the local store, and the view the Health and OSDs tabs show.

The recorder runs in its own thread with its own schedule (ceph/history/recorder.py), whatever the UI
does: an open UI keeps history as `cephtui record` does, on the same file, without double counting. The
view (ceph/history/view.py) is read in a worker thread every INTERVAL while a tab that shows it is open,
and when the window or the time cursor moves; the panes only draw the last one.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from textual.app import App
from textual.message import Message

from cephtui.ceph.cluster import Cluster
from cephtui.ceph.doctor.failslow import FRESH, heartbeat_reader, heartbeat_signals
from cephtui.ceph.errors import CephError
from cephtui.ceph.history import recorder
from cephtui.ceph.history.failslow import FailSlowReport, Window, places_from_tree, signals_from_checks
from cephtui.ceph.history.failslow_judge import rank
from cephtui.ceph.history.model import INTERVAL, HistorySource
from cephtui.ceph.history.prometheus import PrometheusError, PrometheusSource, find_prometheus
from cephtui.ceph.history.store import HistoryError, HistoryStore
from cephtui.ceph.history.view import WINDOWS, HistoryView, build_view, cursor_step
from cephtui.ceph.snapshot.cluster_snapshot import ClusterSnapshot
from cephtui.paths import data_dir

log = logging.getLogger("cephtui")


class HistoryReady(Message):
    def __init__(self, view: HistoryView) -> None:
        super().__init__()
        self.view = view


class FailSlowReady(Message):
    def __init__(self, report: FailSlowReport | None, note: str) -> None:
        super().__init__()
        self.report = report
        self.note = note


JUDGE_EVERY = 30.0  # seconds between two fail-slow rankings (the Doctor and OSDs tabs show the last one)
JUDGE_WINDOW = 900.0  # the window judged: sustained over 15 minutes, so one spike flags nobody
JUDGE_FRAMES = 90  # frames read for it (every 10 s over 15 min): a 5,000-OSD frame costs ~1 ms to unpack
JUDGE_MIN = 60.0  # recorded seconds before a first judgement


class History:
    """Owned by the app: what the history panes read (view, window, cursor) and the threads behind them.

    `snapshot` gives the app's last snapshot, `osds_shown` whether a view read now should carry the per-OSD
    trends (the OSDs tab is open), `attached` is called on the UI thread once the store is open."""

    def __init__(self, app: App[Any], client: Cluster, snapshot: Callable[[], ClusterSnapshot | None],
                 osds_shown: Callable[[], bool], attached: Callable[[], None], record: bool = True,
                 prometheus: str = "") -> None:
        self.app = app
        self.client = client
        self._snapshot = snapshot
        self._osds_shown = osds_shown
        self._attached = attached
        self.record = record
        # The cluster's own Prometheus: --prometheus / the config file, else found in the cluster's settings
        # (find_prometheus, asked once from the recorder's thread); it has weeks that were never recorded here.
        self.prometheus: HistorySource | None = PrometheusSource(prometheus) if prometheus else None
        self._look_for_prometheus = not prometheus and record
        self.window_index = 0
        self.cursor: float | None = None  # None: now (live)
        self.view: HistoryView | None = None
        self.recorder_problem = ""
        self.store: HistoryStore | None = None  # this cluster's local file, once its fsid is known
        self._attaching = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._reading = False
        self._again = False
        self.failslow: FailSlowReport | None = None  # the last ranking over the recorded history
        self.failslow_note = "fail-slow: not judged yet (it needs a minute of recorded history)"
        self._judging = False
        self._version: str | None = None

    @property
    def window(self) -> float:
        return float(WINDOWS[self.window_index][1])

    @property
    def window_name(self) -> str:
        return WINDOWS[self.window_index][0]

    @property
    def source(self) -> HistorySource | None:
        return self.prometheus or self.store

    def start(self) -> None:
        if not self.record or self._thread is not None:
            return
        base = data_dir()

        def store_for(fsid: str) -> HistoryStore:
            return HistoryStore.for_cluster(base, fsid)

        def said(why: str) -> None:
            self.recorder_problem = why
            if why:
                self.app.call_from_thread(self.app.notify, f"history: {why}", title="History", severity="warning")

        def record() -> None:
            if self._look_for_prometheus:
                try:
                    url = find_prometheus(self.client)
                except CephError as e:  # no `config get` caps: the local history only
                    log.info("prometheus not looked up: %s", e.message)
                    url = None
                if url and self.prometheus is None:
                    self.prometheus = PrometheusSource(url)
            recorder.run(self.client, store_for, self._stop, on_error=said)

        self._thread = threading.Thread(target=record, name="history-recorder", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def attach(self, fsid: str) -> None:
        """The cluster is known (first snapshot): open its store in a thread (opening a fresh file waits for
        its write lock, which another recorder may hold), then read the view."""
        if self.store is not None or self._attaching or not fsid:
            return
        self._attaching = True
        record, app = self.record, self.app

        def work() -> None:
            try:  # a replay records nothing: it reads a history only where one was recorded
                self.store = (HistoryStore.for_cluster(data_dir(), fsid) if record
                              else HistoryStore.open_existing(data_dir(), fsid))
            except HistoryError as e:
                self.recorder_problem = str(e)
            except Exception as e:  # never let a surprise end the app with a traceback
                log.exception("opening the history failed")
                self.recorder_problem = f"history: {e!r}"
            finally:
                self._attaching = False
            if self.store is not None:
                try:
                    app.call_from_thread(self._attached)
                except RuntimeError:  # the app closed meanwhile
                    pass

        threading.Thread(target=work, name="history-open", daemon=True).start()

    # -------------------------------------------------------------- window and cursor

    def next_window(self) -> None:
        self.window_index = (self.window_index + 1) % len(WINDOWS)
        self.read()

    def move_cursor(self, steps: int) -> None:
        now = time.time()
        start = now if self.cursor is None else self.cursor
        t = start + steps * cursor_step(self.window)
        self.cursor = None if t >= now - INTERVAL else t
        self.read()

    # -------------------------------------------------------------- reading

    def read(self, osds: bool | None = None) -> None:
        """Read the view in a thread; a read asked for while one runs happens right after it."""
        source = self.source
        if source is None:
            return
        if self._reading:
            self._again = True
            return
        self._reading = True
        want_osds = osds if osds is not None else self._osds_shown()
        window, cursor = self.window, self.cursor
        app = self.app

        local = self.store

        def work() -> None:
            try:
                try:
                    view = build_view(source, window, cursor, osds=want_osds)
                except PrometheusError as e:  # the server away: the local history, and why
                    if local is None:
                        raise
                    view = build_view(local, window, cursor, osds=want_osds)
                    view = replace(view, label=f"{local.label}; {source.label} did not answer: {e}")
            except Exception as e:  # a source that fails (Prometheus away, file unreadable) is a state
                log.warning("history read failed: %r", e)
                now = time.time()
                view = HistoryView(label=source.label, window=window, since=now - window, until=now,
                                   problem=f"history unavailable: {e}")
            app.post_message(HistoryReady(view))

        threading.Thread(target=work, name="history-view", daemon=True).start()

    def judge(self) -> None:
        """Rank the OSDs over the recorded history in a thread (the same ranking as `cephtui doctor`), so the
        Doctor and OSDs tabs name a disk that drags the cluster down even while Ceph raises nothing."""
        store, snap = self.store, self._snapshot()
        if store is None or snap is None or self._judging or not self.record:
            return
        self._judging = True
        client, checks, app = self.client, snap.health.checks, self.app

        def work() -> None:
            report, note = None, ""
            try:
                now = time.time()
                last = store.last_sample_at("osd")  # a recorder with the mgr down writes no per-OSD values
                frames = store.osd_frames(now - JUDGE_WINDOW, now, max_frames=JUDGE_FRAMES) if last else []
                span = frames[-1].t - frames[0].t if len(frames) > 1 else 0.0
                if last is None or now - last > FRESH:
                    note = "fail-slow: not judged: no current per-OSD latency recorded (is the mgr down?)"
                elif span < JUDGE_MIN:
                    note = f"fail-slow: not judged yet: {span:.0f} s of recorded osd perf (it needs {JUDGE_MIN:.0f})"
                else:
                    if self._version is None:
                        releases = client.mon_releases()
                        self._version = releases[0].version if releases else ""
                    window = Window(seconds=span, frames=len(frames), source="recorded history")
                    signals = heartbeat_signals(signals_from_checks(checks, self._version), heartbeat_reader(client))
                    report = rank(frames, places_from_tree(client.mon("osd tree")), window, signals)
                    note = f"fail-slow: {window.describe()}"
            except CephError as e:
                note = f"fail-slow: not judged: {e.message.strip() or f'errno {e.errno}'}"
            except Exception as e:  # never let a surprise end the app with a traceback
                log.exception("fail-slow ranking failed")
                note = f"fail-slow: not judged: internal error {e!r}"
            app.post_message(FailSlowReady(report, note))

        threading.Thread(target=work, name="history-failslow", daemon=True).start()

    def judged(self, message: FailSlowReady) -> None:
        self._judging = False
        self.failslow, self.failslow_note = message.report, message.note

    def done(self, view: HistoryView) -> bool:
        """A read came back; False when another was asked meanwhile (that one is started now)."""
        self._reading = False
        self.view = view
        if self._again:
            self._again = False
            self.read()
        return True
