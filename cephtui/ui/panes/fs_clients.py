"""The File systems tab's clients: which health checks name which client, the filter, the order of the rows, and
the short version text. Pure functions of `session ls` and `ceph health detail`, kept apart from the pane."""
from __future__ import annotations

import re
from collections.abc import Sequence

from cephtui.ceph.cephfs.model import Session
from cephtui.ceph.snapshot.models import HealthCheck

COLUMNS = (("client", 16), ("host", 16), ("key", 14), ("root", 14), ("kind", 9), ("version", 10), ("caps", 8),
           ("recall", 7), ("reqs", 5), ("state", 8), ("age", 8), ("rank", 4))
# The checks that name one client (their detail says `client_id: N`): src/mds/Beacon.cc.
CLIENT_CHECKS = ("MDS_CLIENT_LATE_RELEASE", "MDS_CLIENT_RECALL", "MDS_CLIENT_OLDEST_TID",
                 "MDS_CLIENT_LATE_RELEASE_MANY", "MDS_CLIENT_RECALL_MANY")
CLIENT_ID = re.compile(r"client_id: (\d+)")
VERSION = re.compile(r"ceph version (\S+) \(\w+\) (\w+)")  # "ceph version 16.2.15 (618f…) pacific (stable)"
def fs_checks(checks: Sequence[HealthCheck]) -> list[HealthCheck]:
    """The health checks about file systems and MDS daemons (FS_* and MDS_*), as `ceph health detail` lists them."""
    return [c for c in checks if c.code.startswith(("FS_", "MDS_"))]


def named_clients(checks: Sequence[HealthCheck]) -> dict[int, list[str]]:
    """client id -> the checks that name it (by their detail's `client_id: N`)."""
    named: dict[int, list[str]] = {}
    for check in checks:
        if check.code in CLIENT_CHECKS:
            for line in check.detail:
                m = CLIENT_ID.search(line)
                if m:
                    named.setdefault(int(m.group(1)), []).append(check.code)
    return named


def client_matches(s: Session, text: str) -> bool:
    """Every filter word in the client's id, key, host, address, root, kind or state."""
    hay = " ".join((s.entity, s.key_name, s.hostname, s.addr, s.root, s.kind, s.state, s.version)).lower()
    return all(w in hay for w in text.lower().split())


def client_rows(sessions: Sequence[Session], text: str, named: dict[int, list[str]]) -> list[Session]:
    """The clients shown: filtered, the ones a health check names first, then by caps held (most first)."""
    picked = [s for s in sessions if client_matches(s, text)] if text.strip() else list(sessions)
    return sorted(picked, key=lambda s: (s.id not in named, -s.num_caps, s.id))


def short_version(text: str) -> str:
    """'ceph version 16.2.15 (618f…) pacific (stable)' -> '16.2.15 pacific'; other texts as they are."""
    m = VERSION.match(text)
    return f"{m.group(1)} {m.group(2)}" if m else text
