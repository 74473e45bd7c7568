"""`cephtui bench` and `cephtui bench rbd`: the Bench tab's engines without a terminal UI, printing like
`rados bench` and `rbd bench`."""
from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Callable
from typing import Any, TextIO

from cephtui.ceph import ops
from cephtui.ceph.bench.blockparams import BlockParams
from cephtui.ceph.bench.blockreport import COLUMNS, header, sample_line, total_lines, totals_dict
from cephtui.ceph.bench.engine import BenchSession
from cephtui.ceph.bench.history import BenchHistory
from cephtui.ceph.bench.params import DEFAULT_METADATA, BenchError, BenchParams, parse_size
from cephtui.ceph.bench.pool import temp_pool_name
from cephtui.ceph.bench.probe import LatencyProbe, rados_probe
from cephtui.ceph.bench.probe_result import ProbeResult, write_floor
from cephtui.ceph.bench.rbdengine import RBD_MISSING, rbd_available
from cephtui.ceph.bench.removal import cleanup_run
from cephtui.ceph.bench.results import BenchResult, Sample, summary_lines
from cephtui.ceph.bench.service import BenchRun, RunOutcome, find_temp_leftovers, remove_temp_leftovers
from cephtui.ceph.client import CephClient, CephError, ConnectionSpec


def params_from_args(args: argparse.Namespace, pool: str) -> BenchParams:
    """The run's parameters from `cephtui bench`'s options, already filled from the config's [bench]
    defaults where the command line left them out (cli.bench_args)."""
    return BenchParams(pool=pool, mode=args.mode, seconds=args.seconds, threads=args.threads,
                       op_size=parse_size(args.block_size),
                       object_size=parse_size(args.object_size) if args.object_size else 0,
                       run_name=args.run_name, cleanup=args.cleanup is not False, op_timeout=args.op_timeout,
                       verify=not args.no_verify)


def bench_command(client: CephClient, spec: ConnectionSpec, args: argparse.Namespace) -> int:
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
    outcome = _run(run, err)
    for problem in outcome.problems:
        print(f"cephtui bench: {problem}", file=err)
    result = outcome.result
    if result is None:
        return 1
    if args.json:
        json.dump(result.to_dict(), sys.stdout, indent=2, default=str)
        print()
    else:
        print_summary(result, sys.stdout)
    return 0 if result.ok else 1


def latency_command(client: CephClient, args: argparse.Namespace, audit: ops.AuditLog) -> int:
    """`cephtui bench --latency`: the latency probe (random 4 KiB writes, then random reads, one op in flight,
    --seconds each), held against the network's floor; its table and words, or --json."""
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


def run_probe(probe: LatencyProbe, problems: list[str], as_json: bool, who: str) -> int:
    """Run a latency probe (Ctrl-C stops it), then print its table and words, or its JSON."""
    err = sys.stderr
    result: ProbeResult | None = None
    error: BaseException | None = None
    try:
        result = _in_thread(probe.run, probe.stop, err)
    except BaseException as e:  # said after the problems the runs reported
        error = e
    for problem in problems:
        print(f"{who}: {problem}", file=err)
    if isinstance(error, (BenchError, CephError)):
        print(f"{who}: {getattr(error, 'message', '') or error}", file=err)
        return 1
    if error is not None or result is None:
        raise error or RuntimeError("the probe returned nothing")
    if as_json:
        json.dump({**result.to_dict(), "runs": [r.to_dict() for r in result.results]}, sys.stdout, indent=2,
                  default=str)
        print()
    else:
        print_probe(result, sys.stdout)
    done = result.read is not None and not result.read.error and not result.write.error
    return 0 if done else 1


