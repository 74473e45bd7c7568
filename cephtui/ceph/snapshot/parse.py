"""Ceph command JSON -> models.

Tolerant of the differences between Pacific (16) and Squid (19): fields that
appear only when non-zero, objects that moved (`pg_map.pg_stats`, nested
`osdmap.osdmap`), summaries that became objects. Unknown input yields zeros,
never a crash: the UI must render whatever the cluster says. Every parser takes Any: a field
of the wrong type (a list where an object was, null, a number for a name) falls back to its
default. Only a raw answer that is not JSON at all raises ParseError (see `loads_answer`).
"""
from __future__ import annotations

import math
from datetime import datetime, timezone
from typing import Any

from cephtui.ceph.answers import loads
from cephtui.ceph.coerce import as_dict, as_float, as_int, as_list, as_str, as_strs, dicts
from cephtui.ceph.snapshot.models import (
    SEVERITY_ORDER,
    Capacity,
    Health,
    HealthCheck,
    HealthMute,
    IORates,
    LogEntry,
    MgrSummary,
    MonSummary,
    OSDStat,
    PGBrief,
    PGSummary,
    PoolUsage,
    ProgressEvent,
    Ratios,
    Recovery,
    StateCount,
)

_int, _float = as_int, as_float


class ParseError(ValueError):
    """An answer that cannot be read at all (not JSON); the message names the command and the problem."""


def loads_answer(raw: bytes | str, what: str) -> Any:
    """`answers.loads`, with a failure named after the command (`what`) instead of a bare JSONDecodeError."""
    try:
        try:
            return loads(raw)
        except UnicodeDecodeError:  # msgspec's error for invalid UTF-8 inside a string: read it replaced
            return loads(raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw)
    except (ValueError, TypeError) as e:  # JSONDecodeError, or bytes that are not text
        raise ParseError(f"{what}: the answer is not JSON ({e})") from None


def int_tuple(v: Any) -> tuple[int, ...]:
    return tuple(_int(x) for x in v) if isinstance(v, list) else ()


# ------------------------------------------------------------------ health

def parse_health(d: Any) -> Health:
    """`health detail` (or the `health` object of `status`)."""
    d = as_dict(d)
    checks = []
    for code, c in as_dict(d.get("checks")).items():
        c = as_dict(c)
        summary = c.get("summary", "")
        if isinstance(summary, dict):
            message, count = as_str(summary.get("message")), _int(summary.get("count"))
        else:
            message, count = as_str(summary), 0
        detail = tuple(as_str(x.get("message")) if isinstance(x, dict) else as_str(x) for x in as_list(c.get("detail")))
        checks.append(HealthCheck(code=code, severity=as_str(c.get("severity"), "HEALTH_WARN"), summary=message,
                                  count=count, detail=detail, muted=bool(c.get("muted", False))))
    checks.sort(key=lambda c: (-SEVERITY_ORDER.get(c.severity, 1), c.code))
    mutes = tuple(HealthMute(code=as_str(m.get("code")), ttl=as_str(m.get("ttl")), sticky=bool(m.get("sticky")),
                             summary=as_str(m.get("summary")), count=_int(m.get("count")))
                  if isinstance(m, dict) else HealthMute(code=as_str(m)) for m in as_list(d.get("mutes")))
    return Health(status=as_str(d.get("status")) or as_str(d.get("overall_status")) or "HEALTH_UNKNOWN",
                  checks=tuple(checks), mutes=mutes)


def parse_quorum(d: Any) -> MonSummary:
    """`quorum_status`."""
    d = as_dict(d)
    monmap = as_dict(d.get("monmap"))
    mons = dicts(monmap.get("mons"))
    quorum = as_strs(d.get("quorum_names"))
    names = tuple(as_str(m.get("name")) for m in mons) or quorum
    return MonSummary(names=names, quorum=quorum, leader=as_str(d.get("quorum_leader_name")),
                      release=_int(monmap.get("min_mon_release")))


