"""`cephtui rbd ls`: the Images tab's columns, headless, for scripts and tickets.

    cephtui [GLOBAL OPTIONS] rbd ls [--pool P[/NS]] [--json] [--du fast|scan|none]

Without --pool: every pool with the `rbd` application, and each of its namespaces. With --pool P: P's default
namespace, as `rbd ls P`; P/NS: that namespace. The names cost one omap read per pool (namespace); each image's
details cost an open of the image (its header, snapshots, children and watchers: a handful of OSD reads), as
`rbd ls -l` pays, read READERS images at a time (librbd releases the GIL while it waits on the OSDs): 10,000 images
in about 20 s on a 3-OSD sandbox, as long as `rbd ls -l` there (scripts/bench_images_scale.py). The used
size is `rbd du`'s: cheap where the image has a valid fast-diff map; without one, --du fast (the default) leaves
it unmeasured (marked), and --du scan asks every object of the image, as `rbd du` does then.

Exit status: 0 listed; 1 cannot connect, python3-rbd missing, or the pool (namespace) given cannot be listed;
2 usage; 3 listed, but some images or pools could not be read (each said on stderr, and under "problem").
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TextIO

from cephtui.ceph.format import human_duration
from cephtui.ceph.images.model import ImageInfo, ImageRef, Place, utcnow

if TYPE_CHECKING:
    from cephtui.ceph.cluster import Cluster
    from cephtui.cli.table import Invocation

# librbd's module (cephtui.ceph.images.listing, reader) is imported when the command runs, not when its
# options are defined: every start of cephtui builds the parsers.

DU_MODES = ("fast", "scan", "none")
READERS = 8  # images read at once: the waits are the OSDs', and 8 in flight keep a 3-OSD cluster busy
EXIT_PROBLEMS = 3
NOT_MEASURED = "?"  # the USED column of an image whose used size was not measured (no fast-diff, no --du scan)
COLUMNS = ("NAME", "SIZE", "USED", "FEATURES", "OBJECT", "DATA POOL", "PARENT", "CHILDREN", "SNAPS", "PROT",
           "NEWEST", "WATCHERS")


HELP = "list RBD images with their details (rbd ls -l, du, status), headless"
DESCRIPTION = ("`rbd ls`: the Images tab's columns for each image (size, used size as `rbd du` says, features, object "
               "size, data pool, parent, clones, snapshots, watchers). The names cost one read per pool; the details "
               "cost one open of each image (a handful of OSD reads, as `rbd ls -l`), read 8 at a time: 10,000 images "
               "took about 20 s on a 3-OSD test cluster, as long as `rbd ls -l` (scripts/bench_images_scale.py). "
               "Read-only. Exit status: 0 listed; 1 cannot connect, python3-rbd missing, or the pool given cannot be "
               "listed; 2 usage; 3 listed, but some images could not be read.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["ls"], metavar="ls",
                   help="list the images with their details (the only action so far)")
    g = p.add_argument_group("rbd ls options")
    g.add_argument("--pool", "-p", metavar="P[/NS]",
                   help="one pool's default namespace (as `rbd ls P`), or P/NS a namespace of it (default: every "
                        "pool with the rbd application and each of its namespaces)")
    g.add_argument("--json", action="store_true",
                   help="a JSON list, one object per image, with `rbd du --format json`'s and `rbd info --format "
                        "json`'s names: name, pool, namespace, provisioned_size, used_size (bytes; null when not "
                        "measured), snapshots, watchers ...")
    g.add_argument("--du", choices=DU_MODES, default="fast",
                   help="the used size, as `rbd du` measures it: fast (the default) where a valid fast-diff map "
                        "makes it cheap, else left out and marked; scan: also without fast-diff, by asking every "
                        "object of the image (slow on big images, as `rbd du` warns); none: never")


def run(inv: Invocation) -> int:
    return rbd_command(inv.client, inv.args)


def rbd_missing() -> str:
    from cephtui.ceph.images import listing
    return listing.RBD_MISSING.replace("block benchmarks need", "`cephtui rbd ls` needs")


def rbd_command(client: Cluster, args: argparse.Namespace, out: TextIO | None = None,
                err: TextIO | None = None) -> int:
    from cephtui.ceph.images import listing
    from cephtui.ceph.images.reader import ImagesUnavailable, host_names, list_names, places

    out = out or sys.stdout
    err = err or sys.stderr
    if not listing.rbd_available():
        print(f"cephtui rbd ls: {rbd_missing()}", file=err)
        return 1
    problems: list[str] = []
    if args.pool:
        try:
            where = [parse_place(args.pool)]
        except ValueError as e:
            print(f"cephtui rbd ls: {e}", file=err)
            return 2
        refusal = place_refusal(client, where[0])
        if refusal:
            print(f"cephtui rbd ls: {refusal}", file=err)
            return 1
    else:
        try:
            found, trouble = places(client)
        except ImagesUnavailable as e:
            print(f"cephtui rbd ls: {e}", file=err)
            return 1
        where, problems = list(found), list(trouble)
        if not where:
            print("cephtui rbd ls: no pool has the rbd application (`ceph osd pool application enable POOL rbd` "
                  "tags one; --pool P lists any pool)", file=err)
    refs: list[ImageRef] = []
    for place in where:
        try:
            refs += [ImageRef(place.pool, name, place.namespace) for name in list_names(client.handle, place)]
        except Exception as e:  # rados.Error, rbd.Error: said, and the other places still listed
            if args.pool:  # the one place asked for: nothing to list
                print(f"cephtui rbd ls: cannot list the images in {place.spec}: {e}", file=err)
                return 1
            problems.append(f"cannot list the images in {place.spec}: {e}")
    hosts = host_names(client) if refs else None
    rows = read_all(client.handle, refs, du=args.du, hosts=hosts)
    problems += [f"{spec_of(r)}: {r.problem if isinstance(r, ImageInfo) else r['problem']}" for r in rows
                 if (r.problem if isinstance(r, ImageInfo) else r.get("problem"))]
    if args.json:
        json.dump([r.to_json() if isinstance(r, ImageInfo) else r for r in rows], out, indent=2)
        print(file=out)
    else:
        print_table(rows, out, with_place=not args.pool, du=args.du)
    for p in problems:
        print(f"cephtui rbd ls: {p}", file=err)
    return EXIT_PROBLEMS if problems else 0


def parse_place(text: str) -> Place:
    """--pool's P or P/NS; ValueError naming what is wrong."""
    pool, _, ns = text.strip().partition("/")
    if not pool or "/" in ns or (_ and not ns) or "@" in text or any(c.isspace() for c in text.strip()):
        raise ValueError(f"--pool {text!r}: a pool, or pool/namespace (as `rbd ls` takes it)")
    return Place(pool, ns)


