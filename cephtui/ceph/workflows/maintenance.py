"""Host / OSD maintenance mode and the cluster flags: what to set, what to restore, and the state file.

Entering maintenance asks for a set of flags: `noout` scoped to the host (`osd
set-group noout HOST`) or to the chosen OSDs, and optionally cluster-wide
`noscrub`, `nodeep-scrub`, `norebalance`. Only the flags that are not already
set are set, and only those are *owned* by the maintenance: exiting unsets
exactly what it owns and leaves alone what someone else set. The record of each
maintenance is written to a JSON state file before the commands run (so a
cephtui killed half-way still knows what it may have set), again with the
outcome, and again on exit, so a restarted cephtui can restore the cluster.

Flags are keyed like `FlagState`: (flag, scope) with scope "" for cluster-wide,
a CRUSH bucket name ("node2") for `set-group` on a host, "osd.3" for one OSD
and "class ssd" for a device class.

Pure: no Textual, no cluster calls. The UI fetches `osd dump` / `osd tree`
and runs the operations through its confirm dialog.

This module: the flags, the target, the record and its state file; maintenance_plan the commands to
enter and exit (and ok-to-stop, the operator's instructions); maintenance_banner the status-bar text.
"""
from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from cephtui.ceph.coerce import as_dict, as_int, as_list, as_str, as_strs, dicts
from cephtui.ceph.private import replace_text
from cephtui.ceph.snapshot.models import ROUTINE_FLAGS, FlagState
from cephtui.paths import state_dir

STATE_FILE = "maintenance.json"
STATE_VERSION = 1
HISTORY_KEEP = 50
EXTRA_FLAGS = ("noscrub", "nodeep-scrub", "norebalance")  # cluster-wide flags a maintenance may add
DEFAULT_EXTRA = ("noscrub", "nodeep-scrub")
PER_OSD_FLAGS = ("noup", "nodown", "noin", "noout")

FlagKey = tuple[str, str]  # (flag, scope); scope "" = cluster-wide

# One line per cluster flag: what it does, and why you would (not) leave it on.
FLAG_HELP: dict[str, str] = {
    "pause": "stops ALL client reads and writes (pauserd+pausewr): the cluster looks hung to clients",
    "noup": "OSDs that start are not marked up: they stay out of service until unset",
    "nodown": "failed OSDs are not marked down: clients keep waiting on dead OSDs (hides failures)",
    "noout": "down OSDs are not marked out after mon_osd_down_out_interval: no re-replication (maintenance)",
    "noin": "OSDs that boot are not marked in: they get no data until marked in by hand",
    "nobackfill": "no backfill: PGs that need a full copy stay degraded/misplaced",
    "norebalance": "no backfill of merely misplaced PGs; degraded ones still recover",
    "norecover": "no recovery: degraded objects stay degraded (risk if another OSD fails)",
    "noscrub": "no new (shallow) scrubs: less IO during maintenance; errors are found later",
    "nodeep-scrub": "no new deep scrubs: less IO; bit rot is found later",
    "notieragent": "cache-tier agent stops flushing and evicting (cache pools only)",
    "nosnaptrim": "snapshot trimming stops: deleted snapshots keep using space",
}


# `osd set pause` sets both pauserd and pausewr, and the osdmap lists those two: shown as one `pause`.
PAUSE_PARTS = ("pauserd", "pausewr")
PAUSE_PARTIAL: dict[str, str] = {
    "pauserd": "only pauserd is set: client READS are stopped, writes go on. The ceph CLI cannot set it alone "
               "(`osd set pause` sets both), so another tool or an older release did; unsetting pause clears it",
    "pausewr": "only pausewr is set: client WRITES are stopped (reads go on), as if the cluster were full. The ceph "
               "CLI cannot set it alone (`osd set pause` sets both), so another tool or an older release did; "
               "unsetting pause clears it",
}
# Harmless first, the flags that stop IO, hide failures or stop recovery last: the flags table's cursor
# starts on the first row, and a stray key there must not reach pause.
FLAG_ORDER = ("noout", "noscrub", "nodeep-scrub", "norebalance", "nobackfill", "nosnaptrim", "notieragent",
              "norecover", "noin", "noup", "nodown", "pause")


