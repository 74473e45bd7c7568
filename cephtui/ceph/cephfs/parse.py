"""The answers of `fs dump` (mon), `fs status` (mgr) and `session ls` (MDS) as the model's frozen objects.

Every key is optional: releases add and rename (Pacific has no `flags_state`, Tentacle's `fs status` makes
`mds_version` a list with `daemon` or `daemons`); docs/cephfs-notes.md lists them per release.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from cephtui.ceph.cephfs.model import (
    FLAG_ALLOW_STANDBY_REPLAY,
    FLAG_NOT_JOINABLE,
    FLAG_REFUSE_CLIENT_SESSION,
    FileSystem,
    FsPool,
    Rank,
    Session,
)

RELEASE = re.compile(r"ceph version (\S+)")


def _int(value: Any, default: int | None = None) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _flags(mdsmap: Mapping[str, Any]) -> tuple[bool, bool, bool]:
    """(joinable, allow_standby_replay, refuse_client_session): `flags_state` where the release has it, else the
    bits of `flags` (Pacific)."""
    state = mdsmap.get("flags_state")
    bits = _int(mdsmap.get("flags"), 0) or 0
    if isinstance(state, Mapping):
        return (bool(state.get("joinable", not bits & FLAG_NOT_JOINABLE)),
                bool(state.get("allow_standby_replay", bits & FLAG_ALLOW_STANDBY_REPLAY)),
                bool(state.get("refuse_client_session", bits & FLAG_REFUSE_CLIENT_SESSION)))
    return not bits & FLAG_NOT_JOINABLE, bool(bits & FLAG_ALLOW_STANDBY_REPLAY), bool(bits & FLAG_REFUSE_CLIENT_SESSION)


def ranks_of(mdsmap: Mapping[str, Any]) -> tuple[list[Rank], list[tuple[str, int]]]:
    """The ranks in the map (`in`), each with its daemon from `up` and `info`, and the standby-replay daemons."""
    info = mdsmap.get("info") or {}
    up = mdsmap.get("up") or {}
    damaged = {int(r) for r in mdsmap.get("damaged") or []}
    ranks: list[Rank] = []
    for rank in sorted({int(r) for r in mdsmap.get("in") or []} | damaged):
        gid = up.get(f"mds_{rank}")
        daemon = info.get(f"gid_{gid}") if gid is not None else None
        if daemon is None:
            ranks.append(Rank(rank, "damaged" if rank in damaged else "failed"))
            continue
        state = str(daemon.get("state", "")).split(":", 1)[-1]
        ranks.append(Rank(rank, state, str(daemon.get("name", "")), _int(gid), "laggy_since" in daemon))
    replay = sorted((str(d.get("name", "")), _int(d.get("rank"), -1) or 0) for d in info.values()
                    if str(d.get("state", "")) == "up:standby-replay")
    return ranks, replay


def filesystems_from_dump(dump: Mapping[str, Any]) -> tuple[list[FileSystem], list[str]]:
    """`fs dump`'s file systems (map only: no counters, pools without usage) and its standby daemons."""
    out: list[FileSystem] = []
    for entry in dump.get("filesystems") or []:
        m = entry.get("mdsmap") or {}
        ranks, replay = ranks_of(m)
        joinable, replay_allowed, refuse = _flags(m)
        meta = _int(m.get("metadata_pool"))
        pools = ([FsPool(meta, "", "metadata")] if meta is not None else []) + \
            [FsPool(int(p), "", "data") for p in m.get("data_pools") or []]
        out.append(FileSystem(
            name=str(m.get("fs_name", "")), fscid=_int(entry.get("id"), -1) or 0, ranks=tuple(ranks),
            standby_replay=tuple(replay), pools=tuple(pools), max_mds=_int(m.get("max_mds"), 1) or 1,
            joinable=joinable, allow_standby_replay=replay_allowed, refuse_client_session=refuse,
            session_timeout=_int(m.get("session_timeout"), 60) or 60,
            session_autoclose=_int(m.get("session_autoclose"), 300) or 300,
            standby_count_wanted=_int(m.get("standby_count_wanted"), 1) or 0, epoch=_int(m.get("epoch"), 0) or 0))
    standbys = sorted(str(s.get("name", "")) for s in dump.get("standbys") or [])
    return out, standbys


