"""Read images through librbd, as `rbd ls`, `rbd info`, `rbd snap ls`, `rbd status`, `rbd du` and
`rbd trash ls` do: the same library calls, so the same answers.

Costs, per call: `list_names` is one omap read for a whole pool (10,000 names in one call); `read_image` opens
one image read-only (a handful of OSD reads, and never a watch: a read-only open does not register one, so we
never show up as a watcher ourselves); its used size walks the image's diff, which with a valid fast-diff map
reads the object map only, and without it asks every object (what `rbd du` warns about). Everything here
blocks on OSDs (bounded by rados_osd_op_timeout) and runs in a worker thread, never on the UI's.
"""
from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from typing import Any

from cephtui.ceph.errors import CephError
from cephtui.ceph.images.binding import RBD_MISSING, rbd, rbd_pools
from cephtui.ceph.images.model import (
    MIRROR_STATES,
    ImageInfo,
    ImageRef,
    Place,
    Snap,
    TrashEntry,
    Watcher,
    feature_names,
    naive_utc,
)

USER_SNAP = 0  # RBD_SNAP_NAMESPACE_TYPE_USER: group, trash and mirror snapshots are librbd's own


class ImagesUnavailable(Exception):
    """The rbd module is missing, or the pools cannot be listed: `str()` says which and what to do."""


def require_rbd() -> Any:
    if rbd is None:
        raise ImagesUnavailable(RBD_MISSING.replace("block benchmarks need", "the Images tab needs"))
    return rbd


def places(client: Any) -> tuple[tuple[Place, ...], tuple[str, ...]]:
    """The pools with the `rbd` application and their namespaces, and what could not be listed."""
    mod = require_rbd()
    try:
        pools = rbd_pools(client.mon("osd pool ls", detail="detail"))
    except CephError as e:
        raise ImagesUnavailable(f"cannot list pools: {e.message}") from None
    out: list[Place] = []
    problems: list[str] = []
    for pool in pools:
        out.append(Place(pool))
        try:
            with client.handle.open_ioctx(pool) as io:
                out += [Place(pool, ns) for ns in sorted(mod.RBD().namespace_list(io))]
        except Exception as e:  # rados.Error, rbd.Error: the pool itself is still offered
            problems.append(f"cannot list the namespaces of {pool}: {e}")
    return tuple(out), tuple(problems)


def open_ioctx(handle: Any, place: Place | ImageRef) -> Any:
    io = handle.open_ioctx(place.pool)
    if place.namespace:
        io.set_namespace(place.namespace)
    return io


def list_names(handle: Any, place: Place) -> tuple[str, ...]:
    """The images in a pool (namespace), sorted: one omap read of its rbd_directory, as `rbd ls`."""
    mod = require_rbd()
    with open_ioctx(handle, place) as io:
        return tuple(sorted(i["name"] for i in mod.RBD().list2(io)))


def list_trash(handle: Any, place: Place) -> tuple[TrashEntry, ...]:
    """`rbd trash ls --long`: the images moved to the trash, with when they may be purged."""
    mod = require_rbd()
    with open_ioctx(handle, place) as io:
        entries = list(mod.RBD().trash_list(io))
    return tuple(sorted((TrashEntry(place.pool, place.namespace, str(e.get("id", "")), str(e.get("name", "")),
                                    _trash_source(e.get("source")), naive_utc(e.get("deletion_time")),
                                    naive_utc(e.get("deferment_end_time"))) for e in entries),
                        key=lambda t: (t.name, t.id)))


def _trash_source(value: Any) -> str:
    if isinstance(value, str):
        return value
    return {0: "USER", 1: "MIRRORING", 2: "MIGRATION", 3: "REMOVING"}.get(value, str(value))


def read_image(handle: Any, ref: ImageRef, du: str = "fast", hosts: Callable[[str], str] | None = None) -> ImageInfo:
    """One image's details. du: "fast" measures the used size only where fast-diff makes it cheap,
    "scan" always (slow without fast-diff), "none" never. Raises rbd.ImageNotFound when it is gone."""
    mod = require_rbd()
    with open_ioctx(handle, ref) as io, mod.Image(io, ref.name, read_only=True) as image:
        stat = image.stat()
        features = int(image.features())
        flags = int(image.flags())
        problems: list[str] = []
        data_pool = ""
        try:
            pid = int(image.data_pool_id())
            if pid >= 0 and pid != io.get_pool_id():
                data_pool = handle.pool_reverse_lookup(pid) or str(pid)
        except Exception as e:
            problems.append(f"data pool: {e}")
        parent = ""
        try:
            p = image.get_parent_image_spec()
            ns = f"{p['pool_namespace']}/" if p.get("pool_namespace") else ""
            parent = f"{p['pool_name']}/{ns}{p['image_name']}@{p['snap_name']}"
        except mod.ImageNotFound:
            pass
        snaps = _snaps(image)
        children = tuple(_child_spec(c) for c in image.list_children2())
        watchers = tuple(_watcher(w, hosts) for w in image.watchers_list())
        mirroring = ""
        try:
            mirroring = MIRROR_STATES.get(int(image.mirror_image_get_info().get("state", 3)), "")
        except Exception:  # mirroring not configured in this pool: nothing to say
            pass
        created = _timestamp(image, "create_timestamp")
        info = ImageInfo(ref, str(image.id()), int(stat["size"]), int(stat["obj_size"]), feature_names(features),
                         flags, data_pool, parent, children, snaps, watchers, mirroring, created)
        if du == "scan" or (du == "fast" and info.fast_diff):
            try:
                used, snaps = disk_usage(image, snaps, int(stat["size"]))
                info = _replace(info, used=used, snaps=snaps, used_exact=info.fast_diff)
            except Exception as e:
                problems.append(f"used size: {e}")
        else:
            info = _replace(info, used_exact=info.fast_diff)
    if problems:
        info = _replace(info, problem="; ".join(problems))
    return info


