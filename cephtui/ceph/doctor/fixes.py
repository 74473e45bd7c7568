"""The fixes the Doctor offers (`f`), per catalog fix key: which targets a finding offers it for, what the
operator must give (an application name …), and the Operations it becomes. The UI runs those through the
usual preview → exact CLI → confirmation → audit path; nothing here sends anything."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cephtui.ceph import ops
from cephtui.ceph.doctor import reclaim
from cephtui.ceph.doctor.model import Affected, FixOffer, Precheck
from cephtui.ceph.ops.health import config_set
from cephtui.ceph.snapshot.cluster_snapshot import ClusterSnapshot
from cephtui.ceph.snapshot.models import ROUTINE_FLAGS, HealthCheck

APPLICATIONS = ("rbd", "cephfs", "rgw")  # the usual ones; any other name is a custom application


@dataclass(frozen=True)
class Ask:
    """One value a fix needs from the operator before its operation exists."""
    name: str  # "app"
    label: str  # "Application"
    choices: tuple[str, ...] = ()  # suggestions; free text is allowed when `free` is set
    free: bool = True


Offers = Callable[[ClusterSnapshot, HealthCheck, Affected], "list[FixOffer]"]
Build = Callable[[FixOffer, "dict[str, str]"], "list[ops.Operation]"]


def _pool_app_offers(snap: ClusterSnapshot, check: HealthCheck, a: Affected) -> list[FixOffer]:
    return [FixOffer("pool_app_enable", f"Enable an application on pool '{p}'",
                     f"ceph osd pool application enable {p} <app>", (p,)) for p in a.pools]


def _pool_app_build(offer: FixOffer, given: dict[str, str]) -> list[ops.Operation]:
    return [ops.pool_application_enable(offer.targets[0], given.get("app", ""))]


RECLAIM_OPTION = "auth_allow_insecure_global_id_reclaim"


def _reclaim_offers(snap: ClusterSnapshot, check: HealthCheck, a: Affected) -> list[FixOffer]:
    # Clients that still reclaim insecurely would be locked out: while Ceph names any, no fix is offered
    # (the finding's context says why).
    if any(c.code == "AUTH_INSECURE_GLOBAL_ID_RECLAIM" for c in snap.health.checks):
        return []
    return [FixOffer("insecure_reclaim_off", "Stop allowing insecure global_id reclaim",
                     f"ceph config set mon {RECLAIM_OPTION} false", ("mon",))]


def _reclaim_build(offer: FixOffer, given: dict[str, str]) -> list[ops.Operation]:
    return [config_set("mon", RECLAIM_OPTION, "false")]


def _cluster_flag_offers(snap: ClusterSnapshot, check: HealthCheck, a: Affected) -> list[FixOffer]:
    return [FixOffer("cluster_flags", f"Unset the {f.flag} flag", f"ceph osd unset {f.flag}", (f.flag,))
            for f in snap.flags if not f.scope and f.flag not in ROUTINE_FLAGS]


def _cluster_flag_build(offer: FixOffer, given: dict[str, str]) -> list[ops.Operation]:
    return [ops.flag_set(offer.targets[0], False)]


def _osd_flag_offers(snap: ClusterSnapshot, check: HealthCheck, a: Affected) -> list[FixOffer]:
    out = []
    for f in snap.flags:
        if not f.scope or f.flag not in ops.GROUP_FLAGS:
            continue
        who = f.scope.split(" ", 1)[-1]  # "osd.3", "host vm" -> "vm", "class ssd" -> "ssd"
        out.append(FixOffer("osd_flags", f"Unset {f.flag} on {f.scope}", f"ceph osd unset-group {f.flag} {who}",
                            (f.flag, who)))
    return out


def _osd_flag_build(offer: FixOffer, given: dict[str, str]) -> list[ops.Operation]:
    return [ops.group_flag_set(offer.targets[0], [offer.targets[1]], False)]


def _crash_offers(snap: ClusterSnapshot, check: HealthCheck, a: Affected) -> list[FixOffer]:
    return [FixOffer("crashes", "Review the crash reports, then archive (or delete) them",
                     "ceph crash ls-new; ceph crash info <id>; ceph crash archive <id> | archive-all")]


def _config_offers(snap: ClusterSnapshot, check: HealthCheck, a: Affected) -> list[FixOffer]:
    return [FixOffer("config", "Look at the options that tune it in the config database",
                     "ceph config dump; ceph config help <option>; ceph config set <who> <option> <value>")]


def _repair_offers(snap: ClusterSnapshot, check: HealthCheck, a: Affected) -> list[FixOffer]:
    return [FixOffer("pg_repair", "List the inconsistent objects and their bad copies, then repair the PG",
                     "rados list-inconsistent-obj <pgid>; ceph pg repair <pgid>", a.pgs)]


def _slow_ops_offers(snap: ClusterSnapshot, check: HealthCheck, a: Affected) -> list[FixOffer]:
    osds = ", ".join(f"osd.{i}" for i in a.osds[:10])
    return [FixOffer("slow_ops", f"See what {osds or 'the OSDs'} wait on, and which peer",
                     "ceph tell osd.<id> dump_blocked_ops | dump_ops_in_flight | dump_historic_slow_ops; ceph osd perf",
                     tuple(str(i) for i in a.osds))]


def _autoscale_offers(snap: ClusterSnapshot, check: HealthCheck, a: Affected) -> list[FixOffer]:
    return [FixOffer("autoscale", "See the autoscaler's targets per pool, then apply the suggested pg_num",
                     "ceph osd pool autoscale-status; ceph osd pool set <pool> pg_num <n>", a.pools)]


def _scrub_offers(deep: bool) -> Offers:
    verb = "deep-scrub" if deep else "scrub"

    def offers(snap: ClusterSnapshot, check: HealthCheck, a: Affected) -> list[FixOffer]:
        n = check.count or len(a.pgs)
        return [FixOffer("deep_scrub" if deep else "scrub",
                         f"{verb.capitalize()} the {n} overdue PGs, paced (one per primary OSD at a time)",
                         f"ceph pg {verb} <pgid> (each, paced)", a.pgs)]
    return offers


def _reweight_offers(snap: ClusterSnapshot, check: HealthCheck, a: Affected) -> list[FixOffer]:
    return [FixOffer("reweight_by_utilization", "Dry run of reweight-by-utilization, then apply what it proposes",
                     "ceph osd test-reweight-by-utilization 120 0.05 4; ceph osd reweight-by-utilization 120 0.05 4")]


def _no_operations(offer: FixOffer, given: dict[str, str]) -> list[ops.Operation]:
    return []


@dataclass(frozen=True)
class Fix:
    offers: Offers
    build: Build
    asks: tuple[Ask, ...] = ()
    view: str = ""  # the fix is a view of its own (the crash reports): the UI opens it instead of a form
    # Asked of the cluster after the form and before the confirmation (blocking calls: the UI runs it on a
    # thread); a blocked Precheck stops the fix with its lines as the reason.
    precheck: Callable[[Any, ClusterSnapshot], Precheck] | None = None


FIXES: dict[str, Fix] = {
    "pool_app_enable": Fix(_pool_app_offers, _pool_app_build,
                           (Ask("app", "Application (rbd, cephfs, rgw, or your own name)", APPLICATIONS),)),
    "insecure_reclaim_off": Fix(_reclaim_offers, _reclaim_build,
                                precheck=lambda client, snap: reclaim.precheck(client, snap.mons.quorum)),
    "cluster_flags": Fix(_cluster_flag_offers, _cluster_flag_build),
    "osd_flags": Fix(_osd_flag_offers, _osd_flag_build),
    "crashes": Fix(_crash_offers, _no_operations, view="crashes"),
    "config": Fix(_config_offers, _no_operations, view="config"),
    "pg_repair": Fix(_repair_offers, _no_operations, view="scrub"),
    "slow_ops": Fix(_slow_ops_offers, _no_operations, view="slow_ops"),
    "autoscale": Fix(_autoscale_offers, _no_operations, view="balance"),
    "reweight_by_utilization": Fix(_reweight_offers, _no_operations, view="reweight"),
    "deep_scrub": Fix(_scrub_offers(True), _no_operations, view="deep-scrub"),
    "scrub": Fix(_scrub_offers(False), _no_operations, view="scrub-paced"),
    # Offered by cephtui's own fail-slow findings (doctor/failslow.py builds the offers), never by a catalog
    # entry: views of the Bench tab's per-OSD bench and of the OSD latency history; nothing is sent here.
    "osd_bench": Fix(lambda snap, check, a: [], _no_operations, view="osd_bench"),
    "osd_perf_history": Fix(lambda snap, check, a: [], _no_operations, view="osd_perf_history"),
}


def offers(kind: str, snap: ClusterSnapshot, check: HealthCheck, a: Affected) -> tuple[FixOffer, ...]:
    fix = FIXES.get(kind)
    return tuple(fix.offers(snap, check, a)) if fix else ()


def asks(offer: FixOffer) -> tuple[Ask, ...]:
    return FIXES[offer.kind].asks


def view(offer: FixOffer) -> str:
    return FIXES[offer.kind].view


def precheck(offer: FixOffer, client: Any, snap: ClusterSnapshot) -> Precheck | None:
    """The fix's own check on the cluster (None: it has none). Blocking: call it off the UI thread."""
    check = FIXES[offer.kind].precheck
    return check(client, snap) if check else None


def build(offer: FixOffer, given: dict[str, str] | None = None) -> list[ops.Operation]:
    """The operations for an offer and what the operator gave. ValueError (a clear message) for bad input."""
    return FIXES[offer.kind].build(offer, dict(given or {}))