def block_latency_command(client: CephClient, args: argparse.Namespace, audit: ops.AuditLog,
                          read_only: bool) -> int:
    """`cephtui bench rbd --latency`: the latency probe on an image (or a temporary one), --seconds each way."""
    err = sys.stderr
    image = args.image or ""
    if image and args.yes_i_really_mean_it != image:
        print(f"cephtui bench rbd: the latency probe writes to image {args.pool}/{image} and destroys data there: "
              f"confirm with --yes-i-really-mean-it {image}, or leave --image out for a temporary image", file=err)
        return 2

    def step(phase: str, op: ops.Operation) -> None:
        print(f"+ {op.cli}", file=err)

    def phase(text: str) -> None:
        print(f"== {text}", file=err, flush=True)

    from cephtui.ceph.bench.blockprobe import block_probe
    try:
        probe, runner = block_probe(client, args.pool, audit, None if args.no_save else BenchHistory(),
                                    image=image, confirmed_image=args.yes_i_really_mean_it or "",
                                    cache=args.cache or "off", seconds=args.seconds or 10.0,
                                    op_timeout=args.op_timeout or 30.0, read_only=read_only, on_phase=phase,
                                    on_step=step)
    except BenchError as e:
        print(f"cephtui bench rbd: {e}", file=err)
        return 2
    return run_probe(probe, runner.problems, args.json, "cephtui bench rbd")


def print_probe(r: ProbeResult, out: TextIO) -> None:
    """The probe's table (milliseconds; IOPS one op in flight allows), then its words."""
    print(f"{'':<8}{'p50':>10}{'p99':>10}{'p99.9':>10}{'max':>10}{'IOPS@p50':>10}{'IOPS@mean':>11}"
          f"{'net floor':>10}", file=out)
    for d, floor in ((r.write, write_floor(r.floor, r.shape)), (r.read, r.floor.client_rtt)):
        if d is None:
            continue
        print(f"{d.name:<8}" + "".join(f"{v * 1000:>10.3f}" for v in (d.p50, d.p99, d.p999, d.max))
              + f"{d.iops_p50:>10.0f}{d.iops_mean:>11.0f}{floor * 1000:>10.3f}", file=out)
    print("(in ms; net floor: the network's part alone, the network floor the words below hold each op "
          "against)", file=out)
    print(file=out)
    for line in r.words:
        print(line, file=out)


def _cleanup(spec: ConnectionSpec, args: argparse.Namespace, audit: ops.AuditLog) -> int:
    """`rados -p P cleanup [--run-name N]`: removes what a write (ours or native) left behind."""
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


def _run(run: BenchRun, out: TextIO) -> RunOutcome:
    """Run in a thread so Ctrl-C stops the run (partial results, the temporary pool deleted) instead of
    killing it mid-op."""
    outcome: RunOutcome = _in_thread(run.run, run.stop, out)
    return outcome


def _in_thread(fn: Callable[[], Any], stop: Callable[[], None], out: TextIO) -> Any:
    """`fn()` in a thread (Ctrl-C calls `stop()`); its result, or its exception raised here."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = fn()
        except BaseException as e:  # handed to the main thread
            box["error"] = e

    _wait(target, stop, out)
    if "error" in box:
        raise box["error"]
    return box["result"]


def _wait(target: Any, stop: Any, out: TextIO) -> None:
    """`target()` in a thread; Ctrl-C calls `stop()` (the ops in flight finish) instead of killing it mid-op."""
    t = threading.Thread(target=target, name="bench", daemon=True)
    t.start()
    while t.is_alive():
        try:
            t.join(0.2)
        except KeyboardInterrupt:
            print("stopping: waiting for the ops in flight…", file=out)
            stop()


def print_sample(s: Sample, out: TextIO) -> None:
    if s.sec == 1:
        print(f"{'sec':>5} {'Cur ops':>7} {'finished':>9} {'cur MiB/s':>10} {'avg lat(s)':>11} "
              f"{'max lat(s)':>11}", file=out)
    print(f"{s.sec:>5} {s.in_flight:>7} {s.finished:>9} {s.mib_s:>10.2f} {s.avg_lat:>11.6f} "
          f"{s.max_lat:>11.6f}", file=out, flush=True)


def print_summary(r: BenchResult, out: TextIO) -> None:
    for label, value in summary_lines(r):
        print(f"{label + ':':<24}{value}", file=out)
    if r.stopped:
        print("Stopped early: partial results.", file=out)
    if r.cleanup_note:
        print(f"Cleanup: {r.cleanup_note}", file=out)
    if r.error:
        print(f"ERROR: {r.error}", file=out)


# ---- `cephtui bench rbd`
def block_params_from_args(args: argparse.Namespace) -> BlockParams:
    """The block run's parameters from `cephtui bench rbd`'s options, with rbd bench's defaults."""
    def size(text: str | None, default: int) -> int:
        return parse_size(text) if text is not None else default
    d = BlockParams(pool="-", image="-")  # the defaults, from the one place that holds them
    return BlockParams(
        pool=args.pool or "", image=args.image or "", temp_image_size=size(args.temp_image, 0),
        io_type=args.io_type or d.io_type, io_size=size(args.io_size, d.io_size),
        io_threads=args.io_threads if args.io_threads is not None else d.io_threads,
        io_total=size(args.io_total, d.io_total), io_pattern=args.io_pattern or d.io_pattern,
        rw_mix_read=args.rw_mix_read if args.rw_mix_read is not None else d.rw_mix_read,
        seconds=args.seconds or 0.0, cache=args.cache or d.cache,
        op_timeout=args.op_timeout if args.op_timeout is not None else d.op_timeout)


