"""A block bench run's parameters, as `rbd bench` takes them, plus the client cache mode it runs with.

Defaults, units and names are `rbd bench`'s (Pacific: src/tools/rbd/action/Bench.cc): 4 KiB ops,
16 in flight, 1 GiB in total, sequential. What it lacks and we add: a time limit (`seconds`), and
the librbd cache mode as a parameter of its own, because it decides what the numbers mean: with
the cache off (what a VM with cache=none or directsync feels) a 4 KiB write costs a round trip to
the OSDs; librbd's writeback cache acknowledges it from memory.
"""
from __future__ import annotations

import math
import shlex
from dataclasses import dataclass
from typing import ClassVar

from cephtui.ceph.bench.params import BenchError, MiB

CACHE_MODES = ("off", "writeback")
IO_TYPES = ("write", "read", "readwrite")
IO_PATTERNS = ("seq", "rand")
GiB = 1024 * MiB
MAX_THREADS = 1024

# The librbd options each cache mode sets (checked with `ceph config help` on Pacific). Writeback also
# turns off "writethrough until the first flush": rbd bench flushes only at the end, so with that
# default on, the whole run would be writethrough and "writeback" would measure nothing of the cache.
CACHE_CONF: dict[str, dict[str, str]] = {
    "off": {"rbd_cache": "false"},
    "writeback": {"rbd_cache": "true", "rbd_cache_policy": "writeback",
                  "rbd_cache_writethrough_until_flush": "false"},
}
CACHE_WORDS = {"off": "client cache off", "writeback": "librbd writeback cache"}


def cache_ceph_args(cache: str) -> str:
    """The cache mode as CEPH_ARGS, so `rbd bench` and fio run with the same client cache as we do."""
    return " ".join(f"--{k}={v}" for k, v in CACHE_CONF[cache].items())


@dataclass(frozen=True)
class BlockParams:
    pool: str
    image: str = ""  # an existing image; "" when temp_image_size > 0 (a temporary image)
    # bytes; > 0: a temporary image, created and removed around the run. Once the run has named it,
    # `image` carries that name too (in the result and the history).
    temp_image_size: int = 0
    io_type: str = "write"
    io_size: int = 4096
    io_threads: int = 16
    io_total: int = GiB
    io_pattern: str = "seq"
    rw_mix_read: int = 50  # readwrite: percent of ops that read
    seconds: float = 0.0  # 0: until io_total, as rbd bench; > 0: also stop after that long (ours)
    cache: str = "off"  # "off": rbd_cache=false; "writeback": librbd's writeback cache
    op_timeout: float = 30.0  # an op without a reply for this long fails the run

    kind: ClassVar[str] = "rbd"

    def __post_init__(self) -> None:
        if not self.pool.strip():
            raise BenchError("choose a pool")
        if not self.image and not self.temp_image_size:
            raise BenchError("choose an existing image or the size of a temporary one")
        if self.image and (len(self.image) > 200 or any(c.isspace() or c in "/@" or ord(c) < 32
                                                         for c in self.image)):
            raise BenchError("image name: no spaces, '/', '@' or control characters, at most 200 characters")
        if self.temp_image_size and not (MiB <= self.temp_image_size <= 64 * 1024 * GiB):
            raise BenchError("a temporary image must be between 1 MiB and 64 TiB")
        if self.temp_image_size and self.temp_image_size % 512:
            raise BenchError("a temporary image's size must be a multiple of 512 bytes")
        if self.io_type not in IO_TYPES:
            raise BenchError(f"io type must be one of {', '.join(IO_TYPES)}")
        if self.io_pattern not in IO_PATTERNS:
            raise BenchError(f"io pattern must be one of {', '.join(IO_PATTERNS)}")
        if self.cache not in CACHE_MODES:
            raise BenchError(f"cache must be one of {', '.join(CACHE_MODES)}")
        if not (1 <= self.io_size <= 256 * MiB):
            raise BenchError("io size must be between 1 byte and 256 MiB")
        if self.temp_image_size and self.io_size > self.temp_image_size:
            raise BenchError("io size must be at most the image size")  # rbd bench's own rule
        if not (1 <= self.io_threads <= MAX_THREADS):
            raise BenchError(f"io threads (ops in flight) must be between 1 and {MAX_THREADS}")
        if self.io_total < self.io_size:
            raise BenchError("io total must be at least one io size")
        if not (0 <= self.rw_mix_read <= 100):
            raise BenchError("rw mix read is a percentage: 0 to 100")
        if not math.isfinite(self.seconds) or not (0 <= self.seconds <= 24 * 3600):
            raise BenchError("seconds must be between 0 (until io total) and 86400")
        if not (1 <= self.op_timeout <= 3600):
            raise BenchError("op timeout must be between 1 and 3600 seconds")

    # The names BenchParams uses, so code that shows either kind of run reads the same fields.
    @property
    def mode(self) -> str:
        return self.io_type

    @property
    def threads(self) -> int:
        return self.io_threads

    @property
    def op_size(self) -> int:
        return self.io_size

    @property
    def writes(self) -> bool:
        return self.io_type != "read"

    @property
    def total_ops(self) -> int:
        """rbd bench's count: ops of io_size until io_total bytes are issued (the last one may pass it)."""
        return -(-self.io_total // self.io_size)

    @property
    def temporary(self) -> bool:
        return self.temp_image_size > 0

    @property
    def image_spec(self) -> str:
        """pool/image, as the rbd CLI takes it; a temporary image's name is chosen at run time."""
        return f"{self.pool}/{self.image or '<temporary image>'}"

    def cli(self) -> str:
        """The native command that does the same, with the cache mode as CEPH_ARGS."""
        words = ["rbd", "bench", "--io-type", self.io_type, "--io-size", str(self.io_size),
                 "--io-threads", str(self.io_threads), "--io-total", str(self.io_total),
                 "--io-pattern", self.io_pattern]
        if self.io_type == "readwrite":
            words += ["--rw-mix-read", str(self.rw_mix_read)]
        words.append(shlex.quote(self.image_spec) if self.image else self.image_spec)
        return f"CEPH_ARGS={shlex.quote(cache_ceph_args(self.cache))} {' '.join(words)}{self._seconds_note()}"

    def fio_cli(self) -> str:
        """The `fio --ioengine=rbd` equivalent, with the same client cache."""
        rw = {("write", "seq"): "write", ("write", "rand"): "randwrite", ("read", "seq"): "read",
              ("read", "rand"): "randread", ("readwrite", "seq"): "rw",
              ("readwrite", "rand"): "randrw"}[(self.io_type, self.io_pattern)]
        words = ["fio", "--name=cephtui", "--ioengine=rbd", f"--pool={self.pool}",
                 f"--rbdname={self.image or '<temporary image>'}", f"--rw={rw}", f"--bs={self.io_size}",
                 f"--iodepth={self.io_threads}", f"--size={self.io_total}"]
        if self.io_type == "readwrite":
            words.append(f"--rwmixread={self.rw_mix_read}")
        if self.seconds:
            words += [f"--runtime={_num(self.seconds)}"]
        return (f"CEPH_ARGS={shlex.quote(cache_ceph_args(self.cache))} "
                f"{' '.join(shlex.quote(w) if self.image else w for w in words)}")

    def _seconds_note(self) -> str:
        # rbd bench has no time limit: say so rather than print a flag it would refuse.
        return f"   # and stop after {_num(self.seconds)} s (cephtui only)" if self.seconds else ""


def _num(x: float) -> str:
    return str(int(x)) if x == int(x) else f"{x:g}"