def place_refusal(client: Cluster, place: Place) -> str:
    """Why `place` cannot be listed ("" when it can): a missing pool or namespace, named as rbd would."""
    from cephtui.ceph.images import listing

    handle = client.handle
    try:
        if not handle.pool_exists(place.pool):
            return f"pool {place.pool!r} does not exist (`ceph osd pool ls` lists the pools)"
        if place.namespace:
            with handle.open_ioctx(place.pool) as io:
                if not listing.rbd.RBD().namespace_exists(io, place.namespace):
                    return (f"namespace {place.namespace!r} does not exist in pool {place.pool!r} "
                            f"(`rbd namespace ls {place.pool}` lists them)")
    except Exception as e:  # rados.Error, rbd.Error: permission, timeout
        return f"cannot open {place.spec}: {e}"
    return ""


def read_all(handle: Any, refs: Sequence[ImageRef], du: str = "fast", hosts: Callable[[str], str] | None = None,
             readers: int = READERS) -> list[ImageInfo | dict[str, Any]]:
    """Each image's details, in refs' order, READERS at a time. An image removed since the listing is left out
    (as `rbd ls -l` does); one that cannot be read is a dict with its name and the problem."""
    from cephtui.ceph.images import listing
    from cephtui.ceph.images.reader import read_image

    gone = listing.rbd.ImageNotFound if listing.rbd is not None else ()

    def one(ref: ImageRef) -> ImageInfo | dict[str, Any] | None:
        try:
            return read_image(handle, ref, du=du, hosts=hosts)
        except gone:
            return None
        except Exception as e:  # rbd.Error, rados.Error: this image only
            return unreadable(ref, f"cannot read it: {e}")

    if not refs:
        return []
    with ThreadPoolExecutor(max_workers=max(1, min(readers, len(refs))), thread_name_prefix="rbd-ls") as pool:
        return [r for r in pool.map(one, refs) if r is not None]


