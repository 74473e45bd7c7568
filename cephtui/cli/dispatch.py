"""Command line: the ceph CLI's connection flags, the TUI, and headless subcommands, each with its own options.

    cephtui [GLOBAL OPTIONS]                       the TUI
    cephtui [GLOBAL OPTIONS] snapshot [--json] [--pg-table]
    cephtui [GLOBAL OPTIONS] bench [--pool P] [--seconds S] [--mode write|seq|rand|cleanup] [--threads N]
                                   [--block-size B] [--temp-pool] [--json] ...
    cephtui [GLOBAL OPTIONS] bench rbd --pool P [--image NAME | --temp-image SIZE] [--io-type write|read|readwrite]
                                   [--io-size 4K] [--io-threads 16] [--io-total 1G] [--io-pattern seq|rand]
                                   [--rw-mix-read 50] [--seconds S] [--cache off|writeback] [--json] ...
    cephtui [GLOBAL OPTIONS] config [--example] [--json]
    cephtui [GLOBAL OPTIONS] remove osd.N [osd.M ...] [--replace] [--drain out|crush0] [--osd-stop-cmd CMD]
                                   [--shell] [--override NAME]... --yes-i-typed osd.N [osd.M ...]
    cephtui [GLOBAL OPTIONS] remove --resume [ID] | --status [--json]
    cephtui [GLOBAL OPTIONS] rbd ls [--pool P[/NS]] [--json] [--du fast|scan|none]
    cephtui [GLOBAL OPTIONS] record [--once] [--quiet]

    GLOBAL OPTIONS: [--config PATH] [--profile NAME] [-c CONF] [--id ID | -n NAME] [-k KEYRING]
                    [--cluster NAME] [-m MON_HOST] [--connect-timeout S] [--timeout S]
                    [--read-only | --read-write] [--refresh S] [--osd-stop-cmd CMD] [--CEPH-OPTION VALUE]...

As with `ceph -c CONF osd tree`, the global options go before the command and each command's options after
it; `cephtui COMMAND --help` shows that command's. Every token is checked first (cli/args.py): an unknown
option, an option in the wrong place or a misspelt command exits with status 2 and one line saying so.

CEPH_ARGS is split and put before the command line (so its options count as given before the command);
CEPH_CONF names the config when -c is absent. Before the command, a `--option value` that is not cephtui's
goes to librados when librados' own option table knows it (e.g. `--mon_host=10.0.0.1`,
`--rados-mon-op-timeout 10`, `--no-log-to-stderr`), in the forms librados takes. With -m/--mon-host and no
config file (no -c, no CEPH_CONF, no /etc/ceph/$cluster.conf), cephtui connects without one, as `rados -m`
does (the keyring from -k or librados' default paths).

The config file (cephtui/config/; --config, $CEPHTUI_CONFIG, else
$XDG_CONFIG_HOME/cephtui/config.toml) gives defaults and per-cluster profiles; a
flag given on the command line (or in CEPH_ARGS) wins over it. A bad config file
exits with status 2 before any connection.
"""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from cephtui import __version__
from cephtui.ceph.client import CephClient
from cephtui.ceph.connection import ConnectionSpec, split_ceph_args
from cephtui.ceph.errors import CephError
from cephtui.ceph.librados_options import LibradosOptions
from cephtui.ceph.releases import local_release
from cephtui.cli.args import UsageError, split_argv
from cephtui.cli.table import BY_NAME, COMMANDS, Invocation
from cephtui.cli.tui import HANGUP, run_tui
from cephtui.config.load import load_config
from cephtui.config.model import MIN_REFRESH, ConfigError, Connection, Settings
from cephtui.config.schema import check_prometheus_url, check_stop_cmd

USAGE = ("cephtui [-h] [--version] [GLOBAL OPTIONS] [COMMAND [COMMAND OPTIONS]]\n"
         "       (the TUI without a COMMAND; `cephtui COMMAND --help` for a command's options)")


def _parser(prog: str, **kw: Any) -> argparse.ArgumentParser:
    return argparse.ArgumentParser(prog=prog, allow_abbrev=False, **kw)


