"""Where resumable workflows keep their state.

With a client, the state lives in the cluster itself, in the mon's config-key store under
`cephtui/workflows/<kind>/<id>` (kinds `removal` and `maintenance`; mon commands: no mgr needed), so an
admin whose ssh dropped and who logs in on another node, or a colleague, sees the same queue and
cannot start a conflicting workflow (a removal and a maintenance conflict too). A local JSON file per
workflow is the cache: written first on every save (a crash never loses a step), and read alone when
the cluster cannot be reached or refuses config-key (caps); `problem` then says so. Without a client
(tests, older callers) only the local files are used.

Nothing secret goes to the cluster: config-key values are readable with `mon 'allow r'`, so the
cluster copy passes through `secrets.redact` (cephx keys, `key=`/`secret=` on a stop command line).

Pruning: a finished workflow (done or aborted) is kept KEEP_FINISHED_DAYS after its last update and
at most KEEP_FINISHED_COUNT of them per kind (the newest); older ones are removed, from the cluster
and the cache, by whichever cephtui lists the queue next.
"""
from __future__ import annotations

import errno as errno_mod
import json
import os
import socket
import time
from pathlib import Path
from typing import Any

from cephtui.ceph.cluster import Cluster
from cephtui.ceph.owner_only import replace_text
from cephtui.ceph.secrets import redact_value
from cephtui.paths import login, state_dir

PREFIX = "cephtui/workflows"
META = "_cephtui"  # stored next to the state's own fields; Removal.from_json ignores unknown keys
KEEP_FINISHED_DAYS = 7
KEEP_FINISHED_COUNT = 20
MAX_VALUE = 60_000  # bytes; the mon refuses config-key values over mon_config_key_max_entry_size (64 KiB)
FINISHED = ("done", "aborted")
# Kinds that hold OSDs: a new workflow of one is refused while an unfinished one of any of them holds the same
# OSD (a removal must not drain an OSD under maintenance, nor a maintenance start on one being removed).
HOLDING_KINDS = ("removal", "maintenance")
HEARTBEAT = 10.0  # seconds between cluster writes of an unchanged workflow (its progress, `updated`)


def whoami(entity: str = "") -> str:
    """`user@host` (and the cephx entity): who started or drives a workflow, as the queue shows it."""
    user = login()
    if user == "?":  # no login name: the uid at least tells two operators apart
        user = str(os.getuid())
    return f"{user}@{socket.gethostname()}" + (f" ({entity})" if entity else "")


class WorkflowConflict(Exception):
    """A new workflow would touch OSDs another unfinished workflow (in the cluster's queue) holds."""

    def __init__(self, message: str, others: list[dict[str, Any]]) -> None:
        super().__init__(message)
        self.others = others


