"""The mgr dies, for real, while cephtui cycles through every tab: it must not leave ops at the mon.

Measured (docs in cephtui/ceph/mgrgate.py): a mgr command sent while the mgrmap still calls a dead
mgr active stays queued at the mon until a mgr returns, which then reports it as SLOW_OPS. So the
test samples the mon's own op tracker (`ceph daemon mon.a ops`, its admin socket) while the mgr is
gone, and the cluster's health and log after it is back. A separate sandbox: this breaks its mgr.
"""
from __future__ import annotations

import json
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cephtui.ceph.client import MGR_PREFIXES, CephClient
from cephtui.ceph.connection import ConnectionSpec
from cephtui.ceph.workflows.store import WorkflowStore
from cephtui.ui.app import TABS, CephTUI
from tests.conftest import Sandbox, wait_until
from tests.ui.helpers import SIZE, cells, plain, tab_presses, text_of, wait_for

pytestmark = pytest.mark.cluster  # its own sandbox, not the session's

DOWN_FOR = 60.0  # > mon_mgr_beacon_grace (30 s) and > the mon's slow-op complaint time (30 s)


@pytest.fixture(scope="module")
def mgr_box() -> Iterator[Sandbox]:
    d = Path(tempfile.mkdtemp(prefix="ctmgr-", dir="/tmp"))
    box = Sandbox(d, d / "ceph.conf")
    try:
        box.tool("start", str(d), "--osds", "3", "--pool", "rbd:8")
        # The mgr on ports no other sandbox binds (they keep Ceph's 6800-7300): when it dies, only this test
        # (take_port) moves a daemon onto its port. Another cluster's mgr taking it would answer the probe as
        # a mgr, which cephtui cannot tell apart (docs/mgr-outage.md); other tests' sandboxes must not.
        for name, value in (("ms_bind_port_min", "7400"), ("ms_bind_port_max", "7499")):
            box.ceph("config", "set", "mgr", name, value)
        box.kill("mgr.x")
        box.revive("mgr.x")
        wait_until(lambda: box.ceph("mgr", "dump")["available"] and 7400 <= mgr_port(box) <= 7499, 60,
                   "the mgr back on a port of its own")
        yield box
    finally:
        box.tool("stop", str(d), "--purge")


def mon_ops(box: Sandbox) -> list[tuple[str, float]]:
    """(description, age) of every op the mon holds, from its admin socket."""
    res = subprocess.run(["ceph", "-c", str(box.conf), "daemon", "mon.a", "ops"], capture_output=True, text=True,
                         timeout=30)
    assert res.returncode == 0, res.stderr
    return [(o["description"], o["age"]) for o in json.loads(res.stdout).get("ops", [])]


def pgmap_version(box: Sandbox) -> int:
    """The mgr's PGMap version: one more at each of its ticks."""
    return int(box.ceph("pg", "dump", "summary")["pg_map"]["version"])


def mgr_port(box: Sandbox) -> int:
    """The active mgr's v2 port; 0 while the mgrmap names none yet (it may say `available` first)."""
    addrs = (box.ceph("mgr", "dump").get("active_addrs") or {}).get("addrvec") or []
    v2 = [a for a in addrs if a.get("type") == "v2"]
    return int(v2[0]["addr"].rsplit(":", 1)[1]) if v2 else 0


def take_port(box: Sandbox, daemon: str, port: int) -> None:
    """Restart `daemon` bound from `port` up (Ceph binds the lowest free port of its range)."""
    for name, value in (("ms_bind_port_min", port), ("ms_bind_port_max", port + 20)):
        box.ceph("config", "set", daemon, name, str(value))
    box.kill(daemon)
    box.revive(daemon)

    def booted_there() -> bool:
        osds = [o for o in box.ceph("osd", "dump")["osds"] if f"osd.{o['osd']}" == daemon]
        addrs = [a["addr"] for o in osds for kind in ("public_addrs", "cluster_addrs", "heartbeat_back_addrs",
                                                      "heartbeat_front_addrs") for a in o[kind]["addrvec"]]
        return bool(osds) and bool(osds[0]["up"]) and f"127.0.0.1:{port}" in addrs
    wait_until(booted_there, 60, f"{daemon} up, bound to the mgr's old port {port}")