def parse_mgr(d: Any) -> MgrSummary:
    """`mgr dump` (standby names) or `mgr stat` (counts only)."""
    d = as_dict(d)
    standbys = tuple(as_str(s.get("name")) for s in dicts(d.get("standbys")))
    if not standbys and _int(d.get("num_standby")) > 0:
        # Capped: a garbage count (1e18) must not build a huge tuple.
        standbys = tuple("?" for _ in range(min(_int(d["num_standby"]), 1000)))
    return MgrSummary(available=bool(d.get("available")), active=as_str(d.get("active_name")), standbys=standbys)


def parse_osd_stat(d: Any) -> OSDStat:
    """`osd stat`, or the `osdmap` object of `status` (nested one level deeper before Pacific)."""
    d = as_dict(d)
    if isinstance(d.get("osdmap"), dict):
        d = d["osdmap"]
    return OSDStat(epoch=_int(d.get("epoch")), total=_int(d.get("num_osds")), up=_int(d.get("num_up_osds")),
                   in_=_int(d.get("num_in_osds")), remapped_pgs=_int(d.get("num_remapped_pgs")))


def parse_ratios(osd_dump: Any) -> Ratios:
    osd_dump = as_dict(osd_dump)
    return Ratios(nearfull=_ratio(osd_dump.get("nearfull_ratio"), 0.85),
                  backfillfull=_ratio(osd_dump.get("backfillfull_ratio"), 0.90),
                  full=_ratio(osd_dump.get("full_ratio"), 0.95))


def _ratio(v: Any, default: float) -> float:
    """A fullness ratio as the mon keeps it (0 < r <= 1); anything else (missing, damaged, negative) is the
    default, never a negative threshold (a flaky property test found one)."""
    r = _float(v)
    return r if math.isfinite(r) and 0 < r <= 1 else default


# ------------------------------------------------------------------ capacity and IO

def parse_df(d: Any) -> Capacity:
    """`df` / `df detail`."""
    d = as_dict(d)
    s = as_dict(d.get("stats"))
    total = _int(s.get("total_bytes"))
    used = _int(s.get("total_used_raw_bytes") or s.get("total_used_bytes"))
    avail = _int(s.get("total_avail_bytes")) or max(total - used, 0)
    pools = []
    for p in dicts(d.get("pools")):
        ps = as_dict(p.get("stats"))
        pools.append(PoolUsage(
            id=_int(p.get("id")), name=as_str(p.get("name")),
            stored=_int(ps.get("stored", ps.get("bytes_used"))),
            used=_int(ps.get("bytes_used", ps.get("stored_raw"))),
            percent_used=_float(ps.get("percent_used")),
            max_avail=_int(ps.get("max_avail")),
            objects=_int(ps.get("objects")),
            quota_bytes=_int(ps.get("quota_bytes")),
            quota_objects=_int(ps.get("quota_objects")),
        ))
    return Capacity(total=total, used=used, avail=avail, pools=tuple(pools))


def capacity_from_pgmap(pgmap: Any) -> Capacity:
    """Raw totals from the `pgmap` of `status`, for when `df` is not allowed or not answered."""
    pgmap = as_dict(pgmap)
    return Capacity(total=_int(pgmap.get("bytes_total")), used=_int(pgmap.get("bytes_used")),
                    avail=_int(pgmap.get("bytes_avail")))


def parse_io(pgmap: Any) -> IORates:
    """The `pgmap` object of `status`: rate fields are present only when non-zero."""
    pgmap = as_dict(pgmap)
    return IORates(
        read_bps=_int(pgmap.get("read_bytes_sec")), write_bps=_int(pgmap.get("write_bytes_sec")),
        read_ops=_int(pgmap.get("read_op_per_sec")), write_ops=_int(pgmap.get("write_op_per_sec")),
        recovering_bps=_int(pgmap.get("recovering_bytes_per_sec")),
        recovering_objects_ps=_int(pgmap.get("recovering_objects_per_sec")),
        recovering_keys_ps=_int(pgmap.get("recovering_keys_per_sec")),
    )


