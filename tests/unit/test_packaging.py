"""pyproject.toml ships what the app needs: every package, every data file, the launcher as the command.

The package list is explicit (the themes live at the top of the repo and are shipped as cephtui.themes),
so a new subpackage must be added there; this says so before a wheel without it is built.
tests/cluster/test_packaging.py builds and installs the wheel for real.
"""
from __future__ import annotations

import fnmatch
import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # the same parser, before it joined the standard library
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "cephtui"


def setuptools_config() -> dict[str, Any]:
    with open(ROOT / "pyproject.toml", "rb") as f:
        data = tomllib.load(f)
    return data


def source_dir(package: str, package_dir: dict[str, str]) -> Path:
    if package in package_dir:
        return ROOT / package_dir[package]
    return ROOT.joinpath(*package.split("."))


def test_every_package_is_listed() -> None:
    cfg = setuptools_config()["tool"]["setuptools"]
    on_disk = {".".join(p.parent.relative_to(ROOT).parts) for p in PACKAGE.rglob("__init__.py")}
    listed = set(cfg["packages"])
    assert on_disk - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"
    assert listed - on_disk == {"cephtui.themes"}
    assert cfg["package-dir"] == {"cephtui.themes": "themes"}
    assert not (PACKAGE / "themes").exists(), "the themes live at the top of the repo (themes/)"


def test_every_data_file_is_package_data() -> None:
    cfg = setuptools_config()["tool"]["setuptools"]
    package_dir: dict[str, str] = cfg["package-dir"]
    data: dict[str, list[str]] = cfg["package-data"]
    shipped: set[Path] = set()
    for package in cfg["packages"]:
        directory = source_dir(package, package_dir)
        for pattern in data.get(package, []):
            shipped |= set(directory.glob(pattern))
    needed = {p for p in PACKAGE.rglob("*") if p.is_file() and p.suffix not in (".py", ".pyc")
              and "__pycache__" not in p.parts}
    needed |= {p for p in (ROOT / "themes").iterdir() if p.is_file()}
    assert PACKAGE / "ui" / "app.tcss" in needed
    assert len([p for p in needed if p.parent.name == "themes"]) >= 1
    assert needed - shipped == set(), "add these to [tool.setuptools.package-data] in pyproject.toml"
    assert all(fnmatch.fnmatch(p.name, "*.json") or fnmatch.fnmatch(p.name, "*.toml")
               for p in (ROOT / "themes").iterdir()), "themes/ holds theme files only"


def test_the_command_is_the_launcher() -> None:
    project = setuptools_config()["project"]
    assert project["scripts"] == {"cephtui": "cephtui.launcher:main"}
    assert (PACKAGE / "__main__.py").read_text().startswith("from cephtui.launcher import main")
