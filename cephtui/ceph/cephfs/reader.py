"""Read the file systems and their clients from a cluster: the File systems tab's and `cephtui fs`'s one source.

The map is the mon's (`fs dump`), always; the per-rank counters, the pools' usage and the client count are the
mgr's `fs status FS`, as `ceph fs status` shows them, when the mgr serves it (its status module); else the pools'
usage comes from `ceph df` (the same bytes_used and max_avail) and a note says what is missing and why. The
clients are each active rank's `session ls`, asked of the MDS itself.
"""
from __future__ import annotations

from cephtui.ceph.cephfs.model import Clients, FsStatus
from cephtui.ceph.cephfs.parse import (
    filesystems_from_dump,
    sessions_from,
    versions_from_counts,
    versions_of,
    with_pool_usage,
    with_status,
)
from cephtui.ceph.cluster import Cluster
from cephtui.ceph.errors import CephError


def read_fs_status(cluster: Cluster, mgr_down: str = "") -> FsStatus:
    """Every file system; CephError only when the mon cannot give `fs dump` (nothing to show then).
    `mgr_down`: why the mgr is not to be asked this time (the poll already found it silent), so `fs status` is
    not sent to wait at the mon for a mgr that is down."""
    filesystems, standbys = filesystems_from_dump(cluster.mon("fs dump"))
    notes: list[str] = []
    versions: list[tuple[str, tuple[str, ...]]] = []
    status_missing = mgr_down
    done = []
    df = None
    for fs in filesystems:
        status = None
        if not status_missing:
            try:
                status = cluster.mgr("fs status", fs=fs.name)
            except CephError as e:
                status_missing = e.message
        if status is not None:
            fs = with_status(fs, status)
            versions = versions or versions_of(status)
        else:
            if df is None:
                try:
                    df = cluster.mon("df", detail="detail")
                except CephError as e:
                    notes.append(f"pool usage not read: `ceph df`: {e.message}")
                    df = {}
            fs = with_pool_usage(fs, df)
        done.append(fs)
    if status_missing:
        notes.append(f"dentries, inodes, caps and request rates not shown: the mgr's `fs status`: {status_missing}")
    if not versions and filesystems:
        try:
            versions = versions_from_counts((cluster.mon("versions") or {}).get("mds") or {})
        except CephError:
            pass
    return FsStatus(tuple(done), tuple(standbys), tuple(versions), tuple(notes))


def read_clients(cluster: Cluster, status: FsStatus, fs_name: str) -> Clients:
    """The sessions of every active rank of `fs_name` (`ceph tell mds.FS:RANK session ls`), in rank order. A rank
    that cannot be asked is a problem said beside the others, not a failure of the whole."""
    fs = status.get(fs_name)
    if fs is None:
        return Clients(fs_name, problems=(f"no file system is called {fs_name!r}",))
    sessions = []
    problems = []
    unanswered = []
    for rank in fs.active:
        try:
            answer = cluster.mds_tell(f"{fs.name}:{rank.rank}", "session ls")
        except CephError as e:
            problems.append(f"mds.{rank.name} (rank {rank.rank}): {e.message}")
            unanswered.append(rank.rank)
            continue
        sessions += sessions_from(answer or [], rank.rank, fs.name)
    if not fs.active:
        problems.append(f"{fs.name} has no active MDS: no rank to ask for its clients")
    return Clients(fs.name, tuple(sessions), tuple(problems), tuple(unanswered))
