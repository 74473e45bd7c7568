"""The cluster log, streamed like `ceph -w` does: a librados log subscription.

`log last` alone is not enough on Pacific: the mon keeps one short tail for all
channels, which audit entries (every command, ours included) flush within
seconds. So we backfill once with `log last` and then subscribe.
"""
from __future__ import annotations

import threading
from collections import deque
from datetime import datetime, timezone
from typing import Any

from cephtui.ceph.cluster import Cluster
from cephtui.ceph.errors import CephError
from cephtui.ceph.snapshot.models import LogEntry
from cephtui.ceph.snapshot.parse import parse_log

CHANNELS = ("cluster",)
# librados hands the channel over as bytes (str in some binding versions): match both without decoding.
_WANTED = frozenset(CHANNELS) | frozenset(c.encode() for c in CHANNELS)


def _s(v: Any) -> str:
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)


def _entry(sec: int, nsec: int, name: Any, channel: Any, level: Any, msg: Any, seq: int) -> LogEntry:
    stamp = datetime.fromtimestamp(sec + nsec / 1e9, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f+0000")
    return LogEntry(stamp=stamp, name=_s(name), channel=_s(channel), priority=_s(level), message=_s(msg), seq=seq)


class ClusterLog:
    """Collects cluster-channel entries from a librados subscription; `drain()` hands them over.

    Bounded: at most `keep` entries wait between two drains. When the log floods faster than the
    poller drains, the oldest waiting entries are pushed out and counted in `dropped`, so the UI
    can say how many lines it never got instead of silently skipping them.
    """

    def __init__(self, client: Cluster, level: str = "info", backfill: int = 50, keep: int = 1000) -> None:
        self._client = client
        self._level = level
        self._backfill = backfill
        # Raw callback tuples, turned into LogEntry only in drain(): entries that get pushed out
        # during a flood then cost no parsing at all (see _on_entry).
        self._pending: deque[tuple[Any, ...]] = deque(maxlen=keep)
        self._lock = threading.Lock()
        self.received = 0  # cluster-channel entries received since start (backfill included)
        self.dropped = 0  # of those, pushed out of the bounded queue before a drain took them
        self._taken = 0  # handed over by drain()
        self.started = False

    def start(self) -> None:
        try:
            past = parse_log(self._client.mon("log last", num=self._backfill, level=self._level, channel="*"))
        except CephError:
            past = ()
        with self._lock:
            for e in past:
                if e.channel in CHANNELS:
                    self._pending.append((e,))
                    self.received += 1
        # librados re-subscribes by itself after reconnecting to a restarted mon.
        try:
            self._client.handle.monitor_log2(self._level, self._on_entry, None)
        except Exception as e:  # rados.Error: the binding's own exception type
            raise CephError(abs(getattr(e, "errno", 0) or 5), f"cannot subscribe to the cluster log: {e}") from None
        self.started = True

    def _on_entry(self, _arg: Any, _line: Any, channel: Any, name: Any, _who: Any, sec: int, nsec: int,
                  seq: int, level: Any, msg: Any) -> None:
        # Runs in librados's dispatch thread holding the GIL, once per entry of every channel
        # (a flood of `ceph log` commands brings two audit entries per line, too): so no decoding,
        # no datetime, no object built here; a comparison, a tuple and a deque append.
        if channel not in _WANTED:
            return
        with self._lock:
            self._pending.append((sec, nsec, name, channel, level, msg, seq))
            self.received += 1

    def drain(self) -> list[LogEntry]:
        with self._lock:
            raw = list(self._pending)
            self._pending.clear()
            self._taken += len(raw)
            # Whatever was received and neither taken nor still waiting was pushed out of the deque.
            self.dropped = self.received - self._taken
        return [r[0] if len(r) == 1 else _entry(*r) for r in raw]

    def stop(self) -> None:
        if self.started:
            try:
                self._client.handle.monitor_log2(self._level, None, None)
            except Exception:
                pass
            self.started = False
