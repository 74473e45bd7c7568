"""The config file: parsing, where each value comes from, precedence up to the flags, every error with its line."""
from __future__ import annotations

import io
import os
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from cephtui.ceph.bench.params import BenchError, BenchParams, MiB
from cephtui.ceph.client import CephClient
from cephtui.cli import dispatch as cli
from cephtui.config.example import EXAMPLE
from cephtui.config.load import load_config, parse_config
from cephtui.config.locate import line_of, locate_keys
from cephtui.config.model import BenchDefaults, ConfigError, Connection, Settings
from cephtui.paths import config_path, default_path
from cephtui.ui.themes import theme_names

if sys.version_info >= (3, 11):
    import tomllib
else:  # the same parser, before it joined the standard library
    import tomli as tomllib

THEMES = ("cephtui", "cephtui-light", "nord", "textual-dark")


def themes() -> list[str]:
    return list(THEMES)


def parse(text: str, profile: str | None = None) -> Settings:
    return parse_config(text, "/etc/x/config.toml", profile, themes=themes)


def error(text: str, profile: str | None = None) -> ConfigError:
    with pytest.raises(ConfigError) as e:
        parse(text, profile)
    return e.value


FULL = '''\
# a comment
refresh = 5
theme = "nord"
read_only = true
osd_stop_cmd = "ssh {host} systemctl stop ceph-osd@{id}"
profile = "lab"

[bench]
pool = "bench"
threads = 8
block_size = "4K"
object_size = 8192
seconds = 20.5
op_timeout = 60
cleanup = false
mode = "seq"

[profiles.lab]
conf = "~/lab/ceph.conf"
id = "ops"
keyring = "/etc/ceph/lab.keyring"
refresh = 1
options = { rados_osd_op_timeout = 30, debug_ms = "0/0", ms_crc_data = false }

[profiles.lab.bench]
threads = 4

[profiles.prod]
name = "client.cephtui"
cluster = "prod"
mon_host = "10.0.0.1,10.0.0.2"
read_only = false
theme = "cephtui-light"
'''


# ------------------------------------------------------------------------------------------------ where the file is
def test_default_path_follows_xdg(tmp_path: Path) -> None:
    assert default_path({"XDG_CONFIG_HOME": str(tmp_path), "HOME": "/home/u"}) == tmp_path / "cephtui/config.toml"
    assert default_path({"HOME": "/home/u"}) == Path("/home/u/.config/cephtui/config.toml")
    # The XDG spec: a relative XDG_CONFIG_HOME is invalid and ignored.
    assert default_path({"XDG_CONFIG_HOME": "rel/dir", "HOME": "/home/u"}) == Path(
        "/home/u/.config/cephtui/config.toml")


def test_explicit_path_beats_environment_beats_default(tmp_path: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path), "CEPHTUI_CONFIG": "/from/env.toml"}
    assert config_path("/from/flag.toml", env) == (Path("/from/flag.toml"), "--config")
    assert config_path(None, env) == (Path("/from/env.toml"), "$CEPHTUI_CONFIG")
    assert config_path(None, {"XDG_CONFIG_HOME": str(tmp_path)}) == (tmp_path / "cephtui/config.toml", "default")


def test_missing_default_file_means_defaults(tmp_path: Path) -> None:
    s = load_config(env={"XDG_CONFIG_HOME": str(tmp_path)}, themes=themes)
    assert s == Settings()
    assert s.path is None and s.refresh == 2.0 and s.bench == BenchDefaults() and s.connection == Connection()
    assert {src for _, _, src in s.rows()} == {"default"}


def test_default_file_is_read(tmp_path: Path) -> None:
    (tmp_path / "cephtui").mkdir()
    (tmp_path / "cephtui/config.toml").write_text("refresh = 7\n")
    s = load_config(env={"XDG_CONFIG_HOME": str(tmp_path)}, themes=themes)
    assert s.refresh == 7.0 and s.source("refresh") == "file line 1"
    assert s.path == str(tmp_path / "cephtui/config.toml") and s.path_source == "default"


