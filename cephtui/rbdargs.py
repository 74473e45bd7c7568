"""`cephtui bench rbd`'s options, and which of `bench`'s options belong to which mode.

Kept apart from benchcli (which imports the bench engine) so that building the parser stays cheap:
every command, and `--help`, builds it.
"""
from __future__ import annotations

import argparse
from typing import Any

from cephtui.ceph.bench.blockparams import CACHE_MODES, IO_PATTERNS, IO_TYPES

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
