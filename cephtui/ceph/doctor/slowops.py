"""Slow ops: what the OSDs named by SLOW_OPS are waiting on (`tell osd.N dump_blocked_ops`,
`dump_ops_in_flight`, `dump_historic_slow_ops`), grouped by state, age, pool and client, and the peer
they wait for.

A write on a healthy primary that waits for a hung replica says "waiting for sub ops"; its events name the
replicas it sent to ("waiting for subops from 1,2"). One op only narrows it to those; the OSD common to every
stuck op's set, across primaries, is the slow peer, which SLOW_OPS itself never names (it reports nothing).
Only the OSDs named are asked, never every OSD."""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from cephtui.ceph.coerce import as_dict, as_float, as_str, dicts

AGE_BUCKETS = ((30.0, "< 30 s"), (120.0, "30 s – 2 min"), (600.0, "2 – 10 min"), (float("inf"), "> 10 min"))
_PGID = re.compile(r"^\w+\((?:\S+ )?(\d+)\.([0-9a-f]+)(?:s\d+)? ")  # osd_op(client.1.0:2 5.0 …), osd_repop(…)
_SUBOPS = re.compile(r"waiting for subops from ([\d,() ]+)")
_OSD_ID = re.compile(r"(\d+)(?:\(\d+\))?")


@dataclass(frozen=True)
class SlowOp:
    osd: int  # the OSD that holds it (the primary, for a client op)
    kind: str  # "osd_op", "osd_repop", …
    description: str
    age: float  # seconds
    state: str  # flag_point: "waiting for sub ops", "delayed", "started" …
    client: str = ""
    pool: int = -1
    pgid: str = ""
    waiting_for: tuple[int, ...] = ()  # replicas it sent to and still waits on (from its events)
    historic: bool = False  # from dump_historic_slow_ops: done, but slow

    @property
    def age_bucket(self) -> str:
        return next(label for limit, label in AGE_BUCKETS if self.age < limit)


def _waiting(events: Sequence[dict[str, Any]]) -> tuple[int, ...]:
    """The replicas named by the last "waiting for subops from …" event, minus as many as replied (a reply
    event may or may not name its sender: `sub_op_commit_rec` / `sub_op_commit_rec from 2`)."""
    names: list[int] = []
    for e in events:
        m = _SUBOPS.search(as_str(e.get("event")))
        if m:
            names = [int(x) for x in _OSD_ID.findall(m.group(1))]
    replied = [as_str(e.get("event")) for e in events if as_str(e.get("event")).startswith("sub_op_commit_rec")]
    named = {int(m.group(1)) for r in replied if (m := re.search(r"from (\d+)", r))}
    left = [n for n in names if n not in named]
    if len(replied) - len(named) >= len(left):
        return ()  # every replica it sent to has answered
    return tuple(left)  # which of them answered is unknown: all stay suspects


def parse_ops(osd: int, d: Any, historic: bool = False) -> tuple[SlowOp, ...]:
    """Any of the three dumps (`ops`; historic slow ops: `Ops`)."""
    d = as_dict(d)
    out = []
    for op in dicts(d.get("ops") if "ops" in d else d.get("Ops")):
        desc = as_str(op.get("description"))
        td = as_dict(op.get("type_data"))
        m = _PGID.match(desc)
        events = dicts(td.get("events")) or dicts(op.get("events"))
        out.append(SlowOp(osd=osd, kind=desc.split("(", 1)[0], description=desc,
                          age=as_float(op.get("age") if "age" in op else op.get("duration")),
                          state=as_str(td.get("flag_point")) or "?",
                          client=as_str(as_dict(td.get("client_info")).get("client")),
                          pool=int(m.group(1)) if m else -1, pgid=f"{m.group(1)}.{m.group(2)}" if m else "",
                          waiting_for=_waiting(events), historic=historic))
    return tuple(out)


def slow_peer(ops: Iterable[SlowOp]) -> tuple[int, ...]:
    """The OSDs every in-flight op that waits on replicas is waiting for: the hung or slow peer."""
    sets = [set(o.waiting_for) - {o.osd} for o in ops if o.waiting_for and not o.historic]
    if not sets:
        return ()
    common = set.intersection(*sets)
    return tuple(sorted(common))


@dataclass(frozen=True)
class Grouped:
    by_state: tuple[tuple[str, int], ...]
    by_age: tuple[tuple[str, int], ...]
    by_pool: tuple[tuple[str, int], ...]
    by_client: tuple[tuple[str, int], ...]
    by_osd: tuple[tuple[str, int], ...]
    suspects: tuple[int, ...]
    oldest: float


def group(ops: Sequence[SlowOp], pool_names: dict[int, str] | None = None) -> Grouped:
    live = [o for o in ops if not o.historic]
    names = pool_names or {}
    ages = [label for _, label in AGE_BUCKETS]
    age_counts = Counter(o.age_bucket for o in live)
    return Grouped(
        by_state=tuple(Counter(o.state for o in live).most_common()),
        by_age=tuple((label, age_counts[label]) for label in ages if age_counts[label]),
        by_pool=tuple(Counter(names.get(o.pool, f"pool {o.pool}") for o in live if o.pool >= 0).most_common()),
        by_client=tuple(Counter(o.client for o in live if o.client).most_common(10)),
        by_osd=tuple(Counter(f"osd.{o.osd}" for o in live).most_common()),
        suspects=slow_peer(live), oldest=max((o.age for o in live), default=0.0))


def perf_outliers(perf: Any, hosts: dict[int, str], factor: float = 3.0, floor_ms: int = 10) -> list[str]:
    """`osd perf`: OSDs whose commit latency is `factor` times the median (and over floor_ms), with their host."""
    infos = dicts(as_dict(as_dict(perf).get("osdstats") or perf).get("osd_perf_infos"))
    lat = {int(as_float(i.get("id"))): as_float(as_dict(i.get("perf_stats")).get("commit_latency_ms")) for i in infos}
    if not lat:
        return []
    values = sorted(lat.values())
    median = values[len(values) // 2]
    out = []
    for osd, ms in sorted(lat.items(), key=lambda kv: -kv[1]):
        if ms >= floor_ms and ms >= factor * max(median, 1.0):
            out.append(f"osd.{osd} on {hosts.get(osd, '?')}: commit latency {ms:.0f} ms (median {median:.0f} ms)")
    return out[:10]


def named_osds(ids: Iterable[int], limit: int = 10) -> list[int]:
    """The OSDs to ask: those SLOW_OPS names (at most 10 by Ceph's own cap), never all."""
    return sorted(set(ids))[:limit]

