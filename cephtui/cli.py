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
it; `cephtui COMMAND --help` shows that command's. Every token is checked first (cliargs.py): an unknown
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
import json
import os
import signal
import sys
import threading
from collections.abc import Sequence
from typing import Any

from cephtui import __version__
from cephtui.ceph.bench.params import MODES, BenchError, parse_size
from cephtui.ceph.client import CephClient, CephConnectError, CephError, ConnectionSpec, split_ceph_args
from cephtui.ceph.format import human_bytes, human_rate
from cephtui.ceph.releases import local_release
from cephtui.cliargs import LibradosOptions, UsageError, split_argv
from cephtui.config.example import EXAMPLE
from cephtui.config.load import load_config
from cephtui.config.model import MIN_REFRESH, ConfigError, Connection, Settings
from cephtui.config.schema import check_prometheus_url, check_stop_cmd
from cephtui.paths import config_path
from cephtui.rbdargs import add_rbd_arguments, rbd_only_options, rbd_usage_error

COMMANDS = ("snapshot", "bench", "config", "remove", "rbd", "doctor", "record")
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

    def command(name: str, help: str, description: str) -> argparse.ArgumentParser:
        """A COMMAND's own parser (no abbreviated options, as the top level), kept in `cmds` by name."""
        cmds[name] = sub.add_parser(name, allow_abbrev=False, help=help, description=description)
        return cmds[name]

    snap = command("snapshot", help="print the current cluster snapshot and exit",
                   description="Print the current cluster snapshot and exit.")
    snap.add_argument("--json", action="store_true", help="print JSON, for scripts")
    snap.add_argument("--pg-table", action="store_true", help="include every PG (pgs_brief)")

    b = command("bench", help="run the benchmark headless and print its summary",
                description="The Bench tab's engine, headless, with the semantics of `rados bench`. Options left "
                            "out come from the config file's [bench].")
    b.add_argument("--pool", "-p", help="pool to benchmark (or --temp-pool)")
    b.add_argument("--seconds", type=float, metavar="S", help="run time (default: 10)")
    b.add_argument("--mode", choices=["write", "seq", "rand", "cleanup"],
                   help="write, or seq/rand reads of objects a write left with --no-cleanup, or cleanup: remove "
                        "them like `rados cleanup` (default: write)")
    b.add_argument("--threads", "-t", type=int, metavar="N", help="concurrent ops (default: 16)")
    b.add_argument("--block-size", "-b", metavar="B", help="op size: bytes or 4K, 4M (default: 4M)")
    b.add_argument("--object-size", "-O", metavar="B", help="object size (default: the op size)")
    b.add_argument("--run-name", default="", metavar="NAME",
                   help="metadata object name (default: benchmark_last_metadata), as rados bench --run-name")
    b.add_argument("--cleanup", action=argparse.BooleanOptionalAction,
                   help="remove the written objects afterwards (default), or keep them for seq/rand reads")
    b.add_argument("--op-timeout", type=float, metavar="S",
                   help="an op without a reply for S seconds ends the run with an error (default: 30)")
    b.add_argument("--latency", action="store_true",
                   help="the latency probe: random 4 KiB writes, then random reads, one op in flight, --seconds "
                        "each (what a VM with cache=none feels), held against the network's floor (the round "
                        "trip to the pool's OSDs, measured then), with words on where the time goes")
    b.add_argument("--temp-pool", action="store_true",
                   help="create a size-1 pool for the run and delete it afterwards")
    b.add_argument("--no-verify", action="store_true", help="reads: do not check the contents")
    b.add_argument("--no-save", action="store_true", help="do not add the run to the bench history")
    b.add_argument("--json", action="store_true", help="print the result as JSON")
    b.add_argument("kind", nargs="?", choices=["rbd"], metavar="rbd",
                   help="`bench rbd`: benchmark a block device image, with the semantics of `rbd bench` (the "
                        "options below); without it, a RADOS pool as `rados bench`")
    add_rbd_arguments(b.add_argument_group("block mode (bench rbd)"))

    c = command("config", help="print the effective settings and where each came from",
                description="Print the effective settings and where each came from (file, profile, flag, "
                            "default); never connects.")
    c.add_argument("--example", action="store_true", help="print a commented example config file")
    c.add_argument("--json", action="store_true", help="print JSON")

    d = command("doctor", help="explain every raised health check and how to fix it",
                description="Every raised health check with what it means, what it names on this cluster "
                            "(OSDs, hosts, pools, PGs) and the commands that fix it. Read-only. Exit status: 0 "
                            "healthy (or only muted checks), 3 a warning, 4 an error; 1 cannot connect, 2 usage.")
    d.add_argument("--json", action="store_true", help="print JSON, for scripts and tickets")
    d.add_argument("--muted", action="store_true", help="also explain muted checks")
    d.add_argument("--window", type=float, metavar="S",
                   help="fail-slow (OSDs far slower than their peers): seconds of `osd perf` to sample when no "
                        "recorder has been writing history (default: 30; 0 skips the ranking)")

    h = command("record", help="keep the cluster's history while nobody has the UI open",
                description="Record what the UI's history shows (cluster IO and recovery, PG states, health "
                            "checks raised and cleared, the cluster log, per-OSD latency and usage, per-pool IO) "
                            "every 5 s into $CEPHTUI_DATA_DIR/history/FSID.sqlite (else "
                            "$XDG_DATA_HOME/cephtui/history), until SIGTERM or Ctrl-C. Read-only on the "
                            "cluster. Safe beside an open UI or another recorder on the same file: a 5-s "
                            "interval is recorded once. Exit status: 0 stopped; 1 cannot connect or cannot "
                            "write the history file.")
    h.add_argument("--once", action="store_true", help="record one sample and exit (for a cron job)")
    h.add_argument("--quiet", action="store_true", help="print only errors")

    r = command("remove", help="remove or replace OSDs headless, resumable",
                description="The OSDs tab's removal wizard, headless; its state in the cluster's queue.")
    from cephtui.removecli import add_arguments
    add_arguments(r)

    i = command("rbd", help="list RBD images with their details (rbd ls -l, du, status), headless",
                description="`rbd ls`: the Images tab's columns for each image (size, used size as `rbd du` says, "
                            "features, object size, data pool, parent, clones, snapshots, watchers). The names "
                            "cost one read per pool; the details cost one open of each image (a handful of OSD "
                            "reads, as `rbd ls -l`), read 8 at a time: 10,000 images took about 20 s on a 3-OSD test "
                            "cluster, as long as `rbd ls -l` (scripts/bench_images_scale.py). "
                            "Read-only. Exit status: 0 listed; 1 cannot connect, python3-rbd missing, or the pool "
                            "given cannot be listed; 2 usage; 3 listed, but some images could not be read.")
    from cephtui.rbdcli import add_arguments as add_rbd_ls_arguments
    add_rbd_ls_arguments(i)
    return p, cmds


