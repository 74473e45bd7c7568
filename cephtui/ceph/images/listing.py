"""Which RBD images there are to pick from: the pools that carry the `rbd` application and their images.

One `osd pool ls detail` and one `rbd_list2` per pool (a single omap read of the pool's rbd_directory), so
it stays cheap on a pool of thousands of images; no per-image call (that is what `rbd ls -l` costs).
Runs in a worker thread, never on the UI's.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cephtui.ceph.errors import CephError
from cephtui.ceph.images.binding import RBD_MISSING, rbd, rbd_pools
from cephtui.ceph.images.model import Place
from cephtui.ceph.images.reader import list_names  # the Images tab's own listing

__all__ = ["LIST_LIMIT", "RBD_MISSING", "ImageList", "list_images", "rbd_available", "rbd_pools"]
LIST_LIMIT = 500  # names offered in a picker; more are reachable by typing pool/name


@dataclass(frozen=True)
class ImageList:
    rbd_pools: tuple[str, ...]  # pools with the rbd application, in the osdmap's order
    images: tuple[str, ...]  # "pool/name", at most LIST_LIMIT
    truncated: bool = False
    problems: tuple[str, ...] = ()  # a pool that could not be listed, and why


def rbd_available() -> bool:
    return rbd is not None


def list_images(client: Any, limit: int = LIST_LIMIT) -> ImageList:
    """The rbd pools and their images (`pool/name`), for the block bench's picker."""
    try:
        pools = rbd_pools(client.mon("osd pool ls", detail="detail"))
    except CephError as e:
        return ImageList((), (), problems=(f"cannot list pools: {e.message}",))
    if rbd is None:
        return ImageList(pools, (), problems=(RBD_MISSING,))
    images: list[str] = []
    problems: list[str] = []
    truncated = False
    for pool in pools:
        try:
            names = list(list_names(client.handle, Place(pool)))
        except Exception as e:  # rados.Error, rbd.Error: said, and the other pools still listed
            problems.append(f"cannot list images in {pool}: {e}")
            continue
        for n in names:
            if len(images) >= limit:
                truncated = True
                break
            images.append(f"{pool}/{n}")
    return ImageList(pools, tuple(images), truncated, tuple(problems))
