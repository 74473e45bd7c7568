"""Typed mutating operations: each knows its exact `ceph` CLI equivalent, runs, and is audited.

A pane never sends a mutating command itself. It builds an `Operation` with one
of the factories below (which reject bad values with a clear ValueError before
anything is sent), shows `op.cli` to the operator, asks, and then calls `run`.
`run` writes one JSON line per attempt to the audit log, success or refusal,
and raises CephError carrying the monitor's own text when the cluster refuses.

Operations that change CRUSH also carry `crush_edit`: the crushtool arguments
that make the same change to an offline copy of the map, so the preview can
compute which PGs would move before anything is applied.
"""
from __future__ import annotations

import errno
import json
import math
import re
import shlex
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from cephtui.ceph.client import CephError, CephPermissionError, CephReadOnly
from cephtui.ceph.private import open_append
from cephtui.ceph.secrets import redact, redact_value
from cephtui.paths import audit_log_path, login

# CrushWrapper::is_valid_crush_name / the mon's goodchars for names and locations.
NAME_RE = re.compile(r"^[A-Za-z0-9_.-]+$")
CLASS_RE = NAME_RE
EC_PLUGINS = ("jerasure", "isa", "lrc", "shec", "clay")

# What an operation is known to do before any preview: SAFE changes no PG's up set (no data moves),
# DESTROYS removes something for good, MOVES_DATA changes placement in a way cephtui does not preview
# (pool size, pg_num). Operations that carry crush_edit or osd_weights are previewed: their impact label
# comes from the preview's own numbers, never from this field.
SAFE, MOVES_DATA, DESTROYS = "safe", "moves data", "destroys"


@dataclass(frozen=True)
class Operation:
    title: str  # "Mark osd.1 out"
    prefix: str
    args: tuple[tuple[str, Any], ...]
    cli: str  # the exact command an admin would type
    impact: str = SAFE  # SAFE / MOVES_DATA / DESTROYS
    confirm_text: str | None = None  # must be typed to confirm (destroying operations)
    inbuf: bytes = b""
    crush_edit: tuple[str, ...] | None = None  # crushtool args emulating this change (preview)
    # The override weights (`osd in/out/reweight`) this sets, osd id -> 0..1: the preview applies them
    # to an offline copy of the osdmap.
    osd_weights: tuple[tuple[int, float], ...] | None = None
    effect: str = ""  # what it does to client IO / failure detection / recovery, when that is the point
    confirm_why: str = ""  # why the typed confirmation is asked when nothing is destroyed

    @property
    def command(self) -> dict[str, Any]:
        return {"prefix": self.prefix, **dict(self.args)}

    @property
    def changes_crush(self) -> bool:
        return self.crush_edit is not None

    @property
    def previewable(self) -> bool:
        """Changes CRUSH or OSD weights: the PG-movement preview can compute what it moves."""
        return self.crush_edit is not None or self.osd_weights is not None


class Runner(Protocol):
    def mon_raw(self, prefix: str, inbuf: bytes = b"", **args: Any) -> tuple[bytes, str]: ...


# ------------------------------------------------------------------ audit log

