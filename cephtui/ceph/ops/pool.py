"""Pool operations: create, set, quota, rename, delete."""
from __future__ import annotations

import re
from typing import Any

from cephtui.ceph.ops.core import DESTROYS, MOVES_DATA, SAFE, Operation
from cephtui.ceph.validate import check_length, check_name, cli_line

POOL_NAME_RE = re.compile(r"^[A-Za-z0-9_.-]+$")  # what the wizard allows: no spaces, no shell surprises
AUTOSCALE_MODES = ("on", "warn", "off")


def check_pool_name(name: str) -> str:
    name = name.strip()
    if not name:
        raise ValueError("pool name is empty")
    check_length(name, "pool name")
    if not POOL_NAME_RE.match(name):
        raise ValueError(f"pool name '{name}' may only contain letters, digits, '-', '_' and '.'")
    if name.startswith("."):
        raise ValueError("pool names starting with '.' are reserved for Ceph's own pools (.mgr, .rgw.root …)")
    return name


def pool_create(name: str, pg_num: int, pool_type: str = "replicated", rule: str = "", ec_profile: str = "",
                autoscale_mode: str = "") -> Operation:
    name = check_pool_name(name)
    if pool_type not in ("replicated", "erasure"):
        raise ValueError("pool type is replicated or erasure")
    if pg_num < 1:
        raise ValueError("pg_num must be at least 1")
    words = ["osd", "pool", "create", name, str(pg_num), str(pg_num), pool_type]
    args: list[tuple[str, Any]] = [("pool", name), ("pg_num", pg_num), ("pgp_num", pg_num), ("pool_type", pool_type)]
    if pool_type == "erasure":
        ec_profile = check_name(ec_profile, "erasure-code profile")
        words.append(ec_profile)
        args.append(("erasure_code_profile", ec_profile))
    if rule.strip():
        words.append(check_name(rule, "CRUSH rule"))
        args.append(("rule", rule.strip()))
    if autoscale_mode:
        if autoscale_mode not in AUTOSCALE_MODES:
            raise ValueError(f"autoscale mode is one of {', '.join(AUTOSCALE_MODES)}")
        words.append(f"--autoscale-mode={autoscale_mode}")
        args.append(("autoscale_mode", autoscale_mode))
    # A new pool holds no data: creating it moves none (its PGs only peer).
    return Operation(title=f"Create {pool_type} pool {name}", prefix="osd pool create", args=tuple(args),
                     cli=cli_line(*words), effect=f"creates {pg_num} new, empty PGs (they peer; no existing data "
                                              "moves)")


def pool_set(name: str, var: str, value: str | int) -> Operation:
    name = check_pool_name(name)
    return Operation(title=f"Set {var} of pool {name} to {value}", prefix="osd pool set",
                     args=(("pool", name), ("var", var), ("val", str(value))),
                     cli=cli_line("osd", "pool", "set", name, var, str(value)),
                     impact=MOVES_DATA if var in ("size", "pg_num", "pgp_num", "crush_rule") else SAFE)


def pool_application_enable(name: str, app: str) -> Operation:
    name, app = check_pool_name(name), check_name(app, "application")
    return Operation(title=f"Tag pool {name} with application {app}", prefix="osd pool application enable",
                     args=(("pool", name), ("app", app)),
                     cli=cli_line("osd", "pool", "application", "enable", name, app))


def pool_set_quota(name: str, field: str, value: int) -> Operation:
    name = check_pool_name(name)
    if field not in ("max_bytes", "max_objects"):
        raise ValueError("quota field is max_bytes or max_objects")
    if value < 0:
        raise ValueError("a quota cannot be negative (0 removes it)")
    if value >= 2 ** 63:  # the mon parses it as a signed 64-bit number
        raise ValueError(f"{field} quota is too large (at most {2 ** 63 - 1})")
    return Operation(title=f"Set {field} quota of pool {name} to {value or 'none'}", prefix="osd pool set-quota",
                     args=(("pool", name), ("field", field), ("val", str(value))),
                     cli=cli_line("osd", "pool", "set-quota", name, field, str(value)))


def pool_rename(src: str, dst: str) -> Operation:
    src, dst = check_pool_name(src), check_pool_name(dst)
    if src == dst:
        raise ValueError("the new name is the same as the old one")
    return Operation(title=f"Rename pool {src} to {dst}", prefix="osd pool rename",
                     args=(("srcpool", src), ("destpool", dst)), cli=cli_line("osd", "pool", "rename", src, dst))


def pool_delete(name: str) -> Operation:
    name = name.strip()
    if not name:
        raise ValueError("pool name is empty")
    return Operation(title=f"Delete pool {name} and every object in it", prefix="osd pool delete",
                     args=(("pool", name), ("pool2", name), ("yes_i_really_really_mean_it", True)),
                     cli=cli_line("osd", "pool", "delete", name, name, "--yes-i-really-really-mean-it"),
                     impact=DESTROYS, confirm_text=name)