def spec_of(row: ImageInfo | dict[str, Any]) -> str:
    if isinstance(row, ImageInfo):
        return row.ref.spec
    return ImageRef(row["pool"], row["name"], row["namespace"]).spec


def unreadable(ref: ImageRef, problem: str) -> dict[str, Any]:
    """An image whose details could not be read, with the keys every row of --json has."""
    return {"name": ref.name, "pool": ref.pool, "namespace": ref.namespace, "provisioned_size": None,
            "used_size": None, "snapshots": [], "watchers": [], "problem": problem}


# ------------------------------------------------------------------ the table

def rbd_bytes(v: int) -> str:
    """Bytes as `rbd ls -l` and `rbd du` print them (Ceph's byte_u_t): 64 MiB, 1.5 GiB, 100 B."""
    units = (" B", " KiB", " MiB", " GiB", " TiB", " PiB", " EiB")
    index, n = 0, v
    while n >= 1024 and index < len(units) - 1:
        n //= 1024
        index += 1
    mult = 1 << (10 * index)
    if index == 0 or v % mult == 0:
        return f"{n}{units[index]}"
    text = ""
    for places_ in (2, 1, 0):  # the most precision that fits in 7 characters, unit included
        text = f"{v / mult:.{places_}f}{units[index]}"
        if len(text) <= 7:
            break
    return text


def age_words(stamp: dt.datetime | None, now: dt.datetime | None = None) -> str:
    """How long ago: librbd's timestamps are UTC (naive in the bindings)."""
    if stamp is None:
        return ""
    if stamp.tzinfo is not None:
        stamp = stamp.astimezone(dt.timezone.utc).replace(tzinfo=None)
    now = now or utcnow()
    return human_duration(max(0.0, (now - stamp).total_seconds()))


def watcher_words(info: ImageInfo) -> str:
    return ", ".join(w.address + (f" ({w.host})" if w.host else "") for w in info.watchers)


def row_cells(row: ImageInfo | dict[str, Any], with_place: bool, now: dt.datetime | None = None) -> list[str]:
    if isinstance(row, dict):
        name = spec_of(row) if with_place else row["name"]
        return [name, "", "", f"({row['problem']})"] + [""] * (len(COLUMNS) - 4)
    name = row.ref.spec if with_place else row.ref.name
    used = NOT_MEASURED if row.used is None else rbd_bytes(row.used)
    newest = row.newest_snap
    return [name, rbd_bytes(row.size), used, ",".join(row.features), rbd_bytes(row.object_size), row.data_pool,
            row.parent, str(len(row.children)) if row.children else "", str(len(row.snaps)) if row.snaps else "",
            str(len(row.protected_snaps)) if row.protected_snaps else "",
            age_words(newest.timestamp, now) if newest else "", watcher_words(row)]


def table_lines(rows: Iterable[ImageInfo | dict[str, Any]], with_place: bool, du: str = "fast",
                now: dt.datetime | None = None) -> list[str]:
    """`rbd ls -l`'s layout: a header, columns left-aligned and two spaces apart; a note under it for what
    the marks mean. NAME is pool[/namespace]/name when several places are listed."""
    rows = list(rows)
    cells = [list(COLUMNS)] + [row_cells(r, with_place, now) for r in rows]
    keep = [i for i in range(len(COLUMNS)) if i < 3 or any(c[i] for c in cells[1:])]  # empty columns left out
    cells = [[c[i] for i in keep] for c in cells]
    widths = [max(len(c[i]) for c in cells) for i in range(len(keep))]
    lines = ["  ".join(text.ljust(w) for text, w in zip(c, widths)).rstrip() for c in cells]
    unmeasured = [r for r in rows if isinstance(r, ImageInfo) and r.used is None]
    if unmeasured and du != "none":
        lines.append("")
        lines.append(f"{NOT_MEASURED} not measured: {len(unmeasured)} image(s) without a valid fast-diff map, where "
                     "`rbd du` reads every object; --du scan measures them that way")
    elif unmeasured:
        lines.append("")
        lines.append(f"{NOT_MEASURED} not measured (--du none)")
    if rows and "NEWEST" in [COLUMNS[i] for i in keep]:
        lines.append("NEWEST: the age of the newest snapshot; PROT: protected snapshots")
    return lines


def print_table(rows: Sequence[ImageInfo | dict[str, Any]], out: TextIO, with_place: bool, du: str = "fast") -> None:
    if not rows:
        return
    for line in table_lines(rows, with_place, du):
        print(line, file=out)
