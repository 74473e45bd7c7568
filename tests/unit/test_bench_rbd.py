"""The block bench without a cluster: rbd bench's options and defaults, the commands shown, the engine's
offsets and counts (on a stand-in image), results in the history, comparisons, and `bench rbd`'s command line."""
from __future__ import annotations

import queue
import threading
from dataclasses import replace
from typing import Any

import pytest

from cephtui.ceph.bench.blockparams import BlockParams, cache_ceph_args
from cephtui.ceph.bench.blockreport import header, sample_line, total_lines, totals_dict
from cephtui.ceph.bench.history import comparable, differences
from cephtui.ceph.bench.image import (
    Leftover,
    Watcher,
    confirmation_refusal,
    find_leftovers,
    image_create_op,
    temp_image_name,
    watched_refusal,
)
from cephtui.ceph.bench.params import BenchError, BenchParams
from cephtui.ceph.bench.rbdengine import FADVISE_RANDOM, FADVISE_SEQUENTIAL, BlockEngine
from cephtui.ceph.bench.results import BenchResult, Sample
from cephtui.cli.dispatch import parse_command_line
from cephtui.ui.screens.bench_views import final_text
from tests.unit.test_bench import _result
from tests.unit.test_bench_hot_path import LateWaker

MiB = 1 << 20