class AuditLog:
    """Append-only JSON lines: who ran what against which cluster, and what the cluster said.

    One line per attempt that reached the cluster: time, the operator's login (`user`), the
    cephx identity, the cluster fsid, the exact CLI equivalent, the command JSON, the return
    code (0, or -errno as librados gives it) and the monitor's own message. The file is 0600 in
    a 0700 directory, and secrets are masked on the way in. `session` keeps this run's entries
    for the Activity pane.
    """

    def __init__(self, path: Path | None = None, cluster: str = "", entity: str = "") -> None:
        self.path = path or audit_log_path()
        self.cluster = cluster
        self.entity = entity
        self.session: list[dict[str, Any]] = []  # appended from worker threads; read by the UI
        self.write_error = ""  # why the file could not be written, for the Activity pane to say
        self._lock = threading.Lock()

    def record(self, op: Operation, ok: bool, message: str, rc: int | None = None) -> dict[str, Any]:
        if rc is None:
            found = _ERRNO_RE.search(message)
            rc = 0 if ok else -(int(found.group(1)) if found else 1)
        entry = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "user": login(), "identity": self.entity,
            "fsid": self.cluster, "cli": redact(op.cli), "command": redact_value(op.command), "rc": rc,
            "ok": ok, "message": redact(message.strip()),
        }
        line = json.dumps(entry, default=str) + "\n"
        with self._lock:
            self.session.append(entry)
            try:
                with open_append(self.path) as f:
                    f.write(line)
                self.write_error = ""
            except OSError as e:
                # An unwritable audit log must not stop the operator (the mon keeps its own audit
                # channel); the Activity pane says the file is not being written, and why.
                self.write_error = f"{self.path}: {e.strerror or e}"
        return entry

    def tail(self, n: int = 50) -> list[dict[str, Any]]:
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()[-n:]
        except OSError:
            return []
        out = []
        for line in lines:
            try:
                out.append(json.loads(line))
            except ValueError:
                continue
        return out


_ERRNO_RE = re.compile(r"\[errno (\d+)\]")


def explain_refusal(op: Operation, error: CephError, identity: str = "", cap: str = "") -> str | None:
    """What the operator can do about a refusal the mon's text alone does not make obvious."""
    text = error.message
    if op.prefix == "osd pool delete" and "mon_allow_pool_delete" in text:
        return ("The monitors refuse to delete pools while mon_allow_pool_delete is false (a safety switch). "
                "cephtui never flips it for you. To allow it for this one deletion, run "
                "`ceph config set mon mon_allow_pool_delete true`, delete, then "
                "`ceph config set mon mon_allow_pool_delete false`.")
    if op.prefix == "osd pool delete" and "nodelete" in text:
        return f"The pool has the nodelete flag: `ceph osd pool set {dict(op.args)['pool']} nodelete false` first."
    if op.prefix == "osd pool create" and "max_pg_per_osd" in text:
        return "Lower pg_num, add OSDs, or raise mon_max_pg_per_osd (it protects OSD memory)."
    # EACCES is the caps check; the mon's policy refusals (pool deletion disabled …) are EPERM.
    if isinstance(error, CephPermissionError) and error.errno == errno.EACCES:
        who = identity or "this identity"
        need = f"`{op.prefix}` needs {cap}" if cap else f"`{op.prefix}` needs more mon caps"
        return (f"{who} may not do this: {need}. An admin can grant it with `ceph auth caps {who} …` "
                f"(caps are replaced as a whole), or run cephtui as another user (--id/--name, -k).")
    return None


def run(client: Runner, op: Operation, audit: AuditLog | None = None) -> str:
    """Send the operation; return the monitor's message. Raises CephError (audited) when refused."""
    try:
        _, outs = client.mon_raw(op.prefix, op.inbuf, **dict(op.args))
    except CephReadOnly:
        raise  # never sent: nothing for the audit log
    except CephError as e:
        if audit is not None:
            audit.record(op, False, f"{e.message} [errno {e.errno}]", rc=-e.errno)
        raise
    if audit is not None:
        audit.record(op, True, outs, rc=0)
    return outs.strip()


# ------------------------------------------------------------------ value checks

# Ceph sets no limit, but nothing needs more; without one a stray paste of a whole file becomes a name.
MAX_NAME = 255


def _too_long(value: str, what: str) -> None:
    if len(value) > MAX_NAME:
        raise ValueError(f"{what} is {len(value)} characters long (at most {MAX_NAME})")


def check_name(value: str, what: str = "name") -> str:
    value = value.strip()
    if not value:
        raise ValueError(f"{what} is empty")
    _too_long(value, what)
    if not NAME_RE.match(value):
        raise ValueError(f"{what} '{value}' may only contain letters, digits, '-', '_' and '.'")
    return value


def parse_fraction(text: str | float, what: str = "reweight") -> float:
    """A value in 0..1 (reweight, primary affinity)."""
    value = _number(text, what)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{what} must be between 0 and 1 (got {value:g})")
    return value


