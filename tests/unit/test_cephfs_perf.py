"""Per-client IO (`fs perf stats`, the mgr's stats module) on the answers captured from real clusters
(scripts/capture_fs_perf_fixture.py): a client writing 1 MiB at a time and one holding a file open."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cephtui.ceph.cephfs import perf
from cephtui.ceph.errors import CephError
from cephtui.ceph.format import human_bytes, human_rate
from cephtui.ceph.recording import ReplayClient
from cephtui.ui.panes.fs_io import io_cells, io_detail
from tests.releases import release_params

pytestmark = pytest.mark.unit


def sessions(path: Path) -> list[dict]:
    return ReplayClient.load(path).mds_tell("cephfs:0", "session ls")


def monotonic(path: Path) -> float:
    return float(json.loads(path.read_text())["meta"]["monotonic"])


@pytest.mark.parametrize("path", release_params("cephfs_perf_off"))
def test_the_stats_module_off_is_said_as_such(path: Path) -> None:
    """Every release's refusal while the module is off (Reef's, whose module cannot load, too) reads as 'off'."""
    with pytest.raises(CephError) as e:
        perf.fs_perf(ReplayClient.load(path))
    assert perf.stats_off(e.value.message), e.value.message


def test_other_refusals_are_not_called_off() -> None:
    assert not perf.stats_off("no answer from the mgr within 5s")
    assert not perf.stats_off("Module 'volumes' is not enabled")


@pytest.mark.parametrize("path", release_params("cephfs_perf"))
def test_the_writer_and_the_holder_as_the_mgr_counts_them(path: Path) -> None:
    report = perf.fs_perf(ReplayClient.load(path))
    assert report.version == 2
    mine = {s["id"] for s in sessions(path) if s["client_metadata"].get("entity_id") == "admin"}
    ours = [c for c in report.of("cephfs") if c.client_id in mine]
    assert len(ours) == 2, report
    writer, holder = sorted(ours, key=lambda c: -(c.write_ops or 0))
    # 1 MiB a write and a read (its first write, before the loop, is 64 KiB)
    assert writer.write_ops and writer.write_bytes / writer.write_ops == pytest.approx(1 << 20, rel=0.01)
    assert writer.read_ops and writer.read_bytes / writer.read_ops == pytest.approx(1 << 20, rel=0.01)
    assert (holder.write_ops, holder.write_bytes, holder.read_ops) == (1, 65536, 0)  # its one 64 KiB write
    others = [c for c in report.clients if c.client_id not in mine]  # the mgr's own libcephfs (volumes)
    assert all(c.write_ops == 0 for c in others)
    for c in report.clients:
        assert c.hostname and c.root == "/" and c.fs == "cephfs"
        assert c.cap_hit is not None and 0 <= c.cap_hit <= 100
        for lat in (c.read_latency, c.write_latency, c.metadata_latency, c.read_stdev, c.write_stdev):
            assert lat is not None and lat >= 0
    assert writer.write_latency is not None and 0 < writer.write_latency < 10_000  # ms: a real, finite write


@pytest.mark.parametrize("path", release_params("cephfs_perf"))
def test_rates_are_the_bytes_written_between_two_reads(path: Path) -> None:
    later_path = path.with_name("cephfs_perf_later.json")
    first, later = (perf.fs_perf(ReplayClient.load(p)) for p in (path, later_path))
    t0, t1 = monotonic(path), monotonic(later_path)
    w0 = max(first.clients, key=lambda c: c.write_ops or 0)
    [w1] = [c for c in later.clients if c.client_id == w0.client_id]
    r = perf.rates([(t0, w0), (t1, w1)])
    assert r.over == pytest.approx(t1 - t0)
    assert r.write_bps == pytest.approx((w1.write_bytes - w0.write_bytes) / (t1 - t0))  # type: ignore[operator]
    assert r.write_bps and r.write_bps > 0 and r.write_iops and r.write_iops > 0
    # the table's row says it in cephfs-top's units
    cells = [text for text, _ in io_cells((w1, r))]
    assert cells[0] == f"client.{w1.client_id}" and cells[1] == human_rate(r.write_bps)  # type: ignore[arg-type]
    assert cells[9] == human_bytes(w1.write_bytes / w1.write_ops)  # type: ignore[operator]
    assert cells[-1] == w1.hostname
    assert "since mount" in io_detail(w1)


def test_a_rate_needs_two_reads_and_never_goes_negative() -> None:
    one = perf.ClientIO("cephfs", 1, write_ops=10, write_bytes=100)
    assert perf.rates([(0.0, one)]) == perf.Rates()
    restarted = perf.ClientIO("cephfs", 1, write_ops=1, write_bytes=10)
    assert perf.rates([(0.0, one), (2.0, restarted)]).write_bps is None


def test_the_window_takes_the_oldest_read_inside_it() -> None:
    reads = [(float(t), perf.ClientIO("cephfs", 1, write_ops=t, write_bytes=t * 100)) for t in range(0, 31, 2)]
    r = perf.rates(reads, window=10)
    assert r.over == 10 and r.write_bps == pytest.approx(100)


def test_metrics_a_client_does_not_report_are_na_not_zero() -> None:
    c = perf.ClientIO("cephfs", 7)
    cells = [text for text, _ in io_cells((c, perf.Rates()))]
    assert cells[1:-1] == ["N/A"] * (len(cells) - 2) and cells[-1] == "-"


def test_sorting_puts_the_lowest_cap_hit_first() -> None:
    low, high = perf.ClientIO("cephfs", 1, cap_hit=50.0), perf.ClientIO("cephfs", 2, cap_hit=99.0)
    none = perf.ClientIO("cephfs", 3)
    ranked = sorted((low, high, none), key=lambda c: -perf.sort_value(c, perf.Rates(), "cap_hit"))
    assert [c.client_id for c in ranked] == [1, 2, 3]