@pytest.mark.parametrize("how", ["flag", "env"])
def test_missing_named_file_is_an_error(tmp_path: Path, how: str) -> None:
    missing = tmp_path / "nope.toml"
    with pytest.raises(ConfigError) as e:
        if how == "flag":
            load_config(missing, env={}, themes=themes)
        else:
            load_config(env={"CEPHTUI_CONFIG": str(missing)}, themes=themes)
    assert str(e.value) == f"{missing}: no such file (named by {'--config' if how == 'flag' else '$CEPHTUI_CONFIG'})"
    assert e.value.line is None


def test_profile_without_a_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as e:
        load_config(profile="prod", env={"XDG_CONFIG_HOME": str(tmp_path)}, themes=themes)
    assert "no profile `prod`: there is no config file" in str(e.value)


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="is a directory"):
        load_config(tmp_path, themes=themes)
    bad = tmp_path / "latin1.toml"
    bad.write_bytes(b"refresh = 2\n\n# caf\xe9\n")
    with pytest.raises(ConfigError) as e:
        load_config(bad, themes=themes)
    assert e.value.line == 3 and "not UTF-8" in str(e.value)


# ------------------------------------------------------------------------------------------------ values and sources
def test_full_config_top_level_and_default_profile() -> None:
    s = parse(FULL)
    assert s.profile == "lab" and s.profiles == ("lab", "prod") and s.source("profile") == "file line 6"
    assert s.refresh == 1.0 and s.source("refresh") == "profile lab, line 22"  # the profile wins
    assert (s.theme, s.read_only) == ("nord", True)
    assert s.source("theme") == "file line 3" and s.source("read_only") == "file line 4"
    assert s.osd_stop_cmd == "ssh {host} systemctl stop ceph-osd@{id}"
    assert s.bench == BenchDefaults(pool="bench", mode="seq", seconds=20.5, threads=4, block_size=4096,
                                    object_size=8192, op_timeout=60.0, cleanup=False)
    assert s.source("bench.threads") == "profile lab, line 26"
    assert s.source("bench.pool") == "file line 9" and s.source("bench.mode") == "file line 16"
    c = s.connection
    assert c.conf == os.path.expanduser("~/lab/ceph.conf") and c.id == "ops" and c.entity == "client.ops"
    assert c.keyring == "/etc/ceph/lab.keyring" and s.source("connection.keyring") == "profile lab, line 21"
    assert c.options == (("rados_osd_op_timeout", "30"), ("debug_ms", "0/0"), ("ms_crc_data", "false"))
    assert c.librados_args() == ("--rados_osd_op_timeout=30", "--debug_ms=0/0", "--ms_crc_data=false")


def test_other_profile_overrides_and_keeps_the_rest() -> None:
    s = parse(FULL, profile="prod")
    assert s.profile == "prod" and s.source("profile") == "flag --profile"
    assert s.refresh == 5.0 and s.source("refresh") == "file line 2"  # prod does not set it: the top level
    assert s.read_only is False and s.source("read_only") == "profile prod, line 32"
    assert s.theme == "cephtui-light"
    assert s.bench.threads == 8 and s.source("bench.threads") == "file line 10"  # lab's bench does not leak
    assert s.connection == Connection(name="client.cephtui", cluster="prod", mon_host="10.0.0.1,10.0.0.2")
    assert s.connection.librados_args() == ("--mon-host", "10.0.0.1,10.0.0.2")


def test_no_profile_chosen_uses_only_the_top_level() -> None:
    s = parse(FULL.replace('profile = "lab"\n', ""))
    assert s.profile is None and s.connection == Connection() and s.refresh == 5.0


def test_sizes_as_text_or_bytes() -> None:
    assert parse('[bench]\nblock_size = "4M"\n').bench.block_size == 4 * MiB
    assert parse("[bench]\nblock_size = 65536\n").bench.block_size == 65536
    assert parse('[bench]\nblock_size = "64K"\nobject_size = "1M"\n').bench.object_size == MiB
    assert parse("[bench]\nobject_size = 0\n").bench.object_size == 0


# ------------------------------------------------------------------------------------------------ flags on top
def flags(text: str, tmp_path: Path, *argv: str) -> tuple[Settings, Any]:
    path = tmp_path / "config.toml"
    path.write_text(text)
    parser, args, extra = cli.parse_command_line(["--config", str(path), *argv])
    settings = cli.effective_settings(parser, args)
    return settings, cli.spec_from_args(args, extra, settings.connection)


