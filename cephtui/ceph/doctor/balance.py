"""The balancer and the PG autoscaler: what they are set to, the balancer's score explained, the upmap
commands a plan would send (`balancer dump`: `balancer show` prints only "upmap plan" in upmap mode), and
what the autoscaler is about to change per pool."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from cephtui.ceph.coerce import as_dict, as_float, as_int, as_list, as_str, dicts

DRY_RUN_PLAN = "cephtui-dry-run"


@dataclass(frozen=True)
class BalancerStatus:
    active: bool
    mode: str
    plans: tuple[str, ...]
    last_result: str
    no_optimization_needed: bool


def parse_status(d: Any) -> BalancerStatus:
    d = as_dict(d)
    return BalancerStatus(active=bool(d.get("active")), mode=as_str(d.get("mode")),
                          plans=tuple(as_str(p) for p in as_list(d.get("plans"))),
                          last_result=as_str(d.get("optimize_result")),
                          no_optimization_needed=bool(d.get("no_optimization_needed")))


def parse_score(text: str) -> float | None:
    """`balancer eval`: "current cluster score 0.014513 (lower is better)"."""
    m = re.search(r"score ([\d.eE+-]+)", text)
    return float(m.group(1)) if m else None


def explain_score(score: float | None) -> str:
    if score is None:
        return "no score: the balancer did not answer"
    if score < 0.01:
        verdict = "evenly spread: nothing worth moving"
    elif score < 0.05:
        verdict = "slightly uneven: the balancer's small moves are enough"
    else:
        verdict = "uneven: some OSDs hold clearly more than their share and fill up first"
    return (f"score {score:.4f} (0 is perfect): how far, weighted by CRUSH weight, OSDs hold more PGs, objects "
            f"and bytes than their share; {verdict}")


def upmap_commands(dump: Any) -> list[str]:
    """A plan's `balancer dump` (its osdmap incremental) as the commands it would send, the way the balancer
    module's own crush-compat plans print theirs."""
    d = as_dict(dump)
    out = [f"ceph osd rm-pg-upmap-items {as_str(pg)}" for pg in as_list(d.get("old_pg_upmap_items"))]
    for item in dicts(d.get("new_pg_upmap_items")):
        pairs = " ".join(f"{as_int(m.get('from'))} {as_int(m.get('to'))}" for m in dicts(item.get("mappings")))
        out.append(f"ceph osd pg-upmap-items {as_str(item.get('pgid'))} {pairs}")
    for item in dicts(d.get("new_weight")):  # crush-compat / reweight plans
        out.append(f"ceph osd reweight {as_int(item.get('osd'))} {as_float(item.get('weight')):.4f}")
    return out


@dataclass(frozen=True)
class AutoscalePool:
    name: str
    mode: str  # on / warn / off
    pg_num: int
    final: int
    would_adjust: bool
    target_ratio: float
    capacity_ratio: float

    @property
    def plan(self) -> str:
        if not self.would_adjust:
            return "no change"
        what = f"pg_num {self.pg_num} → {self.final}"
        if self.mode == "on":
            return f"about to set {what}"
        if self.mode == "warn":
            code = "POOL_TOO_FEW_PGS" if self.final > self.pg_num else "POOL_TOO_MANY_PGS"
            return f"warns ({code}): {what} suggested"
        return f"autoscaling off: {what} would be suggested"


def parse_autoscale(d: Any) -> tuple[AutoscalePool, ...]:
    return tuple(AutoscalePool(name=as_str(p.get("pool_name")), mode=as_str(p.get("pg_autoscale_mode")),
                               pg_num=as_int(p.get("pg_num_target")),
                               final=as_int(p.get("pg_num_final")), would_adjust=bool(p.get("would_adjust")),
                               target_ratio=as_float(p.get("effective_target_ratio")),
                               capacity_ratio=as_float(p.get("capacity_ratio")))
                 for p in dicts(d))
