"""Which OSDs, hosts, pools, PGs, daemons and CephFS clients a raised check names, read from its detail lines
(or its summary, for the codes whose detail is empty). The formats are Ceph's own, per code; a line no pattern
knows is kept verbatim (`Affected.unparsed`), never dropped."""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from cephtui.ceph.doctor.model import Affected
from cephtui.ceph.snapshot.models import HealthCheck

# A detail list is capped (mon_health_max_detail); PGMap says how many it left out in its last line.
_MORE = re.compile(r"^(?:(\d+) more pgs\.\.\.|and (\d+) more|\.\.\.more pgs affected"
                   r"|\(additional pgs left out.*\))\s*$")
_OSD = re.compile(r"\bosd\.(\d+)\b")
_PG = re.compile(r"^pg (\d+\.[0-9a-f]+(?:s\d+)?)\b")
_POOL_QUOTED = re.compile(r"\bpool '([^']+)'")
_HOST = re.compile(r"\bhost=([^,)\s]+)")
_DAEMON = re.compile(r"\b((?:mon|mgr|mds|osd|client|rgw)\.[\w.-]+)")
_TIP = re.compile(r"^(?:use '|try )")  # advice Ceph appends to some detail lists: not an entity

# code -> a parser giving the entities one detail line names, or None when the line is not in that shape.
LineParser = Callable[[str], "Affected | None"]


def _parts(osds: Iterable[int] = (), hosts: Iterable[str] = (), pools: Iterable[str] = (),
           pgs: Iterable[str] = (), daemons: Iterable[str] = (), other: Iterable[str] = ()) -> Affected:
    return Affected(osds=tuple(osds), hosts=tuple(hosts), pools=tuple(pools), pgs=tuple(pgs),
                    daemons=tuple(daemons), other=tuple(other))


def _regex(pattern: str, build: Callable[[re.Match[str]], Affected]) -> LineParser:
    rx = re.compile(pattern)

    def parse(line: str) -> Affected | None:
        m = rx.match(line)
        return build(m) if m else None
    return parse


def _osd_line(line: str) -> Affected | None:
    """`osd.3 (root=default,host=node1) is down`, `osd.1 is near full`, `osd.0 has flags noout`."""
    m = re.match(r"^osd\.(\d+)\b", line)
    if not m:
        return None
    return _parts(osds=(int(m.group(1)),), hosts=_HOST.findall(line))


def _pool_line(line: str) -> Affected | None:
    m = _POOL_QUOTED.search(line) or re.match(r"^[Pp]ool (\S+) ", line)
    return _parts(pools=(m.group(1),)) if m else None


def _pg_line(line: str) -> Affected | None:
    m = _PG.match(line)
    if not m:
        return None
    acting = re.search(r"(?:acting|last acting) \[([\d,]*)\]", line)
    osds = tuple(int(x) for x in acting.group(1).split(",") if x) if acting else ()
    return _parts(pgs=(m.group(1),), osds=osds)


def _daemons_line(line: str) -> Affected | None:
    names = _DAEMON.findall(line)
    if not names:
        return None
    return _parts(osds=(int(n[4:]) for n in names if n.startswith("osd.") and n[4:].isdigit()), daemons=names)


def _bucket_down(line: str) -> Affected | None:
    """`host node1 (root=default) (3 osds) is down`."""
    m = re.match(r"^(\w+) (\S+)(?: \((.*?)\))? \((\d+) osds\) is down$", line)
    if not m:
        return None
    kind, name = m.group(1), m.group(2)
    return _parts(hosts=(name,) if kind == "host" else (), other=(f"{kind} {name}",))


def _osd_flags(line: str) -> Affected | None:
    """`osd.0 has flags noout`, `host node1 has flags noout`, `device class 'ssd' has flags noout`."""
    m = re.match(r"^(osd\.\d+|device class '[^']+'|\S+ \S+) has flags (.*)$", line)
    if not m:
        return None
    who = m.group(1)
    if who.startswith("osd."):
        return _parts(osds=(int(who[4:]),), other=(f"{who}: {m.group(2)}",))
    hosts = (who.split(" ", 1)[1],) if who.startswith("host ") else ()
    return _parts(hosts=hosts, other=(f"{who}: {m.group(2)}",))


