"""What the latency probe found, and its words: each direction held against the network's floor, and where
its time goes.

The results are plain data (probe.py measures them); the words are pure functions of them, unit-tested on numbers
a real probe captured (tests/fixtures/probe/). A replicated write needs at least two round trips (this host to
the primary and back, the primary to its replicas and back) plus one disk commit; a read one round trip plus a
read.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cephtui.ceph.bench.netfloor import NetFloor
from cephtui.ceph.bench.results import BenchResult


# ---- what it found
@dataclass(frozen=True)
class Direction:
    """One direction's latency, in seconds."""

    name: str  # "write" or "read"
    ops: int = 0
    seconds: float = 0.0
    p50: float = 0.0
    p99: float = 0.0
    p999: float = 0.0
    max: float = 0.0
    mean: float = 0.0
    error: str | None = None

    @property
    def iops_p50(self) -> float:
        """The IOPS one op in flight allows at the median latency."""
        return 1.0 / self.p50 if self.p50 > 0 else 0.0

    @property
    def iops_mean(self) -> float:
        """... and at the mean latency: what the run really did (a slow tail lowers it)."""
        return 1.0 / self.mean if self.mean > 0 else 0.0

    @classmethod
    def of(cls, name: str, r: BenchResult) -> Direction:
        return cls(name, r.ops, r.total_time_run, r.latency_p50, r.latency_p99,
                   float(getattr(r, "latency_p999", 0.0) or 0.0), r.max_latency, r.average_latency, r.error)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "ops": self.ops, "seconds": self.seconds, "p50": self.p50, "p99": self.p99,
                "p999": self.p999, "max": self.max, "mean": self.mean, "iops_p50": self.iops_p50,
                "iops_mean": self.iops_mean, "error": self.error}


@dataclass(frozen=True)
class PoolShape:
    size: int = 0  # replicas, or k+m for EC
    min_size: int = 0
    erasure: bool = False
    k: int = 0
    m: int = 0
    profile: str = ""

    @property
    def text(self) -> str:
        if self.erasure:
            return f"erasure-coded {self.k}+{self.m}" + (f" (profile {self.profile})" if self.profile else "")
        return f"{self.size} replica{'s' if self.size != 1 else ''}"

    def to_dict(self) -> dict[str, Any]:
        return {"size": self.size, "min_size": self.min_size, "erasure": self.erasure, "k": self.k, "m": self.m,
                "profile": self.profile, "text": self.text}


@dataclass(frozen=True)
class OsdTimes:
    """Mean seconds per op, from the OSDs' counters over one direction (0: not counted)."""

    primary: float = 0.0  # op_w_latency or op_r_latency: the primary, from arrival to reply
    replica: float = 0.0  # subop_w_latency: a replica's apply and commit (writes)
    commit: float = 0.0  # bluestore commit_lat: one transaction to stable storage
    ops: int = 0  # how many ops the primaries counted
    osds: int = 0  # how many OSDs were read

    def to_dict(self) -> dict[str, Any]:
        return {"primary": self.primary, "replica": self.replica, "commit": self.commit, "ops": self.ops,
                "osds": self.osds}


@dataclass(frozen=True)
class ProbeResult:
    kind: str
    target: str
    shape: PoolShape
    floor: NetFloor
    write: Direction
    read: Direction | None = None
    osd_write: OsdTimes = OsdTimes()
    osd_read: OsdTimes = OsdTimes()
    perf_note: str = ""  # why the OSDs' counters are missing or partial
    finish_note: str = ""
    cache: str = ""  # block runs: the client cache mode ("off", "writeback")
    results: tuple[BenchResult, ...] = field(default=(), repr=False)  # the runs, for the history

    @property
    def words(self) -> list[str]:
        return probe_words(self)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "target": self.target, "pool": self.shape.to_dict(), "cache": self.cache,
                "floor": self.floor.to_dict(), "write": self.write.to_dict(),
                "read": self.read.to_dict() if self.read else None, "osd_write": self.osd_write.to_dict(),
                "osd_read": self.osd_read.to_dict(), "perf_note": self.perf_note, "finish_note": self.finish_note,
                "write_floor": write_floor(self.floor, self.shape), "read_floor": self.floor.client_rtt,
                "words": self.words}



