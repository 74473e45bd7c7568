"""`cephtui bench`: the Bench tab's RADOS engine without a terminal UI, printing like `rados bench` (and
`--latency`, the latency probe); `cephtui bench rbd` is its block mode (cephtui/cli/bench_rbd.py)."""
from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any, TextIO

from cephtui.ceph import ops
from cephtui.ceph.bench.params import DEFAULT_METADATA, MODES, BenchError, BenchParams, parse_size
from cephtui.ceph.cluster import Cluster
from cephtui.ceph.connection import ConnectionSpec
from cephtui.cli import bench_rbd
from cephtui.cli.running import run_and_report, run_probe
from cephtui.cli.table import Invocation
from cephtui.config.model import Settings

if TYPE_CHECKING:  # the engine is imported when a run starts: every start of cephtui builds this parser
    from cephtui.ceph.bench.results import BenchResult, Sample

HELP = "run the benchmark headless and print its summary"
DESCRIPTION = ("The Bench tab's engine, headless, with the semantics of `rados bench`. Options left out come from "
               "the config file's [bench].")


def add_arguments(b: argparse.ArgumentParser) -> None:
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
    bench_rbd.add_rbd_arguments(b.add_argument_group("block mode (bench rbd)"))


def settings(parser: argparse.ArgumentParser, args: argparse.Namespace, settings: Settings) -> Settings:
    """The [bench] settings with bench's flags over them (the Bench tab's defaults are the same settings)."""
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


def check(inv: Invocation) -> None:
    """What the command line asks must make sense before connecting: a mode's options in that mode, a pool,
    and nothing that writes under --read-only."""
    parser, args, settings = inv.parser, inv.args, inv.settings
    if args.kind == "rbd":
        bench_rbd.check(inv)
        return
    stray = bench_rbd.rbd_only_options(args)
    if stray:
        parser.error(f"{stray} belongs to the block mode: `cephtui bench rbd {stray} ...`")
    inv.args = args = bench_args(args, settings)
    if not (args.pool or args.temp_pool):
        parser.error("bench needs --pool P (or --temp-pool, or pool in the config's [bench])")
    if settings.read_only and (args.mode in ("write", "cleanup") or args.temp_pool or args.latency):
        source = settings.source("read_only")
        why = "" if source.startswith("flag") else f" (read-only is set by the config, {source}; " \
                                                   "--read-write overrides it)"
        what = "--latency" if args.latency else f"--mode {args.mode}{' --temp-pool' if args.temp_pool else ''}"
        parser.error(f"bench {what} writes to the cluster; "
                     f"not with --read-only (seq and rand reads of existing objects are fine){why}")


def run(inv: Invocation) -> int:
    if inv.args.kind == "rbd":
        return bench_rbd.run(inv)
    return bench_command(inv.client, inv.spec, inv.args)


def params_from_args(args: argparse.Namespace, pool: str) -> BenchParams:
    """The run's parameters from `cephtui bench`'s options, already filled from the config's [bench]
    defaults where the command line left them out (cli.bench_args)."""
    return BenchParams(pool=pool, mode=args.mode, seconds=args.seconds, threads=args.threads,
                       op_size=parse_size(args.block_size),
                       object_size=parse_size(args.object_size) if args.object_size else 0,
                       run_name=args.run_name, cleanup=args.cleanup is not False, op_timeout=args.op_timeout,
                       verify=not args.no_verify)


def bench_command(client: Cluster, spec: ConnectionSpec, args: argparse.Namespace) -> int:
    from cephtui.ceph.bench.history import BenchHistory
    from cephtui.ceph.bench.pool import temp_pool_name
    from cephtui.ceph.bench.service import BenchRun

    err = sys.stderr
    audit = ops.AuditLog(cluster=client.fsid(), entity=spec.name)
    temp = bool(args.temp_pool)
    if args.mode == "cleanup":
        return _cleanup(spec, args, audit)
    if args.latency:
        return latency_command(client, args, audit)
    try:
        if temp and args.mode != "write":
            raise BenchError("a temporary pool is empty: reads need a write first, in a pool that stays")
        params = params_from_args(args, temp_pool_name() if temp else args.pool or "")
    except (BenchError, ValueError) as e:
        print(f"cephtui bench: {e}", file=err)
        return 2

    def step(phase: str, op: ops.Operation) -> None:
        if op.prefix != "rados bench" or not args.json:  # the samples that follow are not printed with --json
            print(f"+ {op.cli}", file=err)

    def sample(s: Sample) -> None:
        if not args.json:
            print_sample(s, err)

    run = BenchRun(client, params, audit, temp=temp, history=None if args.no_save else BenchHistory(),
                   on_step=step, on_sample=sample)
    return run_and_report(run, "cephtui bench", args.json, lambda r: r.to_dict(),
                          lambda r: print_summary(r, sys.stdout))


