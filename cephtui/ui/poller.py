"""The poller, owned by the app: one worker thread asks the cluster, the UI thread shows what came back, and
the garbage a big cluster's snapshots leave is freed where it costs nothing (see the note above bury).

It posts SnapshotReady / PollFailed to the app, whose handlers hand them back here (`arrived`, `failed`)
before the tabs' panes draw them (ui/tab_panes.py).
"""
from __future__ import annotations

import gc
import logging
import sys
import time
from collections.abc import Callable
from dataclasses import fields
from typing import Any

from textual.app import App
from textual.timer import Timer

from cephtui.ceph.cluster import Cluster
from cephtui.ceph.errors import CephError, CephTimeout
from cephtui.ceph.snapshot.builder import SnapshotBuilder
from cephtui.ceph.snapshot.cluster_snapshot import ClusterSnapshot
from cephtui.ceph.snapshot.clusterlog import ClusterLog
from cephtui.ui.messages import PollFailed, SnapshotReady
from cephtui.ui.pane import NOTHING_MORE, Fetch
from cephtui.ui.widgets.statusbar import StatusBar

log = logging.getLogger("cephtui")

RECLAIM_EVERY = 30.0  # seconds: the least time between two full collections prompted by frozen garbage
COUNT_EVERY = 10.0  # seconds: the least time between two counts of the frozen set once a reclaim may be due


class Poller:
    def __init__(self, app: App[Any], client: Cluster, builder: SnapshotBuilder, cluster_log: ClusterLog,
                 statusbar: StatusBar, refresh_interval: float, wanted: Callable[[], Fetch],
                 lost: Callable[[str], None]) -> None:
        self.app = app
        self.client = client
        self.builder = builder
        self.cluster_log = cluster_log
        self.statusbar = statusbar
        self.refresh_interval = refresh_interval
        self._wanted = wanted  # what the shown tab needs of a poll
        self._lost = lost  # the monitors do not answer (why): the tabs go stale
        self.snapshot: ClusterSnapshot | None = None
        self.connected: bool | None = None
        self.polling = False
        self.started = 0.0  # monotonic start of the poll in flight
        self.asked = NOTHING_MORE  # what the running (or last) poll was asked for beyond the basics
        self.delivered = NOTHING_MORE  # what the current snapshot's poll was asked for
        self.failures = 0  # polls failed so far
        self._timer: Timer | None = None
        self._graveyard: list[ClusterSnapshot | list[object]] = []
        self._frozen_at_reclaim = 0  # gc.get_freeze_count() after the last full collection
        self._reclaimed_at = time.monotonic()
        self._counted_at = 0.0  # when the frozen set was last counted (_freeze)

    def schedule(self, delay: float) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.app.set_timer(max(delay, 0.01), self._start)

    def poll_now(self) -> None:
        """A poll now unless one runs (then its snapshot comes soon anyway)."""
        if not self.polling:
            self.schedule(0)

    def _start(self) -> None:
        if self.polling:
            return
        self.polling = True
        self.started = time.monotonic()
        self.app.set_timer(self.stall_after, self.watchdog)  # on time, not at the next 0.5 s tick
        self.asked = fetch = self._wanted()
        self.app.run_worker(lambda: self._poll(fetch), thread=True, exclusive=True, group="poll",
                            exit_on_error=False)

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
                                      crush=fetch.crush, pools=fetch.pools, users=fetch.users,
                                      cephfs=fetch.cephfs)
        except CephTimeout as e:
            self.app.post_message(PollFailed(f"monitor not answering ({e.message})"))
        except CephError as e:
            self.app.post_message(PollFailed(f"{e.prefix}: {e.message}" if e.prefix else e.message))
        except Exception as e:  # never let a surprise end the app with a traceback
            log.exception("poll failed")
            self.app.post_message(PollFailed(f"internal error: {e!r}"))
        else:
            self.app.post_message(SnapshotReady(snap))

    def watchdog(self) -> None:
        """Say "disconnected" within two refresh intervals, not after librados' op timeout.

        A poll waiting on a mon that does not answer would otherwise show nothing until the
        timeout (5 s by default) ends it. A poll takes milliseconds (150 ms at 5,000 OSDs), so
        one that has waited 0.9 of an interval is lost: with the next poll due at most one
        interval after the mon went away, that is under two intervals. A hung mgr command is
        not a lost cluster: the mon still answers, so that is a note, not "disconnected".
        """
        if not self.polling:
            self.statusbar.show_mgr_stall("")
            return
        waited = time.monotonic() - self.started
        waiting = self.client.waiting()
        if waited < self.stall_after - 0.05 or waiting is None:
            return
        prefix, seconds = waiting
        if self.client.is_mgr_command(prefix):
            self.statusbar.show_mgr_stall(f"the mgr has not answered `{prefix}` for {seconds:.0f}s")
        elif self.connected is not False or self.statusbar.error.startswith("no answer"):
            self.connected = False
            self.statusbar.show_failure(f"no answer from the monitors for {seconds:.0f}s (`{prefix}`)")
            self._lost(f"no answer for {seconds:.0f}s")

    @property
    def stall_after(self) -> float:
        return max(0.9 * self.refresh_interval, 0.5)

    def arrived(self, snap: ClusterSnapshot) -> None:
        """A snapshot came (on the UI thread): it is the current one; the next poll is scheduled."""
        self.polling = False
        self.delivered = self.asked
        self.statusbar.show_mgr_stall("")
        if self.snapshot is not None:
            self._graveyard.append(self.snapshot)  # freed by the next poll's thread: see _free_buried
        self.app.call_after_refresh(self._freeze)  # see the note above bury
        self.snapshot, self.connected = snap, True
        self.statusbar.show_snapshot(snap)

    def next_poll(self) -> None:
        """After the panes drew a snapshot. A tab opened while the poll ran (a key typed at start, or during a slow
        poll) may need what it was not asked for (the OSD tree, the PG table): fetch that now, not one refresh
        interval later."""
        self.schedule(0 if _lacks(self.asked, self._wanted()) else self.refresh_interval)

    def fetched(self, wanted: Fetch) -> Callable[[], bool]:
        """A condition: a snapshot with every part `wanted` has been delivered (and drawn: the panes draw it in
        the same handler), or a poll has failed since this call (the mons do not answer: none is coming)."""
        failures = self.failures
        return lambda: not _lacks(self.delivered, wanted) or self.failures != failures

    def failed(self, error: str) -> None:
        self.polling = False
        self.failures += 1
        self.statusbar.show_mgr_stall("")
        self.connected = False
        self.statusbar.show_failure(error)
        self._lost(error)
        self.schedule(self.refresh_interval)

    # The garbage collector. Its full collections walk every tracked object with the GIL held;
    # with a big cluster's tables and Textual's render caches that froze the UI for 60-80 ms every
    # few refreshes (scripts/bench_scale.py). So after each snapshot is painted, gc.freeze() moves
    # what is alive out of those scans. Frozen objects are still freed as soon as they are dropped;
    # only garbage in reference cycles (a closed dialog's widgets, a tab's replaced render caches,
    # Textual's spent messages) waits for reclaim, which runs after a dialog closes, every ten
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
            self.reclaim()

    def reclaim(self) -> None:
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self._frozen_at_reclaim = gc.get_freeze_count()
        self._reclaimed_at = time.monotonic()


def _lacks(asked: Fetch, wanted: Fetch) -> bool:
    """Whether a poll asked for `asked` left out something `wanted` needs."""
    return any(getattr(wanted, name) and not getattr(asked, name) for name in (f.name for f in fields(Fetch)))
