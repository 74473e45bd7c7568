"""The latency probe's floor maths and words, on what a real probe read from a sandbox
(tests/fixtures/probe/, scripts/capture_probe_fixture.py)."""
from __future__ import annotations

import json
import socket
import statistics
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from cephtui.ceph.bench import netfloor
from cephtui.ceph.bench.netfloor import NetFloor, OsdAddress, Reach
from cephtui.ceph.bench.probe import block_plan, counters, osd_times, pool_shape, rados_plan
from cephtui.ceph.bench.probe_result import (
    Direction,
    OsdTimes,
    PoolShape,
    ProbeResult,
    ms,
    probe_words,
    write_floor,
)
from cephtui.ceph.bench.results import BenchResult

CAPTURED = json.loads((Path(__file__).parents[1] / "fixtures" / "probe" / "rados_probe.json").read_text())


def mon(prefix: str) -> Any:
    return next(m["out"] for m in CAPTURED["mon"] if m["prefix"] == prefix)


def captured_reaches() -> list[Reach]:
    return [Reach(OsdAddress(h["osd"], h["host"], h["port"]), tuple(h["rtts"]), h["error"])
            for h in CAPTURED["handshakes"]]


def captured_pings() -> Any:
    return json.loads(CAPTURED["mgr_tell"][0]["out"])


def perf_rounds() -> list[dict[int, Any]]:
    """The perf dumps in the order taken: before the writes, between writes and reads, after the reads."""
    perf = CAPTURED["perf"]
    n = len({p["osd"] for p in perf})
    return [{p["osd"]: counters(p["out"]) for p in perf[i:i + n]} for i in range(0, len(perf), n)]


def captured_result() -> ProbeResult:
    dump = mon("osd dump")
    serving = netfloor.serving_osds(mon("pg ls-by-pool"))
    floor = netfloor.summarise(captured_reaches(), serving, netfloor.heartbeat_pings(captured_pings(), serving))
    w, r = (BenchResult.from_dict(d) for d in CAPTURED["runs"])
    before, middle, after = perf_rounds()
    return ProbeResult("rados", "pool rbd", pool_shape(dump, "rbd"), floor, Direction.of("write", w),
                       Direction.of("read", r), osd_times(before, middle, True), osd_times(middle, after, False))


# ---- the floor
def test_the_pools_osds_and_their_msgr2_addresses_come_from_the_maps() -> None:
    serving = netfloor.serving_osds(mon("pg ls-by-pool"))
    assert sorted(serving) == [0, 1, 2]  # the sandbox's 3 OSDs, all in every size-3 PG
    addrs = netfloor.public_addresses(mon("osd dump"), serving)
    assert [a.osd for a in addrs] == serving
    dump_v2 = {o["osd"]: [v["addr"] for v in o["public_addrs"]["addrvec"] if v["type"] == "v2"][0]
               for o in mon("osd dump")["osds"]}
    assert all(f"{a.host}:{a.port}" == dump_v2[a.osd] for a in addrs)
    assert netfloor.public_addresses(mon("osd dump"), [7]) == []  # not in the map: nothing to probe
    assert netfloor.pool_id(mon("osd dump"), "rbd") is not None and netfloor.pool_id(mon("osd dump"), "x") is None


@pytest.mark.parametrize("text, parsed", [("127.0.0.1:6800", ("127.0.0.1", 6800)),
                                          ("[fd00::1]:6801", ("fd00::1", 6801)), ("0.0.0.0:0", None),
                                          ("nonsense", None), ("host:port", None)])
def test_addresses_are_split_or_refused(text: str, parsed: Any) -> None:
    assert netfloor.split_addr(text) == parsed


def test_heartbeat_pings_are_the_back_networks_among_the_pools_osds() -> None:
    raw = captured_pings()
    pings = netfloor.heartbeat_pings(raw)
    backs = [e for e in raw["entries"] if e["interface"] == "back"]
    assert len(pings) == len(backs) > 0
    assert all(0 < best <= typical for typical, best in pings)
    assert netfloor.heartbeat_pings(raw, [0, 1]) == [p for p, e in zip(pings, backs)
                                                     if {e["from osd"], e["to osd"]} <= {0, 1}]
    assert netfloor.heartbeat_pings(raw, []) == [] and netfloor.heartbeat_pings(None) == []


