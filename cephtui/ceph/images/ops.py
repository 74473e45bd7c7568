"""Image operations: each an Operation carrying the exact `rbd` command, run through librbd (the library the
`rbd` CLI itself calls), audited like every mon command, refused in read-only mode.

`build_*` check what can be checked before anything is sent (a watched image is not removed or rolled back,
a snapshot with clones is not unprotected, a shrink says how much data lies past the new end) and raise
ValueError with the reason; `execute` runs one operation and turns librbd's refusal into a CephError whose
text is librbd's own. Flatten goes to the mgr as a task (`ceph rbd task add flatten`): it runs in the mgr,
survives this cephtui, and reports its progress in `ceph rbd task list`.
"""
from __future__ import annotations

import errno as errno_mod
import re
from typing import Any

from cephtui.ceph import validate
from cephtui.ceph.cluster import Cluster
from cephtui.ceph.errors import CephError, CephReadOnly
from cephtui.ceph.format import human_bytes
from cephtui.ceph.images.model import FEATURE_NAMES, ImageInfo, ImageRef, Place, TrashEntry
from cephtui.ceph.images.reader import bytes_past, open_ioctx, read_image, require_rbd
from cephtui.ceph.ops.core import DESTROYS, Operation

# What `rbd create --image-feature` accepts by name (layering needs nothing; the rest depend on each other).
CREATABLE_FEATURES = ("layering", "exclusive-lock", "object-map", "fast-diff", "deep-flatten", "journaling")
_NAME = re.compile(r"^[^/@\s]+$")  # librbd refuses '/' and '@' in image and snapshot names


def _size_cli(size: int) -> str:
    for unit, scale in (("T", 1024**4), ("G", 1024**3), ("M", 1024**2), ("K", 1024)):
        if size % scale == 0:
            return f"{size // scale}{unit}"
    return f"{size}B"


def parse_image_size(text: str, what: str = "size", unit: int = 1) -> int:
    """A size as `rbd` reads it: with a unit (4K, 10G), or a bare number in `unit`: `rbd create --size 10` is
    10 MiB, `--object-size 4096` is bytes."""
    if text.strip().isdigit():
        text = str(int(text.strip()) * unit)
    try:
        return validate.parse_size(text)
    except ValueError as e:
        raise ValueError(f"{what}: {e}") from None


def check_name(name: str, what: str = "image name") -> str:
    name = name.strip()
    if not name:
        raise ValueError(f"{what}: required")
    if not _NAME.match(name):
        raise ValueError(f"{what} {name!r}: no '/', '@' or spaces (librbd refuses them)")
    return name


def _librbd(**kw: Any) -> Operation:
    """An image operation librbd runs (ops.run calls `execute` for it), as the `rbd` CLI does."""
    return Operation(run_by=execute, **kw)


def _args(ref: ImageRef, **more: Any) -> tuple[tuple[str, Any], ...]:
    return (("pool", ref.pool), ("namespace", ref.namespace), ("image", ref.name), *more.items())


def _watched(info: ImageInfo, doing: str) -> None:
    if info.watchers:
        who = ", ".join(w.describe() for w in info.watchers[:3])
        raise ValueError(f"{info.ref.spec} is in use: watched by {who} (`rbd status {info.ref.spec}`). "
                         f"{doing} would pull the data from under that client (a VM, a mapped device): "
                         "stop it first")


# ------------------------------------------------------------------ builders

def build_create(place: Place, name: str, size_text: str, object_size_text: str = "", features: str = "",
                 data_pool: str = "") -> Operation:
    name = check_name(name)
    size = parse_image_size(size_text, unit=1024**2)
    cli = ["rbd", "create", "--size", _size_cli(size)]
    args: dict[str, Any] = {"size": size}
    if object_size_text.strip():
        obj = parse_image_size(object_size_text, "object size")
        if obj & (obj - 1) or not 4096 <= obj <= 32 * 1024**2:
            raise ValueError("object size: a power of two from 4K to 32M (rbd's --object-size)")
        cli += ["--object-size", _size_cli(obj)]
        args["object_size"] = obj
    names = [f.strip() for f in features.replace(",", " ").split() if f.strip()]
    unknown = [f for f in names if f not in CREATABLE_FEATURES]
    if unknown:
        raise ValueError(f"unknown feature {unknown[0]!r}: one of {', '.join(CREATABLE_FEATURES)}")
    if names:
        cli += [x for f in names for x in ("--image-feature", f)]
        args["features"] = tuple(names)
    if data_pool.strip():
        cli += ["--data-pool", data_pool.strip()]
        args["data_pool"] = data_pool.strip()
    ref = ImageRef(place.pool, name, place.namespace)
    return _librbd(title=f"Create image {ref.spec} ({human_bytes(size)})", prefix="rbd create",
                     args=_args(ref, **args), cli=" ".join(cli + [ref.spec]))


