"""The wheel works on its own: built from the repo, installed elsewhere, run against the sandbox.

The wheel is built offline from a copy of the source tree (setuptools and wheel come with .venv), so the
repo gets no build/ directory and no stale build/lib can hide a file the wheel lacks. It is installed with
`pip install --target`, and every run puts that directory first on PYTHONPATH from a cwd outside the repo:
what runs is the installed copy, not the repo's editable one (each test checks).
"""
from __future__ import annotations

import configparser
import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import cephtui
from tests.conftest import Sandbox

ROOT = Path(__file__).resolve().parents[2]
THEMES = sorted(p.name for p in (ROOT / "themes").iterdir() if p.suffix in (".json", ".toml"))
# Not copied into the build: what git ignores, plus the repo's own build leftovers.
SKIP_TOP = {".git", ".venv", "build", "dist", ".mypy_cache", ".pytest_cache", ".scale-cache", ".hypothesis"}


def _ignore(directory: str, names: list[str]) -> set[str]:
    top = Path(directory).resolve() == ROOT
    # .venv-SUITE: a chroot's venv (scripts/chroot.sh), hundreds of MB
    return {n for n in names if n == "__pycache__" or n.endswith(".egg-info")
            or (top and (n in SKIP_TOP or n.startswith(".venv-")))}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = tmp_path_factory.mktemp("src") / "cephtui"
    shutil.copytree(ROOT, src, ignore=_ignore, symlinks=True)
    out = tmp_path_factory.mktemp("wheel")
    res = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                          "--disable-pip-version-check", "-q", "-w", str(out), str(src)],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    wheels = list(out.glob("cephtui-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


@pytest.fixture(scope="module")
def target(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    t = tmp_path_factory.mktemp("installed")
    res = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q",
                          "--disable-pip-version-check", "--target", str(t), str(wheel)],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    return t


@pytest.fixture
def outside(target: Path, tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    """A cwd outside the repo and an environment that imports cephtui from the installed copy."""
    env = {k: v for k, v in os.environ.items() if k not in ("CEPH_ARGS", "CEPH_CONF", "PYTHONPATH")}
    env["PYTHONPATH"] = str(target)
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")  # no user config or user themes of the developer's
    yield tmp_path, env


def test_wheel_contents(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        dist_info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/RECORD"))
        entry_points = z.read(f"{dist_info}/entry_points.txt").decode()
    assert sorted(n.removeprefix("cephtui/themes/") for n in names if n.startswith("cephtui/themes/")) == THEMES
    assert "cephtui.json" in THEMES
    assert "cephtui/ui/app.tcss" in names
    assert "cephtui/launcher.py" in names
    source = {p.relative_to(ROOT).as_posix() for p in (ROOT / "cephtui").rglob("*.py")
              if "__pycache__" not in p.parts}
    assert source - names == set(), "modules missing from the wheel"
    assert not any(n.startswith(("themes/", "tests/", "scripts/")) for n in names)
    ep = configparser.ConfigParser()
    ep.read_string(entry_points)
    assert dict(ep["console_scripts"]) == {"cephtui": "cephtui.launcher:main"}


def test_installed_command_snapshot(sandbox: Sandbox, target: Path,
                                    outside: tuple[Path, dict[str, str]]) -> None:
    cwd, env = outside
    where = subprocess.run([sys.executable, "-c", "import cephtui.launcher as m; print(m.__file__)"],
                           capture_output=True, text=True, cwd=cwd, env=env, timeout=30)
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).resolve().is_relative_to(target.resolve())

    script = target / "bin" / "cephtui"  # the console script pip generated from the entry point
    assert script.is_file()
    version = subprocess.run([str(script), "--version"], capture_output=True, text=True, cwd=cwd, env=env,
                             timeout=30)
    assert version.returncode == 0 and version.stdout.strip() == f"cephtui {cephtui.__version__}", version.stderr
    res = subprocess.run([str(script), "-c", str(sandbox.conf), "snapshot", "--json"], capture_output=True,
                         text=True, cwd=cwd, env=env, timeout=60)
    assert res.returncode == 0, res.stderr
    snap = json.loads(res.stdout)
    assert snap["fsid"] == sandbox.ceph("fsid")["fsid"]
    assert snap["osds"]["total"] == 3


APP_START = """
import asyncio, json, sys, time
from pathlib import Path
import cephtui
from cephtui.ceph.client import CephClient
from cephtui.ceph.connection import ConnectionSpec
from cephtui.ui.app import CephTUI
from cephtui.ui.themes import builtin_themes_dir

client = CephClient(ConnectionSpec(conffile=sys.argv[1])).connect()

async def start() -> dict:
    app = CephTUI(client=client, refresh=1.0)
    async with app.run_test(size=(120, 40)) as pilot:
        deadline = time.monotonic() + 60
        while app.snapshot is None:  # started: the theme is applied and the first poll drawn
            assert time.monotonic() < deadline, "no first snapshot within 60 s"
            await pilot.pause(0.05)
        return {"theme": app.theme, "available": sorted(app.available_themes),
                "background": app.current_theme.background}

out = asyncio.run(start())
client.close()
d = builtin_themes_dir()
out.update(cephtui=cephtui.__file__, themes_dir=str(d),
           builtin={p.name: json.loads(p.read_text())["name"] for p in sorted(d.glob("*.json"))})
print(json.dumps(out))
"""


def test_installed_app_starts_with_its_themes(sandbox: Sandbox, target: Path,
                                              outside: tuple[Path, dict[str, str]]) -> None:
    cwd, env = outside
    res = subprocess.run([sys.executable, "-c", APP_START, str(sandbox.conf)], capture_output=True, text=True,
                         cwd=cwd, env=env, timeout=60)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout.strip().splitlines()[-1])
    installed = target.resolve()
    assert Path(out["cephtui"]).resolve().is_relative_to(installed)
    assert Path(out["themes_dir"]).resolve() == installed / "cephtui" / "themes"
    assert sorted(out["builtin"]) == [t for t in THEMES if t.endswith(".json")]
    assert len(out["builtin"]) >= 3  # cephtui, cephtui-light, cephtui-high-contrast
    assert set(out["builtin"].values()) <= set(out["available"])
    assert out["theme"] == "cephtui"
    own = json.loads((ROOT / "themes" / "cephtui.json").read_text())
    assert str(out["background"]).lower() == own["background"].lower()
