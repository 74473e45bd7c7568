"""Per-client IO and latency of a CephFS, as `cephfs-top` shows it: the mgr's `fs perf stats` (the `stats` module).

What the source can and cannot do (src/pybind/mgr/stats/fs/perf_stats.py, src/tools/cephfs/top/cephfs-top):
- the `stats` module is off by default; while it is off the mgr refuses the command (ENOTSUP, "Module 'stats' is
  not enabled/loaded"), and `ceph mgr module enable stats` turns it on;
- clients send their metrics to the MDS every second, each rank forwards them to rank 0 and rank 0 to the mgr;
  the first ask registers a query (the mgr waits up to 5 s for it) and a query nobody asks for a minute expires;
- each metric is a pair: a hit ratio is (hits, misses); a latency is (seconds, nanoseconds); a standard deviation
  is (sum of squares in ns², count); an IO size is (ops, bytes), cumulative since the client mounted; the rest
  (open files, pinned caps, open inodes) are (value, total);
- a client reports only the metrics it supports (`valid_metrics`): the others are "N/A", never 0.
Rates are not in the answer: cephtui derives them from the cumulative bytes and ops it read, over the last
RATE_WINDOW seconds of its own reads (what cephfs-top does between two screens).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

RATE_WINDOW = 10.0  # seconds of cephtui's own reads a rate is taken over
STATS_OFF = ("the mgr's stats module is off (it is off by default), so the clients' IO is not collected: "
             "M enables it (`ceph mgr module enable stats`)")
SORT_KEYS = ("write_rate", "read_rate", "metadata_latency", "write_latency", "read_latency", "cap_hit")
SORT_WORDS = {"write_rate": "write bytes/s", "read_rate": "read bytes/s", "metadata_latency": "metadata latency",
              "write_latency": "write latency", "read_latency": "read latency", "cap_hit": "cap hit % (lowest first)"}


@dataclass(frozen=True)
class ClientIO:
    """One client's counters as the mgr gave them; None where the client does not report that metric."""
    fs: str
    client_id: int
    hostname: str = ""
    ip: str = ""
    root: str = ""
    mount_point: str = ""
    cap_hit: float | None = None  # % of cap lookups that hit
    dentry_lease: float | None = None  # % of dentry lookups with a valid lease
    opened_files: int | None = None
    pinned_icaps: int | None = None
    opened_inodes: int | None = None
    read_ops: int | None = None  # cumulative since the mount
    read_bytes: int | None = None
    write_ops: int | None = None
    write_bytes: int | None = None
    read_latency: float | None = None  # average, ms
    read_stdev: float | None = None  # ms
    write_latency: float | None = None
    write_stdev: float | None = None
    metadata_latency: float | None = None
    metadata_stdev: float | None = None

    @property
    def entity(self) -> str:
        return f"client.{self.client_id}"


@dataclass(frozen=True)
class FsPerf:
    version: int
    clients: tuple[ClientIO, ...]
    delayed_ranks: tuple[str, ...] = ()  # ranks whose metrics are late (the mgr marks them)

    def of(self, fs: str) -> tuple[ClientIO, ...]:
        return tuple(c for c in self.clients if c.fs == fs)


def _percent(pair: Sequence[int]) -> float:
    hits, misses = pair[0], pair[1]
    return 0.0 if hits + misses == 0 else 100.0 * hits / (hits + misses)


def _ms(pair: Sequence[int]) -> float:
    return pair[0] * 1000.0 + pair[1] / 1e6


def _stdev_ms(pair: Sequence[int]) -> float:
    return math.sqrt(pair[0] / (pair[1] - 1)) / 1e6 if pair[1] > 1 else 0.0


