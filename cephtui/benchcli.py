"""`cephtui bench`: the Bench tab's engine without a terminal UI, printing like `rados bench`."""
from __future__ import annotations

import argparse
import json
import sys
import threading
from typing import Any, TextIO

from cephtui.ceph import ops
from cephtui.ceph.bench.diagnosis import write_refusal
from cephtui.ceph.bench.engine import BenchEngine, run_bench
from cephtui.ceph.bench.history import BenchHistory
from cephtui.ceph.bench.params import LATENCY_PRESET, BenchError, BenchParams, parse_size
from cephtui.ceph.bench.pool import (
    bench_operation,
    explain_temp_pool_refusal,
    temp_pool_create_ops,
    temp_pool_delete_op,
    temp_pool_name,
    temp_pool_pg_num,
)
from cephtui.ceph.bench.results import BenchResult, Sample
from cephtui.ceph.client import CephClient, CephError, ConnectionSpec


def params_from_args(args: argparse.Namespace, pool: str) -> BenchParams:
    """The run's parameters from `cephtui bench`'s options, already filled from the config's [bench]
    defaults where the command line left them out (cli.bench_args)."""
    op_size = parse_size(args.block_size)
    threads = args.threads
    if args.latency:
        op_size, threads = LATENCY_PRESET["op_size"], LATENCY_PRESET["threads"]
    return BenchParams(pool=pool, mode=args.mode, seconds=args.seconds, threads=threads, op_size=op_size,
                       object_size=parse_size(args.object_size) if args.object_size else 0,
                       run_name=args.run_name, cleanup=args.cleanup is not False, op_timeout=args.op_timeout,
                       verify=not args.no_verify)


def bench_command(client: CephClient, spec: ConnectionSpec, args: argparse.Namespace) -> int:
    err = sys.stderr
    audit = ops.AuditLog(cluster=client.fsid(), entity=spec.name)
    pool = args.pool or ""
    temp = bool(args.temp_pool)
    if args.mode == "cleanup":
        return _cleanup(spec, args, audit)
    try:
        if temp:
            if args.mode != "write":
                raise BenchError("a temporary pool is empty: reads need a write first, in a pool that stays")
            pool = temp_pool_name()
        params = params_from_args(args, pool)
    except (BenchError, ValueError) as e:
        print(f"cephtui bench: {e}", file=err)
        return 2
    if temp and args.mode == "write":
        # A full cluster: refuse before creating the pool, not after (the engine would refuse then).
        refusal = write_refusal(client.mon("osd dump"), None)
        if refusal:
            print(f"cephtui bench: {refusal}", file=err)
            return 1
    if temp:
        osds = client.mon("osd stat")
        pg_num = temp_pool_pg_num(int((osds or {}).get("num_in_osds", 1)))
        for op in temp_pool_create_ops(pool, pg_num):
            print(f"+ {op.cli}", file=err)
            try:
                ops.run(client, op, audit)
            except CephError as e:
                print(f"cephtui bench: {e.message}", file=err)
                hint = explain_temp_pool_refusal(e.message)
                if hint:
                    print(hint, file=err)
                _delete_temp(client, pool, audit, err)
                return 1
    try:
        result = _run(spec, params, quiet=args.json, out=err)
    except BenchError as e:
        print(f"cephtui bench: {e}", file=err)
        if temp:
            _delete_temp(client, pool, audit, err)
        return 1
    if temp:
        _delete_temp(client, pool, audit, err)
    audit.record(bench_operation(params), result.ok, result.error or summary_line(result))
    if not args.no_save:
        try:
            BenchHistory().append(result)
        except OSError as e:
            print(f"cephtui bench: could not save the run to the history: {e}", file=err)
    if args.json:
        json.dump(result.to_dict(), sys.stdout, indent=2, default=str)
        print()
    else:
        print_summary(result, sys.stdout)
    return 0 if result.ok else 1


def _cleanup(spec: ConnectionSpec, args: argparse.Namespace, audit: ops.AuditLog) -> int:
    """`rados -p P cleanup [--run-name N]`: removes what a write (ours or native) left behind."""
    from cephtui.ceph.bench.engine import BenchSession
    from cephtui.ceph.bench.params import DEFAULT_METADATA
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