def test_flags_win_over_profile_and_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "theme_names", themes)
    s, spec = flags(FULL, tmp_path, "--refresh", "0.5", "--read-write", "--id", "admin", "-c", "/x/ceph.conf",
                    "--mon-host", "127.0.0.1:1", "bench", "-t", "32", "--no-cleanup", "-b", "8K")
    assert s.refresh == 0.5 and s.source("refresh") == "flag --refresh"
    assert s.read_only is False and s.source("read_only") == "flag --read-write"
    assert s.bench.threads == 32 and s.source("bench.threads") == "flag --threads"
    assert s.bench.block_size == 8192 and s.bench.cleanup is False and s.source("bench.cleanup") == "flag --no-cleanup"
    assert s.bench.pool == "bench"  # not given: the file's
    # --id replaces the profile's identity; -c its conf; profile options come before the command line's
    assert spec.name == "client.admin" and spec.conffile == "/x/ceph.conf"
    assert spec.keyring == "/etc/ceph/lab.keyring"
    # -m/--mon-host replaces the profile's mon_host; options as --key=value, the one form every librados reads
    # alike for booleans too (Nautilus takes `--ms_crc_data false` as true)
    assert s.connection.mon_host == "127.0.0.1:1" and s.source("connection.mon_host") == "flag --mon-host"
    assert spec.extra_args == ("--mon-host", "127.0.0.1:1", "--rados_osd_op_timeout=30", "--debug_ms=0/0",
                               "--ms_crc_data=false")


def test_profile_connection_reaches_the_spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "theme_names", themes)
    _, spec = flags(FULL, tmp_path, "--profile", "prod")
    assert (spec.name, spec.cluster, spec.conffile, spec.keyring) == ("client.cephtui", "prod", None, None)
    assert spec.extra_args == ("--mon-host", "10.0.0.1,10.0.0.2")
    _, spec = flags(FULL, tmp_path, "--profile", "prod", "--cluster", "other", "-n", "client.x")
    assert (spec.name, spec.cluster) == ("client.x", "other")


def test_read_only_from_config_refuses_a_bench_write_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("\nread_only = true\n[bench]\npool = \"rbd\"\n")
    err = io.StringIO()
    with redirect_stderr(err), pytest.raises(SystemExit) as e:
        cli.main(["--config", str(path), "bench"])
    assert e.value.code == 2
    assert "not with --read-only" in err.getvalue() and "file line 2; --read-write overrides it" in err.getvalue()


def test_bad_flags_are_refused(tmp_path: Path) -> None:
    for argv, expect in ((["--refresh", "0.1"], "--refresh must be at least 0.2"),
                         (["--osd-stop-cmd", "ssh {hots} stop {id}"], "unknown placeholder `{hots}`"),
                         (["bench", "-b", "4X"], "--block-size: not a size")):
        err = io.StringIO()
        with redirect_stderr(err), pytest.raises(SystemExit) as e:
            flags("", tmp_path, *argv)
        assert e.value.code == 2 and expect in err.getvalue(), err.getvalue()