def fold_pause(flags: Sequence[FlagState]) -> list[FlagState]:
    """Cluster-wide pauserd + pausewr become one `pause` (as `osd set pause` set them); a lone one stays."""
    parts = [f for f in flags if not f.scope and f.flag in PAUSE_PARTS]
    if len(parts) < 2:
        return list(flags)
    since = min(f.seen_since for f in parts)
    out = [f for f in flags if f not in parts]
    return [FlagState("pause", "", since), *out]


# ------------------------------------------------------------------ state directory

def default_state_path() -> Path:
    return state_dir() / STATE_FILE


# ------------------------------------------------------------------ flags now set

def flags_from_osd_dump(dump: Any) -> set[FlagKey]:
    """Every non-routine flag in an `osd dump`: cluster, CRUSH node, device class, per OSD.
    Lenient: a part of another shape (a list where an object was, a number for a name) is skipped."""
    d = as_dict(dump)
    raw = as_strs(d.get("flags_set")) or as_str(d.get("flags")).split(",")
    out: set[FlagKey] = {(f, "") for f in raw if f and f not in ROUTINE_FLAGS}
    for node, fl in as_dict(d.get("crush_node_flags")).items():
        out |= {(f, str(node)) for f in as_strs(fl)}
    for cls, fl in as_dict(d.get("device_class_flags")).items():
        out |= {(f, f"class {cls}") for f in as_strs(fl)}
    for o in dicts(d.get("osds")):
        out |= {(f, f"osd.{as_int(o.get('osd'))}") for f in as_strs(o.get("state")) if f in PER_OSD_FLAGS}
    return out


def _ids(v: Any) -> list[int]:
    return [i for i in as_list(v) if isinstance(i, int) and not isinstance(i, bool)]


def hosts_from_osd_tree(tree: Any) -> dict[str, tuple[int, ...]]:
    """Host name -> the OSD ids under it, from `osd tree` (nodes of type host)."""
    out: dict[str, tuple[int, ...]] = {}
    for n in dicts(as_dict(tree).get("nodes")):
        if n.get("type") == "host":
            out[as_str(n.get("name"), "?")] = tuple(sorted(c for c in _ids(n.get("children")) if c >= 0))
    return out


def osds_down(tree: Any, ids: Iterable[int]) -> tuple[int, ...]:
    want = set(ids)
    return tuple(sorted(i for n in dicts(as_dict(tree).get("nodes")) if n.get("type") == "osd"
                        and isinstance(i := n.get("id"), int) and i in want and n.get("status") != "up"))


def flag_label(key: FlagKey) -> str:
    flag, scope = key
    return f"{flag} on {scope}" if scope else flag


def who_of(scope: str) -> str:
    """The `who` argument of set-group/unset-group for a scope: a bucket, osd.N, or a class name."""
    return scope[len("class "):] if scope.startswith("class ") else scope


# ------------------------------------------------------------------ target

@dataclass(frozen=True)
class Target:
    host: str = ""  # "" when a set of OSDs was chosen
    osds: tuple[int, ...] = ()

    @property
    def label(self) -> str:
        return f"host {self.host}" if self.host else ", ".join(f"osd.{i}" for i in self.osds)

    @property
    def noout_scopes(self) -> tuple[str, ...]:
        return (self.host,) if self.host else tuple(f"osd.{i}" for i in self.osds)


_OSD_WORD = re.compile(r"^(?:osd\.)?([0-9]+)$")  # not \d: other scripts' digits are no OSD ids