class WorkflowStore:
    """The cluster's queue (config-key) with `<state dir>/workflows/<kind>-<id>.json` as the cache."""

    def __init__(self, root: Path | None = None, client: Cluster | None = None) -> None:
        self.root = (root or state_dir()) / "workflows"
        self.client = client
        self.problem = ""  # why the last cluster read or write fell back to the cache; "" when it did not
        self.me = whoami(client.spec.name if client is not None else "")
        self._known: set[str] = set()  # ids seen in the queue or saved here: not new, no conflict check
        self._fsid = ""
        self._metas: dict[str, dict[str, Any]] = {}  # id -> META as last read or written
        self._put: dict[str, tuple[str, float]] = {}  # id -> (what was last written, when): see _worth_writing

    # ------------------------------------------------------------ paths and the cluster
    def path(self, kind: str, wf_id: str) -> Path:
        return self.root / f"{kind}-{wf_id}.json"

    @staticmethod
    def key(kind: str, wf_id: str) -> str:
        return f"{PREFIX}/{kind}/{wf_id}"

    @property
    def in_cluster(self) -> bool:
        return self.client is not None

    @property
    def _cluster(self) -> Cluster:
        """The client, where only a store kept in the cluster gets (callers check `in_cluster` first)."""
        if self.client is None:
            raise RuntimeError("this workflow store keeps no queue in a cluster")
        return self.client

    def fsid(self) -> str:
        if not self._fsid and self.client is not None:
            try:
                self._fsid = str(self.client.fsid())
            except Exception:  # not connected yet: the cache is then not scoped, as before
                return ""
        return self._fsid

    def _fallback(self, what: str, e: Exception) -> None:
        from cephtui.ceph.errors import CephPermissionError, CephReadOnly
        msg = getattr(e, "message", "") or str(e)
        if isinstance(e, CephReadOnly):
            why = "read-only mode: nothing is written to the cluster"
        elif isinstance(e, CephPermissionError) or getattr(e, "errno", 0) in (errno_mod.EACCES, errno_mod.EPERM):
            why = (f"the cluster refused config-key ({msg.strip() or 'permission denied'}; it needs mon 'allow rw', "
                   "or allow command \"config-key dump\" and \"config-key set\")")
        else:
            why = f"the cluster could not be reached ({msg.strip() or type(e).__name__})"
        self.problem = f"{what}: {why}; using this machine's copy only ({self.root})"

    def _cluster_dump(self, kind: str) -> dict[str, dict[str, Any]]:
        """Every stored workflow of `kind` in the cluster, by id; CephError when it cannot be read."""
        prefix = f"{PREFIX}/{kind}/"
        raw = self._cluster.mon("config-key dump", key=prefix)
        out: dict[str, dict[str, Any]] = {}
        for k, v in (raw or {}).items() if isinstance(raw, dict) else ():
            if not isinstance(k, str) or not k.startswith(prefix):
                continue
            try:
                d = json.loads(v) if isinstance(v, str) else v
            except ValueError:
                continue  # a foreign or damaged value is not ours to act on
            if isinstance(d, dict):
                out[k[len(prefix):]] = d
        return out

    def _cluster_put(self, kind: str, wf_id: str, data: dict[str, Any]) -> None:
        text = cluster_text(data)
        self._cluster.mon_raw("config-key set", inbuf=text.encode(), key=self.key(kind, wf_id))

    def _cluster_rm(self, kind: str, wf_id: str) -> None:
        from cephtui.ceph.errors import CephError
        try:
            self._cluster.mon_raw("config-key rm", key=self.key(kind, wf_id))
        except CephError as e:
            if e.errno != errno_mod.ENOENT:
                raise

    # ------------------------------------------------------------ the cache
    def _cache_save(self, kind: str, wf_id: str, data: dict[str, Any]) -> None:
        replace_text(self.path(kind, wf_id), json.dumps(data, indent=1, sort_keys=True))

    def _cache_all(self, kind: str) -> dict[str, dict[str, Any]]:
        out = {}
        for p in sorted(self.root.glob(f"{kind}-*.json")) if self.root.is_dir() else ():
            try:
                d = json.loads(p.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue  # a foreign or damaged file is not ours to act on
            if not isinstance(d, dict):
                continue
            fsid = (d.get(META) or {}).get("fsid") if isinstance(d.get(META), dict) else None
            if fsid and self.fsid() and fsid != self.fsid():
                continue  # another cluster's workflow (several clusters managed from one machine)
            out[p.name[len(kind) + 1:-len(".json")]] = d
        return out

    # ------------------------------------------------------------ the interface the engines use
    def save(self, kind: str, wf_id: str, data: dict[str, Any]) -> None:
        """Write the cache, then the cluster. The first save of a new workflow checks the cluster's
        queue and raises WorkflowConflict (nothing kept) if an unfinished one holds the same OSDs."""
        data = dict(data)
        # The engine's state carries no META: who started it is remembered from the queue as read.
        meta = {**self._metas.get(wf_id, {}), **_meta(data)}
        new = wf_id not in self._known
        meta.setdefault("started_by", self.me)
        meta.setdefault("synced", False)  # True once the cluster has had it
        meta.update(driven_by=self.me, pid=os.getpid(), kind=kind)
        if self.fsid():
            meta["fsid"] = self.fsid()
        data[META] = meta
        if new and self.in_cluster:
            self.check_conflict(kind, wf_id, data)
        self._cache_save(kind, wf_id, data)
        self._known.add(wf_id)
        self._metas[wf_id] = meta
        if not self.in_cluster:
            return
        if not new and not self._worth_writing(wf_id, data):
            return
        from cephtui.ceph.errors import CephError
        try:
            self._cluster_put(kind, wf_id, data)
        except CephError as e:
            self._fallback("saving to the cluster's queue", e)
            return
        self.problem = ""
        self._put[wf_id] = (_signature(data), time.monotonic())
        if new:
            self._settle_race(kind, wf_id, data)
        meta["synced"] = True
        self._cache_save(kind, wf_id, data)

    def _worth_writing(self, wf_id: str, data: dict[str, Any]) -> bool:
        """An engine saves after every poll (every 2 s); the mon gets a write when the step, status,
        reason or log changed, else at most every HEARTBEAT s (progress numbers, `updated`)."""
        last = self._put.get(wf_id)
        return last is None or last[0] != _signature(data) or time.monotonic() - last[1] >= HEARTBEAT

    def load_all(self, kind: str) -> list[dict[str, Any]]:
        """The queue: the cluster's copies merged with the cache (the newer `updated` wins); the cache
        alone when the cluster cannot be read. Finished workflows past the keep rule are pruned."""
        cache = self._cache_all(kind)
        if not self.in_cluster:
            return [cache[k] for k in sorted(cache)]
        from cephtui.ceph.errors import CephError
        try:
            remote = self._cluster_dump(kind)
        except CephError as e:
            self._fallback("reading the cluster's queue", e)
            self._remember(cache)
            return [cache[k] for k in sorted(cache)]
        self.problem = ""
        writable = self.client is None or not self.client.read_only  # --read-only: read the queue, never change it
        merged: dict[str, dict[str, Any]] = dict(remote)
        for wf_id, d in remote.items():  # the cache keeps the whole queue, colleagues' too, for when the mon is away
            c = cache.get(wf_id)
            if c is None or _updated(c) < _updated(d) or (_updated(c) == _updated(d) and not _meta(c).get("synced")):
                self._cache_save(kind, wf_id, {**d, META: {**_meta(d), "synced": True}})
        for wf_id, d in cache.items():
            if wf_id in remote:
                if _updated(d) > _updated(remote[wf_id]) and not _finished(remote[wf_id]):
                    merged[wf_id] = d  # saved here while the cluster was away: ours is newer
                    if writable:
                        self._push(kind, wf_id, d)
            elif _meta(d).get("synced"):
                self.path(kind, wf_id).unlink(missing_ok=True)  # removed from the cluster (pruned, by a colleague)
            elif not _finished(d):
                merged[wf_id] = d  # started while the cluster was away: the cluster gets it now
                if writable:
                    self._push(kind, wf_id, d)
        for wf_id in self._prune_ids(merged) if writable else ():
            self.delete(kind, wf_id)
            merged.pop(wf_id, None)
        self._remember(merged)
        return [merged[k] for k in sorted(merged)]

    def adopt(self, wf_id: str) -> None:
        """Take a workflow that already exists (a record migrated from an older cephtui's file) as known:
        its first save here is no new start, so it is never refused as a conflict."""
        self._known.add(wf_id)

    def _remember(self, queue: dict[str, dict[str, Any]]) -> None:
        self._known |= set(queue)
        for wf_id, d in queue.items():
            self._metas[wf_id] = _meta(d)

    def delete(self, kind: str, wf_id: str) -> None:
        self.path(kind, wf_id).unlink(missing_ok=True)
        if self.in_cluster:
            from cephtui.ceph.errors import CephError
            try:
                self._cluster_rm(kind, wf_id)
            except CephError as e:
                self._fallback("removing from the cluster's queue", e)

    # ------------------------------------------------------------ conflicts and pruning
    def conflicts(self, kind: str, osds: list[int], except_id: str = "",
                  queue: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
        """Unfinished workflows (the cluster's when reachable) that hold any of `osds`: of every kind in
        HOLDING_KINDS when `kind` is one of them (else of `kind`), or only in `queue` when given. Each comes
        back with its kind in META, for conflict_text."""
        want = set(osds)
        if queue is not None:
            found = [(kind, d) for d in queue]
        else:
            found = [(k, d) for k in (HOLDING_KINDS if kind in HOLDING_KINDS else (kind,)) for d in self.load_all(k)]
        return [with_kind(k, d) for k, d in found
                if _wf_id(d) != except_id and not _finished(d) and want & set(_osds(d))]

    def check_conflict(self, kind: str, wf_id: str, data: dict[str, Any]) -> None:
        others = self.conflicts(kind, _osds(data), except_id=wf_id)
        if others:
            raise WorkflowConflict(conflict_text(_osds(data), others), others)

    def _settle_race(self, kind: str, wf_id: str, data: dict[str, Any]) -> None:
        """Two machines that checked at the same moment both wrote: the later start gives way."""
        from cephtui.ceph.errors import CephError
        remote: list[dict[str, Any]] = []
        try:
            for k in HOLDING_KINDS if kind in HOLDING_KINDS else (kind,):
                remote += [with_kind(k, d) for i, d in self._cluster_dump(k).items() if i != wf_id]
        except CephError:
            return
        mine = (_as_float(data.get("started")), wf_id)
        earlier = [d for d in remote if not _finished(d)
                   and set(_osds(d)) & set(_osds(data)) and (_as_float(d.get("started")), _wf_id(d)) < mine]
        if earlier:
            self.delete(kind, wf_id)
            self._known.discard(wf_id)
            raise WorkflowConflict(conflict_text(_osds(data), earlier), earlier)

    def _push(self, kind: str, wf_id: str, d: dict[str, Any]) -> None:
        from cephtui.ceph.errors import CephError
        try:
            self._cluster_put(kind, wf_id, d)
        except CephError as e:
            self._fallback("saving to the cluster's queue", e)

    @staticmethod
    def _prune_ids(queue: dict[str, dict[str, Any]], now: float | None = None) -> list[str]:
        now = time.time() if now is None else now
        done = sorted((i for i, d in queue.items() if _finished(d)), key=lambda i: _updated(queue[i]), reverse=True)
        old = [i for i in done if now - _updated(queue[i]) > KEEP_FINISHED_DAYS * 86400]
        return sorted(set(old) | set(done[KEEP_FINISHED_COUNT:]))


def cluster_text(data: dict[str, Any]) -> str:
    """The JSON stored in the cluster: secrets masked, the log trimmed (oldest first) to fit a value."""
    d = redact_value(data)
    assert isinstance(d, dict)
    text = json.dumps(d, sort_keys=True)
    log = list(d.get("log") or []) if isinstance(d.get("log"), list) else []
    while len(text.encode()) > MAX_VALUE and log:
        log = log[max(1, len(log) // 4):]
        d["log"] = log
        text = json.dumps(d, sort_keys=True)
    return text


def conflict_text(osds: list[int], others: list[dict[str, Any]], now: float | None = None) -> str:
    """Which OSDs another unfinished workflow holds: which one, started by whom and when, who drives it now."""
    parts, kinds = [], set()
    for d in others:
        shared = sorted(set(_osds(d)) & set(osds))
        m = _meta(d)
        kind = str(m.get("kind") or "removal")
        kinds.add(kind)
        what = (f"maintenance of {maintenance_target(d)}" if kind == "maintenance" else
                f"{'replacement' if d.get('replace') else 'removal'} at {d.get('step', '?')}")
        since = _as_float(d.get("started"))
        driver = str(m.get("driven_by") or "")
        by = str(m.get("started_by") or "?")
        driven = (f", last driven by {driver} at {short_time(_updated(d), now)}"
                  if driver and driver != by and _updated(d) else "")
        parts.append(f"{', '.join(f'osd.{i}' for i in shared)} already in workflow {_wf_id(d)} "
                     f"({what}, {d.get('status', '?')}, started by {by}"
                     f"{f' at {short_time(since, now)}' if since else ''}{driven})")
    how = []
    if kinds - {"maintenance"}:
        how.append("resume or abort that removal first (`cephtui remove --status` lists the queue)")
    if "maintenance" in kinds:
        how.append("end that maintenance first (Maintenance tab, x; from any cephtui)")
    return "; ".join(parts) + ": " + " / ".join(how)


def maintenance_target(d: dict[str, Any]) -> str:
    t = d.get("target") if isinstance(d.get("target"), dict) else {}
    host = t.get("host") if isinstance(t, dict) else ""
    return f"host {host}" if host else ", ".join(f"osd.{i}" for i in _osds(d)) or "?"


def short_time(ts: float, now: float | None = None) -> str:
    """HH:MM today, else YYYY-MM-DD HH:MM (local time), for 'since when'."""
    now = time.time() if now is None else now
    lt, ln = time.localtime(ts), time.localtime(now)
    return time.strftime("%H:%M" if lt[:3] == ln[:3] else "%Y-%m-%d %H:%M", lt)


def with_kind(kind: str, d: dict[str, Any]) -> dict[str, Any]:
    """The stored workflow with its kind in META (records saved before META carried it are removals)."""
    return {**d, META: {**_meta(d), "kind": _meta(d).get("kind") or kind}}


def _signature(d: dict[str, Any]) -> str:
    """What makes a write worth sending now: all but the progress numbers and the timestamps."""
    keep = {k: v for k, v in d.items() if k not in ("updated", "progress", META)}
    return json.dumps(keep, sort_keys=True, default=str)


def _meta(d: dict[str, Any]) -> dict[str, Any]:
    m = d.get(META)
    return m if isinstance(m, dict) else {}


def _wf_id(d: dict[str, Any]) -> str:
    return str(d.get("id", ""))


def _osds(d: dict[str, Any]) -> list[int]:
    v = d.get("osds")
    return [i for i in v if type(i) is int] if isinstance(v, list) else []


def _finished(d: dict[str, Any]) -> bool:
    return d.get("status") in FINISHED


def _as_float(v: Any) -> float:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0.0


def _updated(d: dict[str, Any]) -> float:
    return _as_float(d.get("updated"))


def origin(d: dict[str, Any]) -> tuple[str, str]:
    """(started by, last driven by) as stored with a workflow's state; '' when unknown."""
    m = _meta(d)
    return str(m.get("started_by", "")), str(m.get("driven_by", ""))
