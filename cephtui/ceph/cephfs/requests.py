"""Slow MDS requests and the clients that hold them up: `ceph tell mds.FS:RANK dump_ops_in_flight` of each active
rank, each request's client, operation and path, and, for the ones that wait, which client is being asked to give
caps back and has not (the caps it holds that the MDS is revoking).

How a request waits on a client, measured on a sandbox (scripts/capture_fs_stuck_fixture.py): client A holds
/held.txt open (caps `pAsxLsXsxFsxcrwb`, the file's loner) and stops answering; client B's open of the file is a
`client_request(client.B:2 lookup #0x1/held.txt …)` whose flag point is "failed to rdlock, waiting". The file's
`dump tree /held.txt 0` shows A's caps `issued pAsxLsXsxFsxcrwb` but `pending pAsLsXsxFsxcrwb`: the MDS is taking
`Ax` back (authlock `excl->sync`), and B waits until A answers, goes stale at the session timeout, or is evicted
(then B's open completes at once). MDS_SLOW_REQUEST names only the MDS ("1 slow requests are blocked > 30 secs");
MDS_CLIENT_LATE_RELEASE names A only after mds_revoke_cap_timeout, if A's session has not gone stale first.

A request's target is written `#0xINO/name` (a name in directory INO) or `#0xINO`: the directory's path comes from
`dump inode INO`, the file's caps from `dump tree PATH 0` (`dump inode` needs the file's number, which the request
does not carry). Both are reads; at most MAX_LOOKUPS targets are looked at per read, the oldest waits first.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cephtui.ceph.cephfs.model import FsStatus
from cephtui.ceph.cluster import Cluster
from cephtui.ceph.errors import CephError

MAX_LOOKUPS = 6  # targets looked up per read (two MDS reads each), the oldest requests' first
# client_request(client.4126:2 lookup #0x1/held.txt 2026-12-07T14:59:18.674878+0000 caller_uid=0, caller_gid=0{})
_CLIENT_REQUEST = re.compile(r"^client_request\(client\.(\d+):(\d+) (\S+)(.*?)(?: \d{4}-\d\d-\d\dT\S+)?"
                             r"(?: RETRY=\d+)?(?: FWD=\d+)?(?: REPLAY)? caller_uid=")
_TARGET = re.compile(r"^#(0x[0-9a-f]+)(?:/(.*))?$")
CAP_GROUPS = "ALXF"  # auth, link, xattr, file: ccap_string writes "p" then each group's letter and its flags


@dataclass(frozen=True)
class MdsRequest:
    """One request in flight at one rank (an entry of `dump_ops_in_flight`)."""

    rank: int
    description: str
    age: float
    flag_point: str  # where it is: "failed to rdlock, waiting", "dispatched", "submit entry: journal_and_reply" …
    initiated_at: str
    op_type: str  # client_request, peer_request, internal_op …
    client_id: int | None = None  # the client whose request it is (client_request only)
    op: str = ""  # lookup, open, create, setattr, getattr, unlink, rename …
    targets: tuple[str, ...] = ()  # as the MDS wrote them: "#0x1/held.txt", "#0x10000000000"
    events: tuple[tuple[str, str], ...] = ()  # (time, event), oldest first
    blocked: bool = False  # listed by dump_blocked_ops: older than mds_op_complaint_time

    @property
    def waiting(self) -> bool:
        """Waiting for a lock (and so, often, for a client to give caps back)."""
        return "waiting" in self.flag_point or self.flag_point.startswith("failed to")

    @property
    def who(self) -> str:
        return f"client.{self.client_id}" if self.client_id is not None else self.op_type


@dataclass(frozen=True)
class Holder:
    """A client the MDS is taking caps back from, on one inode."""

    client_id: int
    path: str
    issued: str
    pending: str
    wanted: str
    revoking: str  # issued minus pending, as ccap_string writes caps: "Ax", "Fwb"

    def to_json(self) -> dict[str, Any]:
        return {"client_id": self.client_id, "path": self.path, "issued": self.issued, "pending": self.pending,
                "wanted": self.wanted, "revoking": self.revoking}


@dataclass(frozen=True)
class Requests:
    """One file system's requests in flight, the paths of their targets and who holds them up."""

    fs: str
    requests: tuple[MdsRequest, ...] = ()
    paths: Mapping[str, str] = field(default_factory=dict)  # target -> its path ("#0x1/held.txt" -> "/held.txt")
    holders: Mapping[str, tuple[Holder, ...]] = field(default_factory=dict)  # target -> the clients it waits on
    problems: tuple[str, ...] = ()
    complaint_time: float | None = None  # mds_op_complaint_time as dump_blocked_ops said it

    def blockers(self, request: MdsRequest) -> tuple[Holder, ...]:
        """The clients `request` waits on (never the request's own client)."""
        if not request.waiting:
            return ()
        return tuple(h for t in request.targets for h in self.holders.get(t, ()) if h.client_id != request.client_id)

    def path(self, request: MdsRequest) -> str:
        return " → ".join(self.paths.get(t, t) for t in request.targets)


def cap_groups(caps: str) -> dict[str, set[str]]:
    """ccap_string's text as {group: flags}: "pAsxLsFsxcrwb" -> {"p": {""}, "A": {"s","x"}, "L": {"s"}, "F": {...}}."""
    groups: dict[str, set[str]] = {}
    current = ""
    for ch in caps.strip():
        if ch == "-":
            continue
        if ch == "p" and not current:
            groups["p"] = {""}
        elif ch.isupper():
            current = ch
            groups.setdefault(ch, set())
        elif current:
            groups[current].add(ch)
    return groups