# ------------------------------------------------------------------------------------------------ errors
@pytest.mark.parametrize("text, line, key, message", [
    # TOML syntax: tomllib's own words, with its line and column
    ("refresh = 2\n\nbench = { threads = }\n", 3, None, "not valid TOML: Invalid value (column 21)"),
    ("refresh = 2\nrefresh = 3\n", 2, None, "not valid TOML: Cannot overwrite a value"),
    ("refresh = ", 1, None, "not valid TOML: Invalid value (at the end of the file)"),
    # unknown keys, with a suggestion
    ("refresh = 2\n\nrefesh = 3\n", 3, "refesh", "unknown key `refesh` at the top level; did you mean `refresh`?"),
    ("[bench]\npool = \"rbd\"\nthraeds = 4\n", 3, "bench.thraeds",
     "unknown key `thraeds` in [bench]; did you mean `threads`?"),
    ("[bench]\npool = \"rbd\"\nrefesh = 1\n", 3, "bench.refesh",
     "unknown key `refesh` in [bench]; did you mean `refresh`? That key belongs at the top level"),
    ("threads = 4\n", 1, "threads", "unknown key `threads` at the top level; it belongs in [bench]"),
    ("conf = \"/x\"\n", 1, "conf", "it belongs in a [profiles.NAME] table"),
    ("[profiles.prod]\nconf = \"x\"\n\nconff = \"y\"\n", 4, "profiles.prod.conff",
     "unknown key `conff` in [profiles.prod]; did you mean `conf`?"),
    ("[profiles.p]\nthreads = 4\n", 2, "profiles.p.threads", "it belongs in [profiles.p.bench]"),
    ("zzzz = 1\n", 1, "zzzz", "unknown key `zzzz` at the top level (known: refresh, theme"),
    # wrong types and values
    ("# c\n\n[bench]\npool = \"rbd\"\n\n\nthreads = \"many\"\n", 7, "bench.threads",
     'bench.threads must be an integer from 1 to 1024, got "many"'),
    ("[bench]\nthreads = 0\n", 2, "bench.threads",
     "bench.threads: threads (concurrent ops) must be between 1 and 1024, got 0"),
    ("[bench]\nthreads = 4.0\n", 2, "bench.threads", "must be an integer from 1 to 1024, got 4.0"),
    ("[bench]\nseconds = 0\n", 2, "bench.seconds", "seconds must be between 1 and 86400, got 0"),
    ("[bench]\nop_timeout = 4000\n", 2, "bench.op_timeout", "op timeout must be between 1 and 3600"),
    ("[bench]\nblock_size = \"4X\"\n", 2, "bench.block_size",
     'bench.block_size must be a size: bytes, or "4K", "4M", got "4X"'),
    ("[bench]\nblock_size = \"512M\"\n", 2, "bench.block_size", "op size must be between 1 byte and 256 MiB"),
    ("[bench]\nblock_size = \"4M\"\nobject_size = \"6M\"\n", 3, "bench.object_size",
     "object size must be a multiple of the op size"),
    ("[bench]\nmode = \"writ\"\n", 2, "bench.mode", 'bench.mode must be one of write, seq, rand, got "writ"'),
    ("[bench]\ncleanup = \"no\"\n", 2, "bench.cleanup", 'bench.cleanup must be true or false, got "no"'),
    ("bench = 3\n", 1, "bench", "bench must be a table: [bench], got 3"),
    ("refresh = 0.1\n", 1, "refresh", "refresh must be a number of seconds, at least 0.2, got 0.1"),
    ("refresh = nan\n", 1, "refresh", "refresh must be a number of seconds, at least 0.2, got nan"),
    ("refresh = \"2\"\n", 1, "refresh", 'got "2"'),
    ("read_only = \"yes\"\n", 1, "read_only", 'read_only must be true or false, got "yes"'),
    ("\nosd_stop_cmd = \"ssh {hots} stop {id}\"\n", 2, "osd_stop_cmd",
     "osd_stop_cmd: unknown placeholder `{hots}` (the placeholders are {id}, {host}, {name})"),
    ("osd_stop_cmd = \"ssh {host} stop\"\n", 1, "osd_stop_cmd", "the command must contain {id}"),
    ("theme = \"nrod\"\n", 1, "theme",
     "theme: no theme `nrod`; did you mean `nord`? (available: cephtui, cephtui-light, nord, textual-dark)"),
    # profiles
    ("[profiles.a]\nid = \"x\"\nname = \"client.x\"\n", 3, "profiles.a.name", "set id or name, not both"),
    ("[profiles.a]\nname = \"admin\"\n", 2, "profiles.a.name", "must be an entity name TYPE.ID"),
    ("profile = \"prdo\"\n[profiles.prod]\nconf = \"x\"\n", 1, "profile",
     'profile = "prdo": there is no [profiles.prdo]; the profiles are: prod'),
    ("[profiles.p]\noptions = { \"--x\" = 1 }\n", 2, "profiles.p.options.--x", "is not a librados option name"),
    ("[profiles.p]\noptions.debug_ms = [1]\n", 2, "profiles.p.options.debug_ms",
     "must be a string, number or boolean, got an array"),
    # checked against the local librados' own option table, which would skip an unknown name silently
    ("[profiles.p]\noptions = { rados_mon_op_timout = 7 }\n", 2, "profiles.p.options.rados_mon_op_timout",
     "`rados_mon_op_timout` is not a Ceph option the local librados knows"),
    ("[profiles.p]\n\noptions = { debug_ms = \"lots\" }\n", 3, "profiles.p.options.debug_ms",
     "librados refuses 'lots' (Invalid argument)"),
    ("[profiles.p.bench]\nseconds = -1\n", 2, "profiles.p.bench.seconds", "seconds must be between 1 and 86400"),
    ("profiles = 1\n", 1, "profiles", "must be tables"),
    ("[profiles]\nlab = 1\n", 2, "profiles.lab", "a profile must be a table"),
])
def test_errors_name_the_key_and_its_line(text: str, line: int, key: str | None, message: str) -> None:
    e = error(text)
    assert (e.line, e.key) == (line, key), str(e)
    assert message in e.message, e.message
    assert str(e).startswith(f"/etc/x/config.toml line {line}: ")
    assert "\n" not in str(e)


