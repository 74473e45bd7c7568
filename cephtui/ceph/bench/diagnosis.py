"""Why a run's ops fail or stall: errno in words, and what the osdmap says (full, paused, OSDs down)."""
from __future__ import annotations

import errno as errno_mod
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from cephtui.ceph.coerce import as_int


def explain_errno(code: int, mode: str, pool: str, op_timeout: float) -> str:
    code = abs(code)
    if code in (errno_mod.ENOSPC, errno_mod.EDQUOT):
        return f"pool {pool} or the cluster is full ({os.strerror(code)}): free space or raise the quota"
    if code == errno_mod.ETIMEDOUT:
        return (f"an op got no reply within {op_timeout:g} s: an OSD may be down, PGs inactive "
                f"(below min_size), or the cluster paused")
    if code in (errno_mod.EACCES, errno_mod.EPERM):
        return f"permission denied: this key needs osd 'allow rw pool={pool}' (check `ceph auth get`)"
    if code == errno_mod.ENOENT and mode != "write":
        return "an object to read is missing: was the write run cleaned up, or written under another run name?"
    if code == errno_mod.EROFS:
        return f"pool {pool} is read-only"
    return f"{os.strerror(code)} (errno {code})"


def _pct(fraction: float) -> str:
    return f"{fraction * 100:.3g}%"


def _osd_list(ids: Sequence[Any], limit: int = 8) -> str:
    names = [f"osd.{i}" for i in ids]
    return ", ".join(names[:limit]) + ("…" if len(names) > limit else "")


@dataclass(frozen=True)
class Diagnosis:
    """What the osdmap says about a pool's writes: full flags, pauses, down OSDs."""

    reasons: tuple[str, ...] = ()
    full: bool = False  # the pool is full or at its quota: writes block, forced deletes still work
    paused: bool = False  # pausewr / pauserd set
    full_osds: tuple[int, ...] = ()
    down: tuple[int, ...] = ()  # down but still in: their PGs wait for peering

    @property
    def text(self) -> str | None:
        return "; ".join(self.reasons) or None


def diagnose_osdmap(dump: Any, pool: str | None) -> Diagnosis:
    """Pure: the reasons in an `osd dump` why writes to `pool` (None: a pool not created yet) would stall."""
    if not isinstance(dump, dict):
        return Diagnosis()
    reasons: list[str] = []
    osds = [o for o in dump.get("osds") or () if isinstance(o, dict)]
    full_osds = tuple(as_int(o.get("osd")) for o in osds if "full" in (o.get("state") or ()))
    full_ratio = dump.get("full_ratio")
    why_full = (f"{_osd_list(full_osds)} {'is' if len(full_osds) == 1 else 'are'} past the full ratio"
                + (f" ({_pct(float(full_ratio))})" if isinstance(full_ratio, (int, float)) else "")
                if full_osds else "")
    full = False
    for p in dump.get("pools") or ():
        if isinstance(p, dict) and p.get("pool_name") == pool:
            flags = str(p.get("flags_names", "")).split(",")
            if "full_quota" in flags:
                full = True
                reasons.append(f"pool {pool} reached its quota (`ceph osd pool get-quota {pool}`)")
            elif "full" in flags:
                full = True
                reasons.append(f"pool {pool} is full" + (f": {why_full}" if why_full else ""))
    cluster_flags = set(dump.get("flags_set") or str(dump.get("flags", "")).split(","))
    if "full" in cluster_flags:
        full = True
        reasons.append("the cluster is flagged full")
    if pool is None and full_osds:  # a new pool maps PGs to every OSD, full ones included
        full = True
        reasons.append(f"the cluster is full: {why_full}")
    paused = False
    for flag, why in (("pausewr", "writes are paused (pausewr)"), ("pauserd", "reads are paused (pauserd)")):
        if flag in cluster_flags:
            paused = True
            reasons.append(why)
    down = tuple(as_int(o.get("osd")) for o in osds if not o.get("up") and o.get("in"))
    if down:
        reasons.append(f"{len(down)} OSD(s) down and in: {_osd_list(down)}")
    return Diagnosis(tuple(reasons), full, paused, full_osds, down)


