"""The one-file build: scripts/build-pyz.sh makes dist/cephtui.pyz, the distribution's python3 runs it.

The build is skipped when its inputs are unchanged (the script hashes them), so only the first run after
a change pays for it (about a minute and a half: pex resolves the wheels of every target from PyPI).
When the build fails and PyPI does not answer either, the test skips saying so; any other build failure
fails it.

The release chroots (scripts/chroot.sh: bullseye 3.9, trixie 3.13, forky 3.14), where built already,
run the same snapshot with their own /usr/bin/python3, which has python3-rados and no pip; a chroot not
built yet is skipped (building one takes minutes: `scripts/chroot.sh build SUITE`).

Every run is from a cwd outside the repo with a PEX_ROOT of the test's own (a fresh one per session: the
first run unpacks, as on a node) and without PYTHONPATH: what runs is the pyz's own copy of cephtui and
of its dependencies, and the distribution's `rados`.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import zipfile
from pathlib import Path

import pytest

from tests.conftest import Sandbox

ROOT = Path(__file__).resolve().parents[2]
PYZ = ROOT / "dist" / "cephtui.pyz"
PYTHON = "/usr/bin/python3"  # the distribution's, which has python3-rados
BUDGET_BYTES = 15 * 1000 * 1000
PYTHONS = ("39", "310", "311", "312", "313", "314")


def _pypi_reachable() -> bool:
    res = subprocess.run([str(ROOT / ".venv" / "bin" / "pip"), "index", "versions", "pex",
                          "--disable-pip-version-check"], capture_output=True, text=True, timeout=60)
    return res.returncode == 0


@pytest.fixture(scope="module")
def pyz() -> Path:
    res = subprocess.run(["bash", str(ROOT / "scripts" / "build-pyz.sh")], capture_output=True, text=True,
                         timeout=900)
    if res.returncode != 0:
        if not _pypi_reachable():
            pytest.skip("PyPI is unreachable: scripts/build-pyz.sh cannot fetch pex and the wheels")
        pytest.fail(f"scripts/build-pyz.sh failed:\n{res.stderr[-4000:]}")
    assert res.stdout.strip().splitlines()[-1] == str(PYZ)
    return PYZ


@pytest.fixture(scope="module")
def run_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "CEPH_ARGS", "CEPH_CONF", "PYTHONDONTWRITEBYTECODE", "VIRTUAL_ENV")
           and not k.startswith("PEX")}
    env["PEX_ROOT"] = str(tmp_path_factory.mktemp("pex_root"))
    env["XDG_CONFIG_HOME"] = str(tmp_path_factory.mktemp("config"))
    return env


def _run(pyz: Path, args: list[str], env: dict[str, str], cwd: Path, extra: dict[str, str] | None = None,
         timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PYTHON, str(pyz), *args], capture_output=True, text=True, cwd=cwd,
                          env={**env, **(extra or {})}, timeout=timeout)


def test_pyz_contents(pyz: Path) -> None:
    assert pyz.stat().st_size <= BUDGET_BYTES, f"{pyz.stat().st_size / 1e6:.1f} MB is over the 15 MB budget"
    with zipfile.ZipFile(pyz) as z:
        info = json.loads(z.read("PEX-INFO"))
    assert info["entry_point"] == "cephtui.launcher:main"
    # venv mode, the distribution's site-packages after the pyz's own (where rados comes from)
    assert info["venv"] is True and info["venv_system_site_packages"] is True
    dists = list(info["distributions"])
    for arch in ("x86_64", "aarch64"):
        for v in PYTHONS:
            assert any(d.startswith("msgspec-") and f"-cp{v}-cp{v}-" in d and arch in d for d in dists), (v, arch)
        assert any(d.startswith("psutil-") and "abi3" in d and arch in d for d in dists), arch
    for name in ("cephtui", "textual", "rich", "tomli"):  # tomli: Python 3.9 and 3.10 only, by marker
        assert any(d.startswith(f"{name}-") for d in dists), name
    assert not any(d.startswith("rados") for d in dists)


def test_pyz_snapshot_matches_ceph(pyz: Path, sandbox: Sandbox, run_env: dict[str, str], tmp_path: Path) -> None:
    res = _run(pyz, ["-c", str(sandbox.conf), "snapshot", "--json"], run_env, tmp_path)
    assert res.returncode == 0, res.stderr
    snap = json.loads(res.stdout)
    status = sandbox.ceph("-s")
    assert snap["fsid"] == status["fsid"]
    assert snap["health"]["status"] == status["health"]["status"]
    osdmap = status["osdmap"].get("osdmap", status["osdmap"])  # nested before Quincy
    assert snap["osds"]["total"] == osdmap["num_osds"]
    assert snap["osds"]["up"] == osdmap["num_up_osds"]
    assert snap["osds"]["in"] == osdmap["num_in_osds"]


WHERE = "import json, rados, textual, msgspec, cephtui; print(json.dumps({m.__name__: m.__file__ for m in " \
        "(rados, textual, msgspec, cephtui)}))"


def test_pyz_imports_the_distributions_rados_and_its_own_rest(pyz: Path, run_env: dict[str, str],
                                                               tmp_path: Path) -> None:
    res = _run(pyz, ["-c", WHERE], run_env, tmp_path, {"PEX_INTERPRETER": "1"})
    assert res.returncode == 0, res.stderr
    where = {k: Path(v).resolve() for k, v in json.loads(res.stdout.strip().splitlines()[-1]).items()}
    system = subprocess.run([PYTHON, "-c", "import rados; print(rados.__file__)"], capture_output=True, text=True,
                            cwd=tmp_path, env=run_env, timeout=30)
    assert system.returncode == 0, system.stderr
    assert where["rados"] == Path(system.stdout.strip()).resolve()
    pex_root = Path(run_env["PEX_ROOT"]).resolve()
    for name in ("textual", "msgspec", "cephtui"):
        assert where[name].is_relative_to(pex_root), (name, where[name])


def test_pyz_with_an_unwritable_home_falls_back_to_a_temporary_cache(pyz: Path, run_env: dict[str, str],
                                                                     tmp_path: Path) -> None:
    # HOME below a regular file: nothing can be made there, even as root
    blocker = tmp_path / "file"
    blocker.write_text("")
    env = {k: v for k, v in run_env.items() if k not in ("PEX_ROOT", "XDG_CACHE_HOME")}
    env["HOME"] = str(blocker / "home")
    res = _run(pyz, ["--version"], env, tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip().startswith("cephtui ")
    m = re.search(r"un-writeable, falling back to a temporary PEX_ROOT of (\S+) ", res.stderr)
    assert m, res.stderr
    assert not Path(m.group(1)).exists(), "the temporary PEX_ROOT is left behind"


CHROOT_SH = ROOT / "scripts" / "chroot.sh"
SUITES = {"bullseye": "3.9", "trixie": "3.13", "forky": "3.14"}


def _chroot_ready(suite: str) -> bool:
    if os.geteuid() != 0:
        return False
    res = subprocess.run(["bash", str(CHROOT_SH), "path", suite], capture_output=True, text=True, timeout=30)
    return res.returncode == 0 and (Path(res.stdout.strip()) / ".cephtui-ready").is_file()


def _in_chroot(suite: str, *cmd: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(CHROOT_SH), "run", suite, "--", *cmd], capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_pyz_in_a_release_chroot_with_its_own_python(suite: str, pyz: Path, sandbox: Sandbox,
                                                     tmp_path: Path) -> None:
    if not _chroot_ready(suite):
        pytest.skip(f"the {suite} chroot is not built (as root: scripts/chroot.sh build {suite})")
    version = _in_chroot(suite, "/usr/bin/python3", "-c",
                         "import sys, importlib.util as u; print('%d.%d' % sys.version_info[:2], "
                         "u.find_spec('pip') is not None)")
    assert version.returncode == 0, version.stderr
    assert version.stdout.split() == [SUITES[suite], "False"], "expected the suite's Python, without pip"
    # its own PEX_ROOT under the shared /tmp: the chroot's Python makes its own venv there
    res = _in_chroot(suite, "env", f"PEX_ROOT={tmp_path / 'pex_root'}", "/usr/bin/python3", str(pyz),
                     "-c", str(sandbox.conf), "snapshot", "--json")
    assert res.returncode == 0, res.stderr
    snap = json.loads(res.stdout)
    assert snap["fsid"] == sandbox.ceph("fsid")["fsid"]
    assert snap["osds"]["total"] == 3
    where = _in_chroot(suite, "env", f"PEX_ROOT={tmp_path / 'pex_root'}", "PEX_INTERPRETER=1", "/usr/bin/python3",
                       str(pyz), "-c", "import rados, textual; print(rados.__file__); print(textual.__file__)")
    assert where.returncode == 0, where.stderr
    rados_file, textual_file = where.stdout.strip().splitlines()[-2:]
    assert rados_file.startswith("/usr/lib/python3/dist-packages/rados.cpython-"), rados_file
    assert textual_file.startswith(str(tmp_path / "pex_root")), textual_file
