"""A block run as `rbd bench` prints it (src/tools/rbd/action/Bench.cc), plus the latency it lacks.

Per second: `  SEC       OPS   OPS/SEC   BYTES/SEC`, where OPS counts the ops done so far and the
rates are the mean of the last five seconds, as rbd bench's rolling window; we add that second's
latency percentiles. In total: `elapsed: ... ops: ... ops/sec: ... bytes/sec: ...` (and the read
and write split of a readwrite run), then the percentiles. The cache mode is on the header and on
the totals: the numbers mean nothing without it.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cephtui.ceph.bench.blockparams import CACHE_CONF, BlockParams
from cephtui.ceph.bench.results import BenchResult, Sample

WINDOW = 5  # rbd bench's rolling window, in seconds


def byte_u(n: float) -> str:
    """Like Ceph's byte_u_t: 1024-based units with at most one decimal ('2.2 MiB', '512 B')."""
    units = ("B", "KiB", "MiB", "GiB", "TiB")
    i = 0
    while n >= 1024 and i < len(units) - 1:
        n /= 1024
        i += 1
    return f"{n:.0f} {units[i]}" if i == 0 or n == int(n) else f"{n:.1f} {units[i]}"


def cache_words(cache: str) -> str:
    return f"cache {cache} ({', '.join(f'{k}={v}' for k, v in CACHE_CONF[cache].items())})"


def header(p: BlockParams) -> str:
    mix = f" read:write={p.rw_mix_read}:{100 - p.rw_mix_read}" if p.io_type == "readwrite" else ""
    pattern = "random" if p.io_pattern == "rand" else "sequential"
    return (f"bench  type {p.io_type}{mix} io_size {p.io_size} io_threads {p.io_threads} bytes {p.io_total} "
            f"pattern {pattern}  {cache_words(p.cache)}")


COLUMNS = f"{'SEC':>5}{'OPS':>10}{'OPS/SEC':>10}{'BYTES/SEC':>12}   latency p50 / p99 / p99.9 / max (ms)"


def sample_line(s: Sample, earlier: Sequence[Sample], io_size: int) -> str:
    """One second; `earlier` are the samples before it (for the rolling rate)."""
    window = [*earlier[-(WINDOW - 1):], s] if WINDOW > 1 else [s]
    rate = sum(x.ops for x in window) / len(window)
    return (f"{s.sec:>5}{s.finished:>10}{rate:>10.2f}{byte_u(rate * io_size) + '/s':>12}   "
            f"{s.p50 * 1e3:.2f} / {s.p99 * 1e3:.2f} / {s.p999 * 1e3:.2f} / {s.max_lat * 1e3:.2f}")


def total_lines(r: BenchResult) -> list[str]:
    p = r.params
    assert isinstance(p, BlockParams)
    t = r.total_time_run
    per_s = (lambda n: n / t) if t > 0 else (lambda n: 0.0)
    lines = [f"elapsed: {int(t)}   ops: {r.ops}   ops/sec: {per_s(r.ops):.2f}   "
             f"bytes/sec: {byte_u(per_s(r.ops * p.io_size))}/s   ({cache_words(p.cache)})"]
    if p.io_type == "readwrite":
        for what, n in (("read", r.read_ops), ("write", r.write_ops)):
            lines.append(f"{what}_ops: {n}   {what}_ops/sec: {per_s(n):.2f}   "
                         f"{what}_bytes/sec: {byte_u(per_s(n * p.io_size))}/s")
    lines.append(f"latency (ms): avg {r.average_latency * 1e3:.3f}   p50 {r.latency_p50 * 1e3:.3f}   "
                 f"p95 {r.latency_p95 * 1e3:.3f}   p99 {r.latency_p99 * 1e3:.3f}   "
                 f"p99.9 {r.latency_p999 * 1e3:.3f}   max {r.max_latency * 1e3:.3f}")
    if r.flush_seconds >= FLUSH_WORTH_SAYING:
        lines.append(flush_words(r))
    if r.failed_ops:
        lines.append(f"failed ops: {r.failed_ops}")
    return lines


FLUSH_WORTH_SAYING = 0.05  # seconds; a cache-off flush takes a few ms and would only be noise


def flush_words(r: BenchResult) -> str:
    t = r.total_time_run
    share = f" ({100 * r.flush_seconds / t:.0f}%)" if t > 0 else ""
    return (f"of the elapsed time, {r.flush_seconds:.2f} s{share} was the final flush of the image (rbd bench "
            "counts it too): the ops/sec include it, the latencies do not")


def totals_dict(r: BenchResult) -> dict[str, Any]:
    """`--json`: rbd bench's names for the totals, the percentiles, the cache mode and the per-second
    samples, then everything the history keeps (`result`)."""
    p = r.params
    assert isinstance(p, BlockParams)
    t = r.total_time_run
    d: dict[str, Any] = {
        "kind": "rbd", "pool": p.pool, "image": p.image, "temporary_image": p.temporary,
        "io_type": p.io_type, "io_size": p.io_size, "io_threads": p.io_threads, "io_total": p.io_total,
        "io_pattern": p.io_pattern, "cache": p.cache, "cache_conf": dict(CACHE_CONF[p.cache]),
        "elapsed": t, "ops": r.ops, "ops_per_sec": r.ops / t if t > 0 else 0.0,
        "bytes_per_sec": r.ops * p.io_size / t if t > 0 else 0.0,
        "latency": {"avg": r.average_latency, "p50": r.latency_p50, "p95": r.latency_p95, "p99": r.latency_p99,
                    "p99.9": r.latency_p999, "max": r.max_latency, "min": r.min_latency},
        "flush_seconds": r.flush_seconds,
        "failed_ops": r.failed_ops, "status": r.status, "error": r.error, "cli": p.cli(), "fio_cli": p.fio_cli(),
        "samples": [{"sec": s.sec, "ops": s.ops, "finished": s.finished, "bytes_per_sec": s.ops * p.io_size,
                     "in_flight": s.in_flight, "p50": s.p50, "p99": s.p99, "p99.9": s.p999, "max": s.max_lat,
                     "avg": s.avg_lat} for s in r.samples],
    }
    if p.io_type == "readwrite":
        d.update(read_ops=r.read_ops, write_ops=r.write_ops)
    d["result"] = r.to_dict()
    return d