def write_floor(floor: NetFloor, shape: PoolShape) -> float:
    """The network's part of one write: this host to the primary and back, plus, when there are other
    copies, the primary to them and back (in parallel, so one round trip)."""
    copies = shape.size if shape.size else 1
    return floor.client_rtt + (floor.replica_leg if copies > 1 else 0.0)


def ms(seconds: float) -> str:
    """Milliseconds with the digits that matter: 0.052 ms, 1.29 ms, 12.3 ms."""
    v = seconds * 1000
    return f"{v:.3f} ms" if v < 1 else f"{v:.2f} ms" if v < 10 else f"{v:.1f} ms"


def _times(ratio: float) -> str:
    return f"{ratio:.1f}×" if ratio < 10 else f"{ratio:.0f}×"


def _share(part: float, whole: float) -> str:
    return f"{part / whole * 100:.0f}%" if whole > 0 else "?"


def direction_words(d: Direction, floor_net: float, legs: str, osd: OsdTimes, floor: NetFloor,
                    commit: str = "") -> list[str]:
    """The lines for one direction: its numbers, how far from the network floor (the number the table shows
    as `net floor`: the network's part alone), what lies above it, where the mean goes."""
    if d.error and not d.ops:
        return [f"{d.name.capitalize()}s: no op completed ({d.error})."]
    head = (f"{d.name.capitalize()}s: p50 {ms(d.p50)}, p99 {ms(d.p99)}"
            + (f", p99.9 {ms(d.p999)}" if d.p999 else "") + f", max {ms(d.max)} over {d.ops} ops: "
            f"one op in flight allows {d.iops_p50:,.0f} IOPS at the median ({d.iops_mean:,.0f} at the mean).")
    lines = [head + (f" It ended with an error: {d.error}." if d.error else "")]
    if floor_net > 0:
        above = max(0.0, d.p50 - floor_net)
        disk = osd.commit if d.name == "write" else 0.0
        what = (f"of which one disk commit ≈ {ms(disk)} ({commit})" if disk else
                "the disk commit among it (not measured)" if d.name == "write" else
                "the OSD's read and this client's part among it (below)")
        lines.append(f"The network floor for a {d.name} is {ms(floor_net)} ({legs}); the median {d.name} takes "
                     f"{_times(d.p50 / floor_net)} that, {ms(above)} above it, {what}.")
    else:
        lines.append(f"The network floor could not be measured, so the {d.name}s cannot be held against it.")
    lines.append(where_words(d, floor, osd))
    return lines


