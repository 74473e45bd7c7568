"""Messages the poller posts to the app (from its worker thread)."""
from __future__ import annotations

from textual.message import Message

from cephtui.ceph.snapshot.cluster_snapshot import ClusterSnapshot


class SnapshotReady(Message):
    def __init__(self, snapshot: ClusterSnapshot) -> None:
        super().__init__()
        self.snapshot = snapshot


class PollFailed(Message):
    def __init__(self, error: str) -> None:
        super().__init__()
        self.error = error
