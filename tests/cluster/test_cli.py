"""`cephtui` as a process: ceph-compatible flags, environment, one-line errors, snapshot --json."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import Sandbox, wait_until

CEPHTUI = [sys.executable, "-m", "cephtui"]


def run(*args: str, env: dict[str, str] | None = None, timeout: float = 30) -> tuple[subprocess.CompletedProcess, float]:
    full_env = {k: v for k, v in os.environ.items() if k not in ("CEPH_CONF", "CEPH_ARGS")}
    full_env.update(env or {})
    t0 = time.monotonic()
    res = subprocess.run([*CEPHTUI, *args], capture_output=True, text=True, env=full_env, timeout=timeout)
    return res, time.monotonic() - t0


def test_version() -> None:
    res, _ = run("--version")
    assert res.returncode == 0 and res.stdout.startswith("cephtui ")


def test_snapshot_json_matches_ceph(sandbox: Sandbox) -> None:
    def quiet():
        before = sandbox.ceph("status")["pgmap"]["pgs_by_state"]
        res, _ = run("-c", str(sandbox.conf), "snapshot", "--json")
        after = sandbox.ceph("status")["pgmap"]["pgs_by_state"]
        return (res, after) if before == after else None

    res, by_state = wait_until(quiet, 60, "a quiet moment")
    assert res.returncode == 0, res.stderr
    snap = json.loads(res.stdout)
    osd = sandbox.ceph("osd", "stat")
    assert snap["fsid"] == sandbox.ceph("fsid")["fsid"]
    assert snap["health"]["status"] == sandbox.ceph("health")["status"]
    assert (snap["osds"]["total"], snap["osds"]["up"], snap["osds"]["in"]) == (
        osd["num_osds"], osd["num_up_osds"], osd["num_in_osds"])
    assert {s["state"]: s["count"] for s in snap["pgs"]["by_state"]} == {s["state_name"]: s["count"] for s in by_state}
    assert {p["name"] for p in snap["capacity"]["pools"]} >= {"rbd"}


def test_ceph_conf_and_ceph_args_are_honoured(sandbox: Sandbox) -> None:
    fsid = sandbox.ceph("fsid")["fsid"]
    res, _ = run("snapshot", "--json", env={"CEPH_CONF": str(sandbox.conf)})
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["fsid"] == fsid
    res, _ = run("snapshot", "--json", env={"CEPH_ARGS": f"-c {sandbox.conf} --id admin"})
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["fsid"] == fsid
    # -n/--name and -k/--keyring, spelled out
    res, _ = run("-c", str(sandbox.conf), "-n", "client.admin", "-k", str(sandbox.dir / "ceph.client.admin.keyring"),
                 "snapshot")
    assert res.returncode == 0, res.stderr
    assert f"cluster {fsid}" in res.stdout


@pytest.mark.parametrize("case", ["unreachable", "no-keyring", "unknown-user", "no-caps", "no-conf"])
def test_connection_problems_give_one_line_and_exit_fast(sandbox: Sandbox, tmp_path: Path, case: str) -> None:
    conf = str(sandbox.conf)
    if case == "unreachable":
        args, expect = ["-c", conf, "--mon-host", "127.0.0.1:1"], "cannot reach the monitors"
    elif case == "no-keyring":
        args, expect = ["-c", conf, "-k", str(tmp_path / "missing.keyring")], "no keyring found for client.admin"
    elif case == "unknown-user":
        args, expect = ["-c", conf, "--id", "nobody"], "no key for client.nobody"
    elif case == "no-caps":
        keyring = tmp_path / "nocaps.keyring"
        keyring.write_text(subprocess.run(
            ["ceph", "-c", conf, "auth", "get-or-create", "client.cephtui-nocaps"],
            capture_output=True, text=True, check=True).stdout)
        args, expect = ["-c", conf, "--id", "cephtui-nocaps", "-k", str(keyring)], "permission denied"
    else:
        args, expect = ["-c", str(tmp_path / "nope.conf")], "no ceph config at"
    for mode in (["snapshot"], []):  # the TUI must fail the same way before it draws anything
        res, took = run(*args, *mode, timeout=15)
        assert res.returncode == 1
        assert took < 10
        assert expect in res.stderr
        assert len(res.stderr.strip().splitlines()) == 1, res.stderr
        assert "Traceback" not in res.stderr


def test_read_only_user_gets_a_snapshot_with_notes(sandbox: Sandbox, tmp_path: Path) -> None:
    """A key allowed only `status` and `health` still gets a snapshot; what it may not read is named, not fatal."""
    keyring = tmp_path / "narrow.keyring"
    keyring.write_text(subprocess.run(
        ["ceph", "-c", str(sandbox.conf), "auth", "get-or-create", "client.cephtui-narrow",
         "mon", "allow command status, allow command health"],
        capture_output=True, text=True, check=True).stdout)
    res, _ = run("-c", str(sandbox.conf), "--id", "cephtui-narrow", "-k", str(keyring), "snapshot", "--json")
    assert res.returncode == 0, res.stderr
    snap = json.loads(res.stdout)
    assert snap["health"]["status"] == sandbox.ceph("health")["status"]
    who = "client.cephtui-narrow"
    for prefix in ("df", "quorum_status", "pg stat"):
        # Named with the cap it needs, from the cluster's own command table.
        assert f"{prefix}: {who} may not run `{prefix}` (access denied): it needs mon 'allow r'" in snap["notes"]
        assert [prefix, f"{who} may not run `{prefix}` (access denied): it needs mon 'allow r'"] in snap["unavailable"]
    # What status itself carries still shows: raw capacity and whether a mgr is active.
    assert snap["capacity"]["total"] == sandbox.ceph("df")["stats"]["total_bytes"]
    assert snap["mgr"]["available"] is True


def _tui_on_a_pty(sandbox: Sandbox) -> tuple[subprocess.Popen, int]:
    import pty

    master, slave = pty.openpty()
    os.set_inheritable(slave, True)
    env = {k: v for k, v in os.environ.items() if k not in ("CEPH_CONF", "CEPH_ARGS")}
    env.update(TERM="xterm-256color", COLUMNS="120", LINES="40")
    proc = subprocess.Popen([*CEPHTUI, "-c", str(sandbox.conf)], stdin=slave, stdout=slave, stderr=slave,
                            env=env, start_new_session=True)
    os.close(slave)
    # Drain the screen output in the background so the app never blocks on a full pty.
    import threading

    def drain() -> None:
        try:
            while os.read(master, 65536):
                pass
        except OSError:
            pass

    threading.Thread(target=drain, daemon=True).start()
    return proc, master


@pytest.mark.parametrize("terminal_gone", [False, True], ids=["live terminal", "terminal closed"])
def test_hangup_ends_the_tui(sandbox: Sandbox, terminal_gone: bool) -> None:
    """A dropped ssh session (SIGHUP) ends cephtui, even when its terminal is already gone."""
    proc, master = _tui_on_a_pty(sandbox)
    try:
        time.sleep(4)  # connected and painting
        assert proc.poll() is None, "cephtui should be running"
        if terminal_gone:
            os.close(master)
            time.sleep(1)
        proc.send_signal(1)
        proc.wait(timeout=6)
        assert proc.returncode in (0, 129)
    finally:
        if proc.poll() is None:
            proc.kill()
        if not terminal_gone:
            os.close(master)
