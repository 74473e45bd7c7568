"""cephtui.paths: one XDG rule for every directory cephtui writes to, and cephtui's own overrides."""
from __future__ import annotations

from pathlib import Path

import pytest

from cephtui import paths
from cephtui.ceph.bench.history import default_history_path
from cephtui.ceph.workflows.maintenance import default_state_path


@pytest.mark.parametrize(("kind", "default"), [("CONFIG", ".config"), ("STATE", ".local/state"),
                                               ("DATA", ".local/share")])
def test_xdg_home_absolute_else_the_spec_default(kind: str, default: str, tmp_path: Path) -> None:
    home = {"HOME": "/home/u"}
    assert paths.xdg_home(kind, home) == Path("/home/u") / default
    assert paths.xdg_home(kind, {**home, f"XDG_{kind}_HOME": str(tmp_path)}) == tmp_path
    # the spec: a relative path is invalid and ignored (it would depend on the current directory)
    assert paths.xdg_home(kind, {**home, f"XDG_{kind}_HOME": "rel/dir"}) == Path("/home/u") / default
    assert paths.xdg_home(kind, {**home, f"XDG_{kind}_HOME": ""}) == Path("/home/u") / default


def test_each_directory_and_its_override(tmp_path: Path) -> None:
    env = {"HOME": "/home/u"}
    assert paths.config_dir(env) == Path("/home/u/.config/cephtui")
    assert paths.state_dir(env) == Path("/home/u/.local/state/cephtui")
    assert paths.data_dir(env) == Path("/home/u/.local/share/cephtui")
    assert paths.audit_log_path(env) == Path("/home/u/.local/state/cephtui/audit.log")
    assert paths.state_dir({**env, "CEPHTUI_STATE_DIR": str(tmp_path)}) == tmp_path
    assert paths.data_dir({**env, "CEPHTUI_DATA_DIR": str(tmp_path)}) == tmp_path
    assert paths.audit_log_path({**env, "CEPHTUI_AUDIT_LOG": str(tmp_path / "a.log")}) == tmp_path / "a.log"
    # the audit log follows XDG_STATE_HOME, not CEPHTUI_STATE_DIR (as it always has)
    assert paths.audit_log_path({**env, "CEPHTUI_STATE_DIR": str(tmp_path)}).parent == Path(
        "/home/u/.local/state/cephtui")


def test_the_cluster_side_reads_the_same_rule(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("CEPHTUI_STATE_DIR", "CEPHTUI_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_STATE_HOME", "relative")
    monkeypatch.setenv("XDG_DATA_HOME", "relative")
    assert default_state_path() == tmp_path / ".local/state/cephtui/maintenance.json"
    assert default_history_path() == tmp_path / ".local/share/cephtui/bench-history.jsonl"


def test_login_never_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    assert paths.login()
    def gone() -> str:
        raise KeyError("getpwuid(): uid not found")
    monkeypatch.setattr(paths.getpass, "getuser", gone)
    assert paths.login() == "?"