def test_the_floor_is_the_median_of_each_osds_best_handshake() -> None:
    reaches = captured_reaches()
    f = netfloor.summarise(reaches, [0, 1, 2], [])
    assert f.client_rtt == statistics.median(min(r.rtts) for r in reaches)
    assert f.client_rtt_min <= f.client_rtt <= f.client_rtt_max and f.osds_answered == 3
    assert "no heartbeat ping times yet" in f.note  # so the words say what stands in for the replica leg
    assert f.replica_leg == f.client_rtt


def test_the_replica_leg_is_the_smaller_of_this_hosts_round_trip_and_the_fastest_ping() -> None:
    reaches = captured_reaches()
    pings = netfloor.heartbeat_pings(captured_pings())
    f = netfloor.summarise(reaches, [0, 1, 2], pings)
    assert f.replica_rtt_min == min(b for _, b in pings)
    assert f.replica_leg == min(f.client_rtt, f.replica_rtt_min)
    far = replace(f, client_rtt=f.replica_rtt_min * 10)  # this host on a slower network than the OSDs'
    assert far.replica_leg == f.replica_rtt_min


def test_unanswered_and_unprobed_osds_are_said() -> None:
    reaches = captured_reaches() + [Reach(OsdAddress(9, "127.0.0.1", 1), (), "refused")]
    f = netfloor.summarise(reaches, list(range(40)), [], down=[5], cap=32)
    assert f.unreachable == (9,) and f.osds_probed == 4 and f.osds_answered == 3 and f.down == (5,)
    assert "no handshake within 0.5 s from osd.9" in f.note and "the first 32 of the 40 OSDs" in f.note
    assert "osd.5 is down in the osdmap: not probed" in f.note
    assert "down in" not in netfloor.summarise(reaches, [0, 1, 2], []).note


def test_a_handshake_measures_a_listening_socket_and_a_closed_port_fails_at_once() -> None:
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen(16)
        port = srv.getsockname()[1]
        r = netfloor.handshake(OsdAddress(0, "127.0.0.1", port), samples=3)
        assert len(r.rtts) == 3 and all(0 < t < 0.5 for t in r.rtts) and not r.error
    t0 = time.monotonic()
    dead = netfloor.handshake(OsdAddress(1, "127.0.0.1", port), samples=3)  # closed now: refused
    assert dead.rtts == () and dead.error and time.monotonic() - t0 < netfloor.CONNECT_TIMEOUT * 3


# ---- the OSDs' counters
def test_the_osds_counted_the_probes_ops() -> None:
    w, r = CAPTURED["runs"]
    before, middle, after = perf_rounds()
    ow, orr = osd_times(before, middle, True), osd_times(middle, after, False)
    # the primaries counted each write (plus the metadata object), and each read
    assert w["ops"] <= ow.ops <= w["ops"] + 3 and r["ops"] <= orr.ops <= r["ops"] + 3
    assert 0 < ow.commit < ow.primary < w["average_latency"] and 0 < ow.replica
    assert 0 < orr.primary < r["average_latency"] and orr.commit == 0
    assert osd_times(before, {}, True) == OsdTimes()  # nothing read twice: nothing said


def test_a_restarted_osds_counters_are_left_out() -> None:
    before, middle, _ = perf_rounds()
    reset = {**middle, 0: {k: (0, 0.0) for k in middle[0]}}
    assert osd_times(before, reset, True).ops < osd_times(before, middle, True).ops


def test_the_pool_shape_comes_from_the_osd_dump() -> None:
    assert pool_shape(mon("osd dump"), "rbd") == PoolShape(3, 2)
    assert pool_shape(mon("osd dump"), "rbd").text == "3 replicas"
    assert pool_shape(mon("osd dump"), "nope") == PoolShape()