def build_parsers() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The top-level parser (global options) and one parser per command (its own options)."""
    p = _parser("cephtui", usage=USAGE,
                description="A terminal admin companion for Ceph. Connects like the `ceph` CLI does; global "
                            "options go before the COMMAND, as in `ceph -c CONF osd tree`.",
                epilog="Ceph options: before the command, --OPTION VALUE, --OPTION=VALUE, or for a boolean --OPTION, "
                       "--OPTION=false, --no-OPTION, for any option the local librados knows (e.g. "
                       "--rados-mon-op-timeout 10); checked against librados' own option table. Environment: "
                       "CEPH_CONF (ceph config path), CEPH_ARGS (extra arguments, put first), CEPHTUI_CONFIG "
                       "(cephtui's config file). Flags override the config file and its profile.")
    p.add_argument("--version", action="version", version=f"cephtui {__version__}")
    g = p.add_argument_group("connection (as the ceph CLI)")
    g.add_argument("--config", metavar="PATH",
                   help="cephtui's config file (default: $CEPHTUI_CONFIG, else "
                        "$XDG_CONFIG_HOME/cephtui/config.toml, i.e. ~/.config/cephtui/config.toml)")
    g.add_argument("--profile", metavar="NAME",
                   help="use the config file's [profiles.NAME]: its connection and settings (default: the "
                        "file's `profile` key, if any)")
    g.add_argument("-c", "--conf", help="ceph config file (default: $CEPH_CONF or /etc/ceph/$cluster.conf)")
    who = g.add_mutually_exclusive_group()
    who.add_argument("--id", "--user", dest="id", help="client id, e.g. admin for client.admin")
    who.add_argument("-n", "--name", help="full entity name, e.g. client.admin")
    g.add_argument("-k", "--keyring", help="keyring file")
    g.add_argument("--cluster", help="cluster name (default: ceph)")
    g.add_argument("-m", "--mon-host", metavar="MON_HOST",
                   help="monitor address(es), e.g. 10.0.0.1 or v2:10.0.0.1:3300; with no config file, "
                        "connects without one")
    g.add_argument("--connect-timeout", type=int, default=5, metavar="S",
                   help="seconds to wait for the monitors when connecting (default: 5)")
    g.add_argument("--timeout", type=int, default=5, metavar="S",
                   help="seconds before one command counts as failed (default: 5)")
    o = p.add_argument_group("behaviour")
    ro = o.add_mutually_exclusive_group()
    ro.add_argument("--read-only", action="store_true", default=None,
                    help="look, never touch: every action that would change the cluster is disabled and says "
                         "so, and no writing command is sent (checked against the cluster's own command table)")
    ro.add_argument("--read-write", dest="read_only", action="store_false",
                    help="allow changes for this run even if the config file sets read_only = true")
    o.add_argument("--refresh", type=float, metavar="S", help="the TUI: seconds between refreshes (default: 2)")
    o.add_argument("--prometheus", metavar="URL",
                   help="the TUI's history from the cluster's own Prometheus (e.g. http://10.0.0.1:9095); without "
                        "it, the one the dashboard is set to use (mgr/dashboard/PROMETHEUS_API_HOST), else the "
                        "local history cephtui records")
    o.add_argument("--osd-stop-cmd", metavar="CMD",
                   help="how the removal wizard (and `remove`) stops an OSD daemon, {id} replaced by its id, e.g. "
                        "'ssh {host} systemctl stop ceph-osd@{id}' (default: systemd when the OSD runs here, "
                        "else it shows the command and waits until the OSD is down)")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", title="commands (each has its own --help)",
                           prog="cephtui [GLOBAL OPTIONS]",
                           parser_class=argparse.ArgumentParser)
    cmds: dict[str, argparse.ArgumentParser] = {}
    for command in COMMANDS:  # the table's order is `cephtui --help`'s
        module = command.load()
        # A command's own parser takes no abbreviated options either, as the top level.
        cmds[command.name] = sub.add_parser(command.name, allow_abbrev=False, help=module.HELP,
                                            description=module.DESCRIPTION)
        module.add_arguments(cmds[command.name])
    return p, cmds


def usage_exit(text: str) -> SystemExit:
    """Exit status 2 with one line, as argparse does for what it catches itself."""
    print(f"cephtui: {text}", file=sys.stderr)
    return SystemExit(2)


def parse_command_line(argv: Sequence[str]) -> tuple[argparse.ArgumentParser, argparse.Namespace, list[str]]:
    """The parser, the parsed options and the librados options; SystemExit(2) for a refused command line."""
    top, cmds = build_parsers()
    lib = LibradosOptions()
    try:
        release = local_release() if lib.available else None
        split = split_argv(top, cmds, argv, lib, str(release or ""))
    except UsageError as e:
        raise usage_exit(str(e)) from None
    finally:
        lib.close()
    args = top.parse_args(split.ours)
    adjust = getattr(BY_NAME[args.command].load(), "adjust", None) if args.command else None
    if adjust is not None:
        try:
            adjust(args)
        except UsageError as e:
            raise usage_exit(str(e)) from None
    return top, args, split.librados


def spec_from_args(args: argparse.Namespace, extra: Sequence[str],
                   connection: Connection | None = None) -> ConnectionSpec:
    """The connection: the profile's settings (`connection`, with -m/--mon-host over its mon_host), each
    overridden by its flag; librados options from the profile come first so the command line's (later,
    so they win) override them."""
    c = connection or Connection()
    if args.name:
        name = args.name
    elif args.id:
        name = f"client.{args.id}"
    else:
        name = c.entity
    if "." not in name:
        raise SystemExit(f"cephtui: --name must look like TYPE.ID (e.g. client.admin), got {name!r}")
    return ConnectionSpec(conffile=args.conf or c.conf, name=name, keyring=args.keyring or c.keyring,
                          cluster=args.cluster or c.cluster or "ceph", extra_args=(*c.librados_args(), *extra),
                          connect_timeout=max(1, args.connect_timeout), op_timeout=max(1, args.timeout))


def theme_names() -> list[str] | None:
    """The UI's theme names for the config's `theme` check, imported only when a file sets one (the config
    never imports the UI, and textual is slow to import); None if the UI cannot say."""
    try:
        from cephtui.ui.themes import theme_names as names
    except ImportError:
        return None
    try:
        return names()
    except Exception:
        return None


def effective_settings(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Settings:
    """The config file (and profile), then every flag given on the command line over it.
    ConfigError for the file; parser.error (exit 2) for a bad flag."""
    settings = load_config(args.config, args.profile, themes=theme_names)
    if args.refresh is not None:
        if not args.refresh >= MIN_REFRESH:  # also NaN
            parser.error(f"--refresh must be at least {MIN_REFRESH:g} seconds")
        settings = settings.with_value("refresh", args.refresh, "flag --refresh")
    if args.read_only is not None:
        flag = "--read-only" if args.read_only else "--read-write"
        settings = settings.with_value("read_only", args.read_only, f"flag {flag}")
    if args.osd_stop_cmd is not None:
        why = check_stop_cmd(args.osd_stop_cmd)
        if why:
            parser.error(f"--osd-stop-cmd: {why}")
        settings = settings.with_value("osd_stop_cmd", args.osd_stop_cmd, "flag --osd-stop-cmd")
    if args.prometheus is not None:
        why = check_prometheus_url(args.prometheus)
        if why:
            parser.error(f"--prometheus: {why}")
        settings = settings.with_value("prometheus", args.prometheus.strip(), "flag --prometheus")
    for key, flag in (("conf", "--conf"), ("keyring", "--keyring"), ("cluster", "--cluster"),
                      ("mon_host", "--mon-host")):
        if getattr(args, key):
            settings = settings.with_value(f"connection.{key}", getattr(args, key), f"flag {flag}")
    if args.id or args.name:  # who to connect as is one setting: a flag replaces the profile's id or name
        settings = settings.with_value("connection.id", args.id, f"flag {'--id' if args.id else '--name'}")
        settings = settings.with_value("connection.name", args.name, f"flag {'--id' if args.id else '--name'}")
    command = getattr(BY_NAME[args.command].load(), "settings", None) if args.command else None
    return command(parser, args, settings) if command is not None else settings


def _stdout_gone() -> None:
    """The reader of our stdout left (`cephtui config | head -1`): point stdout at /dev/null so the
    interpreter's last flush does not print a BrokenPipeError either."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Every command; a closed stdout (`| head -1`) ends it quietly, status 0, for all of them at once."""
    try:
        code = _main(argv)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        _stdout_gone()
        return 0


