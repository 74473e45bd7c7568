"""The poller: one worker thread asks the cluster, the UI thread shows what came back, and the
garbage a big cluster's snapshots leave is freed where it costs nothing (see the note above bury).

A mixin of CephTUI (ui/app.py): the attributes annotated below are set in CephTUI.__init__/on_mount.
"""
from __future__ import annotations

import gc
import logging
import sys
import time
from dataclasses import fields
from typing import Any, TypeVar

from rich.text import Text
from textual import work
from textual.app import App
from textual.timer import Timer
from textual.widgets import Static, TabbedContent

from cephtui.ceph import ops
from cephtui.ceph.client import CephError, CephTimeout
from cephtui.ceph.cluster import Cluster
from cephtui.ceph.snapshot.builder import SnapshotBuilder
from cephtui.ceph.snapshot.clusterlog import ClusterLog
from cephtui.ceph.snapshot.models import ClusterSnapshot
from cephtui.ui import jump as jumps
from cephtui.ui.messages import PollFailed, SnapshotReady
from cephtui.ui.pane import NOTHING_MORE, Fetch, Pane, tab_of
from cephtui.ui.panes.health import HealthPane
from cephtui.ui.widgets.statusbar import StatusBar

log = logging.getLogger("cephtui")

P = TypeVar("P", bound=Pane)

RECLAIM_EVERY = 30.0  # seconds: the least time between two full collections prompted by frozen garbage
COUNT_EVERY = 10.0  # seconds: the least time between two counts of the frozen set once a reclaim may be due


