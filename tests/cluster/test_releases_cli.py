"""This host's cephtui (its librados) against a Tentacle cluster running in the forky chroot (scripts/chroot.sh):
the errors across releases, as an operator on an older client meets them. Skipped where the chroot is not
built (or inside a chroot, or when this librados is Tentacle's own)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from cephtui.ceph.releases import local_release
from tests.conftest import ROOT

CHROOTS = Path(os.environ.get("CEPHTUI_CHROOTS") or
               Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "cephtui" / "chroots")
CHROOT_SH = ROOT / "scripts" / "chroot.sh"
CEPHTUI = [sys.executable, "-m", "cephtui"]


def in_forky(*argv: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(CHROOT_SH), "run", "forky", "--", *argv], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


@pytest.fixture(scope="module")
def tentacle() -> Iterator[Path]:
    local = local_release()
    if local is None or local.major >= 20:
        pytest.skip(f"this librados ({local}) is not older than Tentacle")
    if not (CHROOTS / "forky" / "usr" / "bin" / "ceph-mon").exists() or os.geteuid() != 0:
        pytest.skip(f"no forky chroot at {CHROOTS} (scripts/chroot.sh build forky), or not root")
    d = Path(tempfile.mkdtemp(prefix="ctt-tent-", dir="/tmp"))
    # three OSDs, as the pools' default size: with one, the mon raises TOO_FEW_OSDS once the OSD has booted,
    # and whether `start` saw HEALTH_OK before that was a race
    res = in_forky("/usr/bin/python3", "scripts/sandbox.py", "start", str(d))
    try:
        assert res.returncode == 0, res.stderr[-2000:]
        yield d
    finally:
        in_forky("/usr/bin/python3", "scripts/sandbox.py", "stop", str(d), "--purge")
        shutil.rmtree(d, ignore_errors=True)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CEPH_CONF", "CEPH_ARGS", "CEPHTUI_CONFIG")}
    env["XDG_CONFIG_HOME"] = "/nonexistent/cephtui-tests"
    return subprocess.run([*CEPHTUI, *args], capture_output=True, text=True, env=env, timeout=60)


def test_older_librados_and_a_tentacle_cluster(tentacle: Path, tmp_path: Path) -> None:
    local = local_release()
    assert local is not None
    conf = str(tentacle / "ceph.conf")
    admin = tentacle / "ceph.client.admin.keyring"
    # Tentacle's own admin key: 60 characters, aes256k. This librados cannot load it at all.
    res = run("-c", conf, "snapshot")
    assert res.returncode == 1 and len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert res.stderr.startswith(f"cephtui: cannot connect as client.admin: the keyring {admin} holds an aes256k "
                                 "key for client.admin (key type 2, made by Ceph 20 Tentacle or newer), and this "
                                 f"librados is {local.version} {local.name}, which reads only aes keys"), res.stderr

    # The way the message offers for an older client: the cluster allows aes, and an aes key for cephtui.
    ceph = ["ceph", "-c", conf]
    assert in_forky(*ceph, "mon", "set", "auth_allowed_ciphers", "aes256k,aes").returncode == 0
    assert in_forky(*ceph, "config", "set", "mon", "mon_auth_allow_insecure_key", "true").returncode == 0
    keyring = tmp_path / "aes.keyring"
    made = in_forky(*ceph, "auth", "get-or-create", "client.cephtui-aes", "mon", "allow r", "mgr", "allow r",
                    "--key_type", "aes", "-o", str(keyring))
    assert made.returncode == 0, made.stderr
    res = run("-c", conf, "--id", "cephtui-aes", "-k", str(keyring), "snapshot", "--json")
    assert res.returncode == 0, res.stderr
    mon = in_forky(*ceph, "version").stdout.split()[2]
    assert res.stderr.strip() == (
        f"cephtui: note: this librados is {local.version} {local.name}, older than the cluster (mon: {mon} "
        "tentacle): newer keys, commands and fields may be refused or missing; run cephtui with the cluster's "
        "release of python3-rados (on a mon node, or `cephadm shell`)")