def _crash(line: str) -> Affected | None:
    """`osd.2 crashed on host node1 at 2026-11-24T07:20:01.123456Z`."""
    m = re.match(r"^(\S+) crashed on host (\S+) at (\S+)$", line)
    if not m:
        return None
    who = m.group(1)
    return _parts(osds=(int(x) for x in _OSD.findall(who)), hosts=(m.group(2),), daemons=(who,))


def _module(line: str) -> Affected | None:
    m = re.match(r"^Module '([^']+)' has failed(?: dependency)?: ", line)
    return _parts(other=(m.group(1),)) if m else None


def _old_version(line: str) -> Affected | None:
    m = re.match(r"^(.+?) (?:is|are) running an older version of ceph: (\S+)$", line)
    if not m:
        return None
    names = tuple(m.group(1).split())
    return _parts(osds=(int(n[4:]) for n in names if n.startswith("osd.") and n[4:].isdigit()), daemons=names,
                  other=(m.group(2),))


def _mon_line(line: str) -> Affected | None:
    m = re.match(r"^mon\.(\S+) ", line)
    return _parts(daemons=(f"mon.{m.group(1)}",)) if m else None


def _insecure_client(line: str) -> Affected | None:
    m = re.match(r"^(\S+) at (.+) is using insecure global_id reclaim$", line)
    return _parts(daemons=(m.group(1),), other=(m.group(2),)) if m else None


def _slow_ping(line: str) -> Affected | None:
    osds = [int(x) for x in _OSD.findall(line)]
    return _parts(osds=osds) if osds else None


# What an MDS reports in its beacon, as the monitors word it (src/mon/MDSMonitor.cc): the daemon, its rank, the
# MDS's message, then the message's metadata: "mds.a(mds.0): Client vm:admin failing to respond to capability
# release client_id: 4118". Older releases print the name without its dot ("mdsa(mds.0): "). `client_id` is
# the only metadata that names an entity (src/mds/Beacon.cc); `client_count`, `num_segments` … are numbers.
_MDS_REPORT = re.compile(r"^mds\.?([^\s(]+)\(mds\.-?\d+\): ")
_CLIENT_ID = re.compile(r"\bclient_id: (\d+)\b")
# The monitors' own lines about a file system (src/mds/MDSMap.cc, FSMap.cc) start "fs <name> ": "fs cephfs is
# degraded", "fs cephfs has 1 failed mds", "fs cephfs has 1 MDS online, but wants 2", "fs cephfs is offline
# because no MDS is active for it.". A damaged rank is "fs cephfs mds.0 is damaged": 0 is a rank, not a daemon.
_FS_LINE = re.compile(r"^fs (\S+) ")
_FS_DAMAGED_RANK = re.compile(r"^fs (\S+) mds\.(\d+) is damaged$")


def _cephfs_line(line: str) -> Affected | None:
    """The MDS daemon (daemons), the client a check names and the file system (other: "client.4118",
    "fs cephfs", "rank cephfs:0" as `ceph mds repaired` takes it). MDS_INSUFFICIENT_STANDBY's detail ("have 0;
    want 1 more") names nothing, so it stays a verbatim line."""
    m = _MDS_REPORT.match(line)
    if m:
        return _parts(daemons=(f"mds.{m.group(1)}",), other=(f"client.{c}" for c in _CLIENT_ID.findall(line)))
    m = _FS_DAMAGED_RANK.match(line)
    if m:
        return _parts(other=(f"fs {m.group(1)}", f"rank {m.group(1)}:{m.group(2)}"))
    m = _FS_LINE.match(line)
    return _parts(other=(f"fs {m.group(1)}",)) if m else None