def build_resize(info: ImageInfo, size_text: str, extents: tuple[tuple[int, int], ...] | None = None) -> Operation:
    """`extents`: where the image holds data (reader.used_extents), to say what a shrink discards."""
    size = parse_image_size(size_text, "new size", unit=1024**2)
    spec = info.ref.spec
    if size == info.size:
        raise ValueError(f"{spec} is already {human_bytes(size)}")
    if size > info.size:
        return _librbd(title=f"Grow {spec} from {human_bytes(info.size)} to {human_bytes(size)}",
                         prefix="rbd resize", args=_args(info.ref, size=size),
                         cli=f"rbd resize --size {_size_cli(size)} {spec}",
                         effect="growing is safe: the filesystem inside still needs growing by its owner")
    # What the head holds: its extents; else rbd du's used size, which is all it holds only without snapshots
    # (with them it is what was written since the newest one); else (not measured) nothing is claimed.
    held: int | None = None
    if extents is not None:
        lost = f"{human_bytes(bytes_past(extents, size))} of written data"
        held = sum(length for _, length in extents)
    elif info.used is not None:
        lost = f"up to {human_bytes(min(info.used, info.size - size))} of written data"
        held = None if info.snaps else info.used
    else:
        lost = "an unknown amount of data (used size not measured)"
    return _librbd(title=f"Shrink {spec} from {human_bytes(info.size)} to {human_bytes(size)}",
                     prefix="rbd resize", args=_args(info.ref, size=size, allow_shrink=True),
                     cli=f"rbd resize --size {_size_cli(size)} --allow-shrink {spec}", impact=DESTROYS,
                     confirm_text=info.ref.name,
                     effect=f"everything past {human_bytes(size)} is discarded for good: {lost}"
                            + (f" (the image holds {human_bytes(held)} in all)" if held is not None else "")
                            + "; a filesystem that was not shrunk first is corrupted")


def build_snap_create(info: ImageInfo, snap: str) -> Operation:
    snap = check_name(snap, "snapshot name")
    if any(s.name == snap for s in info.snaps):
        raise ValueError(f"{info.ref.spec}@{snap} already exists")
    return _librbd(title=f"Snapshot {info.ref.spec} as {snap}", prefix="rbd snap create",
                     args=_args(info.ref, snap=snap), cli=f"rbd snap create {info.ref.spec}@{snap}",
                     effect="" if not info.watchers else
                     "the image is in use: the snapshot is crash-consistent (as if the power went off)")


def _snap(info: ImageInfo, snap: str) -> Any:
    found = next((s for s in info.snaps if s.name == snap), None)
    if found is None:
        raise ValueError(f"no snapshot {snap!r} on {info.ref.spec}")
    return found


def build_snap_remove(info: ImageInfo, snap: str, children: tuple[str, ...] = ()) -> Operation:
    s = _snap(info, snap)
    if s.protected:
        raise ValueError(f"{info.ref.spec}@{snap} is protected: unprotect it first (`rbd snap unprotect`)")
    if children:
        raise ValueError(f"{info.ref.spec}@{snap} has clones: {', '.join(children)}; flatten or remove them first")
    return _librbd(title=f"Remove snapshot {info.ref.spec}@{snap}", prefix="rbd snap rm",
                     args=_args(info.ref, snap=snap), cli=f"rbd snap rm {info.ref.spec}@{snap}", impact=DESTROYS,
                     confirm_text=snap)


def build_protect(info: ImageInfo, snap: str, protect: bool, children: tuple[str, ...] = ()) -> Operation:
    s = _snap(info, snap)
    spec = f"{info.ref.spec}@{snap}"
    if protect and s.protected:
        raise ValueError(f"{spec} is already protected")
    if not protect and not s.protected:
        raise ValueError(f"{spec} is not protected")
    if not protect and children:
        raise ValueError(f"{spec} cannot be unprotected while it has clones: {', '.join(children)} "
                         "(flatten them, or remove them, first)")
    verb = "protect" if protect else "unprotect"
    return _librbd(title=f"{verb.capitalize()} snapshot {spec}", prefix=f"rbd snap {verb}",
                     args=_args(info.ref, snap=snap), cli=f"rbd snap {verb} {spec}")


