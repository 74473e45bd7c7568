"""Pools (placeholder until the pane lands)."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from ...ceph.models import ClusterSnapshot


class PoolsPane(Vertical):
    def compose(self) -> ComposeResult:
        yield Static("Pools: coming", id="pools-placeholder")

    def show(self, snap: ClusterSnapshot) -> None:
        pass

    def focus_table(self) -> None:
        pass
