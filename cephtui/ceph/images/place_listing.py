"""What the Images tab reads of one place (a pool, or a namespace of one) at a time: the rbd places, the image
names, the trash and the mgr's image tasks, in one call off the UI thread; and one image's details, each
failure said in its row."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cephtui.ceph.errors import CephError, CephMgrDown
from cephtui.ceph.images import reader
from cephtui.ceph.images.model import ImageInfo, ImageRef, Place, TrashEntry
from cephtui.ceph.images.tasks import Task, list_tasks

NO_RBD_POOL = ("no pool has the rbd application: `rbd pool init POOL` (or `ceph osd pool application enable POOL "
               "rbd`) tags one")


@dataclass(frozen=True)
class PlaceListing:
    places: tuple[Place, ...] = ()
    place: Place | None = None  # the one listed: the one asked for while it exists, else the first
    names: tuple[str, ...] = ()
    trash: tuple[TrashEntry, ...] = ()
    problem: str = ""
    tasks: tuple[Task, ...] = ()
    tasks_problem: str = ""
    mgr_tasks: bool = True  # the mgr's rbd_support module serves `rbd task add` (flatten, remove …)


def chosen(place: Place | None, places: tuple[Place, ...]) -> Place | None:
    """The place asked for while it exists, else the first rbd place."""
    return place if place is not None and place in places else (places[0] if places else None)


def read_place(client: Any, places: tuple[Place, ...], problems: tuple[str, ...], place: Place | None
               ) -> PlaceListing:
    """`place` (one of `places`, as reader.places found them) listed: rbd ls, rbd trash ls, rbd task list.
    Raises what librados or librbd raise."""
    names = reader.list_names(client.handle, place) if place is not None else ()
    trash = reader.list_trash(client.handle, place) if place is not None else ()
    tasks, tasks_problem = image_tasks(client)
    problem = NO_RBD_POOL if place is None else "; ".join(problems)
    return PlaceListing(places, place, names, trash, problem, tasks, tasks_problem, mgr_serves_tasks(client))


def mgr_serves_tasks(client: Any) -> bool:
    """Whether the cluster's command table has the rbd_support module's tasks (not where it cannot load)."""
    try:
        return client.commands().get("rbd task add flatten") is not None
    except CephError:
        return True  # cannot tell: the mgr answers for itself


def image_tasks(client: Any) -> tuple[tuple[Task, ...], str]:
    try:
        return list_tasks(client), ""
    except CephMgrDown:
        return (), "mgr down: its image tasks (flatten …) unknown"
    except CephError as e:
        return (), f"mgr image tasks unknown: {e.message}"


def read_one(client: Any, ref: ImageRef, hosts: Callable[[str], str], du: str = "fast"
             ) -> tuple[ImageRef, ImageInfo | None, str]:
    """One image's details, or why not (gone meanwhile, an OSD timeout): said in its row."""
    try:
        return ref, reader.read_image(client.handle, ref, du=du, hosts=hosts), ""
    except Exception as e:
        return ref, None, str(e) or type(e).__name__