def rbd_bench_command(client: CephClient, spec: ConnectionSpec, args: argparse.Namespace, *,
                      read_only: bool = False) -> int:
    err = sys.stderr
    if not rbd_available():  # only the block mode needs python3-rbd
        print(f"cephtui bench rbd: {RBD_MISSING}", file=err)
        return 1
    audit = ops.AuditLog(cluster=client.fsid(), entity=spec.name)
    if not args.pool:
        print("cephtui bench rbd: needs --pool P (or pool in the config's [bench])", file=err)
        return 2
    if args.cleanup_temp:
        return _cleanup_temp(spec, args.pool, audit)
    if args.latency:
        return block_latency_command(client, args, audit, read_only)
    try:
        params = block_params_from_args(args)
    except (BenchError, ValueError) as e:
        print(f"cephtui bench rbd: {e}", file=err)
        return 2
    if params.writes and params.image and args.yes_i_really_mean_it != params.image:
        print(f"cephtui bench rbd: a {params.io_type} benchmark overwrites image {params.pool}/{params.image} and "
              f"destroys its data: confirm with --yes-i-really-mean-it {params.image}", file=err)
        return 2
    _note_leftovers(spec, params.pool, err)
    shown: list[Sample] = []

    def step(phase: str, op: ops.Operation) -> None:
        print(f"+ {op.cli}", file=err)
        if op.prefix == "rbd bench" and not args.json:
            print(header(params), file=sys.stdout)
            print(COLUMNS, file=sys.stdout, flush=True)

    def sample(s: Sample) -> None:
        if not args.json:
            print(sample_line(s, shown, params.io_size), file=sys.stdout, flush=True)
        shown.append(s)

    run = BenchRun(client, params, audit, history=None if args.no_save else BenchHistory(), on_step=step,
                   on_sample=sample, confirmed_image=args.yes_i_really_mean_it, read_only=read_only)
    outcome = _run(run, err)
    for problem in outcome.problems:
        print(f"cephtui bench rbd: {problem}", file=err)
    result = outcome.result
    if result is None:
        return 1
    if args.json:
        json.dump(totals_dict(result), sys.stdout, indent=2, default=str)
        print()
    else:
        for line in total_lines(result):
            print(line)
        if result.stopped:
            print("Stopped early: partial results.")
        if result.error:
            print(f"ERROR: {result.error}")
    return 0 if result.ok else 1


def _note_leftovers(spec: ConnectionSpec, pool: str, out: TextIO) -> None:
    """Say which temporary images killed runs left in this pool, and how to remove them."""
    try:
        leftovers = find_temp_leftovers(spec, pool)
    except BenchError:
        return  # the run itself says what is wrong with the pool
    if leftovers:
        print(f"cephtui bench rbd: note: {len(leftovers)} temporary image(s) left by killed runs: "
              + "; ".join(left.describe() for left in leftovers)
              + f". Remove them with `cephtui bench rbd --pool {pool} --cleanup-temp`.", file=out)


def _cleanup_temp(spec: ConnectionSpec, pool: str, audit: ops.AuditLog) -> int:
    try:
        removed, problems = remove_temp_leftovers(spec, pool, audit,
                                                  on_step=lambda op: print(f"+ {op.cli}", file=sys.stderr))
    except BenchError as e:
        print(f"cephtui bench rbd: {e}", file=sys.stderr)
        return 1
    for problem in problems:
        print(f"cephtui bench rbd: not removed: {problem}", file=sys.stderr)
    print(f"Removed {len(removed)} temporary image(s)" + (f": {', '.join(removed)}" if removed else ""))
    return 1 if problems else 0
