"""The CRUSH map as frozen dataclasses, parsed from `osd crush dump` (+ `osd dump`), and
validators that refuse what the monitors would refuse, with the reason, before anything is sent.

Tolerant of release differences: keys may be missing (Squid drops `ruleset`, adds `msr_*`
rule types and steps); unknown step ops are shown with their raw fields.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from cephtui.ceph.coerce import as_dict, as_str, dicts
from cephtui.ceph.validate import check_name

FIXED = 0x10000  # the dump gives weights as 16.16 fixed point
RULE_TYPES = {1: "replicated", 3: "erasure", 5: "msr_firstn", 6: "msr_indep"}


@dataclass(frozen=True)
class CrushDevice:
    id: int
    name: str
    device_class: str | None = None


@dataclass(frozen=True)
class CrushItem:
    id: int
    name: str
    weight: float


@dataclass(frozen=True)
class CrushBucket:
    id: int
    name: str
    type_name: str
    type_id: int
    alg: str
    hash: str
    weight: float
    items: tuple[CrushItem, ...] = ()
    shadow_of_class: str | None = None  # "hdd" for the per-class shadow copy "default~hdd"

    @property
    def is_shadow(self) -> bool:
        return self.shadow_of_class is not None


@dataclass(frozen=True)
class CrushRule:
    id: int
    name: str
    type: str  # replicated / erasure (msr_firstn / msr_indep on Squid)
    min_size: int
    max_size: int
    steps: tuple[str, ...]  # "take default class hdd", "chooseleaf firstn 0 type host", "emit"
    root: str | None = None  # the real bucket of the first take step
    failure_domain: str | None = None  # the highest type a choose step separates by
    device_class: str | None = None
    pools: tuple[str, ...] = ()


@dataclass(frozen=True)
class ECProfile:
    name: str
    k: int | None
    m: int | None
    plugin: str
    failure_domain: str  # crush-failure-domain; Ceph's default is host
    device_class: str | None
    raw: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class CrushPool:
    id: int
    name: str
    rule_id: int
    size: int
    type: str  # replicated / erasure
    ec_profile: str = ""


@dataclass(frozen=True)
class CrushMap:
    devices: tuple[CrushDevice, ...]
    types: tuple[tuple[int, str], ...]  # (type_id, name), ascending
    buckets: tuple[CrushBucket, ...]
    rules: tuple[CrushRule, ...]
    ec_profiles: tuple[ECProfile, ...] = ()
    tunables_profile: str = ""
    tunables: tuple[tuple[str, Any], ...] = ()
    classes: tuple[str, ...] = ()
    pools: tuple[CrushPool, ...] = ()
    _by_name: dict[str, CrushBucket] = field(default_factory=dict, init=False, repr=False, compare=False)
    _parent: dict[str, str] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Indexes for the helpers; the parent map only follows the real (non-shadow) tree.
        self._by_name.update({b.name: b for b in self.buckets})
        for b in self.buckets:
            if not b.is_shadow:
                for it in b.items:
                    self._parent.setdefault(it.name, b.name)

    def bucket(self, name: str) -> CrushBucket | None:
        return self._by_name.get(name)

    def device(self, name: str) -> CrushDevice | None:
        return next((d for d in self.devices if d.name == name), None)

    def parent_of(self, name: str) -> CrushBucket | None:
        p = self._parent.get(name)
        return self._by_name.get(p) if p else None

    def descendants(self, name: str, _above: frozenset[str] = frozenset()) -> tuple[str, ...]:
        """Every item (buckets and devices) below `name`, depth first."""
        out: list[str] = []
        b = self.bucket(name)
        above = _above | {name}
        for it in (b.items if b else ()):
            if it.name in above:  # a damaged map listing a bucket inside itself: not an endless walk
                continue
            out.append(it.name)
            out += self.descendants(it.name, above)
        return tuple(out)

    def location_of(self, name: str) -> list[tuple[str, str]]:
        """[(type, bucket), ...] from the direct parent up to the root, the form ops take."""
        out: list[tuple[str, str]] = []
        seen = {name}
        p = self.parent_of(name)
        while p is not None and p.name not in seen:
            out.append((p.type_name, p.name))
            seen.add(p.name)
            p = self.parent_of(p.name)
        return out

    def real_buckets(self) -> tuple[CrushBucket, ...]:
        return tuple(b for b in self.buckets if not b.is_shadow)

    def roots(self) -> tuple[CrushBucket, ...]:
        return tuple(b for b in self.real_buckets() if b.name not in self._parent)

    def rule(self, name: str) -> CrushRule | None:
        return next((r for r in self.rules if r.name == name), None)

    def pools_using_rule(self, name: str) -> tuple[str, ...]:
        r = self.rule(name)
        return r.pools if r else ()

    def item_id(self, name: str) -> int | None:
        b = self.bucket(name)
        if b is not None:
            return b.id
        d = self.device(name)
        return d.id if d else None

    def item_name(self, item_id: int) -> str | None:
        for b in self.buckets:
            if b.id == item_id:
                return b.name
        return next((d.name for d in self.devices if d.id == item_id), None)

    def type_id(self, type_name: str) -> int | None:
        return next((i for i, n in self.types if n == type_name), None)

    def type_of(self, name: str) -> tuple[int, str] | None:
        """(type_id, type_name) of a bucket or device."""
        b = self.bucket(name)
        if b is not None:
            return b.type_id, b.type_name
        if self.device(name) is not None:
            return 0, self.types[0][1] if self.types else "osd"
        return None

    def ec_profile(self, name: str) -> ECProfile | None:
        return next((p for p in self.ec_profiles if p.name == name), None)


# ------------------------------------------------------------------ parsing

def _int(v: Any, default: int = 0) -> int:
    try:
        return int(v)
    except (TypeError, ValueError, OverflowError):  # OverflowError: int(inf)
        return default


def _step_text(s: dict[str, Any], names: dict[int, str]) -> str:
    op = as_str(s.get("op"), "?")
    if op == "take":
        name = as_str(s.get("item_name")) or names.get(_int(s.get("item"))) or as_str(s.get("item"), "?")
        base, _, cls = name.partition("~")
        return f"take {base} class {cls}" if cls else f"take {base}"
    if op == "emit" or op == "noop":
        return op
    for prefix in ("chooseleaf", "choose"):  # choose_firstn -> "choose firstn 0 type osd"
        if op.startswith(prefix + "_"):
            return f"{prefix} {op[len(prefix) + 1:]} {_int(s.get('num'))} type {as_str(s.get('type'), '?')}"
    if op == "choosemsr":  # Squid MSR rules
        return f"choosemsr {_int(s.get('num'))} type {as_str(s.get('type'), '?')}"
    if op.startswith("set_"):
        return f"{op} {s.get('num', s.get('arg1', ''))}".strip()
    extra = " ".join(f"{k}={v}" for k, v in s.items() if k != "op")
    return f"{op} {extra}".strip()


def _failure_domain(steps: list[dict[str, Any]], type_ids: dict[str, int]) -> str | None:
    # Like CrushWrapper::get_rule_failure_domain: the highest type any choose step separates by.
    best: str | None = None
    for s in steps:
        op = as_str(s.get("op"))
        if op.startswith("choose") and "type" in s:
            t = as_str(s["type"], "?")
            if best is None or type_ids.get(t, 0) > type_ids.get(best, 0):
                best = t
    return best


def parse_crush(crush_dump: Any, osd_dump: Any = None) -> CrushMap:
    """Any shape: entries that are not objects are skipped, fields of another type fall back to defaults."""
    d = as_dict(crush_dump)
    devices = tuple(CrushDevice(_int(x.get("id")), as_str(x.get("name")) or f"osd.{_int(x.get('id'))}",
                                as_str(x.get("class")) or None)
                    for x in dicts(d.get("devices")))
    types = tuple(sorted((_int(t.get("type_id")), as_str(t.get("name"))) for t in dicts(d.get("types"))))
    type_ids = {n: i for i, n in types}
    names: dict[int, str] = {dev.id: dev.name for dev in devices}
    raw_buckets = dicts(d.get("buckets"))
    names.update({_int(b.get("id")): as_str(b.get("name")) for b in raw_buckets})
    type_names = {i: n for i, n in types}
    buckets = []
    for b in raw_buckets:
        name = as_str(b.get("name"))
        tid = _int(b.get("type_id"))
        items = tuple(CrushItem(_int(it.get("id")), names.get(_int(it.get("id")), as_str(it.get("id"), "?")),
                                _int(it.get("weight")) / FIXED) for it in dicts(b.get("items")))
        buckets.append(CrushBucket(
            id=_int(b.get("id")), name=name, type_name=as_str(b.get("type_name")) or type_names.get(tid, ""),
            type_id=tid, alg=as_str(b.get("alg")), hash=as_str(b.get("hash")),
            weight=_int(b.get("weight")) / FIXED, items=items,
            shadow_of_class=name.partition("~")[2] or None))

    pools: list[CrushPool] = []
    profiles: list[ECProfile] = []
    dump = as_dict(osd_dump)
    for p in dicts(dump.get("pools")):
        pools.append(CrushPool(_int(p.get("pool")), as_str(p.get("pool_name")), _int(p.get("crush_rule", -1), -1),
                               _int(p.get("size")), "erasure" if _int(p.get("type")) == 3 else "replicated",
                               as_str(p.get("erasure_code_profile"))))
    for pname, prof in sorted(as_dict(dump.get("erasure_code_profiles")).items()):
        prof = {str(k): as_str(v) for k, v in as_dict(prof).items()}
        k, m = prof.get("k"), prof.get("m")
        profiles.append(ECProfile(
            name=str(pname), k=_int(k) if k and k.isascii() and k.isdigit() else None,
            m=_int(m) if m and m.isascii() and m.isdigit() else None,
            plugin=prof.get("plugin") or "jerasure", failure_domain=prof.get("crush-failure-domain") or "host",
            device_class=prof.get("crush-device-class") or None, raw=tuple(sorted(prof.items()))))

    rules = []
    for r in dicts(d.get("rules")):
        steps = dicts(r.get("steps"))
        take = next((s for s in steps if s.get("op") == "take"), None)
        root = cls = None
        if take is not None:
            tname = as_str(take.get("item_name")) or names.get(_int(take.get("item")), "")
            root, _, c = tname.partition("~")
            cls = c or None
        rid = _int(r.get("rule_id"))
        rtype = _int(r.get("type"), 1)
        rules.append(CrushRule(
            id=rid, name=as_str(r.get("rule_name")) or f"rule{rid}", type=RULE_TYPES.get(rtype, f"type {rtype}"),
            min_size=_int(r.get("min_size"), 1), max_size=_int(r.get("max_size"), 10),
            steps=tuple(_step_text(s, names) for s in steps), root=root or None,
            failure_domain=_failure_domain(steps, type_ids), device_class=cls,
            pools=tuple(p.name for p in pools if p.rule_id == rid)))

    tun = as_dict(d.get("tunables"))
    classes = sorted({x.device_class for x in devices if x.device_class}
                     | {b.shadow_of_class for b in buckets if b.shadow_of_class})
    return CrushMap(devices=devices, types=types, buckets=tuple(buckets), rules=tuple(rules),
                    ec_profiles=tuple(profiles), tunables_profile=as_str(tun.get("profile")),
                    tunables=tuple((str(k), v) for k, v in tun.items() if k != "profile"),
                    classes=tuple(classes), pools=tuple(pools))


# ------------------------------------------------------------------ validators
# Each returns None when Ceph would accept, else raises ValueError saying why.

def _exists(cmap: CrushMap, name: str) -> bool:
    return cmap.bucket(name) is not None or cmap.device(name) is not None


def _real_bucket(cmap: CrushMap, name: str, what: str) -> CrushBucket:
    b = cmap.bucket(name)
    if b is None:
        if cmap.device(name) is not None:
            raise ValueError(f"{name} is a device, not a bucket")
        raise ValueError(f"{what} {name} does not exist")
    if b.is_shadow:
        raise ValueError(f"{name} is a device-class shadow bucket that Ceph maintains itself; use {name.split('~')[0]}")
    return b


def _known_type(cmap: CrushMap, type_name: str, what: str = "type") -> int:
    tid = cmap.type_id(type_name)
    if tid is None:
        raise ValueError(f"unknown {what} '{type_name}' (known: {', '.join(n for _, n in cmap.types)})")
    return tid


def _known_class(cmap: CrushMap, cls: str) -> None:
    if cls not in cmap.classes:
        known = ", ".join(cmap.classes) or "none"
        raise ValueError(f"device class '{cls}' does not exist (known: {known})")


def check_add_bucket(cmap: CrushMap, name: str, type_: str, parent: str | None = None) -> None:
    name = check_name(name, "bucket name")
    if _exists(cmap, name):
        raise ValueError(f"an item named {name} already exists")
    tid = _known_type(cmap, type_, "bucket type")
    if tid == 0:
        raise ValueError(f"'{type_}' is the device type; a bucket needs a higher type")
    if parent:
        p = _real_bucket(cmap, parent, "parent bucket")
        if p.type_id <= tid:
            raise ValueError(f"a {type_} cannot go under {p.type_name} {p.name}: the parent's type must be higher")


def check_move(cmap: CrushMap, name: str, dest: str) -> None:
    t = cmap.type_of(name)
    if t is None:
        raise ValueError(f"item {name} does not exist")
    b = cmap.bucket(name)
    if b is not None and b.is_shadow:
        raise ValueError(f"{name} is a device-class shadow bucket; move the real bucket instead")
    d = _real_bucket(cmap, dest, "destination")
    if dest == name or dest in cmap.descendants(name):
        raise ValueError(f"cannot move {name} under itself or one of its own descendants ({dest})")
    if d.type_id <= t[0]:
        raise ValueError(f"cannot put {t[1]} {name} under {d.type_name} {dest}: the destination's type must be higher")
    p = cmap.parent_of(name)
    if p is not None and p.name == dest:
        raise ValueError(f"{name} is already under {dest}")


def check_rename(cmap: CrushMap, src: str, dst: str) -> None:
    _real_bucket(cmap, src, "bucket")
    dst = check_name(dst, "new name")
    if dst == src:
        raise ValueError("the new name is the same as the old one")
    if _exists(cmap, dst):
        raise ValueError(f"an item named {dst} already exists")
    if "~" in dst:
        raise ValueError("'~' is reserved for device-class shadow buckets")


def check_remove_bucket(cmap: CrushMap, name: str) -> None:
    b = _real_bucket(cmap, name, "bucket")
    if b.items:
        raise ValueError(f"bucket {name} is not empty ({len(b.items)} items); Ceph refuses with ENOTEMPTY. "
                         f"Move or remove its items first")
    users = [r.name for r in cmap.rules if r.root == name]
    if users:
        raise ValueError(f"bucket {name} is used by rule{'s' if len(users) > 1 else ''} {', '.join(users)} "
                         f"(take step); remove or change the rule first")


def check_rule_create(cmap: CrushMap, name: str, root: str, failure_domain: str, device_class: str = "") -> None:
    name = check_name(name, "rule name")
    if cmap.rule(name) is not None:
        raise ValueError(f"rule {name} already exists")
    _real_bucket(cmap, root, "root")
    _known_type(cmap, failure_domain, "failure domain type")
    if device_class:
        _known_class(cmap, device_class)
        # Ceph only needs the shadow bucket root~class to exist; it exists empty for every class,
        # which would make a rule that maps nothing. Refuse that too.
        under = set(cmap.descendants(root))
        if not any(d.device_class == device_class and d.name in under for d in cmap.devices):
            raise ValueError(f"root {root} has no devices with class {device_class}")


def check_rule_remove(cmap: CrushMap, name: str) -> None:
    r = cmap.rule(name)
    if r is None:
        raise ValueError(f"rule {name} does not exist")
    if r.pools:
        raise ValueError(f"rule {name} is in use by pool{'s' if len(r.pools) > 1 else ''} {', '.join(r.pools)} "
                         f"(Ceph refuses with EBUSY); give those pools another rule first")


def check_ec_profile(cmap: CrushMap, name: str, failure_domain: str = "host", device_class: str = "",
                     root: str = "default", force: bool = False) -> None:
    name = check_name(name, "profile name")
    if cmap.ec_profile(name) is not None and not force:
        raise ValueError(f"erasure-code profile {name} already exists (Ceph refuses to change it without --force)")
    _known_type(cmap, failure_domain, "failure domain type")
    if device_class:
        _known_class(cmap, device_class)
    if root:
        _real_bucket(cmap, root, "root")


def iter_tree(cmap: CrushMap) -> Iterator[tuple[int, str]]:
    """(depth, name) for the real hierarchy, roots first, in map order: handy for tree views."""
    def walk(name: str, depth: int, above: frozenset[str]) -> Iterator[tuple[int, str]]:
        yield depth, name
        b = cmap.bucket(name)
        for it in (b.items if b else ()):
            if it.name not in above:  # cycles only come from damaged maps; skip rather than recurse forever
                yield from walk(it.name, depth + 1, above | {it.name})
    for r in cmap.roots():
        yield from walk(r.name, 0, frozenset({r.name}))
