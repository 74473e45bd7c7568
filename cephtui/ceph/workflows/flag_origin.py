"""Who set each cluster flag, and when: from durable sources only, never from this process's memory, so a
restarted cephtui (or another one) says the same.

- When: the osdmap history. Each osdmap epoch carries its flags and the time it was made (`modified`), and
  the mons keep the last several hundred epochs (mon_min_osdmap_epochs, 500 by default): the first epoch
  of the flag's current run is when it was set. A flag set before the oldest epoch kept reads "before"
  that epoch's time.
- Who: this host's audit log (cephtui's own commands, with the operator's login), then the mons' audit
  channel (`log last`, every client, the ceph CLI included: entity and address), then that same channel as
  the mons write it to a file on their host (/var/log/ceph/ceph.audit.log: cluster_log_file). Pacific's
  `log last` keeps only the last mon_log_max_summary (50 by default) entries, and every read command is
  one, so on a busy cluster it reaches back seconds; the file reaches back to its last rotation, and is
  read only around the time the osdmap says the flag was set. A setter in none of them is honestly
  unknown, with what was looked at.

Cluster calls: run off the UI thread (the Maintenance pane's worker). A maintenance record that owns a
flag names its setter better still; the pane puts that first (maintenance records are in the cluster too).
"""
from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from cephtui.ceph.coerce import as_dict, as_int, as_list
from cephtui.ceph.workflows import cluster_log_file
from cephtui.ceph.workflows.maintenance import PAUSE_PARTS, FlagKey, clock_time, flags_from_osd_dump, who_of

AUDIT_TAIL = 1000  # entries asked of `log last` (the mons return what they keep: 50 on Pacific's defaults)
LOCAL_TAIL_BYTES = 2 << 20  # of this host's audit log, from its end
EXACT_EPOCHS = 8  # the newest epochs searched one by one (OsdmapHistory.set_since)
MATCH_WINDOW = 60.0  # s: an audit entry this close to the epoch that set the flag is taken as its setter
EPOCH_CACHE = 512  # osdmaps never change: cached by epoch, this many at most


@dataclass(frozen=True)
class FlagOrigin:
    """When a flag was set (or the latest it can have been) and by whom, with where that came from."""

    since: float | None = None  # when it was set
    before: float | None = None  # unknown when, but no later than this (the oldest record the mons keep)
    who: str = ""  # "alice@mon1 (cephtui)", "client.admin at 127.0.0.1", ""
    why_unknown: str = ""  # what was looked at when `who` is ""
    via: str = ""  # where `who` was found, for the dialogs
    audit_from: float | None = None  # `who` unknown and no audit log file: the oldest entry `log last` keeps

    def who_text(self, now: float | None = None) -> str:
        """For the flags table's narrow column: the setter, or how far back the audit logs looked."""
        if self.who:
            return self.who
        return f"unknown (audit kept ≥{clock_time(self.audit_from, now)})" if self.audit_from is not None else "unknown"

    def when_text(self, now: float | None = None) -> str:
        if self.since is not None:
            return clock_time(self.since, now)
        if self.before is not None:
            return "before " + clock_time(self.before, now)
        return "?"

    def describe(self, now: float | None = None) -> str:
        """One sentence for dialogs and the summary."""
        when = (f"set at {clock_time(self.since, now)} (osdmap)" if self.since is not None else
                f"set before {clock_time(self.before, now)}, the oldest osdmap the mons keep"
                if self.before is not None else "set at an unknown time")
        if not self.who:
            return f"{when}; setter unknown: {self.why_unknown}"
        return f"{when}, by {self.who}" + (f" ({self.via})" if self.via else "")


# ------------------------------------------------------------------ which command sets or unsets a flag