def parse_weight(text: str | float, what: str = "CRUSH weight") -> float:
    """A CRUSH weight: non-negative, in TiB by convention."""
    value = _number(text, what)
    if value < 0:
        raise ValueError(f"{what} cannot be negative (got {value:g})")
    if value > 65535:  # 16.16 fixed point in the map
        raise ValueError(f"{what} {value:g} is too large (CRUSH weights are 16.16 fixed point, max 65535)")
    return value


def _number(text: str | float, what: str) -> float:
    if isinstance(text, (int, float)):
        try:
            value = float(text)
        except OverflowError:  # an int beyond float range (10**400)
            raise ValueError(f"{what} is out of range (a {len(str(abs(text)))}-digit number)") from None
    else:
        try:
            value = float(str(text).strip())
        except ValueError:
            raise ValueError(f"{what} must be a number (got '{text}')") from None
    if math.isnan(value) or math.isinf(value):
        raise ValueError(f"{what} must be a finite number")
    return value + 0.0  # -0 becomes 0: "-0" must not reach the command line or the mon


def _osd_id(i: Any) -> int:
    """An OSD id as a form or a selection gives it: an int, or the text of one ("3", "osd.3")."""
    if isinstance(i, int) and not isinstance(i, bool):
        return i
    s = str(i).strip().removeprefix("osd.")
    if not (s.isascii() and s.isdigit() and len(s) < 10):
        raise ValueError(f"'{i}' is not an OSD id (a whole number like 3 or osd.3)")
    return int(s)


def osd_ids(ids: Iterable[Any]) -> tuple[int, ...]:
    out = tuple(sorted(set(_osd_id(i) for i in ids)))
    if not out:
        raise ValueError("no OSD selected")
    if any(i < 0 for i in out):
        raise ValueError("OSD ids are not negative")
    return out


def _fmt(value: float) -> str:
    return f"{value:g}" if abs(value) >= 1e-4 or value == 0 else f"{value:.6f}"


def _osd_list(ids: Sequence[int]) -> str:
    return ", ".join(f"osd.{i}" for i in ids)


def _loc_args(location: Sequence[tuple[str, str]]) -> list[str]:
    return [f"{check_name(t, 'bucket type')}={check_name(n, 'bucket name')}" for t, n in location]


def _loc_edit(location: Sequence[tuple[str, str]]) -> tuple[str, ...]:
    out: list[str] = []
    for t, n in location:
        out += ["--loc", t, n]
    return tuple(out)


def _cli(*words: str) -> str:
    return "ceph " + " ".join(shlex.quote(w) for w in words)


# ------------------------------------------------------------------ OSD state

def _ids_op(verb: str, prefix: str, ids: Iterable[int], impact: str, title: str,
            weight: float | None = None, effect: str = "") -> Operation:
    ids_ = osd_ids(ids)
    return Operation(title=f"{title} {_osd_list(ids_)}", prefix=prefix,
                     args=(("ids", [str(i) for i in ids_]),), cli=_cli(*verb.split(), *map(str, ids_)),
                     impact=impact, effect=effect,
                     osd_weights=None if weight is None else tuple((i, weight) for i in ids_))


def osd_in(ids: Iterable[int]) -> Operation:
    return _ids_op("osd in", "osd in", ids, SAFE, "Mark in", weight=1.0)


def osd_out(ids: Iterable[int]) -> Operation:
    return _ids_op("osd out", "osd out", ids, SAFE, "Mark out", weight=0.0)


def osd_down(ids: Iterable[int]) -> Operation:
    # A running OSD marks itself up again after peering; this is how admins force a re-peer.
    return _ids_op("osd down", "osd down", ids, SAFE, "Mark down",
                   effect="their PGs re-peer (client IO to them pauses briefly); a running OSD marks itself up "
                          "again within seconds, a stopped one stays down")


def osd_noout(ids: Iterable[int], on: bool) -> Operation:
    verb = "osd add-noout" if on else "osd rm-noout"
    return _ids_op(verb, verb, ids, SAFE, "Set noout on" if on else "Unset noout on")


