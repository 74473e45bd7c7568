"""The launcher: a clear message, naming the distribution's package, when `import rados` fails.

Most cases are the message built from given facts; two run for real: `import rados` made to fail in a
subprocess, and a venv made without system site packages, where the distribution's module is out of reach.
"""
from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import cephtui
from cephtui import launcher
from cephtui.launcher import DistroModule, find_distro_modules, missing_rados_message, venv_without_system_site

ROOT = Path(__file__).resolve().parents[2]
NO_RADOS = "import sys; sys.modules['rados'] = None; from cephtui.launcher import main; raise SystemExit(main())"
SYSTEM_PYTHON = Path("/usr/bin/python3")


def run_without_rados(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CEPH_ARGS", "CEPH_CONF")}
    return subprocess.run([sys.executable, "-c", NO_RADOS, *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=60)


def assert_names_the_packages(text: str) -> None:
    assert "apt install python3-rados" in text
    assert "dnf install python3-rados" in text
    assert "zypper install python3-rados" in text
    assert "not from PyPI" in text


# ------------------------------------------------------------------ for real, in a subprocess
def test_missing_rados_exits_1_with_the_message() -> None:
    res = run_without_rados("snapshot")
    assert res.returncode == 1
    assert res.stdout == ""
    assert "Traceback" not in res.stderr
    assert res.stderr.startswith("cephtui: Ceph's Python module `rados` does not import")
    assert_names_the_packages(res.stderr)
    # .venv sees the system site packages: no venv hint there
    assert "without system site packages" not in res.stderr


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_work_without_rados(flag: str) -> None:
    res = run_without_rados(flag)
    assert res.returncode == 0, res.stderr
    assert "rados" not in res.stderr
    if flag == "--version":
        assert res.stdout.strip() == f"cephtui {cephtui.__version__}"
    else:
        assert res.stdout.startswith("usage: cephtui")


@pytest.mark.skipif(not SYSTEM_PYTHON.exists(), reason="no /usr/bin/python3 to make a venv with")
def test_venv_without_system_site_packages(tmp_path: Path) -> None:
    """What pipx or `python3 -m venv` without --system-site-packages gives: rados out of reach, and the fix."""
    venv = tmp_path / "isolated"
    subprocess.run([str(SYSTEM_PYTHON), "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
    assert "include-system-site-packages = false" in (venv / "pyvenv.cfg").read_text()
    # cephtui from the repo, its dependencies from our own venv (built for the same Python), rados from nowhere
    deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    env = {k: v for k, v in os.environ.items() if k not in ("CEPH_ARGS", "CEPH_CONF", "PYTHONPATH")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *sorted(deps)])
    python = str(venv / "bin" / "python")
    probe = subprocess.run([python, "-c", "import rados"], capture_output=True, text=True, env=env, timeout=60)
    assert probe.returncode != 0, "rados imports in a venv without system site packages?"

    res = subprocess.run([python, "-m", "cephtui", "-c", "/nonexistent.conf", "snapshot"], capture_output=True,
                         text=True, env=env, cwd=tmp_path, timeout=60)
    assert res.returncode == 1
    assert "Traceback" not in res.stderr
    assert_names_the_packages(res.stderr)
    assert f"virtual environment ({venv})" in res.stderr
    assert "without system site packages" in res.stderr
    assert "python3 -m venv --system-site-packages" in res.stderr
    assert "pipx install --system-site-packages" in res.stderr
    same = [m for m in find_distro_modules() if m.version == f"{sys.version_info[0]}.{sys.version_info[1]}"]
    if same:  # Debian's python3-rados installed (scripts/setup.sh does): the message says where it is
        assert str(same[0].path) in res.stderr

    version = subprocess.run([python, "-m", "cephtui", "--version"], capture_output=True, text=True, env=env,
                             timeout=60)
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip() == f"cephtui {cephtui.__version__}"


# ------------------------------------------------------------------ the facts the message is built from
def test_find_distro_modules_reads_the_abi_tag(tmp_path: Path) -> None:
    debian = tmp_path / "dist-packages"
    rhel = tmp_path / "lib64" / "python3.9" / "site-packages"
    for d in (debian, rhel):
        d.mkdir(parents=True)
    (debian / "rados.cpython-311-x86_64-linux-gnu.so").touch()
    (debian / "rbd.cpython-311-x86_64-linux-gnu.so").touch()  # not rados
    (rhel / "rados.cpython-39-x86_64-linux-gnu.so").touch()
    (rhel / "rados.so").touch()  # no tag: version unknown
    found = find_distro_modules([str(debian), str(tmp_path / "lib64" / "python3*" / "site-packages")])
    assert {(m.path.name, m.version) for m in found} == {
        ("rados.cpython-311-x86_64-linux-gnu.so", "3.11"), ("rados.cpython-39-x86_64-linux-gnu.so", "3.9"),
        ("rados.so", None)}
    assert find_distro_modules([str(tmp_path / "nothing")]) == []


@pytest.mark.parametrize("cfg, expected", [
    ("home = /usr/bin\ninclude-system-site-packages = false\n", True),
    ("home = /usr/bin\ninclude-system-site-packages = true\n", False),
    ("home = /usr/bin\nInclude-System-Site-Packages=TRUE\n", False),
    ("home = /usr/bin\n", True),  # venv's default
])
def test_venv_without_system_site(tmp_path: Path, cfg: str, expected: bool) -> None:
    (tmp_path / "pyvenv.cfg").write_text(cfg)
    assert venv_without_system_site(str(tmp_path), "/usr") is expected
    assert venv_without_system_site(str(tmp_path), str(tmp_path)) is False  # not a venv at all
    assert venv_without_system_site(str(tmp_path / "gone"), "/usr") is False  # no pyvenv.cfg: not a venv


DEBIAN_311 = DistroModule(Path("/usr/lib/python3/dist-packages/rados.cpython-311-x86_64-linux-gnu.so"), "3.11")
FEDORA_39 = DistroModule(Path("/usr/lib64/python3.9/site-packages/rados.cpython-39-x86_64-linux-gnu.so"), "3.9")


def message(**kw: object) -> str:
    base: dict[str, object] = dict(error=ImportError("No module named 'rados'"), in_isolated_venv=False,
                                   modules=[], executable="/opt/py/bin/python3", version="3.11", path=[],
                                   prefix="/home/a/.venvs/cephtui", pyz="")
    base.update(kw)
    return missing_rados_message(**base)  # type: ignore[arg-type]


def test_message_without_any_module() -> None:
    text = message()
    assert_names_the_packages(text)
    assert "/opt/py/bin/python3 (Python 3.11)" in text
    assert "No module named 'rados'" in text
    assert "virtual environment" not in text and "built for Python" not in text
    assert len(text.splitlines()) == 2


def test_message_in_a_venv_without_system_site_packages() -> None:
    text = message(in_isolated_venv=True, modules=[DEBIAN_311])
    assert_names_the_packages(text)
    assert "virtual environment (/home/a/.venvs/cephtui) made without system site packages" in text
    assert str(DEBIAN_311.path) in text
    assert "`/usr/bin/python3 -m venv --system-site-packages DIR`" in text
    assert "`pipx install --system-site-packages PATH-OR-URL`" in text


def test_message_for_a_module_built_for_another_python() -> None:
    text = message(modules=[FEDORA_39], version="3.11")
    assert "built for Python 3.9, while cephtui runs on Python 3.11" in text
    assert str(FEDORA_39.path) in text
    assert "--python /usr/bin/python3" in text
    # the same module for the running version: no version complaint
    assert "built for Python" not in message(modules=[FEDORA_39, DEBIAN_311], path=[str(DEBIAN_311.directory)])


def test_message_for_a_python_that_does_not_look_in_the_distros_directory() -> None:
    text = message(modules=[DEBIAN_311], path=["/opt/py/lib/python3.11/site-packages"])
    assert f"does not look in {DEBIAN_311.directory}" in text
    assert "install cephtui with the distribution's own /usr/bin/python3" in text
    # in reach: then the import error itself is the news
    reach = message(modules=[DEBIAN_311], path=[str(DEBIAN_311.directory)],
                    error=ImportError("librados.so.2: cannot open shared object file"))
    assert "does not look in" not in reach
    assert "librados.so.2: cannot open shared object file" in reach and "in reach" in reach


def test_message_for_the_pyz_says_which_python_to_run_it_with() -> None:
    # dist/cephtui.pyz sets $CEPHTUI_PYZ to itself; it runs on the Python that ran it, with its site-packages
    pyz = "/root/cephtui.pyz"
    text = message(modules=[DEBIAN_311], version="3.12", executable="/usr/local/bin/python3.12", pyz=pyz)
    assert_names_the_packages(text)
    assert f"{pyz} run by /usr/local/bin/python3.12 (Python 3.12)" in text
    assert f"run it with the distribution's own Python: `/usr/bin/python3 {pyz}`" in text
    assert "pipx" not in text and "venv" not in text
    unseen = message(modules=[DEBIAN_311], path=["/opt/py/lib/python3.11/site-packages"], pyz=pyz)
    assert f"does not look in {DEBIAN_311.directory}: run it with" in unseen


def test_the_pyz_variable_is_the_one_the_build_sets(monkeypatch: pytest.MonkeyPatch) -> None:
    # the launcher and scripts/build-pyz.sh's __main__ must agree on the name, or a pyz run by a Python
    # without rados is told to install cephtui instead of which Python to run the file with
    build = (Path(__file__).resolve().parents[2] / "scripts" / "build-pyz.sh").read_text()
    assert f'os.environ["{launcher.PYZ_ENV}"] = ' in build
    monkeypatch.setenv(launcher.PYZ_ENV, "/root/cephtui.pyz")
    text = message(modules=[DEBIAN_311], version="3.12", executable="/usr/local/bin/python3.12", pyz=None)
    assert "run it with the distribution's own Python: `/usr/bin/python3 /root/cephtui.pyz`" in text


def test_a_command_name_given_as_an_option_value_is_the_tui() -> None:
    from cephtui.launcher import headless
    assert headless(["rbd", "ls"]) and headless(["-c", "/etc/ceph/ceph.conf", "rbd", "ls", "--json"])
    assert headless(["--version"]) and headless(["bench", "--help"]) and headless(["doctor", "--json"])
    assert not headless(["--id", "rbd"]) and not headless(["-n", "client.bench"]) and not headless([])
    assert not headless(["--cluster", "bench", "--read-only"])
