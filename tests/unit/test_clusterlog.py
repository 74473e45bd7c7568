"""The cluster log's bounded queue counts every line it drops, and so does the snapshot builder."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cephtui.ceph.recording import ReplayClient
from cephtui.ceph.snapshot.builder import LOG_KEEP, SnapshotBuilder
from cephtui.ceph.snapshot.clusterlog import ClusterLog
from tests.releases import release_params


class FakeHandle:
    def __init__(self) -> None:
        self.callback: Callable[..., None] | None = None

    def monitor_log2(self, level: str, callback: Callable[..., None] | None, arg: Any) -> None:
        self.callback = callback


class FakeClient:
    def __init__(self, backfill: list[dict[str, Any]]) -> None:
        self.handle = FakeHandle()
        self.backfill = backfill

    def mon(self, prefix: str, **args: Any) -> Any:
        assert prefix == "log last"
        return self.backfill


def send(handle: FakeHandle, n: int, channel: bytes = b"cluster", start: int = 0) -> None:
    """What librados passes for each entry: bytes, a stamp in seconds and nanoseconds."""
    assert handle.callback is not None
    for i in range(start, start + n):
        handle.callback(None, b"line", channel, b"client.admin", b"client.? 127.0.0.1:0/1", 1_700_000_000 + i,
                        500_000_000, 0, b"[INF]", f"flood {i}".encode())


def started(backfill: list[dict[str, Any]] | None = None, keep: int = 1000) -> tuple[ClusterLog, FakeHandle]:
    client = FakeClient(backfill or [])
    log = ClusterLog(client, keep=keep)  # type: ignore[arg-type]
    log.start()
    return log, client.handle


def test_no_drop_when_drained_in_time() -> None:
    log, handle = started([{"stamp": "2026-01-01T00:00:00.000000+0000", "name": "mon.a", "channel": "cluster",
                            "priority": "[INF]", "message": "old", "seq": 7},
                           {"stamp": "2026-01-01T00:00:01.000000+0000", "name": "mon.a", "channel": "audit",
                            "priority": "[INF]", "message": "an audit line", "seq": 8}])
    send(handle, 10)
    send(handle, 10, channel=b"audit")  # other channels are not counted, kept or dropped
    got = log.drain()
    assert [e.message for e in got] == ["old"] + [f"flood {i}" for i in range(10)]
    assert got[1].stamp == "2023-11-14T22:13:20.500000+0000" and got[1].name == "client.admin"
    assert got[1].priority == "[INF]" and got[1].channel == "cluster"
    assert (log.received, log.dropped) == (11, 0)
    assert log.drain() == [] and log.dropped == 0


def test_flood_pushes_out_the_oldest_and_counts_them() -> None:
    log, handle = started(keep=1000)
    send(handle, 2500)
    got = log.drain()
    assert len(got) == 1000 and got[0].message == "flood 1500" and got[-1].message == "flood 2499"
    assert (log.received, log.dropped) == (2500, 1500)
    send(handle, 400, start=2500)  # fits: the count stays
    assert len(log.drain()) == 400 and log.dropped == 1500
    send(handle, 1001, start=2900)
    assert len(log.drain()) == 1000 and log.dropped == 1501
    assert log.received == len(got) + 400 + 1000 + log.dropped


@pytest.mark.parametrize("fx", release_params("healthy"))
def test_snapshot_counts_source_drops_and_its_own_overflow(fx: Path) -> None:
    log, handle = started(keep=2000)
    client = ReplayClient.load(fx)
    builder = SnapshotBuilder(client, log=log)
    send(handle, 300)
    snap = builder.build()
    assert (snap.log_dropped, snap.log_total, len(snap.log)) == (0, 300, 300)
    # 3,000 lines before the next poll: 1,000 pushed out of the queue, and of the 2,000 drained
    # only the newest LOG_KEEP fit into the snapshot.
    send(handle, 3000, start=300)
    snap = builder.build()
    assert log.dropped == 1000
    assert snap.log_dropped == 1000 + (2000 - LOG_KEEP)
    assert len(snap.log) == LOG_KEEP and snap.log[-1].message == "flood 3299"
    assert snap.log_total == 300 + LOG_KEEP  # numbered without gaps: the pane counts only its own misses
