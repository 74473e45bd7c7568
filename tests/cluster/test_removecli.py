"""`cephtui remove` as a process, on its own 4-OSD sandbox: refused without the exact typed names,
blocked (non-zero, with the reason) by a preflight blocker, a conflicting second removal refused,
Ctrl-C pauses (saved in the cluster's queue), resumed with a stop command that kills the OSD by pid,
exit 0 once done. The drain's correctness itself is tested with the engine (the lead's tests)."""
from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from cephtui.ceph.workflows.store import PREFIX
from tests.conftest import SANDBOX_PY, Sandbox, own_sandbox

CEPHTUI = [sys.executable, "-m", "cephtui"]


@pytest.fixture(scope="module")
def box4() -> Iterator[Sandbox]:
    with own_sandbox("ctt-rm-", "--osds", "4", "--pool", "rbd:32") as box:
        yield box


def env() -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if k not in ("CEPH_CONF", "CEPH_ARGS", "CEPHTUI_CONFIG")}
    e["XDG_CONFIG_HOME"] = "/nonexistent/cephtui-tests"
    return e


def cephtui(box: Sandbox, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([*CEPHTUI, "-c", str(box.conf), *args], capture_output=True, text=True, env=env(),
                          timeout=timeout)


def osd(box: Sandbox, i: int) -> dict | None:
    return next((o for o in box.ceph("osd", "dump")["osds"] if o["osd"] == i), None)


def status(box: Sandbox) -> list[dict]:
    res = cephtui(box, "remove", "--status", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["source"] == "cluster", out["problem"]
    return out["removals"]


def test_remove_refused_blocked_paused_resumed_done(box4: Sandbox) -> None:
    stop = f"/usr/bin/python3 {SANDBOX_PY} kill {box4.dir} osd.{{id}}"

    # Without the exact names typed: the plan and the preflight, then a refusal; nothing changed.
    res = cephtui(box4, "remove", "osd.3", "--osd-stop-cmd", stop, "--yes-i-typed", "osd.2")
    assert res.returncode == 2 and "must name exactly osd.3" in res.stderr, res.stderr
    assert "Plan: Remove osd.3" in res.stdout and "Preflight:" in res.stdout
    assert "$ ceph osd crush reweight osd.3 0" in res.stdout  # crush0, a removal's default drain
    assert osd(box4, 3)["in"] == 1 and status(box4) == []

    # A preflight blocker: exit 3 with the reason; the workflow stays in the cluster's queue, blocked.
    box4.ceph("osd", "set", "norecover")
    try:
        res = cephtui(box4, "remove", "osd.3", "--yes-i-typed", "osd.3", "--interval", "0.5")
        assert res.returncode == 3, (res.stdout, res.stderr)
        assert "blocked" in res.stderr and "norecover" in res.stderr
        assert osd(box4, 3)["in"] == 1 and osd(box4, 3)["up"] == 1
        [row] = status(box4)
        assert (row["osds"], row["status"], row["step"]) == (["osd.3"], "blocked", "preflight")
        assert row["started_by"]
        wf = row["id"]
        assert box4.ceph("config-key", "get", f"{PREFIX}/removal/{wf}")["status"] == "blocked"  # the real CLI

        # A second removal touching osd.3 is refused while that one is unfinished.
        res = cephtui(box4, "remove", "osd.2", "osd.3", "--yes-i-typed", "osd.2", "osd.3")
        assert res.returncode == 2 and f"osd.3 already in workflow {wf}" in res.stderr, res.stderr
    finally:
        box4.ceph("osd", "unset", "norecover")

    # Resumed without a stop command (none here, no systemd): it drains, then waits at the stop step for
    # someone to stop the daemon. Ctrl-C there pauses it, saved.
    proc = subprocess.Popen([*CEPHTUI, "-c", str(box4.conf), "remove", "--resume", "--interval", "0.5"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env())
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout or ()], daemon=True)
    reader.start()
    seen: list[str] = []
    deadline = time.monotonic() + 120
    while not any(x.split("  ", 1)[-1].startswith("stop: ") for x in seen):  # the step, as printed
        assert time.monotonic() < deadline and proc.poll() is None, ("".join(seen), proc.poll())
        try:
            seen.append(lines.get(timeout=1))
        except queue.Empty:
            pass
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=30) == 130
    reader.join(timeout=10)  # to the end of its output
    while not lines.empty():
        seen.append(lines.get())
    assert f"paused and saved: continue with `cephtui remove --resume {wf}`" in "".join(seen)
    [row] = status(box4)
    assert (row["status"], row["step"]) == ("paused", "stop")
    assert osd(box4, 3)["up"] == 1  # nothing stopped

    # Resumed with a stop command given now (the stop method can change on resume): to the end, exit 0.
    res = cephtui(box4, "remove", "--resume", wf, "--osd-stop-cmd", stop, "--interval", "0.5", timeout=240)
    assert res.returncode == 0, (res.stdout, res.stderr)
    assert "stop method changed" in res.stdout and stop.replace("{id}", "3") in res.stdout
    assert res.stdout.rstrip().splitlines()[-1].endswith("done: Remove osd.3")
    assert osd(box4, 3) is None  # purged
    [row] = status(box4)
    assert (row["status"], row["step"]) == ("done", "done")
