"""The bench engine's compatibility with native `rados bench`, and its statistics, history and export."""
from __future__ import annotations

import json
import os
import stat
from dataclasses import replace
from pathlib import Path

import pytest

from cephtui.ceph.bench import stats, wire
from cephtui.ceph.bench.diagnosis import explain_errno
from cephtui.ceph.bench.history import BenchHistory, comparable, compare, export_csv, export_json, write_export
from cephtui.ceph.bench.params import BenchError, BenchParams, parse_size
from cephtui.ceph.bench.pool import explain_temp_pool_refusal, temp_pool_create_ops, temp_pool_pg_num
from cephtui.ceph.bench.results import BenchResult, Sample

NATIVE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "bench" / "native.json").read_text())


def test_metadata_matches_what_native_rados_bench_wrote() -> None:
    raw = bytes.fromhex(NATIVE["metadata_hex"])
    meta = wire.decode_metadata(raw)
    pid = int(NATIVE["object_prefix"].rsplit("_", 1)[1])
    assert (meta.object_size, meta.op_size, meta.pid, meta.num_ops) == (16384, 8192, pid, NATIVE["total_writes_made"])
    assert meta.num_objects == (NATIVE["total_writes_made"] + 1) // 2
    # and we encode byte for byte what native encodes, so native seq/rand/cleanup read ours
    assert wire.encode_metadata(16384, meta.num_ops, pid, 8192) == raw


def test_op_contents_match_native_byte_for_byte() -> None:
    contents = wire.Contents(8192)
    # object1 holds ops 2 and 3 (two 8 KiB ops per 16 KiB object)
    assert contents(2)[:64] == bytes.fromhex(NATIVE["object1_op0_head_hex"])
    assert contents(3)[:64] == bytes.fromhex(NATIVE["object1_op1_head_hex"])
    assert set(contents(3)[32:]) == set(NATIVE["object1_tail_bytes"])
    assert len(contents(123456)) == 8192
    assert contents.header_ok(3, contents(3)) and not contents.header_ok(4, contents(3))
    assert not contents.header_ok(3, contents(3)[:-1])


def test_tiny_ops_truncate_the_header_like_snprintf() -> None:
    assert wire.op_header(7, 8) == b"I'm the\0"
    assert len(wire.Contents(8)(7)) == 8


def test_object_naming_is_native() -> None:
    prefix = wire.object_prefix("vm", 14170)
    assert wire.object_name(prefix, 1) == NATIVE["object_prefix"] + "_object1"
    assert len(wire.hostname()) <= 29


@pytest.mark.parametrize("text,expected", [("4096", 4096), ("4K", 4096), ("4KiB", 4096), ("4k", 4096),
                                           ("4M", 4 << 20), ("1G", 1 << 30), ("0.5K", 512), (65536, 65536)])
def test_parse_size(text: str | int, expected: int) -> None:
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["", "abc", "-4K", "0", "1.5", "nan", "inf", "4X"])
def test_parse_size_refuses(text: str) -> None:
    with pytest.raises(BenchError):
        parse_size(text)


@pytest.mark.parametrize("text", ["4.", "4.K", ".", "1e", "-"])
def test_a_half_typed_size_is_incomplete_not_bytes(text: str) -> None:
    with pytest.raises(BenchError, match="incomplete size"):  # float("4.") is 4: 4 bytes nobody typed
        parse_size(text)


@pytest.mark.parametrize("kw,message", [
    ({"pool": " "}, "choose a pool"), ({"mode": "delete"}, "mode"), ({"seconds": 0}, "seconds"),
    ({"seconds": float("nan")}, "seconds"), ({"threads": 0}, "threads"), ({"op_size": 0}, "op size"),
    ({"op_size": 4096, "object_size": 6000}, "multiple"), ({"run_name": "a b"}, "run name"),
    ({"op_timeout": 0}, "timeout"),
])
def test_params_refuse_bad_values(kw: dict, message: str) -> None:
    with pytest.raises(BenchError, match=message):
        BenchParams(**{"pool": "rbd", **kw})


