"""Frozen dataclasses: the parts of a snapshot the panes render (the whole is snapshot/cluster_snapshot.py).
Built by parse.py, never mutated."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import msgspec

SEVERITY_ORDER = {"HEALTH_OK": 0, "HEALTH_WARN": 1, "HEALTH_ERR": 2}


@dataclass(frozen=True)
class HealthCheck:
    code: str
    severity: str  # HEALTH_WARN / HEALTH_ERR
    summary: str
    count: int = 0
    detail: tuple[str, ...] = ()
    muted: bool = False


@dataclass(frozen=True)
class HealthMute:
    """A `health mute`: until when (ttl, "" = until unmuted) and whether it outlives the check clearing."""
    code: str
    ttl: str = ""  # as the mon prints it: "2026-11-24T05:00:00.000000+0000"
    sticky: bool = False
    summary: str = ""
    count: int = 0


@dataclass(frozen=True)
class Health:
    status: str  # HEALTH_OK / HEALTH_WARN / HEALTH_ERR
    checks: tuple[HealthCheck, ...] = ()
    mutes: tuple[HealthMute, ...] = ()

    def mute(self, code: str) -> HealthMute | None:
        return next((m for m in self.mutes if m.code == code), None)

    @property
    def short(self) -> str:
        return self.status.removeprefix("HEALTH_")


@dataclass(frozen=True)
class MonSummary:
    names: tuple[str, ...]
    quorum: tuple[str, ...]
    leader: str = ""
    release: int = 0  # the monmap's min_mon_release: the Ceph major version every mon runs (0: not said)

    @property
    def out_of_quorum(self) -> tuple[str, ...]:
        return tuple(n for n in self.names if n not in self.quorum)


@dataclass(frozen=True)
class MgrSummary:
    available: bool
    active: str = ""
    standbys: tuple[str, ...] = ()


@dataclass(frozen=True)
class OSDStat:
    epoch: int
    total: int
    up: int
    in_: int
    remapped_pgs: int = 0

    @property
    def down(self) -> int:
        return self.total - self.up

    @property
    def out(self) -> int:
        return self.total - self.in_


@dataclass(frozen=True)
class Ratios:
    """The osdmap's fullness thresholds (fractions, e.g. 0.85)."""

    nearfull: float = 0.85
    backfillfull: float = 0.90
    full: float = 0.95


@dataclass(frozen=True)
class PoolUsage:
    id: int
    name: str
    stored: int
    used: int
    percent_used: float  # fraction 0..1, as `ceph df` computes it
    max_avail: int
    objects: int
    quota_bytes: int = 0
    quota_objects: int = 0


@dataclass(frozen=True)
class Capacity:
    total: int
    used: int  # raw used
    avail: int
    pools: tuple[PoolUsage, ...] = ()

    @property
    def ratio(self) -> float:
        return self.used / self.total if self.total else 0.0


@dataclass(frozen=True)
class IORates:
    read_bps: int = 0
    write_bps: int = 0
    read_ops: int = 0
    write_ops: int = 0
    recovering_bps: int = 0
    recovering_objects_ps: int = 0
    recovering_keys_ps: int = 0


@dataclass(frozen=True)
class StateCount:
    state: str
    count: int


@dataclass(frozen=True)
class Recovery:
    degraded_objects: int = 0
    degraded_total: int = 0
    misplaced_objects: int = 0
    misplaced_total: int = 0
    unfound_objects: int = 0

    @property
    def degraded_ratio(self) -> float:
        return self.degraded_objects / self.degraded_total if self.degraded_total else 0.0

    @property
    def misplaced_ratio(self) -> float:
        return self.misplaced_objects / self.misplaced_total if self.misplaced_total else 0.0

    def eta_seconds(self, rates: IORates) -> float | None:
        """Rough time left: objects still to fix over the current recovery rate."""
        left = self.degraded_objects + self.misplaced_objects
        if not left:
            return 0.0
        if rates.recovering_objects_ps <= 0:
            return None
        return left / rates.recovering_objects_ps


@dataclass(frozen=True)
class PGSummary:
    """`pg stat`: counts by full state string, as `ceph pg stat` prints them."""

    num_pgs: int
    by_state: tuple[StateCount, ...] = ()

    def count_with(self, flag: str) -> int:
        """PGs whose state contains `flag` (e.g. 'degraded' counts 'active+undersized+degraded')."""
        return sum(s.count for s in self.by_state if flag in s.state.split("+"))

    @property
    def clean(self) -> int:
        return sum(s.count for s in self.by_state if s.state == "active+clean")


class PGBrief(msgspec.Struct, frozen=True, gc=False):
    """One PG of `pg dump pgs_brief`, field names as in Ceph's JSON.

    A msgspec Struct rather than a dataclass: 200,000 of them are decoded straight from
    the mgr's answer with no dict per PG, and, holding only strings and ints (no cycles
    possible), they are left out of the garbage collector's scans.
    """

    pgid: str
    state: str
    up: tuple[int, ...] = ()
    acting: tuple[int, ...] = ()
    up_primary: int = -1
    acting_primary: int = -1

    @property
    def pool_id(self) -> int:
        """-1 for a pgid that is not POOL.SEED (a damaged answer): the PG filter asks every PG."""
        pool = self.pgid.split(".", 1)[0]
        return int(pool) if pool.isascii() and pool.isdigit() and len(pool) < 20 else -1


@dataclass(frozen=True)
class PoolPGStates:
    pool_id: int
    states: tuple[StateCount, ...]  # most common first

    @property
    def total(self) -> int:
        return sum(s.count for s in self.states)

    @property
    def clean(self) -> int:
        return sum(s.count for s in self.states if s.state == "active+clean")


class StuckPG(msgspec.Struct, frozen=True, gc=False):
    """A Struct, like PGBrief: thousands of them when a host is down, none tracked by the GC."""

    pgid: str
    state: str
    kind: str  # inactive / unclean / stale / undersized / degraded
    since: str = ""  # timestamp of the last time it was not stuck
    seconds: Optional[float] = None  # noqa: UP045 (msgspec evaluates it, on 3.9 too)
    up: tuple[int, ...] = ()
    acting: tuple[int, ...] = ()


@dataclass(frozen=True)
class LogEntry:
    stamp: str
    name: str
    channel: str
    priority: str  # [INF] [WRN] [ERR] [DBG] [SEC]
    message: str
    seq: int = 0

    @property
    def key(self) -> tuple[str, str, int, str]:
        return (self.stamp, self.name, self.seq, self.message)


@dataclass(frozen=True)
class ProgressEvent:
    """An event of the mgr's progress module, as `ceph -s` lists under 'progress:'."""

    message: str
    fraction: float  # 0..1


# Flags every modern cluster carries; not worth a banner.
ROUTINE_FLAGS = frozenset({"sortbitwise", "recovery_deletes", "purged_snapdirs", "pglog_hardlimit"})


@dataclass(frozen=True)
class FlagState:
    """A flag set on the cluster, a CRUSH node/class (set-group) or one OSD, and since when cephtui has seen it."""

    flag: str
    scope: str = ""  # "" cluster-wide, "host vm" / "class ssd" / "osd.3"
    seen_since: float = 0.0  # time.time() when first seen set (the osdmap keeps no timestamp)

    @property
    def label(self) -> str:
        return f"{self.flag} on {self.scope}" if self.scope else self.flag
