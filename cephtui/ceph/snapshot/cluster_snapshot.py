"""The whole snapshot of one moment: every part of models.py, and the tables only some tabs fetch (the OSD
tree, the CRUSH map, pools, users, the PG table). Its own module, so that the parts' modules (osdtree, pools,
pgfilter) can import models.py without a circle."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import msgspec

from cephtui.ceph.cephfs.model import FsStatus
from cephtui.ceph.crush.model import CrushMap
from cephtui.ceph.snapshot.models import (
    Capacity,
    FlagState,
    Health,
    IORates,
    LogEntry,
    MgrSummary,
    MonSummary,
    OSDStat,
    PGBrief,
    PGSummary,
    PoolPGStates,
    ProgressEvent,
    Ratios,
    Recovery,
    StuckPG,
)
from cephtui.ceph.snapshot.osdtree import OSDTable
from cephtui.ceph.snapshot.pgfilter import PGColumns
from cephtui.ceph.snapshot.pools import PoolInfo
from cephtui.ceph.snapshot.users import AuthEntity


@dataclass(frozen=True)
class ClusterSnapshot:
    """Everything the panes show for one moment, built off the UI thread."""

    fsid: str
    taken_at: float  # time.time() when the poll finished
    poll_ms: float
    health: Health
    mons: MonSummary
    mgr: MgrSummary
    osds: OSDStat
    ratios: Ratios
    capacity: Capacity
    io: IORates
    pgs: PGSummary
    recovery: Recovery
    stuck: tuple[StuckPG, ...] | None = ()  # None: not fetched (only while the PGs tab shows)
    pg_table: Sequence[PGBrief] | None = None  # only fetched when a pane asks for it; sorted by pgid
    pool_pg_states: tuple[PoolPGStates, ...] | None = None  # from pg_table
    pg_columns: PGColumns | None = None  # pg_table as columns, for the PG filter
    log: tuple[LogEntry, ...] = ()
    # Cluster-log lines that never reached `log` (a flood outran the poller), cumulative since start,
    # and every line received (shown or dropped): the Health pane says how many it could not show.
    log_dropped: int = 0
    log_total: int = 0
    progress: tuple[ProgressEvent, ...] = ()
    osd_table: OSDTable | None = None  # only while the OSDs pane is shown
    crush: CrushMap | None = None  # only while the CRUSH pane is shown
    flags: tuple[FlagState, ...] = ()  # every non-routine flag: cluster, CRUSH groups, per OSD
    pool_table: tuple[PoolInfo, ...] | None = None  # only while the Pools pane is shown
    users: tuple[AuthEntity, ...] | None = None  # only while the Users pane is shown; never keys
    cephfs: FsStatus | None = None  # the file systems, only while the File systems pane is shown
    notes: tuple[str, ...] = field(default=())  # parts we could not fetch and why (e.g. mgr down)
    # (command prefix, why it gave nothing this poll): a pane whose data is missing says why,
    # e.g. "client.ro may not run `auth ls`: it needs mon 'allow rx'" or "no active mgr".
    unavailable: tuple[tuple[str, str], ...] = field(default=())
    # Why mgr-served values (PG states, OSD PGs/%use/latency, pool stats) are not current: "mgr down ..."
    # ("" when they are). Panes show "mgr down" in their place, never a 0 or "none".
    mgr_down: str = ""

    def missing(self, *prefixes: str) -> str | None:
        """Why the first of these commands gave nothing this poll, or None if they all answered."""
        reasons = dict(self.unavailable)
        return next((reasons[p] for p in prefixes if p in reasons), None)

    def to_json(self) -> dict[str, Any]:
        # msgspec converts the dataclasses and the Structs (PGs, stuck PGs, OSD rows) alike.
        data: dict[str, Any] = msgspec.to_builtins(replace(self, pg_columns=None))
        data.pop("pg_columns", None)
        data["health"]["short"] = self.health.short
        data["capacity"]["ratio"] = self.capacity.ratio
        data["osds"]["in"] = data["osds"].pop("in_")
        return data