PARSERS: dict[str, LineParser] = {
    "OSD_DOWN": _osd_line, "OSD_FULL": _osd_line, "OSD_BACKFILLFULL": _osd_line, "OSD_NEARFULL": _osd_line,
    "OSD_ORPHAN": _osd_line, "OSD_UNREACHABLE": _osd_line, "OSD_TOO_MANY_REPAIRS": _osd_line,
    "DEVICE_HEALTH_IN_USE": _osd_line, "OSD_FLAGS": _osd_flags,
    "OSD_SLOW_PING_TIME_BACK": _slow_ping, "OSD_SLOW_PING_TIME_FRONT": _slow_ping,
    "POOL_FULL": _pool_line, "POOL_NEARFULL": _pool_line, "POOL_NEAR_FULL": _pool_line,
    "POOL_BACKFILLFULL": _pool_line, "POOL_APP_NOT_ENABLED": _pool_line,
    "POOL_PG_NUM_NOT_POWER_OF_TWO": _pool_line, "POOL_NO_REDUNDANCY": _pool_line,
    "POOL_TOO_FEW_PGS": _pool_line, "POOL_TOO_MANY_PGS": _pool_line, "SMALLER_PGP_NUM": _pool_line,
    "MANY_OBJECTS_PER_PG": _pool_line, "LARGE_OMAP_OBJECTS": _pool_line, "CACHE_POOL_NO_HIT_SET": _pool_line,
    "POOL_SCRUB_FLAGS": _pool_line,
    "PG_AVAILABILITY": _pg_line, "PG_DEGRADED": _pg_line, "PG_DAMAGED": _pg_line,
    "PG_RECOVERY_FULL": _pg_line, "PG_BACKFILL_FULL": _pg_line, "PG_NOT_SCRUBBED": _pg_line,
    "PG_NOT_DEEP_SCRUBBED": _pg_line, "OBJECT_UNFOUND": _pg_line,
    "PG_SLOW_SNAP_TRIMMING": _regex(r"^(?:snap trim queue for|longest queue on) pg (\S+) ",
                                    lambda m: _parts(pgs=(m.group(1),))),
    "RECENT_CRASH": _crash,
    "RECENT_MGR_MODULE_CRASH": _regex(r"^mgr module (\S+) crashed in daemon (\S+) on host (\S+) at ",
                                      lambda m: _parts(hosts=(m.group(3),), daemons=(f"mgr.{m.group(2)}",),
                                                       other=(m.group(1),))),
    "MGR_MODULE_DEPENDENCY": _module, "MGR_MODULE_ERROR": _module,
    "DAEMON_OLD_VERSION": _old_version,
    "MON_DOWN": _mon_line, "MON_CLOCK_SKEW": _mon_line, "MON_DISK_LOW": _mon_line, "MON_DISK_CRIT": _mon_line,
    "MON_DISK_BIG": _mon_line, "AUTH_INSECURE_GLOBAL_ID_RECLAIM_ALLOWED": _mon_line,
    "OSD_NO_DOWN_OUT_INTERVAL": _mon_line, "AUTH_INSECURE_GLOBAL_ID_RECLAIM": _insecure_client,
    "PENDING_CREATING_PGS": _daemons_line,
}


def _parser(code: str) -> LineParser | None:
    if code in PARSERS:
        return PARSERS[code]
    if re.fullmatch(r"OSD_[A-Z]+_DOWN", code):  # OSD_HOST_DOWN, OSD_RACK_DOWN, OSD_ROOT_DOWN …
        return _bucket_down
    if code.startswith("BLUESTORE_") or code.startswith("BLUEFS_"):
        return _osd_line
    if code.startswith(("MDS_", "FS_")):  # CephFS: MDS_TRIM, MDS_CLIENT_RECALL, FS_DEGRADED …, and newer ones
        return _cephfs_line
    return None


def _slow_ops_summary(summary: str) -> Affected:
    """SLOW_OPS has no detail lines: the daemons are in the summary, at most 10 (then `...`)."""
    listed = re.search(r"daemons \[([^\]]*)\]", summary)
    text = listed.group(1) if listed else summary
    return _daemons_line(text) or _parts()


def extract(check: HealthCheck) -> Affected:
    found: list[Affected] = []
    unparsed: list[str] = []
    more = 0
    if check.code == "SLOW_OPS":
        found.append(_slow_ops_summary(check.summary))
        if re.search(r"daemons \[[^\]]*\]\.\.\.", check.summary):
            more = -1  # the summary lists 10 and says there are more, without a count
    parser = _parser(check.code)
    for raw in check.detail:
        line = raw.strip()
        if not line or _TIP.match(line):
            continue
        m = _MORE.match(line)
        if m:
            more += int(m.group(1) or m.group(2) or 0) or 1
            continue
        parts = parser(line) if parser else None
        if parts is None:
            unparsed.append(line)
        else:
            found.append(parts)

    def union(name: str) -> tuple:  # ints for osds, strs for the others
        return tuple(dict.fromkeys(v for a in found for v in getattr(a, name)))

    return Affected(osds=union("osds"), hosts=union("hosts"), pools=union("pools"), pgs=union("pgs"),
                    daemons=union("daemons"), other=union("other"), more=more, unparsed=tuple(unparsed))