def _client(fs: str, name: str, values: Sequence[Any], counters: Sequence[str], meta: dict[str, Any]) -> ClientIO:
    valid = set(meta.get("valid_metrics") or counters)
    got: dict[str, Sequence[int]] = {}
    for counter, pair in zip(counters, values):
        if counter in valid and isinstance(pair, (list, tuple)) and len(pair) == 2:
            got[counter] = (int(pair[0]), int(pair[1]))

    def pick(counter: str, how: Any) -> Any:
        return how(got[counter]) if counter in got else None

    def first(p: Sequence[int]) -> int:
        return p[0]

    def second(p: Sequence[int]) -> int:
        return p[1]

    def text(key: str) -> str:
        return "" if meta.get(key, "N/A") == "N/A" else str(meta.get(key, ""))

    _, _, number = name.partition(".")
    return ClientIO(
        fs=fs, client_id=int(number) if number.isdigit() else -1, hostname=text("hostname"), ip=text("IP"),
        root=text("root"), mount_point=text("mount_point"),
        cap_hit=pick("cap_hit", _percent), dentry_lease=pick("dentry_lease", _percent),
        opened_files=pick("opened_files", first), pinned_icaps=pick("pinned_icaps", first),
        opened_inodes=pick("opened_inodes", first),
        read_ops=pick("read_io_sizes", first), read_bytes=pick("read_io_sizes", second),
        write_ops=pick("write_io_sizes", first), write_bytes=pick("write_io_sizes", second),
        read_latency=pick("avg_read_latency", _ms), read_stdev=pick("stdev_read_latency", _stdev_ms),
        write_latency=pick("avg_write_latency", _ms), write_stdev=pick("stdev_write_latency", _stdev_ms),
        metadata_latency=pick("avg_metadata_latency", _ms), metadata_stdev=pick("stdev_metadata_latency", _stdev_ms))


def parse_perf(answer: Any) -> FsPerf:
    """`fs perf stats`'s JSON (version 2: the client metadata and global metrics keyed by file system)."""
    if not isinstance(answer, dict) or "global_metrics" not in answer:
        raise ValueError(f"unexpected answer from fs perf stats: {str(answer)[:80]}")
    counters = [str(c) for c in answer.get("global_counters") or ()]
    metadata = answer.get("client_metadata") or {}
    clients = []
    for fs, per_client in sorted((answer.get("global_metrics") or {}).items()):
        for name, values in sorted(per_client.items()):
            meta = (metadata.get(fs) or {}).get(name) or {}
            clients.append(_client(str(fs), str(name), values or (), counters, meta))
    delayed = (answer.get("metrics") or {}).get("delayed_ranks") or ()
    return FsPerf(int(answer.get("version") or 0), tuple(clients), tuple(str(r) for r in delayed))


def stats_off(message: str) -> bool:
    """The mgr's refusal means the stats module is off: Pacific "Module 'stats' is not enabled/loaded", Tentacle
    "... is not enabled"; where the module cannot load at all the command is not in the mgr's table (Debian's
    Reef, whose mgr runs no PyO3 module), which the client says as "does not know `fs perf stats`"."""
    return ("'stats'" in message and "not enabled" in message) or "does not know `fs perf stats`" in message


def fs_perf(client: Any) -> FsPerf:
    """Ask the mgr (CephError with its refusal while the stats module is off; CephMgrDown with no mgr)."""
    return parse_perf(client.mgr("fs perf stats"))


@dataclass(frozen=True)
class Rates:
    read_bps: float | None = None
    write_bps: float | None = None
    read_iops: float | None = None
    write_iops: float | None = None
    over: float = 0.0  # seconds the rates are taken over (0: not yet two reads)


def rates(samples: Sequence[tuple[float, ClientIO]], window: float = RATE_WINDOW) -> Rates:
    """Bytes and ops per second between the oldest read inside `window` seconds of the newest and the newest.
    `samples`: (when read, the client's counters), oldest first. A counter that went down (the client remounted
    under the same id is not possible, but the mgr restarting its query is) gives no rate, not a negative one."""
    if len(samples) < 2:
        return Rates()
    t1, new = samples[-1]
    old_t, old = next(((t, c) for t, c in samples if t1 - t <= window), samples[-2])
    if t1 - old_t <= 0:
        old_t, old = samples[-2]
    span = t1 - old_t
    if span <= 0:
        return Rates()

    def per_s(a: int | None, b: int | None) -> float | None:
        return None if a is None or b is None or b < a else (b - a) / span

    return Rates(per_s(old.read_bytes, new.read_bytes), per_s(old.write_bytes, new.write_bytes),
                 per_s(old.read_ops, new.read_ops), per_s(old.write_ops, new.write_ops), span)


def sort_value(c: ClientIO, r: Rates, key: str) -> float:
    """Larger first, except the cap hit ratio (the lowest, the client whose caps miss most, first)."""
    value = {"write_rate": r.write_bps, "read_rate": r.read_bps, "metadata_latency": c.metadata_latency,
             "write_latency": c.write_latency, "read_latency": c.read_latency,
             "cap_hit": None if c.cap_hit is None else -c.cap_hit}[key]
    return -math.inf if value is None else value
