"""The per-OSD bench without a cluster: replies captured from a real sandbox (tests/fixtures/osdbench,
scripts/capture_osdbench_fixture.py), replayed through the real CephClient.osd_tell."""
from __future__ import annotations

import errno
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from cephtui.ceph.answers import loads
from cephtui.ceph.bench import osdbench
from cephtui.ceph.bench.osdbench import (
    DEFAULT_BLOCK,
    DEFAULT_TOTAL,
    OSDBench,
    OSDBenchParams,
    OSDBenchResult,
    cli,
    parse_bench_reply,
    rank_results,
)
from cephtui.ceph.client import CephClient
from cephtui.ceph.errors import CephError, CephTimeout

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "osdbench" / "replies.json"
MiB = 1024 * 1024
REPLIES: list[dict[str, Any]] = json.loads(FIXTURE.read_text())["replies"]


def reply(label: str, osd: int) -> dict[str, Any]:
    return next(r for r in REPLIES if r["label"] == label and r["osd"] == osd)


class ReplayHandle:
    """Stands in for rados.Rados: answers osd_command with the captured (ret, outbuf, outs)."""

    def __init__(self, label: str = "64MiB_4MiB") -> None:
        self.label = label
        self.calls: list[tuple[int, dict[str, Any]]] = []

    def osd_command(self, osd: int, cmd: str, inbuf: bytes, timeout: int = 0) -> tuple[int, bytes, str]:
        parsed = json.loads(cmd)
        self.calls.append((osd, parsed))
        want = {k: v for k, v in parsed.items() if k != "prefix"}
        for r in REPLIES:  # the capture whose command matches, for this OSD
            if r["osd"] == osd and {k: v for k, v in r["cmd"].items() if k != "prefix"} == want:
                return r["ret"], r["outbuf"].encode(), r["outs"]
        if osd == 9:
            r = reply("nonexistent", 9)
            return r["ret"], b"", r["outs"]
        return 0, reply(self.label, osd)["outbuf"].encode(), ""


def replay_client(handle: ReplayHandle) -> CephClient:
    c = CephClient()
    c._handle = handle  # the real osd_tell, a recorded cluster underneath
    return c


# ------------------------------------------------------------------ parsing
def test_parse_captured_default_reply() -> None:
    raw = reply("default", 0)
    assert raw["cmd"] == {"prefix": "bench", "format": "json"}  # the OSD's own defaults
    r = parse_bench_reply(0, loads(raw["outbuf"]))
    assert r.ok and r.osd == 0
    assert (r.bytes_written, r.blocksize) == (DEFAULT_TOTAL, DEFAULT_BLOCK) == (1073741824, 4194304)
    assert r.elapsed_sec == pytest.approx(2.93213399)
    assert r.bytes_per_sec == pytest.approx(366198075.41605556)
    assert r.iops == pytest.approx(87.308424810422792)
    assert r.mib_per_sec == pytest.approx(349.23, abs=0.01)


@pytest.mark.parametrize("label", ["default", "64MiB_4MiB"])
def test_captured_replies_are_self_consistent(label: str) -> None:
    for osd in (0, 1, 2):
        r = parse_bench_reply(osd, loads(reply(label, osd)["outbuf"]))
        assert r.ok
        assert r.bytes_per_sec == pytest.approx(r.bytes_written / r.elapsed_sec, rel=1e-6)
        assert r.iops == pytest.approx(r.bytes_per_sec / r.blocksize, rel=1e-6)


def test_parse_small_block_reply() -> None:
    r = parse_bench_reply(0, loads(reply("4KiB_at_limit", 0)["outbuf"]))
    assert (r.bytes_written, r.blocksize) == (12288000, 4096)
    assert r.iops == pytest.approx(10183.16, abs=0.01)


def test_parse_is_lenient() -> None:
    captured = loads(reply("64MiB_4MiB", 1)["outbuf"])
    # Rates missing or odd: derived from what is there.
    partial = {k: v for k, v in captured.items() if k not in ("bytes_per_sec", "iops")}
    r = parse_bench_reply(1, partial)
    assert r.ok and r.bytes_per_sec == pytest.approx(captured["bytes_per_sec"], rel=1e-6)
    assert r.iops == pytest.approx(captured["iops"], rel=1e-6)
    r = parse_bench_reply(1, {**captured, "bytes_per_sec": "nan", "iops": None})
    assert r.ok and r.bytes_per_sec == pytest.approx(captured["bytes_per_sec"], rel=1e-6)
    # Strings are numbers too.
    r = parse_bench_reply(1, {k: str(v) for k, v in captured.items()})
    assert r.ok and r.bytes_written == 67108864
    # Nothing usable: an error, not a row of zeros that would rank last as "slow".
    assert not parse_bench_reply(1, {}).ok
    assert not parse_bench_reply(1, None).ok
    assert "unexpected reply" in (parse_bench_reply(1, "bench: wrote 1 GiB").error or "")


