"""This host's own load while a bench runs, so a result can be read against it.

A bench that tops out because the client is saturated (one Python core at 100%, or the
NIC at line rate) says nothing about the cluster. `HostSampler.sample()`, called about
once a second, returns rates since the previous call from psutil (which reads /proc
and /sys; no subprocesses). Its first call only primes the counters.
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

_SYS_BLOCK = Path("/sys/block")
_SYS_NET = Path("/sys/class/net")
# Without /sys (not Linux) fall back to names. loop and ram are files and memory; zram is
# compressed memory; dm-* and md* are stacked on real disks, whose I/O they would count twice.
_VIRTUAL_DISK_PREFIXES = ("loop", "ram", "zram", "dm-", "md", "nbd", "sr", "fd")
NIC_STATS_EVERY = 30.0  # seconds: link speed and up/down rarely change and cost an ioctl per NIC


@dataclass(frozen=True)
class NicRate:
    name: str
    rx_bps: float | None  # bytes/s; None on the priming call
    tx_bps: float | None
    speed_mbps: int = 0  # link speed as the kernel reports it, megabits/s; 0 when unknown
    loopback: bool = False
    physical: bool = True  # a real device (not a bridge, veth, tunnel, bond...)
    up: bool = True


@dataclass(frozen=True)
class HostSample:
    at: float  # time.monotonic() of the sample
    interval: float  # seconds since the previous sample; 0.0 on the priming call
    cpu_count: int
    cpu_percent: float | None  # all cores, 0-100
    per_core_percent: tuple[float, ...]  # empty on the priming call
    busiest_core: int | None
    busiest_core_percent: float | None
    # cephtui itself with its bench worker process, in percent of ONE core (like top): may exceed 100
    process_cpu_percent: float | None
    mem_used: int  # total - available: what applications hold, not counting reclaimable cache
    mem_total: int
    disk_read_bps: float | None  # physical disks only, summed
    disk_write_bps: float | None
    disks: tuple[str, ...]  # which devices were counted
    nics: tuple[NicRate, ...] = field(default_factory=tuple)
    net_rx_bps: float | None = None  # physical NICs (all non-loopback if none is physical)
    net_tx_bps: float | None = None
    loopback_rx_bps: float | None = None  # the sandbox cluster talks over lo; a real one does not
    loopback_tx_bps: float | None = None

    @property
    def primed(self) -> bool:
        """False for the first call's sample, which has counters but no rates."""
        return self.interval > 0

    def nic(self, name: str) -> NicRate | None:
        return next((n for n in self.nics if n.name == name), None)


def physical_disks(names: list[str]) -> tuple[str, ...]:
    """Whole physical disks among psutil's per-disk names (which include partitions).

    On Linux: entries of /sys/block (whole disks, no partitions) that have a `device` link
    (loop, ram, zram, dm-*, md* have none). dm/md are skipped on purpose: their I/O is also
    counted on the disks beneath them.
    """
    if _SYS_BLOCK.is_dir():
        return tuple(sorted(n for n in names if (_SYS_BLOCK / n / "device").exists()))
    return tuple(sorted(n for n in names if not n.startswith(_VIRTUAL_DISK_PREFIXES)))


def _is_physical_nic(name: str) -> bool:
    if _SYS_NET.is_dir():
        return (_SYS_NET / name / "device").exists()
    return True


