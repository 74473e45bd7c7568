"""A mgr that does not answer, as a finding of cephtui's own (CEPHTUI_MGR_UNREACHABLE).

The monitors raise MGR_DOWN only after mon_mgr_beacon_grace (30 s): until then `ceph health` still says
HEALTH_OK while every mgr command fails. The snapshot knows sooner (ClusterSnapshot.mgr_down: the mgr map
names no active mgr, or its commands did not answer), and `cephtui doctor` says so with a non-zero exit rather
than HEALTH_OK and 0 beside a note that nothing listens. Pure.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from cephtui.ceph.doctor.model import Explanation, Finding
from cephtui.ceph.snapshot.cluster_snapshot import ClusterSnapshot
from cephtui.ceph.snapshot.models import HealthCheck

CODE = "CEPHTUI_MGR_UNREACHABLE"


def _lookup(code: str) -> Explanation | None:
    from cephtui.ceph.doctor.catalog import lookup
    return lookup(code)


def mgr_unreachable(snap: ClusterSnapshot, findings: Sequence[Finding],
                    lookup: Callable[[str], Explanation | None] = _lookup) -> Finding | None:
    """The finding when the snapshot saw the mgr down and the monitors do not say it yet (no MGR_DOWN)."""
    if not snap.mgr_down or any(f.code == "MGR_DOWN" for f in findings):
        return None
    why = snap.mgr_down.removeprefix("mgr down: ").strip() or "no answer"
    # No fix offer: it only reads, and the explanation's actions say what to look at (`ceph mgr dump`).
    check = HealthCheck(code=CODE, severity="HEALTH_WARN",
                        summary=f"the manager does not answer ({why}); the monitors raise MGR_DOWN only after "
                                "mon_mgr_beacon_grace", count=1)
    return Finding(check=check, explanation=lookup(CODE),
                   context=(f"as cephtui saw it: {snap.mgr_down}",
                            "mgr-served values (PG states, osd df, osd perf, pool IO) are missing until it returns"))