class Poller(App[None]):
    client: Cluster
    builder: SnapshotBuilder
    cluster_log: ClusterLog
    audit: ops.AuditLog
    statusbar: StatusBar
    tabs: TabbedContent
    panes: tuple[Pane, ...]
    always_shown: tuple[Pane, ...]  # rendered at every snapshot, shown or not (ui/registry.py)
    snapshot: ClusterSnapshot | None
    connected: bool | None
    refresh_interval: float
    _polling: bool
    _poll_started: float
    _poll_fetch: Fetch  # what the running (or last) poll was asked for beyond the basics
    _timer: Timer | None
    _jump_names: jumps.Names
    _stale: set[Pane]
    _graveyard: list[ClusterSnapshot | list[object]]
    _frozen_at_reclaim: int
    _reclaimed_at: float
    _counted_at: float

    def pane(self, cls: type[P]) -> P:
        """The one pane of that class (the registry has one tab per pane class)."""
        return next(p for p in self.panes if isinstance(p, cls))

    def _schedule(self, delay: float) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(max(delay, 0.01), self._start_poll)

    def _start_poll(self) -> None:
        if self._polling:
            return
        self._polling = True
        self._poll_started = time.monotonic()
        self.set_timer(self._stall_after, self._watchdog)  # on time, not at the next 0.5 s tick
        self._poll_fetch = self._shown_fetch()
        self._poll(self._poll_fetch)

    def _shown_fetch(self) -> Fetch:
        shown = next((p for p in self.panes if tab_of(p) == self.tabs.active), None)
        return shown.fetch() if shown is not None else NOTHING_MORE

    @work(thread=True, exclusive=True, group="poll", exit_on_error=False)
    def _poll(self, fetch: Fetch) -> None:
        """Runs in a worker thread: the only place the app waits on the cluster."""
        self._free_buried()
        try:
            if not self.cluster_log.started:
                try:
                    self.cluster_log.start()
                except CephError:
                    pass  # tried again next poll
            snap = self.builder.build(pg_table=fetch.pg_table, osd_tree=fetch.osd_tree, shadow=fetch.shadow,
                                      crush=fetch.crush, pools=fetch.pools, users=fetch.users)
        except CephTimeout as e:
            self.post_message(PollFailed(f"monitor not answering ({e.message})"))
        except CephError as e:
            self.post_message(PollFailed(f"{e.prefix}: {e.message}" if e.prefix else e.message))
        except Exception as e:  # never let a surprise end the app with a traceback
            log.exception("poll failed")
            self.post_message(PollFailed(f"internal error: {e!r}"))
        else:
            self.post_message(SnapshotReady(snap))

    def _watchdog(self) -> None:
        """Say "disconnected" within two refresh intervals, not after librados' op timeout.

        A poll waiting on a mon that does not answer would otherwise show nothing until the
        timeout (5 s by default) ends it. A poll takes milliseconds (150 ms at 5,000 OSDs), so
        one that has waited 0.9 of an interval is lost: with the next poll due at most one
        interval after the mon went away, that is under two intervals. A hung mgr command is
        not a lost cluster: the mon still answers, so that is a note, not "disconnected".
        """
        if not self._polling:
            self.statusbar.show_mgr_stall("")
            return
        waited = time.monotonic() - self._poll_started
        waiting = self.client.waiting()
        if waited < self._stall_after - 0.05 or waiting is None:
            return
        prefix, seconds = waiting
        if self.client.is_mgr_command(prefix):
            self.statusbar.show_mgr_stall(f"the mgr has not answered `{prefix}` for {seconds:.0f}s")
        elif self.connected is not False or self.statusbar.error.startswith("no answer"):
            self.connected = False
            self.statusbar.show_failure(f"no answer from the monitors for {seconds:.0f}s (`{prefix}`)")
            self._set_stale(f"no answer for {seconds:.0f}s")

    @property
    def _stall_after(self) -> float:
        return max(0.9 * self.refresh_interval, 0.5)

    def on_snapshot_ready(self, message: SnapshotReady) -> None:
        self._polling = False
        self.statusbar.show_mgr_stall("")
        if self.snapshot is not None:
            self._graveyard.append(self.snapshot)  # freed by the next poll's thread: see _free_buried
        self.call_after_refresh(self._freeze)  # see the note above _show
        self.snapshot, self.connected = message.snapshot, True
        self._jump_names = jumps.names_from(message.snapshot, self._jump_names)  # for `:` completion
        self._set_stale("")
        self.audit.cluster = message.snapshot.fsid
        self.statusbar.show_snapshot(message.snapshot)
        # Only the pane on screen renders now (and the two that keep state for the status bar
        # and forms); the others render this snapshot when their tab is opened.
        visible = self.tabs.active
        for pane in self.panes:
            if tab_of(pane) == visible or pane in self.always_shown:
                self._show(pane, message.snapshot)
            else:
                self._stale.add(pane)
        # A tab opened while this poll ran (a key typed at start, or during a slow poll) may need what it was
        # not asked for (the OSD tree, the PG table): fetch that now, not one refresh interval later.
        self._schedule(0 if _lacks(self._poll_fetch, self._shown_fetch()) else self.refresh_interval)

    # The garbage collector. Its full collections walk every tracked object with the GIL held;
    # with a big cluster's tables and Textual's render caches that froze the UI for 60-80 ms every
    # few refreshes (scripts/bench_scale.py). So after each snapshot is painted, gc.freeze() moves
    # what is alive out of those scans. Frozen objects are still freed as soon as they are dropped;
    # only garbage in reference cycles (a closed dialog's widgets, a tab's replaced render caches,
    # Textual's spent messages) waits for _reclaim, which runs after a dialog closes, every ten
    # minutes, and once the frozen set has grown by a quarter since the last one (see _freeze).

    def bury(self, rows: list[object]) -> None:
        """Hand a big list the UI no longer shows (a filter's result) to the poller thread to free."""
        self._graveyard.append(rows)

    def _free_buried(self) -> None:
        """Free replaced snapshots here, in the poller's thread, and a big PG table a slice at a time.

        Dropping the last reference to a table of 200,000 PGs is one C-level cascade of 200,000
        decrefs (~25 ms here) that holds the GIL; on the UI thread that was a visible stall at every
        refresh. A table still shown by a pane (more references than ours) is left whole.
        """
        while self._graveyard:
            snap = self._graveyard.pop()
            if sys.getrefcount(snap) > 2:  # ours and the call's: anything more still uses it
                continue
            rows = snap if isinstance(snap, list) else snap.pg_table
            del snap
            if isinstance(rows, list) and sys.getrefcount(rows) == 2:  # nobody else has the table either
                while rows:
                    del rows[-16384:]
                    time.sleep(0)
            del rows

    def _freeze(self) -> None:
        """gc.freeze(), and a full collection once the frozen set has grown by a quarter (CPython's own
        rule for its oldest generation), at most every RECLAIM_EVERY seconds. Before, cycles frozen while
        alive waited the full ten minutes: switching tabs every 3 s at --refresh 1 piled up ~35 MB a
        minute of them (scripts/soak.py). The floor bounds the pauses where a collection is slow: ~100 ms
        at 2,000 OSDs and 40,000 PGs, where switching tabs every 2 s grew the set by a quarter in 10 s."""
        gc.freeze()
        # Counting the frozen set walks all of it (CPython's gc_list_size: ~8 ms per million objects, and
        # 4-5x that on a busy host). At every poll, on the UI thread, that was one of its longest stalls
        # during a bench run. Count only once a reclaim may be due, and then at most every COUNT_EVERY s.
        now = time.monotonic()
        if self._frozen_at_reclaim and (now - self._reclaimed_at < RECLAIM_EVERY
                                        or now - self._counted_at < COUNT_EVERY):
            return
        self._counted_at = now
        frozen = gc.get_freeze_count()
        if not self._frozen_at_reclaim:  # the first paint: what is frozen now is the baseline
            self._frozen_at_reclaim = frozen
        elif frozen > max(self._frozen_at_reclaim * 5 // 4, self._frozen_at_reclaim + 20_000):
            self._reclaim()

    def _reclaim(self) -> None:
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self._frozen_at_reclaim = gc.get_freeze_count()
        self._reclaimed_at = time.monotonic()

    def pop_screen(self) -> Any:
        result = super().pop_screen()
        self.set_timer(1.0, self._reclaim)  # after the dialog's own teardown
        return result

    def _show(self, pane: Pane, snap: ClusterSnapshot) -> None:
        self._stale.discard(pane)
        try:
            if isinstance(pane, HealthPane) and self.tabs.has_class("-stale"):
                pane.show(snap, stale=True)  # opened while the mon is away: no green from old data
                return
            pane.show(snap)
        except Exception as e:
            log.exception("rendering %s failed", pane.id)
            self.notify(f"could not render {pane.id}: {e!r}", severity="error")

    def on_poll_failed(self, message: PollFailed) -> None:
        self._polling = False
        self.statusbar.show_mgr_stall("")
        self.connected = False
        self.statusbar.show_failure(message.error)
        self._set_stale(message.error)
        self._schedule(self.refresh_interval)

    def _set_stale(self, why: str) -> None:
        """Mon gone ("" = back): every tab's body is dimmed under a banner, and the Health pane
        stops showing the last HEALTH_OK and quorum in green, as if they were current."""
        # The tabs live on the app's first screen, whatever is on top; none while the app is being
        # torn down (a poll that ends during exit must not raise).
        found = self.screen_stack[0].query("#tabs") if self.screen_stack else None
        if not found:
            return
        tabs = found.first()
        if not why:
            if tabs.has_class("-stale"):
                tabs.remove_class("-stale")
            return
        age = f", data {time.time() - self.snapshot.taken_at:.0f} s old" if self.snapshot is not None else ""
        text = f"⚠ STALE: disconnected from the monitors ({why}){age}; shown as last seen"
        for banner in self.query(".stale-banner").results(Static):
            banner.update(Text(text))
        tabs.add_class("-stale")
        if self.snapshot is not None:
            self.pane(HealthPane).show(self.snapshot, stale=True)


def _lacks(asked: Fetch, wanted: Fetch) -> bool:
    """Whether a poll asked for `asked` left out something `wanted` needs."""
    return any(getattr(wanted, name) and not getattr(asked, name) for name in (f.name for f in fields(Fetch)))