def osd_reweight(osd: int, weight: str | float) -> Operation:
    w = parse_fraction(weight, "reweight")
    return Operation(title=f"Reweight osd.{osd} to {_fmt(w)}", prefix="osd reweight",
                     args=(("id", int(osd)), ("weight", w)), cli=_cli("osd", "reweight", str(osd), _fmt(w)),
                     osd_weights=((int(osd), w),))


def require_names(operations: Sequence[Operation], ids: Sequence[int], bucket: str | None = None
                  ) -> list[Operation]:
    """Actions on a bucket or on more than one OSD: the bucket's name (or the OSDs' names) must be typed.

    One key on a bucket row reaches every OSD under it; the typed name makes that a decision.
    """
    operations = list(operations)
    if not operations or (bucket is None and len(set(ids)) < 2):
        return operations
    names = " ".join(f"osd.{i}" for i in sorted(set(ids)))
    if bucket is not None:
        typed = bucket
        why = f"This acts on every OSD under {bucket}: {len(set(ids))} OSD{'s' if len(set(ids)) != 1 else ''} " \
              f"({_short_list(ids)})."
    else:
        typed, why = names, f"This acts on {len(set(ids))} OSDs ({_short_list(ids)})."
    first = operations[0]
    if first.confirm_text:  # a destroying operation already asks for its own name
        return operations
    title = f"{first.title} (every OSD under {bucket})" if bucket is not None else first.title
    return [replace(first, confirm_text=typed, confirm_why=why, title=title), *operations[1:]]


def _short_list(ids: Sequence[int], n: int = 8) -> str:
    ids_ = sorted(set(ids))
    return _osd_list(ids_[:n]) + (f" … +{len(ids_) - n} more" if len(ids_) > n else "")


def osd_primary_affinity(osd: int, weight: str | float) -> Operation:
    w = parse_fraction(weight, "primary affinity")
    return Operation(title=f"Set primary affinity of osd.{osd} to {_fmt(w)}", prefix="osd primary-affinity",
                     args=(("id", int(osd)), ("weight", w)),
                     cli=_cli("osd", "primary-affinity", str(osd), _fmt(w)))


def crush_reweight(name: str, weight: str | float) -> Operation:
    name = check_name(name, "item")
    w = parse_weight(weight)
    return Operation(title=f"Set CRUSH weight of {name} to {_fmt(w)}", prefix="osd crush reweight",
                     args=(("name", name), ("weight", w)), cli=_cli("osd", "crush", "reweight", name, _fmt(w)),
                     impact=MOVES_DATA, crush_edit=("--reweight-item", name, repr(w)))


def set_device_class(ids: Iterable[int], cls: str, current: dict[int, str]) -> list[Operation]:
    """Ceph refuses to overwrite a class (EBUSY), so OSDs that have one get rm-device-class first."""
    ids_ = osd_ids(ids)
    cls = check_name(cls, "device class")
    ops: list[Operation] = []
    rebind = [i for i in ids_ if current.get(i) and current.get(i) != cls]
    if rebind:
        ops.append(Operation(title=f"Remove device class of {_osd_list(rebind)}", prefix="osd crush rm-device-class",
                             args=(("ids", [str(i) for i in rebind]),),
                             cli=_cli("osd", "crush", "rm-device-class", *(f"osd.{i}" for i in rebind)),
                             impact=MOVES_DATA, crush_edit=()))
    todo = [i for i in ids_ if current.get(i) != cls]
    if not todo:
        raise ValueError(f"{_osd_list(ids_)} already {'has' if len(ids_) == 1 else 'have'} class {cls}")
    ops.append(Operation(title=f"Set device class {cls} on {_osd_list(todo)}", prefix="osd crush set-device-class",
                         args=(("class", cls), ("ids", [str(i) for i in todo])),
                         cli=_cli("osd", "crush", "set-device-class", cls, *(f"osd.{i}" for i in todo)),
                         impact=MOVES_DATA, crush_edit=()))
    return ops


