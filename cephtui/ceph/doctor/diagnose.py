"""A snapshot's raised checks -> Findings: the explanation, the entities named, what this cluster's own state
says about them (which host a down OSD is on, whether a flag explains a scrub warning), and the fixes cephtui
offers. Pure: everything comes from the snapshot, so it is tested on captured clusters."""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from cephtui.ceph.doctor import fixes
from cephtui.ceph.doctor.entities import extract
from cephtui.ceph.doctor.model import Affected, Explanation, Finding
from cephtui.ceph.format import percent
from cephtui.ceph.snapshot.cluster_snapshot import ClusterSnapshot
from cephtui.ceph.snapshot.models import HealthCheck

Lookup = Callable[[str], "Explanation | None"]
CONTEXT_MAX = 12  # lines of cluster context per finding: past that, "… and N more"


def _catalog_lookup(code: str) -> Explanation | None:
    from cephtui.ceph.doctor.catalog import lookup  # the data, imported when first needed
    return lookup(code)


def diagnose(snap: ClusterSnapshot, lookup: Lookup = _catalog_lookup) -> tuple[Finding, ...]:
    """One Finding per raised check, muted ones included (marked), in the snapshot's order (errors first)."""
    out = []
    for check in snap.health.checks:
        expl = lookup(check.code)
        affected = extract(check)
        context = _clip(CONTEXT.get(check.code, _generic)(snap, check, affected))
        offers = fixes.offers(expl.fix if expl else "", snap, check, affected)
        out.append(Finding(check=check, explanation=expl, affected=affected, context=context, fixes=offers,
                           mute=snap.health.mute(check.code)))
    return tuple(out)


def _clip(lines: list[str]) -> tuple[str, ...]:
    if len(lines) <= CONTEXT_MAX:
        return tuple(lines)
    return (*lines[:CONTEXT_MAX - 1], f"… and {len(lines) - CONTEXT_MAX + 1} more")


# ------------------------------------------------------------------ per-code context

def _osds(ids: list[int], n: int = 16) -> str:
    """`osd.1, osd.4, …` with at most n names: 1,000 down OSDs must not make one 10,000-character line."""
    names = ", ".join(f"osd.{i}" for i in ids[:n])
    return names + (f" … ({len(ids)} in all)" if len(ids) > n else "")


Context = Callable[[ClusterSnapshot, HealthCheck, Affected], "list[str]"]


def _generic(snap: ClusterSnapshot, check: HealthCheck, a: Affected) -> list[str]:
    lines = []
    if a.osds and snap.osd_table is not None:
        hosts = Counter(o.host for o in snap.osd_table.osds if o.id in set(a.osds) and o.host)
        if hosts:
            lines.append("on " + ", ".join(f"host {h} ({n} OSD{'s' if n > 1 else ''})" for h, n in hosts.most_common()))
    if a.more:
        lines.append("Ceph's detail list is cut short" + (f": {a.more} more not listed" if a.more > 0 else ""))
    return lines


def _osd_down(snap: ClusterSnapshot, check: HealthCheck, a: Affected) -> list[str]:
    t = snap.osd_table
    if t is None:
        return _generic(snap, check, a)
    lines = []
    # The table, not the detail: Ceph lists at most mon_health_max_detail (50) of the down OSDs.
    down = {o.id for o in t.osds if o.exists and not o.up} or set(a.osds)
    by_host: dict[str, list[int]] = {}
    for o in t.osds:
        by_host.setdefault(o.host, []).append(o.id)
    for host, ids in sorted(by_host.items()):
        gone = sorted(i for i in ids if i in down)
        if not gone:
            continue
        where = f"host {host}" if host else "no host (not in the CRUSH tree)"
        whole = " — every OSD there: the host or its network, not a disk" if len(gone) == len(ids) > 1 else ""
        lines.append(f"{where}: {_osds(gone)} down of {len(ids)}{whole}")
    still_in = sorted(o.id for o in t.osds if o.id in down and o.in_)
    if still_in:
        lines.append(f"still in (their data is not being re-replicated yet): {_osds(still_in)}")
    if any(f.flag == "noout" and not f.scope for f in snap.flags):
        lines.append("the noout flag is set: down OSDs will not be marked out, so nothing re-replicates")
    return lines


