#!/usr/bin/env python3
"""Capture what the look tier replays: every command the app itself sends while an admin walks its tabs.

    .venv/bin/python scripts/capture_look.py [OUTDIR]
    scripts/chroot.sh run trixie -- .venv-trixie/bin/python scripts/capture_look.py

Starts its own sandbox (this environment's Ceph), gives it what an admin's cluster has (a VM pool with
RBD images, a client key, an erasure-code profile, a CephFS with a standby MDS and one libcephfs client
mounted), then runs cephtui headless on a recording client
and opens each tab in turn, waiting on each until the app has asked nothing new for a while. What the
cluster answered is written to OUTDIR/look.json (tests/fixtures/<release>/ by default), with the
cluster's command table (what tests/look checks "nothing mutating was sent" against), the wall time
of the capture (the clock the look tier freezes at) and two samples of this host's counters (the
Bench tab's host panel). Nothing here is typed by hand.

The recording client offers the app exactly what a ReplayClient does (no librados handle), so the
app takes the same paths capturing as replaying and asks the same commands.
"""
from __future__ import annotations

import asyncio
import dataclasses
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from capturelib import captured_cluster, wait_for  # noqa: E402

from cephtui.ceph.bench.hoststats import HostSampler  # noqa: E402
from cephtui.ceph.connection import ConnectionSpec  # noqa: E402
from cephtui.ceph.recording import RecordingClient, ReplaySurface  # noqa: E402

QUIET = 3.0  # seconds without a new command: the tab has read what it reads


@dataclasses.dataclass
class AppRecorder(RecordingClient, ReplaySurface):
    """A RecordingClient with a ReplayClient's surface (connected, spec, fsid; no handle)."""

    spec: ConnectionSpec = dataclasses.field(default_factory=lambda: ConnectionSpec(name="client.replay"))


def ceph(conf: str, *args: str) -> str:
    return subprocess.run(["ceph", "-c", conf, *args], check=True, capture_output=True, text=True).stdout


def furnish(conf: str) -> None:
    """What a small VM cluster has besides the sandbox's rbd pool: a second pool, a key for a hypervisor,
    an EC profile, a few images and objects."""
    ceph(conf, "osd", "pool", "create", "vms", "16")
    ceph(conf, "osd", "pool", "application", "enable", "vms", "rbd")
    ceph(conf, "auth", "get-or-create", "client.vmhost1", "mon", "profile rbd", "osd", "profile rbd pool=vms")
    ceph(conf, "osd", "erasure-code-profile", "set", "ec21", "k=2", "m=1", "crush-failure-domain=osd")
    for name, size in (("vm-100-disk-0", "1G"), ("vm-101-disk-0", "4G")):
        subprocess.run(["rbd", "-c", conf, "create", "--size", size, f"vms/{name}"], check=True)
    subprocess.run(["rados", "-c", conf, "-p", "rbd", "bench", "5", "write", "--no-cleanup", "-b", "65536"],
                   check=True, capture_output=True)


def mount_client(conf: str) -> subprocess.Popen[str]:
    """A real libcephfs client (scripts/cephfs_client.py, on Debian's python3 with python3-cephfs) holding a file
    open, so the File systems tab lists a session; ended by its pid after the walk."""
    proc = subprocess.Popen(["/usr/bin/python3", str(ROOT / "scripts" / "cephfs_client.py"), conf, "hold",
                             "/notes.txt"], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    if proc.stdout.readline().strip() != "ready":
        proc.kill()
        raise SystemExit("capture_look: the CephFS client did not mount")
    return proc


def host_samples() -> list[dict[str, Any]]:
    sampler = HostSampler()
    first = sampler.sample()
    time.sleep(1)
    return [dataclasses.asdict(first), dataclasses.asdict(sampler.sample())]


async def walk(recorder: AppRecorder) -> None:
    from cephtui.ui.app import CephTUI
    from cephtui.ui.screens.crush_editor import DiscardScreen
    from cephtui.ui.tabs import TABS
    from tests.look.settle import keys_for
    from tests.look.walk import DIALOGS

    app = CephTUI(recorder, refresh=3600, history=False)  # type: ignore[arg-type]  # a client's surface

    async def settle() -> None:
        seen, since = -1, time.monotonic()
        while time.monotonic() - since < QUIET:
            await asyncio.sleep(0.2)
            if len(recorder.records) != seen:
                seen, since = len(recorder.records), time.monotonic()

    async with app.run_test(size=(160, 48)) as pilot:
        while app.snapshot is None:
            await pilot.pause(0.2)
        await settle()
        for tab in TABS:
            await pilot.press(*keys_for(tab.key))
            await settle()
            print(f"capture_look: {tab.key}: {len(recorder.records)} commands so far", file=sys.stderr)
        # Each dialog as tests/look/test_dialog_snapshots.py opens it, so the capture holds what it reads;
        # closed with escape, nothing confirmed.
        for dialog in DIALOGS:
            await pilot.press(*keys_for(dialog.tab))
            await settle()
            await pilot.press(*dialog.keys)
            await settle()
            for step in dialog.steps:
                await pilot.press(*step)
                await settle()
            if not dialog.opens_screen:  # the jump line is open, or a notice shows: escape closes either
                await pilot.press("escape")
                await settle()
            for _ in range(4):
                if len(app.screen_stack) == 1:
                    break
                # The CRUSH editor asks before it drops an edit: yes, drop it.
                await pilot.press("y" if isinstance(app.screen, DiscardScreen) else "escape")
                await settle()
            if len(app.screen_stack) != 1:
                raise SystemExit(f"capture_look: {dialog.name} did not close with escape")
            print(f"capture_look: {dialog.name}: {len(recorder.records)} commands so far", file=sys.stderr)


def main(argv: list[str]) -> None:
    with captured_cluster("ctlook-", argv, "--pool", "rbd:32", "--fs", "cephfs") as cap:
        furnish(cap.conf)
        mounted = mount_client(cap.conf)
        try:
            wait_for("HEALTH_OK", lambda: '"HEALTH_OK"' in ceph(cap.conf, "health", "-f", "json"), 120)
            table_raw, _ = cap.client._send("get_command_descriptions", b"", {})
            recorder = AppRecorder(cap.client)
            asyncio.run(walk(recorder))
        finally:
            mounted.terminate()
            mounted.wait(30)
        meta = {"taken_at": time.time(), "version": cap.version, "host_samples": host_samples(),
                "command_descriptions": json.loads(table_raw)}
        recorder.save(cap.out / "look.json", meta)
        cap.note(["look.json"], __file__)
        print(f"capture_look: {len(recorder.records)} commands -> {cap.out / 'look.json'}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)
