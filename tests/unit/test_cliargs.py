"""The command line never mistakes a typo: every token is an option of the right place, a librados option in a
form librados takes (checked against the local librados' own option table, no cluster needed), or a command.
Refusals exit 2 with one line before anything connects; the librados here is the host's real one."""
from __future__ import annotations

import io
import re
import shlex
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from cephtui.ceph.releases import local_release
from cephtui.cli import dispatch as cli
from cephtui.cli import table

ROOT = Path(__file__).resolve().parents[2]


def refused(*argv: str) -> str:
    """The one line a refused command line prints (exit status 2)."""
    err = io.StringIO()
    with redirect_stderr(err), pytest.raises(SystemExit) as e:
        cli.parse_command_line(list(argv))
    assert e.value.code == 2, err.getvalue()
    lines = err.getvalue().strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


@pytest.mark.parametrize("argv, expect", [
    # the case: librados used to take the typo and swallow `snapshot`, starting a read-write TUI
    (["-c", "x.conf", "--read-onyl", "snapshot"],
     "unknown option --read-onyl: neither a cephtui option nor a Ceph option the local librados"),
    (["-c", "x.conf", "--read-onyl", "snapshot"], "did you mean --read-only?"),
    (["snapshto"], "unknown command 'snapshto'; did you mean snapshot?"),
    (["snapshot", "--jsn"], "unknown option --jsn for `snapshot`; did you mean --json?"),
    (["bench", "--pol", "rbd"], "unknown option --pol for `bench`; did you mean --pool?"),
    # global options go before the command, as in `ceph -c CONF osd tree`
    (["snapshot", "-c", "x.conf"], "-c is a connection option: put it before `snapshot`"),
    (["remove", "osd.3", "--id", "admin"], "--id is a connection option: put it before `remove`"),
    (["bench", "--read-only", "--pool", "rbd"], "--read-only is a global option: put it before `bench`"),
    (["snapshot", "--mon_host=10.0.0.1"], "--mon-host is a connection option: put it before `snapshot`"),
    (["snapshot", "--rados-mon-op-timeout", "7"], "--rados-mon-op-timeout is a Ceph option for librados: "
                                                  "put it before `snapshot`"),
    # ... and each command's options after it, only its own
    (["--json", "snapshot"], "--json is an option of `snapshot`: put it after the command"),
    (["--pool", "rbd", "bench"], "--pool is an option of `bench`: put it after the command"),
    (["snapshot", "--pool", "rbd"], "--pool is not an option of `snapshot` (it belongs to `bench`, `rbd`)"),
    (["--pool", "rbd", "rbd", "ls"], "--pool is an option of `rbd`: put it after the command"),
    (["--pool=rbd", "bench"], "--pool is an option of `bench`: put it after the command"),
    (["--json", "rbd", "ls"], "--json is an option of `rbd`: put it after the command"),
    (["config", "--yes-i-typed", "osd.1"], "--yes-i-typed is not an option of `config` (it belongs to `remove`)"),
    # librados options: only names its own table has, only the forms every release reads alike
    (["--rados-mon-op-timout", "7"], "unknown option --rados-mon-op-timout: neither a cephtui option nor"),
    (["--debug-ms", "snapshot"], "--debug-ms takes a value, and `snapshot` would be it"),
    (["--debug-ms"], "--debug-ms needs a value"),
    (["--debug-ms", "lots", "snapshot"], "--debug-ms 'lots': not a value the local librados"),
    (["--log-to-stderr", "false", "snapshot"], "`false` after --log-to-stderr: a Ceph boolean takes its value "
                                               "as --log-to-stderr=false"),
    (["--log-to-stderr=1"], "--log-to-stderr is a Ceph boolean: give it as --log-to-stderr, "
                            "--log-to-stderr=true, --log-to-stderr=false or --no-log-to-stderr"),
    (["-d", "snapshot"], "unknown option -d"),
    (["--show-config"], "unknown option --show-config"),  # librados would print its whole config and exit
    # no prefix matching: --read would have been --read-only (argparse's default)
    (["--read", "snapshot"], "unknown option --read"),
    (["snapshot", "--js"], "unknown option --js for `snapshot`"),
])
def test_refused_with_one_line(argv: list[str], expect: str) -> None:
    line = refused(*argv)
    assert line.startswith("cephtui: ")
    assert expect in line


def test_the_message_names_the_local_librados() -> None:
    release = local_release()
    assert release is not None and release.major >= 14
    assert f"the local librados ({release.version} {release.name}) knows" in refused("--read-onyl")


