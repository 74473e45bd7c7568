"""Pools as the Pools pane shows them: `osd dump` pools + `df detail` + `osd pool stats` + autoscaler.

Joined in the poller thread. The pool definitions come from the cached `osd dump`
(any pool change bumps the osdmap epoch), usage from `df detail` of the same
poll, rates from `osd pool stats`, the autoscaler's target from its status.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cephtui.ceph.coerce import as_dict, as_str, dicts
from cephtui.ceph.coerce import as_float as _f
from cephtui.ceph.coerce import as_int as _i
from cephtui.ceph.snapshot.models import PoolUsage

TYPES = {1: "replicated", 3: "erasure"}


@dataclass(frozen=True)
class PoolInfo:
    id: int
    name: str
    type: str  # replicated / erasure
    size: int
    min_size: int
    pg_num: int
    pgp_num: int
    pg_num_target: int
    autoscale_mode: str
    crush_rule: str
    applications: tuple[str, ...] = ()
    ec_profile: str = ""
    k: int = 0
    m: int = 0
    quota_max_bytes: int = 0
    quota_max_objects: int = 0
    stored: int = 0
    used: int = 0
    percent_used: float = 0.0  # fraction 0..1 as `ceph df` computes it
    max_avail: int = 0
    objects: int = 0
    read_bps: int = 0
    write_bps: int = 0
    read_ops: int = 0
    write_ops: int = 0
    autoscale_target: int | None = None  # the autoscaler's pg_num_final, when it runs
    target_ratio: float = 0.0
    target_bytes: int = 0
    flags: tuple[str, ...] = ()

    @property
    def kind(self) -> str:
        """'replicated 3/2' or 'erasure 4+2'."""
        if self.type == "erasure":
            return f"EC {self.k}+{self.m}" if self.k else "erasure"
        return "replicated"


def build_pools(osd_dump: Any, usage: tuple[PoolUsage, ...], stats: Any = None, autoscale: Any = None,
                rules: Any = None) -> tuple[PoolInfo, ...]:
    """Any of the answers may be missing or of another release's shape: what cannot be read is left at 0."""
    dump = as_dict(osd_dump)
    profiles = as_dict(dump.get("erasure_code_profiles"))
    by_id = {u.id: u for u in usage}
    rates = {_i(s.get("pool_id")): as_dict(s.get("client_io_rate")) for s in dicts(stats)}
    auto = {_i(a.get("pool_id")): a for a in dicts(autoscale)}
    rule_names = {_i(r.get("rule_id")): as_str(r.get("rule_name")) for r in dicts(rules)}
    out = []
    for p in dicts(dump.get("pools")):
        pid = _i(p.get("pool"))
        u = by_id.get(pid)
        ec_name = as_str(p.get("erasure_code_profile"))
        erasure = TYPES.get(_i(p.get("type"))) == "erasure"
        prof = as_dict(profiles.get(ec_name)) if erasure else {}
        rate = rates.get(pid, {})
        a = auto.get(pid)
        rule_id = _i(p.get("crush_rule"))
        options = as_dict(p.get("options"))
        out.append(PoolInfo(
            id=pid, name=as_str(p.get("pool_name")), type=TYPES.get(_i(p.get("type")), as_str(p.get("type"), "?")),
            size=_i(p.get("size")), min_size=_i(p.get("min_size")), pg_num=_i(p.get("pg_num")),
            pgp_num=_i(p.get("pg_placement_num")), pg_num_target=_i(p.get("pg_num_target") or p.get("pg_num")),
            autoscale_mode=as_str(p.get("pg_autoscale_mode")), crush_rule=rule_names.get(rule_id, str(rule_id)),
            applications=tuple(sorted(str(k) for k in as_dict(p.get("application_metadata")))),
            ec_profile=ec_name, k=_i(prof.get("k")), m=_i(prof.get("m")),
            quota_max_bytes=_i(p.get("quota_max_bytes")), quota_max_objects=_i(p.get("quota_max_objects")),
            stored=u.stored if u else 0, used=u.used if u else 0, percent_used=u.percent_used if u else 0.0,
            max_avail=u.max_avail if u else 0, objects=u.objects if u else 0,
            read_bps=_i(rate.get("read_bytes_sec")), write_bps=_i(rate.get("write_bytes_sec")),
            read_ops=_i(rate.get("read_op_per_sec")), write_ops=_i(rate.get("write_op_per_sec")),
            autoscale_target=_i(a.get("pg_num_final")) if a and a.get("pg_num_final") is not None else None,
            target_ratio=_f(options.get("target_size_ratio")),
            target_bytes=_i(options.get("target_size_bytes")),
            flags=tuple(f for f in as_str(p.get("flags_names")).split(",") if f),
        ))
    return tuple(sorted(out, key=lambda x: x.id))