# ------------------------------------------------------------------ CRUSH hierarchy and rules

def crush_add_bucket(name: str, type_: str, location: Sequence[tuple[str, str]] = ()) -> Operation:
    name, type_ = check_name(name, "bucket name"), check_name(type_, "bucket type")
    loc = _loc_args(location)
    where = f" under {location[0][1]}" if location else " (top level)"
    return Operation(title=f"Add {type_} bucket {name}{where}", prefix="osd crush add-bucket",
                     args=(("name", name), ("type", type_), *((("args", loc),) if loc else ())),
                     cli=_cli("osd", "crush", "add-bucket", name, type_, *loc),
                     crush_edit=("--add-bucket", name, type_, *_loc_edit(location)))


def crush_move(name: str, location: Sequence[tuple[str, str]]) -> Operation:
    name = check_name(name, "item")
    if not location:
        raise ValueError("choose where to move it")
    loc = _loc_args(location)
    return Operation(title=f"Move {name} to {', '.join(loc)}", prefix="osd crush move",
                     args=(("name", name), ("args", loc)), cli=_cli("osd", "crush", "move", name, *loc),
                     impact=MOVES_DATA, crush_edit=("--move", name, *_loc_edit(location)))


def crush_rename_bucket(src: str, dst: str) -> Operation:
    src, dst = check_name(src, "bucket name"), check_name(dst, "new name")
    if src == dst:
        raise ValueError("the new name is the same as the old one")
    # Names are not hashed by CRUSH: a rename moves no data. crushtool has no rename, so no edit.
    return Operation(title=f"Rename bucket {src} to {dst}", prefix="osd crush rename-bucket",
                     args=(("srcname", src), ("dstname", dst)), cli=_cli("osd", "crush", "rename-bucket", src, dst))


def crush_remove_bucket(name: str) -> Operation:
    name = check_name(name, "bucket name")
    return Operation(title=f"Remove bucket {name}", prefix="osd crush rm", args=(("name", name),),
                     cli=_cli("osd", "crush", "rm", name), impact=DESTROYS, confirm_text=name,
                     crush_edit=("--remove-item", name))


def rule_create_replicated(name: str, root: str, failure_domain: str, device_class: str = "") -> Operation:
    name, root = check_name(name, "rule name"), check_name(root, "root")
    failure_domain = check_name(failure_domain, "failure domain")
    cls = check_name(device_class, "device class") if device_class.strip() else ""
    edit: tuple[str, ...] = ("--create-replicated-rule", name, root, failure_domain)
    if cls:
        edit += ("--device-class", cls)
    return Operation(title=f"Create replicated rule {name}", prefix="osd crush rule create-replicated",
                     args=(("name", name), ("root", root), ("type", failure_domain),
                           *((("class", cls),) if cls else ())),
                     cli=_cli("osd", "crush", "rule", "create-replicated", name, root, failure_domain,
                              *((cls,) if cls else ())), crush_edit=edit)


def ec_profile_set(name: str, k: str | int, m: str | int, failure_domain: str = "host", device_class: str = "",
                   plugin: str = "jerasure", root: str = "default") -> Operation:
    name = check_name(name, "profile name")
    # Each checked on its own so the message names the one that is wrong; the upper bound is the
    # pool wizard's (a 400-digit k would otherwise reach the mon).
    k_, m_ = _chunks(k, "k", 2), _chunks(m, "m", 1)
    if plugin not in EC_PLUGINS:
        raise ValueError(f"plugin must be one of {', '.join(EC_PLUGINS)}")
    profile = [f"k={k_}", f"m={m_}", f"plugin={plugin}",
               f"crush-failure-domain={check_name(failure_domain, 'failure domain')}",
               f"crush-root={check_name(root, 'root')}"]
    if device_class.strip():
        profile.append(f"crush-device-class={check_name(device_class, 'device class')}")
    return Operation(title=f"Create erasure-code profile {name} ({k_}+{m_})", prefix="osd erasure-code-profile set",
                     args=(("name", name), ("profile", profile)),
                     cli=_cli("osd", "erasure-code-profile", "set", name, *profile))