def _main(argv: Sequence[str] | None = None) -> int:
    raw = split_ceph_args(os.environ.get("CEPH_ARGS")) + list(sys.argv[1:] if argv is None else argv)
    parser, args, extra = parse_command_line(raw)
    command = BY_NAME[args.command].load() if args.command else None  # None: the TUI
    early = getattr(command, "early", None)
    if early is not None and (code := early(args)) is not None:
        return int(code)
    try:
        settings = effective_settings(parser, args)
    except ConfigError as e:
        print(f"cephtui: {e}", file=sys.stderr)
        return 2
    inv = Invocation(parser, args, settings, spec_from_args(args, extra, settings.connection), extra)
    if command is not None and not getattr(command, "CONNECTS", True):
        return int(command.run(inv))
    if command is None:
        HANGUP.install()
    else:
        from cephtui import typeahead

        typeahead.release()  # a command that is not the TUI reads the terminal in its own modes
        check = getattr(command, "check", None)
        if check is not None:
            check(inv)
    read_only = settings.read_only
    client = CephClient(inv.spec, read_only=read_only)
    try:
        client.connect()
    except CephError as e:
        print(f"cephtui: {e.message}", file=sys.stderr)
        return 1
    try:
        if command is not None:
            skew = client.release_skew()
            if skew:
                print(f"cephtui: note: {skew}", file=sys.stderr)
            inv.client = client
            return int(command.run(inv))
        source = settings.source("read_only")
        why = (f"read_only = true in {settings.path} ({source}); --read-write overrides it"
               if read_only and not source.startswith("flag") else "")
        return run_tui(client, inv.spec, settings.refresh, settings.osd_stop_cmd, read_only=read_only,
                       prometheus=settings.prometheus,
                       theme=settings.theme, bench_defaults=settings.bench, read_only_why=why,
                       config_file=settings.path)
    except CephError as e:
        print(f"cephtui: {e.prefix + ': ' if e.prefix else ''}{e.message}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    finally:
        client.close()
