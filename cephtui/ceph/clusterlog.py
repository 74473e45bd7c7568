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

from .client import CephClient, CephError
from .models import LogEntry
from .parse import parse_log

CHANNELS = ("cluster",)


def _s(v: Any) -> str:
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)


class ClusterLog:
    """Collects cluster-channel entries from a librados subscription; `drain()` hands them over."""

    def __init__(self, client: CephClient, level: str = "info", backfill: int = 50) -> None:
        self._client = client
        self._level = level
        self._backfill = backfill
        self._pending: deque[LogEntry] = deque(maxlen=1000)
        self._lock = threading.Lock()
        self.started = False

    def start(self) -> None:
        try:
            past = parse_log(self._client.mon("log last", num=self._backfill, level=self._level, channel="*"))
        except CephError:
            past = ()
        with self._lock:
            self._pending.extend(e for e in past if e.channel in CHANNELS)
        # librados re-subscribes by itself after reconnecting to a restarted mon.
        try:
            self._client.handle.monitor_log2(self._level, self._on_entry, None)
        except Exception as e:  # rados.Error: the binding's own exception type
            raise CephError(abs(getattr(e, "errno", 0) or 5), f"cannot subscribe to the cluster log: {e}") from None
        self.started = True

    def _on_entry(self, _arg: Any, _line: Any, channel: Any, name: Any, _who: Any, sec: int, nsec: int,
                  seq: int, level: Any, msg: Any) -> None:
        channel = _s(channel)
        if channel not in CHANNELS:
            return
        stamp = datetime.fromtimestamp(sec + nsec / 1e9, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f+0000")
        entry = LogEntry(stamp=stamp, name=_s(name), channel=channel, priority=_s(level), message=_s(msg), seq=seq)
        with self._lock:
            self._pending.append(entry)

    def drain(self) -> list[LogEntry]:
        with self._lock:
            out = list(self._pending)
            self._pending.clear()
        return out

    def stop(self) -> None:
        if self.started:
            try:
                self._client.handle.monitor_log2(self._level, None, None)
            except Exception:
                pass
            self.started = False
