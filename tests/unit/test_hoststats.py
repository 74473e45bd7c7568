"""HostSampler on this machine's real counters, and the bottleneck hint on constructed samples."""
from __future__ import annotations

import socket
import threading
import time
from dataclasses import replace
from pathlib import Path

import psutil
import pytest

from cephtui.ceph.bench import hoststats
from cephtui.ceph.bench.hoststats import HostSample, HostSampler, NicRate, bottleneck_hint, physical_disks
from tests.conftest import wait_until

MiB = 1024 * 1024


def test_first_call_primes_then_rates_are_sane() -> None:
    s = HostSampler()
    before_first = time.monotonic()
    first = s.sample()
    assert not first.primed and first.interval == 0.0
    assert first.cpu_percent is None and first.per_core_percent == () and first.busiest_core is None
    assert first.disk_read_bps is None and first.net_rx_bps is None and first.loopback_rx_bps is None
    assert all(n.rx_bps is None for n in first.nics)
    assert 0 < first.mem_used < first.mem_total == psutil.virtual_memory().total
    after_first = time.monotonic()
    time.sleep(0.3)  # the interval measured over (its counters must move), not a wait for something
    before_second = time.monotonic()
    second = s.sample()
    # The interval is the time between the two samples, whatever the machine's load made it.
    assert second.primed and before_second - after_first <= second.interval <= time.monotonic() - before_first
    assert second.cpu_count == psutil.cpu_count() == len(second.per_core_percent)
    assert second.cpu_percent is not None and 0.0 <= second.cpu_percent <= 100.0
    assert all(0.0 <= c <= 100.0 for c in second.per_core_percent)
    assert second.busiest_core is not None
    assert second.busiest_core_percent == max(second.per_core_percent)
    assert second.process_cpu_percent is not None and second.process_cpu_percent >= 0.0
    for rate in (second.disk_read_bps, second.disk_write_bps, second.net_rx_bps, second.net_tx_bps,
                 second.loopback_rx_bps, second.loopback_tx_bps):
        assert rate is not None and rate >= 0.0
    assert all(n.rx_bps is not None and n.rx_bps >= 0 and n.tx_bps is not None and n.tx_bps >= 0
               for n in second.nics)


def test_loopback_is_reported_apart() -> None:
    s = HostSampler()
    s.sample()
    payload = 16 * MiB
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)

    def drain() -> None:
        conn, _ = srv.accept()
        got = 0
        while got < payload:
            chunk = conn.recv(1 << 20)
            if not chunk:
                break
            got += len(chunk)
        conn.close()

    lo_before = psutil.net_io_counters(pernic=True)["lo"]
    t = threading.Thread(target=drain)
    t.start()
    with socket.create_connection(srv.getsockname()) as c:
        c.sendall(bytes(payload))
    t.join(10)
    srv.close()

    def counted() -> bool:
        lo = psutil.net_io_counters(pernic=True)["lo"]
        return lo.bytes_recv - lo_before.bytes_recv >= payload and lo.bytes_sent - lo_before.bytes_sent >= payload
    wait_until(counted, 10, "the kernel's lo counters to hold the payload", interval=0.01)
    sample = s.sample()
    lo = [n for n in sample.nics if n.loopback]
    assert [n.name for n in lo] == ["lo"] and not lo[0].physical
    # Each byte is sent and received once on lo; totals for the real NICs do not include it.
    assert sample.loopback_tx_bps is not None and sample.loopback_tx_bps * sample.interval >= payload
    assert sample.loopback_rx_bps is not None and sample.loopback_rx_bps * sample.interval >= payload
    assert sample.net_tx_bps is not None and sample.net_tx_bps * sample.interval < payload


def test_own_cpu_is_measured() -> None:
    s = HostSampler()
    before_first = time.process_time()
    s.sample()
    cpu0 = time.process_time()
    while time.process_time() - cpu0 < 0.4:  # CPU time, not wall time: other load must not matter
        pass
    spun = time.process_time() - cpu0
    sample = s.sample()
    after_second = time.process_time() - before_first
    assert sample.process_cpu_percent is not None
    # percent of one core x seconds = CPU seconds spent between the two samples' reads: at least the spin, at
    # most everything from before the first sample to after the second (a sample's own psutil work, after its
    # read, counts too: 0.2 s of it once on Python 3.9 in a loaded matrix run); /proc ticks are 10 ms.
    measured = sample.process_cpu_percent / 100 * sample.interval
    assert spun - 0.03 <= measured <= after_second + 0.03, (spun, measured, after_second)


def test_physical_disks_skip_partitions_and_virtual_devices() -> None:
    names = list((psutil.disk_io_counters(perdisk=True) or {}).keys())
    disks = physical_disks(names)
    assert disks, f"no physical disk among {names}"
    for d in disks:
        assert (Path("/sys/block") / d / "device").exists()
        assert not d.startswith(("loop", "ram", "zram", "dm-", "md"))
    partitions = [n for n in names if not (Path("/sys/block") / n).exists()]
    assert not set(partitions) & set(disks)
    assert HostSampler().sample().disks == disks


