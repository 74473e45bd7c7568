"""Where cephtui keeps its files on the operator's machine, and who the operator is.

One rule for the XDG base directories (the XDG Base Directory spec): `$XDG_<KIND>_HOME` when it is an
absolute path, else `~/.config`, `~/.local/state` or `~/.local/share`; a relative or empty value is
ignored, as the spec says. Each directory also has cephtui's own override ($CEPHTUI_CONFIG,
$CEPHTUI_STATE_DIR, $CEPHTUI_DATA_DIR, $CEPHTUI_AUDIT_LOG), checked by the callers below.
Standard library only: both the cluster side and the UI read it.
"""
from __future__ import annotations

import getpass
import os
from collections.abc import Mapping
from pathlib import Path

APP = "cephtui"
CONFIG_FILE = "config.toml"
DEFAULT_SOURCE = "default"  # the config file's path_source when no flag or variable named it
_XDG_DEFAULTS = {"CONFIG": (".config",), "STATE": (".local", "state"), "DATA": (".local", "share")}


def xdg_home(kind: str, env: Mapping[str, str] | None = None) -> Path:
    """The XDG base directory `kind` ("CONFIG", "STATE" or "DATA"), not cephtui's subdirectory."""
    env = os.environ if env is None else env
    base = env.get(f"XDG_{kind}_HOME", "")
    if base and os.path.isabs(base):
        return Path(base)
    return Path(env.get("HOME") or Path.home()).joinpath(*_XDG_DEFAULTS[kind])


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    """$XDG_CONFIG_HOME/cephtui: the config file and the user's themes/."""
    return xdg_home("CONFIG", env) / APP


def default_path(env: Mapping[str, str] | None = None) -> Path:
    """The config file when neither --config nor $CEPHTUI_CONFIG names one."""
    return config_dir(env) / CONFIG_FILE


def config_path(explicit: str | None = None, env: Mapping[str, str] | None = None) -> tuple[Path, str]:
    """The config file to read and why: `--config`, then `$CEPHTUI_CONFIG`, then the default path."""
    env = os.environ if env is None else env
    if explicit:
        return Path(explicit).expanduser(), "--config"
    if env.get("CEPHTUI_CONFIG"):
        return Path(env["CEPHTUI_CONFIG"]).expanduser(), "$CEPHTUI_CONFIG"
    return default_path(env), DEFAULT_SOURCE


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """$CEPHTUI_STATE_DIR, else $XDG_STATE_HOME/cephtui: maintenance records, workflow journals, the audit log."""
    env = os.environ if env is None else env
    if env.get("CEPHTUI_STATE_DIR"):
        return Path(env["CEPHTUI_STATE_DIR"])
    return xdg_home("STATE", env) / APP


def audit_log_path(env: Mapping[str, str] | None = None) -> Path:
    """$CEPHTUI_AUDIT_LOG, else $XDG_STATE_HOME/cephtui/audit.log."""
    env = os.environ if env is None else env
    if env.get("CEPHTUI_AUDIT_LOG"):
        return Path(env["CEPHTUI_AUDIT_LOG"])
    return xdg_home("STATE", env) / APP / "audit.log"


def data_dir(env: Mapping[str, str] | None = None) -> Path:
    """$CEPHTUI_DATA_DIR, else $XDG_DATA_HOME/cephtui: the bench history."""
    env = os.environ if env is None else env
    if env.get("CEPHTUI_DATA_DIR"):
        return Path(env["CEPHTUI_DATA_DIR"])
    return xdg_home("DATA", env) / APP


def login() -> str:
    """The operator's login name as the audit log and workflow records show it; "?" when it cannot be told
    (no $USER/$LOGNAME and a uid without a passwd entry, as in some containers)."""
    try:
        return getpass.getuser()
    except Exception:
        return "?"