class HostSampler:
    """Call `sample()` about once a second from one thread. Each call reads /proc/stat,
    /proc/self/stat, /proc/meminfo, /proc/diskstats and /proc/net/dev once."""

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 workers: Callable[[], tuple[int, ...]] | None = None) -> None:
        from cephtui.ceph.bench.remote import worker_pids

        self._clock = clock
        self._proc = psutil.Process(os.getpid())
        # The bench engine runs in a worker process (remote.py): its CPU is cephtui's client CPU too.
        self._workers = worker_pids if workers is None else workers
        self._worker_procs: dict[int, psutil.Process] = {}
        self._prev: dict[str, Any] | None = None
        self._nic_info: dict[str, tuple[int, bool, bool, bool]] = {}  # name -> (speed, loopback, physical, up)
        self._nic_info_at = -NIC_STATS_EVERY
        self._disks: tuple[str, ...] | None = None

    def _refresh_nic_info(self, now: float) -> None:
        if now - self._nic_info_at < NIC_STATS_EVERY and self._nic_info:
            return
        info: dict[str, tuple[int, bool, bool, bool]] = {}
        for name, st in psutil.net_if_stats().items():
            flags = getattr(st, "flags", "")  # psutil >= 5.9.3; otherwise go by the name
            loopback = "loopback" in flags.split(",") if flags else name == "lo"
            info[name] = (max(0, int(st.speed or 0)), loopback, not loopback and _is_physical_nic(name),
                          bool(st.isup))
        self._nic_info, self._nic_info_at = info, now

    def sample(self) -> HostSample:
        now = self._clock()
        cores = psutil.cpu_times(percpu=True)
        proc = self._proc.cpu_times()
        mem = psutil.virtual_memory()
        disks_raw = psutil.disk_io_counters(perdisk=True, nowrap=True) or {}
        net_raw = psutil.net_io_counters(pernic=True, nowrap=True) or {}
        self._refresh_nic_info(now)
        if self._disks is None:
            self._disks = physical_disks(list(disks_raw))

        core_busy = [(_busy(c), _total(c)) for c in cores]
        # A worker that ended and was waited for moves its time into children_*: the sum stays continuous.
        proc_cpu = proc.user + proc.system + proc.children_user + proc.children_system + self._workers_cpu()
        disk_r = sum(disks_raw[d].read_bytes for d in self._disks if d in disks_raw)
        disk_w = sum(disks_raw[d].write_bytes for d in self._disks if d in disks_raw)
        net = {name: (c.bytes_recv, c.bytes_sent) for name, c in net_raw.items()}
        cur: dict[str, Any] = {"at": now, "cores": core_busy, "proc": proc_cpu, "disk": (disk_r, disk_w), "net": net}
        prev, self._prev = self._prev, cur
        mem_used = int(mem.total - mem.available)

        dt = now - prev["at"] if prev else 0.0
        if prev is None or dt <= 0:
            nics = tuple(self._nic(name, None, None) for name in sorted(net))
            return HostSample(now, 0.0, len(cores), None, (), None, None, None, mem_used, int(mem.total),
                              None, None, self._disks, nics)

        per_core: list[float] = []
        for (busy, total), (pbusy, ptotal) in zip(core_busy, prev["cores"]):
            span = total - ptotal
            per_core.append(_clamp(100.0 * (busy - pbusy) / span) if span > 0 else 0.0)
        all_span = sum(t for _, t in core_busy) - sum(t for _, t in prev["cores"])
        all_busy = sum(b for b, _ in core_busy) - sum(b for b, _ in prev["cores"])
        cpu = _clamp(100.0 * all_busy / all_span) if all_span > 0 else 0.0
        busiest = max(range(len(per_core)), key=per_core.__getitem__) if per_core else None

        rates: list[NicRate] = []
        for name in sorted(net):
            rx, tx = net[name]
            prx, ptx = prev["net"].get(name, (rx, tx))  # a NIC that just appeared: no rate yet
            rates.append(self._nic(name, _rate(rx - prx, dt), _rate(tx - ptx, dt)))
        counted = [n for n in rates if n.physical] or [n for n in rates if not n.loopback]
        loop = [n for n in rates if n.loopback]
        pr, pw = prev["disk"]
        return HostSample(
            at=now, interval=dt, cpu_count=len(cores), cpu_percent=cpu, per_core_percent=tuple(per_core),
            busiest_core=busiest, busiest_core_percent=per_core[busiest] if busiest is not None else None,
            process_cpu_percent=max(0.0, 100.0 * (proc_cpu - prev["proc"]) / dt),
            mem_used=mem_used, mem_total=int(mem.total),
            disk_read_bps=_rate(disk_r - pr, dt), disk_write_bps=_rate(disk_w - pw, dt), disks=self._disks,
            nics=tuple(rates),
            net_rx_bps=sum(n.rx_bps or 0.0 for n in counted), net_tx_bps=sum(n.tx_bps or 0.0 for n in counted),
            loopback_rx_bps=sum(n.rx_bps or 0.0 for n in loop), loopback_tx_bps=sum(n.tx_bps or 0.0 for n in loop),
        )

    def _workers_cpu(self) -> float:
        """CPU seconds of the live bench workers (their /proc/PID/stat: cheap, unlike a scan for children)."""
        pids = set(self._workers())
        for gone in set(self._worker_procs) - pids:
            del self._worker_procs[gone]
        total = 0.0
        for pid in pids:
            try:
                proc = self._worker_procs.get(pid) or self._worker_procs.setdefault(pid, psutil.Process(pid))
                t = proc.cpu_times()
                total += t.user + t.system
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                self._worker_procs.pop(pid, None)
        return total

    def _nic(self, name: str, rx: float | None, tx: float | None) -> NicRate:
        speed, loopback, physical, up = self._nic_info.get(name, (0, name == "lo", False, True))
        return NicRate(name, rx, tx, speed, loopback, physical, up)