def test_cli_equivalent() -> None:
    p = BenchParams(pool="rbd", seconds=30, threads=8, op_size=4096, object_size=8192, cleanup=False, run_name="x")
    assert p.cli() == "rados bench -p rbd 30 write -t 8 -b 4096 -O 8192 --no-cleanup --no-hints --run-name x"
    assert BenchParams(pool="rbd", mode="rand").cli() == "rados bench -p rbd 10 rand -t 16"


def test_statistics_follow_obj_bencher() -> None:
    assert stats.stddev([5.0]) == 0.0
    assert stats.stddev([1.0, 2.0, 3.0, 4.0]) == pytest.approx(1.2909944)  # sample stddev (n-1)
    values = sorted(float(i) for i in range(1, 101))
    assert (stats.percentile(values, 50), stats.percentile(values, 99), stats.percentile(values, 100)) == \
        (50.0, 99.0, 100.0)
    assert stats.percentile([], 99) == 0.0


@pytest.mark.parametrize("code,words", [(28, "full"), (122, "full"), (110, "no reply"), (1, "permission"),
                                        (13, "permission"), (2, "missing")])
def test_errors_are_explained(code: int, words: str) -> None:
    assert words in explain_errno(code, "seq", "rbd", 30)


def _result(**kw: object) -> BenchResult:
    base = dict(params=BenchParams(pool="rbd"), started_at=1.0, host="h", pid=1, object_prefix="p",
                total_time_run=10.0, ops=100, failed_ops=0, op_size=4 << 20, object_size=4 << 20, bandwidth=40.0,
                stddev_bandwidth=1.0, max_bandwidth=44.0, min_bandwidth=36.0, average_iops=10.0, stddev_iops=1.0,
                max_iops=11, min_iops=9, average_latency=1.5, stddev_latency=0.2, max_latency=3.0,
                min_latency=0.5, latency_p50=1.4, latency_p95=2.5, latency_p99=2.9,
                samples=(Sample(1, 10, 10, 40.0, 1.5, 2.0, 16),))
    base.update(kw)
    return BenchResult(**base)  # type: ignore[arg-type]


def test_history_round_trip_skips_damaged_lines(tmp_path: Path) -> None:
    h = BenchHistory(tmp_path / "d" / "bench-history.jsonl")
    a, b = _result(), _result(bandwidth=50.0, error="boom", errno=28)
    h.append(a)
    with open(h.path, "a") as f:
        f.write("{not json\n\n")
    h.append(b)
    loaded = h.load()
    assert loaded.runs == (a, b) and loaded.skipped == 1
    assert stat.S_IMODE(os.stat(h.path).st_mode) == 0o600
    assert BenchHistory(tmp_path / "missing.jsonl").load().runs == ()


def test_compare_says_which_is_better() -> None:
    a, b = _result(), _result(bandwidth=50.0, average_latency=1.0)
    rows = {r.label: r for r in compare(a, b)}
    assert rows["Bandwidth"].change == pytest.approx(0.25) and rows["Bandwidth"].better is True
    assert rows["Average latency"].better is True  # lower latency is better
    assert rows["Max IOPS"].better is None
    assert comparable(a, b) is None
    assert "op size" in (comparable(a, _result(op_size=4096)) or "")


def test_exports(tmp_path: Path) -> None:
    runs = [_result(), _result(error="full, with, commas")]
    csv_text = export_csv(runs)
    lines = csv_text.splitlines()
    assert lines[0].startswith("started_at,cluster,pool,mode") and len(lines) == 3
    assert '"full, with, commas"' in lines[2]
    data = json.loads(export_json(runs))
    assert data[0]["bandwidth"] == 40.0 and data[1]["status"] == "error"
    p = write_export(str(tmp_path / "runs.csv"), csv_text)
    assert stat.S_IMODE(os.stat(p).st_mode) == 0o600
    with pytest.raises(ValueError, match="exists"):
        write_export(str(p), "x")
    with pytest.raises(ValueError, match="not a directory"):
        write_export(str(tmp_path / "nodir" / "x.csv"), "x")


