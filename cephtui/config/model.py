"""The settings model: Settings (the effective values and where each came from), BenchDefaults, Connection."""
from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from cephtui.ceph.bench.engine import MiB
from cephtui.paths import DEFAULT_SOURCE

MIN_REFRESH = 0.2


class ConfigError(Exception):
    """A config file problem; `str()` is one line: `PATH line N: MESSAGE`."""

    def __init__(self, path: str | os.PathLike[str] | None, line: int | None, key: str | None, message: str) -> None:
        super().__init__(message)
        self.path = str(path) if path is not None else None
        self.line = line
        self.key = key
        self.message = message

    def __str__(self) -> str:
        where = self.path or "config"
        if self.line is not None:
            where += f" line {self.line}"
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class BenchDefaults:
    """Defaults of the Bench tab's new-run form and of `cephtui bench` (rados bench's own defaults)."""

    pool: str = ""  # "" = none chosen (the form offers `rbd` when it exists)
    mode: str = "write"
    seconds: float = 10.0
    threads: int = 16
    block_size: int = 4 * MiB  # op size, bytes
    object_size: int = 0  # 0 = the op size
    op_timeout: float = 30.0
    cleanup: bool = True


@dataclass(frozen=True)
class Connection:
    """A profile's connection settings; None = what the ceph CLI would use."""

    conf: str | None = None
    id: str | None = None
    name: str | None = None
    keyring: str | None = None
    cluster: str | None = None
    mon_host: str | None = None
    options: tuple[tuple[str, str], ...] = ()  # extra librados options, as `--option value` on the CLI

    @property
    def entity(self) -> str:
        """The cephx entity: name, else client.ID, else client.admin (as the ceph CLI)."""
        if self.name:
            return self.name
        return f"client.{self.id or 'admin'}"

    def librados_args(self) -> tuple[str, ...]:
        """mon_host and options as the librados arguments ConnectionSpec.extra_args hands to librados."""
        out: list[str] = []
        if self.mon_host:
            out += ["--mon-host", self.mon_host]
        for key, value in self.options:
            # `--key=value`: the one form every librados (14 to 20) reads alike for booleans too; Nautilus
            # takes `--ms_crc_data false` as true and leaves `false` behind.
            out.append(f"--{key}={value}")
        return tuple(out)


@dataclass(frozen=True)
class Settings:
    """The effective settings, and where each came from (`sources`: key -> 'default', 'file line 3',
    'profile prod, line 12', 'flag --refresh')."""

    path: str | None = None  # the file read; None when the default file does not exist
    path_source: str = DEFAULT_SOURCE  # 'default', '$CEPHTUI_CONFIG' or '--config'
    profile: str | None = None
    profiles: tuple[str, ...] = ()
    refresh: float = 2.0
    theme: str | None = None  # None: the app's default theme
    read_only: bool = False
    osd_stop_cmd: str = ""
    prometheus: str = ""  # the cluster's Prometheus for history; "": look it up in the cluster's settings
    bench: BenchDefaults = field(default_factory=BenchDefaults)
    connection: Connection = field(default_factory=Connection)
    sources: Mapping[str, str] = field(default_factory=dict, compare=False)

    def source(self, key: str) -> str:
        return self.sources.get(key, DEFAULT_SOURCE)

    def with_value(self, key: str, value: Any, source: str) -> Settings:
        """One setting replaced (`refresh`, `bench.threads`, `connection.conf`), its source recorded."""
        sources = {**self.sources, key: source}
        head, _, rest = key.partition(".")
        if head == "bench":
            return replace(self, bench=replace(self.bench, **{rest: value}), sources=sources)
        if head == "connection":
            return replace(self, connection=replace(self.connection, **{rest: value}), sources=sources)
        return replace(self, **{key: value}, sources=sources)

    def items(self) -> list[tuple[str, Any, str]]:
        """(key, value, source) of every setting, in the order `cephtui config` shows them."""
        out: list[tuple[str, Any, str]] = [("profile", self.profile, self.source("profile"))]
        for key in ("refresh", "theme", "read_only", "osd_stop_cmd", "prometheus"):
            out.append((key, getattr(self, key), self.source(key)))
        for f in fields(BenchDefaults):
            out.append((f"bench.{f.name}", getattr(self.bench, f.name), self.source(f"bench.{f.name}")))
        for f in fields(Connection):
            value = getattr(self.connection, f.name)
            out.append((f"connection.{f.name}", dict(value) if f.name == "options" else value,
                        self.source(f"connection.{f.name}")))
        return out

    def rows(self) -> list[tuple[str, str, str]]:
        """(key, value as TOML would spell it, source) for `cephtui config`."""
        out: list[tuple[str, str, str]] = []
        for key, value, source in self.items():
            if key in ("bench.block_size", "bench.object_size"):
                shown = size_text(value)
            elif isinstance(value, dict):
                shown = "{" + ", ".join(f" {k} = {_toml_value(v)}" for k, v in value.items()) + (" }" if value else "}")
            else:
                shown = _toml_value(value)
            out.append((key, shown, source))
        return out


def size_text(n: int) -> str:
    """A byte count as the config would spell it: "4M", "4K", or bytes."""
    for unit, mult in (("G", 1024 * MiB), ("M", MiB), ("K", 1024)):
        if n and n % mult == 0:
            return f'"{n // mult}{unit}"'
    return str(n)


def _toml_value(value: Any) -> str:
    if value is None:
        return "(not set)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value == int(value):
        return str(int(value))
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return str(value)