def slow_ops_raised(box: Sandbox) -> list[str]:
    checks: dict[str, Any] = box.ceph("health", "detail").get("checks", {})
    return [c["summary"]["message"] for name, c in checks.items() if name == "SLOW_OPS"]


async def test_mgr_down_for_60s_leaves_no_ops_at_the_mon(mgr_box: Sandbox, tmp_path: Path) -> None:
    box = mgr_box
    client = CephClient(ConnectionSpec(conffile=str(box.conf), op_timeout=5)).connect()
    app = CephTUI(client=client, refresh=1.0, workflow_store=WorkflowStore(tmp_path / "wf"))
    held: list[tuple[str, float]] = []
    forwarded: list[tuple[str, float]] = []
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.snapshot is not None and app.snapshot.pgs.num_pgs > 0, 60,
                           "a first snapshot")
            port = mgr_port(box)
            box.kill("mgr.x")  # by pid, SIGTERM
            # As on a busy host: the next daemon to start takes the lowest free port, the one the mgr freed
            # (in CI an OSD restarting in another test's sandbox did). cephtui must not take it for the mgr.
            take_port(box, "osd.0", port)
            t0 = time.monotonic()
            rounds = 0
            while time.monotonic() - t0 < DOWN_FOR:
                for i, (key, _) in enumerate(TABS, 1):
                    await pilot.press(*tab_presses(i, key))
                    before = app.snapshot
                    await wait_for(pilot, lambda k=key, b=before: app.tabs.active == k and app.snapshot is not b,
                                   30, f"a fresh snapshot on the {key} tab")
                ops = mon_ops(box)
                held += [(d, a) for d, a in ops if a > 1.0]
                # mgr commands go to the mgr itself (mgrline): none may reach the mon at all, of any age.
                forwarded += [(d, a) for d, a in ops if any(f'"prefix": "{p}"' in d for p in MGR_PREFIXES)]
                rounds += 1
            assert rounds >= 2
            assert not held, f"cephtui left ops at the mon while the mgr was down: {held[:5]}"
            assert not forwarded, f"mgr commands went through the mon: {forwarded[:5]}"
            # The mon has noticed by now: the panes say "mgr down", never 0 or "none stuck".
            await pilot.press("3")
            await wait_for(pilot, lambda: "mgr down" in text_of(app, "#osds-summary"), 30, "OSDs: mgr down")
            await wait_for(pilot, lambda: cells(app, "#osds-table", 9) != [], 10, "OSD rows")
            osd_pgs = [c for name, c in zip(cells(app, "#osds-table", 0), cells(app, "#osds-table", 9))
                       if "osd." in name]
            assert osd_pgs and set(osd_pgs) == {"?"}, osd_pgs
            await pilot.press("2")
            await wait_for(pilot, lambda: "mgr down" in cells(app, "#pgs-states", 2), 30, "PGs: mgr down")
            stuck_box = app.query_one("#pgs-stuck")
            assert "none stuck" not in plain(stuck_box.border_subtitle or "")
            assert "mgr down" in plain(stuck_box.border_subtitle or "")

            box.revive("mgr.x")
            await wait_for(pilot, lambda: app.snapshot is not None and not app.snapshot.mgr_down, 90,
                           "mgr values back after the mgr returned")
            # The returning mgr is where the mon reports slow ops: sample over two of its stats periods
            # (mgr_stats_period 5 s), counted in the mgr's own ticks (mgr_tick_period 2 s): six of them.
            ticked = pgmap_version(box) + 6

            def quiet_for_six_ticks() -> bool:
                assert not slow_ops_raised(box)
                return pgmap_version(box) >= ticked
            await wait_for(pilot, quiet_for_six_ticks, 60, "six mgr ticks without SLOW_OPS", interval=1.0)
    finally:
        client.close()
    log = subprocess.run(["ceph", "-c", str(box.conf), "log", "last", "200"], capture_output=True, text=True,
                         timeout=30).stdout
    assert "slow ops" not in log, [line for line in log.splitlines() if "slow ops" in line]
    wait_until(lambda: box.ceph("health").get("status") != "HEALTH_ERR", 60, "health back")
