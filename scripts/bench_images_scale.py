#!/usr/bin/env python3
"""The Images tab's cluster side on a pool of many images, each measurement against the `rbd` CLI in the same run.

    .venv/bin/python scripts/bench_images_scale.py [--images 10000] [--conf CONF | --sandbox DIR] [--port P]
                                                   [--pool rbd] [--repeat 3] [--json out.json]

Without --conf or --sandbox it starts its own sandbox (/tmp/rbdls-scale-*, 3 OSDs, pool rbd:32) and purges it
at the end. --sandbox DIR starts a sandbox there (or reuses the one running there) and keeps it, so a second
run skips the creation. With --conf it uses that cluster's POOL (it must exist).

  creation    N images of 1 MiB named scale-00000 … (librbd create, CREATORS at a time); those that exist
              already are kept, so a re-run creates nothing
  names       `rbd ls POOL` (a process: start, connect, one omap read)  vs  reader.list_names on a connected
              handle (what the tab pays per refresh for the list)
  details     `rbd ls -l POOL` (a process that opens every image: what the tab must not do per refresh)  vs
              reader.read_image for a screenful (SCREEN images, the first by name), one after another and
              READERS at a time, as the tab reads the rows on screen; each also per image
  tab         the Images tab through Pilot: `:images` to the first rows and to the details on screen (vs `rbd ls`),
              then `o` (every image's details in the background; vs `rbd ls -l`) with the UI's heartbeat
  cli         `cephtui rbd ls --pool POOL --json` (a process: every image's details, --du fast and --du none)
              vs `rbd ls -l --format json POOL`

Times are wall seconds (median of --repeat runs for the cheap ones, one run for the whole-pool ones); a ratio
is ours / native (below 1: ours faster). The machine's load average is printed beside them: on a shared 2-core
machine the numbers move with it. Each measurement is a function taking the Bench and returning its rows, listed
in MEASUREMENTS: a new one (the Images tab's first paint) is one function and one line there.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from capturelib import SANDBOX  # noqa: E402

from cephtui.ceph.client import CephClient  # noqa: E402
from cephtui.ceph.connection import ConnectionSpec  # noqa: E402
from cephtui.ceph.images.model import ImageRef, Place  # noqa: E402
from cephtui.ceph.images.reader import list_names, read_image  # noqa: E402
from cephtui.cli.rbd_ls import READERS  # noqa: E402

MiB = 1 << 20
PREFIX = "scale-"
CREATORS = 16
SCREEN = 40


@dataclass
class Bench:
    conf: str
    pool: str
    images: int
    repeat: int
    client: Any
    names: list[str] = field(default_factory=list)  # our images, sorted, once created

    @property
    def handle(self) -> Any:
        return self.client.handle

    def rbd(self, *args: str) -> float:
        """Wall seconds of one `rbd` process (its output discarded); fails loudly."""
        t0 = time.perf_counter()
        res = subprocess.run(["rbd", "-c", self.conf, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True)
        if res.returncode != 0:
            raise SystemExit(f"rbd {' '.join(args)}: {res.stderr.strip()}")
        return time.perf_counter() - t0


@dataclass(frozen=True)
class Row:
    what: str
    native: str  # what the reference is
    native_s: float | None
    ours: str
    ours_s: float | None
    per_image: str = ""

    @property
    def ratio(self) -> float | None:
        if self.native_s and self.ours_s is not None:
            return self.ours_s / self.native_s
        return None


def timed(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def median_of(repeat: int, fn: Callable[[], Any]) -> float:
    return statistics.median(timed(fn) for _ in range(max(1, repeat)))


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


# ------------------------------------------------------------------ measurements

def measure_creation(b: Bench) -> list[Row]:
    """N images of 1 MiB through librbd, CREATORS at a time; the ones already there are kept."""
    import rbd

    wanted = [f"{PREFIX}{i:05d}" for i in range(b.images)]
    have = set(list_names(b.handle, Place(b.pool)))
    missing = [n for n in wanted if n not in have]
    t0 = time.perf_counter()
    if missing:
        with b.handle.open_ioctx(b.pool) as io:
            def create(name: str) -> None:
                rbd.RBD().create(io, name, MiB, old_format=False)
            with ThreadPoolExecutor(max_workers=CREATORS) as pool:
                for done, _ in enumerate(pool.map(create, missing), 1):
                    if done % 1000 == 0:
                        print(f"  created {done}/{len(missing)} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    took = time.perf_counter() - t0
    b.names = sorted(n for n in list_names(b.handle, Place(b.pool)) if n.startswith(PREFIX))
    if len(b.names) < b.images:
        raise SystemExit(f"only {len(b.names)} of {b.images} images in {b.pool}")
    how = (f"{len(missing)} created, {CREATORS} at a time" if missing else f"all {b.images} there already")
    per = f"{took / len(missing) * 1000:.1f} ms" if missing else ""
    return [Row("creation", "", None, how, took if missing else None, per)]


def measure_names(b: Bench) -> list[Row]:
    """`rbd ls POOL` against our listing on a connected handle."""
    native = median_of(b.repeat, lambda: b.rbd("ls", b.pool))
    ours = median_of(b.repeat, lambda: list_names(b.handle, Place(b.pool)))
    total = len(list_names(b.handle, Place(b.pool)))
    return [Row(f"names ({total} images)", "rbd ls (process)", native, "reader.list_names (connected)", ours,
                f"{ours / total * 1e6:.1f} us")]


def measure_details(b: Bench) -> list[Row]:
    """`rbd ls -l POOL` (every image opened) against read_image for one screenful."""
    total = len(list_names(b.handle, Place(b.pool)))
    native = b.rbd("ls", "-l", b.pool)
    refs = [ImageRef(b.pool, n) for n in b.names[:SCREEN]]

    def serial() -> None:
        for ref in refs:
            read_image(b.handle, ref, du="fast")

    def threaded() -> None:
        with ThreadPoolExecutor(max_workers=READERS) as pool:
            list(pool.map(lambda ref: read_image(b.handle, ref, du="fast"), refs))

    one_by_one = median_of(b.repeat, serial)
    at_once = median_of(b.repeat, threaded)
    return [
        Row(f"details: whole pool ({total}) vs a screen ({SCREEN})", "rbd ls -l (process, every image)", native,
            f"read_image x{SCREEN}, {READERS} at a time", at_once, f"{at_once / SCREEN * 1000:.2f} ms"),
        Row(f"details: a screen ({SCREEN}), one by one", "", None, f"read_image x{SCREEN}, serial", one_by_one,
            f"{one_by_one / SCREEN * 1000:.2f} ms"),
        Row("details: one image", "rbd ls -l / images", native / total, "read_image, serial", one_by_one / SCREEN),
    ]


def measure_cli(b: Bench) -> list[Row]:
    """`cephtui rbd ls --json` for the whole pool against `rbd ls -l --format json`."""
    total = len(list_names(b.handle, Place(b.pool)))
    native = b.rbd("ls", "-l", "--format", "json", b.pool)
    config = tempfile.TemporaryDirectory(prefix="rbdls-cfg-")  # no config file of the user's
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CONFIG_HOME": config.name}
    env.pop("CEPH_ARGS", None)
    rows = []
    for du in ("fast", "none"):
        cmd = [sys.executable, "-m", "cephtui", "-c", b.conf, "rbd", "ls", "--pool", b.pool, "--json", "--du", du]
        t0 = time.perf_counter()
        res = subprocess.run(cmd, capture_output=True, text=True, env=env)
        took = time.perf_counter() - t0
        if res.returncode != 0:
            raise SystemExit(f"cephtui rbd ls: exit {res.returncode}: {res.stderr.strip()[-500:]}")
        listed = len(json.loads(res.stdout))
        if listed != total:
            raise SystemExit(f"cephtui rbd ls listed {listed} of {total} images")
        rows.append(Row(f"cli: whole pool ({total}), --du {du}", "rbd ls -l --format json", native,
                        "cephtui rbd ls --json", took, f"{took / total * 1000:.2f} ms"))
    config.cleanup()
    return rows


# (name, function): run in this order; creation first, the others need its names.
def measure_tab(b: Bench) -> list[Row]:
    """The Images tab itself, driven headless through Pilot (120x36): from `:images` to the first rows painted,
    and to the details of the rows on screen, against `rbd ls`; then `o` (sort by size: every image's details
    read in the background) against `rbd ls -l`, with the UI's heartbeat (a 50 ms timer) through it."""
    import asyncio

    from cephtui.ceph.client import CephClient
    from cephtui.ceph.connection import ConnectionSpec
    from cephtui.ui.app import CephTUI
    from cephtui.ui.panes.images import ImagesPane

    out: dict[str, float] = {}

    async def drive() -> None:
        app = CephTUI(CephClient(ConnectionSpec(conffile=b.conf)).connect(), refresh=2.0)
        async with app.run_test(size=(120, 36)) as pilot:
            async def until(cond: Callable[[], Any], timeout: float, what: str) -> float:
                t0 = time.perf_counter()
                while not cond():
                    if time.perf_counter() - t0 > timeout:
                        raise SystemExit(f"the tab did not show {what} within {timeout:.0f} s")
                    await asyncio.sleep(0.005)
                return time.perf_counter() - t0

            await until(lambda: app.snapshot is not None, 30, "a first snapshot")
            pane = app.query_one(ImagesPane)
            await pilot.press("colon", *"images")  # typed first: the clock starts at enter, as a person's wait
            t0 = time.perf_counter()
            await pilot.press("enter")
            await until(lambda: pane.place is not None, 30, "its first pool")
            while pane.place is not None and pane.place.pool != b.pool:
                await pilot.press("p")
                await until(lambda: pane.place is None or not pane._listing, 30, "the next pool")
                t0 = time.perf_counter()  # from the pool asked for (the first pool's listing is not the one)
            await until(lambda: pane.vtable.row_count >= b.images, 30, "the rows")
            await pilot.pause()
            out["first_rows"] = time.perf_counter() - t0
            visible = pane._visible()
            await until(lambda: all(r in pane.details for r in visible), 60, "the details on screen")
            out["screen_details"] = time.perf_counter() - t0
            gaps: list[float] = []
            last = [time.perf_counter()]

            def beat() -> None:
                now = time.perf_counter()
                gaps.append(now - last[0])
                last[0] = now

            timer = app.set_interval(0.05, beat)
            t1 = time.perf_counter()
            await pilot.press("o")  # sort by size: the rest read in the background
            await until(lambda: len(pane.details) >= b.images, 1800, "every image's details")
            out["all_details"] = time.perf_counter() - t1
            timer.stop()
            out["beat_max"] = max(gaps) if gaps else 0.0
            out["beat_p99"] = sorted(gaps)[int(len(gaps) * 0.99)] if gaps else 0.0
            t2 = time.perf_counter()
            await pilot.press("end")
            await until(lambda: pane.vtable.cursor == pane.vtable.row_count - 1, 10, "the last row")
            out["end_key"] = time.perf_counter() - t2

    asyncio.run(drive())
    native_ls = median_of(b.repeat, lambda: b.rbd("ls", b.pool))
    native_l = b.rbd("ls", "-l", b.pool)
    return [
        Row("tab: first rows painted", "rbd ls (process)", native_ls, ":images to the rows", out["first_rows"]),
        Row("tab: details of the rows on screen", "rbd ls (process)", native_ls, ":images to the details",
            out["screen_details"]),
        Row("tab: every image's details (o)", "rbd ls -l (process)", native_l, "background fill, 4 at a time",
            out["all_details"], f"heartbeat max {out['beat_max'] * 1000:.0f} ms, p99 {out['beat_p99'] * 1000:.0f} ms"),
        Row("tab: end key on the sorted table", "", None, "cursor to the last row", out["end_key"]),
    ]


