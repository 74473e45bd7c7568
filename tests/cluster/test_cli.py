"""`cephtui` as a process: ceph-compatible flags, environment, one-line errors, snapshot --json."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, Sandbox, wait_until

CEPHTUI = [sys.executable, "-m", "cephtui"]


def run(*args: str, env: dict[str, str] | None = None,
        timeout: float = 30) -> tuple[subprocess.CompletedProcess, float]:
    full_env = {k: v for k, v in os.environ.items() if k not in ("CEPH_CONF", "CEPH_ARGS", "CEPHTUI_CONFIG")}
    full_env["XDG_CONFIG_HOME"] = "/nonexistent/cephtui-tests"  # never the developer's own config file
    full_env.update(env or {})
    t0 = time.monotonic()
    res = subprocess.run([*CEPHTUI, *args], capture_output=True, text=True, env=full_env, timeout=timeout)
    return res, time.monotonic() - t0


def test_version() -> None:
    res, _ = run("--version")
    assert res.returncode == 0 and res.stdout.startswith("cephtui ")


def test_snapshot_json_matches_ceph(sandbox: Sandbox) -> None:
    # `ceph pg stat`: what cephtui reads while the mgr answers (the mon's digest in `ceph -s` can lag it by a
    # stats period: a pool an earlier test created can be peering in one and clean in the other).
    def by_state() -> dict[str, int]:
        return {s["name"]: s["num"] for s in sandbox.ceph("pg", "stat")["pg_summary"]["num_pg_by_state"]}

    def quiet():
        before = by_state()
        res, _ = run("-c", str(sandbox.conf), "snapshot", "--json")
        after = by_state()
        return (res, after) if before == after else None

    res, states = wait_until(quiet, 60, "a quiet moment")
    assert res.returncode == 0, res.stderr
    snap = json.loads(res.stdout)
    osd = sandbox.ceph("osd", "stat")
    assert snap["fsid"] == sandbox.ceph("fsid")["fsid"]
    assert snap["health"]["status"] == sandbox.ceph("health")["status"]
    assert (snap["osds"]["total"], snap["osds"]["up"], snap["osds"]["in"]) == (
        osd["num_osds"], osd["num_up_osds"], osd["num_in_osds"])
    assert {s["state"]: s["count"] for s in snap["pgs"]["by_state"]} == states
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


def _tui_on_a_pty(sandbox: Sandbox) -> tuple[subprocess.Popen, int, bytearray, Any]:
    """cephtui on a new pty: the process, the master fd, what it painted so far, the thread reading it."""
    import pty
    import threading

    master, slave = pty.openpty()
    os.set_inheritable(slave, True)
    env = {k: v for k, v in os.environ.items() if k not in ("CEPH_CONF", "CEPH_ARGS")}
    env.update(TERM="xterm-256color", COLUMNS="120", LINES="40")
    proc = subprocess.Popen([*CEPHTUI, "-c", str(sandbox.conf)], stdin=slave, stdout=slave, stderr=slave,
                            env=env, start_new_session=True)
    os.close(slave)
    painted = bytearray()

    # Drain the screen output in the background so the app never blocks on a full pty.
    def drain() -> None:
        try:
            while True:
                chunk = os.read(master, 65536)
                if not chunk:
                    break
                painted.extend(chunk)
        except OSError:
            pass

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    return proc, master, painted, reader


@pytest.mark.parametrize("terminal_gone", [False, True], ids=["live terminal", "terminal closed"])
def test_hangup_ends_the_tui(sandbox: Sandbox, terminal_gone: bool) -> None:
    """A dropped ssh session (SIGHUP) ends cephtui, even when its terminal is already gone."""
    proc, master, painted, reader = _tui_on_a_pty(sandbox)
    try:
        # Connected and painting: the health it read from the cluster is on the screen.
        wait_until(lambda: b"HEALTH_" in painted or proc.poll() is not None, 60, "cephtui painting the health",
                   interval=0.1)
        assert proc.poll() is None, "cephtui should be running"
        if terminal_gone:
            os.close(master)
            # The pty is released once the reader's last read returns (the app paints every refresh).
            wait_until(lambda: not reader.is_alive(), 30, "the terminal gone", interval=0.1)
        proc.send_signal(1)
        proc.wait(timeout=6)
        assert proc.returncode in (0, 129)
    finally:
        if proc.poll() is None:
            proc.kill()
        if not terminal_gone:
            os.close(master)


# ------------------------------------------------------------------------------------------------ the config file
def write_config(tmp_path: Path, text: str) -> dict[str, str]:
    """The config as the default file under $XDG_CONFIG_HOME; the environment that finds it."""
    (tmp_path / "cephtui").mkdir(exist_ok=True)
    (tmp_path / "cephtui" / "config.toml").write_text(text)
    return {"XDG_CONFIG_HOME": str(tmp_path)}


def test_profile_connects_to_the_cluster(sandbox: Sandbox, tmp_path: Path) -> None:
    fsid = sandbox.ceph("fsid")["fsid"]
    env = write_config(tmp_path, f"""\
