#!/usr/bin/env python3
"""SVG screenshots of cephtui, exported by Textual itself (App.save_screenshot), for the README.

Every pane, on a sandbox cluster of the script's own, in a state it sets up through cephtui's own
dialogs (so the Activity tab lists those commands): a second pool, a client key, osd.1 reweighted,
osd.2 in maintenance (per-OSD noout, noscrub/nodeep-scrub) and stopped, so PGs are degraded; then
osd.2 back, the maintenance ended, a per-OSD bench, a latency run and a 4 MiB write run:

    .venv/bin/python scripts/screenshot.py --all --sandbox           # ~2 min; docs/*.svg (11 files)
    .venv/bin/python scripts/screenshot.py --all --sandbox /tmp/sb    # reuse (or start) that sandbox, keep it

The sandbox has 4 OSDs (a reused one must too). A temporary one is stopped and purged at the end; a
reused one is left as it was found (pool, key, weights, flags, maintenance and objects undone). The
run's state, bench history and audit log live in /tmp/cephtui-screenshots, removed at the end. The
pictures are 120x36, plus docs/health-80x24.svg. One tab of any cluster, changing nothing:

    .venv/bin/python scripts/screenshot.py --conf CONF --tab osds --out /tmp/osds.svg [--size 120x36]
"""
from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cephtui.ceph.client import CephClient  # noqa: E402
from cephtui.ceph.connection import ConnectionSpec  # noqa: E402
from cephtui.ui.panes.bench import BenchPane  # noqa: E402
from cephtui.ui.panes.maintenance import MaintenancePane  # noqa: E402

SANDBOX = ROOT / "scripts" / "sandbox.py"
SIZE = (120, 36)  # reads well on GitHub's README width
SMALL = (80, 24)
TABS = ("health", "pgs", "osds", "crush", "pools", "users", "maintenance", "bench", "activity")
USER = "client.vm-host1"
POOL = "images"
DATA_PREFIX = "screenshot-data-"
STATE = Path("/tmp/cephtui-screenshots")  # state dir, bench history and audit log of the run


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def sandbox(*args: str) -> str:
    res = subprocess.run(["/usr/bin/python3", str(SANDBOX), *args], capture_output=True, text=True, timeout=300)
    if res.returncode != 0:
        raise SystemExit(f"sandbox.py {' '.join(args)} failed: {res.stderr.strip()}")
    return res.stdout.strip()


def screen_text(app: Any) -> str:
    """The screen as plain text, from the same render the SVG export uses."""
    import io

    from rich.console import Console

    from cephtui.ui.compat import screen_frame
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True, color_system=None,
                      record=True, legacy_windows=False, safe_box=False)
    console.print(screen_frame(app))
    return console.export_text(styles=False)


