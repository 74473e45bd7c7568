"""Scrubbing the overdue PGs, paced: at most one PG per primary OSD at a time, the next one only once the
previous one's scrub stamp has moved. A deep scrub reads every byte of a PG on every copy; asking for all of
them at once queues hundreds of reads on the same disks and slows client IO for hours.

`overdue` picks the PGs from `pg dump pgs` (their stamps and primaries); `ScrubPacer` decides what to send
next; `run_paced` sends, watches the stamps and reports. Each `pg (deep-)scrub` goes through ops.run, so it
is audited like any other command."""
from __future__ import annotations

import calendar
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cephtui.ceph import ops
from cephtui.ceph.coerce import as_dict, as_int, as_str, dicts
from cephtui.ceph.errors import CephError
from cephtui.ceph.ops.health import pg_scrub

POLL = 2.0  # seconds between two looks at the stamps of the PGs in flight
MAX_IN_FLIGHT = 4  # PGs scrubbing at once on the whole cluster, on different primaries
STUCK_AFTER = 600.0  # a PG whose stamp has not moved in this long is given up on (named in the report)


@dataclass(frozen=True)
class PGStamp:
    pgid: str
    primary: int
    stamp: str  # last_deep_scrub_stamp (or last_scrub_stamp): Ceph's own text; equal strings = no new scrub


def parse_stamps(d: Any, deep: bool) -> dict[str, PGStamp]:
    """`pg dump pgs` (Pacific+: {"pg_stats": [...]}; older: the list) or `pg ls …` answers."""
    stats = as_dict(d).get("pg_stats") if isinstance(d, dict) else d
    key = "last_deep_scrub_stamp" if deep else "last_scrub_stamp"
    return {as_str(p.get("pgid")): PGStamp(as_str(p.get("pgid")), as_int(p.get("acting_primary")), as_str(p.get(key)))
            for p in dicts(stats)}


def stamp_seconds(stamp: str) -> float:
    """"2026-11-24T07:30:01.123456+0000" (Ceph's UTC stamp) as epoch seconds; 0 for an unreadable one."""
    try:
        return calendar.timegm(time.strptime(stamp[:19], "%Y-%m-%dT%H:%M:%S"))
    except ValueError:
        return 0.0


def cutoff(interval: float, ratio: float, now: float) -> float:
    """What the mgr calls overdue: a stamp older than now − interval × (1 + ratio) (PGMap's rule)."""
    return now - interval * (1.0 + ratio)


def overdue_by_age(stamps: dict[str, PGStamp], before: float) -> list[PGStamp]:
    """Every PG whose stamp is older than `before` (epoch seconds), oldest first."""
    return sorted((p for p in stamps.values() if stamp_seconds(p.stamp) < before), key=lambda p: p.stamp)


def overdue(stamps: dict[str, PGStamp], named: Sequence[str], count: int) -> list[PGStamp]:
    """The PGs to scrub: the `count` with the oldest stamps (Ceph's check counts them; its detail names only
    50), always including the ones it named. Oldest first."""
    oldest = sorted(stamps.values(), key=lambda p: p.stamp)[:max(count, 0)]
    chosen = {p.pgid: p for p in oldest}
    for pgid in named:
        if pgid in stamps:
            chosen.setdefault(pgid, stamps[pgid])
    return sorted(chosen.values(), key=lambda p: p.stamp)


def mgr_rule(client: Any, deep: bool) -> tuple[float, float]:
    """The interval and warning ratio the mgr judges overdue with (its own values; per-pool overrides aside)."""
    names = (("osd_deep_scrub_interval", "mon_warn_pg_not_deep_scrubbed_ratio") if deep else
             ("osd_scrub_max_interval", "mon_warn_pg_not_scrubbed_ratio"))
    interval, ratio = (float(client.mon("config get", who="mgr", key=n)) for n in names)
    return interval, ratio


def plan_overdue(client: Any, deep: bool, named: Sequence[str], count: int) -> list[PGStamp]:
    """The PGs to scrub, oldest stamp first: the check's count and names, and every PG overdue by the mgr's
    own rule right now (PGs crossing the line a moment after the check was read kept it raised). Blocking:
    `pg dump pgs` and `config get mgr`; a CephError from the dump is raised, the rule is best effort."""
    stamps = parse_stamps(client.mgr("pg dump", dumpcontents=["pgs"]), deep)
    plan = overdue(stamps, tuple(named), count)
    try:
        by_age = overdue_by_age(stamps, cutoff(*mgr_rule(client, deep), time.time()))
    except (CephError, ValueError, TypeError):
        return plan  # the check's own count and names stand
    return sorted({p.pgid: p for p in [*by_age, *plan]}.values(), key=lambda p: p.stamp)


@dataclass
class ScrubPacer:
    """Which PG to ask for next: one in flight per primary OSD, oldest stamp first."""
    pending: list[PGStamp]
    in_flight: dict[str, tuple[PGStamp, float]] = field(default_factory=dict)  # pgid -> (stamp sent, since)
    done: list[str] = field(default_factory=list)
    given_up: list[str] = field(default_factory=list)

    def next_batch(self) -> list[PGStamp]:
        busy = {p.primary for p, _ in self.in_flight.values()}
        batch: list[PGStamp] = []
        for p in list(self.pending):
            if len(self.in_flight) + len(batch) >= MAX_IN_FLIGHT:
                break
            if p.primary not in busy:
                batch.append(p)
                busy.add(p.primary)
                self.pending.remove(p)
        return batch

    def sent(self, p: PGStamp, now: float) -> None:
        self.in_flight[p.pgid] = (p, now)

    def observe(self, stamps: dict[str, PGStamp], now: float) -> None:
        for pgid, (before, since) in list(self.in_flight.items()):
            cur = stamps.get(pgid)
            if cur is not None and cur.stamp != before.stamp:
                self.done.append(pgid)
                del self.in_flight[pgid]
            elif now - since > STUCK_AFTER:
                self.given_up.append(pgid)
                del self.in_flight[pgid]

    @property
    def finished(self) -> bool:
        return not self.pending and not self.in_flight


Progress = Callable[["ScrubPacer", str], None]


def run_paced(client: Any, pgs: list[PGStamp], deep: bool, audit: ops.AuditLog | None,
              progress: Progress, stop: Callable[[], bool]) -> ScrubPacer:
    """Scrub `pgs` paced; `progress(pacer, note)` after each step; `stop()` ends it early (what is in flight
    finishes on the OSDs by itself). The stamps of the PGs in flight are read with `pg ls-by-primary` of
    their primaries (a few small answers, never the whole `pg dump`)."""
    pacer = ScrubPacer(pending=list(pgs))
    while not pacer.finished and not stop():
        for p in pacer.next_batch():
            try:
                ops.run(client, pg_scrub(p.pgid, deep), audit)
            except CephError as e:  # the mgr's refusal is reported, the rest goes on
                pacer.given_up.append(p.pgid)
                progress(pacer, f"pg {p.pgid}: {e.message}")
                continue
            pacer.sent(p, time.monotonic())
        progress(pacer, "")
        if pacer.in_flight:
            time.sleep(POLL)
            stamps: dict[str, PGStamp] = {}
            for primary in sorted({p.primary for p, _ in pacer.in_flight.values()}):
                try:
                    stamps.update(parse_stamps(client.mgr("pg ls-by-primary", osd=primary), deep))
                except CephError as e:  # a slow mgr: look again at the next turn
                    progress(pacer, f"pg ls-by-primary osd.{primary}: {e.message}")
            pacer.observe(stamps, time.monotonic())
    return pacer
