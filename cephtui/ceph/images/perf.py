"""Live per-image IO, as `rbd perf image iostat` shows it: the mgr's `rbd perf image stats` (rbd_support).

What the source can and cannot do (src/pybind/mgr/rbd_support/perf.py):
- it counts IO the OSDs see per image, for pools tagged with the `rbd` application only;
- it reports at most 64 images, the busiest by the sort key;
- a query starts when first asked and yields its first numbers after about 30 s (two OSD reports);
  it expires when nobody asks for a minute;
- rates are per second over the mgr's stats period; latencies are nanoseconds per op (sum over ops),
  printed by `rbd perf image iostat` as they come ("149.96 ms").
The command is a mgr command: sent through the client's mgr line, so a dead mgr is "mgr down", never zeros.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SORT_KEYS = ("write_ops", "read_ops", "write_bytes", "read_bytes", "write_latency", "read_latency")
MAX_IMAGES = 64  # REPORT_MAX_RESULTS in rbd_support
FIRST_DATA_S = 30  # two OSD perf reports, the first after the query registers
LIMITS = ("covers pools with the rbd application only; at most 64 images (the busiest); "
          "first numbers about 30 s after it is first asked")


@dataclass(frozen=True)
class ImageIO:
    pool: str  # "pool" or "pool/namespace", as the mgr names it
    image: str
    write_ops: float
    read_ops: float
    write_bytes: float
    read_bytes: float
    write_latency: float  # ns per op
    read_latency: float

    @property
    def spec(self) -> str:
        return f"{self.pool}/{self.image}"

    def value(self, key: str) -> float:
        return float(getattr(self, key))

    def to_json(self) -> dict[str, Any]:
        """As `rbd perf image iostat --format json` prints an image."""
        pool, _, ns = self.pool.partition("/")
        return {"pool": pool, "pool_namespace": ns, "image": self.image, "write_ops": self.write_ops,
                "read_ops": self.read_ops, "write_bytes": self.write_bytes, "read_bytes": self.read_bytes,
                "write_latency": self.write_latency, "read_latency": self.read_latency}


@dataclass(frozen=True)
class IOReport:
    timestamp: float
    images: tuple[ImageIO, ...]  # in the mgr's order (busiest first by the sort key)


def parse_stats(answer: Any) -> IOReport:
    """`rbd perf image stats`'s JSON: stats is a list of {"INDEX/IMAGE": [values in stat_descriptors' order]},
    INDEX a key of pool_descriptors ("pool" or "pool/namespace")."""
    if not isinstance(answer, dict):
        raise ValueError(f"unexpected answer from rbd perf image stats: {str(answer)[:80]}")
    names = [str(d) for d in answer.get("stat_descriptors") or SORT_KEYS]
    pools = {str(k): str(v) for k, v in (answer.get("pool_descriptors") or {}).items()}
    out = []
    for entry in answer.get("stats") or []:
        for key, values in (entry.items() if isinstance(entry, dict) else ()):
            index, _, image = str(key).partition("/")
            row = dict(zip(names, (float(v) for v in values)))
            out.append(ImageIO(pools.get(index, index), image, *(row.get(k, 0.0) for k in SORT_KEYS)))
    return IOReport(float(answer.get("timestamp") or 0), tuple(out))


def image_stats(client: Any, pool_spec: str = "", sort_by: str = "write_ops") -> IOReport:
    """Ask the mgr (raises CephError, CephMgrDown while no mgr is active)."""
    if sort_by not in SORT_KEYS:
        raise ValueError(f"sort_by must be one of {', '.join(SORT_KEYS)}")
    args: dict[str, Any] = {"sort_by": sort_by}
    if pool_spec:
        args["pool_spec"] = pool_spec
    return parse_stats(client.mgr("rbd perf image stats", **args))


def ranked(report: IOReport, key: str) -> tuple[ImageIO, ...]:
    """Busiest first by `key`, as `rbd perf image iostat --sort-by` orders them."""
    return tuple(sorted(report.images, key=lambda r: r.value(key), reverse=True))


def rate_words(ops: float) -> str:
    """`rbd perf image iostat`'s WR/RD column, Ceph's si_u_t of the whole number: 0/s, 512/s, 1.72k/s, 2k/s."""
    v = int(ops)  # si_u_t takes an integer: 512.7 is 512
    n, index, mult = v, 0, 1
    while n >= 1000 and index < len(_SI) - 1:
        n, index, mult = n // 1000, index + 1, mult * 1000
    if index == 0 or v % mult == 0:
        return f"{n}{_SI[index]}/s"
    text = ""
    for places in (2, 1, 0):  # the most precision that fits in 7 characters
        text = f"{v / mult:.{places}f}{_SI[index]}"
        if len(text) <= 7:
            break
    return f"{text}/s"


_SI = ("", "k", "M", "G", "T", "P", "E")


def latency_words(ns: float) -> str:
    """`rbd perf image iostat`'s WR_LAT/RD_LAT column: 0.00 ns, 812.40 us, 149.96 ms."""
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.2f} {unit}"
    return f"{ns:.2f} ns"
