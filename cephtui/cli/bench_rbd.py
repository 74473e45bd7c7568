"""`cephtui bench rbd`: the Bench tab's block engine (librbd) without a terminal UI, printing like `rbd bench`;
and which of `bench`'s options belong to which mode. The block mode of the `bench` command
(cephtui/cli/bench.py adds these options to its parser and hands `bench rbd` over here)."""
from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any, TextIO

from cephtui.ceph import ops
from cephtui.ceph.bench.blockparams import CACHE_MODES, IO_PATTERNS, IO_TYPES, BlockParams
from cephtui.ceph.bench.params import BenchError, parse_size
from cephtui.ceph.cluster import Cluster
from cephtui.ceph.connection import ConnectionSpec
from cephtui.cli.running import run_and_report, run_probe
from cephtui.cli.table import Invocation

if TYPE_CHECKING:  # imported when a run starts (cephtui/cli/table.py: keep the parsers cheap)
    from cephtui.ceph.bench.results import Sample

# dest -> the option, for the messages that say an option belongs to the other mode
RBD_ONLY = {"image": "--image", "temp_image": "--temp-image", "io_type": "--io-type", "io_size": "--io-size",
            "io_threads": "--io-threads", "io_total": "--io-total", "io_pattern": "--io-pattern",
            "rw_mix_read": "--rw-mix-read", "cache": "--cache", "cleanup_temp": "--cleanup-temp",
            "yes_i_really_mean_it": "--yes-i-really-mean-it"}
RADOS_ONLY = {"mode": "--mode", "threads": "--threads", "block_size": "--block-size",
              "object_size": "--object-size", "run_name": "--run-name", "cleanup": "--cleanup",
              "temp_pool": "--temp-pool", "no_verify": "--no-verify"}


def add_rbd_arguments(g: Any) -> None:
    """The block mode's options, with rbd bench's names and defaults (None: not given)."""
    g.add_argument("--image", metavar="NAME", help="an existing image to benchmark (a write destroys its data)")
    g.add_argument("--temp-image", metavar="SIZE",
                   help="create a temporary image of SIZE (e.g. 10G) for the run and remove it afterwards")
    g.add_argument("--io-type", choices=IO_TYPES, help="write, read or readwrite (default: write)")
    g.add_argument("--io-size", metavar="B", help="IO size in B/K/M/G (default: 4K)")
    g.add_argument("--io-threads", type=int, metavar="N", help="ios in flight (default: 16)")
    g.add_argument("--io-total", metavar="B", help="total size for IO in B/K/M/G (default: 1G)")
    g.add_argument("--io-pattern", choices=IO_PATTERNS, help="seq or rand (default: seq)")
    g.add_argument("--rw-mix-read", type=int, metavar="PCT", help="readwrite: percent of reads (default: 50)")
    g.add_argument("--cache", choices=CACHE_MODES,
                   help="client cache: off (rbd_cache=false: what a VM with cache=none feels, the default) or "
                        "writeback (librbd's writeback cache)")
    g.add_argument("--yes-i-really-mean-it", metavar="IMAGE", default="",
                   help="a write or readwrite on an existing image destroys its data: give its name again")
    g.add_argument("--cleanup-temp", action="store_true",
                   help="remove the temporary images killed runs left in the pool, and exit")


def _given(args: argparse.Namespace, names: dict[str, str]) -> str:
    for dest, flag in names.items():
        v = getattr(args, dest, None)
        if v not in (None, False, ""):
            return flag
    return ""


def rbd_only_options(args: argparse.Namespace) -> str:
    """A block-mode option given to `cephtui bench` without `rbd` ("" when none)."""
    return _given(args, RBD_ONLY)


def rbd_usage_error(args: argparse.Namespace, read_only: bool, read_only_source: str) -> str:
    """What is wrong with a `cephtui bench rbd` command line before connecting ("" when nothing)."""
    stray = _given(args, RADOS_ONLY)
    if stray:
        return f"{stray} is an option of the RADOS bench (`cephtui bench {stray} ...`), not of `bench rbd`"
    if args.cleanup_temp:
        if read_only:
            return "bench rbd --cleanup-temp removes images: not with --read-only"
        return ""
    if getattr(args, "latency", False):  # the probe: an image given, or a temporary one it makes itself
        if args.temp_image:
            return "bench rbd --latency makes its own small temporary image: leave --temp-image out"
        if read_only:
            return "bench rbd --latency writes (then reads what it wrote): not with --read-only"
        return ""
    if bool(args.image) == bool(args.temp_image):
        return "bench rbd needs --image NAME or --temp-image SIZE (one of them)"
    writes = (args.io_type or "write") != "read"
    if read_only and (writes or args.temp_image):
        why = "" if read_only_source.startswith("flag") else \
            f" (read-only is set by the config, {read_only_source}; --read-write overrides it)"
        what = "--temp-image creates an image" if args.temp_image and not writes else \
            f"--io-type {args.io_type or 'write'} writes to the image"
        return f"bench rbd {what}: not with --read-only (--io-type read of an existing image is fine){why}"
    return ""


def check(inv: Invocation) -> None:
    """`bench rbd`'s command line before connecting; the pool from the config's [bench] when not given."""
    problem = rbd_usage_error(inv.args, inv.settings.read_only, inv.settings.source("read_only"))
    if problem:
        inv.parser.error(problem)
    inv.args.pool = inv.args.pool or inv.settings.bench.pool or None


def run(inv: Invocation) -> int:
    return rbd_bench_command(inv.client, inv.spec, inv.args, read_only=inv.settings.read_only)


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


def rbd_bench_command(client: Cluster, spec: ConnectionSpec, args: argparse.Namespace, *,
                      read_only: bool = False) -> int:
    from cephtui.ceph.bench.blockreport import COLUMNS, header, sample_line, total_lines, totals_dict
    from cephtui.ceph.bench.history import BenchHistory
    from cephtui.ceph.bench.rbdengine import RBD_MISSING, rbd_available
    from cephtui.ceph.bench.service import BenchRun

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

    def text(result: Any) -> None:
        for line in total_lines(result):
            print(line)
        if result.stopped:
            print("Stopped early: partial results.")
        if result.error:
            print(f"ERROR: {result.error}")

    return run_and_report(run, "cephtui bench rbd", args.json, totals_dict, text)


def _note_leftovers(spec: ConnectionSpec, pool: str, out: TextIO) -> None:
    """Say which temporary images killed runs left in this pool, and how to remove them."""
    from cephtui.ceph.bench.service import find_temp_leftovers

    try:
        leftovers = find_temp_leftovers(spec, pool)
    except BenchError:
        return  # the run itself says what is wrong with the pool
    if leftovers:
        print(f"cephtui bench rbd: note: {len(leftovers)} temporary image(s) left by killed runs: "
              + "; ".join(left.describe() for left in leftovers)
              + f". Remove them with `cephtui bench rbd --pool {pool} --cleanup-temp`.", file=out)


def _cleanup_temp(spec: ConnectionSpec, pool: str, audit: ops.AuditLog) -> int:
    from cephtui.ceph.bench.service import remove_temp_leftovers

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


def block_latency_command(client: Cluster, args: argparse.Namespace, audit: ops.AuditLog,
                          read_only: bool) -> int:
    """`cephtui bench rbd --latency`: the latency probe on an image (or a temporary one), --seconds each way."""
    from cephtui.ceph.bench.history import BenchHistory

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