def test_physical_disks_without_sys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(hoststats, "_SYS_BLOCK", tmp_path / "nope")
    got = physical_disks(["loop0", "ram1", "zram0", "dm-0", "md127", "sda", "nvme0n1", "vda"])
    assert got == ("nvme0n1", "sda", "vda")


def test_sample_stays_cheap_the_nic_stats_are_read_every_30s(monkeypatch: pytest.MonkeyPatch) -> None:
    """A sample is a few /proc reads (median ~0.5 ms measured here); the costly part, an ioctl per NIC
    for its link speed, is done once per NIC_STATS_EVERY, not on every sample."""
    now = [1000.0]
    s = HostSampler(clock=lambda: now[0])
    calls = []
    real = psutil.net_if_stats
    monkeypatch.setattr(hoststats.psutil, "net_if_stats", lambda: calls.append(now[0]) or real())
    for _ in range(70):  # one sample a second for 70 s
        s.sample()
        now[0] += 1.0
    assert calls == [1000.0, 1030.0, 1060.0]


# ------------------------------------------------------------------ hints
def sample(per_core: tuple[float, ...] = (10.0, 10.0), nics: tuple[NicRate, ...] = (),
           own: float = 95.0) -> HostSample:
    return HostSample(at=100.0, interval=1.0, cpu_count=len(per_core),
                      cpu_percent=sum(per_core) / len(per_core), per_core_percent=per_core,
                      busiest_core=per_core.index(max(per_core)), busiest_core_percent=max(per_core),
                      process_cpu_percent=own, mem_used=1 << 30, mem_total=8 << 30,
                      disk_read_bps=0.0, disk_write_bps=0.0, disks=("sda",), nics=nics,
                      net_rx_bps=0.0, net_tx_bps=0.0, loopback_rx_bps=0.0, loopback_tx_bps=0.0)


def nic(name: str = "eth0", rx: float = 0.0, tx: float = 0.0, speed: int = 1000, **kw: bool) -> NicRate:
    return NicRate(name, rx, tx, speed, **kw)


def test_hint_cpu() -> None:
    assert bottleneck_hint(sample((100.0, 20.0))) == "client CPU saturated (one core at 100%)"
    assert bottleneck_hint(sample((97.0, 99.0))) == "client CPU saturated (all 2 cores at 98%)"
    assert bottleneck_hint(sample((90.0, 90.0))) is None
    assert bottleneck_hint(sample((100.0,))) == "client CPU saturated (all 1 cores at 100%)"
    # the CPU is pegged but not by us: on a mon/OSD node the daemons compete with the bench
    assert bottleneck_hint(sample((100.0, 20.0), own=28.0)) == (
        "host CPU saturated (one core at 100%), cephtui only 28% of a core: other processes compete")


def test_hint_network_line_rate() -> None:
    gig = 1000 * 1e6 / 8  # bytes/s at 1 Gb/s
    assert bottleneck_hint(sample(nics=(nic(tx=0.95 * gig),))) == "network near eth0 line rate (950 of 1000 Mb/s)"
    assert bottleneck_hint(sample(nics=(nic(rx=0.92 * gig, tx=0.1 * gig),))) is not None
    assert bottleneck_hint(sample(nics=(nic(tx=0.5 * gig),))) is None
    # Unknown speed (0) or loopback: never a line-rate claim.
    assert bottleneck_hint(sample(nics=(nic(tx=5e9, speed=0),))) is None
    assert bottleneck_hint(sample(nics=(nic("lo", tx=5e9, speed=0, loopback=True, physical=False),))) is None
    # CPU wins when both apply.
    both = sample((100.0, 5.0), nics=(nic(tx=gig),))
    assert bottleneck_hint(both) == "client CPU saturated (one core at 100%)"


def test_hint_bench_rate_against_the_links() -> None:
    one = sample(nics=(nic(), nic("lo", speed=0, loopback=True, physical=False)))
    assert bottleneck_hint(one, bench_mib_s=112.0) == ("bench rate 112 MiB/s is near the line rate of eth0 "
                                                       "(1000 Mb/s)")
    assert bottleneck_hint(one, bench_mib_s=60.0) is None
    # Two links: the bench can use both.
    bond = sample(nics=(nic("eth0"), nic("eth1")))
    assert bottleneck_hint(bond, bench_mib_s=112.0) is None
    assert bottleneck_hint(bond, bench_mib_s=220.0) is not None
    # One link of unknown speed: no claim. A link that is down does not count.
    assert bottleneck_hint(sample(nics=(nic("eth0"), nic("eth1", speed=0))), bench_mib_s=500.0) is None
    assert bottleneck_hint(sample(nics=(nic("eth0"), nic("eth1", up=False, speed=0))), bench_mib_s=112.0)


def test_no_hint_before_priming() -> None:
    primed = sample((100.0, 100.0))
    assert bottleneck_hint(replace(primed, interval=0.0)) is None
