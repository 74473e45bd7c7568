"""A new pool as the create-pool wizard collects it: checks, warnings, the commands, and how to undo them.

Pure: the wizard fills a PoolPlan page by page; `check_*` raise ValueError for
what must not be sent, `warnings` lists what is allowed but risky (with why),
`plan_ops` gives the exact command sequence and `undo_ops` how to take back the
steps that already happened when a later one fails.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from cephtui.ceph import ops
from cephtui.ceph.crush.model import CrushMap

APPLICATIONS = ("rbd", "cephfs", "rgw")


@dataclass(frozen=True)
class PoolPlan:
    name: str
    pool_type: str = "replicated"  # replicated / erasure
    application: str = "rbd"
    size: int = 3  # replicated: copies; erasure: k+m (set by Ceph from the profile)
    min_size: int = 2
    rule: str = ""  # replicated: an existing rule; erasure: Ceph makes one named after the pool
    ec_profile: str = ""
    new_profile: tuple[int, int, str, str] | None = None  # k, m, failure domain, device class
    pg_num: int = 32
    autoscale_mode: str = ""  # "": the cluster's osd_pool_default_pg_autoscale_mode (no flag sent)

    @property
    def k_m(self) -> tuple[int, int] | None:
        return (self.new_profile[0], self.new_profile[1]) if self.new_profile else None


def parse_int(text: str | int, what: str, low: int, high: int) -> int:
    try:
        value = int(str(text).strip())
    except ValueError:
        raise ValueError(f"{what} must be a whole number (got '{text}')") from None
    if not low <= value <= high:
        raise ValueError(f"{what} must be between {low} and {high} (got {value})")
    return value


def check_name(name: str, existing: Sequence[str]) -> str:
    name = ops.check_pool_name(name)
    if name in existing:
        raise ValueError(f"a pool named {name} already exists")
    return name


def check_replication(size: str | int, min_size: str | int) -> tuple[int, int]:
    s = parse_int(size, "size", 1, 10)
    m = parse_int(min_size, "min_size", 1, 10)
    if m > s:
        raise ValueError(f"min_size {m} cannot exceed size {s}: the pool would never accept writes")
    return s, m


def ec_min_size(k: int, m: int) -> int:
    """What Pacific sets for a new EC pool: k+1, but k when m is 1 (measured on 16.2.15)."""
    return k + 1 if m > 1 else k


def failure_domains(cmap: CrushMap | None, root: str, domain: str, device_class: str | None = None) -> int | None:
    """How many buckets of type `domain` (or devices for osd) hold OSDs (of `device_class`) under `root`."""
    if cmap is None or cmap.bucket(root) is None:
        return None
    devices = {d.name for d in cmap.devices if not device_class or d.device_class == device_class}
    below = cmap.descendants(root)
    if domain in ("osd", cmap.types[0][1] if cmap.types else "osd"):
        return sum(1 for n in below if n in devices)
    count = 0
    for n in below:
        b = cmap.bucket(n)
        if b is not None and b.type_name == domain and any(d in devices for d in cmap.descendants(n)):
            count += 1
    return count


@dataclass(frozen=True)
class Placement:
    """What CRUSH can do with a new pool's copies (replicated) or chunks (erasure): each needs a failure
    domain of its own, so with fewer domains than copies some are never placed."""
    copies: int  # size, or k+m
    min_size: int
    domains: int  # failure domains holding OSDs (of the rule's device class) under its root
    domain: str
    root: str
    erasure: bool
    named: str = ""  # "3 copies (size 3)" / "6 chunks (k 4 + m 2)": the fields the refusal is about

    @property
    def placed(self) -> int:
        return min(self.copies, self.domains)

    def where(self) -> str:
        return f"{self.domains} {self.domain}{'s' if self.domains != 1 else ''} under {self.root}"

    def refusal(self) -> str:
        """Why every PG would be inactive (fewer placed than min_size), or ""."""
        if self.placed >= self.min_size:
            return ""
        what = "chunks" if self.erasure else "copies"
        article = "an" if self.domain[:1] in "aeiou" else "a"
        return (f"every PG of this pool would be inactive (incomplete): its {self.named or self.copies} each "
                f"need {article} {self.domain} of their own, CRUSH finds {self.where()}, so it places "
                f"{self.placed}, fewer than min_size {self.min_size}.\nChoose fewer {what}, a smaller failure "
                f"domain, or add {self.domain}s first")

    def warning(self) -> str:
        """Why every PG would be undersized from the start (placed but fewer than all), or ""."""
        if self.placed >= self.copies or self.placed < self.min_size:
            return ""
        what = "chunks" if self.erasure else "copies"
        return (f"only {self.placed} of its {self.copies} {what} can be placed ({self.where()}): every PG "
                f"would be active+undersized from the start, and could lose {self.placed - self.min_size} "
                f"{self.domain}{'s' if self.placed - self.min_size != 1 else ''} before its I/O stops, not "
                f"{self.copies - self.min_size}")


def placement(plan: PoolPlan, cmap: CrushMap | None, ec_root: str = "default") -> Placement | None:
    """Where the plan's copies or chunks could go; None when the map does not say (no map, no such rule)."""
    if cmap is None:
        return None
    if plan.pool_type == "replicated":
        rule = cmap.rule(plan.rule) if plan.rule else None
        if rule is None or not rule.root or not rule.failure_domain:
            return None
        root, domain, cls, copies = rule.root, rule.failure_domain, rule.device_class, plan.size
        named = f"{copies} copies (size {copies})"
    else:
        if plan.new_profile is not None:
            k, m, domain, cls = plan.new_profile
        else:
            prof = cmap.ec_profile(plan.ec_profile) if plan.ec_profile else None
            if prof is None or prof.k is None or prof.m is None:
                return None
            k, m, domain, cls = prof.k, prof.m, prof.failure_domain or "host", prof.device_class or ""
        root, copies = ec_root, k + m
        named = f"{copies} chunks (k {k} + m {m})"
    n = failure_domains(cmap, root, domain, cls or None)
    return None if n is None else Placement(copies, plan.min_size, n, domain, root, plan.pool_type != "replicated",
                                            named)