def write_refusal(dump: Any, pool: str | None) -> str | None:
    """Why a write run must not start, from an `osd dump`; None if nothing in the osdmap stops writes.

    A full pool (or a full OSD, for a pool about to be created) blocks every write in librados until
    space is freed: the run could only time out and would add to the problem. pausewr likewise."""
    d = diagnose_osdmap(dump, pool)
    if d.full:
        what = "; ".join(r for r in d.reasons if "full" in r or "quota" in r)
        return (f"not starting a write run: {what}. Writes would block until space is freed (delete data, "
                f"add OSDs, or raise the quota; `ceph health detail` or the Health tab shows which OSDs). "
                "Reads (seq/rand) still work.")
    if "pausewr" in set(dump.get("flags_set") or str(dump.get("flags", "")).split(",")):
        return "not starting a write run: writes are paused (pausewr is set; unset it in the Maintenance tab)"
    return None


def osd_dump(handle: Any) -> Any:
    """`osd dump` through a librados handle, or None when the mon does not answer."""
    try:
        ret, out, _ = handle.mon_command(json.dumps({"prefix": "osd dump", "format": "json"}), b"")
        return json.loads(out) if ret == 0 and out else None
    except Exception:
        return None


def waiting_on(maps: Sequence[Any], dump: Any = None) -> str | None:
    """Pure: from `osd map POOL OBJECT` answers for ops that timed out, what their PGs were waiting for.

    The osdmap alone cannot name an OSD that hangs (stopped, or its disk stuck) while still up,
    nor tell which PGs fell below min_size: the timed-out ops' PGs can."""
    dump = dump if isinstance(dump, dict) else {}
    pools = {p.get("pool"): p for p in dump.get("pools") or () if isinstance(p, dict)}
    up = {o.get("osd"): bool(o.get("up")) for o in dump.get("osds") or () if isinstance(o, dict)}
    groups: dict[str, list[str]] = {}
    for m in maps:
        if not isinstance(m, dict):
            continue
        acting = [a for a in m.get("acting") or () if isinstance(a, int) and 0 <= a < 0x7fffffff]
        raw_primary = m.get("acting_primary")
        primary: int = raw_primary if isinstance(raw_primary, int) else -1
        min_size = as_int((pools.get(m.get("pool_id")) or {}).get("min_size"))
        if not acting or primary < 0:
            why = "no OSD acting (their copies are on down OSDs)"
        elif min_size and len(acting) < min_size:
            why = f"fewer OSDs acting than the pool's min_size {min_size} (inactive until an OSD returns)"
        elif up.get(primary, False):
            why = f"osd.{primary} as primary, still up in the osdmap: hung or very slow?"
        else:
            why = f"osd.{primary} as primary (down)"
        groups.setdefault(why, []).append(str(m.get("pgid", "?")))
    if not groups:
        return None
    return "the ops that timed out were waiting on " + "; ".join(
        f"PG {', '.join(sorted(set(pgs)))} with {why}" for why, pgs in groups.items())


def object_maps(handle: Any, pool: str, names: Sequence[str], limit: int = 4) -> list[Any]:
    """`osd map POOL NAME` for the first few objects (empty where the mon does not answer)."""
    out = []
    for name in list(dict.fromkeys(n for n in names if n))[:limit]:
        try:
            ret, buf, _ = handle.mon_command(json.dumps({"prefix": "osd map", "pool": pool, "object": name,
                                                         "format": "json"}), b"")
            if ret == 0 and buf:
                out.append(json.loads(buf))
        except Exception:
            continue
    return out


def diagnose_run(handle: Any, pool: str, timed_out: Sequence[str]) -> Diagnosis:
    """After ops timed out: the osdmap's reasons, plus where the timed-out ops were waiting."""
    dump = osd_dump(handle)
    d = diagnose_osdmap(dump, pool)
    if dump is None or d.full or not timed_out:  # no mon (each ask would wait its timeout); or a full pool,
        return d  # which blocks every op alike: naming primaries would only add noise
    where = waiting_on(object_maps(handle, pool, timed_out), dump)
    return replace(d, reasons=d.reasons + (where,)) if where else d


def diagnose_stall(handle: Any, pool: str) -> str | None:
    """Why ops stopped getting replies, from the osdmap: a full pool, cluster flags, down OSDs."""
    return diagnose_osdmap(osd_dump(handle), pool).text
