"""What a run measured: per-second samples, the result (saved in the history), live progress, and the
summary `rados bench` prints."""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from cephtui.ceph.bench.params import BenchParams

if TYPE_CHECKING:
    from cephtui.ceph.bench.blockparams import BlockParams

# A stall this long (whole seconds with ops in flight and none completing) is worth telling:
# shorter ones happen on a busy host without any fault.
STALL_NOTABLE = 3


@dataclass(frozen=True)
class Sample:
    """One second of a run, as rados bench prints it (plus latency of that second)."""

    sec: int
    finished: int  # ops completed so far
    ops: int  # ops completed in this second
    mib_s: float
    avg_lat: float  # of ops completed in this second (0 if none)
    max_lat: float
    in_flight: int
    p50: float = 0.0  # percentiles of this second's ops; 0 when not measured (RADOS runs, old history)
    p99: float = 0.0
    p999: float = 0.0


@dataclass(frozen=True)
class BenchResult:
    params: BenchParams | BlockParams  # by `params.kind`: a RADOS or a block run
    started_at: float  # wall clock, seconds since the epoch
    host: str
    pid: int
    object_prefix: str
    total_time_run: float
    ops: int  # successful ops
    failed_ops: int
    op_size: int
    object_size: int
    bandwidth: float  # MiB/s over the whole run
    stddev_bandwidth: float
    max_bandwidth: float
    min_bandwidth: float
    average_iops: float
    stddev_iops: float
    max_iops: int
    min_iops: int
    average_latency: float
    stddev_latency: float
    max_latency: float
    min_latency: float
    latency_p50: float
    latency_p95: float
    latency_p99: float
    samples: tuple[Sample, ...] = ()
    stopped: bool = False  # the operator stopped it early
    error: str | None = None
    errno: int = 0
    verify_errors: int = 0
    cleanup_note: str | None = None  # what cleanup did or why it could not
    cluster: str = ""  # fsid, filled in by whoever saves the result
    latency_p999: float = 0.0  # 0 in runs saved before it was measured
    read_ops: int = 0  # block readwrite runs: how the ops split, as rbd bench prints it (0 otherwise)
    write_ops: int = 0
    # Block write runs: the image's final flush, which total_time_run includes as rbd bench counts it.
    # With the writeback cache that writes out the whole dirty cache (up to rbd_cache_max_dirty), a
    # visible part of a short run: said beside the totals so that the ops/sec explain themselves.
    flush_seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def longest_stall(self) -> tuple[int, int] | None:
        """(first second, length in seconds) of the longest run of whole seconds in which ops were in
        flight and none completed: an OSD that died or hung, PGs peering. None when there was none."""
        return longest_stall(self.samples)

    @property
    def status(self) -> str:
        return "error" if self.error else "stopped" if self.stopped else "done"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["params"] = {"kind": self.params.kind, **d["params"]}
        d.update(kind=self.params.kind, mode=self.params.mode, pool=self.params.pool, threads=self.params.threads,
                 cli=self.params.cli(), status=self.status)
        if self.params.kind == "rbd":  # the history's and the export's columns for block runs
            d.update(image=getattr(self.params, "image", ""), cache=getattr(self.params, "cache", ""))
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> BenchResult:
        """A saved run; ValueError when a field has another type than declared (a damaged or hand-edited
        history line): a string where a number belongs would crash the comparison later, not here."""
        p = dict(d["params"])
        params_cls = params_class(d.get("kind") or p.get("kind") or "rados")
        known = {f.name for f in dataclasses.fields(params_cls)}  # not the ClassVar `kind`
        params = params_cls(**_typed(params_cls, {k: v for k, v in p.items() if k in known}))
        samples = tuple(Sample(**_typed(Sample, s)) for s in d.get("samples") or ())
        fields = set(cls.__dataclass_fields__) - {"params", "samples"}
        return cls(params=params, samples=samples, **_typed(cls, {k: v for k, v in d.items() if k in fields}))


def params_class(kind: str) -> type[BenchParams] | type[BlockParams]:
    """The parameters class of a run's kind ("rados" for runs saved before there were kinds)."""
    if kind == "rados":
        return BenchParams
    if kind == "rbd":
        from cephtui.ceph.bench.blockparams import BlockParams
        return BlockParams
    raise ValueError(f"unknown kind of bench run: {kind!r:.40}")


_TYPES: dict[str, tuple[type, ...]] = {"float": (int, float), "int": (int,), "str": (str,), "bool": (bool,),
                                       "str | None": (str, type(None))}


def _typed(cls: type, values: Any) -> dict[str, Any]:
    """`values` (fields of dataclass `cls`) checked against the field annotations of simple types."""
    if not isinstance(values, dict):
        raise ValueError(f"{cls.__name__}: expected an object, got {type(values).__name__}")
    for f in dataclasses.fields(cls):
        want = _TYPES.get(str(f.type))
        v = values.get(f.name)
        if want and f.name in values and (not isinstance(v, want) or (bool not in want and isinstance(v, bool))):
            raise ValueError(f"{cls.__name__}.{f.name}: expected {f.type}, got {v!r:.40}")
    return values


@dataclass(frozen=True)
class Progress:
    """What the UI shows while a run goes on; cheap to take from any thread."""

    phase: str  # "connecting", "running", "draining", "cleanup", "done"
    elapsed: float
    seconds: float
    started: int
    finished: int
    failed: int
    in_flight: int
    avg_latency: float
    samples: tuple[Sample, ...]
    total_ops: int = 0  # seq: how many objects there are to read (0 when unbounded)
    op_size: int = 0  # of this run (a read's comes from the write's metadata, not the params)


def longest_stall(samples: Sequence[Sample]) -> tuple[int, int] | None:
    """(first second, length) of the longest stretch of samples with ops in flight and none completed."""
    best: tuple[int, int] | None = None
    start, length = 0, 0
    for s in samples:
        if s.ops == 0 and s.in_flight > 0:
            if length == 0:
                start = s.sec
            length += 1
            if best is None or length > best[1]:
                best = (start, length)
        else:
            length = 0
    return best


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