def check_placement(plan: PoolPlan, cmap: CrushMap | None, ec_root: str = "default") -> None:
    """Refuse a pool none of whose PGs could ever be active (fewer failure domains than min_size)."""
    where = placement(plan, cmap, ec_root)
    if where is not None and where.refusal():
        raise ValueError(where.refusal())


def warnings(plan: PoolPlan, cmap: CrushMap | None = None, ec_root: str = "default") -> list[str]:
    out = []
    where = placement(plan, cmap, ec_root)
    if where is not None and where.warning():
        out.append(where.warning())
    if plan.pool_type == "replicated":
        if plan.size == 1:
            out.append("size 1 keeps a single copy: any disk failure loses data (Ceph also asks for "
                       "mon_allow_pool_size_one).")
        elif plan.size == 2:
            out.append("size 2 keeps two copies: while one OSD is down or rebuilding, every write rests on a "
                       "single disk, and a second failure then loses data. Use 3 unless the data is disposable.")
        if plan.min_size == 1 and plan.size > 1:
            out.append("min_size 1 lets the pool accept writes with one copy left: a failure in that window "
                       "loses acknowledged writes. Keep min_size at 2.")
    elif plan.k_m is not None:
        k, m = plan.k_m
        if m == 1:
            out.append("m = 1 survives a single failure only; Ceph then sets min_size to k, so while a chunk "
                       "is missing, writes are accepted with no redundancy at all.")
    if plan.pool_type == "erasure" and plan.application in ("rbd", "cephfs"):
        out.append(f"{plan.application} on an erasure-coded pool needs allow_ec_overwrites (set below), and "
                   f"keeps its metadata in a replicated pool.")
    return out


def plan_ops(plan: PoolPlan) -> list[ops.Operation]:
    steps: list[ops.Operation] = []
    if plan.pool_type == "erasure":
        if plan.new_profile is not None:
            k, m, domain, cls = plan.new_profile
            steps.append(ops.ec_profile_set(plan.ec_profile, k, m, domain, cls))
        steps.append(ops.pool_create(plan.name, plan.pg_num, "erasure", ec_profile=plan.ec_profile,
                                     autoscale_mode=plan.autoscale_mode))
        if plan.application in ("rbd", "cephfs"):
            steps.append(ops.pool_set(plan.name, "allow_ec_overwrites", "true"))
    else:
        steps.append(ops.pool_create(plan.name, plan.pg_num, "replicated", rule=plan.rule,
                                     autoscale_mode=plan.autoscale_mode))
        steps.append(ops.pool_set(plan.name, "size", plan.size))
        steps.append(ops.pool_set(plan.name, "min_size", plan.min_size))
    if plan.application:
        steps.append(ops.pool_application_enable(plan.name, plan.application))
    # Every step acts on the pool just created, still empty: none of them moves data (a size or
    # pg_num change on an existing pool would).
    return [replace(op, impact=ops.SAFE) if op.impact == ops.MOVES_DATA else op for op in steps]


