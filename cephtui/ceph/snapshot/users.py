"""cephx entities from `auth ls`, without their keys.

The key is dropped while parsing: nothing in a snapshot (and so nothing on
screen, in logs or in `snapshot --json`) carries a secret. Revealing a key is
a separate, explicit `auth get-key` when the operator asks for it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cephtui.ceph.coerce import as_dict, as_str, dicts

DAEMON_TYPES = ("mon", "mgr", "osd", "mds")


@dataclass(frozen=True)
class AuthEntity:
    name: str  # client.admin, osd.3, mgr.x, client.bootstrap-osd …
    caps: tuple[tuple[str, str], ...]  # (service, cap) in mon, mgr, osd, mds order, then others

    @property
    def type(self) -> str:
        return self.name.split(".", 1)[0]

    @property
    def is_daemon(self) -> bool:
        """A daemon's own key (osd.3, mgr.x …) or a bootstrap key used to make them."""
        return self.type in DAEMON_TYPES or self.name.startswith("client.bootstrap-")

    def cap(self, service: str) -> str:
        return dict(self.caps).get(service, "")

    @property
    def caps_dict(self) -> dict[str, str]:
        return dict(self.caps)


def parse_auth_ls(d: Any) -> tuple[AuthEntity, ...]:
    """`auth ls` ({auth_dump: [...]}, or a bare list); entries or caps of another shape are skipped."""
    entries = dicts(d.get("auth_dump")) if isinstance(d, dict) else dicts(d)
    order = {s: i for i, s in enumerate(DAEMON_TYPES)}
    out = []
    for e in entries:
        # A cap that is not text (null, a list) is left out rather than shown as "None".
        items = sorted(((str(k), v) for k, v in as_dict(e.get("caps")).items() if isinstance(v, str)),
                       key=lambda kv: (order.get(kv[0], 9), kv[0]))
        out.append(AuthEntity(name=as_str(e.get("entity")), caps=tuple(items)))
    # Clients first (what admins manage), then daemons' and bootstrap keys.
    return tuple(sorted(out, key=lambda a: (a.is_daemon, a.type, a.name)))