def with_status(fs: FileSystem, status: Mapping[str, Any]) -> FileSystem:
    """The file system with the counters, pool usage and client count of its own `fs status NAME` (the mgr's)."""
    by_rank = {_int(e.get("rank")): e for e in status.get("mdsmap") or []
               if e.get("state") not in ("standby", "standby-replay") and _int(e.get("rank")) is not None}
    ranks = []
    for r in fs.ranks:
        e = by_rank.get(r.rank)
        if e is None or e.get("name") != r.name:  # a rank that changed hands between the two reads: no numbers
            ranks.append(r)
            continue
        ranks.append(Rank(r.rank, r.state, r.name, r.gid, r.laggy, rate=_int(e.get("rate")),
                          dns=_int(e.get("dns")), inos=_int(e.get("inos")), dirs=_int(e.get("dirs")),
                          caps=_int(e.get("caps"))))
    by_id = {_int(p.get("id")): p for p in status.get("pools") or []}
    pools = tuple(FsPool(p.id, str(by_id[p.id].get("name", p.name)), p.type, _int(by_id[p.id].get("used")),
                         _int(by_id[p.id].get("avail"))) if p.id in by_id else p for p in fs.pools)
    clients = next((_int(c.get("clients")) for c in status.get("clients") or [] if c.get("fs") == fs.name), None)
    return replace(fs, ranks=tuple(ranks), pools=pools, clients=clients)


def with_pool_usage(fs: FileSystem, df: Mapping[str, Any]) -> FileSystem:
    """Pool names and usage from `ceph df` (bytes_used, max_avail: what `fs status` shows), when the mgr's `fs status`
    is not served."""
    by_id = {_int(p.get("id")): p for p in df.get("pools") or []}
    pools = []
    for p in fs.pools:
        d = by_id.get(p.id)
        stats = (d or {}).get("stats") or {}
        pools.append(FsPool(p.id, str((d or {}).get("name", p.name)), p.type, _int(stats.get("bytes_used")),
                            _int(stats.get("max_avail"))) if d else p)
    return replace(fs, pools=tuple(pools))


def versions_of(status: Mapping[str, Any]) -> list[tuple[str, tuple[str, ...]]]:
    """`fs status`'s mds_version: a string (one version, Pacific), or a list of {version, daemons|daemon}."""
    raw = status.get("mds_version")
    if isinstance(raw, str):
        return [(raw, ())] if raw else []
    out = []
    for v in raw or []:
        if isinstance(v, Mapping):
            out.append((str(v.get("version", "")), tuple(str(d) for d in v.get("daemons") or v.get("daemon") or [])))
    return out


def versions_from_counts(versions: Mapping[str, Any]) -> list[tuple[str, tuple[str, ...]]]:
    """`ceph versions`' mds part ({version text: count}) when `fs status` is not served: no daemon names."""
    return [(str(v), ()) for v in sorted(versions)]


def client_kind(meta: Mapping[str, Any]) -> str:
    """kernel, ceph-fuse or libcephfs, by what the client said of itself (cephfs-top's rule); "" if it said
    nothing."""
    if meta.get("kernel_version"):
        return "kernel"
    if meta.get("mount_point") and meta.get("mount_point") != "N/A":
        return "ceph-fuse"
    if meta.get("ceph_version"):
        return "libcephfs"
    return ""


def client_version(meta: Mapping[str, Any]) -> str:
    if meta.get("kernel_version"):
        return str(meta["kernel_version"])
    m = RELEASE.match(str(meta.get("ceph_version", "")))
    return m.group(1) if m else ""


def sessions_from(answer: Iterable[Mapping[str, Any]], rank: int, fs: str = "") -> list[Session]:
    """`session ls`'s array as Sessions, in the MDS's order."""
    out = []
    for s in answer:
        meta = s.get("client_metadata") or {}
        out.append(Session(
            id=_int(s.get("id"), 0) or 0, rank=rank, inst=str(s.get("inst", "")), state=str(s.get("state", "")),
            num_caps=_int(s.get("num_caps"), 0) or 0, num_leases=_int(s.get("num_leases"), 0) or 0,
            requests_in_flight=_int(s.get("requests_in_flight"), 0) or 0,
            uptime=float(s.get("uptime") or 0.0), reconnecting=bool(s.get("reconnecting")),
            recall_caps=float((s.get("recall_caps") or {}).get("value") or 0.0),
            release_caps=float((s.get("release_caps") or {}).get("value") or 0.0),
            hostname=str(meta.get("hostname", "")), root=str(meta.get("root", "")),
            mount_point=str(meta.get("mount_point", "")), entity_id=str(meta.get("entity_id", "")),
            kind=client_kind(meta), version=client_version(meta), pid=str(meta.get("pid", "")), fs=fs))
    return out