def build_rollback(info: ImageInfo, snap: str) -> Operation:
    _snap(info, snap)
    _watched(info, "Rolling it back")
    return _librbd(title=f"Roll {info.ref.spec} back to {snap}", prefix="rbd snap rollback",
                     args=_args(info.ref, snap=snap), cli=f"rbd snap rollback {info.ref.spec}@{snap}",
                     impact=DESTROYS, confirm_text=info.ref.name,
                     effect=f"the image's current data is overwritten with the snapshot's; whatever was written "
                            f"since {snap} is lost")


def build_clone(info: ImageInfo, snap: str, target: str) -> Operation:
    s = _snap(info, snap)
    target = target.strip()
    pool, _, name = target.rpartition("/")
    ns = ""
    if "/" in pool:
        pool, _, ns = pool.partition("/")
    child = ImageRef(pool or info.ref.pool, check_name(name, "clone name"), ns if pool else info.ref.namespace)
    spec = f"{info.ref.spec}@{snap}"
    return _librbd(title=f"Clone {spec} as {child.spec}", prefix="rbd clone",
                     args=(*_args(info.ref, snap=snap), ("child_pool", child.pool),
                           ("child_namespace", child.namespace), ("child", child.name)),
                     cli=f"rbd clone {spec} {child.spec}",
                     effect="" if s.protected else
                     "the snapshot is not protected: this works only with clone format 2 "
                     "(min_compat_client mimic or later); otherwise librbd refuses it")


def build_flatten(info: ImageInfo, via_mgr: bool = True) -> Operation:
    """As an mgr task where the mgr serves `rbd task add flatten` (rbd_support); else librbd flattens it here,
    as `rbd flatten` does (Debian's Reef mgr cannot load its Python modules: MGR_MODULE_DEPENDENCY)."""
    if not info.parent:
        raise ValueError(f"{info.ref.spec} is not a clone: nothing to flatten")
    if not via_mgr:
        return _librbd(title=f"Flatten {info.ref.spec} (copy its parent's data in)", prefix="rbd flatten",
                         args=_args(info.ref), cli=f"rbd flatten {info.ref.spec}",
                         effect="the mgr's rbd_support module is not running, so this cephtui flattens it through "
                                "librbd, as `rbd flatten` does: the dialog waits until it is done; the image grows "
                                f"by what it shared with {info.parent}")
    return Operation(title=f"Flatten {info.ref.spec} (copy its parent's data in)", prefix="rbd task add flatten",
                     args=(("image_spec", info.ref.spec),), cli=f"ceph rbd task add flatten {info.ref.spec}",
                     effect=f"runs in the mgr as a task (`ceph rbd task list`): it goes on if cephtui quits; the "
                            f"image grows by what it shared with {info.parent}")


def build_trash_move(info: ImageInfo, delay_text: str = "") -> Operation:
    _watched(info, "Moving it to the trash")
    delay = 0
    if delay_text.strip():
        try:
            delay = int(delay_text.strip())
        except ValueError:
            raise ValueError(f"delay: whole seconds, not {delay_text.strip()!r}") from None
        if delay < 0:
            raise ValueError("delay: 0 or more seconds")
    expires = f" --expires-at 'now + {delay} seconds'" if delay else ""
    return _librbd(title=f"Move {info.ref.spec} to the trash", prefix="rbd trash mv",
                     args=_args(info.ref, delay=delay), cli=f"rbd trash mv{expires} {info.ref.spec}",
                     effect="restorable with `rbd trash restore` until it is purged" +
                            (f"; not purgeable for {delay} s" if delay else ""))


def build_trash_restore(entry: TrashEntry, new_name: str = "") -> Operation:
    name = check_name(new_name, "new name") if new_name.strip() else entry.name
    rename = f" --image {name}" if name != entry.name else ""
    return _librbd(title=f"Restore {entry.place}/{name} from the trash", prefix="rbd trash restore",
                     args=(("pool", entry.pool), ("namespace", entry.namespace), ("id", entry.id), ("image", name)),
                     cli=f"rbd trash restore{rename} {entry.place}/{entry.id}")


