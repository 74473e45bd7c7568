"""cephx user operations: create, caps, delete, key, export."""
from __future__ import annotations

import re

from cephtui.ceph.ops.core import DESTROYS, Operation
from cephtui.ceph.validate import check_length, cli_line

ENTITY_RE = re.compile(r"^(client|osd|mds|mgr|mon)\.[A-Za-z0-9_.-]+$")
CAP_SERVICES = ("mon", "mgr", "osd", "mds")


def check_entity(name: str) -> str:
    name = name.strip()
    check_length(name, "entity name")
    if not ENTITY_RE.match(name):
        raise ValueError(f"'{name}' is not an entity name like client.NAME (letters, digits, '-', '_', '.')")
    return name


def _caps_words(caps: dict[str, str]) -> list[str]:
    words: list[str] = []
    for svc in CAP_SERVICES:
        if caps.get(svc, "").strip():
            words += [svc, caps[svc].strip()]
    return words


def auth_get_or_create(entity: str, caps: dict[str, str]) -> Operation:
    entity = check_entity(entity)
    words = _caps_words(caps)
    if not words:
        raise ValueError("give at least one capability")
    return Operation(title=f"Create {entity}", prefix="auth get-or-create", args=(("entity", entity), ("caps", words)),
                     cli=cli_line("auth", "get-or-create", entity, *words))


def auth_caps(entity: str, caps: dict[str, str]) -> Operation:
    """Ceph replaces every cap of the entity at once: services left out lose their caps."""
    entity = check_entity(entity)
    words = _caps_words(caps)
    if not words:
        raise ValueError("give at least one capability (an entity without caps can do nothing)")
    return Operation(title=f"Replace the caps of {entity}", prefix="auth caps",
                     args=(("entity", entity), ("caps", words)),
                     cli=cli_line("auth", "caps", entity, *words))


def auth_del(entity: str) -> Operation:
    entity = check_entity(entity)
    return Operation(title=f"Delete {entity} and its key", prefix="auth del", args=(("entity", entity),),
                     cli=cli_line("auth", "del", entity), impact=DESTROYS, confirm_text=entity)




def auth_get_key(entity: str) -> Operation:
    """A read, but of a secret: audited like a change (the key itself never goes into the log)."""
    entity = check_entity(entity)
    return Operation(title=f"Reveal the key of {entity}", prefix="auth get-key", args=(("entity", entity),),
                     cli=cli_line("auth", "get-key", entity))


def auth_export(entity: str, path: str) -> Operation:
    entity = check_entity(entity)
    return Operation(title=f"Export the keyring of {entity}", prefix="auth get", args=(("entity", entity),),
                     cli=cli_line("auth", "get", entity, "-o", path))
