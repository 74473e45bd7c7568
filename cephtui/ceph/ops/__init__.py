"""Typed mutating operations: each knows its exact `ceph` CLI equivalent, runs, and is audited.

A pane never sends a mutating command itself. It builds an `Operation` with one
of the factories (which reject bad values with a clear ValueError before
anything is sent), shows `op.cli` to the operator, asks, and then calls `run`.
`run` writes one JSON line per attempt to the audit log, success or refusal,
and raises CephError carrying the monitor's own text when the cluster refuses.

Operations that change CRUSH also carry `crush_edit`: the crushtool arguments
that make the same change to an offline copy of the map, so the preview can
compute which PGs would move before anything is applied.

The package is the public surface, used as `ops.X`: core (Operation, run, the audit log), the value checks
(cephtui/ceph/validate.py, handed on here), and one module of factories per subject: osd, crush, pool, auth,
flags. caps, pgcalc, poolplan and fillcalc are imported by name (`from cephtui.ceph.ops import caps`).
"""
from __future__ import annotations

from cephtui.ceph.ops.auth import (
    CAP_SERVICES,
    ENTITY_RE,
    auth_caps,
    auth_del,
    auth_export,
    auth_get_key,
    auth_get_or_create,
    check_entity,
)
from cephtui.ceph.ops.core import (
    DESTROYS,
    MOVES_DATA,
    SAFE,
    AuditLog,
    Operation,
    explain_refusal,
    is_unanswered,
    run,
)
from cephtui.ceph.ops.crush import (
    EC_PLUGINS,
    crush_add_bucket,
    crush_move,
    crush_remove_bucket,
    crush_rename_bucket,
    ec_profile_remove,
    ec_profile_set,
    rule_create_erasure,
    rule_create_replicated,
    rule_remove,
    set_crush_map,
)
from cephtui.ceph.ops.flags import (
    CLUSTER_FLAGS,
    DANGEROUS_FLAGS,
    FLAG_UNSET_EFFECT,
    GROUP_FLAGS,
    flag_set,
    group_flag_set,
)
from cephtui.ceph.ops.osd import (
    crush_reweight,
    orch_daemon_stop,
    osd_down,
    osd_in,
    osd_noout,
    osd_out,
    osd_primary_affinity,
    osd_remove,
    osd_remove_command,
    osd_reweight,
    require_names,
    set_device_class,
)
from cephtui.ceph.ops.pool import (
    AUTOSCALE_MODES,
    POOL_NAME_RE,
    check_pool_name,
    pool_application_enable,
    pool_create,
    pool_delete,
    pool_rename,
    pool_set,
    pool_set_quota,
)
from cephtui.ceph.validate import (
    CLASS_RE,
    MAX_NAME,
    NAME_RE,
    IncompleteNumber,
    check_name,
    number,
    osd_ids,
    parse_fraction,
    parse_weight,
)

__all__ = [
    "AUTOSCALE_MODES",
    "AuditLog",
    "CAP_SERVICES",
    "CLASS_RE",
    "CLUSTER_FLAGS",
    "DANGEROUS_FLAGS",
    "DESTROYS",
    "EC_PLUGINS",
    "ENTITY_RE",
    "FLAG_UNSET_EFFECT",
    "GROUP_FLAGS",
    "MAX_NAME",
    "MOVES_DATA",
    "NAME_RE",
    "Operation",
    "POOL_NAME_RE",
    "SAFE",
    "auth_caps",
    "auth_del",
    "auth_export",
    "auth_get_key",
    "auth_get_or_create",
    "check_entity",
    "check_name",
    "check_pool_name",
    "crush_add_bucket",
    "crush_move",
    "crush_remove_bucket",
    "crush_rename_bucket",
    "crush_reweight",
    "ec_profile_remove",
    "ec_profile_set",
    "explain_refusal",
    "is_unanswered",
    "flag_set",
    "group_flag_set",
    "orch_daemon_stop",
    "osd_down",
    "osd_ids",
    "osd_in",
    "osd_noout",
    "osd_out",
    "osd_primary_affinity",
    "osd_remove",
    "osd_remove_command",
    "osd_reweight",
    "IncompleteNumber",
    "number",
    "parse_fraction",
    "parse_weight",
    "pool_application_enable",
    "pool_create",
    "pool_delete",
    "pool_rename",
    "pool_set",
    "pool_set_quota",
    "require_names",
    "rule_create_erasure",
    "rule_create_replicated",
    "rule_remove",
    "run",
    "set_crush_map",
    "set_device_class",
]
