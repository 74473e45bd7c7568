"""The config file: `$XDG_CONFIG_HOME/cephtui/config.toml` (TOML), defaults for every cluster and per-cluster profiles.

    refresh = 2                 # seconds between refreshes, at least 0.2
    theme = "cephtui"
    read_only = false
    osd_stop_cmd = "ssh {host} systemctl stop ceph-osd@{id}"
    profile = "lab"             # the profile used without --profile

    [bench]                     # the Bench tab's new-run form and `cephtui bench`
    pool = "rbd"
    threads = 16
    block_size = "4M"

    [profiles.lab]              # connection settings, and any key above overriding it
    conf = "/etc/ceph/lab.conf"
    id = "admin"
    options = { rados_osd_op_timeout = 30 }

Precedence, lowest to highest: built-in defaults < top level < the profile < command-line flags
(CEPH_ARGS included). Every value is checked with the same rules as the flag or form it stands for
(bench values by the engine's own BenchParams), and a problem is reported as a ConfigError naming the
file, the line and the key. tomllib gives no positions for keys, so `locate_keys` finds them in the
text. Never imports textual: themes are checked through a callable, looked up lazily.
"""
from __future__ import annotations

import difflib
import json
import math
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from cephtui.ceph.bench.params import MODES, BenchError, BenchParams, MiB, parse_size
from cephtui.ceph.workflows.removal import PLACEHOLDERS

if sys.version_info >= (3, 11):
    import tomllib
else:  # the same parser, before it joined the standard library
    import tomli as tomllib

MIN_REFRESH = 0.2
DEFAULT_SOURCE = "default"
STOP_CMD_PLACEHOLDERS = PLACEHOLDERS  # the removal workflow's own list: {id}, {host}, {name}


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


# ------------------------------------------------------------------------------------------------ the model
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
        for key in ("refresh", "theme", "read_only", "osd_stop_cmd"):
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


