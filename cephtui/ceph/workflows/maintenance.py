"""Host / OSD maintenance mode and the cluster flags: what to set, what to restore, and the state file.

Entering maintenance asks for a set of flags: `noout` scoped to the host (`osd
set-group noout HOST`) or to the chosen OSDs, and optionally cluster-wide
`noscrub`, `nodeep-scrub`, `norebalance`. Only the flags that are not already
set are set, and only those are *owned* by the maintenance: exiting unsets
exactly what it owns and leaves alone what someone else set. The record of each
maintenance lives in the cluster, like the removal queue (config-key
`cephtui/workflows/maintenance/<id>` through workflows.store, with who started it
from which host and a local cache): written before the commands run (so a cephtui
killed half-way still knows what it may have set), again with the outcome, and
again on exit, so any cephtui, on any host, sees it, can end it, and refuses a
removal of its OSDs. An older cephtui's `maintenance.json` is migrated once.

Flags are keyed like `FlagState`: (flag, scope) with scope "" for cluster-wide,
a CRUSH bucket name ("node2") for `set-group` on a host, "osd.3" for one OSD
and "class ssd" for a device class.

No Textual; the cluster is reached only through the store. The UI fetches `osd dump` / `osd tree`
and runs the operations through its confirm dialog.

This module: the flags, the target, the record and its store; maintenance_plan the commands to
enter and exit (and ok-to-stop, the operator's instructions); maintenance_banner the status-bar text.
"""
from __future__ import annotations

import json
import math
import re
import socket
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from cephtui.ceph.coerce import as_dict, as_int, as_list, as_str, as_strs, dicts
from cephtui.ceph.owner_only import replace_text
from cephtui.ceph.snapshot.models import ROUTINE_FLAGS, FlagState
from cephtui.ceph.workflows.store import WorkflowStore, origin
from cephtui.paths import state_dir

_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")  # what plan_enter makes: a file and a config-key name
KIND = "maintenance"  # the store's kind: cephtui/workflows/maintenance/<id>
STATE_FILE = "maintenance.json"  # where cephtui kept them before they lived in the cluster: migrated once
STATE_VERSION = 1
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
    by: str = ""  # user@host that started it, as the store recorded it ("" before it was stored)

    @property
    def starter(self) -> str:
        return self.by or self.user or "?"

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
        # osds, status, started and updated are the fields the store's conflict check and pruning read.
        return {
            "id": self.id, "fsid": self.fsid,
            "target": {"host": self.target.host, "osds": list(self.target.osds)},
            "osds": list(self.target.osds), "status": self.state, "started": self.started,
            "updated": max([self.started, *(s.time for s in self.steps)]),
            "state": self.state,
            "flags_set": [key_json(k) for k in self.set_by_it],
            "flags_kept": [key_json(k) for k in self.kept],
            "restore": [key_json(k) for k in self.owned],
            "started_at": iso_time(self.started), "started_ts": self.started,
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
                   steps=tuple(Step.from_json(s) for s in d.get("steps") or ()), by=origin(dict(d))[0])


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


# ------------------------------------------------------------------ the store

def read_legacy(path: Path) -> tuple[list[Maintenance], list[Maintenance], str]:
    """(active records, history, error) of an older cephtui's maintenance.json; error says why it could not
    be read (the file is then left alone, never overwritten)."""
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return [], [], ""
    except OSError as e:
        return [], [], f"cannot read {path}: {e.strerror or e}"
    try:
        data = json.loads(raw)
        records = [Maintenance.from_json(d) for d in data.get("maintenances") or ()]
        history = [Maintenance.from_json(d) for d in data.get("history") or ()]
    except (ValueError, KeyError, TypeError, AttributeError, OverflowError, RecursionError) as e:
        return [], [], f"{path} is not a cephtui state file ({e}); fix or move it away"
    return records, history, ""