def parse_target(text: str, hosts: Mapping[str, Sequence[int]]) -> Target:
    """A host name, or OSD ids ("1 2", "1,2", "osd.1 osd.2"). Raises ValueError with the reason."""
    text = text.strip()
    if not text:
        raise ValueError("give a host name or OSD ids (e.g. node2, or 3 4, or osd.3,osd.4)")
    if text in hosts:
        osds = tuple(hosts[text])
        if not osds:
            raise ValueError(f"host {text} has no OSDs")
        return Target(host=text, osds=osds)
    words = [w for w in re.split(r"[\s,]+", text) if w]
    ids: list[int] = []
    known = {i for v in hosts.values() for i in v}
    for w in words:
        m = _OSD_WORD.match(w)
        if not m or len(m.group(1)) > 9:  # int() refuses 4,300+ digits with a message that names no field
            names = ", ".join(sorted(hosts)[:8]) or "none found"
            raise ValueError(f"'{w}' is neither a host (known: {names}) nor an OSD id")
        i = int(m.group(1))
        if known and i not in known:
            raise ValueError(f"osd.{i} is not under any host in the CRUSH map")
        ids.append(i)
    return Target(osds=tuple(sorted(set(ids))))


def parse_extra_flags(text: str) -> tuple[str, ...]:
    words = [w for w in re.split(r"[\s,]+", text.strip()) if w and w.lower() not in ("none", "-")]
    bad = [w for w in words if w not in EXTRA_FLAGS]
    if bad:
        raise ValueError(f"flag '{bad[0]}' is not offered here (choose from {', '.join(EXTRA_FLAGS)}, or none)")
    return tuple(f for f in EXTRA_FLAGS if f in words)


# ------------------------------------------------------------------ the record

@dataclass(frozen=True)
class Step:
    time: float
    what: str  # "enter planned", "ran: ceph osd set noscrub", "refused: ... ", "exit done"
    ok: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"time": iso_time(self.time), "ts": self.time, "what": self.what, "ok": self.ok}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Step:
        return cls(as_timestamp(d.get("ts", 0.0)), str(d.get("what", "")), bool(d.get("ok", True)))


@dataclass(frozen=True)
class Maintenance:
    """One maintenance: what it asked for, what it set itself (restored at exit), and its history."""

    id: str
    fsid: str
    target: Target
    set_by_it: tuple[FlagKey, ...]  # what it set itself on entry (the record; never shrinks at exit)
    kept: tuple[FlagKey, ...]  # wanted but already set by someone else: left alone, now and at exit
    owned: tuple[FlagKey, ...]  # still to restore: exactly what exit unsets (empty once done)
    started: float
    user: str
    state: str = "entering"  # entering / active / exiting / done
    ended: float | None = None
    steps: tuple[Step, ...] = ()

    @property
    def wanted(self) -> tuple[FlagKey, ...]:
        """Every flag it needs set while it lasts."""
        return self.set_by_it + tuple(k for k in self.kept if k not in self.set_by_it)

    @property
    def active(self) -> bool:
        return self.state != "done"

    def log(self, what: str, ok: bool = True, now: float | None = None) -> Maintenance:
        return replace(self, steps=self.steps + (Step(time.time() if now is None else now, what, ok),))

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "fsid": self.fsid,
            "target": {"host": self.target.host, "osds": list(self.target.osds)},
            "state": self.state,
            "flags_set": [key_json(k) for k in self.set_by_it],
            "flags_kept": [key_json(k) for k in self.kept],
            "restore": [key_json(k) for k in self.owned],
            "started": iso_time(self.started), "started_ts": self.started,
            "ended": iso_time(self.ended) if self.ended is not None else None, "ended_ts": self.ended,
            "user": self.user,
            "steps": [s.to_json() for s in self.steps],
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Maintenance:
        t = d.get("target") or {}
        set_by_it = tuple(key_from(x) for x in d.get("flags_set") or ())
        kept = tuple(key_from(x) for x in d.get("flags_kept") or ())
        owned = tuple(key_from(x) for x in d["restore"]) if "restore" in d else set_by_it
        return cls(id=str(d["id"]), fsid=str(d.get("fsid", "")),
                   target=Target(str(t.get("host") or ""), tuple(int(i) for i in t.get("osds") or ())),
                   set_by_it=set_by_it, kept=kept, owned=owned,
                   started=as_timestamp(d.get("started_ts") or 0.0), user=str(d.get("user", "")),
                   state=str(d.get("state", "active")),
                   ended=as_timestamp(d["ended_ts"]) if d.get("ended_ts") is not None else None,
                   steps=tuple(Step.from_json(s) for s in d.get("steps") or ()))


