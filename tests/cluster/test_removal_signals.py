"""The real cephtui on a pty, driving a removal, ended by SIGTERM or SIGHUP (an ssh session dropping): the
removal is paused in the cluster's queue before the process ends, as `cephtui remove` does on SIGTERM,
instead of left `running` with nothing driving it.

The removal is one resumed at `wait_safe` whose drain never ran (osd.1 keeps its PGs): it polls, reads only,
and never reaches its stop (/bin/false anyway). The Pilot side (q asks, ctrl+q) is tests/ui/test_removal_quit.py.
"""
from __future__ import annotations

import os
import re
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cephtui.ceph.client import CephClient
from cephtui.ceph.connection import ConnectionSpec
from cephtui.ceph.workflows.removal import KIND, Removal
from cephtui.ceph.workflows.store import META, PREFIX, WorkflowStore
from tests.cluster.test_cli import _tui_on_a_pty
from tests.conftest import Sandbox, wait_until

ESCAPES = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]")


@pytest.fixture
def queue_cleared(sandbox: Sandbox) -> Iterator[None]:
    yield
    for key in sandbox.ceph("config-key", "dump", f"{PREFIX}/{KIND}/") or {}:
        sandbox.ceph("config-key", "rm", key)


def stored(sandbox: Sandbox, wf_id: str) -> dict[str, Any]:
    return sandbox.ceph("config-key", "get", f"{PREFIX}/{KIND}/{wf_id}")  # type: ignore[no-any-return]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_pauses_the_removal_this_cephtui_drives(sandbox: Sandbox, tmp_path: Path, queue_cleared: None,
                                                         sig: signal.Signals) -> None:
    client = CephClient(ConnectionSpec(conffile=str(sandbox.conf), op_timeout=5)).connect()
    try:
        r = Removal(osds=[1], status="paused", step="wait_safe", drain_epoch=sandbox.ceph("osd", "dump")["epoch"],
                    stop_template="/bin/false {id}", waiting_for="not yet safe to destroy")
        WorkflowStore(tmp_path / "earlier", client).save(KIND, r.id, r.to_json())
    finally:
        client.close()
    proc, master, painted, _ = _tui_on_a_pty(sandbox)
    try:
        wait_until(lambda: b"interrupted workflow" in ESCAPES.sub(b"", bytes(painted)) or proc.poll() is not None,
                   60, "the resume offer painted", interval=0.1)
        assert proc.poll() is None, ESCAPES.sub(b"", bytes(painted))[-2000:]
        os.write(master, b"\r")  # Resume has the focus
        wait_until(lambda: stored(sandbox, r.id)["status"] == "running"
                   and stored(sandbox, r.id)[META]["pid"] == proc.pid, 60, "the removal running in cephtui",
                   interval=0.5)
        proc.send_signal(sig)
        proc.wait(timeout=20)
        assert proc.returncode in (0, 128 + sig), proc.returncode
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        os.close(master)
    back = stored(sandbox, r.id)
    assert back["status"] == "paused" and back["step"] == "wait_safe", back
    assert any(e["text"].startswith(f"paused: cephtui got {sig.name} (") for e in back["log"]), back["log"][-3:]