def _delete_temp(client: CephClient, pool: str, audit: ops.AuditLog, err: TextIO) -> None:
    op = temp_pool_delete_op(pool)
    print(f"+ {op.cli}", file=err)
    try:
        ops.run(client, op, audit)
    except CephError as e:
        if e.errno == 2:  # ENOENT: it was never created
            return
        print(f"cephtui bench: {e.message}", file=err)
        hint = explain_temp_pool_refusal(e.message)
        if hint:
            print(hint, file=err)


def _run(spec: ConnectionSpec, params: BenchParams, *, quiet: bool, out: TextIO) -> BenchResult:
    """Run in a thread so Ctrl-C stops the engine (partial results) instead of killing it mid-op."""
    box: dict[str, Any] = {}
    engine_box: list[BenchEngine] = []

    def on_sample(s: Sample) -> None:
        if not quiet:
            if s.sec == 1:
                print(f"{'sec':>5} {'Cur ops':>7} {'finished':>9} {'cur MiB/s':>10} {'avg lat(s)':>11} "
                      f"{'max lat(s)':>11}", file=out)
            print(f"{s.sec:>5} {s.in_flight:>7} {s.finished:>9} {s.mib_s:>10.2f} {s.avg_lat:>11.6f} "
                  f"{s.max_lat:>11.6f}", file=out, flush=True)

    def target() -> None:
        try:
            box["result"] = run_bench(spec, params, on_start=engine_box.append, on_sample=on_sample)
        except BaseException as e:  # handed to the main thread
            box["error"] = e

    if not quiet:
        print(f"+ {params.cli()}", file=out)
    t = threading.Thread(target=target, name="bench", daemon=True)
    t.start()
    while t.is_alive():
        try:
            t.join(0.2)
        except KeyboardInterrupt:
            if engine_box:
                print("stopping: waiting for the ops in flight…", file=out)
                engine_box[0].stop()
    if "error" in box:
        raise box["error"]
    return box["result"]


def summary_line(r: BenchResult) -> str:
    return (f"{r.params.mode} {r.ops} ops in {r.total_time_run:.2f}s: {r.bandwidth:.2f} MiB/s, "
            f"{r.average_iops:.0f} IOPS, avg lat {r.average_latency * 1000:.2f} ms, "
            f"p99 {r.latency_p99 * 1000:.2f} ms")


def summary_lines(r: BenchResult) -> list[tuple[str, str]]:
    """The `rados bench` summary, field for field, plus percentiles and failures."""
    what = "writes" if r.params.mode == "write" else "reads"
    size = "Write size" if r.params.mode == "write" else "Read size"
    rows = [
        ("Total time run", f"{r.total_time_run:.4f}"),
        (f"Total {what} made", str(r.ops)),
        (size, str(r.op_size)),
        ("Object size", str(r.object_size)),
        ("Bandwidth (MB/sec)", f"{r.bandwidth:.3f}"),
        ("Stddev Bandwidth", f"{r.stddev_bandwidth:.4f}"),
        ("Max bandwidth (MB/sec)", f"{r.max_bandwidth:.3f}"),
        ("Min bandwidth (MB/sec)", f"{r.min_bandwidth:.3f}"),
        ("Average IOPS", f"{int(r.average_iops)}"),
        ("Stddev IOPS", f"{r.stddev_iops:.4f}"),
        ("Max IOPS", str(r.max_iops)),
        ("Min IOPS", str(r.min_iops)),
        ("Average Latency(s)", f"{r.average_latency:.6f}"),
        ("Stddev Latency(s)", f"{r.stddev_latency:.6f}"),
        ("Max latency(s)", f"{r.max_latency:.6f}"),
        ("Min latency(s)", f"{r.min_latency:.6f}"),
        ("Latency p50/p95/p99(s)", f"{r.latency_p50:.6f} / {r.latency_p95:.6f} / {r.latency_p99:.6f}"),
    ]
    if r.failed_ops:
        rows.append(("Failed ops", str(r.failed_ops)))
    if r.verify_errors:
        rows.append(("Contents not correct", str(r.verify_errors)))
    return rows


def print_summary(r: BenchResult, out: TextIO) -> None:
    for label, value in summary_lines(r):
        print(f"{label + ':':<24}{value}", file=out)
    if r.stopped:
        print("Stopped early: partial results.", file=out)
    if r.cleanup_note:
        print(f"Cleanup: {r.cleanup_note}", file=out)
    if r.error:
        print(f"ERROR: {r.error}", file=out)