# ------------------------------------------------------------------ params, CLI
def test_params_defaults_match_ceph_tell_bench() -> None:
    p = OSDBenchParams()
    assert (p.total_bytes, p.block_size, p.blocks) == (1 << 30, 4 << 20, 256)
    assert cli(3, p) == "ceph tell osd.3 bench 1073741824 4194304"
    assert cli(12, OSDBenchParams(64 * MiB, 4096)) == "ceph tell osd.12 bench 67108864 4096"
    assert p.default_limit_warning() is None


@pytest.mark.parametrize(("total", "block", "words"), [
    (0, 4096, "total bytes must be positive"),
    (4096, -1, "block size must be positive"),
    (4096, True, "block size must be a whole number"),
    (1.5e9, 4096, "total bytes must be a whole number"),
    (4096, 8192, "must not exceed the total"),
    (1000000, 4096, "must be a multiple of the block size"),
])
def test_params_validation(total: Any, block: Any, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        OSDBenchParams(total, block)


def test_default_limit_warning_matches_the_osds_own_refusals() -> None:
    # Exactly the OSD's limits, as its captured refusals state them.
    assert "12288000" in reply("refused_small_iops", 0)["outs"]
    assert OSDBenchParams(12288000, 4096).default_limit_warning() is None
    w = OSDBenchParams(12288000 + 4096, 4096).default_limit_warning()
    assert w and "osd_bench_small_size_max_iops" in w and "12288000" in w
    assert "3145728000" in reply("refused_large_throughput", 0)["outs"]
    assert OSDBenchParams(3145728000, 4 * MiB).default_limit_warning() is None
    w = OSDBenchParams(3145728000 + 4 * MiB, 4 * MiB).default_limit_warning()
    assert w and "osd_bench_large_size_max_throughput" in w
    assert "capped at 64 MiB" in reply("refused_block_size", 0)["outs"]
    assert OSDBenchParams(64 * MiB, 64 * MiB).default_limit_warning() is None
    w = OSDBenchParams(128 * MiB, 128 * MiB).default_limit_warning()
    assert w and "osd_bench_max_block_size" in w


# ------------------------------------------------------------------ the runner
def test_sweep_through_osd_tell_is_serial_and_reports_progress() -> None:
    handle = ReplayHandle()
    progress: list[tuple[int, int, int | None, OSDBenchResult | None]] = []
    bench = OSDBench(replay_client(handle), [2, 0, 1, 0], OSDBenchParams(64 * MiB, 4 * MiB),
                     on_progress=lambda *a: progress.append(a))
    results = bench.run()
    assert [r.osd for r in results] == [2, 0, 1]  # given order, each once
    assert [c[0] for c in handle.calls] == [2, 0, 1]
    assert handle.calls[0][1] == {"prefix": "bench", "count": 67108864, "size": 4194304, "format": "json"}
    assert all(r.ok for r in results)
    assert results[0].bytes_per_sec == pytest.approx(864854855.92841303)
    assert [(d, t, c, r is not None) for d, t, c, r in progress] == [
        (0, 3, 2, False), (1, 3, None, True), (1, 3, 0, False), (2, 3, None, True),
        (2, 3, 1, False), (3, 3, None, True)]
    assert progress[1][3] == results[0]


def test_errors_are_captured_per_osd_and_the_sweep_goes_on() -> None:
    results = OSDBench(replay_client(ReplayHandle()), [9, 0]).run()  # osd.9 does not exist
    assert results[0].error == "osd.9 does not exist" and results[0].bytes_per_sec == 0
    assert results[1].ok


def test_refusal_text_is_the_osds_own() -> None:
    class Refusing(ReplayHandle):
        def osd_command(self, osd: int, cmd: str, inbuf: bytes, timeout: int = 0) -> tuple[int, bytes, str]:
            self.calls.append((osd, json.loads(cmd)))
            r = reply("refused_small_iops", 0) if osd == 0 else reply("down", 2)
            return r["ret"], b"", r["outs"]

    results = OSDBench(replay_client(Refusing()), [0, 2], OSDBenchParams(12288000 + 4096, 4096)).run()
    assert results[0].error is not None
    assert results[0].error.startswith("'count' values greater than 12288000 for a block size of 4 KiB")
    assert "osd_bench_small_size_max_iops" in results[0].error and "[errno 22]" in results[0].error
    assert results[1].error == "osd.2 is down"


def test_stop_ends_after_the_current_osd() -> None:
    bench: OSDBench

    def on_progress(done: int, total: int, current: int | None, result: OSDBenchResult | None) -> None:
        if result is not None and done == 1:
            bench.stop()

    bench = OSDBench(replay_client(ReplayHandle()), [0, 1, 2], on_progress=on_progress)
    assert [r.osd for r in bench.run()] == [0]
    assert bench.stopping


def test_stop_from_another_thread_while_an_osd_runs() -> None:
    started, release = threading.Event(), threading.Event()

    class Slow(ReplayHandle):
        def osd_command(self, osd: int, cmd: str, inbuf: bytes, timeout: int = 0) -> tuple[int, bytes, str]:
            started.set()
            assert release.wait(5)
            return super().osd_command(osd, cmd, inbuf, timeout)

    bench = OSDBench(replay_client(Slow()), [0, 1, 2])
    t = threading.Thread(target=bench.run)
    t.start()
    assert started.wait(5)
    bench.stop()  # the OSD in progress cannot be interrupted; it finishes
    release.set()
    t.join(5)
    assert not t.is_alive()
    assert [r.osd for r in bench.results] == [0] and bench.results[0].ok


def test_timeout_waits_for_the_osd_before_the_next_one() -> None:
    calls: list[tuple[int, str]] = []

    class Teller:
        def osd_tell(self, osd: int, prefix: str, **args: Any) -> Any:
            calls.append((osd, prefix))
            if osd == 0 and prefix == "bench":
                raise CephTimeout(errno.ETIMEDOUT, "no reply from osd.0 within 5s (rados_osd_op_timeout)",
                                  "osd.0 bench")
            if prefix == "version":
                return {"version": "16.2.15"}
            return loads(reply("64MiB_4MiB", osd)["outbuf"])

    results = OSDBench(Teller(), [0, 1]).run()
    assert calls == [(0, "bench"), (0, "version"), (1, "bench")]
    assert results[0].error == ("no reply from osd.0 within 5s (rados_osd_op_timeout) [errno 110]; "
                                "the bench finished on the OSD later (use a longer timeout)")
    assert results[1].ok


def test_timeout_wait_gives_up_after_its_budget_or_when_the_osd_goes(monkeypatch: pytest.MonkeyPatch) -> None:
    answers: list[Exception] = []

    class Teller:
        def osd_tell(self, osd: int, prefix: str, **args: Any) -> Any:
            if prefix == "bench" or not answers:
                raise CephTimeout(errno.ETIMEDOUT, "no reply", f"osd.{osd} {prefix}")
            raise answers.pop(0)

    monkeypatch.setattr(osdbench, "DRAIN_BUDGET", 0.0)
    (r,) = OSDBench(Teller(), [3]).run()
    assert r.error == "no reply [errno 110]; it may still be running, so the next results may be low"
    answers.append(CephError(errno.ENXIO, "osd down", "osd.3 version"))
    (r,) = OSDBench(Teller(), [3]).run()
    assert r.error == "no reply [errno 110]; then: osd.3 is down"


# ------------------------------------------------------------------ ranking
def test_ranking_of_the_captured_default_sweep() -> None:
    results = [parse_bench_reply(o, loads(reply("default", o)["outbuf"])) for o in (0, 1, 2)]
    ranking = rank_results(results)
    assert [(r.osd, r.rank, r.flag) for r in ranking.rows] == [(2, 1, ""), (1, 2, ""), (0, 3, "slow")]
    assert ranking.median_bytes_per_sec == pytest.approx(906276160.90507102)
    assert ranking.rows[2].ratio == pytest.approx(366198075.41605556 / 906276160.90507102)
    assert ranking.rows[0].ratio == pytest.approx(1.4638, abs=1e-4)  # under 1.5: not flagged
    assert [r.osd for r in ranking.outliers] == [0]


def ok(osd: int, mib_s: float) -> OSDBenchResult:
    return OSDBenchResult(osd, 64 * MiB, 4 * MiB, 64 / mib_s, mib_s * MiB, mib_s / 4)


def test_ranking_flags_fast_slow_and_puts_errors_last() -> None:
    results = [ok(0, 100), ok(1, 110), OSDBenchResult(7, error="osd.7 is down"), ok(2, 60), ok(3, 170),
               ok(4, 95)]
    ranking = rank_results(results)
    assert ranking.median_bytes_per_sec == 100 * MiB
    assert [(r.osd, r.rank, r.flag) for r in ranking.rows] == [
        (3, 1, "fast"), (1, 2, ""), (0, 3, ""), (4, 4, ""), (2, 5, "slow"), (7, None, "error")]
    assert ranking.rows[0].ratio == pytest.approx(1.7) and ranking.rows[-1].ratio is None
    # At the thresholds themselves: not flagged.
    edge = rank_results([ok(0, 70), ok(1, 100), ok(2, 150)])
    assert [r.flag for r in edge.rows] == ["", "", ""]


def test_ranking_needs_three_to_flag_and_breaks_ties_by_id() -> None:
    two = rank_results([ok(0, 10), ok(1, 100)])
    assert [(r.osd, r.flag) for r in two.rows] == [(1, ""), (0, "")]
    assert two.median_bytes_per_sec == 55 * MiB
    tie = rank_results([ok(5, 100), ok(2, 100), ok(9, 100)])
    assert [(r.osd, r.rank, r.ratio) for r in tie.rows] == [(2, 1, 1.0), (5, 2, 1.0), (9, 3, 1.0)]
    empty = rank_results([OSDBenchResult(1, error="x")])
    assert empty.median_bytes_per_sec == 0.0 and [r.flag for r in empty.rows] == ["error"]
    assert rank_results([]).rows == ()