def revoking(issued: str, pending: str) -> str:
    """The caps issued and no longer pending, the ones the MDS is taking back ("" when none), as Ceph writes caps."""
    have, keep = cap_groups(issued), cap_groups(pending)
    out = "p" if "p" in have and "p" not in keep else ""
    for group in CAP_GROUPS:
        gone = have.get(group, set()) - keep.get(group, set())
        if gone:
            out += group + "".join(f for f in "sxcrwbal" if f in gone)
    return out


def parse_description(description: str) -> tuple[int | None, str, tuple[str, ...]]:
    """(client id, operation, targets) of a client_request's description; (None, "", ()) for other ops."""
    m = _CLIENT_REQUEST.match(description)
    if not m:
        return None, "", ()
    targets = tuple(word for word in m.group(4).split() if word.startswith(("#", "/")))
    return int(m.group(1)), m.group(3), targets


def requests_from(answer: Mapping[str, Any] | None, rank: int, blocked: Iterable[str] = ()) -> list[MdsRequest]:
    """`dump_ops_in_flight`'s ops as MdsRequests (oldest first); `blocked`: the descriptions dump_blocked_ops listed."""
    slow = set(blocked)
    out = []
    for op in (answer or {}).get("ops") or []:
        if not isinstance(op, Mapping):
            continue
        desc = str(op.get("description", ""))
        data = op.get("type_data") or {}
        client_id, name, targets = parse_description(desc)
        events = tuple((str(e.get("time", "")), str(e.get("event", ""))) for e in data.get("events") or []
                       if isinstance(e, Mapping))
        out.append(MdsRequest(rank=rank, description=desc, age=float(op.get("age") or 0.0),
                              flag_point=str(data.get("flag_point", "")), initiated_at=str(op.get("initiated_at", "")),
                              op_type=str(data.get("op_type", "")), client_id=client_id, op=name, targets=targets,
                              events=events, blocked=desc in slow))
    return sorted(out, key=lambda r: -r.age)


def holders_in(inode: Mapping[str, Any], path: str) -> list[Holder]:
    """The clients an inode's dump shows caps being taken back from (issued beyond pending)."""
    out = []
    for cap in inode.get("client_caps") or []:
        if not isinstance(cap, Mapping):
            continue
        issued, pending = str(cap.get("issued", "")), str(cap.get("pending", ""))
        gone = revoking(issued, pending)
        if gone:
            out.append(Holder(int(cap.get("client_id", 0)), path, issued, pending, str(cap.get("wanted", "")), gone))
    return out


def _lookup(cluster: Cluster, spec: str, target: str) -> tuple[str, list[Holder]]:
    """(the target's path, the clients its inode and its directory wait on). CephError when the MDS refuses."""
    m = _TARGET.match(target)
    if not m:  # an absolute path ("/a/b"): the tree from there
        tree = cluster.mds_tell(spec, "dump tree", root=target, depth=0) or []
        return target, [h for i in tree if isinstance(i, Mapping) for h in holders_in(i, target)]
    ino, name = int(m.group(1), 16), m.group(2) or ""
    directory = cluster.mds_tell(spec, "dump inode", number=ino) or {}
    where = str(directory.get("path", "")) or f"#{m.group(1)}"
    holders = holders_in(directory, where)
    if not name:
        return where, holders
    path = f"{where.rstrip('/')}/{name}"
    tree = cluster.mds_tell(spec, "dump tree", root=path, depth=0) or []
    return path, holders + [h for i in tree if isinstance(i, Mapping) for h in holders_in(i, path)]


def read_requests(cluster: Cluster, status: FsStatus, fs_name: str) -> Requests:
    """Every active rank's requests in flight, the oldest waiting ones' paths and holders. A rank that cannot be
    asked is a problem said beside the others (a hung MDS holds one command of ours at most: tell.py)."""
    fs = status.get(fs_name)
    if fs is None:
        return Requests(fs_name, problems=(f"no file system is called {fs_name!r}",))
    requests: list[MdsRequest] = []
    problems: list[str] = []
    complaint: float | None = None
    for rank in fs.active:
        spec = f"{fs.name}:{rank.rank}"
        try:
            in_flight = cluster.mds_tell(spec, "dump_ops_in_flight")
            slow = cluster.mds_tell(spec, "dump_blocked_ops") or {}
        except CephError as e:
            problems.append(f"mds.{rank.name} (rank {rank.rank}): {e.message}")
            continue
        if slow.get("complaint_time") is not None:
            complaint = float(slow["complaint_time"])
        slow_ops = [o for o in slow.get("ops") or [] if isinstance(o, Mapping)]
        requests += requests_from(in_flight, rank.rank, (str(o.get("description", "")) for o in slow_ops))
    requests.sort(key=lambda r: -r.age)
    paths: dict[str, str] = {}
    holders: dict[str, tuple[Holder, ...]] = {}
    for request in _to_look_up(requests):
        for target in request.targets:
            if target in paths or len(paths) >= MAX_LOOKUPS:
                continue
            try:
                paths[target], found = _lookup(cluster, f"{fs.name}:{request.rank}", target)
            except CephError as e:
                paths[target] = target
                problems.append(f"{target} at rank {request.rank}: {e.message}")
                continue
            holders[target] = tuple(found)
    return Requests(fs.name, tuple(requests), paths, holders, tuple(problems), complaint)


def _to_look_up(requests: Sequence[MdsRequest]) -> list[MdsRequest]:
    """The waiting requests first (oldest first), then the others: whose targets get a path and holders."""
    return [r for r in requests if r.waiting] + [r for r in requests if not r.waiting]