def undo_ops(done: Sequence[ops.Operation]) -> list[ops.Operation]:
    """Take back a partly created pool: delete the pool, then a profile made for it (newest first)."""
    out: list[ops.Operation] = []
    for op in reversed(done):
        if op.prefix == "osd pool create":
            out.append(ops.pool_delete(dict(op.args)["pool"]))
        elif op.prefix == "osd erasure-code-profile set":
            out.append(ops.ec_profile_remove(dict(op.args)["name"]))
    return out


# ------------------------------------------------------------------ the cluster's own defaults
AUTOSCALE_KEY = "osd_pool_default_pg_autoscale_mode"
TARGET_KEY = "mon_target_pg_per_osd"
NOAUTOSCALE_KEY = "mgr/pg_autoscaler/noautoscale"


@dataclass(frozen=True)
class ClusterDefaults:
    """What the cluster itself would choose for a new pool, and where each value was read."""

    autoscale_mode: str = "on"  # the Pacific default when nothing could be read
    autoscale_source: str = "Ceph's built-in default"
    target_pg_per_osd: int = 100  # mon_target_pg_per_osd as the mgr (the autoscaler) runs it
    noautoscale: bool = False  # `osd pool set noautoscale`: the autoscaler is paused for every pool
    problems: tuple[str, ...] = ()  # what could not be read, for the page


def _running(client: Any, who: str) -> dict[str, tuple[str, str]]:
    """`config show WHO`: the options a daemon runs with that differ from the defaults, name -> (value, source)."""
    return {str(o.get("name")): (str(o.get("value")), str(o.get("source")))
            for o in client.mgr("config show", who=who) or () if isinstance(o, dict)}


def read_defaults(client: Any) -> ClusterDefaults:
    """Read the defaults a new pool gets. Blocking (cluster calls): run it off the UI thread.

    The leader mon creates the pool with its *running* value of osd_pool_default_pg_autoscale_mode,
    which may come from its ceph.conf: `config get mon` (the config database) does not see that,
    `config show mon.LEADER` (answered by the mgr) does. Without a mgr, fall back to `config get`
    and say so.
    """
    problems: list[str] = []
    mode, source, target, paused = "on", "Ceph's built-in default", 100, False
    # `config show` and the noautoscale flag are answered by the mgr: without an active one, ask
    # nothing of it (a command to an absent mgr waits for the whole timeout at the mon).
    try:
        mgr = client.mon("mgr stat") or {}
        active = str(mgr.get("active_name") or "") if mgr.get("available") else ""
    except Exception as e:
        active = ""
        problems.append(f"could not read the mgr map: {e}")
    try:
        if not active:
            raise RuntimeError("no active mgr to answer `config show`")
        leader = str((client.mon("quorum_status") or {}).get("quorum_leader_name") or "")
        running = _running(client, f"mon.{leader}")
        if AUTOSCALE_KEY in running:
            mode, where = running[AUTOSCALE_KEY]
            source = f"mon.{leader}'s running config ({'its ceph.conf' if where == 'file' else where})"
        else:
            source = f"mon.{leader}'s running config (Ceph's default)"
        value = _running(client, f"mgr.{active}").get(TARGET_KEY)
        if value is not None:
            target = int(float(value[0]))
    except Exception as e:  # CephError, no mgr, an odd answer: fall back to the config database, say why
        try:
            out, _ = client.mon_raw("config get", who="mon", key=AUTOSCALE_KEY)
            mode = out.decode(errors="replace").strip().strip('"') or mode
            source = "the config database (`config get mon`; a value in the mons' ceph.conf is not visible there)"
        except Exception as e2:
            problems.append(f"could not read {AUTOSCALE_KEY}: {e2}")
        problems.append(f"could not read the running config: {e}")
    try:
        # The pg_autoscaler's own option (what `osd pool set noautoscale` sets), read from the config
        # database by the mon: `osd pool get noautoscale` would say the same, but Ceph files it as a
        # write command, which --read-only refuses.
        out, _ = client.mon_raw("config get", who="mgr", key=NOAUTOSCALE_KEY)
        paused = out.decode(errors="replace").strip().lower() == "true"
    except Exception:
        pass  # a release without the option: nothing is paused
    if mode not in ops.AUTOSCALE_MODES:
        problems.append(f"{AUTOSCALE_KEY} is '{mode}', which cephtui does not know; using on")
        mode = "on"
    return ClusterDefaults(mode, source, max(target, 1), paused, tuple(problems))
