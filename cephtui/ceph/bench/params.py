"""A bench run's parameters, as `rados bench` takes them, and how sizes are written."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from cephtui.ceph import validate

MODES = ("write", "seq", "rand")
MiB = 1024 * 1024
DEFAULT_METADATA = "benchmark_last_metadata"


class BenchError(Exception):
    """Bad parameters or a precondition the cluster does not meet; `str()` is for the operator."""


def parse_size(text: str | int) -> int:
    """Bytes from '4096', '4K', '4KiB', '4M', '1G' (validate.parse_size), a BenchError when it is not one."""
    try:
        return validate.parse_size(text)
    except ValueError as e:
        raise BenchError(str(e)) from None


@dataclass(frozen=True)
class BenchParams:
    pool: str
    mode: str = "write"
    seconds: float = 10.0
    threads: int = 16
    op_size: int = 4 * MiB
    object_size: int = 0  # 0: same as op_size (one op per object, rados bench's default)
    run_name: str = ""  # metadata object name; "" means benchmark_last_metadata
    cleanup: bool = True  # write mode: remove the objects (and metadata) afterwards
    op_timeout: float = 30.0  # an op without a reply for this long fails the run
    verify: bool = True  # reads: check each op's header like native does

    kind: ClassVar[str] = "rados"

    def __post_init__(self) -> None:
        if not self.pool.strip():
            raise BenchError("choose a pool")
        if self.mode not in MODES:
            raise BenchError(f"mode must be one of {', '.join(MODES)}")
        if not (0 < self.seconds <= 24 * 3600) or not math.isfinite(self.seconds):
            raise BenchError("seconds must be between 1 and 86400")
        if not (1 <= self.threads <= 1024):
            raise BenchError("threads (concurrent ops) must be between 1 and 1024")
        if not (1 <= self.op_size <= 256 * MiB):
            raise BenchError("op size must be between 1 byte and 256 MiB")
        if self.object_size and (self.object_size < self.op_size or self.object_size % self.op_size):
            raise BenchError("object size must be a multiple of the op size")
        if self.object_size > 1024 * MiB:
            raise BenchError("object size must be at most 1 GiB")
        if not (1 <= self.op_timeout <= 3600):
            raise BenchError("op timeout must be between 1 and 3600 seconds")
        if self.run_name and (len(self.run_name) > 200 or any(c.isspace() or ord(c) < 32 for c in self.run_name)):
            raise BenchError("run name: no spaces or control characters, at most 200 characters")

    @property
    def objsize(self) -> int:
        return self.object_size or self.op_size

    @property
    def metadata_name(self) -> str:
        return self.run_name or DEFAULT_METADATA

    def cli(self) -> str:
        """The native command that does the same, for the confirm dialog and the history."""
        words = ["rados", "bench", "-p", self.pool, _num(self.seconds), self.mode, "-t", str(self.threads)]
        if self.mode == "write":
            words += ["-b", str(self.op_size)]
            if self.object_size and self.object_size != self.op_size:
                words += ["-O", str(self.object_size)]
            if not self.cleanup:
                words.append("--no-cleanup")
            words.append("--no-hints")
        if self.run_name:
            words += ["--run-name", self.run_name]
        return " ".join(words)


def _num(x: float) -> str:
    return str(int(x)) if x == int(x) else f"{x:g}"