def build_parser() -> argparse.ArgumentParser:
    return build_parsers()[0]


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
    if args.command == "remove":  # its --osd-stop-cmd, or the global one (both: the same, or refused)
        mine = args.remove_osd_stop_cmd
        if mine is not None and args.osd_stop_cmd is not None and mine != args.osd_stop_cmd:
            raise usage_exit("--osd-stop-cmd given twice, differently (before and after `remove`)")
        args.osd_stop_cmd = mine if mine is not None else args.osd_stop_cmd
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
    if args.command != "bench":
        return settings
    bench_flags: list[tuple[str, str, Any]] = [
        ("pool", "--pool", args.pool), ("seconds", "--seconds", args.seconds), ("threads", "--threads", args.threads),
        ("op_timeout", "--op-timeout", args.op_timeout), ("cleanup", "--cleanup" if args.cleanup else "--no-cleanup",
                                                          args.cleanup),
        ("mode", "--mode", args.mode if args.mode in MODES else None)]
    for key, flag, text in (("block_size", "--block-size", args.block_size),
                            ("object_size", "--object-size", args.object_size)):
        if text is not None and (text.strip() or key == "block_size"):
            try:
                bench_flags.append((key, flag, parse_size(text)))
            except BenchError as e:
                parser.error(f"{flag}: {e}")
    for key, flag, value in bench_flags:
        if value is not None:
            settings = settings.with_value(f"bench.{key}", value, f"flag {flag}")
    return settings