refresh = 3

[profiles.lab]
conf = "{sandbox.conf}"
name = "client.admin"
keyring = "{sandbox.dir / 'ceph.client.admin.keyring'}"
options = {{ rados_mon_op_timeout = 7 }}

[profiles.nowhere]
conf = "{sandbox.conf}"
mon_host = "127.0.0.1:1"
""")
    res, _ = run("--profile", "lab", "snapshot", "--json", env=env)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["fsid"] == fsid
    # The profile's mon_host reaches librados: this one cannot reach the monitors ...
    res, took = run("--profile", "nowhere", "snapshot", env=env, timeout=15)
    assert res.returncode == 1 and "cannot reach the monitors" in res.stderr and took < 10
    # ... and a --mon-host flag wins over it (the command line's options come after the profile's).
    mon = subprocess.run(["ceph", "-c", str(sandbox.conf), "mon", "dump", "--format", "json"], capture_output=True,
                         text=True, check=True)
    addr = json.loads(mon.stdout)["mons"][0]["public_addrs"]["addrvec"][0]["addr"]
    res, _ = run("--profile", "nowhere", "--mon-host", f"v2:{addr}", "snapshot", "--json", env=env)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["fsid"] == fsid


def test_default_profile_from_the_file(sandbox: Sandbox, tmp_path: Path) -> None:
    env = write_config(tmp_path, f'profile = "lab"\n[profiles.lab]\nconf = "{sandbox.conf}"\n')
    res, _ = run("snapshot", "--json", env=env)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["fsid"] == sandbox.ceph("fsid")["fsid"]


@pytest.mark.parametrize("case", ["syntax", "type", "unknown-key", "unknown-profile", "missing-file"])
def test_bad_config_exits_2_with_the_line_and_never_connects(sandbox: Sandbox, tmp_path: Path, case: str) -> None:
    # Every profile here points at a monitor that does not answer: had cephtui tried to connect, it would
    # take the connect timeout and exit 1.
    head = f'[profiles.lab]\nconf = "{sandbox.conf}"\nmon_host = "127.0.0.1:1"\n'
    text, args, expect = {
        "syntax": (head + "refresh = = 2\n", ["--profile", "lab"], "line 4: not valid TOML: Invalid value"),
        "type": (head + "\n[bench]\nthreads = \"many\"\n", ["--profile", "lab"],
                 'line 6: bench.threads must be an integer from 1 to 1024, got "many"'),
        "unknown-key": ("refesh = 1\n" + head, ["--profile", "lab"],
                        "line 1: unknown key `refesh` at the top level; did you mean `refresh`?"),
        "unknown-profile": (head, ["--profile", "prod"], "no profile `prod` (from --profile); the profiles are: lab"),
        "missing-file": (head, ["--config", str(tmp_path / "nope.toml")],
                         "nope.toml: no such file (named by --config)"),
    }[case]
    env = write_config(tmp_path, text)
    path = tmp_path / "cephtui" / "config.toml"
    for mode in (["snapshot"], [], ["bench", "--pool", "rbd"]):
        res, took = run(*args, *mode, env=env, timeout=15)
        assert res.returncode == 2, res.stderr
        assert took < 4
        assert expect in res.stderr
        if case != "missing-file":
            assert res.stderr.startswith(f"cephtui: {path}")
        assert len(res.stderr.strip().splitlines()) == 1, res.stderr


def test_config_command_shows_where_each_setting_came_from(sandbox: Sandbox, tmp_path: Path) -> None:
    env = write_config(tmp_path, f"""\