# ---- floor maths and words
def test_a_write_needs_two_round_trips_a_read_one() -> None:
    f = NetFloor(client_rtt=0.0002, replica_rtt_min=0.0003, osds_answered=1)
    assert write_floor(f, PoolShape(3, 2)) == pytest.approx(0.0004)
    assert write_floor(f, PoolShape(1, 1)) == pytest.approx(0.0002)  # one copy: no replica leg


def test_the_words_hold_each_direction_against_the_floor_and_say_where_the_time_goes() -> None:
    r = captured_result()
    words = probe_words(r)
    text = "\n".join(words)
    assert words[0].startswith("Latency probe of pool rbd (3 replicas)") and "each write a new object" in words[0]
    floor_w = write_floor(r.floor, r.shape)
    # One floor, the network's part, the same number as the table's `net floor`, in the words as the ratio's base.
    assert f"The network floor for a write is {ms(floor_w)} (" in text
    ratio = r.write.p50 / floor_w
    assert f"the median write takes {f'{ratio:.1f}' if ratio < 10 else f'{ratio:.0f}'}× that" in text
    assert f"of which one disk commit ≈ {ms(r.osd_write.commit)} (BlueStore's commit_lat" in text
    floor_r = r.floor.client_rtt
    assert f"The network floor for a read is {ms(floor_r)} (this host ↔ primary {ms(floor_r)}); the median read" \
        in text and "plus one read" not in text
    assert "the OSD's read and this client's part among it" in text
    assert text.count("Where the time goes") == 2 and "BlueStore's commit_lat" in text
    assert "this client ≈" in text and "TCP handshakes from this host to 3 OSDs" in text
    assert f"{r.write.iops_p50:,.0f} IOPS at the median" in text
    assert "heartbeat pings on the back network" in text


def test_the_words_say_what_was_not_measured() -> None:
    r = captured_result()
    blind = replace(r, floor=NetFloor(note="no handshake within 0.5 s from osd.0"), osd_write=OsdTimes(),
                    read=None)
    text = "\n".join(probe_words(blind))
    assert "The network floor could not be measured" in text
    assert "the OSDs' counters were not read" in text and "BlueStore's commit_lat" not in text
    assert "No handshake within 0.5 s from osd.0." in text and "Reads" not in text
    failed = replace(r, write=Direction("write", error="pool rbd is full"), read=None)
    assert "Writes: no op completed (pool rbd is full)." in probe_words(failed)
    partial = replace(r, write=replace(r.write, error="an op got no reply within 30 s"))
    assert "It ended with an error: an op got no reply within 30 s." in "\n".join(probe_words(partial))


def test_a_cached_block_probe_says_its_writes_can_beat_the_floor() -> None:
    r = replace(captured_result(), kind="rbd", target="image vm1 in pool rbd", cache="writeback")
    words = probe_words(r)
    assert "client cache writeback" in words[0] and "each write a new object" not in words[0]
    assert any("can beat the network floor" in w for w in words)
    assert not any("can beat" in w for w in probe_words(replace(r, cache="off")))


def test_the_plans_are_4k_one_op_in_flight_writes_then_random_reads() -> None:
    p = rados_plan("rbd", 3)
    assert (p.write.mode, p.write.threads, p.write.op_size, p.write.cleanup) == ("write", 1, 4096, False)
    assert (p.read.mode, p.read.threads, p.read.run_name) == ("rand", 1, p.write.run_name)
    made: list[dict[str, Any]] = []
    b = block_plan(lambda **kw: made.append(kw) or kw, "rbd", 5, "image vm1 in pool rbd")
    assert made == [{"io_type": "write", "io_pattern": "rand", "io_threads": 1, "io_size": 4096, "seconds": 5},
                    {"io_type": "read", "io_pattern": "rand", "io_threads": 1, "io_size": 4096, "seconds": 5}]
    assert b.kind == "rbd" and b.finish is None


def test_the_result_serialises_with_its_words() -> None:
    d = json.loads(json.dumps(captured_result().to_dict()))
    assert d["write"]["p50"] > 0 and d["read"]["iops_p50"] > 0 and d["floor"]["client_rtt"] > 0
    assert d["write_floor"] >= d["read_floor"] and d["words"] and d["pool"]["text"] == "3 replicas"