def build_trash_remove(entry: TrashEntry, now: Any) -> Operation:
    force = "" if entry.expired(now) else " --force"
    return _librbd(title=f"Delete {entry.place}/{entry.name} from the trash for good", prefix="rbd trash rm",
                     args=(("pool", entry.pool), ("namespace", entry.namespace), ("id", entry.id),
                           ("force", bool(force))),
                     cli=f"rbd trash rm{force} {entry.place}/{entry.id}", impact=DESTROYS, confirm_text=entry.name,
                     effect="" if not force else "its deferment has not ended: removed before its time (--force)")


def build_trash_purge(place: Place, entries: tuple[TrashEntry, ...], now: Any) -> Operation:
    due = [e for e in entries if e.expired(now)]
    if not due:
        raise ValueError(f"nothing in {place.spec}'s trash has passed its deferment time")
    return _librbd(title=f"Purge {len(due)} expired image(s) from {place.spec}'s trash", prefix="rbd trash purge",
                     args=(("pool", place.pool), ("namespace", place.namespace)), cli=f"rbd trash purge {place.spec}",
                     impact=DESTROYS, confirm_text=place.pool,
                     effect="removes for good: " + ", ".join(e.name for e in due[:8]) + (" …" if len(due) > 8 else ""))


def build_remove(info: ImageInfo) -> Operation:
    _watched(info, "Removing it")
    if info.snaps:
        prot = [s.name for s in info.protected_snaps]
        names = ", ".join(s.name for s in info.snaps[:5])
        clones = (f", and clones: {', '.join(info.children[:5])}" + (" …" if len(info.children) > 5 else "")
                  if info.children else "")
        raise ValueError(f"{info.ref.spec} has {len(info.snaps)} snapshot(s) ({names})"
                         + (f", protected: {', '.join(prot)}" if prot else "") + clones +
                         ": librbd removes no image with snapshots. "
                         + ("Flatten or remove the clones, then remove the snapshots" if clones else
                            "Remove them first") + ", or move the image to the trash")
    if info.children:
        raise ValueError(f"{info.ref.spec} has clones: {', '.join(info.children)}")
    return _librbd(title=f"Remove image {info.ref.spec}", prefix="rbd rm", args=_args(info.ref),
                     cli=f"rbd rm {info.ref.spec}", impact=DESTROYS, confirm_text=info.ref.name,
                     effect=f"its {human_bytes(info.used) if info.used is not None else 'data'} is deleted for good "
                            "(the trash, `t`, keeps it restorable instead)")


# ------------------------------------------------------------------ running

def execute(client: Cluster, op: Operation) -> str:
    """Run one image operation through librbd; its message for the dialog. Raises CephError."""
    if client.read_only:
        raise CephReadOnly(errno_mod.EROFS, f"read-only mode (--read-only): `{op.cli}` was not sent", op.prefix)
    mod = require_rbd()
    a = dict(op.args)
    try:
        return _EXECUTORS[op.prefix](client.handle, mod, a)
    except mod.Error as e:
        code = int(getattr(e, "errno", 0) or errno_mod.EIO)
        raise CephError(code, str(e) or errno_mod.errorcode.get(code, "failed"), op.prefix) from None
    except ValueError as e:  # a check made again at run time (a watcher arrived since the form)
        raise CephError(errno_mod.EBUSY, str(e), op.prefix) from None


def _ref(a: dict[str, Any]) -> ImageRef:
    return ImageRef(a["pool"], a["image"], a.get("namespace", ""))


def _create(handle: Any, mod: Any, a: dict[str, Any]) -> str:
    ref = _ref(a)
    bits = None
    if a.get("features"):
        names = dict((n, b) for b, n in FEATURE_NAMES)
        bits = sum(names[f] for f in a["features"])
    order = (int(a["object_size"]).bit_length() - 1) if a.get("object_size") else None
    with open_ioctx(handle, ref) as io:
        mod.RBD().create(io, ref.name, int(a["size"]), order=order, old_format=False, features=bits,
                         data_pool=a.get("data_pool") or None)
    return f"created {ref.spec}"


def _resize(handle: Any, mod: Any, a: dict[str, Any]) -> str:
    ref = _ref(a)
    with open_ioctx(handle, ref) as io, mod.Image(io, ref.name) as image:
        image.resize(int(a["size"]), allow_shrink=bool(a.get("allow_shrink")))
    return f"{ref.spec} is now {human_bytes(int(a['size']))}"