def bench_args(args: argparse.Namespace, settings: Settings) -> argparse.Namespace:
    """`cephtui bench`'s options with what the command line left out filled from the settings."""
    b = settings.bench
    return argparse.Namespace(**{
        **vars(args), "pool": args.pool or b.pool or None, "seconds": b.seconds, "threads": b.threads,
        "block_size": b.block_size, "object_size": b.object_size, "op_timeout": b.op_timeout,
        "cleanup": b.cleanup, "mode": args.mode or b.mode, "read_only": settings.read_only})


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
    if args.command == "config" and args.example:
        sys.stdout.write(EXAMPLE)
        return 0
    try:
        settings = effective_settings(parser, args)
    except ConfigError as e:
        print(f"cephtui: {e}", file=sys.stderr)
        return 2
    spec = spec_from_args(args, extra, settings.connection)
    if args.command == "config":
        return config_command(settings, spec, extra, as_json=args.json)
    read_only = settings.read_only
    if args.command is None:
        _HANGUP.install()
    else:
        from cephtui import typeahead

        typeahead.release()  # a command that is not the TUI reads the terminal in its own modes
    if args.command == "doctor" and args.window is not None and not 0 <= args.window <= 3600:
        parser.error("doctor --window takes seconds from 0 (skip the fail-slow ranking) to 3600")
    if args.command == "bench" and args.kind == "rbd":
        problem = rbd_usage_error(args, read_only, settings.source("read_only"))
        if problem:
            parser.error(problem)
        args.pool = args.pool or settings.bench.pool or None
    elif args.command == "bench":
        stray = rbd_only_options(args)
        if stray:
            parser.error(f"{stray} belongs to the block mode: `cephtui bench rbd {stray} ...`")
        args = bench_args(args, settings)
        if not (args.pool or args.temp_pool):
            parser.error("bench needs --pool P (or --temp-pool, or pool in the config's [bench])")
        if read_only and (args.mode in ("write", "cleanup") or args.temp_pool or args.latency):
            source = settings.source("read_only")
            why = "" if source.startswith("flag") else f" (read-only is set by the config, {source}; " \
                                                       "--read-write overrides it)"
            what = "--latency" if args.latency else f"--mode {args.mode}{' --temp-pool' if args.temp_pool else ''}"
            parser.error(f"bench {what} writes to the cluster; "
                         f"not with --read-only (seq and rand reads of existing objects are fine){why}")
    client = CephClient(spec, read_only=read_only)
    try:
        client.connect()
    except CephError as e:
        print(f"cephtui: {e.message}", file=sys.stderr)
        return 1
    try:
        if args.command is not None:
            skew = client.release_skew()
            if skew:
                print(f"cephtui: note: {skew}", file=sys.stderr)
        if args.command == "snapshot":
            return snapshot_command(client, as_json=args.json, pg_table=args.pg_table)
        if args.command == "bench" and args.kind == "rbd":
            from cephtui.benchcli import rbd_bench_command
            return rbd_bench_command(client, spec, args, read_only=read_only)
        if args.command == "bench":
            from cephtui.benchcli import bench_command
            return bench_command(client, spec, args)
        if args.command == "doctor":
            from cephtui.doctorcli import doctor_command
            return doctor_command(client, args)
        if args.command == "record":
            from cephtui.recordcli import record_command
            return record_command(client, args)
        if args.command == "rbd":
            from cephtui.rbdcli import rbd_command
            return rbd_command(client, args)
        if args.command == "remove":
            from cephtui.removecli import remove_command
            return remove_command(client, spec, args, settings.osd_stop_cmd, read_only=read_only)
        source = settings.source("read_only")
        why = (f"read_only = true in {settings.path} ({source}); --read-write overrides it"
               if read_only and not source.startswith("flag") else "")
        return run_tui(client, spec, settings.refresh, settings.osd_stop_cmd, read_only=read_only,
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


def config_command(settings: Settings, spec: ConnectionSpec, extra: Sequence[str], *, as_json: bool = False) -> int:
    """`cephtui config`: the effective settings, each with where it came from; never connects."""
    conf_source = settings.source("connection.conf")
    try:
        conffile: str | None = spec.conffile_to_read() or None
        no_file = "none: -m/--mon-host given and no config file" if conffile is None else ""
    except CephConnectError:
        conffile, no_file = spec.resolved_conffile(), ""
    effective = {  # what the connection will actually use where nothing set it
        "connection.conf": (conffile, no_file or (conf_source if settings.connection.conf or
                            conf_source.startswith("flag") else
                            ("default ($CEPH_CONF)" if os.environ.get("CEPH_CONF") else "default"))),
        "connection.name": (spec.name, settings.source("connection.name")
                            if settings.connection.name else settings.source("connection.id")),
        "connection.cluster": (spec.cluster, settings.source("connection.cluster")),
    }
    shown = {key: text for key, text, _ in settings.rows()}
    table: list[tuple[str, Any, str, str]] = []  # key, value, as shown, source
    for key, value, source in settings.items():
        if key == "connection.id":
            continue  # folded into connection.name: the entity actually used
        if key in effective:
            value, source = effective[key]
            shown[key] = json.dumps(value)
        table.append((key, value, shown[key], source))
    if extra:
        table.append(("librados arguments", list(extra), " ".join(extra), "flags (command line or CEPH_ARGS)"))
    if as_json:
        json.dump({"file": settings.path, "file_source": settings.path_source, "profiles": list(settings.profiles),
                   "settings": {k: {"value": v, "source": src} for k, v, _, src in table}}, sys.stdout, indent=2)
        print()
        return 0
    if settings.path:
        how = {"--config": "from --config", "$CEPHTUI_CONFIG": "from $CEPHTUI_CONFIG"}.get(settings.path_source,
                                                                                           "the default location")
        print(f"config file  {settings.path} ({how})")
        print(f"profiles     {', '.join(settings.profiles) or '(none)'}")
    else:
        print(f"config file  none ({config_path()[0]} does not exist): built-in defaults and flags")
    print()
    width = max(len(k) for k, _, _, _ in table)
    vwidth = min(40, max(len(text) for _, _, text, _ in table))
    for key, _, text, source in table:
        print(f"{key:<{width}}  {text:<{vwidth}}  {source}")
    return 0


def snapshot_command(client: CephClient, *, as_json: bool, pg_table: bool) -> int:
    from cephtui.ceph.snapshot.builder import SnapshotBuilder

    snap = SnapshotBuilder(client).build(pg_table=pg_table)
    if as_json:
        json.dump(snap.to_json(), sys.stdout, indent=2)
        print()
        return 0
    h, o, c = snap.health, snap.osds, snap.capacity
    print(f"cluster {snap.fsid}")
    print(f"health  {h.status}")
    for chk in h.checks:
        muted = " (muted)" if chk.muted else ""
        print(f"        [{chk.severity.removeprefix('HEALTH_')}] {chk.code}: {chk.summary}{muted}")
    print(f"mon     {len(snap.mons.quorum)}/{len(snap.mons.names)} in quorum ({', '.join(snap.mons.quorum)})")
    print(f"mgr     {snap.mgr.active or 'none'}{' (active)' if snap.mgr.available else ' (NOT available)'}, "
          f"{len(snap.mgr.standbys)} standby")
    print(f"osd     {o.total} osds: {o.up} up, {o.in_} in")
    print(f"pgs     {snap.pgs.num_pgs} pgs: " + ", ".join(f"{s.count} {s.state}" for s in snap.pgs.by_state))
    print(f"usage   {human_bytes(c.used)} used, {human_bytes(c.avail)} / {human_bytes(c.total)} avail "
          f"({c.ratio * 100:.1f}%)")
    io = snap.io
    print(f"io      client {human_rate(io.read_bps)} rd, {human_rate(io.write_bps)} wr, "
          f"{io.read_ops} op/s rd, {io.write_ops} op/s wr")
    for note in snap.notes:
        print(f"note    {note}")
    return 0


def run_tui(client: CephClient, spec: ConnectionSpec, refresh: float, osd_stop_cmd: str = "",
            read_only: bool = False, theme: str | None = None, bench_defaults: Any = None,
            read_only_why: str = "", config_file: str | None = None, prometheus: str = "") -> int:
    from cephtui.ceph.secrets import log_to_file
    from cephtui.ui.app import CephTUI

    log_to_file()  # errors the UI summarises ("see the log") land here, secrets masked
    app = CephTUI(client=client, refresh=refresh, cluster=spec.cluster, osd_stop_cmd=osd_stop_cmd,
                  read_only=read_only, theme=theme, bench_defaults=bench_defaults, read_only_why=read_only_why,
                  config_file=config_file, prometheus=prometheus)
    skew = client.release_skew()
    if skew:
        app.startup_notes.append(skew)
    _HANGUP.app = app
    try:
        app.run()
    finally:
        # Whatever ended the app (q, ctrl+q, an error): a removal it drove is paused in the cluster's queue, not
        # left `running` with nothing driving it. The UI is gone, so waiting on the cluster here blocks nobody.
        app.pause_driven_removals("cephtui ended")
    return 0


class _Hangup:
    """Quit when the terminal goes away (a dropped ssh session), or on SIGTERM.

    Textual keeps running after a hangup: its writer thread dies on the dead
    terminal and the UI thread then waits forever on a full output queue. A
    Python signal handler would never run there (the signal lands in some other
    thread while the main one is stuck in a lock), so SIGHUP and SIGTERM are
    blocked in every thread from the start and one watcher thread waits for
    them: it pauses any removal this cephtui drives (saved in the cluster's
    queue, as `cephtui remove` does on SIGTERM), asks the app to exit and, if
    that has not happened within two seconds, ends the process. After a hangup
    there is no terminal left to restore; after SIGTERM the app restores it.
    """

    app: Any = None
    SIGNALS = frozenset({signal.SIGHUP, signal.SIGTERM})

    def install(self) -> None:
        # Before librados starts its threads: they inherit the blocked mask.
        signal.pthread_sigmask(signal.SIG_BLOCK, self.SIGNALS)
        threading.Thread(target=self._watch, name="sighup-watcher", daemon=True).start()

    def _watch(self) -> None:
        signum = signal.sigwait(self.SIGNALS)
        if signum == signal.SIGHUP:
            # The terminal is gone (or going): what is still written to it, down to the interpreter's
            # last flush of stdout, would fail with EIO, and a failed final flush makes Python exit
            # with status 120 (seen on 3.13) instead of ours. Nobody can read it any more.
            try:
                null = os.open(os.devnull, os.O_RDWR)
                for fd in (1, 2):
                    os.dup2(null, fd)
                os.close(null)
            except OSError:
                pass
        if self.app is not None:
            try:  # before the exit timer: the pause is bounded by the client's own op timeouts
                self.app.pause_driven_removals(f"cephtui got {signal.Signals(signum).name}")
            except Exception:
                pass
        timer = threading.Timer(2.0, os._exit, args=(128 + signum,))
        timer.daemon = True
        timer.start()
        if self.app is not None:
            try:
                self.app.call_from_thread(self.app.exit)
            except Exception:
                pass
        else:
            os._exit(128 + signum)


_HANGUP = _Hangup()