def _busy(c: Any) -> float:
    # iowait is time the core had nothing to run: idle for our purpose, as top counts it.
    return _total(c) - c.idle - getattr(c, "iowait", 0.0)


def _total(c: Any) -> float:
    # guest time is already inside user on Linux; psutil's fields otherwise add up to the total.
    return sum(c) - getattr(c, "guest", 0.0) - getattr(c, "guest_nice", 0.0)


def _rate(delta: float, dt: float) -> float:
    return max(0.0, delta / dt)  # counters that went backwards (a NIC re-created) read as 0


def _clamp(pct: float) -> float:
    return min(100.0, max(0.0, pct))


CORE_SATURATED = 95.0  # percent: /proc/stat ticks are coarse; a pegged thread reads 96-100
NIC_NEAR_LINE_RATE = 0.9  # of the link speed: protocol overhead makes 100% unreachable
# cephtui's bench is one Python process that mostly holds one core (the GIL): at 70% of a core or
# more it is the one saturating the CPU; below, other processes (Ceph daemons on a mon/OSD node) are.
CLIENT_BUSY = 70.0


def _cpu_hint(sample: HostSample, what: str) -> str:
    own = sample.process_cpu_percent
    if own is not None and own < CLIENT_BUSY:
        return f"host CPU saturated ({what}), cephtui only {own:.0f}% of a core: other processes compete"
    return f"client CPU saturated ({what})"


def bottleneck_hint(sample: HostSample, bench_mib_s: float = 0.0) -> str | None:
    """A one-line reason the client side may cap a bench, or None. Conservative: it names
    only a pegged CPU or a NIC at its reported line rate; silence does not mean the
    cluster is the limit."""
    if not sample.primed:
        return None
    if sample.cpu_percent is not None and sample.cpu_percent >= CORE_SATURATED:
        return _cpu_hint(sample, f"all {sample.cpu_count} cores at {sample.cpu_percent:.0f}%")
    if (sample.busiest_core_percent is not None and sample.busiest_core_percent >= CORE_SATURATED
            and sample.cpu_count > 1):
        return _cpu_hint(sample, f"one core at {sample.busiest_core_percent:.0f}%")
    for nic in sample.nics:
        if nic.loopback or nic.speed_mbps <= 0 or nic.rx_bps is None or nic.tx_bps is None:
            continue
        line = nic.speed_mbps * 1e6 / 8  # bytes/s
        busiest = max(nic.rx_bps, nic.tx_bps)
        if busiest >= NIC_NEAR_LINE_RATE * line:
            return (f"network near {nic.name} line rate ({busiest * 8 / 1e6:.0f} of "
                    f"{nic.speed_mbps} Mb/s)")
    # The bench's own rate against the links it can use: only when every one reports a speed,
    # else a NIC of unknown speed might carry the traffic.
    links = [n for n in sample.nics if n.physical and n.up and not n.loopback]
    if bench_mib_s > 0 and links and all(n.speed_mbps > 0 for n in links):
        line = sum(n.speed_mbps for n in links) * 1e6 / 8
        if bench_mib_s * 1024 * 1024 >= NIC_NEAR_LINE_RATE * line:
            names = ", ".join(n.name for n in links)
            return (f"bench rate {bench_mib_s:.0f} MiB/s is near the line rate of {names} "
                    f"({sum(n.speed_mbps for n in links)} Mb/s)")
    return None