def _chunks(text: str | int, what: str, low: int, high: int = 32) -> int:
    raw = str(text).strip()
    if not (raw.isascii() and raw.lstrip("+-").isdigit()) or len(raw) > 6:
        raise ValueError(f"k and m must be whole numbers ({what} is '{raw[:20]}')")
    value = int(raw)
    if value < low:
        raise ValueError(f"{what} must be at least {low} (got {value})")
    if value > high:
        raise ValueError(f"{what} must be at most {high} (got {value})")
    return value


def rule_create_erasure(name: str, profile: str) -> Operation:
    name, profile = check_name(name, "rule name"), check_name(profile, "profile")
    return Operation(title=f"Create erasure rule {name} from profile {profile}", prefix="osd crush rule create-erasure",
                     args=(("name", name), ("profile", profile)),
                     cli=_cli("osd", "crush", "rule", "create-erasure", name, profile), crush_edit=())


def rule_remove(name: str) -> Operation:
    name = check_name(name, "rule name")
    return Operation(title=f"Remove CRUSH rule {name}", prefix="osd crush rule rm", args=(("name", name),),
                     cli=_cli("osd", "crush", "rule", "rm", name), impact=DESTROYS, confirm_text=name,
                     crush_edit=("--remove-rule", name))


def set_crush_map(compiled: bytes, prior_version: int | None = None, source: str = "crushmap.bin") -> Operation:
    """Install a compiled map. With prior_version the mon refuses if the map changed meanwhile (EPERM)."""
    if not compiled:
        raise ValueError("the compiled map is empty")
    args: tuple[tuple[str, Any], ...] = (("prior_version", prior_version),) if prior_version is not None else ()
    extra = (str(prior_version),) if prior_version is not None else ()
    return Operation(title="Install an edited CRUSH map", prefix="osd setcrushmap", args=args,
                     cli=_cli("osd", "setcrushmap", "-i", source, *extra), impact=MOVES_DATA, inbuf=compiled,
                     crush_edit=())


# ------------------------------------------------------------------ pools

POOL_NAME_RE = re.compile(r"^[A-Za-z0-9_.-]+$")  # what the wizard allows: no spaces, no shell surprises
AUTOSCALE_MODES = ("on", "warn", "off")


def check_pool_name(name: str) -> str:
    name = name.strip()
    if not name:
        raise ValueError("pool name is empty")
    _too_long(name, "pool name")
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
                     cli=_cli(*words), effect=f"creates {pg_num} new, empty PGs (they peer; no existing data "
                                              "moves)")


def pool_set(name: str, var: str, value: str | int) -> Operation:
    name = check_pool_name(name)
    return Operation(title=f"Set {var} of pool {name} to {value}", prefix="osd pool set",
                     args=(("pool", name), ("var", var), ("val", str(value))),
                     cli=_cli("osd", "pool", "set", name, var, str(value)),
                     impact=MOVES_DATA if var in ("size", "pg_num", "pgp_num", "crush_rule") else SAFE)


def pool_application_enable(name: str, app: str) -> Operation:
    name, app = check_pool_name(name), check_name(app, "application")
    return Operation(title=f"Tag pool {name} with application {app}", prefix="osd pool application enable",
                     args=(("pool", name), ("app", app)), cli=_cli("osd", "pool", "application", "enable", name, app))


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
                     cli=_cli("osd", "pool", "set-quota", name, field, str(value)))


def pool_rename(src: str, dst: str) -> Operation:
    src, dst = check_pool_name(src), check_pool_name(dst)
    if src == dst:
        raise ValueError("the new name is the same as the old one")
    return Operation(title=f"Rename pool {src} to {dst}", prefix="osd pool rename",
                     args=(("srcpool", src), ("destpool", dst)), cli=_cli("osd", "pool", "rename", src, dst))