def test_temp_pool_plan() -> None:
    assert [temp_pool_pg_num(n) for n in (1, 3, 5, 100, 5000)] == [8, 16, 32, 512, 1024]
    ops = temp_pool_create_ops("cephtui-bench-x", 16)
    assert [o.cli for o in ops] == [
        "ceph osd pool create cephtui-bench-x 16 16 replicated",
        "ceph osd pool set cephtui-bench-x size 1 --yes-i-really-mean-it",
        "ceph osd pool application enable cephtui-bench-x benchmark"]
    # Pacific's own refusal text
    assert "mon_allow_pool_size_one" in (explain_temp_pool_refusal("configuring pool size as 1 is disabled by "
                                                                   "default.") or "")


def test_result_dict_round_trip_tolerates_unknown_keys() -> None:
    r = _result(stopped=True)
    d = r.to_dict()
    d["from_a_newer_version"] = 1
    d["params"] = {**d["params"], "new_param": 2}
    assert BenchResult.from_dict(d) == r
    assert replace(r, error="x").status == "error" and r.status == "stopped"


def test_lent_buffers_hold_each_ops_contents() -> None:
    contents = wire.Contents(8192)
    first = contents.lend(2)
    assert first == contents(2) and first[:64] == bytes.fromhex(NATIVE["object1_op0_head_hex"])
    contents.give_back(first)
    again = contents.lend(12345)  # the same buffer, rewritten in place
    assert again == contents(12345) and contents.header_ok(12345, again)
    other = contents.lend(3)  # lent while the first is out: a second buffer
    assert other is not again and other == contents(3) and again == contents(12345)


def test_history_is_scoped_to_one_cluster(tmp_path: Path) -> None:
    from cephtui.ceph.bench.history import scope

    mine, other, unknown = _result(cluster="f-1", started_at=1.0), _result(cluster="f-2", started_at=2.0), \
        _result(cluster="", started_at=3.0)
    s = scope([mine, other, unknown, mine], "f-1")
    assert s.runs == (mine, mine) and (s.other_clusters, s.unknown) == (1, 1)
    note = s.note(tmp_path / "h.jsonl")
    assert "1 run of other clusters and 1 run without a cluster id" in note and "h.jsonl" in note
    assert scope([mine], "f-1").note(tmp_path) == ""
    nothing = scope([mine, unknown], "")  # fsid not known yet: nothing is shown as this cluster's
    assert nothing.runs == () and nothing.other_clusters == 1


def test_a_note_to_run_rados_cleanup_goes_with_the_temporary_pool() -> None:
    from cephtui.ceph.bench.engine import BenchEngine
    from cephtui.ceph.bench.service import went_with_the_pool

    p = BenchParams(pool="cephtui-bench-x", cleanup=False, run_name="r1")
    kept = BenchEngine(None, p)._cleanup(hung=False)  # the engine's own words: objects kept for reads
    engine = BenchEngine(None, replace(p, cleanup=True))
    engine._live.finished = 3
    skipped = engine._cleanup(hung=True)  # an error: cleanup skipped, `rados cleanup` suggested
    for note in (kept, skipped):
        assert "rados -p cephtui-bench-x cleanup" in note
        r = went_with_the_pool(_result(params=p, cleanup_note=note))
        assert r.cleanup_note == "the temporary pool cephtui-bench-x was deleted with its objects"
    for note in ("cleanup removed 7 objects", None):  # still true once the pool is gone
        assert went_with_the_pool(_result(params=p, cleanup_note=note)).cleanup_note == note


def test_compare_picks_marked_runs_else_the_one_before() -> None:
    from cephtui.ceph.bench.history import pick_pair

    a, b, c = (_result(started_at=float(i), pid=i) for i in (1, 2, 3))
    d = _result(started_at=4.0, pid=4, params=BenchParams(pool="rbd", mode="seq"))
    runs, key = [a, b, c, d], (lambda r: str(r.pid))
    assert pick_pair(runs, {"1", "3"}, d, key) == (a, c)  # the last two marked
    assert pick_pair(runs, {"3"}, a, key) == (a, c)  # one marked and the current one, oldest first
    assert pick_pair(runs, {"3"}, c, key) == (b, c)  # the current one is the marked one: the run before it
    assert pick_pair(runs, set(), d, key) == "Mark two runs with space, then c."  # no earlier seq run
    assert pick_pair([], set(), None, key) == "No runs yet."
