"""Build a ClusterSnapshot from a handful of commands, off the UI thread.

The builder keeps small caches between polls: maps that rarely change (`osd
dump`, `mgr dump`, `quorum_status`) are fetched again only when their epoch in
`status` moves, and stuck-PG queries run only while some PG is not clean. So a
steady-state poll costs five cheap commands, whatever the cluster's size.
"""
from __future__ import annotations

import time
from collections import Counter, defaultdict, deque
from dataclasses import dataclass, field
from typing import Any, Protocol

from . import parse
from .client import CephError, CephTimeout
from .models import (
    ClusterSnapshot, LogEntry, MgrSummary, MonSummary, PGBrief, PoolPGStates, Ratios, StateCount, StuckPG,
)
from .pgfilter import pgid_key

STUCK_KINDS = ("inactive", "unclean", "stale", "undersized", "degraded")
LOG_KEEP = 500


class CommandSource(Protocol):
    """What the builder needs of a client: CephClient, or a replay of captured output in unit tests."""

    def mon(self, prefix: str, **args: Any) -> Any: ...

    def mgr(self, prefix: str, **args: Any) -> Any: ...


def per_pool_states(pgs: tuple[PGBrief, ...]) -> tuple[PoolPGStates, ...]:
    counts: dict[int, Counter[str]] = defaultdict(Counter)
    for pg in pgs:
        counts[pg.pool_id][pg.state] += 1
    return tuple(PoolPGStates(pool, tuple(StateCount(s, n) for s, n in c.most_common()))
                 for pool, c in sorted(counts.items()))


class LogSource(Protocol):
    def drain(self) -> list[LogEntry]: ...


@dataclass
class SnapshotBuilder:
    client: CommandSource
    log: LogSource | None = None
    _osd_epoch: int = -1
    _ratios: Ratios = field(default_factory=Ratios)
    _mgr_epoch: int = -1
    _mgr: MgrSummary | None = None
    _quorum_key: tuple[Any, ...] = ()
    _mons: MonSummary | None = None
    _log: deque[LogEntry] = field(default_factory=lambda: deque(maxlen=LOG_KEEP))
    _log_keys: set[tuple[str, str, int, str]] = field(default_factory=set)

    def build(self, *, pg_table: bool = False) -> ClusterSnapshot:
        """One poll. Raises CephTimeout when the mon does not answer `status`."""
        t0 = time.monotonic()
        notes: list[str] = []
        c = self.client
        status = c.mon("status")
        pgmap = status.get("pgmap") or {}
        osds = parse.parse_osd_stat(status.get("osdmap") or {})

        health = parse.parse_health(self._optional(notes, "health detail", lambda: c.mon("health", detail="detail"))
                                    or status.get("health") or {})

        quorum_key = ((status.get("monmap") or {}).get("epoch"), tuple(status.get("quorum_names") or ()))
        if quorum_key != self._quorum_key or self._mons is None:
            self._mons = parse.parse_quorum(c.mon("quorum_status"))
            self._quorum_key = quorum_key

        mgr_stat = c.mon("mgr stat")
        if mgr_stat.get("epoch") != self._mgr_epoch or self._mgr is None:
            self._mgr = parse.parse_mgr(c.mon("mgr dump"))
            self._mgr_epoch = mgr_stat.get("epoch", -1)
        mgr = self._mgr

        if osds.epoch != self._osd_epoch:
            self._ratios = parse.parse_ratios(c.mon("osd dump"))
            self._osd_epoch = osds.epoch

        capacity = parse.parse_df(self._optional(notes, "df", lambda: c.mon("df", detail="detail")) or {})

        stuck: tuple[StuckPG, ...] = ()
        table = pool_states = None
        pg_stat = self._optional(notes, "pg stat", lambda: c.mgr("pg stat")) if mgr.available else None
        if pg_stat is not None:
            pgs = parse.parse_pg_stat(pg_stat)
            if pgs.clean != pgs.num_pgs:
                now = time.time()
                stuck = parse.merge_stuck(
                    parse.parse_stuck(self._optional(notes, f"pg dump_stuck {k}",
                                                     lambda k=k: c.mgr("pg dump_stuck", stuckops=[k])), k, now)
                    for k in STUCK_KINDS)
            if pg_table:
                dump = self._optional(notes, "pg dump", lambda: c.mgr("pg dump", dumpcontents=["pgs_brief"]))
                if dump is not None:
                    # Sorting and counting 100k PGs happens here, in the poller thread, not in the UI.
                    table = tuple(sorted(parse.parse_pg_brief(dump), key=lambda pg: pgid_key(pg.pgid)))
                    pool_states = per_pool_states(table)
        else:
            # No active mgr (or no mgr caps): the mon still holds the last PG digest it received.
            pgs = parse.parse_pgs_by_state(pgmap)
            if not mgr.available:
                notes.append("no active mgr: PG, capacity and IO figures are the last ones the mgr reported")

        if self.log is not None:
            self._absorb_log(self.log.drain())

        return ClusterSnapshot(
            fsid=status.get("fsid", ""), taken_at=time.time(), poll_ms=(time.monotonic() - t0) * 1000,
            health=health, mons=self._mons, mgr=mgr, osds=osds, ratios=self._ratios, capacity=capacity,
            io=parse.parse_io(pgmap), pgs=pgs, recovery=parse.parse_recovery(pgmap), stuck=stuck,
            pg_table=table, pool_pg_states=pool_states, log=tuple(self._log), notes=tuple(notes),
        )

    @staticmethod
    def _optional(notes: list[str], what: str, fetch: Any) -> Any:
        """A section that may fail (caps, mgr hiccup) without losing the whole snapshot."""
        try:
            return fetch()
        except CephTimeout:
            raise
        except CephError as e:
            notes.append(f"{what}: {e.message}")
            return None

    def _absorb_log(self, entries: list[LogEntry]) -> None:
        for e in entries:
            if e.key not in self._log_keys:
                if len(self._log) == self._log.maxlen:
                    self._log_keys.discard(self._log[0].key)
                self._log.append(e)
                self._log_keys.add(e.key)