def parse_recovery(pgmap: Any) -> Recovery:
    pgmap = as_dict(pgmap)
    return Recovery(
        degraded_objects=_int(pgmap.get("degraded_objects")), degraded_total=_int(pgmap.get("degraded_total")),
        misplaced_objects=_int(pgmap.get("misplaced_objects")), misplaced_total=_int(pgmap.get("misplaced_total")),
        unfound_objects=_int(pgmap.get("unfound_objects")),
    )


# ------------------------------------------------------------------ placement groups

def parse_pg_stat(d: Any) -> PGSummary:
    """`pg stat`: Pacific+ wraps it in `pg_summary`; older releases did not."""
    s = as_dict(d.get("pg_summary", d)) if isinstance(d, dict) else {}
    states = [StateCount(as_str(x.get("name", x.get("state_name"))), _int(x.get("num", x.get("count"))))
              for x in dicts(s.get("num_pg_by_state") or s.get("pgs_by_state"))]
    states.sort(key=lambda x: (-x.count, x.state))
    return PGSummary(num_pgs=_int(s.get("num_pgs")) or sum(x.count for x in states), by_state=tuple(states))


def parse_pgs_by_state(pgmap: Any) -> PGSummary:
    """The `pgmap` object of `status` carries the same counts as `pg stat`."""
    pgmap = as_dict(pgmap)
    return parse_pg_stat({"pgs_by_state": pgmap.get("pgs_by_state") or (), "num_pgs": pgmap.get("num_pgs")})


def pg_stats_list(d: Any, key: str = "pg_stats") -> list[dict[str, Any]]:
    """The PG entries (objects only: a null or a bare string in the array is skipped)."""
    if isinstance(d, list):
        return dicts(d)
    if not isinstance(d, dict):
        return []
    if key in d:
        return dicts(d[key])
    if isinstance(d.get("pg_map"), dict):
        return dicts(d["pg_map"].get(key))
    return []


def parse_pg_brief(d: Any) -> tuple[PGBrief, ...]:
    """`pg dump pgs_brief`: Pacific returns {pg_ready, pg_stats}, older a bare list, newer pg_map.pg_stats."""
    return tuple(
        PGBrief(pgid=as_str(p.get("pgid")), state=as_str(p.get("state")), up=int_tuple(p.get("up")),
                acting=int_tuple(p.get("acting")),
                up_primary=_int(p.get("up_primary", -1)), acting_primary=_int(p.get("acting_primary", -1)))
        for p in pg_stats_list(d)
    )


def parse_stamp(s: str) -> float | None:
    """Ceph timestamps ('2026-11-22T11:03:05.431288+0000' or with a space) -> epoch seconds."""
    if not s or not isinstance(s, str):
        return None
    try:  # the usual spellings, in C (thousands of stuck PGs have five stamps each)
        dt = datetime.fromisoformat(s)
        return (dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)).timestamp()
    except ValueError:
        pass
    s = s.replace(" ", "T", 1)
    for fmt in ("%Y-%m-%dT%H:%M:%S.%f%z", "%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%dT%H:%M:%S.%f"):
        try:
            dt = datetime.strptime(s, fmt)
        except ValueError:
            continue
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=timezone.utc)
        return dt.timestamp()
    return None


def parse_progress(events: Any) -> tuple[ProgressEvent, ...]:
    """The `progress_events` object of `status`: {id: {message, progress}}."""
    if not isinstance(events, dict):
        return ()
    out = [ProgressEvent(message=(as_str(e.get("message")).splitlines() or [""])[0].strip(),
                         fraction=min(max(_float(e.get("progress")), 0.0), 1.0))
           for e in events.values() if isinstance(e, dict)]
    return tuple(sorted(out, key=lambda e: e.message))


# ------------------------------------------------------------------ cluster log

def parse_log(d: Any) -> tuple[LogEntry, ...]:
    """`log last N`: a list of entries, oldest first."""
    if not isinstance(d, list):
        return ()
    return tuple(LogEntry(stamp=as_str(e.get("stamp")), name=as_str(e.get("name")), channel=as_str(e.get("channel")),
                          priority=as_str(e.get("priority")), message=as_str(e.get("message")), seq=_int(e.get("seq")))
                 for e in d if isinstance(e, dict))
