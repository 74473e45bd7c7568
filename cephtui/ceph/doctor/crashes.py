"""Crash reports (the mgr's crash module): `crash ls` grouped by daemon and by signature (the same bug crashing
again), which ones are new (not archived), and one report's backtrace (`crash info`)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cephtui.ceph.coerce import as_dict, as_list, as_str
from cephtui.ceph.doctor.model import FixOffer


@dataclass(frozen=True)
class Crash:
    crash_id: str  # "2026-11-24T04:05:08.123456Z_<uuid>": sorting by id sorts by time
    timestamp: str
    entity: str  # "osd.2"
    process: str = ""  # "ceph-osd"
    host: str = ""
    version: str = ""
    stack_sig: str = ""  # the module's hash of the backtrace: equal for the same bug
    archived: str = ""  # when it was archived, "" = new
    assert_condition: str = ""
    assert_func: str = ""

    @property
    def new(self) -> bool:
        return not self.archived

    @property
    def when(self) -> str:
        """`2026-11-24 04:05:08`: the timestamp to the second, for a table."""
        return self.timestamp[:19].replace("T", " ")

    @property
    def what(self) -> str:
        """One line on the cause when the report has one (a failed assert), else the process."""
        if self.assert_condition:
            return f"assert {self.assert_condition}" + (f" in {self.assert_func}" if self.assert_func else "")
        return self.process or self.entity


def parse_crash(d: Any) -> Crash:
    d = as_dict(d)
    return Crash(crash_id=as_str(d.get("crash_id")), timestamp=as_str(d.get("timestamp")),
                 entity=as_str(d.get("entity_name")), process=as_str(d.get("process_name")),
                 host=as_str(d.get("utsname_hostname")), version=as_str(d.get("ceph_version")),
                 stack_sig=as_str(d.get("stack_sig")), archived=as_str(d.get("archived")),
                 assert_condition=as_str(d.get("assert_condition")), assert_func=as_str(d.get("assert_func")))


def parse_crash_ls(d: Any) -> tuple[Crash, ...]:
    """`crash ls` JSON: newest first (the module sorts by id, oldest first)."""
    crashes = [parse_crash(x) for x in as_list(d) if isinstance(x, dict) and x.get("crash_id")]
    return tuple(sorted(crashes, key=lambda c: c.crash_id, reverse=True))


@dataclass(frozen=True)
class CrashGroup:
    """Reports with one signature: one bug, maybe on several daemons and hosts."""
    stack_sig: str  # "" for reports without a backtrace: each is its own group
    crashes: tuple[Crash, ...]  # newest first

    @property
    def key(self) -> str:
        return self.stack_sig or self.crashes[0].crash_id

    @property
    def daemons(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.entity for c in self.crashes))

    @property
    def hosts(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.host for c in self.crashes if c.host))

    @property
    def new(self) -> int:
        return sum(1 for c in self.crashes if c.new)

    @property
    def newest(self) -> Crash:
        return self.crashes[0]


def group_crashes(crashes: Sequence[Crash]) -> tuple[CrashGroup, ...]:
    """By signature, groups with new reports first, then newest first."""
    by_sig: dict[str, list[Crash]] = {}
    for c in crashes:
        by_sig.setdefault(c.stack_sig or c.crash_id, []).append(c)
    groups = [CrashGroup(stack_sig=cs[0].stack_sig,
                         crashes=tuple(sorted(cs, key=lambda c: c.crash_id, reverse=True))) for cs in by_sig.values()]
    groups.sort(key=lambda g: g.newest.crash_id, reverse=True)
    groups.sort(key=lambda g: g.new == 0)
    return tuple(groups)


def info_lines(d: Any) -> list[str]:
    """`crash info ID` as lines to read: who, where, what, then the backtrace."""
    d = as_dict(d)
    c = parse_crash(d)
    lines = [f"{c.entity} ({c.process}) on {c.host or '?'} at {c.when}, Ceph {c.version or '?'}",
             f"id {c.crash_id}", "archived " + c.archived if c.archived else "new (not archived)"]
    if c.assert_condition:
        lines.append(f"assert failed: {c.assert_condition}")
        for key in ("assert_func", "assert_file", "assert_line", "assert_thread_name", "assert_msg"):
            if d.get(key) not in (None, ""):
                lines.append(f"  {key.removeprefix('assert_')}: {as_str(d.get(key)).strip()}")
    if d.get("io_error"):
        lines.append(f"I/O error on {as_str(d.get('io_error_devname')) or 'a device'}: the disk, not Ceph")
    backtrace = [as_str(x) for x in as_list(d.get("backtrace"))]
    if backtrace:
        lines.append("backtrace:")
        lines.extend(f"  {x}" for x in backtrace)
    if c.stack_sig:
        lines.append(f"signature {c.stack_sig}")
    return lines


def short_sig(sig: str) -> str:
    return sig[:12] if sig else "(no backtrace)"


def new_crash_lines(crashes: Sequence[Crash]) -> list[str]:
    """The new (not archived) reports as the crash view groups them: by backtrace signature, then one line per
    report with its id, daemon, host and time. What RECENT_CRASH's own detail never says: which reports."""
    lines = []
    for g in group_crashes([c for c in crashes if c.new]):
        lines.append(f"signature {short_sig(g.stack_sig)}: {g.newest.what}, {len(g.crashes)} new on "
                     f"{', '.join(g.daemons)}")
        lines.extend(f"  {c.crash_id}  {c.entity} on {c.host or '?'} at {c.when}" for c in g.crashes)
    return lines


def crash_fix_offers(crashes: Sequence[Crash]) -> tuple[FixOffer, ...]:
    """For each new report, newest group first: read it, then archive it (which clears RECENT_CRASH once all are)."""
    offers = []
    for g in group_crashes([c for c in crashes if c.new]):
        for c in g.crashes:
            offers.append(FixOffer("crashes", f"Read and archive {c.entity}'s crash at {c.when} (signature "
                                   f"{short_sig(c.stack_sig)})", f"ceph crash info {c.crash_id}; "
                                   f"ceph crash archive {c.crash_id}", targets=(c.crash_id,)))
    return tuple(offers)


def crash_json(c: Crash) -> dict[str, str]:
    return {"id": c.crash_id, "daemon": c.entity, "host": c.host, "time": c.timestamp, "signature": c.stack_sig,
            "what": c.what, "version": c.version}