def _fullness(snap: ClusterSnapshot, check: HealthCheck, a: Affected) -> list[str]:
    r = snap.ratios
    lines = [f"ratios: nearfull {percent(r.nearfull)}, backfillfull {percent(r.backfillfull)}, full {percent(r.full)}"]
    if snap.osd_table is not None:
        by_id = {o.id: o for o in snap.osd_table.osds}
        for i in a.osds:
            o = by_id.get(i)
            if o is not None:
                lines.append(f"osd.{i}{f' on {o.host}' if o.host else ''}: {o.utilization:.1f}% used, "
                             f"reweight {o.reweight:.2f}, {o.pgs} PGs")
        used = [o.utilization for o in snap.osd_table.osds if o.exists and o.in_ and o.kb]
        if len(used) > 1:
            lines.append(f"spread across in OSDs: {min(used):.1f}%–{max(used):.1f}% "
                         "(a wide spread means rebalancing helps; a narrow one means the cluster needs space)")
    return lines


def _flags(snap: ClusterSnapshot, check: HealthCheck, a: Affected) -> list[str]:
    cluster = [f for f in snap.flags if not f.scope]
    return [f"{f.flag} is set" for f in cluster] or [check.summary]


def _scrub(snap: ClusterSnapshot, check: HealthCheck, a: Affected) -> list[str]:
    deep = check.code == "PG_NOT_DEEP_SCRUBBED"
    flag = "nodeep-scrub" if deep else "noscrub"
    lines = []
    set_flags = {f.flag for f in snap.flags if not f.scope}
    for f in (flag, "noscrub") if deep else (flag,):
        if f in set_flags:
            lines.append(f"the {f} flag is set: the OSDs start no {'deep ' if f == 'nodeep-scrub' else ''}"
                         f"scrubs while it is, so this can only grow")
    if snap.pgs.num_pgs:
        lines.append(f"{check.count or len(a.pgs)} of {snap.pgs.num_pgs} PGs overdue")
    return lines + _generic(snap, check, Affected(more=a.more))


def _pools(snap: ClusterSnapshot, check: HealthCheck, a: Affected) -> list[str]:
    if snap.pool_table is None:
        return []
    lines = []
    for name in a.pools:
        p = next((p for p in snap.pool_table if p.name == name), None)
        if p is not None:
            apps = ", ".join(p.applications) or "no application"
            lines.append(f"pool '{name}': {p.kind} size {p.size}/{p.min_size}, {p.pg_num} PGs, "
                         f"{p.objects} objects, {apps}")
    return lines


def _crash(snap: ClusterSnapshot, check: HealthCheck, a: Affected) -> list[str]:
    lines = [f"{check.count or len(a.daemons)} daemon(s): {', '.join(a.daemons)}"] if a.daemons else []
    if snap.osd_table is not None:
        named = set(a.osds)
        down = sorted(o.id for o in snap.osd_table.osds if o.id in named and not o.up)
        if down:
            lines.append(f"still down after its crash: {_osds(down)}")
    return lines


CONTEXT: dict[str, Context] = {
    "OSD_DOWN": _osd_down,
    "OSD_NEARFULL": _fullness, "OSD_BACKFILLFULL": _fullness, "OSD_FULL": _fullness,
    "OSDMAP_FLAGS": _flags,
    "PG_NOT_SCRUBBED": _scrub, "PG_NOT_DEEP_SCRUBBED": _scrub,
    "POOL_APP_NOT_ENABLED": _pools, "POOL_NO_REDUNDANCY": _pools, "POOL_PG_NUM_NOT_POWER_OF_TWO": _pools,
    "POOL_TOO_FEW_PGS": _pools, "POOL_TOO_MANY_PGS": _pools, "POOL_NEARFULL": _pools, "POOL_FULL": _pools,
    "RECENT_CRASH": _crash,
}

