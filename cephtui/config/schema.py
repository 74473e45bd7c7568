"""The config file's keys and each value's check: the same rules as the flag or form it stands for."""
from __future__ import annotations

import json
import math
import os
import re
from dataclasses import fields
from typing import Any

from cephtui.ceph.bench.params import MODES, BenchError, BenchParams, parse_size
from cephtui.ceph.workflows.removal import PLACEHOLDERS
from cephtui.config.model import MIN_REFRESH, BenchDefaults

STOP_CMD_PLACEHOLDERS = PLACEHOLDERS  # the removal workflow's own list: {id}, {host}, {name}
TOP_KEYS = ("refresh", "theme", "read_only", "osd_stop_cmd", "prometheus", "profile", "bench", "profiles")
CONNECTION_KEYS = ("conf", "id", "name", "keyring", "cluster", "mon_host", "options")
PROFILE_KEYS = (*CONNECTION_KEYS, "refresh", "theme", "read_only", "osd_stop_cmd", "prometheus", "bench")
BENCH_KEYS = tuple(f.name for f in fields(BenchDefaults))
DESCRIBE = {
    "refresh": f"a number of seconds, at least {MIN_REFRESH:g}",
    "theme": "a theme name",
    "read_only": "true or false",
    "osd_stop_cmd": "a command template with {id} (and optionally {host})",
    "prometheus": "the cluster's Prometheus, an http:// or https:// URL (\"\": look it up in the cluster)",
    "profile": "the name of a [profiles.NAME] table",
    "bench": "a table: [bench]",
    "pool": "a pool name",
    "mode": f"one of {', '.join(MODES)}",
    "seconds": "a number of seconds from 1 to 86400",
    "threads": "an integer from 1 to 1024",
    "block_size": "a size: bytes, or \"4K\", \"4M\"",
    "object_size": "a size: bytes, or \"4K\", \"4M\" (0: the op size)",
    "op_timeout": "a number of seconds from 1 to 3600",
    "cleanup": "true or false",
    "conf": "a file path",
    "keyring": "a file path",
    "id": "a client id, e.g. \"admin\"",
    "name": "an entity name TYPE.ID, e.g. \"client.admin\"",
    "cluster": "a cluster name",
    "mon_host": "monitor addresses, e.g. \"10.0.0.1,10.0.0.2\"",
    "options": "a table of librados options, e.g. { rados_osd_op_timeout = 30 }",
}


def show(value: Any) -> str:
    """A value the way the file spells it, for messages."""
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return json.dumps(value, ensure_ascii=False) if not isinstance(value, float) or math.isfinite(value) \
            else str(value)
    if isinstance(value, list):
        return "an array"
    return str(value)  # dates and times


def check_stop_cmd(template: str) -> str | None:
    """Why an OSD stop command template is refused, or None: placeholders are {id} and {host}, {id} required
    (as the removal wizard's form requires)."""
    unknown = [m for m in re.findall(r"\{([^{}\s]*)\}", template) if m not in STOP_CMD_PLACEHOLDERS]
    if unknown:
        return (f"unknown placeholder `{{{unknown[0]}}}` (the placeholders are "
                f"{', '.join('{' + p + '}' for p in STOP_CMD_PLACEHOLDERS)})")
    if template.strip() and "{id}" not in template and "{name}" not in template:
        return "the command must contain {id} or {name} (e.g. ssh {host} systemctl stop ceph-osd@{id})"
    return None


class Invalid(Exception):
    """One value refused; the caller adds the file, line and key."""


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise Invalid()
    return float(value)


def _text(value: Any, empty_ok: bool = False) -> str:
    if not isinstance(value, str) or (not empty_ok and not value.strip()) \
            or any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise Invalid()
    return value


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise Invalid()
    return value


def _size(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise Invalid()
    try:
        return parse_size(value)
    except BenchError:
        raise Invalid() from None


def _engine(**kw: Any) -> None:
    """The Bench form's own check (BenchParams), on one value with the others at their defaults."""
    try:
        BenchParams(pool="-", **kw)
    except BenchError as e:
        raise Invalid(str(e)) from None


def check_bench(key: str, value: Any) -> Any:
    if key == "pool":
        return _text(value, empty_ok=True).strip()
    if key == "mode":
        if value not in MODES:
            raise Invalid()
        return value
    if key == "threads":
        if isinstance(value, bool) or not isinstance(value, int):
            raise Invalid()
        _engine(threads=value)
        return value
    if key in ("seconds", "op_timeout"):
        n = _number(value)
        _engine(**{key: n})
        return n
    if key == "block_size":
        n = _size(value)
        _engine(op_size=n)
        return n
    if key == "object_size":
        if value == 0 and not isinstance(value, bool):
            return 0
        n = _size(value)
        _engine(object_size=n, op_size=1)  # the size alone; its fit with the op size is checked after merging
        return n
    return _bool(value)  # cleanup


def check_prometheus_url(url: str) -> str:
    """Why a Prometheus URL will not do ("" when it will): its API is plain HTTP(S) on host:port."""
    from urllib.parse import urlsplit

    url = url.strip()
    if not url:
        return ""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"{url!r} is not an http:// or https:// URL (e.g. http://10.0.0.1:9095)"
    try:
        parts.port  # noqa: B018 (raises on a bad port)
    except ValueError:
        return f"{url!r} has a bad port"
    return ""


def check_common(key: str, value: Any) -> Any:
    if key == "refresh":
        n = _number(value)
        if n < MIN_REFRESH:
            raise Invalid()
        return n
    if key == "theme":
        return _text(value).strip()
    if key == "read_only":
        return _bool(value)
    text = _text(value, empty_ok=True)
    why = check_prometheus_url(text) if key == "prometheus" else check_stop_cmd(text)  # or osd_stop_cmd
    if why:
        raise Invalid(why)
    return text.strip() if key == "prometheus" else text


def librados_refusal(name: str, value: str) -> str | None:
    """Why the local librados would not take this option (checked against its own option table, without
    connecting: librados itself silently skips an unknown name), or None; None too without rados."""
    from cephtui.ceph.librados_options import LibradosOptions

    lib = LibradosOptions()
    try:
        if not lib.available:
            return None
        if lib.kind(name) is None:
            return f"`{name}` is not a Ceph option the local librados knows"
        why = lib.refusal(name, value)
        return f"librados refuses {value!r} ({why})" if why else None
    finally:
        lib.close()


def check_connection(key: str, value: Any) -> Any:
    if key == "options":
        if not isinstance(value, dict):
            raise Invalid()
        return value  # each option is checked by the caller, with its own line
    text = _text(value).strip()
    if key in ("conf", "keyring"):
        return os.path.expanduser(text)
    if key == "name" and ("." not in text or text.startswith(".") or text.endswith(".")):
        raise Invalid()
    if key in ("id", "name", "cluster") and any(c.isspace() for c in text):
        raise Invalid()
    return text

