"""The header line: cluster, health badge, connection state, data age, and the maintenance / flags banner."""
from __future__ import annotations

import time

from rich.text import Text
from textual.widgets import Static

from ...ceph.maintenance import Maintenance, banner_items, banner_short, fit_banner
from ...ceph.models import ClusterSnapshot
from .tables import sync_static

BADGE_STYLE = {
    "OK": "bold black on green",
    "WARN": "bold black on yellow",
    "ERR": "bold white on red",
}


def health_badge(short: str, stale: bool = False) -> Text:
    """The OK/WARN/ERR badge; grey when it is only the last state seen before losing the cluster."""
    if stale:
        return Text(f" {short}? ", style="bold black on grey50")
    return Text(f" {short} ", style=BADGE_STYLE.get(short, "bold white on grey37"))


class StatusBar(Static):
    """Re-rendered from plain fields once a second (cheap; touches no cluster)."""

    DEFAULT_CSS = """
    StatusBar { height: 1; background: $panel; color: $foreground; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, cluster: str, **kw: object) -> None:
        super().__init__("", **kw)  # type: ignore[arg-type]
        self.cluster = cluster
        self.snapshot: ClusterSnapshot | None = None
        self.connected: bool | None = None  # None: first poll not back yet
        self.error = ""
        self.last_ok: float | None = None
        self.first_poll: float | None = None  # flags already set then may be older than cephtui's first look
        self.maintenances: tuple[Maintenance, ...] = ()  # active ones, from the state file (the Maintenance pane)
        self.read_only = False  # --read-only: a badge right after the name, on every screen
        self.mgr_stall = ""  # "mgr not answering `pg dump` for 6 s" while a mgr command hangs

    def on_mount(self) -> None:
        self.set_interval(1.0, self.refresh_text)
        self.refresh_text()

    def show_snapshot(self, snap: ClusterSnapshot) -> None:
        self.snapshot, self.connected, self.error, self.last_ok = snap, True, "", snap.taken_at
        if self.first_poll is None:
            self.first_poll = snap.taken_at
        self.refresh_text()

    def set_maintenances(self, maintenances: tuple[Maintenance, ...]) -> None:
        if maintenances != self.maintenances:
            self.maintenances = maintenances
            self.refresh_text()

    @property
    def banner(self) -> str:
        """'⚑ maintenance: host vm since 14:02 · noscrub since 13:55 (by someone else)', or ''."""
        items = banner_items(self.maintenances, self.snapshot.flags if self.snapshot else (), self.first_poll)
        return "⚑ " + " · ".join(items) if items else ""

    def show_failure(self, error: str) -> None:
        self.connected, self.error = False, error
        self.refresh_text()

    def show_mgr_stall(self, text: str) -> None:
        if text != self.mgr_stall:
            self.mgr_stall = text
            self.refresh_text()

    @property
    def badge(self) -> str:
        return self.snapshot.health.short if self.snapshot else "…"

    def refresh_text(self) -> None:
        t = Text(" cephtui ", style="bold")
        if self.read_only:
            t.append(" READ-ONLY ", style="bold white on blue")
            t.append(" ")
        t.append("│ ", style="dim")
        t.append(self.cluster)
        if self.snapshot:
            t.append(f" {self.snapshot.fsid[:8]}", style="dim")
        t.append(" │ ", style="dim")
        t.append_text(health_badge(self.badge, stale=self.connected is False))
        t.append(" │ ", style="dim")
        if self.connected is None:
            t.append("● connecting…", style="yellow")
        elif self.connected:
            t.append("● connected", style="green")
        else:
            t.append("✖ disconnected", style="bold red")
            t.append(f": {self.error} (retrying)", style="red")
        if self.last_ok is not None:
            age = time.time() - self.last_ok
            style = "dim" if self.connected else "bold yellow"
            t.append(f" │ data {age:.0f}s old", style=style)
        poll = f" · poll {self.snapshot.poll_ms:.0f} ms" if self.snapshot and self.connected else ""
        flags = self.snapshot.flags if self.snapshot else ()
        items = banner_items(self.maintenances, flags, self.first_poll)
        if items:
            # One line: the banner before the poll time; whole items that fit, then '+N more', then a count.
            width = self.size.width or 10_000
            if len("⚑ " + " · ".join(items)) > width - t.cell_len - len(poll) - 5:
                poll = ""  # the banner matters more than the poll time
            banner = fit_banner(items, banner_short(self.maintenances, flags), width - t.cell_len - len(poll) - 5)
            t.append(poll, style="dim")
            t.append(" │ ", style="dim")
            t.append(f" {banner} ", style="bold black on yellow")
        else:
            t.append(poll, style="dim")
        if self.mgr_stall and self.connected:
            t.append(f" │ ⚠ {self.mgr_stall}", style="yellow")
        elif self.snapshot and self.snapshot.notes and self.connected:
            t.append(f" │ ⚠ {self.snapshot.notes[0]}", style="yellow")
        sync_static(self, t, lambda: t, layout=False)  # one line, always
