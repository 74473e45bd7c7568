"""What the history holds: one sample of the cluster, the per-OSD frame, and the names of the series.

Shared by the local store (store.py), the cluster's own Prometheus (prometheus.py), the recorder and the
fail-slow ranking (failslow.py): each reads or writes these shapes, so a pane or the Doctor does not care
where the history came from. Standard library only.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

# The cluster-wide series, as `ceph -s` (status' pgmap) says them. Rates are per second.
CLUSTER_METRICS = (
    "read_bps", "write_bps", "read_ops", "write_ops",  # client IO
    "recovering_bps", "recovering_objects_ps",  # recovery
    "degraded_objects", "misplaced_objects", "unfound_objects",
    "pgs", "pgs_active_clean",  # PG state counts; each state's count is "pg_state:<state>"
    "osds_up", "osds_in", "osds",
)
PG_STATE_PREFIX = "pg_state:"
# Per-OSD series, as `ceph osd perf` (milliseconds) and `ceph osd df` (used fraction 0..1) say them.
OSD_METRICS = ("commit_ms", "apply_ms", "used")
# Per-pool series, as `ceph osd pool stats` says them (client_io_rate).
POOL_METRICS = ("read_bps", "write_bps", "read_ops", "write_ops")

# The tiers: (seconds per point, seconds kept). The recorder writes tier 0 at INTERVAL; the store folds
# each closed bucket into the next tier (mean) and drops what is older than it keeps.
INTERVAL = 5  # `osd perf` and `status` rates change at the mgr's stats period (mgr_stats_period, 5 s)
TIERS = ((INTERVAL, 3600), (60, 86400), (600, 31 * 86400))


@dataclass(frozen=True)
class OsdFrame:
    """Per-OSD values at one time (a tier-0 sample, or the mean over a bucket of a coarser tier).

    An OSD missing from a dict had no value then (down, or not yet reported by the mgr)."""
    t: float  # unix seconds: the sample's time, or a bucket's start
    commit_ms: dict[int, float] = field(default_factory=dict)
    apply_ms: dict[int, float] = field(default_factory=dict)
    used: dict[int, float] = field(default_factory=dict)  # fraction 0..1


@dataclass(frozen=True)
class HealthEvent:
    """A health check raised or cleared, as the recorder saw it change between two samples."""
    t: float
    code: str
    change: str  # "raised" / "cleared" / "changed" (severity or summary moved while raised)
    severity: str  # HEALTH_WARN / HEALTH_ERR ("" when cleared)
    summary: str


@dataclass(frozen=True)
class Sample:
    """One recording: what the recorder asked the cluster at time t."""
    t: float  # unix seconds when the answers came back
    fsid: str
    cluster: dict[str, float]  # CLUSTER_METRICS and pg_state:* counts
    osd: OsdFrame | None = None  # None: the mgr did not answer `osd perf`
    pools: dict[str, dict[str, float]] = field(default_factory=dict)  # pool name -> POOL_METRICS
    checks: dict[str, tuple[str, str]] | None = None  # code -> (severity, summary); None: health unknown
    log: tuple[tuple[str, str, int, str, str, str], ...] = ()  # (stamp, name, seq, channel, priority, message)


class HistorySource(Protocol):
    """Where a pane or the Doctor reads history from: the local store, or the cluster's Prometheus."""

    label: str  # said on screen: "local history (…/history/<fsid>.sqlite)", "Prometheus http://…"

    def cluster_series(self, metric: str, since: float, until: float) -> list[tuple[float, float]]:
        """(t, value) points of one CLUSTER_METRICS name (or pg_state:<state>), oldest first."""
        ...

    def osd_frames(self, since: float, until: float, max_frames: int | None = None) -> list[OsdFrame]:
        """Per-OSD frames in [since, until], oldest first, at the finest resolution kept for that span, or at
        most about max_frames of them (a frame of 5,000 OSDs is 15,000 values: a trend 12 cells wide needs
        a few frames a cell, not 180)."""
        ...

    def events(self, since: float, until: float) -> list[HealthEvent]:
        """Health checks raised and cleared in [since, until], oldest first."""
        ...
