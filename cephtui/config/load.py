"""load_config and parse_config: the file's layers checked, merged and each value's source recorded."""
from __future__ import annotations

import difflib
import json
import math
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Optional

from cephtui.ceph.bench.engine import BenchError, BenchParams
from cephtui.config.locate import line_of, locate_keys
from cephtui.config.model import ConfigError, Settings
from cephtui.config.schema import (
    BENCH_KEYS,
    CONNECTION_KEYS,
    DESCRIBE,
    PROFILE_KEYS,
    TOP_KEYS,
    Invalid,
    check_bench,
    check_common,
    check_connection,
    librados_refusal,
    show,
)
from cephtui.paths import DEFAULT_SOURCE, config_path

if sys.version_info >= (3, 11):
    import tomllib
else:  # the same parser, before it joined the standard library
    import tomli as tomllib

# The known theme names, asked only when a file sets a theme; None: it cannot say (the theme is not checked).
# A callable from the caller (the CLI passes the UI's), so the config never imports cephtui.ui.
ThemeNames = Callable[[], Optional[Sequence[str]]]


def load_config(path: str | os.PathLike[str] | None = None, profile: str | None = None, *,
                env: Mapping[str, str] | None = None, themes: ThemeNames | None = None) -> Settings:
    """The effective settings from the config file (without command-line flags; see Settings.with_value).

    path: `--config` (None: $CEPHTUI_CONFIG, else the XDG default; a missing default file means defaults,
    a missing named file is an error). profile: `--profile` (None: the file's `profile`, if any).
    themes: the known theme names (None: a theme is not checked against any).
    Raises ConfigError."""
    file, why = config_path(str(path) if path is not None else None, env)
    if why == DEFAULT_SOURCE and not file.exists():
        if profile:
            raise ConfigError(file, None, "profile",
                              f"no profile `{profile}`: there is no config file (looked for {file})")
        return Settings()
    try:
        raw = file.read_bytes()
    except FileNotFoundError:
        raise ConfigError(file, None, None, f"no such file (named by {why})") from None
    except IsADirectoryError:
        raise ConfigError(file, None, None, "is a directory, not a config file") from None
    except OSError as e:
        raise ConfigError(file, None, None, f"cannot read it: {e.strerror or e}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        raise ConfigError(file, line, None, "not UTF-8 text (TOML files are UTF-8)") from None
    return parse_config(text, str(file), profile, path_source=why, themes=themes)


def parse_config(text: str, path: str = "config.toml", profile: str | None = None, *,
                 path_source: str = "--config", themes: ThemeNames | None = None) -> Settings:
    """load_config on text already read (the file name only appears in messages)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise _syntax_error(path, text, e) from None
    return _Loader(text, path, themes).load(data, profile, path_source)


def _syntax_error(path: str, text: str, e: tomllib.TOMLDecodeError) -> ConfigError:
    msg = str(e)
    m = re.search(r"\s*\(at line (\d+), column (\d+)\)$", msg)
    if m:
        return ConfigError(path, int(m.group(1)), None,
                           f"not valid TOML: {msg[:m.start()]} (column {m.group(2)})")
    m = re.search(r"\s*\(at end of document\)$", msg)
    if m:
        last = len(text.rstrip("\n").split("\n")) if text.strip() else 1
        return ConfigError(path, last, None, f"not valid TOML: {msg[:m.start()]} (at the end of the file)")
    return ConfigError(path, None, None, f"not valid TOML: {msg}")


class _Loader:
    def __init__(self, text: str, path: str, themes: ThemeNames | None) -> None:
        self.path = path
        self.found = locate_keys(text)
        self._themes_fn = themes
        self._themes: Sequence[str] | None = None
        self._themes_known = False

    def line(self, key: Sequence[str]) -> int | None:
        return line_of(self.found, key)

    def error(self, key: Sequence[str], message: str) -> ConfigError:
        return ConfigError(self.path, self.line(key), ".".join(key), message)

    def theme_names(self) -> Sequence[str] | None:
        if not self._themes_known:
            names = self._themes_fn() if self._themes_fn is not None else None
            self._themes = list(names) if names is not None else None
            self._themes_known = True
        return self._themes

    def unknown_key(self, key: tuple[str, ...], allowed: Sequence[str]) -> ConfigError:
        name, where = key[-1], key[:-1]
        table = f"in [{_dotted(where)}]" if where else "at the top level"
        msg = f"unknown key `{name}` {table}"
        close = difflib.get_close_matches(name, allowed, n=1, cutoff=0.6)
        elsewhere = {k: _belongs(k, where) for k in (*TOP_KEYS, *PROFILE_KEYS, *BENCH_KEYS) if k not in allowed}
        near = difflib.get_close_matches(name, list(elsewhere), n=1, cutoff=0.6)
        if close:
            msg += f"; did you mean `{close[0]}`?"
        elif name in elsewhere:
            msg += f"; it belongs {elsewhere[name]}"
        elif near:
            msg += f"; did you mean `{near[0]}`? That key belongs {elsewhere[near[0]]}"
        else:
            msg += f" (known: {', '.join(allowed)})"
        return self.error(key, msg)

    def invalid(self, key: tuple[str, ...], value: Any, why: str = "") -> ConfigError:
        desc = DESCRIBE.get(key[-1], "something else")
        if why:
            return self.error(key, f"{_dotted(key)}: {why}, got {show(value)}")
        return self.error(key, f"{_dotted(key)} must be {desc}, got {show(value)}")

    def layer(self, table: dict[str, Any], where: tuple[str, ...], allowed: Sequence[str]) -> dict[str, Any]:
        """Checked values of one table (the top level or a profile): 'refresh', 'bench.threads', 'connection.id'."""
        out: dict[str, Any] = {}
        for k, v in table.items():
            key = (*where, k)
            if k not in allowed:
                raise self.unknown_key(key, allowed)
            if k in ("profile", "profiles"):
                continue  # handled by load()
            try:
                if k == "bench":
                    if not isinstance(v, dict):
                        raise Invalid()
                    for bk, bv in v.items():
                        bkey = (*key, bk)
                        if bk not in BENCH_KEYS:
                            raise self.unknown_key(bkey, BENCH_KEYS)
                        try:
                            out[f"bench.{bk}"] = check_bench(bk, bv)
                        except Invalid as e:
                            raise self.invalid(bkey, bv, str(e)) from None
                elif k in CONNECTION_KEYS:
                    out[f"connection.{k}"] = self.connection_value(key, k, v)
                else:
                    value = check_common(k, v)
                    if k == "theme":
                        self.check_theme(key, value)
                    out[k] = value
            except Invalid as e:
                raise self.invalid(key, v, str(e)) from None
        if "connection.id" in out and "connection.name" in out:
            later = max(("id", "name"), key=lambda n: self.line((*where, n)) or 0)
            raise self.error((*where, later), f"[{_dotted(where)}]: set id or name, not both "
                                              "(name is TYPE.ID, id the part after `client.`)")
        return out

    def connection_value(self, key: tuple[str, ...], k: str, v: Any) -> Any:
        value = check_connection(k, v)
        if k != "options":
            return value
        opts: list[tuple[str, str]] = []
        for ok, ov in value.items():
            okey = (*key, ok)
            if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]*", ok):
                raise self.error(okey, f"{_dotted(key)}: `{ok}` is not a librados option name "
                                       "(letters, digits, _ and -, without leading dashes)")
            if isinstance(ov, bool):
                opts.append((ok, "true" if ov else "false"))
            elif isinstance(ov, (int, float)) and math.isfinite(ov):
                opts.append((ok, str(ov)))
            elif isinstance(ov, str) and not any(ord(c) < 32 for c in ov):
                opts.append((ok, ov))
            else:
                raise self.error(okey, f"{_dotted(okey)} must be a string, number or boolean, got {show(ov)}")
            why = librados_refusal(ok, opts[-1][1])
            if why:
                raise self.error(okey, f"{_dotted(okey)}: {why}")
        return tuple(opts)

    def check_theme(self, key: tuple[str, ...], name: str) -> None:
        names = self.theme_names()
        if names is not None and name not in names:
            close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
            hint = f"; did you mean `{close[0]}`?" if close else ""
            raise self.error(key, f"{_dotted(key)}: no theme `{name}`{hint} (available: {', '.join(names)})")

    def load(self, data: dict[str, Any], requested: str | None, path_source: str) -> Settings:
        top = self.layer(data, (), TOP_KEYS)
        profiles = data.get("profiles", {})
        if not isinstance(profiles, dict):
            raise self.invalid(("profiles",), profiles, "must be tables: [profiles.NAME]")
        layers: dict[str, dict[str, Any]] = {}
        for name, table in profiles.items():
            if not isinstance(table, dict):
                raise self.invalid(("profiles", name), table, f"a profile must be a table [profiles.{_key(name)}]")
            layers[name] = self.layer(table, ("profiles", name), PROFILE_KEYS)
        chosen, chosen_from = requested, "flag --profile"
        if "profile" in data:
            value = data["profile"]
            if not isinstance(value, str) or not value:
                raise self.invalid(("profile",), value)
            if value not in layers:
                raise self.error(("profile",), f"profile = {show(value)}: there is no [profiles.{_key(value)}]"
                                               f"{_listing(layers)}")
            if chosen is None:
                chosen, chosen_from = value, f"file line {self.line(('profile',))}"
        if requested is not None and requested not in layers:
            close = difflib.get_close_matches(requested, list(layers), n=1, cutoff=0.6)
            hint = f". Did you mean `{close[0]}`?" if close else ""
            raise ConfigError(self.path, None, "profile",
                              f"no profile `{requested}` (from --profile){_listing(layers)}{hint}")
        settings = Settings(path=self.path, path_source=path_source, profile=chosen, profiles=tuple(layers),
                            sources={"profile": chosen_from} if chosen is not None else {})
        for key, value in top.items():
            settings = settings.with_value(key, value, f"file line {self.line(key.split('.'))}")
        if chosen is not None:
            # A profile's connection replaces the whole identity: id and name are one setting.
            for key, value in layers[chosen].items():
                parts = ("profiles", chosen, *key.removeprefix("connection.").split("."))
                settings = settings.with_value(key, value, f"profile {chosen}, line {self.line(parts)}")
        self.check_bench_fit(settings)
        return settings

    def check_bench_fit(self, s: Settings) -> None:
        """The values of [bench] together (object size a multiple of the op size), as the form checks them."""
        b = s.bench
        try:
            BenchParams(pool=b.pool or "-", mode=b.mode, seconds=b.seconds, threads=b.threads,
                        op_size=b.block_size, object_size=b.object_size, op_timeout=b.op_timeout)
        except BenchError as e:
            culprit = "object_size" if s.source("bench.object_size") != DEFAULT_SOURCE else "block_size"
            src = s.source(f"bench.{culprit}")
            where: tuple[str, ...] = ("profiles", s.profile, "bench", culprit) if src.startswith("profile") \
                and s.profile is not None else ("bench", culprit)
            raise self.error(where, f"{_dotted(where)}: {e} (block_size {b.block_size}, "
                                    f"object_size {b.object_size})") from None


def _belongs(key: str, where: tuple[str, ...]) -> str:
    """Where a key that is misplaced at `where` goes."""
    if key in BENCH_KEYS:
        profile = where[:2] if where[:1] == ("profiles",) and len(where) >= 2 else ()
        return f"in [{_dotted((*profile, 'bench'))}]"
    if key in CONNECTION_KEYS:
        return "in a [profiles.NAME] table"
    if key in ("profile", "profiles"):
        return "at the top level"
    return "at the top level (before the first [table]) or in a [profiles.NAME] table"


def _key(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else json.dumps(name)


def _dotted(path: Sequence[str]) -> str:
    return ".".join(_key(p) for p in path)


def _listing(layers: Mapping[str, Any]) -> str:
    return f"; the profiles are: {', '.join(layers)}" if layers else "; the config file defines no profiles"