def test_error_in_an_unused_profile_still_stops() -> None:
    e = error('profile = "a"\n[profiles.a]\nrefresh = 1\n[profiles.b]\nrefresh = -1\n')
    assert (e.line, e.key) == (5, "profiles.b.refresh")


def test_unknown_profile_from_the_command_line_lists_them() -> None:
    e = error(FULL, profile="prd")
    assert str(e) == "/etc/x/config.toml: no profile `prd` (from --profile); the profiles are: lab, prod. " \
                     "Did you mean `prod`?"
    assert e.line is None and e.key == "profile"
    assert "the config file defines no profiles" in error("refresh = 2\n", profile="x").message


def test_an_error_in_a_profile_override_points_at_the_profile() -> None:
    e = error('profile = "p"\n[bench]\nblock_size = "4K"\n[profiles.p.bench]\nobject_size = "6K"\n')
    assert (e.line, e.key) == (5, "profiles.p.bench.object_size")


@hsettings(max_examples=200, deadline=None)
@given(threads=st.integers(-5, 1100), seconds=st.floats(-10, 90000, allow_nan=False),
       op_timeout=st.floats(-1, 4000, allow_nan=False))
def test_config_refuses_exactly_what_the_engine_refuses(threads: int, seconds: float, op_timeout: float) -> None:
    """The Bench form builds BenchParams; the config accepts a value exactly when that would."""
    for key, value in (("threads", threads), ("seconds", seconds), ("op_timeout", op_timeout)):
        try:
            BenchParams(pool="rbd", **{key: value})
            engine_ok = True
        except BenchError:
            engine_ok = False
        try:
            parse(f"[bench]\n{key} = {value!r}\n")
            config_ok = True
        except ConfigError as e:
            config_ok = False
            assert e.line == 2
        assert config_ok == engine_ok, (key, value)


# ------------------------------------------------------------------------------------------------ the locator
def test_locator_follows_headers_dotted_keys_inline_tables_and_strings() -> None:
    text = '''\
top = 1  # [not.a.header]
"quoted.key" = 2
a.b.c = 3
multi = """
fake = 4
[fake.header]
"""
literal = \'\'\'x = 5\'\'\'
arr = [
  1, # comment ]
  { in_array = 6 },
]
inline = { x = 1, y = { z = 2 } }


[ tbl . "sub.part" ]
k = 7
[[arr_of]]
e = 8
[[arr_of]]
e = 9
[last]
esc = "a\\"b = c"
after = 10
'''
    tomllib.loads(text)  # valid TOML, as the locator assumes
    found = locate_keys(text)
    assert found[("top",)] == 1
    assert found[("quoted.key",)] == 2
    assert found[("a", "b", "c")] == 3 and found[("a",)] == 3
    assert found[("multi",)] == 4 and ("fake",) not in found and ("fake", "header") not in found
    assert found[("literal",)] == 8
    assert found[("arr",)] == 9 and ("in_array",) not in found
    assert found[("inline", "y", "z")] == 13
    assert found[("tbl", "sub.part")] == 16 and found[("tbl", "sub.part", "k")] == 17
    assert found[("arr_of",)] == 18 and found[("arr_of", "e")] == 19  # the first occurrence
    assert found[("last", "esc")] == 23 and found[("last", "after")] == 24
    assert ("c",) not in found  # the string's `b = c` is not a key