def pool_delete(name: str) -> Operation:
    name = name.strip()
    if not name:
        raise ValueError("pool name is empty")
    return Operation(title=f"Delete pool {name} and every object in it", prefix="osd pool delete",
                     args=(("pool", name), ("pool2", name), ("yes_i_really_really_mean_it", True)),
                     cli=_cli("osd", "pool", "delete", name, name, "--yes-i-really-really-mean-it"),
                     impact=DESTROYS, confirm_text=name)


# ------------------------------------------------------------------ cephx users

ENTITY_RE = re.compile(r"^(client|osd|mds|mgr|mon)\.[A-Za-z0-9_.-]+$")
CAP_SERVICES = ("mon", "mgr", "osd", "mds")


def check_entity(name: str) -> str:
    name = name.strip()
    _too_long(name, "entity name")
    if not ENTITY_RE.match(name):
        raise ValueError(f"'{name}' is not an entity name like client.NAME (letters, digits, '-', '_', '.')")
    return name


def _caps_words(caps: dict[str, str]) -> list[str]:
    words: list[str] = []
    for svc in CAP_SERVICES:
        if caps.get(svc, "").strip():
            words += [svc, caps[svc].strip()]
    return words


def auth_get_or_create(entity: str, caps: dict[str, str]) -> Operation:
    entity = check_entity(entity)
    words = _caps_words(caps)
    if not words:
        raise ValueError("give at least one capability")
    return Operation(title=f"Create {entity}", prefix="auth get-or-create", args=(("entity", entity), ("caps", words)),
                     cli=_cli("auth", "get-or-create", entity, *words))


def auth_caps(entity: str, caps: dict[str, str]) -> Operation:
    """Ceph replaces every cap of the entity at once: services left out lose their caps."""
    entity = check_entity(entity)
    words = _caps_words(caps)
    if not words:
        raise ValueError("give at least one capability (an entity without caps can do nothing)")
    return Operation(title=f"Replace the caps of {entity}", prefix="auth caps",
                     args=(("entity", entity), ("caps", words)),
                     cli=_cli("auth", "caps", entity, *words))


def auth_del(entity: str) -> Operation:
    entity = check_entity(entity)
    return Operation(title=f"Delete {entity} and its key", prefix="auth del", args=(("entity", entity),),
                     cli=_cli("auth", "del", entity), impact=DESTROYS, confirm_text=entity)


def ec_profile_remove(name: str) -> Operation:
    name = check_name(name, "profile name")
    return Operation(title=f"Remove erasure-code profile {name}", prefix="osd erasure-code-profile rm",
                     args=(("name", name),), cli=_cli("osd", "erasure-code-profile", "rm", name))


def auth_get_key(entity: str) -> Operation:
    """A read, but of a secret: audited like a change (the key itself never goes into the log)."""
    entity = check_entity(entity)
    return Operation(title=f"Reveal the key of {entity}", prefix="auth get-key", args=(("entity", entity),),
                     cli=_cli("auth", "get-key", entity))


def auth_export(entity: str, path: str) -> Operation:
    entity = check_entity(entity)
    return Operation(title=f"Export the keyring of {entity}", prefix="auth get", args=(("entity", entity),),
                     cli=_cli("auth", "get", entity, "-o", path))


# ------------------------------------------------------------------ flags and maintenance

CLUSTER_FLAGS = ("pause", "noup", "nodown", "noout", "noin", "nobackfill", "norebalance", "norecover", "noscrub",
                 "nodeep-scrub", "notieragent", "nosnaptrim")
GROUP_FLAGS = ("noup", "nodown", "noin", "noout")
# What setting each of these does to the cluster: they move no data, but stop client IO, hide failures or
# stop recovery. Setting one needs its name typed.
DANGEROUS_FLAGS: dict[str, str] = {
    "pause": "stops ALL client reads and writes (sets pauserd and pausewr): every VM, mount and gateway "
             "using this cluster hangs until it is unset. No data moves",
    "noup": "OSDs that start or restart are not marked up: a restarted OSD stays out of service and its PGs "
            "stay degraded until this is unset",
    "nodown": "failed OSDs are not marked down: clients keep waiting on dead OSDs (IO to their PGs blocks "
              "instead of failing over) and failure detection is off",
    "noin": "OSDs that boot are not marked in: a new or returning OSD gets no data until marked in by hand",
    "norecover": "recovery stops: degraded objects keep fewer copies than the pool's size, so another "
                 "failure meanwhile can lose data",
}
FLAG_UNSET_EFFECT: dict[str, str] = {
    "pause": "client reads and writes resume",
    "noup": "OSDs that are running mark themselves up again",
    "nodown": "the mons again mark failed OSDs down (any OSD that died meanwhile goes down now)",
    "noin": "booting OSDs are marked in again (mon_osd_auto_mark_in rules apply)",
    "norecover": "recovery of degraded objects resumes",
}


