"""The captured fixtures of each Ceph release: tests/fixtures/<release>/ holding a RELEASE.json.

Each release directory is made by the same capture scripts (scripts/capture_*.py, see
scripts/capturelib.py) run against a sandbox of that release. Tests that replay captures take
`release_params("healthy")` and so run once per release that has that capture.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cephtui.ceph.answers import loads
from cephtui.ceph.recording import command_key

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _major(d: Path) -> int:
    return int(json.loads((d / "RELEASE.json").read_text())["ceph_version"].split()[2].split(".")[0])


def release_dirs() -> list[Path]:
    """Every release's fixture directory, oldest release first."""
    return sorted((d for d in FIXTURES.iterdir() if (d / "RELEASE.json").is_file()), key=_major)


RELEASES = [d.name for d in release_dirs()]


# The cluster releases cephtui supports: Pacific on. Nautilus is captured too (its librados is the
# Python 3.9 client's), but a Nautilus cluster lacks commands the snapshot relies on (`mgr stat`,
# `config get` for a daemon type): its captures serve the parser and no-traceback tests only.
SUPPORTED_SINCE = 16


def release_params(capture: str, supported_only: bool = False) -> list[Any]:
    """pytest params (the capture's path, id = release) for each release that holds `capture`.json;
    supported_only: only the cluster releases cephtui supports (SUPPORTED_SINCE)."""
    return [pytest.param(d / f"{capture}.json", id=d.name) for d in release_dirs()
            if (d / f"{capture}.json").is_file() and (not supported_only or _major(d) >= SUPPORTED_SINCE)]


def release_of(path: Path) -> str:
    return path.parent.name


def major_of(path: Path) -> int:
    return _major(path.parent)


def commands(path: Path) -> dict[str, dict[str, Any]]:
    return json.loads(path.read_text())["commands"]


def raw_out(path: Path, target: str, prefix: str, **args: Any) -> bytes:
    return commands(path)[command_key(target, prefix, {"format": "json", **args})]["out"].encode()


def answer(path: Path, target: str, prefix: str, **args: Any) -> Any:
    """The parsed answer to one recorded command of a capture."""
    return loads(raw_out(path, target, prefix, **args))


def num_pgs(path: Path) -> int:
    """PGs the cluster had when captured: the pools' own pg_num (`.mgr` exists only where the mgr's
    devicehealth module ran, so the count differs by release)."""
    return sum(p["pg_num"] for p in answer(path, "mon", "osd dump")["pools"])
