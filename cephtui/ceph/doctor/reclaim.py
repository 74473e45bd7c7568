"""Before insecure global_id reclaim is switched off: which clients connected to a monitor still reclaim
insecurely (`ceph tell mon.ID sessions`: each session's `global_id_status`). Those would be locked out."""
from __future__ import annotations

from typing import Any

from cephtui.ceph.cluster import Tells
from cephtui.ceph.coerce import as_dict, as_list, as_str, dicts
from cephtui.ceph.doctor.model import Precheck
from cephtui.ceph.errors import CephError

INSECURE = "reclaim_insecure"


def _addr(s: dict[str, Any]) -> str:
    sock = as_dict(s.get("socket_addr"))
    if sock.get("addr"):
        return as_str(sock.get("addr"))
    vec = [as_dict(a) for a in as_list(as_dict(s.get("addrs")).get("addrvec"))]
    return ",".join(as_str(a.get("addr")) for a in vec) or "?"


def insecure_sessions(d: Any) -> tuple[int, list[str]]:
    """(sessions seen, "client.X (client.4123) at ADDR" for each session that reclaims insecurely)."""
    sessions = dicts(d.get("sessions") if isinstance(d, dict) else d)
    bad = [f"{as_str(s.get('entity_name')) or '?'} ({as_str(s.get('name'))}) at {_addr(s)}"
           for s in sessions if as_str(s.get("global_id_status")) == INSECURE]
    return len(sessions), bad


def precheck(client: Tells, quorum: tuple[str, ...]) -> Precheck:
    """Every monitor in quorum asked for its sessions (sessions are per monitor): the fix is blocked while
    any names a client that still reclaims insecurely, as switching it off would lock that client out."""
    lines: list[str] = []
    blocked = False
    for mon in quorum:
        try:
            seen, bad = insecure_sessions(client.mon_tell(mon, "sessions"))
        except CephError as e:
            lines.append(f"could not ask mon.{mon} for its sessions: {e.message}")
            continue
        if bad:
            blocked = True
            lines.append(f"mon.{mon}: {len(bad)} client(s) still reclaim insecurely and would be locked out "
                         f"(upgrade them first): {', '.join(bad[:10])}")
        else:
            lines.append(f"mon.{mon}: {seen} sessions, none reclaims insecurely (ceph tell mon.{mon} sessions)")
    return Precheck(tuple(lines), blocked)