def test_a_key_not_found_falls_back_to_its_table() -> None:
    found = locate_keys('refresh = 1\n\n[profiles.p]\noptions = { a = 1, b = [2] }\n')
    assert found[("profiles", "p", "options", "b")] == 4
    assert line_of(found, ("profiles", "p", "options", "b", 0)) == 4  # inside a value: the key's line
    assert line_of(found, ("profiles", "p", "missing")) == 3  # the table's header
    assert line_of(found, ("nowhere",)) is None
    e = error("\n[profiles.p]\noptions = { debug_ms = 1, b = [2] }\n")
    assert (e.line, e.key) == (3, "profiles.p.options.b")


# ------------------------------------------------------------------------------------------------ the example
def test_example_loads_cleanly_with_every_profile_and_the_real_themes(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli.main(["config", "--example"]) == 0
    assert out.getvalue() == EXAMPLE
    path.write_text(out.getvalue())
    s = load_config(path, themes=theme_names)  # real theme names
    assert s.profiles == ("lab", "prod") and s.profile is None
    assert s.bench == BenchDefaults() and s.refresh == 2.0 and not s.read_only  # it changes no default
    lab = load_config(path, "lab", themes=theme_names)
    assert lab.refresh == 1.0 and lab.bench.pool == "rbd" and lab.connection.entity == "client.admin"
    prod = load_config(path, "prod", themes=theme_names)
    assert prod.read_only and prod.connection.entity == "client.cephtui"
    assert prod.osd_stop_cmd == "ssh {host} systemctl stop ceph-osd@{id}"
    # every commented-out key still loads once uncommented
    uncommented = "\n".join(line.removeprefix("# ") if " = " in line and line.startswith("# ") and "[" not in line
                            else line for line in EXAMPLE.splitlines())
    assert uncommented != EXAMPLE
    both = parse_config(uncommented, str(path), themes=theme_names)
    assert both.profile == "lab" and both.theme == "cephtui"
    assert both.connection.keyring == "/etc/ceph/ceph.client.admin.keyring"


# ------------------------------------------------------------------------------------------------ the CLI
def test_bad_config_exits_2_before_connecting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def never(self: CephClient) -> None:
        raise AssertionError("connected despite a bad config")

    monkeypatch.setattr(CephClient, "connect", never)
    path = tmp_path / "config.toml"
    path.write_text("refresh = 2\n[bench]\nthreads = \"many\"\n")
    for command in (["snapshot"], [], ["bench", "--pool", "rbd"], ["config"]):
        err = io.StringIO()
        with redirect_stderr(err):
            assert cli.main(["--config", str(path), *command]) == 2
        assert err.getvalue() == f'cephtui: {path} line 3: bench.threads must be an integer from 1 to 1024, ' \
                                 f'got "many"\n'


def test_config_command_shows_values_and_sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CEPH_CONF", raising=False)
    monkeypatch.delenv("CEPH_ARGS", raising=False)
    path = tmp_path / "config.toml"
    path.write_text(FULL.replace('theme = "nord"', 'theme = "cephtui"'))
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli.main(["--config", str(path), "--refresh", "3", "config"]) == 0
    lines = {line.split()[0]: line for line in out.getvalue().splitlines() if line.strip()}
    assert lines["config"].endswith(f"{path} (from --config)")
    assert lines["profile"].split()[1:] == ['"lab"', "file", "line", "6"]
    assert lines["refresh"].split()[1:] == ["3", "flag", "--refresh"]
    assert lines["read_only"].split()[1:] == ["true", "file", "line", "4"]
    assert lines["bench.threads"].split()[1:] == ["4", "profile", "lab,", "line", "26"]
    assert lines["bench.block_size"].split()[1:3] == ['"4K"', "file"]
    assert lines["connection.name"].split()[1:] == ['"client.ops"', "profile", "lab,", "line", "20"]
    assert lines["connection.cluster"].split()[1:] == ['"ceph"', "default"]