def _replace(info: ImageInfo, **kw: Any) -> ImageInfo:
    from dataclasses import replace
    return replace(info, **kw)


def _snaps(image: Any) -> tuple[Snap, ...]:
    out = []
    for s in image.list_snaps():
        if int(s.get("namespace", USER_SNAP)) != USER_SNAP:
            continue
        name = str(s["name"])
        try:
            protected = bool(image.is_protected_snap(name))
        except Exception:
            protected = False
        try:
            stamp = naive_utc(image.get_snap_timestamp(int(s["id"])))
        except Exception:
            stamp = None
        out.append(Snap(int(s["id"]), name, int(s["size"]), protected, stamp))
    return tuple(sorted(out, key=lambda s: s.id))


def _child_spec(c: dict[str, Any]) -> str:
    ns = f"{c['pool_namespace']}/" if c.get("pool_namespace") else ""
    trash = " (in the trash)" if c.get("trash") else ""
    return f"{c['pool']}/{ns}{c['image']}{trash}"


def _watcher(w: dict[str, Any], hosts: Callable[[str], str] | None) -> Watcher:
    addr = str(w.get("addr", "?"))
    watcher = Watcher(addr, int(w.get("id", 0) or 0))
    return Watcher(addr, watcher.client_id, hosts(watcher.ip) if hosts else "")


def _timestamp(image: Any, method: str) -> dt.datetime | None:
    try:
        value = getattr(image, method)()
    except Exception:
        return None
    return naive_utc(value)


def disk_usage(image: Any, snaps: Iterable[Snap], size: int) -> tuple[int, tuple[Snap, ...]]:
    """`rbd du`: each snapshot's used size beyond the snapshot before it, and the head's beyond the last
    snapshot; whole objects, the parent's data not counted (src/tools/rbd/action/DiskUsage.cc)."""
    out: list[Snap] = []
    before: str | None = None
    for s in snaps:
        image.set_snap(s.name)
        out.append(_with_used(s, _diff_used(image, before, s.size)))
        before = s.name
    image.set_snap(None)
    return _diff_used(image, before, size), tuple(out)


def _with_used(s: Snap, used: int) -> Snap:
    from dataclasses import replace
    return replace(s, used=used)


def _diff_used(image: Any, from_snap: str | None, size: int) -> int:
    total = 0

    def count(offset: int, length: int, exists: bool) -> int:
        nonlocal total
        if exists:
            total += length
        return 0

    image.diff_iterate(0, size, from_snap, count, include_parent=False, whole_object=True)
    return total


def used_extents(handle: Any, ref: ImageRef) -> tuple[tuple[int, int], ...]:
    """Where the image holds data (whole objects, its own only, merged): what a shrink would cut off."""
    mod = require_rbd()
    out: list[tuple[int, int]] = []

    def add(offset: int, length: int, exists: bool) -> int:
        if exists:
            if out and out[-1][0] + out[-1][1] == offset:
                out[-1] = (out[-1][0], out[-1][1] + length)
            else:
                out.append((offset, length))
        return 0

    with open_ioctx(handle, ref) as io, mod.Image(io, ref.name, read_only=True) as image:
        image.diff_iterate(0, image.size(), None, add, include_parent=False, whole_object=True)
    return tuple(out)


def bytes_past(extents: tuple[tuple[int, int], ...], end: int) -> int:
    return sum(max(0, off + length - max(off, end)) for off, length in extents)


def snap_children(handle: Any, ref: ImageRef, snap: str) -> tuple[str, ...]:
    """The clones of one snapshot (`rbd children pool/image@snap`): what stops its unprotect."""
    mod = require_rbd()
    with open_ioctx(handle, ref) as io, mod.Image(io, ref.name, snapshot=snap, read_only=True) as image:
        return tuple(_child_spec(c) for c in image.list_children2())


def host_names(client: Any) -> Callable[[str], str]:
    """Which host an IP is, from what the cluster knows (mon, mgr and OSD addresses in `osd metadata`'s
    hostnames): a watcher on a hypervisor that also runs an OSD is named; others stay their address."""
    table: dict[str, str] = {}
    try:
        for m in client.mon("osd metadata") or []:
            host = str(m.get("hostname", ""))
            for key in ("front_addr", "back_addr"):
                for part in str(m.get(key, "")).replace("[", " ").replace("]", " ").replace(",", " ").split():
                    ip = part.split(":")[1] if part.startswith(("v1:", "v2:")) else part.split(":")[0]
                    if ip and host:
                        table.setdefault(ip.split("/")[0], host)
    except (CephError, AttributeError, TypeError, ValueError):
        pass
    try:  # a mon's name is its host's on most deployments (cephadm, Proxmox): "mon.pve1"
        for m in (client.mon("mon dump") or {}).get("mons", []):
            for a in (m.get("public_addrs") or {}).get("addrvec", []):
                ip = str(a.get("addr", "")).rsplit(":", 1)[0].strip("[]")
                if ip:
                    table.setdefault(ip, f"mon.{m.get('name', '?')}")
    except (CephError, AttributeError, TypeError, ValueError):
        pass
    return lambda ip: table.get(ip, "")