def test_defaults_are_rbd_benchs() -> None:
    # `rbd help bench` (Pacific): --io-size 4K, --io-threads 16, --io-total 1G, --io-pattern seq, --rw-mix-read 50
    p = BlockParams(pool="rbd", image="vm1")
    assert (p.io_size, p.io_threads, p.io_total, p.io_pattern, p.rw_mix_read) == (4096, 16, 1 << 30, "seq", 50)
    assert (p.cache, p.seconds, p.kind) == ("off", 0.0, "rbd")
    assert (p.mode, p.threads, p.op_size, p.total_ops) == ("write", 16, 4096, (1 << 30) // 4096)
    assert BenchParams(pool="rbd").kind == "rados"


@pytest.mark.parametrize("kw,msg", [
    ({"pool": " "}, "choose a pool"),
    ({"image": ""}, "existing image or the size"),
    ({"image": "a b"}, "image name"),
    ({"image": "a/b"}, "image name"),
    ({"io_type": "rw"}, "io type"),
    ({"io_pattern": "full-seq"}, "io pattern"),
    ({"cache": "writethrough"}, "cache must be"),
    ({"io_size": 0}, "io size"),
    ({"io_threads": 0}, "io threads"),
    ({"io_total": 100, "io_size": 4096}, "io total"),
    ({"rw_mix_read": 101}, "percentage"),
    ({"seconds": -1}, "seconds"),
    ({"seconds": float("nan")}, "seconds"),
    ({"image": "", "temp_image_size": 1000}, "between 1 MiB"),
    ({"image": "", "temp_image_size": MiB, "io_size": 2 * MiB}, "at most the image size"),
])
def test_bad_parameters_are_refused_clearly(kw: dict[str, Any], msg: str) -> None:
    with pytest.raises(BenchError, match=msg):
        BlockParams(**{"pool": "rbd", "image": "vm1", **kw})


def test_cli_carries_the_cache_mode_as_ceph_args() -> None:
    p = BlockParams(pool="rbd", image="vm1", io_pattern="rand")
    assert p.cli() == ("CEPH_ARGS=--rbd_cache=false rbd bench --io-type write --io-size 4096 --io-threads 16 "
                       "--io-total 1073741824 --io-pattern rand rbd/vm1")
    wb = replace(p, cache="writeback", io_type="readwrite", rw_mix_read=70)
    assert wb.cli().startswith("CEPH_ARGS='--rbd_cache=true --rbd_cache_policy=writeback "
                               "--rbd_cache_writethrough_until_flush=false' rbd bench --io-type readwrite")
    assert "--rw-mix-read 70" in wb.cli()
    assert cache_ceph_args("off") == "--rbd_cache=false"


def test_seconds_is_a_note_not_a_flag_rbd_bench_would_refuse() -> None:
    cli = BlockParams(pool="rbd", image="vm1", seconds=30).cli()
    command, _, note = cli.partition("#")
    assert "--seconds" not in command and "30 s" in note and "cephtui only" in note


def test_fio_equivalent() -> None:
    p = BlockParams(pool="rbd", image="vm1", io_pattern="rand", io_threads=1)
    assert p.fio_cli() == ("CEPH_ARGS=--rbd_cache=false fio --name=cephtui --ioengine=rbd --pool=rbd --rbdname=vm1 "
                           "--rw=randwrite --bs=4096 --iodepth=1 --size=1073741824")
    assert "--rw=randrw" in replace(p, io_type="readwrite").fio_cli()
    assert "--rwmixread=50" in replace(p, io_type="readwrite").fio_cli()
    assert "--rw=read" in replace(p, io_type="read", io_pattern="seq").fio_cli()


def _block_result(**kw: Any) -> BenchResult:
    p = BlockParams(pool="rbd", image="vm1", io_type="readwrite", io_pattern="rand", cache="writeback")
    base = _result()
    samples = (Sample(1, 100, 100, 0.4, 0.01, 0.03, 16, p50=0.009, p99=0.02, p999=0.03),
               Sample(2, 250, 150, 0.6, 0.01, 0.02, 16, p50=0.008, p99=0.019, p999=0.02))
    return replace(base, params=p, op_size=4096, object_size=0, ops=250, total_time_run=2.0, latency_p999=0.03,
                   read_ops=120, write_ops=130, samples=samples, **kw)


def test_a_block_result_round_trips_through_the_history_format() -> None:
    r = _block_result()
    d = r.to_dict()
    assert d["kind"] == "rbd" and d["params"]["kind"] == "rbd" and d["cache"] == "writeback"
    back = BenchResult.from_dict(d)
    assert back == r and isinstance(back.params, BlockParams)
    assert back.samples[1].p99 == 0.019


def test_old_history_lines_load_as_rados_runs() -> None:
    d = _result().to_dict()
    for key in ("kind", "latency_p999", "read_ops", "write_ops"):
        d.pop(key)
    d["params"].pop("kind")
    for s in d["samples"]:
        for key in ("p50", "p99", "p999"):
            s.pop(key)
    back = BenchResult.from_dict(d)
    assert isinstance(back.params, BenchParams) and back.latency_p999 == 0.0


def test_an_unknown_kind_is_a_damaged_line() -> None:
    d = _result().to_dict()
    d["kind"] = "nfs"
    with pytest.raises(ValueError, match="unknown kind"):
        BenchResult.from_dict(d)


def test_comparing_a_block_run_with_a_rados_run_says_what_differs() -> None:
    rados_run = _result(op_size=4096)
    block = _block_result()
    said = comparable(rados_run, block) or ""
    assert "kind RADOS objects (rados bench) vs a block image (rbd bench)" in said
    assert "client cache none vs writeback" in said and "mode write vs readwrite" in said
    assert "op size" not in said  # both 4096
    assert differences(block, replace(block, params=replace(block.params, cache="off"))) == [
        "client cache writeback vs off"]
    assert comparable(block, block) is None


def test_rbd_bench_output_format() -> None:
    r = _block_result()
    assert header(r.params) == ("bench  type readwrite read:write=50:50 io_size 4096 io_threads 16 bytes 1073741824 "
                                "pattern random  cache writeback (rbd_cache=true, rbd_cache_policy=writeback, "
                                "rbd_cache_writethrough_until_flush=false)")
    line = sample_line(r.samples[1], r.samples[:1], 4096)
    assert line.split()[:5] == ["2", "250", "125.00", "500", "KiB/s"]  # rolling mean of the seconds so far
    lines = total_lines(r)
    assert lines[0].startswith("elapsed: 2   ops: 250   ops/sec: 125.00   bytes/sec: 500 KiB/s")
    assert lines[1].startswith("read_ops: 120") and lines[2].startswith("write_ops: 130")
    assert "p99.9 30.000" in lines[3]


def test_json_totals_use_rbd_benchs_names() -> None:
    d = totals_dict(_block_result())
    assert (d["ops_per_sec"], d["bytes_per_sec"], d["elapsed"], d["cache"]) == (125.0, 125.0 * 4096, 2.0,
                                                                                   "writeback")
    assert d["latency"]["p99.9"] == 0.03 and d["samples"][0]["p50"] == 0.009
    assert d["result"]["kind"] == "rbd"


# ---- safety
def test_writes_need_the_image_typed_and_read_write_mode() -> None:
    p = BlockParams(pool="rbd", image="vm1")
    assert "type the image's name" in (confirmation_refusal(p, False, "") or "")
    assert "type the image's name" in (confirmation_refusal(p, False, "vm2") or "")
    assert confirmation_refusal(p, False, "vm1") is None
    assert "read-only" in (confirmation_refusal(p, True, "vm1") or "")
    assert confirmation_refusal(replace(p, io_type="read"), True, "") is None
    temp = BlockParams(pool="rbd", temp_image_size=MiB)
    assert confirmation_refusal(temp, False, "") is None  # our own image: nothing to destroy
    assert "read-only" in (confirmation_refusal(temp, True, "") or "")


def test_a_watched_image_says_who() -> None:
    why = watched_refusal("rbd", "vm1", [Watcher("10.0.0.5:0/123", 4138)]) or ""
    assert "10.0.0.5:0/123 (client.4138)" in why and "rbd status rbd/vm1" in why
    assert watched_refusal("rbd", "vm1", []) is None


def test_temp_image_commands() -> None:
    assert image_create_op("rbd", "x", 10 << 30).cli == "rbd create --size 10240M rbd/x"
    assert image_create_op("rbd", "x", MiB + 512).cli == f"rbd create --size {MiB + 512}B rbd/x"
    assert temp_image_name("vm", 42) == "cephtui-bench-vm-42"


class _FakeRbd:
    """Stands in for the rbd module: a pool's image names and their watchers."""

    class ImageNotFound(Exception):
        pass

    def __init__(self, images: dict[str, list[dict[str, Any]]]) -> None:
        self.images = images
        fake = self

        class RBD:
            def list(self, io: Any) -> list[str]:
                return list(fake.images)

        class Image:
            def __init__(self, io: Any, name: str, read_only: bool = False) -> None:
                self.name = name

            def __enter__(self) -> Image:
                return self

            def __exit__(self, *a: Any) -> None:
                pass

            def watchers_list(self) -> list[dict[str, Any]]:
                return fake.images[self.name]

        self.RBD, self.Image = RBD, Image


class _Io:
    def get_pool_name(self) -> str:
        return "rbd"


def test_leftovers_are_images_of_runs_that_are_over() -> None:
    w = [{"addr": "127.0.0.1:0/1", "id": 7, "cookie": 1}]
    fake = _FakeRbd({"vm1": [], "cephtui-bench-here-100": [], "cephtui-bench-here-200": [],
                     "cephtui-bench-here-300": w, "cephtui-bench-other-host-5": [],
                     "cephtui-bench-other-host-6": w})
    found = find_leftovers(_Io(), fake, host="here", alive=lambda pid: pid == 200)
    by_name = {f.name: f for f in found}
    # 100: dead pid here; 300: dead pid here but its watch has not expired yet; other-host-5: nobody watches.
    # 200 is alive here, other-host-6 is watched on another host (running): not leftovers; vm1 is not ours.
    assert set(by_name) == {"cephtui-bench-here-100", "cephtui-bench-here-300", "cephtui-bench-other-host-5"}
    assert by_name["cephtui-bench-here-100"].removable and not by_name["cephtui-bench-here-300"].removable
    assert by_name["cephtui-bench-other-host-5"].host == "other-host"
    assert "30 s" in by_name["cephtui-bench-here-300"].describe()
    assert Leftover("rbd", "x", "h", 1, ()).removable


# ---- the engine on a stand-in image
class _Image:
    """Completes every op from another thread, as librbd does, recording offsets, kinds and flags."""

    def __init__(self) -> None:
        self.ops: list[tuple[str, int, int, int]] = []
        self.flushed = 0
        self._q: queue.Queue[Any] = queue.Queue()
        self._t = threading.Thread(target=self._serve, daemon=True)
        self._t.start()

    def _serve(self) -> None:
        while True:
            job = self._q.get()
            if job is None:
                return
            job()

    class _Done:
        def get_return_value(self) -> int:
            return 0

    def aio_write(self, data: bytes, offset: int, cb: Any, flags: int) -> None:
        self.ops.append(("w", offset, len(data), flags))
        self._q.put(lambda: cb(self._Done()))

    def aio_read(self, offset: int, length: int, cb: Any, flags: int) -> None:
        self.ops.append(("r", offset, length, flags))
        self._q.put(lambda: cb(self._Done(), b"\0" * length))

    def flush(self) -> None:
        self.flushed += 1

    def close(self) -> None:
        self._q.put(None)


def _run(p: BlockParams, size: int, late: bool = False, stop_after: float = 0.0) -> tuple[BenchResult, _Image]:
    image = _Image()
    engine = BlockEngine(image, p, size)
    if late:  # the sampling thread wakes late, as on a loaded host (test_bench_hot_path.LateWaker)
        engine._idle = LateWaker()
    stopper = threading.Timer(stop_after, engine.stop) if stop_after else None
    if stopper is not None:
        stopper.start()
    try:
        return engine.run(), image
    finally:
        if stopper is not None:
            stopper.cancel()
        image.close()


def test_sequential_runs_give_each_thread_its_own_stretch() -> None:
    p = BlockParams(pool="rbd", image="x", io_size=4096, io_threads=4, io_total=64 * 4096)
    r, image = _run(p, 32 * 4096)  # 8 blocks per thread; 16 ops per thread: each wraps once
    assert r.ops == 64 and r.failed_ops == 0 and image.flushed == 1
    offsets = [o[1] for o in image.ops]
    assert offsets[:4] == [0, 8 * 4096, 16 * 4096, 24 * 4096]  # thread i starts at i * size / threads
    assert all(o[3] == FADVISE_SEQUENTIAL and o[0] == "w" and o[2] == 4096 for o in image.ops)
    assert sorted(offsets) == sorted(list(range(0, 32 * 4096, 4096)) * 2)  # every block twice: wrapped to 0


def test_random_runs_stay_aligned_inside_the_image_and_reads_do_not_flush() -> None:
    p = BlockParams(pool="rbd", image="x", io_type="read", io_pattern="rand", io_size=8192, io_threads=8,
                    io_total=500 * 8192)
    r, image = _run(p, 100 * 8192 + 100)  # a size that is not a multiple of the io size
    assert r.ops == 500 and image.flushed == 0
    assert all(o[0] == "r" and o[1] % 8192 == 0 and o[1] + 8192 <= 100 * 8192 + 100 and o[3] == FADVISE_RANDOM
               for o in image.ops)
    assert len({o[1] for o in image.ops}) > 50


def test_readwrite_mixes_by_the_read_percentage() -> None:
    p = BlockParams(pool="rbd", image="x", io_type="readwrite", rw_mix_read=80, io_pattern="rand",
                    io_total=2000 * 4096)
    r, image = _run(p, 1 << 24)
    reads = sum(1 for o in image.ops if o[0] == "r")
    assert r.read_ops == reads and r.write_ops == 2000 - reads and 1400 < reads < 1800
    assert image.flushed == 1


def test_a_timed_run_has_a_sample_for_its_last_second_on_a_loaded_host() -> None:
    p = BlockParams(pool="rbd", image="x", io_size=4096, io_threads=4, io_total=1 << 40, seconds=2)
    r, _ = _run(p, 256 * 4096, late=True)
    assert r.error is None and not r.stopped
    assert [s.sec for s in r.samples] == [1, 2] and all(s.ops > 0 for s in r.samples)


def test_a_stopped_or_counted_run_has_no_sample_past_its_end() -> None:
    p = BlockParams(pool="rbd", image="x", io_size=4096, io_threads=4, io_total=1 << 40, seconds=3)
    r, _ = _run(p, 256 * 4096, late=True, stop_after=1.5)
    assert r.stopped and all(s.sec == 1 for s in r.samples)
    counted = replace(p, io_total=64 * 4096, seconds=2)  # io_total reached long before the time limit
    r, _ = _run(counted, 256 * 4096, late=True)
    assert r.ops == 64 and r.samples == ()


def test_an_io_size_larger_than_the_image_is_refused() -> None:
    with pytest.raises(BenchError, match="larger than the image"):
        BlockEngine(_Image(), BlockParams(pool="rbd", image="x", io_size=8192), 4096)


# ---- the command line
def test_bench_rbd_is_a_mode_of_bench_and_plain_bench_is_unchanged() -> None:
    _, args, _ = parse_command_line(["bench", "--pool", "rbd", "--seconds", "5"])
    assert args.kind is None and args.pool == "rbd" and args.seconds == 5
    _, args, _ = parse_command_line(["bench", "rbd", "--pool", "rbd", "--temp-image", "1G", "--io-type", "read",
                                     "--io-pattern", "rand", "--cache", "writeback", "--json"])
    assert (args.kind, args.temp_image, args.io_type, args.io_pattern, args.cache, args.json) == (
        "rbd", "1G", "read", "rand", "writeback", True)
    from cephtui.cli.bench_rbd import block_params_from_args
    p = block_params_from_args(args)
    assert (p.temp_image_size, p.io_size, p.io_total, p.cache) == (1 << 30, 4096, 1 << 30, "writeback")


@pytest.mark.parametrize("argv,msg", [
    (["bench", "--pool", "rbd", "--io-size", "4K"], "belongs to the block mode"),
    (["bench", "rbd", "--pool", "rbd", "--image", "x", "--threads", "4"], "an option of the RADOS bench"),
    (["bench", "rbd", "--pool", "rbd"], "--image NAME or --temp-image SIZE"),
    (["--read-only", "bench", "rbd", "--pool", "rbd", "--image", "x"], "not with --read-only"),
    (["--read-only", "bench", "rbd", "--pool", "rbd", "--temp-image", "1G", "--io-type", "read"],
     "--temp-image creates an image"),
])
def test_bench_rbd_usage_errors(argv: list[str], msg: str, capsys: pytest.CaptureFixture[str]) -> None:
    from cephtui.cli.dispatch import main
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2 and msg in capsys.readouterr().err


def test_without_python3_rbd_the_block_mode_names_the_package(monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    from cephtui.ceph.bench import rbdengine
    from cephtui.cli import bench_rbd
    monkeypatch.setattr(rbdengine, "rbd", None)
    _, args, _ = parse_command_line(["bench", "rbd", "--pool", "rbd", "--temp-image", "1G"])
    assert bench_rbd.rbd_bench_command(object(), object(), args) == 1  # type: ignore[arg-type]
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "apt install python3-rbd" in err and "dnf install python3-rbd" in err
    with pytest.raises(BenchError, match="apt install python3-rbd"):
        rbdengine.BlockSession(object(), "rbd")  # type: ignore[arg-type]


def test_the_final_flush_is_said_beside_the_totals_when_it_counts() -> None:
    r = _block_result(flush_seconds=0.5)  # 2.0 s elapsed, a quarter of it the flush
    lines = total_lines(r)
    assert lines[0].startswith("elapsed: 2   ops: 250   ops/sec: 125.00")  # rbd bench's line, unchanged
    said = [x for x in lines if "final flush" in x]
    assert said == ["of the elapsed time, 0.50 s (25%) was the final flush of the image (rbd bench counts it too): "
                    "the ops/sec include it, the latencies do not"]
    assert totals_dict(r)["flush_seconds"] == 0.5
    assert BenchResult.from_dict(r.to_dict()).flush_seconds == 0.5  # kept in the history
    assert "0.50 s of it the final flush" in final_text(r).plain
    quick = _block_result(flush_seconds=0.003)  # a cache-off flush: noise, not said
    assert not [x for x in total_lines(quick) if "final flush" in x] and "final flush" not in final_text(quick).plain