def flag_set(flag: str, on: bool) -> Operation:
    if on and flag not in CLUSTER_FLAGS:
        raise ValueError(f"unknown flag '{flag}' (known: {', '.join(CLUSTER_FLAGS)})")
    # Unsetting a flag the osdmap shows is always offered: the mon says itself if it does not know it.
    check_name(flag, "flag")
    verb = "set" if on else "unset"
    effect = DANGEROUS_FLAGS.get(flag, "") if on else FLAG_UNSET_EFFECT.get(flag, "")
    danger = on and flag in DANGEROUS_FLAGS
    return Operation(title=f"{'Set' if on else 'Unset'} the cluster flag {flag}", prefix=f"osd {verb}",
                     args=(("key", flag),), cli=_cli("osd", verb, flag), effect=effect,
                     confirm_text=flag if danger else None,
                     confirm_why=f"{flag} stops client IO, hides failures or stops recovery (see Impact)."
                     if danger else "")


def group_flag_set(flag: str, who: Sequence[str], on: bool) -> Operation:
    """Flags scoped to CRUSH nodes, device classes or OSDs (`osd set-group noout HOST`)."""
    if flag not in GROUP_FLAGS:
        raise ValueError(f"only {', '.join(GROUP_FLAGS)} can be scoped to a host, class or OSD")
    names = [check_name(w, "host, class or OSD") for w in who]
    if not names:
        raise ValueError("no host, class or OSD chosen")
    verb = "set-group" if on else "unset-group"
    return Operation(title=f"{'Set' if on else 'Unset'} {flag} on {', '.join(names)}", prefix=f"osd {verb}",
                     args=(("flags", flag), ("who", names)), cli=_cli("osd", verb, flag, *names))


# ------------------------------------------------------------------ OSD removal

def osd_remove(osd: int, replace: bool, safe_verified: bool) -> Operation:
    """Destroy (replacement: keeps id and CRUSH position) or purge (gone for good) one OSD.

    `ceph osd destroy|purge` is a mgr command that runs safe-to-destroy and then sends
    `osd destroy-actual|purge-actual` to the mon. cephtui talks to the mon only (see client.py), and
    through the mon `osd purge` answers EINVAL without doing anything (Pacific 16.2.15), so it sends
    the -actual command itself, and only once `osd safe-to-destroy` said yes for this OSD in this run
    of the workflow. It is what the CLI does, with the same check, made visible.
    """
    if not safe_verified:
        raise ValueError(f"osd.{osd} has not been confirmed safe to destroy in this run; refusing")
    verb = "destroy-actual" if replace else "purge-actual"
    return Operation(title=f"{'Destroy' if replace else 'Purge'} osd.{osd} (safe-to-destroy said yes)",
                     prefix=f"osd {verb}", args=(("id", int(osd)), ("yes_i_really_mean_it", True)),
                     cli=_cli("osd", verb, str(osd), "--yes-i-really-mean-it"), impact=DESTROYS,
                     confirm_text=f"osd.{osd}")


def orch_daemon_stop(daemon: str) -> Operation:
    """Stop a daemon through the orchestrator (cephadm, rook): it knows which host runs it."""
    daemon = check_name(daemon, "daemon")
    return Operation(title=f"Stop {daemon} through the orchestrator", prefix="orch daemon",
                     args=(("action", "stop"), ("name", daemon)), cli=_cli("orch", "daemon", "stop", daemon))
