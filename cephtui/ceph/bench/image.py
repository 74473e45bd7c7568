"""The block bench's safety around images: a temporary image, the leftovers of killed runs, and the
checks before writing to an existing image.

A temporary image is named `cephtui-bench-<host>-<pid>` so that a run killed with kill -9 leaves an
image anyone can recognise, and the next start can tell it from a running one: the pid is no longer
alive on this host (or the image belongs to another host), and nobody watches it. A killed run's
watch outlives it by up to osd_client_watch_timeout (30 s by default); until then librbd refuses to
remove the image (EBUSY), and we say so rather than break the watch.

Writing to an existing image destroys its data: it is refused while anyone watches the image (a VM,
a mapped device, another benchmark: `rbd status`), and it needs the image's name typed again.
Creating and removing go to the audit log with the `rbd` command an admin would type.
"""
from __future__ import annotations

import os
import re
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cephtui.ceph.bench.blockparams import BlockParams
from cephtui.ceph.bench.params import BenchError, MiB
from cephtui.ceph.ops import Operation

TEMP_IMAGE_PREFIX = "cephtui-bench-"
# cephtui-bench-<host>-<pid>: the host part may itself contain dashes, the pid is the last part.
_TEMP_IMAGE = re.compile(r"^cephtui-bench-(?P<host>.+)-(?P<pid>\d+)$")
WATCH_TIMEOUT_NOTE = ("a killed run's watch expires after osd_client_watch_timeout (30 s by default); "
                      "try again then")


def short_host() -> str:
    """This host's name as image names may carry it (no dots, '/', '@' or spaces)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", socket.gethostname().split(".")[0]) or "host"


def temp_image_name(host: str | None = None, pid: int | None = None) -> str:
    return f"{TEMP_IMAGE_PREFIX}{host or short_host()}-{pid or os.getpid()}"


def _size_words(size: int) -> str:
    return f"{size // MiB}M" if size % MiB == 0 else f"{size}B"


def image_create_op(pool: str, name: str, size: int) -> Operation:
    return Operation(title=f"Create the temporary image {pool}/{name} for the bench", prefix="rbd create",
                     args=(("pool", pool), ("image", name), ("size", size)),
                     cli=f"rbd create --size {_size_words(size)} {pool}/{name}")


def image_remove_op(pool: str, name: str) -> Operation:
    return Operation(title=f"Remove the temporary image {pool}/{name}", prefix="rbd rm",
                     args=(("pool", pool), ("image", name)), cli=f"rbd rm {pool}/{name}")


def block_bench_operation(params: BlockParams, image: str = "") -> Operation:
    """Not a mon command: recorded in the audit log with its `rbd bench` equivalent."""
    if image and image != params.image:
        from dataclasses import replace
        params = replace(params, image=image, temp_image_size=0)
    what = f"{params.io_type}, {params.io_pattern}, {params.io_size} B x {params.io_threads}, cache {params.cache}"
    return Operation(title=f"Benchmark image {params.image_spec} ({what})", prefix="rbd bench",
                     args=(("pool", params.pool), ("image", params.image), ("io_type", params.io_type),
                           ("io_size", params.io_size), ("io_threads", params.io_threads),
                           ("io_total", params.io_total), ("io_pattern", params.io_pattern),
                           ("rw_mix_read", params.rw_mix_read), ("seconds", params.seconds),
                           ("cache", params.cache)),
                     cli=params.cli())


@dataclass(frozen=True)
class Watcher:
    address: str
    id: int = 0


def watchers(image: Any) -> list[Watcher]:
    """Who watches an open image (`rbd status`). Open it read-only to ask: a read-write open adds our own."""
    return [Watcher(str(w.get("addr", "?")), int(w.get("id", 0) or 0)) for w in image.watchers_list()]


def watched_refusal(pool: str, name: str, found: list[Watcher]) -> str | None:
    if not found:
        return None
    who = ", ".join(f"{w.address} (client.{w.id})" if w.id else w.address for w in found[:4])
    more = f" and {len(found) - 4} more" if len(found) > 4 else ""
    return (f"image {pool}/{name} is in use: watched by {who}{more} (`rbd status {pool}/{name}`). A VM or a "
            "mapped device may be using it; a write benchmark would destroy its data. Stop that client, or "
            "benchmark a temporary image.")


def confirmation_refusal(params: BlockParams, read_only: bool, confirmed: str) -> str | None:
    """Why a block run may not start, before anything touches the cluster (None: it may)."""
    if params.writes and read_only:
        return (f"a {params.io_type} benchmark writes to the cluster: not in read-only mode "
                "(reads of an existing image are fine)")
    if params.writes and params.image and confirmed != params.image:
        return (f"a {params.io_type} benchmark overwrites image {params.pool}/{params.image} and destroys its "
                "data: type the image's name to confirm")
    return None


@dataclass(frozen=True)
class Leftover:
    """A temporary image a run left behind."""

    pool: str
    name: str
    host: str
    pid: int
    watchers: tuple[Watcher, ...]

    @property
    def removable(self) -> bool:
        return not self.watchers

    def describe(self) -> str:
        where = "this host" if self.host == short_host() else f"host {self.host}"
        state = "" if self.removable else f"; still watched ({WATCH_TIMEOUT_NOTE})"
        return f"{self.pool}/{self.name}: left by pid {self.pid} on {where}{state}"


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def find_leftovers(io: Any, rbd_mod: Any, *, host: str | None = None,
                   alive: Callable[[int], bool] = pid_alive) -> list[Leftover]:
    """Temporary images in this pool whose run is over: made on this host by a pid that is gone, or on
    another host and watched by nobody (a watched one there is a run going on)."""
    me = host or short_host()
    found: list[Leftover] = []
    for name in sorted(rbd_mod.RBD().list(io)):
        m = _TEMP_IMAGE.match(name)
        if not m:
            continue
        pid, owner = int(m.group("pid")), m.group("host")
        if owner == me and (pid == os.getpid() or alive(pid)):
            continue  # a run going on here
        try:
            with rbd_mod.Image(io, name, read_only=True) as image:
                seen = tuple(watchers(image))
        except rbd_mod.ImageNotFound:
            continue  # removed meanwhile
        if owner != me and seen:
            continue  # another host's run, still going
        found.append(Leftover(io.get_pool_name(), name, owner, pid, seen))
    return found


def create_image(io: Any, rbd_mod: Any, name: str, size: int) -> None:
    try:
        rbd_mod.RBD().create(io, name, size)
    except rbd_mod.ImageExists:
        raise BenchError(f"image {io.get_pool_name()}/{name} already exists") from None
    except rbd_mod.Error as e:
        raise BenchError(f"cannot create image {io.get_pool_name()}/{name}: {e}") from None


def remove_image(io: Any, rbd_mod: Any, name: str) -> str:
    """Remove an image; "" when done (or already gone), else why not, for the operator."""
    pool = io.get_pool_name()
    try:
        rbd_mod.RBD().remove(io, name)
    except rbd_mod.ImageNotFound:
        return ""
    except rbd_mod.ImageBusy:
        return f"image {pool}/{name} is still watched: {WATCH_TIMEOUT_NOTE} (`rbd rm {pool}/{name}`)"
    except rbd_mod.Error as e:
        return f"image {pool}/{name} was not removed: {e}; remove it with `rbd rm {pool}/{name}`"
    return ""
