"""What cephtui knows of the file systems and their clients: frozen, built off the UI thread.

The numbers a rank shows (dentries, inodes, directories, caps, request rate) are the mgr's, as `ceph fs status`
shows them (its status module samples the MDS's perf counters every mgr_stats_period); the map (ranks, states,
daemons, flags, pools) is the mon's `fs dump`. The JSON uses `ceph fs status -f json`'s key names.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# MDSMap flag bits (src/include/ceph_fs.h): Pacific's `fs dump` has only `flags`, no `flags_state`.
FLAG_NOT_JOINABLE = 1 << 0
FLAG_ALLOW_SNAPS = 1 << 1
FLAG_ALLOW_MULTIMDS_SNAPS = 1 << 4
FLAG_ALLOW_STANDBY_REPLAY = 1 << 5
FLAG_REFUSE_CLIENT_SESSION = 1 << 6


@dataclass(frozen=True)
class Rank:
    """A rank of a file system: the daemon holding it (none when failed) and, while active, its counters."""

    rank: int
    state: str  # active, replay, resolve, reconnect, rejoin, clientreplay, stopping, failed, damaged ...
    name: str = ""  # the MDS daemon's name ("" when failed or damaged)
    gid: int | None = None
    laggy: bool = False  # the mon has not heard the daemon's beacon within mds_beacon_grace
    # From the mgr's `fs status` (None when the mgr does not serve it: the map is still shown).
    rate: int | None = None  # client requests per second, over the mgr's last two samples
    dns: int | None = None
    inos: int | None = None
    dirs: int | None = None
    caps: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rank": self.rank, "state": self.state + (" (laggy)" if self.laggy else "")}
        if self.name:
            out["name"] = self.name
        for key in ("rate", "dns", "inos", "dirs", "caps"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out


@dataclass(frozen=True)
class FsPool:
    id: int
    name: str
    type: str  # "metadata" or "data"
    used: int | None = None  # bytes: `ceph df`'s bytes_used, as fs status shows it
    avail: int | None = None  # bytes: `ceph df`'s max_avail

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "type": self.type, "used": self.used, "avail": self.avail}


@dataclass(frozen=True)
class FileSystem:
    name: str
    fscid: int
    ranks: tuple[Rank, ...]
    standby_replay: tuple[tuple[str, int], ...] = ()  # (daemon, the rank it follows)
    pools: tuple[FsPool, ...] = ()
    max_mds: int = 1
    joinable: bool = True
    allow_standby_replay: bool = False
    refuse_client_session: bool = False
    session_timeout: int = 60
    session_autoclose: int = 300
    standby_count_wanted: int = 1
    clients: int | None = None  # sessions, as fs status counts them (rank 0's session_count)
    epoch: int = 0

    @property
    def active(self) -> tuple[Rank, ...]:
        return tuple(r for r in self.ranks if r.state == "active")

    @property
    def failed(self) -> tuple[Rank, ...]:
        return tuple(r for r in self.ranks if r.state in ("failed", "damaged"))

    @property
    def state_words(self) -> str:
        """One word for the whole file system, as `ceph -s` and the Dashboard would say it."""
        if not self.ranks or not self.active and not any(r.name for r in self.ranks):
            return "offline"
        if any(r.state == "damaged" for r in self.ranks):
            return "damaged"
        if len(self.active) < len(self.ranks):
            return "degraded"
        if not self.joinable:
            return "not joinable"
        return "healthy"

    def to_json(self) -> dict[str, Any]:
        mdsmap = [r.to_json() for r in self.ranks]
        mdsmap += [{"rank": rank, "name": name, "state": "standby-replay"} for name, rank in self.standby_replay]
        return {"name": self.name, "id": self.fscid, "epoch": self.epoch, "state": self.state_words,
                "mdsmap": mdsmap, "pools": [p.to_json() for p in self.pools], "clients": self.clients,
                "max_mds": self.max_mds, "joinable": self.joinable, "allow_standby_replay": self.allow_standby_replay,
                "refuse_client_session": self.refuse_client_session, "session_timeout": self.session_timeout,
                "session_autoclose": self.session_autoclose, "standby_count_wanted": self.standby_count_wanted}


@dataclass(frozen=True)
class FsStatus:
    """Every file system of the cluster, the standby daemons, the MDS versions, and what could not be read."""

    filesystems: tuple[FileSystem, ...]
    standbys: tuple[str, ...] = ()
    versions: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (version text, its daemons)
    notes: tuple[str, ...] = ()  # what could not be read, and why (said beside the map, never instead of it)

    def get(self, name: str) -> FileSystem | None:
        return next((f for f in self.filesystems if f.name == name), None)

    def to_json(self) -> dict[str, Any]:
        return {"filesystems": [f.to_json() for f in self.filesystems],
                "standbys": [{"name": n, "state": "standby"} for n in self.standbys],
                "mds_version": [{"version": v, "daemons": list(d)} for v, d in self.versions],
                "notes": list(self.notes)}


@dataclass(frozen=True)
class Session:
    """One client of one rank (`session ls`)."""

    id: int
    rank: int
    inst: str  # "client.4122 127.0.0.1:0/140723106"
    state: str  # open, stale, opening, closing, killing
    num_caps: int
    num_leases: int = 0
    requests_in_flight: int = 0
    uptime: float = 0.0
    reconnecting: bool = False
    recall_caps: float = 0.0  # the decaying count of caps the MDS asked back (recall_caps.value)
    release_caps: float = 0.0  # ... and of caps the client gave back (release_caps.value)
    hostname: str = ""
    root: str = ""  # the mount's root in the file system ("/" unless mounted below it)
    mount_point: str = ""  # where ceph-fuse mounted it on its host
    entity_id: str = ""  # the key's id: client.<entity_id>
    kind: str = ""  # kernel, ceph-fuse, libcephfs, or "" when the client did not say
    version: str = ""  # ceph_version's release, or the kernel's version
    pid: str = ""
    fs: str = ""

    @property
    def entity(self) -> str:
        return f"client.{self.id}"

    @property
    def addr(self) -> str:
        return self.inst.split(" ", 1)[1] if " " in self.inst else ""

    @property
    def key_name(self) -> str:
        return f"client.{self.entity_id}" if self.entity_id else ""

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "fs": self.fs, "rank": self.rank, "inst": self.inst, "state": self.state,
                "num_caps": self.num_caps, "num_leases": self.num_leases,
                "requests_in_flight": self.requests_in_flight, "uptime": self.uptime,
                "reconnecting": self.reconnecting, "recall_caps": self.recall_caps, "release_caps": self.release_caps,
                "client_metadata": {k: v for k, v in (("hostname", self.hostname), ("root", self.root),
                                                        ("mount_point", self.mount_point),
                                                        ("entity_id", self.entity_id), ("pid", self.pid)) if v},
                "kind": self.kind, "version": self.version}


@dataclass(frozen=True)
class Clients:
    """The sessions of one file system's active ranks, and the ranks that could not be asked (with why)."""

    fs: str
    sessions: tuple[Session, ...] = ()
    problems: tuple[str, ...] = field(default_factory=tuple)
    unanswered: tuple[int, ...] = ()  # the active ranks whose MDS did not give its sessions this time