read_only = true
profile = "lab"

[bench]
threads = 8

[profiles.lab]
conf = "{sandbox.conf}"
refresh = 1
""")
    res, took = run("--refresh", "4", "config", env={**env, "CEPH_ARGS": "--id ops"}, timeout=15)
    assert res.returncode == 0, res.stderr
    rows = {line.split()[0]: line.split()[1:] for line in res.stdout.splitlines() if line.strip()}
    assert rows["config"][-3:] == ["(the", "default", "location)"]
    assert rows["read_only"] == ["true", "file", "line", "1"]
    assert rows["profile"] == ['"lab"', "file", "line", "2"]
    assert rows["refresh"] == ["4", "flag", "--refresh"]
    assert rows["bench.threads"] == ["8", "file", "line", "5"]
    assert rows["bench.seconds"] == ["10", "default"]
    assert rows["connection.conf"] == [f'"{sandbox.conf}"', "profile", "lab,", "line", "8"]
    assert rows["connection.name"] == ['"client.ops"', "flag", "--id"]  # CEPH_ARGS count as flags
    res, _ = run("--read-write", "config", "--json", env=env)
    settings = json.loads(res.stdout)["settings"]
    assert settings["read_only"] == {"value": False, "source": "flag --read-write"}
    assert settings["bench.block_size"] == {"value": 4 * 1024 * 1024, "source": "default"}
    assert settings["connection.conf"] == {"value": str(sandbox.conf), "source": "profile lab, line 8"}


def test_config_bench_defaults_and_read_write_override(sandbox: Sandbox, tmp_path: Path) -> None:
    env = write_config(tmp_path, f"""\
read_only = true

[bench]
pool = "rbd"
seconds = 1
threads = 2
block_size = "8K"
op_timeout = 20

[profiles.lab]
conf = "{sandbox.conf}"
""")
    env["CEPHTUI_DATA_DIR"] = str(tmp_path / "data")
    res, took = run("--profile", "lab", "bench", env=env, timeout=15)
    assert res.returncode == 2 and took < 4
    assert "not with --read-only" in res.stderr and "file line 1; --read-write overrides it" in res.stderr
    res, _ = run("--profile", "lab", "--read-write", "bench", "--json", env=env, timeout=90)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    p = out["params"]
    assert (p["pool"], p["seconds"], p["threads"], p["op_size"], p["op_timeout"], p["cleanup"]) == (
        "rbd", 1.0, 2, 8192, 20.0, True)
    assert out["ops"] > 0 and out["error"] is None


def test_config_example_is_a_config_that_loads(tmp_path: Path) -> None:
    res, _ = run("config", "--example")
    assert res.returncode == 0 and "[profiles.lab]" in res.stdout
    example = tmp_path / "example.toml"
    example.write_text(res.stdout)
    for profile in ([], ["--profile", "lab"], ["--profile", "prod"]):
        res, _ = run("--config", str(example), *profile, "config")
        assert res.returncode == 0, res.stderr


# ------------------------------------------------------------------------------------------------ typos and pipes
def test_a_typo_exits_2_before_connecting(sandbox: Sandbox) -> None:
    """`--read-onyl snapshot` used to reach librados, which skipped both words and started a read-write TUI."""
    for argv, expect in ((["--read-onyl", "snapshot"], "did you mean --read-only?"),
                         (["snapshot", "--read-only"], "--read-only is a global option: put it before `snapshot`"),
                         (["--rados-mon-op-timeout", "3", "snapshto"], "did you mean snapshot?")):
        res, took = run("-c", str(sandbox.conf), *argv, timeout=15)
        assert res.returncode == 2 and res.stdout == "", res.stdout
        assert expect in res.stderr and len(res.stderr.strip().splitlines()) == 1, res.stderr
        assert took < 5


def test_mon_host_without_a_config_file(sandbox: Sandbox, tmp_path: Path) -> None:
    """`-m ADDR -k KEYRING` and no config file at all, as `rados -m` runs (`ceph` itself refuses: it
    always reads a config file). The keyring: -k here; librados' default paths otherwise."""
    mon = sandbox.ceph("mon", "dump")["mons"][0]["public_addrs"]["addrvec"][0]["addr"]
    keyring = str(sandbox.dir / "ceph.client.admin.keyring")
    env = {"HOME": str(tmp_path)}  # no ~/.ceph/ceph.conf; CEPH_CONF and CEPH_ARGS are unset by run()
    for flag in (["-m", mon], [f"--mon_host={mon}"], ["--mon-host", f"v2:{mon}"]):
        res, _ = run(*flag, "-k", keyring, "snapshot", "--json", env=env)
        assert res.returncode == 0, res.stderr
        assert json.loads(res.stdout)["fsid"] == sandbox.ceph("fsid")["fsid"]
    res, _ = run("-m", mon, "-k", keyring, "config", "--json", env=env)
    conf = json.loads(res.stdout)["settings"]["connection.conf"]
    assert conf["value"] is None and conf["source"].startswith("none: -m/--mon-host given")
    # A config file named and missing is still an error, -m or not.
    res, _ = run("-c", str(tmp_path / "nope.conf"), "-m", mon, "-k", keyring, "snapshot", env=env)
    assert res.returncode == 1 and "no ceph config at" in res.stderr