async def until(pilot: Any, app: Any, cond: Callable[[str], object], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not cond(screen_text(app)):
        if time.monotonic() > deadline:
            raise SystemExit(f"gave up waiting for {what}; the screen was:\n{screen_text(app)}")
        await pilot.pause(0.25)


async def wait_for(pilot: Any, cond: Callable[[], object], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise SystemExit(f"gave up waiting for {what}; the screen was:\n{screen_text(pilot.app)}")
        await pilot.pause(0.25)


def save(app: Any, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    app.save_screenshot(filename=out.name, path=str(out.parent))
    log(f"wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")


# ------------------------------------------------------------------ one tab, any cluster

async def shoot(conf: str, tab: str, out: Path, wait: float, size: tuple[int, int]) -> None:
    from cephtui.ui.app import CephTUI

    client = CephClient(ConnectionSpec(conffile=conf)).connect()
    app = CephTUI(client=client, refresh=1)
    try:
        async with app.run_test(size=size) as pilot:
            await pilot.press(str(TABS.index(tab) + 1))
            await pilot.pause(wait)
            save(app, out)
    finally:
        client.close()


# ------------------------------------------------------------------ every pane, own sandbox

async def confirm_run(pilot: Any, app: Any) -> None:
    """The confirm dialog on screen: wait for its preview, Run, check the answer, Close."""
    from cephtui.ui.screens.confirm import ConfirmScreen

    await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the confirm dialog")
    dialog = app.screen
    await wait_for(pilot, lambda: dialog.preview_state != "running", "the preview", 90)
    if dialog.typed:
        dialog.query_one("#confirm-typed").value = dialog.typed
    await pilot.pause(0.3)
    await pilot.click("#confirm-run")
    await wait_for(pilot, lambda: dialog.state == "done", "the cluster's answer")
    refused = [r for r in dialog.outcome.results if not r[1]]
    if refused:
        raise SystemExit(f"refused: {refused}")
    await pilot.pause(0.3)
    await pilot.click("#confirm-run")  # Close
    await wait_for(pilot, lambda: app.screen is not dialog, "the dialog to close")


async def form(pilot: Any, app: Any, values: dict[str, str], ok: str = "#form-ok") -> None:
    """Fill the form on screen (Input or Select by field key) and press its OK button."""
    from cephtui.ui.screens.wizards.form import FormScreen

    await wait_for(pilot, lambda: isinstance(app.screen, FormScreen)
                   and all(app.screen.query(f"#field-{k}") for k in values), "the form")
    screen = app.screen
    for key, value in values.items():
        screen.query_one(f"#field-{key}").value = value
    await pilot.pause(0.3)
    await pilot.click(ok)
    await wait_for(pilot, lambda: app.screen is not screen, "the form to close")


async def confirm_ops(pilot: Any, app: Any, operations: list[Any]) -> None:
    app.confirm_operations(operations)  # the path every pane's edit takes
    await confirm_run(pilot, app)


async def bench_confirm(pilot: Any, app: Any) -> None:
    from cephtui.ui.screens.bench_views import BenchConfirmScreen

    await wait_for(pilot, lambda: isinstance(app.screen, BenchConfirmScreen), "the bench confirmation")
    await pilot.pause(0.3)
    await pilot.click("#bench-confirm-run")


def clean(app: Any) -> bool:
    """Every OSD up and every PG active+clean (what ok-to-stop wants before a maintenance)."""
    snap = app.snapshot
    return snap is not None and snap.osds.up == snap.osds.total and snap.pgs.num_pgs > 0 \
        and snap.pgs.clean == snap.pgs.num_pgs


def write_data(conf: str) -> None:
    """Objects in rbd and images, so capacity, pools and PGs show data (and a stopped OSD degrades it)."""
    import rados

    r = rados.Rados(conffile=conf, conf={"log_to_stderr": "false", "err_to_stderr": "false"})
    r.connect(timeout=10)
    try:
        for pool, count in (("rbd", 48), (POOL, 24)):
            with r.open_ioctx(pool) as io:
                for i in range(count):
                    io.write_full(f"{DATA_PREFIX}{i}", os.urandom(1 << 20) * 4)
    finally:
        r.shutdown()


def remove_data(conf: str) -> None:
    import rados

    r = rados.Rados(conffile=conf, conf={"log_to_stderr": "false", "err_to_stderr": "false"})
    r.connect(timeout=10)
    try:
        if r.pool_exists("rbd"):
            with r.open_ioctx("rbd") as io:
                for obj in list(io.list_objects()):
                    if obj.key.startswith(DATA_PREFIX):
                        io.remove_object(obj.key)
    finally:
        r.shutdown()


IMAGES = ("vm-100-disk-0", "vm-101-disk-0", "base-9000-disk-0", "vm-102-disk-0")


def make_images(conf: str) -> None:
    """What a Proxmox pool holds: VM disks (data in the first), one with a snapshot, a template's disk with a
    protected snapshot, and a linked clone of it."""
    def rbd(*args: str) -> None:
        subprocess.run(["rbd", "-c", conf, *args], check=True, capture_output=True, timeout=300)
    rbd("create", "--size", "32G", "rbd/vm-100-disk-0")
    rbd("bench", "--io-type", "write", "--io-size", "4M", "--io-total", "64M", "rbd/vm-100-disk-0")
    rbd("create", "--size", "8G", "rbd/vm-101-disk-0")
    rbd("snap", "create", "rbd/vm-101-disk-0@before-upgrade")
    rbd("create", "--size", "16G", "rbd/base-9000-disk-0")
    rbd("snap", "create", "rbd/base-9000-disk-0@__base__")
    rbd("snap", "protect", "rbd/base-9000-disk-0@__base__")
    rbd("clone", "rbd/base-9000-disk-0@__base__", "rbd/vm-102-disk-0")


def remove_images(conf: str) -> None:
    def rbd(*args: str) -> None:
        subprocess.run(["rbd", "-c", conf, *args], capture_output=True, timeout=300)
    rbd("rm", "rbd/vm-102-disk-0")
    rbd("snap", "unprotect", "rbd/base-9000-disk-0@__base__")
    for name in IMAGES:
        rbd("snap", "purge", f"rbd/{name}")
        rbd("rm", f"rbd/{name}")


async def shoot_all(box: Path, docs: Path, size: tuple[int, int]) -> None:
    from cephtui.ceph import ops
    from cephtui.ui.app import CephTUI

    conf = str(box / "ceph.conf")
    client = CephClient(ConnectionSpec(conffile=conf, op_timeout=10)).connect()
    app = CephTUI(client=client, refresh=1)
    undo = ops.AuditLog(path=box / "screenshot-undo.log", entity=client.spec.name)
    stopped = False
    try:
        if len(client.mon("osd ls") or ()) < 4:
            raise SystemExit(f"{box} has fewer than 4 OSDs: with 3 and pools of size 3, osd.1's reweight leaves PGs "
                             "with two OSDs up and ok-to-stop refuses the maintenance (use a new sandbox)")
        async with app.run_test(size=size) as pilot:
            async def tab(name: str, cond: Callable[[str], object], what: str, out: str = "") -> None:
                await pilot.press(str(TABS.index(name) + 1))
                await until(pilot, app, cond, what)
                await pilot.pause(1.5)  # a refresh more: the newest numbers, the cursor settled
                save(app, docs / (out or f"{name}.svg"))

            await wait_for(pilot, lambda: app.snapshot is not None, "the first snapshot")
            log("setting the cluster up through cephtui's dialogs")
            await confirm_ops(pilot, app, [ops.pool_create(POOL, 16), ops.pool_application_enable(POOL, "rbd")])
            await confirm_ops(pilot, app, [ops.auth_get_or_create(USER, {
                "mon": "profile rbd", "osd": f"profile rbd pool=rbd, profile rbd pool={POOL}",
                "mgr": "profile rbd pool=rbd"})])
            await asyncio.to_thread(write_data, conf)
            await confirm_ops(pilot, app, [ops.osd_reweight(1, 0.85)])
            await wait_for(pilot, lambda: clean(app), "active+clean after the reweight", 180)

            log("osd.2 into maintenance (the Maintenance tab's own form), then stopped")
            await pilot.press(str(TABS.index("maintenance") + 1))
            await pilot.pause(0.5)
            app.pane(MaintenancePane).action_enter_maintenance()
            await form(pilot, app, {"target": "osd.2", "flags": "noscrub nodeep-scrub"})
            await confirm_run(pilot, app)
            await asyncio.to_thread(sandbox, "kill", str(box), "osd.2")
            stopped = True

            await tab("osds", lambda t: re.search(r"osd\.2\s+down in", t) and "noout" in t, "osd.2 down")
            await tab("health", lambda t: "OSD_DOWN" in t and "PG_DEGRADED" in t, "the health checks")
            await tab("pgs", lambda t: "degraded" in t and "Stuck" in t, "degraded PGs")
            await tab("maintenance", lambda t: "osd.2" in t and "active" in t, "the maintenance")
            await tab("crush", lambda t: "replicated_rule" in t and POOL in t, "the CRUSH map")
            await tab("pools", lambda t: POOL in t and "Selected pool" in t, "the pools")
            await tab("users", lambda t: USER in t, "the new user")
            log("VM disks in pool rbd: images, a snapshot, a golden image's protected snapshot and its clone")
            await asyncio.to_thread(make_images, conf)
            await pilot.press("colon", *"images", "enter")
            await until(pilot, app, lambda t: "vm-102-disk-0" in t and "base-9000-disk-0" in t and "1 1P" in t,
                        "the images with their details")
            await pilot.pause(1.5)
            save(app, docs / "images.svg")
            await pilot.resize_terminal(*SMALL)
            await tab("health", lambda t: "OSD_DOWN" in t, "80x24 health", out="health-80x24.svg")
            await pilot.resize_terminal(*size)

            log("osd.2 back; waiting for recovery, then ending the maintenance")
            await asyncio.to_thread(sandbox, "revive", str(box), "osd.2")
            stopped = False
            await wait_for(pilot, lambda: clean(app), "active+clean", 180)
            await pilot.press(str(TABS.index("maintenance") + 1))
            await until(pilot, app, lambda t: "osd.2" in t, "the maintenance row")
            app.pane(MaintenancePane).action_exit_maintenance()
            await confirm_run(pilot, app)

            log("per-OSD bench, a latency probe, a 4 MiB write run")
            await pilot.press(str(TABS.index("bench") + 1))
            bench = app.pane(BenchPane)
            bench.action_osd_bench()
            await form(pilot, app, {"osds": "all", "total": "128M", "block": "4M"})
            await bench_confirm(pilot, app)
            osds = bench.osd_table
            await wait_for(pilot, lambda: not osds.progress and osds.runner is None and osds.results,
                           "the per-OSD bench", 180)
            bench.action_latency_run()
            await form(pilot, app, {"pool": "rbd", "seconds": "5"})
            await bench_confirm(pilot, app)
            await wait_for(pilot, lambda: bench.probe is None and not bench.phase and len(bench.history) >= 2,
                           "the latency probe", 120)
            from cephtui.ui.screens.bench_probe import ProbeResultScreen
            await wait_for(pilot, lambda: isinstance(app.screen, ProbeResultScreen), "the probe's words", 10)
            await pilot.press("escape")
            bench.action_new_run()
            seconds = 12
            await form(pilot, app, {"pool": "rbd", "seconds": str(seconds), "op_size": "4M", "threads": "16"})
            await bench_confirm(pilot, app)
            await wait_for(pilot, lambda: bench.engine is not None, "the run to start", 30)
            await pilot.pause(seconds * 0.85)
            save(app, docs / "bench.svg")
            await wait_for(pilot, lambda: bench.engine is None and not bench.phase, "the run to end", 60)

            await tab("activity", lambda t: "set-group noout" in t and "auth get-or-create" in t, "the commands")
    finally:
        log("undoing what the script changed")
        if stopped:
            sandbox("revive", str(box), "osd.2")
        for op in (ops.osd_reweight(1, 1), ops.group_flag_set("noout", ["osd.2"], False),
                   ops.flag_set("noscrub", False), ops.flag_set("nodeep-scrub", False), ops.auth_del(USER),
                   ops.pool_delete(POOL)):
            try:
                ops.run(client, op, undo)
            except Exception as e:  # already undone, or never done
                log(f"  {op.cli}: {getattr(e, 'message', e)}")
        try:
            remove_data(conf)
            remove_images(conf)
        finally:
            client.close()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--all", action="store_true", help="every pane, into --docs (needs --sandbox)")
    p.add_argument("--sandbox", nargs="?", const="", metavar="DIR",
                   help="with --all: a sandbox of its own (temporary, or DIR, started if needed and kept)")
    p.add_argument("--docs", default=str(ROOT / "docs"))
    p.add_argument("--conf", help="one tab of this cluster (changes nothing)")
    p.add_argument("--tab", default="health", choices=TABS)
    p.add_argument("--out", default="")
    p.add_argument("--wait", type=float, default=3.0)
    p.add_argument("--size", default=f"{SIZE[0]}x{SIZE[1]}")
    args = p.parse_args()
    w, h = (int(x) for x in args.size.split("x"))
    if not args.all:
        if not args.conf:
            p.error("--conf CONF for one tab, or --all --sandbox")
        out = Path(args.out or Path(args.docs) / f"{args.tab}.svg")
        asyncio.run(shoot(args.conf, args.tab, out, args.wait, (w, h)))
        return 0
    if args.sandbox is None:
        p.error("--all stops an OSD and changes the cluster: it runs on a sandbox (--sandbox [DIR]) only")
    started = time.monotonic()
    temporary = not args.sandbox
    box = Path(args.sandbox or tempfile.mkdtemp(prefix="cephtui-shots-", dir="/tmp"))
    log(f"sandbox {box}")
    sandbox("start", str(box), "--osds", "4", "--pool", "rbd:32")  # 4: a reweight still maps 3 copies
    # This run's own state, history and audit log: not the user's, nothing left behind, and at a fixed
    # path (the Maintenance and Activity tabs show it), so a rerun draws the same text.
    shots = STATE
    shutil.rmtree(shots, ignore_errors=True)
    for var, sub in (("CEPHTUI_STATE_DIR", "state"), ("CEPHTUI_DATA_DIR", "data"), ("CEPHTUI_AUDIT_LOG", "audit.log")):
        os.environ[var] = str(shots / sub)
    try:
        asyncio.run(shoot_all(box, Path(args.docs), (w, h)))
    finally:
        shutil.rmtree(shots, ignore_errors=True)
        if temporary:
            sandbox("stop", str(box), "--purge")
            log("sandbox stopped and purged")
    log(f"done in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
