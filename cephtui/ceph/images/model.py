"""What the Images tab and `cephtui rbd ls` know about an RBD image: frozen, built off the UI thread.

An image's listing entry (its name) costs nothing: one omap read lists a whole pool. Its details cost an open
of the image (header, snapshots, children, watchers) and, for the used size, a diff walk: cheap with
fast-diff, a scan of every object without it. So details are fetched per image, for the rows on screen.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

# librbd's feature bits, named as `rbd info` prints them (src/include/rbd/features.h).
FEATURE_NAMES = (
    (1 << 0, "layering"), (1 << 1, "striping"), (1 << 2, "exclusive-lock"), (1 << 3, "object-map"),
    (1 << 4, "fast-diff"), (1 << 5, "deep-flatten"), (1 << 6, "journaling"), (1 << 7, "data-pool"),
    (1 << 8, "operations"), (1 << 9, "migrating"), (1 << 10, "non-primary"),
)
# Image flags (`rbd info`'s "flags:"): an object map or fast-diff that cannot be trusted.
FLAG_OBJECT_MAP_INVALID, FLAG_FAST_DIFF_INVALID = 1, 2
FEATURE_FAST_DIFF = 1 << 4
# `rbd mirror image status`'s states, as librbd's mirror_image_get_info() numbers them.
MIRROR_STATES = {0: "disabling", 1: "enabled", 2: "", 3: ""}  # 2: disabled, 3: not mirrored (shown as nothing)


def utcnow() -> dt.datetime:
    """Now, naive and in UTC: python3-rbd gives its timestamps so (utcfromtimestamp), and ages compare to it."""
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)


def naive_utc(value: object) -> dt.datetime | None:
    """A librbd timestamp as naive UTC: Pacific's and Reef's python3-rbd give naive UTC, Tentacle's an aware one."""
    if not isinstance(value, dt.datetime):
        return None
    return value.astimezone(dt.timezone.utc).replace(tzinfo=None) if value.tzinfo is not None else value


def feature_names(bits: int) -> tuple[str, ...]:
    return tuple(name for bit, name in FEATURE_NAMES if bits & bit)


@dataclass(frozen=True, order=True)
class ImageRef:
    """pool[/namespace]/name: how `rbd` names an image (its image spec)."""

    pool: str
    name: str
    namespace: str = ""

    @property
    def spec(self) -> str:
        return f"{self.pool}/{self.namespace}/{self.name}" if self.namespace else f"{self.pool}/{self.name}"

    @property
    def place(self) -> str:
        """The pool (and namespace) as `rbd ls` takes it."""
        return f"{self.pool}/{self.namespace}" if self.namespace else self.pool


@dataclass(frozen=True)
class Snap:
    id: int
    name: str
    size: int
    protected: bool
    timestamp: dt.datetime | None
    used: int | None = None  # `rbd du`'s used_size of this snapshot (what it holds beyond the one before)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "size": self.size, "protected": self.protected,
                "timestamp": self.timestamp.isoformat() if self.timestamp else None, "used_size": self.used}


@dataclass(frozen=True)
class Watcher:
    address: str  # "127.0.0.1:0/123456789": the client's address and nonce
    client_id: int = 0
    host: str = ""  # the address resolved through the cluster's own knowledge (a mon, OSD or mgr host), or ""

    @property
    def ip(self) -> str:
        addr = self.address.split("/")[0]
        return addr.rsplit(":", 1)[0].strip("[]")

    def describe(self) -> str:
        who = f"client.{self.client_id}" if self.client_id else "a client"
        return f"{who} at {self.address}" + (f" ({self.host})" if self.host else "")

    def to_json(self) -> dict[str, Any]:
        return {"address": self.address, "id": self.client_id, "host": self.host}


@dataclass(frozen=True)
class ImageInfo:
    """One image's details, as `rbd info`, `rbd snap ls`, `rbd status`, `rbd children` and `rbd du` say."""

    ref: ImageRef
    id: str
    size: int  # provisioned
    object_size: int
    features: tuple[str, ...]
    flags: int = 0
    data_pool: str = ""  # an erasure-coded data pool, when the image has one
    parent: str = ""  # "pool/image@snap" for a clone
    children: tuple[str, ...] = ()  # "pool/image" of the clones of any of its snapshots
    snaps: tuple[Snap, ...] = ()
    watchers: tuple[Watcher, ...] = ()
    mirroring: str = ""  # "" when the image is not mirrored
    created: dt.datetime | None = None
    used: int | None = None  # `rbd du`'s used_size of the image itself (its head); None: not measured (yet)
    used_exact: bool = True  # False: no valid fast-diff, so measured by scanning (or not yet)
    problem: str = ""  # why some of the details could not be read

    @property
    def fast_diff(self) -> bool:
        return "fast-diff" in self.features and not self.flags & (FLAG_OBJECT_MAP_INVALID | FLAG_FAST_DIFF_INVALID)

    @property
    def snaps_used(self) -> int:
        """What its snapshots hold beyond one another and the head (`rbd du`'s snapshot lines; <TOTAL> is
        this plus `used`): space the image's own used size leaves out."""
        return sum(s.used or 0 for s in self.snaps)

    @property
    def protected_snaps(self) -> tuple[Snap, ...]:
        return tuple(s for s in self.snaps if s.protected)

    @property
    def newest_snap(self) -> Snap | None:
        stamped = [s for s in self.snaps if s.timestamp is not None]
        return max(stamped, key=lambda s: s.timestamp or dt.datetime.min) if stamped else None

    def to_json(self) -> dict[str, Any]:
        """`cephtui rbd ls --json`: the names `rbd du --format json` and `rbd info --format json` use."""
        return {
            "name": self.ref.name, "pool": self.ref.pool, "namespace": self.ref.namespace, "id": self.id,
            "provisioned_size": self.size, "used_size": self.used, "used_size_exact": self.used_exact,
            "object_size": self.object_size, "features": list(self.features), "data_pool": self.data_pool or None,
            "parent": self.parent or None, "children": list(self.children),
            "snapshots": [s.to_json() for s in self.snaps], "watchers": [w.to_json() for w in self.watchers],
            "mirroring": self.mirroring or None,
            "create_timestamp": self.created.isoformat() if self.created else None,
            "problem": self.problem or None,
        }


@dataclass(frozen=True)
class TrashEntry:
    pool: str
    namespace: str
    id: str
    name: str
    source: str  # USER, MIRRORING, MIGRATION, REMOVING
    deleted: dt.datetime | None
    deferred_until: dt.datetime | None

    def expired(self, now: dt.datetime) -> bool:
        return self.deferred_until is None or self.deferred_until <= now

    @property
    def place(self) -> str:
        return f"{self.pool}/{self.namespace}" if self.namespace else self.pool

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "pool": self.pool, "namespace": self.namespace,
                "source": self.source, "deleted_at": self.deleted.isoformat() if self.deleted else None,
                "deferment_end_time": self.deferred_until.isoformat() if self.deferred_until else None}


@dataclass(frozen=True)
class Place:
    """A pool, or a namespace in it, that holds images (what the tab's pool picker offers)."""

    pool: str
    namespace: str = ""

    @property
    def spec(self) -> str:
        return f"{self.pool}/{self.namespace}" if self.namespace else self.pool