@pytest.mark.parametrize("argv, extra", [
    (["--mon_host=v2:127.0.0.1:3300", "snapshot"], []),  # librados' spelling of cephtui's own -m/--mon-host
    (["--debug-ms", "1/5", "--debug_monc=0", "snapshot"], ["--debug-ms", "1/5", "--debug_monc=0"]),
    (["--log-to-stderr", "--log-to-stderr=false", "--no-log-to-stderr"],
     ["--log-to-stderr", "--log-to-stderr=false", "--no-log-to-stderr"]),
    (["--rados-osd-op-timeout=10", "bench", "--pool", "rbd"], ["--rados-osd-op-timeout=10"]),
])
def test_librados_options_accepted(argv: list[str], extra: list[str]) -> None:
    _, args, got = cli.parse_command_line(argv)
    assert got == extra
    if argv[0].startswith("--mon_host"):
        assert args.mon_host == "v2:127.0.0.1:3300"


def help_of(*argv: str) -> str:
    out = io.StringIO()
    with redirect_stdout(out), pytest.raises(SystemExit) as e:
        cli.parse_command_line(list(argv))
    assert e.value.code == 0
    return out.getvalue()


def test_each_command_has_its_own_help() -> None:
    bench = help_of("bench", "--help")
    assert bench.startswith("usage: cephtui [GLOBAL OPTIONS] bench")
    assert "--pool" in bench and "--temp-pool" in bench
    assert not any(o in bench for o in ("--yes-i-typed", "--pg-table", "--conf", "--example", "--refresh"))
    remove = help_of("remove", "--help")
    assert "--yes-i-typed" in remove and "--osd-stop-cmd" in remove
    assert not any(o in remove for o in ("--pool", "--pg-table", "--conf", "--example"))
    snapshot = help_of("-c", "x.conf", "snapshot", "-h")
    assert "--pg-table" in snapshot and "--pool" not in snapshot
    top = help_of("--help")
    assert "--conf" in top and "--mon-host" in top and "--pool" not in top
    for name in table.NAMES:
        assert name in top


def test_osd_stop_cmd_before_or_after_remove() -> None:
    for argv in (["--osd-stop-cmd", "kill {id}", "remove", "osd.1"],
                 ["remove", "osd.1", "--osd-stop-cmd", "kill {id}"]):
        _, args, _ = cli.parse_command_line(argv)
        assert args.osd_stop_cmd == "kill {id}" and args.targets == ["osd.1"]
    assert "given twice" in refused("--osd-stop-cmd", "a {id}", "remove", "osd.1", "--osd-stop-cmd", "b {id}")


def documented_invocations() -> list[list[str]]:
    """Every complete `cephtui ...` line in the README's and docs' shell blocks (synopses with [...] aside)."""
    found = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        shell_lines, lang = [], None
        for line in path.read_text().splitlines():
            if line.startswith("```"):
                lang = None if lang is not None else line[3:].strip()
            elif lang in ("sh", "bash", "console", ""):
                shell_lines.append(line)
        for line in shell_lines:
            line = line.split(" #", 1)[0].strip().lstrip("$ ").strip()
            m = re.search(r"(?:^|&& |\| |bin/)cephtui( [^|&]*)?$", line)
            if m and "[" not in line and "..." not in line and "CMD" not in line:
                found.append(shlex.split(m.group(1) or ""))
    return found


def test_documented_invocations_still_parse() -> None:
    invocations = documented_invocations()
    assert len(invocations) >= 5, invocations
    for argv in invocations:
        if "--version" in argv or "--help" in argv:
            continue
        cli.parse_command_line(argv)  # a refusal would raise SystemExit(2)
    # and the ones scripts and tests run (tests/cluster, scripts/bench_vs_rados.py)
    for argv in (["-c", "C", "snapshot", "--json"], ["-c", "C", "remove", "osd.3", "--osd-stop-cmd", "kill {id}",
                                                     "--yes-i-typed", "osd.3"],
                 ["-c", "C", "remove", "--resume", "--interval", "0.5"], ["-c", "C", "remove", "--status", "--json"],
                 ["-c", "C", "bench", "--pool", "P", "--seconds", "1", "--mode", "write", "--threads", "2",
                  "--run-name", "r", "--block-size", "4096", "--object-size", "4096", "--no-cleanup", "--no-save",
                  "--json"],
                 ["-c", "C", "--id", "benchro", "-k", "K", "--read-only", "bench", "--pool", "rbd", "--mode", "seq"],
                 ["--profile", "lab", "--read-write", "bench", "--json"], ["--config", "F", "--profile", "p", "config"],
                 ["-c", "C", "--refresh", "1"], ["-c", "C", "-n", "client.admin", "-k", "K", "snapshot"],
                 ["-c", "C", "--mon-host", "127.0.0.1:1", "snapshot"]):
        cli.parse_command_line(argv)