def as_timestamp(v: Any) -> float:
    """A timestamp from the state file; ValueError (reported by MaintenanceStore.load) for one that is
    not a time, e.g. 1e400 or 10**400: time.localtime() would raise on it in the banner later."""
    try:
        t = float(v)
    except (TypeError, OverflowError):
        raise ValueError(f"{str(v)[:40]!r} is not a timestamp") from None
    if not math.isfinite(t) or abs(t) > 1e11:
        raise ValueError(f"{t!r} is not a timestamp")
    return t


def key_json(k: FlagKey) -> dict[str, str]:
    return {"flag": k[0], "scope": k[1]}


def key_from(x: Any) -> FlagKey:
    if isinstance(x, Mapping):
        return (str(x.get("flag", "")), str(x.get("scope", "")))
    return (str(x), "")


def clock_time(ts: float, now: float | None = None) -> str:
    """HH:MM today, else "Mon DD HH:MM" (local time)."""
    now = time.time() if now is None else now
    lt, ln = time.localtime(ts), time.localtime(now)
    if (lt.tm_year, lt.tm_yday) == (ln.tm_year, ln.tm_yday):
        return time.strftime("%H:%M", lt)
    return time.strftime("%b %d %H:%M", lt)


def iso_time(ts: float | None) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(ts)) if ts is not None else ""


# ------------------------------------------------------------------ the state file

@dataclass
class MaintenanceStore:
    """The JSON state file: active maintenances and a short history, rewritten atomically on each change."""

    path: Path = field(default_factory=default_state_path)
    records: list[Maintenance] = field(default_factory=list)
    history: list[Maintenance] = field(default_factory=list)
    error: str = ""  # the file exists but could not be read: shown, and never overwritten silently

    @classmethod
    def open(cls, path: Path | None = None) -> MaintenanceStore:
        store = cls(path or default_state_path())
        store.load()
        return store

    def load(self) -> None:
        self.error = ""
        try:
            raw = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            self.records, self.history = [], []
            return
        except OSError as e:
            self.error = f"cannot read {self.path}: {e.strerror or e}"
            return
        try:
            data = json.loads(raw)
            self.records = [Maintenance.from_json(d) for d in data.get("maintenances") or ()]
            self.history = [Maintenance.from_json(d) for d in data.get("history") or ()]
        except (ValueError, KeyError, TypeError, AttributeError, OverflowError, RecursionError) as e:
            self.error = f"{self.path} is not a cephtui state file ({e}); fix or move it away"

    def save(self) -> None:
        if self.error:
            raise OSError(self.error)
        data = {"version": STATE_VERSION, "maintenances": [r.to_json() for r in self.records],
                "history": [r.to_json() for r in self.history[-HISTORY_KEEP:]]}
        replace_text(self.path, json.dumps(data, indent=2) + "\n")

    def active(self, fsid: str | None = None) -> list[Maintenance]:
        return [r for r in self.records if r.active and (fsid is None or not r.fsid or r.fsid == fsid)]

    def get(self, mid: str) -> Maintenance | None:
        return next((r for r in self.records if r.id == mid), None)

    def _reread(self) -> None:
        """Pick up what another cephtui wrote meanwhile, so a write of ours does not drop its records."""
        if self.error:
            raise OSError(self.error)
        self.load()
        if self.error:
            raise OSError(self.error)

    def put(self, m: Maintenance) -> None:
        """Insert or replace by id; a finished maintenance moves to the history. Saves."""
        self._reread()
        self.records = [r for r in self.records if r.id != m.id]
        if m.active:
            self.records.append(m)
        else:
            self.history = [r for r in self.history if r.id != m.id] + [m]
        self.save()

    def drop(self, mid: str) -> None:
        """Forget a record that never took effect (cancelled before anything ran)."""
        self._reread()
        self.records = [r for r in self.records if r.id != mid]
        self.save()

    def put_all(self, ms: Sequence[Maintenance]) -> None:
        self._reread()
        by_id = {m.id: m for m in ms}
        self.records = [by_id.get(r.id, r) for r in self.records]
        self.save()