def _on_image(method: str, done: str, check_watchers: bool = False) -> Any:
    def run(handle: Any, mod: Any, a: dict[str, Any]) -> str:
        ref = _ref(a)
        if check_watchers:  # checked again here: a VM may have opened it since the form was filled
            _watched(read_image(handle, ref, du="none"), "Rolling it back")
        with open_ioctx(handle, ref) as io, mod.Image(io, ref.name) as image:
            getattr(image, method)(a["snap"])
        return done.format(spec=f"{ref.spec}@{a['snap']}")
    return run


def _clone(handle: Any, mod: Any, a: dict[str, Any]) -> str:
    ref = _ref(a)
    child = ImageRef(a["child_pool"], a["child"], a.get("child_namespace", ""))
    with open_ioctx(handle, ref) as pio, open_ioctx(handle, child) as cio:
        mod.RBD().clone(pio, ref.name, a["snap"], cio, child.name)
    return f"cloned {ref.spec}@{a['snap']} as {child.spec}"


def _flatten(handle: Any, mod: Any, a: dict[str, Any]) -> str:
    ref = _ref(a)
    with open_ioctx(handle, ref) as io, mod.Image(io, ref.name) as image:
        image.flatten(on_progress=lambda done, total: 0)  # librbd wants an int back from its callback
    return f"flattened {ref.spec}"


def _trash_move(handle: Any, mod: Any, a: dict[str, Any]) -> str:
    ref = _ref(a)
    _watched(read_image(handle, ref, du="none"), "Moving it to the trash")
    with open_ioctx(handle, ref) as io:
        mod.RBD().trash_move(io, ref.name, int(a.get("delay") or 0))
    return f"moved {ref.spec} to the trash"


def _trash_restore(handle: Any, mod: Any, a: dict[str, Any]) -> str:
    place = Place(a["pool"], a.get("namespace", ""))
    with open_ioctx(handle, place) as io:
        mod.RBD().trash_restore(io, a["id"], a["image"])
    return f"restored {place.spec}/{a['image']}"


def _trash_remove(handle: Any, mod: Any, a: dict[str, Any]) -> str:
    place = Place(a["pool"], a.get("namespace", ""))
    with open_ioctx(handle, place) as io:
        mod.RBD().trash_remove(io, a["id"], force=bool(a.get("force")), on_progress=lambda done, total: 0)
    return f"deleted {place.spec}/{a['id']} from the trash"


def _trash_purge(handle: Any, mod: Any, a: dict[str, Any]) -> str:
    place = Place(a["pool"], a.get("namespace", ""))
    with open_ioctx(handle, place) as io:
        mod.RBD().trash_purge(io)
    return f"purged the expired images of {place.spec}'s trash"


def _remove(handle: Any, mod: Any, a: dict[str, Any]) -> str:
    ref = _ref(a)
    with open_ioctx(handle, ref) as io:
        try:
            mod.RBD().remove(io, ref.name, on_progress=lambda done, total: 0)
        except mod.ImageBusy:
            raise CephError(errno_mod.EBUSY, f"{ref.spec} is still watched by a client (rbd status {ref.spec}): "
                            "librbd refused to remove it", "rbd rm") from None
        except mod.ImageHasSnapshots:
            raise CephError(errno_mod.ENOTEMPTY, f"{ref.spec} has snapshots: librbd removes no image with "
                            "snapshots", "rbd rm") from None
    return f"removed {ref.spec}"


_EXECUTORS = {
    "rbd create": _create,
    "rbd resize": _resize,
    "rbd snap create": _on_image("create_snap", "created {spec}"),
    "rbd snap rm": _on_image("remove_snap", "removed {spec}"),
    "rbd snap protect": _on_image("protect_snap", "protected {spec}"),
    "rbd snap unprotect": _on_image("unprotect_snap", "unprotected {spec}"),
    "rbd snap rollback": _on_image("rollback_to_snap", "rolled back to {spec}", check_watchers=True),
    "rbd clone": _clone,
    "rbd flatten": _flatten,
    "rbd trash mv": _trash_move,
    "rbd trash restore": _trash_restore,
    "rbd trash rm": _trash_remove,
    "rbd trash purge": _trash_purge,
    "rbd rm": _remove,
}
LIBRBD_PREFIXES = frozenset(_EXECUTORS)  # `rbd task add flatten` is an mgr command