@pytest.mark.parametrize("argv", [["config"], ["snapshot", "--json"], ["remove", "--status"], ["--help"],
                                  ["bench", "--help"], ["snapshot"]])
def test_closed_stdout_is_no_traceback(sandbox: Sandbox, argv: list[str]) -> None:
    """`cephtui config | head -1`: the reader is gone before cephtui writes (here: already closed)."""
    read, write = os.pipe()
    os.close(read)
    env = {k: v for k, v in os.environ.items() if k not in ("CEPH_CONF", "CEPH_ARGS", "CEPHTUI_CONFIG")}
    try:
        res = subprocess.run([*CEPHTUI, "-c", str(sandbox.conf), *argv], stdout=write, stderr=subprocess.PIPE,
                             text=True, env=env, timeout=30)
    finally:
        os.close(write)
    assert res.returncode == 0
    assert res.stderr == "", res.stderr


def test_a_keyring_this_librados_cannot_read(sandbox: Sandbox) -> None:
    """A keyring made by Tentacle's `ceph-authtool --create-keyring K --gen-key -n client.admin` (Ceph 20.2.4,
    the forky chroot; tests/fixtures/keyrings): its aes256k key (type 2) is 60 characters. librados before
    Tentacle fails to load it ("auth: failed to load ...: (5) Input/output error") and said only
    "cannot connect as client.admin: Input/output error"."""
    from cephtui.ceph.releases import local_release

    keyring = FIXTURES / "keyrings" / "tentacle-client.admin.keyring"
    res, took = run("-c", str(sandbox.conf), "-k", str(keyring), "snapshot", timeout=30)
    assert res.returncode == 1 and took < 10
    assert len(res.stderr.strip().splitlines()) == 1, res.stderr
    local = local_release()
    assert local is not None
    if local.major >= 20:  # this librados reads the key; the cluster refuses it (not its key)
        assert "holds an aes256k key" not in res.stderr
        return
    assert res.stderr.startswith(f"cephtui: cannot connect as client.admin: the keyring {keyring} holds an "
                                 "aes256k key for client.admin (key type 2, made by Ceph 20 Tentacle or newer), "
                                 f"and this librados is {local.version} {local.name}, which reads only aes keys: "
                                 "run cephtui with the cluster's release of python3-rados"), res.stderr