@dataclass
class MaintenanceStore:
    """Maintenances in the cluster's workflow store (kind `maintenance`), colleagues' too.

    `load`, `put`, `drop` and `put_all` talk to the mons: call them off the UI thread. `records`
    (active) and `history` are replaced whole by `load`, so a reader on another thread sees one or the
    other list, never half of one. `put` raises WorkflowConflict for a new maintenance whose OSDs an
    unfinished removal (or another maintenance) holds, wherever it was started.
    """

    workflows: WorkflowStore
    legacy: Path = field(default_factory=default_state_path)
    records: list[Maintenance] = field(default_factory=list)
    history: list[Maintenance] = field(default_factory=list)
    error: str = ""  # records that could not be read (the legacy file, a damaged stored one): shown

    @property
    def problem(self) -> str:
        """Why the cluster's copy could not be used (cache only), or ''."""
        return self.workflows.problem

    def load(self) -> None:
        errors = [self._migrate()]
        records: list[Maintenance] = []
        history: list[Maintenance] = []
        for d in self.workflows.load_all(KIND):
            try:
                m = Maintenance.from_json(d)
            except (ValueError, KeyError, TypeError, AttributeError, OverflowError) as e:
                errors.append(f"maintenance record {str(d.get('id'))[:60]} could not be read ({e})")
                continue
            (records if m.active else history).append(m)
        history.sort(key=lambda m: m.ended or m.started)
        self.records, self.history = records, history
        self.error = "; ".join(e for e in errors if e)

    def _migrate(self) -> str:
        """Move this cluster's records of an older cephtui's maintenance.json into the store, once: the file
        keeps only other clusters' records, and is renamed to .migrated when none is left."""
        if not self.legacy.exists() or (self.workflows.in_cluster and not self.workflows.fsid()):
            return ""  # nothing to migrate, or not connected yet (whose records are ours is unknown)
        if self.workflows.client is not None and self.workflows.client.read_only:
            return ""  # --read-only writes nothing: a later cephtui that may write migrates them
        records, history, error = read_legacy(self.legacy)
        if error:
            return error
        fsid = self.workflows.fsid()
        mine = [m for m in records + history if not fsid or not m.fsid or m.fsid == fsid]
        odd = [m.id for m in mine if not _SAFE_ID.fullmatch(m.id)]
        if odd:  # an id that is no file or config-key name: hand-edited; the file stays as it is
            return (f"{self.legacy}: not migrated, record id {odd[0][:40]!r} is not one cephtui made; "
                    "fix or move it away")
        for m in mine:
            self.workflows.adopt(m.id)  # it exists already: no conflict check can refuse it
            data = m.to_json()
            data["_cephtui"] = {"started_by": f"{m.user or '?'}@{socket.gethostname()}",
                                "migrated_from": str(self.legacy)}
            self.workflows.save(KIND, m.id, data)
        rest = [m for m in records if m not in mine], [m for m in history if m not in mine]
        if rest[0] or rest[1]:
            replace_text(self.legacy, json.dumps({"version": STATE_VERSION, "maintenances": [
                r.to_json() for r in rest[0]], "history": [r.to_json() for r in rest[1]]}, indent=2) + "\n")
        else:
            self.legacy.rename(self.legacy.with_name(self.legacy.name + ".migrated"))
        return ""

    def active(self, fsid: str | None = None) -> list[Maintenance]:
        return [r for r in self.records if r.active and (fsid is None or not r.fsid or r.fsid == fsid)]

    def get(self, mid: str) -> Maintenance | None:
        return next((r for r in self.records if r.id == mid), None)

    def put(self, m: Maintenance) -> None:
        """Save (cache first, then the cluster); a finished maintenance moves to the history."""
        self.workflows.save(KIND, m.id, m.to_json())
        if not m.by:
            m = replace(m, by=self.workflows.me)
        others = [r for r in self.records if r.id != m.id]
        self.records = others + [m] if m.active else others
        if not m.active:
            self.history = [r for r in self.history if r.id != m.id] + [m]

    def drop(self, mid: str) -> None:
        """Forget a record that never took effect (cancelled before anything ran)."""
        self.workflows.delete(KIND, mid)
        self.records = [r for r in self.records if r.id != mid]

    def put_all(self, ms: Sequence[Maintenance]) -> None:
        for m in ms:
            if m != self.get(m.id):
                self.put(m)