MEASUREMENTS: list[tuple[str, Callable[[Bench], list[Row]]]] = [
    ("creation", measure_creation),
    ("names", measure_names),
    ("details", measure_details),
    ("cli", measure_cli),
    ("tab", measure_tab),
]


# ------------------------------------------------------------------ the cluster, the table

@contextmanager
def cluster(a: argparse.Namespace) -> Iterator[str]:
    if a.conf:
        yield a.conf
        return
    keep = bool(a.sandbox)
    d = a.sandbox or tempfile.mkdtemp(prefix="rbdls-scale-", dir="/tmp")
    args = ["start", d, "--pool", f"{a.pool}:32", *(("--port", a.port) if a.port else ())]
    res = subprocess.run([*SANDBOX, *args], capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(f"sandbox start failed: {res.stderr.strip()}")
    try:
        yield res.stdout.strip().splitlines()[-1]
    finally:
        if not keep:
            subprocess.run([*SANDBOX, "stop", d, "--purge"], capture_output=True)


def seconds(x: float | None) -> str:
    if x is None:
        return ""
    return f"{x * 1000:.1f} ms" if x < 1 else f"{x:.2f} s"


def table(rows: list[Row]) -> list[str]:
    cells = [("measurement", "native", "time", "ours", "time", "ours/native", "per image")]
    for r in rows:
        cells.append((r.what, r.native, seconds(r.native_s), r.ours, seconds(r.ours_s),
                      f"{r.ratio:.3f}" if r.ratio is not None else "", r.per_image))
    widths = [max(len(c[i]) for c in cells) for i in range(len(cells[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--images", type=int, default=10_000, help="images in the pool (default: 10000)")
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--conf", help="an existing cluster's ceph.conf")
    where.add_argument("--sandbox", metavar="DIR", help="a sandbox started (or reused) in DIR and kept")
    ap.add_argument("--port", help="the sandbox's mon port (default: a free one)")
    ap.add_argument("--pool", default="rbd", help="the pool (default: rbd)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each cheap measurement, median (default: 3)")
    ap.add_argument("--only", action="append", choices=[n for n, _ in MEASUREMENTS],
                    help="run only these measurements (creation always runs: it finds the images)")
    ap.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    a = ap.parse_args()
    with cluster(a) as conf:
        client = CephClient(ConnectionSpec(conffile=conf)).connect()
        try:
            b = Bench(conf, a.pool, a.images, a.repeat, client)
            rows: list[Row] = []
            for name, fn in MEASUREMENTS:
                if a.only and name != "creation" and name not in a.only:
                    continue
                print(f"{name} … (load {load()})", file=sys.stderr)
                got = fn(b)
                rows += got
                for line in table(got)[1:]:
                    print(f"  {line}", file=sys.stderr)
        finally:
            client.close()
    print(f"{a.images} images of 1 MiB in pool {a.pool}; load average {load()} (1, 5, 15 min); "
          f"{os.cpu_count()} CPUs")
    print("\n".join(table(rows)))
    if a.json:
        Path(a.json).write_text(json.dumps([{**r.__dict__, "ratio": r.ratio} for r in rows], indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