def latency_command(client: Cluster, args: argparse.Namespace, audit: ops.AuditLog) -> int:
    """`cephtui bench --latency`: the latency probe (random 4 KiB writes, then random reads, one op in flight,
    --seconds each), held against the network's floor; its table and words, or --json."""
    from cephtui.ceph.bench.history import BenchHistory
    from cephtui.ceph.bench.probe import rados_probe

    err = sys.stderr
    if args.temp_pool or not args.pool:
        print("cephtui bench: the latency probe reads back what it wrote, then removes it: give --pool P "
              "(a pool that stays), not --temp-pool", file=err)
        return 2

    def step(phase: str, op: ops.Operation) -> None:
        if op.prefix != "rados bench" or not args.json:
            print(f"+ {op.cli}", file=err)

    def sample(s: Sample) -> None:
        if not args.json:
            print_sample(s, err)

    def phase(text: str) -> None:
        print(f"== {text}", file=err, flush=True)

    try:
        probe, runner = rados_probe(client, args.pool, audit, None if args.no_save else BenchHistory(),
                                    seconds=args.seconds, op_timeout=args.op_timeout, on_phase=phase,
                                    on_step=step, on_sample=sample)
    except BenchError as e:
        print(f"cephtui bench: {e}", file=err)
        return 2
    return run_probe(probe, runner.problems, args.json, "cephtui bench")


def _cleanup(spec: ConnectionSpec, args: argparse.Namespace, audit: ops.AuditLog) -> int:
    """`rados -p P cleanup [--run-name N]`: removes what a write (ours or native) left behind."""
    from cephtui.ceph.bench.engine import BenchSession
    from cephtui.ceph.bench.removal import cleanup_run

    if not args.pool:
        print("cephtui bench: cleanup needs --pool", file=sys.stderr)
        return 2
    cli = f"rados -p {args.pool} cleanup{' --run-name ' + args.run_name if args.run_name else ''}"
    op = ops.Operation(title=f"Remove benchmark objects from pool {args.pool}", prefix="rados cleanup",
                       args=(("pool", args.pool), ("run_name", args.run_name)), cli=cli)
    print(f"+ {cli}", file=sys.stderr)
    try:
        session = BenchSession(spec, args.pool, args.op_timeout)
    except BenchError as e:
        print(f"cephtui bench: {e}", file=sys.stderr)
        return 1
    try:
        removed, failed = cleanup_run(session.io, args.run_name or DEFAULT_METADATA, threads=args.threads,
                                      op_timeout=args.op_timeout)
    except BenchError as e:
        audit.record(op, False, str(e))
        print(f"cephtui bench: {e}", file=sys.stderr)
        return 1
    finally:
        session.close()
    message = f"Removed {removed} objects" + (f", {failed} failed" if failed else "")
    audit.record(op, not failed, message)
    print(message)
    return 0 if not failed else 1


def print_sample(s: Sample, out: TextIO) -> None:
    if s.sec == 1:
        print(f"{'sec':>5} {'Cur ops':>7} {'finished':>9} {'cur MiB/s':>10} {'avg lat(s)':>11} "
              f"{'max lat(s)':>11}", file=out)
    print(f"{s.sec:>5} {s.in_flight:>7} {s.finished:>9} {s.mib_s:>10.2f} {s.avg_lat:>11.6f} "
          f"{s.max_lat:>11.6f}", file=out, flush=True)


def print_summary(r: BenchResult, out: TextIO) -> None:
    from cephtui.ceph.bench.results import summary_lines

    for label, value in summary_lines(r):
        print(f"{label + ':':<24}{value}", file=out)
    if r.stopped:
        print("Stopped early: partial results.", file=out)
    if r.cleanup_note:
        print(f"Cleanup: {r.cleanup_note}", file=out)
    if r.error:
        print(f"ERROR: {r.error}", file=out)