def effect(cmd: Mapping[str, Any], key: FlagKey) -> bool | None:
    """True when `cmd` (a mon command's JSON) sets flag `key`, False when it unsets it, None when unrelated."""
    flag, scope = key
    prefix = str(cmd.get("prefix", ""))
    if prefix in ("osd set", "osd unset"):
        k = str(cmd.get("key", ""))
        hit = not scope and (k == flag or (k == "pause" and flag in PAUSE_PARTS))
        return (prefix == "osd set") if hit else None
    if prefix in ("osd set-group", "osd unset-group"):
        flags = str(cmd.get("flags", "")).split(",")
        who = cmd.get("who")
        whos = [str(w) for w in (who if isinstance(who, list) else [who])]
        return (prefix == "osd set-group") if scope and flag in flags and who_of(scope) in whos else None
    m = re.fullmatch(r"osd (add|rm)-(noout|noin|noup|nodown)", prefix)
    if m and scope.startswith("osd.") and m.group(2) == flag:
        ids = [str(i) for i in as_list(cmd.get("ids"))]
        return (m.group(1) == "add") if scope in ids or scope[4:] in ids else None
    return None


@dataclass(frozen=True)
class AuditEntry:
    time: float
    who: str
    command: Mapping[str, Any]
    via: str = ""


_MON_AUDIT = re.compile(r"from='(?P<frm>[^']*)' entity='(?P<entity>[^']*)' cmd='?(?P<cmd>[\[{].*[\]}])'?\s*: "
                        r"(?P<phase>dispatch|finished)")


def stamp(text: str) -> float | None:
    """A mon timestamp ("2026-11-27T20:31:05.123471+0000") or an audit log time, as epoch seconds."""
    for fmt in ("%Y-%m-%dT%H:%M:%S.%f%z", "%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%d %H:%M:%S.%f"):
        try:
            return datetime.strptime(text, fmt).timestamp()
        except (ValueError, TypeError):
            continue
    return None


def mon_audit(log: Any) -> tuple[list[AuditEntry], float | None]:
    """The mons' audit channel as `log last` returns it: its commands (dispatched or finished), and the time of
    the oldest entry kept (None when it keeps none)."""
    out: list[AuditEntry] = []
    oldest: float | None = None
    for e in as_list(log):
        e = as_dict(e)
        t = stamp(str(e.get("stamp", "")))
        if t is None:
            continue
        oldest = t if oldest is None else min(oldest, t)
        m = _MON_AUDIT.search(str(e.get("message", "")))
        if not m:  # a dispatch counts too: its `finished` reaches `log last` a moment later, and only a command
            continue  # that changed the osdmap can sit next to the epoch that set the flag
        try:
            cmd = json.loads(m.group("cmd"))
        except ValueError:
            continue
        cmd = cmd[0] if isinstance(cmd, list) and cmd else cmd
        if isinstance(cmd, dict):
            addr = m.group("frm").split(" ")[-1].split(":")[0]
            out.append(AuditEntry(t, f"{m.group('entity')} at {addr}", cmd,
                                  "from the mons' audit log: the ceph CLI or another client"))
    return out, oldest


_FILE_LINE = re.compile(r"^(?P<stamp>\S+) \S+ \(\S+\) \d+ : audit \[\w+\] (?P<message>.*)$")


def file_audit(lines: Iterable[str], path: Path) -> list[AuditEntry]:
    """The commands in lines of the mons' audit log file, as `mon_audit` reads `log last`: the file's lines
    carry the same message after "STAMP mon.a (mon.0) SEQ : audit [INF] ". Other channels and lines skipped."""
    out = []
    for line in lines:
        if '"osd ' not in line:  # only osd commands set flags: most lines (reads) skipped before any parsing
            continue
        m = _FILE_LINE.match(line.strip())
        if not m:
            continue
        found, _ = mon_audit([{"stamp": m.group("stamp"), "message": m.group("message")}])
        out += [AuditEntry(e.time, e.who, e.command, f"from the mons' audit log file {path}: the ceph CLI or "
                           "another client") for e in found]
    return out


