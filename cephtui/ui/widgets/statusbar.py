"""The header line: cluster, health badge, connection state, data age, and the maintenance / flags banner."""
from __future__ import annotations

import time

from rich.text import Text
from textual.widgets import Static

from cephtui.ceph.snapshot.cluster_snapshot import ClusterSnapshot
from cephtui.ceph.workflows.flag_origin import FlagOrigin
from cephtui.ceph.workflows.maintenance import FlagKey, Maintenance
from cephtui.ceph.workflows.maintenance_banner import banner_items, banner_short, fit_banner
from cephtui.ui import palette
from cephtui.ui.widgets.tables import sync_static

BADGE_ROLE = {"OK": "ok", "WARN": "warn", "ERR": "err"}  # in the theme's success/warning/error colours


def health_badge(short: str, stale: bool = False) -> Text:
    """The OK/WARN/ERR badge; muted when it is only the last state seen before losing the cluster."""
    if stale:
        return Text(f" {short}? ", style=palette.badge("muted"))
    return Text(f" {short} ", style=palette.badge(BADGE_ROLE.get(short, "muted")))


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
        self.maintenances: tuple[Maintenance, ...] = ()  # active ones, from the cluster (the Maintenance pane)
        self.flag_origins: dict[FlagKey, FlagOrigin] = {}  # who set each flag, and when (the Maintenance pane)
        self.read_only = False  # --read-only: a badge right after the name, on every screen
        self.mgr_stall = ""  # "mgr not answering `pg dump` for 6 s" while a mgr command hangs
        self.removals = ("", "info")  # "removing osd.3: running (wait_safe, 12 PGs left)", and its colour role

    def on_mount(self) -> None:
        self.set_interval(1.0, self.refresh_text)
        self.refresh_text()

    def show_snapshot(self, snap: ClusterSnapshot) -> None:
        self.snapshot, self.connected, self.error, self.last_ok = snap, True, "", snap.taken_at
        self.refresh_text()

    def set_maintenances(self, maintenances: tuple[Maintenance, ...]) -> None:
        if maintenances != self.maintenances:
            self.maintenances = maintenances
            self.refresh_text()

    def set_flag_origins(self, origins: dict[FlagKey, FlagOrigin]) -> None:
        if origins != self.flag_origins:
            self.flag_origins = origins
            self.refresh_text()

    @property
    def banner(self) -> str:
        """'⚑ maintenance: host vm since 14:02 · noscrub since 13:55 (by someone else)', or ''."""
        items = banner_items(self.maintenances, self.snapshot.flags if self.snapshot else (), self.flag_origins)
        return "⚑ " + " · ".join(items) if items else ""

    def set_removals(self, text: str, role: str = "info") -> None:
        """Any OSD removal in flight or paused in the cluster's queue (this session's or a colleague's)."""
        if (text, role) != self.removals:
            self.removals = (text, role)
            self.refresh_text()

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
            t.append(" READ-ONLY ", style=palette.badge("info"))
            t.append(" ")
        t.append("│ ", style=palette.style("muted"))
        t.append(self.cluster)
        if self.snapshot:
            t.append(f" {self.snapshot.fsid[:8]}", style=palette.style("muted"))
        t.append(" │ ", style=palette.style("muted"))
        t.append_text(health_badge(self.badge, stale=self.connected is False))
        t.append(" │ ", style=palette.style("muted"))
        if self.connected is None:
            t.append("● connecting…", style=palette.style("warn"))
        elif self.connected:
            t.append("● connected", style=palette.style("ok"))
        else:
            t.append("✖ disconnected", style=palette.style("bold err"))
        if self.last_ok is not None:
            age = time.time() - self.last_ok
            style = palette.style("muted" if self.connected else "bold warn")
            t.append(f" │ data {age:.0f}s old", style=style)
        if self.connected is False:  # the why after the age: on 80 columns the end of the line is cut
            t.append(f" │ {self.error} (retrying)", style=palette.style("err"))
        poll = f" · poll {self.snapshot.poll_ms:.0f} ms" if self.snapshot and self.connected else ""
        flags = self.snapshot.flags if self.snapshot else ()
        items = banner_items(self.maintenances, flags, self.flag_origins)
        if items:
            # One line: the banner before the poll time; whole items that fit, then '+N more', then a count.
            width = self.size.width or 10_000
            if len("⚑ " + " · ".join(items)) > width - t.cell_len - len(poll) - 5:
                poll = ""  # the banner matters more than the poll time
            banner = fit_banner(items, banner_short(self.maintenances, flags), width - t.cell_len - len(poll) - 5)
            t.append(poll, style=palette.style("muted"))
            t.append(" │ ", style=palette.style("muted"))
            t.append(f" {banner} ", style=palette.badge("warn"))
        else:
            t.append(poll, style=palette.style("muted"))
        if self.removals[0]:  # before the notes: a removal in flight is what an admin must not miss
            t.append(" │ ", style=palette.style("muted"))
            t.append(f" ⇄ {self.removals[0]} ", style=palette.badge(self.removals[1]))
        if self.mgr_stall and self.connected:
            t.append(f" │ ⚠ {self.mgr_stall}", style=palette.style("warn"))
        elif self.snapshot and self.snapshot.notes and self.connected:
            t.append(f" │ ⚠ {self.snapshot.notes[0]}", style=palette.style("warn"))
        sync_static(self, t, lambda: t, layout=False)  # one line, always