# ------------------------------------------------------------------------------------------------ where it is
def default_path(env: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/cephtui/config.toml`, else `~/.config/cephtui/config.toml` (a relative XDG_CONFIG_HOME
    is ignored, as the XDG spec says)."""
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path(env.get("HOME") or Path.home()) / ".config"
    return root / "cephtui" / "config.toml"


def config_path(explicit: str | None = None, env: Mapping[str, str] | None = None) -> tuple[Path, str]:
    """The file to read and why: `--config`, then `$CEPHTUI_CONFIG`, then the default path."""
    env = os.environ if env is None else env
    if explicit:
        return Path(explicit).expanduser(), "--config"
    if env.get("CEPHTUI_CONFIG"):
        return Path(env["CEPHTUI_CONFIG"]).expanduser(), "$CEPHTUI_CONFIG"
    return default_path(env), DEFAULT_SOURCE


# ------------------------------------------------------------------------------------------------ the locator
def locate_keys(text: str) -> dict[tuple[str, ...], int]:
    """1-based line of every key and table in TOML text: `[table]` / `[[array]]` headers, dotted keys and
    keys inside inline tables. For text tomllib accepted; anything it cannot follow is simply left out."""
    scanner = _Locator(text)
    try:
        scanner.scan()
    except (IndexError, ValueError, tomllib.TOMLDecodeError):
        pass
    return scanner.found


def line_of(found: Mapping[tuple[str, ...], int], path: Sequence[str]) -> int | None:
    """The key's line, else the nearest enclosing table's (its header), else None."""
    p = tuple(path)
    while p:
        if p in found:
            return found[p]
        p = p[:-1]
    return None


class _Locator:
    _BARE_END = ",]}\n#"

    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.found: dict[tuple[str, ...], int] = {}
        self._newlines = [m.start() for m in re.finditer("\n", text)]

    def line(self, pos: int) -> int:
        import bisect

        return bisect.bisect_left(self._newlines, pos) + 1

    def record(self, path: tuple[str, ...], pos: int) -> None:
        for n in range(1, len(path) + 1):  # `a.b.c = 1` defines table a and a.b there too
            self.found.setdefault(path[:n], self.line(pos))

    def scan(self) -> None:
        t = self.text
        table: tuple[str, ...] = ()
        while self.i < len(t):
            self.skip_blank(newlines=True)
            if self.i >= len(t):
                break
            start = self.i
            if t.startswith("[[", self.i):
                end = t.index("]]", self.i)
                table = self.key_path(t[self.i + 2:end])
                self.record(table, start)
                self.i = end + 2
            elif t[self.i] == "[":
                end = self.header_end(self.i + 1)
                table = self.key_path(t[self.i + 1:end])
                self.record(table, start)
                self.i = end + 1
            else:
                eq = self.key_end(self.i)
                key = table + self.key_path(t[self.i:eq])
                self.record(key, start)
                self.i = eq + 1
                self.skip_blank(newlines=False)
                self.value(key)
            self.skip_to_eol()

    @staticmethod
    def key_path(raw: str) -> tuple[str, ...]:
        """A (dotted, quoted) key as its parts: tomllib decodes it, so quoting and escapes are exact."""
        node: Any = tomllib.loads(f"{raw.strip()} = 0")
        parts: list[str] = []
        while isinstance(node, dict) and len(node) == 1:
            k, node = next(iter(node.items()))
            parts.append(k)
        return tuple(parts)

    def header_end(self, i: int) -> int:
        """Index of the `]` closing a table header, past quoted parts."""
        t = self.text
        while t[i] != "]":
            i = self.string_end(i) if t[i] in "\"'" else i + 1
        return i

    def key_end(self, i: int) -> int:
        """Index of the `=` after a key, past quoted parts."""
        t = self.text
        while t[i] != "=":
            if t[i] == "\n":
                raise ValueError("no = on the line")
            i = self.string_end(i) if t[i] in "\"'" else i + 1
        return i

    def string_end(self, i: int) -> int:
        """Index just past the string starting at i (basic, literal, or multi-line)."""
        t = self.text
        q = t[i]
        if t.startswith(q * 3, i):
            j = i + 3
            while True:
                if q == '"' and t[j] == "\\":
                    j += 2
                    continue
                if t.startswith(q * 3, j):
                    j += 3
                    while j < len(t) and t[j] == q:  # up to two quotes may end the content
                        j += 1
                    return j
                j += 1
        j = i + 1
        while t[j] != q:
            j += 2 if (q == '"' and t[j] == "\\") else 1
        return j + 1

    def skip_blank(self, newlines: bool) -> None:
        t = self.text
        while self.i < len(t):
            c = t[self.i]
            if c in " \t\r" or (newlines and c == "\n"):
                self.i += 1
            elif c == "#":
                self.skip_to_eol(comment_only=True)
            else:
                break

    def skip_to_eol(self, comment_only: bool = False) -> None:
        end = self.text.find("\n", self.i)
        self.i = len(self.text) if end < 0 else end + (0 if comment_only else 1)

    def value(self, path: tuple[str, ...] | None) -> None:
        """Step over one value; keys of inline tables are recorded under `path`."""
        t = self.text
        c = t[self.i]
        if c in "\"'":
            self.i = self.string_end(self.i)
        elif c == "[":
            self.i += 1
            while True:
                self.skip_blank(newlines=True)
                if t[self.i] == "]":
                    self.i += 1
                    return
                self.value(None)
                self.skip_blank(newlines=True)
                if t[self.i] == ",":
                    self.i += 1
        elif c == "{":
            self.i += 1
            while True:
                self.skip_blank(newlines=False)
                if t[self.i] == "}":
                    self.i += 1
                    return
                start = self.i
                eq = self.key_end(self.i)
                key = self.key_path(t[self.i:eq])
                if path is not None:
                    self.record(path + key, start)
                self.i = eq + 1
                self.skip_blank(newlines=False)
                self.value(path + key if path is not None else None)
                self.skip_blank(newlines=False)
                if t[self.i] == ",":
                    self.i += 1
        else:
            while self.i < len(t) and t[self.i] not in self._BARE_END:
                self.i += 1


# ------------------------------------------------------------------------------------------------ the schema
TOP_KEYS = ("refresh", "theme", "read_only", "osd_stop_cmd", "profile", "bench", "profiles")
CONNECTION_KEYS = ("conf", "id", "name", "keyring", "cluster", "mon_host", "options")
PROFILE_KEYS = (*CONNECTION_KEYS, "refresh", "theme", "read_only", "osd_stop_cmd", "bench")
BENCH_KEYS = tuple(f.name for f in fields(BenchDefaults))
_DESCRIBE = {
    "refresh": f"a number of seconds, at least {MIN_REFRESH:g}",
    "theme": "a theme name",
    "read_only": "true or false",
    "osd_stop_cmd": "a command template with {id} (and optionally {host})",
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


class _Invalid(Exception):
    """One value refused; the caller adds the file, line and key."""


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _Invalid()
    return float(value)


def _text(value: Any, empty_ok: bool = False) -> str:
    if not isinstance(value, str) or (not empty_ok and not value.strip()) \
            or any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise _Invalid()
    return value


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise _Invalid()
    return value


def _size(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise _Invalid()
    try:
        return parse_size(value)
    except BenchError:
        raise _Invalid() from None


def _engine(**kw: Any) -> None:
    """The Bench form's own check (BenchParams), on one value with the others at their defaults."""
    try:
        BenchParams(pool="-", **kw)
    except BenchError as e:
        raise _Invalid(str(e)) from None


def _check_bench(key: str, value: Any) -> Any:
    if key == "pool":
        return _text(value, empty_ok=True).strip()
    if key == "mode":
        if value not in MODES:
            raise _Invalid()
        return value
    if key == "threads":
        if isinstance(value, bool) or not isinstance(value, int):
            raise _Invalid()
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


def _check_common(key: str, value: Any) -> Any:
    if key == "refresh":
        n = _number(value)
        if n < MIN_REFRESH:
            raise _Invalid()
        return n
    if key == "theme":
        return _text(value).strip()
    if key == "read_only":
        return _bool(value)
    # osd_stop_cmd
    text = _text(value, empty_ok=True)
    why = check_stop_cmd(text)
    if why:
        raise _Invalid(why)
    return text


def _librados_refusal(name: str, value: str) -> str | None:
    """Why the local librados would not take this option (checked against its own option table, without
    connecting: librados itself silently skips an unknown name), or None; None too without rados."""
    from cephtui.cliargs import LibradosOptions

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


def _check_connection(key: str, value: Any) -> Any:
    if key == "options":
        if not isinstance(value, dict):
            raise _Invalid()
        return value  # each option is checked by the caller, with its own line
    text = _text(value).strip()
    if key in ("conf", "keyring"):
        return os.path.expanduser(text)
    if key == "name" and ("." not in text or text.startswith(".") or text.endswith(".")):
        raise _Invalid()
    if key in ("id", "name", "cluster") and any(c.isspace() for c in text):
        raise _Invalid()
    return text


# ------------------------------------------------------------------------------------------------ loading
ThemeNames = Callable[[], Sequence[str]]


def available_themes() -> list[str] | None:
    """Theme names from cephtui.ui.themes (looked up only when a theme is set); None if it cannot say."""
    try:
        from cephtui.ui.themes import theme_names
    except ImportError:
        return None
    try:
        return list(theme_names())
    except Exception:
        return None


def load_config(path: str | os.PathLike[str] | None = None, profile: str | None = None, *,
                env: Mapping[str, str] | None = None, themes: ThemeNames | None = None) -> Settings:
    """The effective settings from the config file (without command-line flags; see Settings.with_value).

    path: `--config` (None: $CEPHTUI_CONFIG, else the XDG default; a missing default file means defaults,
    a missing named file is an error). profile: `--profile` (None: the file's `profile`, if any).
    themes: the known theme names (default: cephtui.ui.themes.theme_names, looked up lazily).
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
            self._themes = list(self._themes_fn()) if self._themes_fn is not None else available_themes()
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
        desc = _DESCRIBE.get(key[-1], "something else")
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
                        raise _Invalid()
                    for bk, bv in v.items():
                        bkey = (*key, bk)
                        if bk not in BENCH_KEYS:
                            raise self.unknown_key(bkey, BENCH_KEYS)
                        try:
                            out[f"bench.{bk}"] = _check_bench(bk, bv)
                        except _Invalid as e:
                            raise self.invalid(bkey, bv, str(e)) from None
                elif k in CONNECTION_KEYS:
                    out[f"connection.{k}"] = self.connection_value(key, k, v)
                else:
                    value = _check_common(k, v)
                    if k == "theme":
                        self.check_theme(key, value)
                    out[k] = value
            except _Invalid as e:
                raise self.invalid(key, v, str(e)) from None
        if "connection.id" in out and "connection.name" in out:
            later = max(("id", "name"), key=lambda n: self.line((*where, n)) or 0)
            raise self.error((*where, later), f"[{_dotted(where)}]: set id or name, not both "
                                              "(name is TYPE.ID, id the part after `client.`)")
        return out

    def connection_value(self, key: tuple[str, ...], k: str, v: Any) -> Any:
        value = _check_connection(k, v)
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
            why = _librados_refusal(ok, opts[-1][1])
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


# ------------------------------------------------------------------------------------------------ the example
EXAMPLE = '''\
# cephtui configuration: ~/.config/cephtui/config.toml ($XDG_CONFIG_HOME/cephtui/config.toml),
# or --config PATH, or $CEPHTUI_CONFIG. Precedence, lowest to highest: built-in defaults, the keys
# at the top level, the chosen profile, command-line flags. `cephtui config` shows the effective
# settings and where each one came from.

# Seconds between refreshes (at least 0.2), like --refresh.
refresh = 2

# A theme name (see the command palette's theme list). Uncomment to choose one:
# theme = "cephtui"

# Look, never touch: like --read-only. `cephtui --read-write` overrides it for one run.
read_only = false

# How the OSD removal wizard stops an OSD daemon, like --osd-stop-cmd; {id} is the OSD id, {host}
# its host. Empty: systemd when the OSD runs on this host, else cephtui waits until it is down.
osd_stop_cmd = ""

# The profile used when --profile is not given. Uncomment to choose one:
# profile = "lab"

# Defaults of the Bench tab's new-run form and of `cephtui bench` (rados bench's own defaults).
[bench]
pool = ""                # "" = none (the form offers rbd when it exists)
mode = "write"           # write, seq or rand
seconds = 10
threads = 16             # concurrent ops, 1 to 1024
block_size = "4M"        # op size: bytes, or "4K", "4M"
object_size = 0          # 0 = the op size
op_timeout = 30          # an op without a reply for this long ends the run with an error
cleanup = true           # remove the written objects afterwards

# One table per cluster: `cephtui --profile lab`. Connection settings (conf, id or name, keyring,
# cluster, mon_host, options) and any of the keys above, which override the top level.
[profiles.lab]
conf = "/etc/ceph/ceph.conf"
id = "admin"                             # or name = "client.admin", not both
# keyring = "/etc/ceph/ceph.client.admin.keyring"
refresh = 1
options = { rados_osd_op_timeout = 30 }  # librados options, as `--rados-osd-op-timeout 30`

[profiles.lab.bench]
pool = "rbd"

[profiles.prod]
conf = "/etc/ceph/prod.conf"
name = "client.cephtui"                  # a key with mon 'allow r' mgr 'allow r' is enough to watch
cluster = "ceph"
# mon_host = "10.0.0.1,10.0.0.2,10.0.0.3"
read_only = true
osd_stop_cmd = "ssh {host} systemctl stop ceph-osd@{id}"
'''