def local_audit(path: Path, fsid: str) -> list[AuditEntry]:
    """This host's cephtui audit log (JSON lines): its commands the mons accepted, on this cluster."""
    try:
        with path.open("rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - LOCAL_TAIL_BYTES))
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return []
    host = socket.gethostname()
    out = []
    for line in lines:
        try:
            d = json.loads(line)
        except ValueError:
            continue
        if not isinstance(d, dict) or not d.get("ok") or not isinstance(d.get("command"), dict):
            continue
        if fsid and d.get("fsid") and d.get("fsid") != fsid:
            continue
        t = stamp(str(d.get("time", "")))
        if t is not None:
            out.append(AuditEntry(t, f"{d.get('user') or '?'}@{host} (cephtui)", d["command"],
                                  "from this host's cephtui audit log"))
    return out


# ------------------------------------------------------------------ when: the osdmap history

def flag_keys(dump: Any) -> frozenset[FlagKey]:
    """The flags of an `osd dump`, with pauserd+pausewr also as `pause` (as the flags manager shows it)."""
    keys = flags_from_osd_dump(dump)
    if all((p, "") in keys for p in PAUSE_PARTS):
        keys.add(("pause", ""))
    return frozenset(keys)


class OsdmapHistory:
    """Flags and time of past osdmap epochs (`osd dump EPOCH`), cached: an epoch never changes."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self._epochs: dict[int, tuple[frozenset[FlagKey], float] | None] = {}

    def at(self, epoch: int) -> tuple[frozenset[FlagKey], float] | None:
        """(flags, modified) of `epoch`, or None when the mons no longer keep it."""
        if epoch in self._epochs:
            return self._epochs[epoch]
        from cephtui.ceph.errors import CephError
        try:
            d = as_dict(self.client.mon("osd dump", epoch=epoch))
        except CephError as e:
            if e.errno != 2:  # ENOENT: trimmed; anything else is not an answer about this epoch
                raise
            found = None
        else:
            t = stamp(str(d.get("modified", "")))
            found = (flag_keys(d), t) if t is not None else None
        if len(self._epochs) >= EPOCH_CACHE:
            self._epochs.pop(next(iter(self._epochs)))
        self._epochs[epoch] = found
        return found

    def set_since(self, key: FlagKey, epoch: int) -> tuple[float | None, float | None]:
        """(since, before) for a flag set at `epoch`: the time of the first epoch of its current run; or, when
        every epoch kept has it, (None, the time of the oldest one kept). Back one epoch at a time over the
        newest EXACT_EPOCHS (a flag unset and set again in a few epochs, as maintenance entered twice does, is
        told apart), then galloping and halving: O(log n) maps, each asked once. A flag unset and set again
        between two probes further back is taken as one run. (None, None) when the flag is not set at `epoch`
        itself: a flag the caller saw set that this epoch does not hold yet (its commit came a moment later) has
        no time here, never the time of the epoch after some earlier unset."""
        now = self.at(epoch)
        if now is None or key not in now[0]:
            return None, None
        hi, step = epoch, 1  # the flag is set at hi
        while True:
            probe = max(hi - step, 1)
            got = self.at(probe) if probe < hi else None
            if got is None:  # before epoch 1, or trimmed: the oldest epoch kept decides
                oldest = self._oldest_kept(probe if probe < hi else 0, hi)
                first = self.at(oldest)
                if first is None or key in first[0]:
                    return None, first[1] if first is not None else None
                lo = oldest
                break
            if key not in got[0]:
                lo = probe
                break
            hi = probe
            if epoch - hi >= EXACT_EPOCHS:
                step *= 2
        while hi - lo > 1:  # unset at lo, set at hi
            mid = (lo + hi) // 2
            got = self.at(mid)
            if got is not None and key in got[0]:
                hi = mid
            else:
                lo = mid
        found = self.at(hi)
        return (found[1] if found is not None else None), None

    def _oldest_kept(self, gone: int, kept: int) -> int:
        """The oldest epoch the mons still keep, between one they do not (0: none before 1) and one they do."""
        lo, hi = gone, kept
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self.at(mid) is None:
                lo = mid
            else:
                hi = mid
        return hi


# ------------------------------------------------------------------ putting it together

def setter(entries: Iterable[AuditEntry], key: FlagKey, since: float | None) -> AuditEntry | None:
    """The entry that set `key`: the one closest to `since` within MATCH_WINDOW; with `since` unknown, the
    last one that set it with no unset after it."""
    ordered = sorted((e for e in entries if effect(e.command, key) is not None), key=lambda e: e.time)
    if since is None:
        last = ordered[-1] if ordered else None
        return last if last is not None and effect(last.command, key) else None
    near = [e for e in ordered if effect(e.command, key) and abs(e.time - since) <= MATCH_WINDOW]
    return min(near, key=lambda e: abs(e.time - since)) if near else None


def origins(client: Any, keys: Iterable[FlagKey], audit_path: Path, fsid: str,
            history: OsdmapHistory | None = None, read_cluster_log: bool = True) -> dict[FlagKey, FlagOrigin]:
    """Who set each of `keys` (flags set now) and when. Asks the mons (`osd dump`, past epochs, `log last`,
    `config get`) and reads files: call it on a thread. A source that fails is skipped, and the answer says
    what was looked at. `read_cluster_log` False leaves out the mons' audit log file (to test the others)."""
    from cephtui.ceph.errors import CephError
    history = history or OsdmapHistory(client)
    keys = list(keys)
    try:
        epoch = as_int(as_dict(client.mon("osd dump")).get("epoch"))
    except CephError:
        epoch = 0
    try:
        remote, oldest_audit = mon_audit(client.mon("log last", num=AUDIT_TAIL, level="debug", channel="audit"))
    except CephError:
        remote, oldest_audit = [], None
    mine = local_audit(audit_path, fsid)
    log_file: ClusterAuditFile | None = None
    out: dict[FlagKey, FlagOrigin] = {}
    for key in keys:
        since = before = None
        if epoch > 0:
            try:
                since, before = history.set_since(key, epoch)
            except CephError:
                pass
        found = setter(mine, key, since) or setter(remote, key, since)
        file_said, file_read = "", False
        if found is None and read_cluster_log:
            log_file = log_file or ClusterAuditFile(client)
            found, file_said = log_file.setter(key, since, before)
            file_read = log_file.readable
        if found is not None:
            out[key] = FlagOrigin(since if since is not None else found.time, before, found.who, via=found.via)
            continue
        kept = (f"the mons' audit log keeps only since {clock_time(oldest_audit)}" if oldest_audit is not None
                else "the mons' audit log could not be read")
        out[key] = FlagOrigin(since, before, "", f"not in this host's cephtui audit log, {kept}"
                              + (f", and {file_said}" if file_said else ""),
                              audit_from=None if file_read else oldest_audit)  # the file reaches back further
    return out


class ClusterAuditFile:
    """The mons' audit channel in the file they write on this host, found once per lookup (`config get`).

    Only a window of time around the osdmap epoch that set the flag is read (never the whole file). The file
    carries no fsid: several clusters' mons on one host (the test sandboxes of a dev machine) write the same
    /var/log/ceph/ceph.audit.log, and what keeps the match right is the command itself together with its
    time next to this cluster's epoch (setter(): the nearest within MATCH_WINDOW), as for `log last`."""

    def __init__(self, client: Any) -> None:
        self.path, self.why_not = cluster_log_file.locate(client, "audit")
        self.readable = False  # read at least once

    def setter(self, key: FlagKey, since: float | None, before: float | None) -> tuple[AuditEntry | None, str]:
        """(the entry that set `key`, "") or (None, what was looked at)."""
        if self.path is None:
            return None, self.why_not
        try:
            if since is not None:
                lines = cluster_log_file.window(self.path, since - MATCH_WINDOW, since + MATCH_WINDOW,
                                                 around=since)
            else:  # older than every osdmap kept: the file's tail, what came before the oldest epoch
                lines = cluster_log_file.tail(self.path)
        except OSError:
            return None, f"no readable {self.path} on this host"
        self.readable = True
        entries = file_audit(lines, self.path)
        if since is None and before is not None:
            entries = [e for e in entries if e.time <= before + MATCH_WINDOW]
        found = setter(entries, key, since)
        if found is not None:
            return found, ""
        where = (f"around {clock_time(since)}" if since is not None
                 else f"in its last {cluster_log_file.TAIL_BYTES >> 20} MiB")
        return None, f"not in {self.path} {where}"