def where_words(d: Direction, floor: NetFloor, osd: OsdTimes) -> str:
    """Where a mean op's time goes: the network, the OSDs' own time (split where they count it), and the
    rest, which is this host's (client library, messenger, scheduling)."""
    mean = d.mean
    if mean <= 0:
        return ""
    net = floor.client_rtt
    if osd.primary <= 0 or osd.ops == 0:
        rest = max(0.0, mean - net)
        return (f"Where the time goes (mean {ms(mean)}): the network to the primary ≈ {ms(net)} "
                f"({_share(net, mean)}); the OSDs' counters were not read, so the other {ms(rest)} "
                f"({_share(rest, mean)}) is OSD work, queueing and this client together.")
    primary = min(osd.primary, mean)
    outside = max(0.0, mean - primary)  # this host's part: the round trip to the primary and the client library
    net_out = min(net, outside)
    client = outside - net_out
    parts = [f"the network to the primary ≈ {ms(net_out)} ({_share(net_out, mean)})"]
    if d.name == "write" and osd.commit > 0:
        # The primary replies once its own commit and every replica's are done: it waits for the slower.
        leg = floor.replica_leg  # the floor's: the typical heartbeat ping carries both OSDs' messengers
        replicas = leg + osd.replica if osd.replica > 0 else 0.0
        waited = min(primary, max(osd.commit, replicas))
        slower = ("the replicas" if replicas > osd.commit else "its own disk commit")
        other = max(0.0, primary - waited)
        parts.append(f"the primary OSD ≈ {ms(primary)} ({_share(primary, mean)}, from the op's arrival to its "
                     f"reply), which waits for the slower of its own disk commit ≈ {ms(osd.commit)} (BlueStore's "
                     "commit_lat)"
                     + (f" and the replicas ≈ {ms(replicas)} (round trip {ms(leg)} + their own "
                        f"{ms(osd.replica)}, subop_w_latency)" if replicas else "")
                     + f": {slower}; its remaining {ms(other)} is queueing, messengers, PG locks and processing")
    else:
        parts.append(f"the primary OSD ≈ {ms(primary)} ({_share(primary, mean)}, from the op's arrival to its "
                     "reply)")
    parts.append(f"this client ≈ {ms(client)} ({_share(client, mean)}: client library, messenger, scheduling)")
    return (f"Where the time goes (mean {ms(mean)}, about: the counters of {osd.osds} OSD"
            f"{'s' if osd.osds != 1 else ''}, which include any other client's ops): " + "; ".join(parts) + ".")


def probe_words(r: ProbeResult) -> list[str]:
    """What the probe found, in words: for each direction its numbers, its distance from the network's floor
    and where its time goes; then what the floor is made of and what could not be measured."""
    f = r.floor
    copies = r.shape.size or 1
    replica_from = ("the OSDs' fastest heartbeat ping" if f.replica_rtt_min and f.replica_leg < f.client_rtt
                    else "this host's round trip, the same wire" if f.replica_rtt_min
                    else "this host's round trip, standing in")
    legs_w = (f"this host ↔ primary {ms(f.client_rtt)} + primary ↔ "
              f"{'shards' if r.shape.erasure else 'replicas'} {ms(f.replica_leg)} from {replica_from}"
              if copies > 1 else f"this host ↔ primary {ms(f.client_rtt)}, one copy")
    lines = [f"Latency probe of {r.target} ({r.shape.text}"
             + (f", client cache {r.cache}" if r.cache else "") + "): 4 KiB, one op in flight"
             + ("; each write a new object, as `rados bench` writes." if r.kind == "rados" else ".")]
    if r.cache == "writeback":  # librbd acknowledges a cached write before any OSD has it
        lines.append("With librbd's writeback cache a write returns once it is in this host's memory, before "
                     "any OSD has it: the writes below can beat the network floor, and a VM with cache=none "
                     "never sees them.")
    lines += direction_words(r.write, write_floor(f, r.shape), legs_w, r.osd_write, f,
                             "BlueStore's commit_lat during the writes")
    if r.read is not None:
        lines += direction_words(r.read, f.client_rtt, f"this host ↔ primary {ms(f.client_rtt)}", r.osd_read, f)
    if f.measured:
        lines.append(f"The network floor: TCP handshakes from this host to {f.osds_answered} OSD"
                     f"{'s' if f.osds_answered != 1 else ''} (median of each one's best {ms(f.client_rtt)}, from "
                     f"{ms(f.client_rtt_min)} to {ms(f.client_rtt_max)})"
                     + (f"; the OSDs' heartbeat pings on the back network, {f.replica_pairs} pairs: typical "
                        f"{ms(f.replica_rtt)}, fastest {ms(f.replica_rtt_min)} (through both OSDs' messengers, "
                        "so above the wire)" if f.replica_rtt else "") + ".")
    for note in (f.note, r.perf_note, r.finish_note):
        if note:
            lines.append(note[0].upper() + note[1:] + ("" if note.endswith(".") else "."))
    return [line for line in lines if line]
