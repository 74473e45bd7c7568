"""PrometheusSource's reading of a real Prometheus' answers, captured by scripts/capture_prometheus_fixture.py
(tests/fixtures/history/capture.json says what was asked and when the cluster did what)."""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from cephtui.ceph.history.model import CLUSTER_METRICS, POOL_METRICS
from cephtui.ceph.history.prometheus import (
    PrometheusError,
    PrometheusSource,
    choose_step,
    events_from,
    frames_from,
    parse_error,
    parse_matrix,
)

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "history"
META: dict[str, Any] = json.loads((HERE / "capture.json").read_text())


def body(name: str) -> bytes:
    return (HERE / f"prom_{name}.json").read_bytes()


def asked(name: str) -> dict[str, Any]:
    return META["files"][f"prom_{name}.json"]


def test_a_matrix_is_its_points_in_order() -> None:
    raw = json.loads(body("write_bps"))["data"]["result"]
    [(labels, points)] = parse_matrix(body("write_bps"))
    assert labels == raw[0]["metric"] == {}  # sum() drops every label
    assert points == [(float(t), float(v)) for t, v in raw[0]["values"]]
    q = asked("write_bps")
    assert points[0][0] == pytest.approx(q["start"], abs=0.001) and points[-1][0] == pytest.approx(q["end"], abs=0.001)
    assert {round(b[0] - a[0], 3) for a, b in zip(points, points[1:])} == {q["step"]}


def test_the_captured_rate_is_what_was_written() -> None:
    """The rate's integral over the capture is the bytes the writer had acknowledged, and it was non-zero
    only while (and a rate window after) the writer wrote."""
    [(_, points)] = parse_matrix(body("write_bps"))
    step = asked("write_bps")["step"]
    assert sum(v * step for _, v in points) == pytest.approx(META["bytes_written"], rel=0.5)
    busy = [t for t, v in points if v > 0]
    assert busy and META["write_start"] <= busy[0] and busy[-1] <= META["write_end"] + 2 * META["rate_window"]


def test_osd_frames_hold_every_osd() -> None:
    frames = frames_from({k: parse_matrix(body(f"osd_{k}")) for k in ("commit_ms", "apply_ms", "used")})
    osds = set(META["osds"])
    assert len(frames) == len(json.loads(body("osd_used"))["data"]["result"][0]["values"])
    assert [f.t for f in frames] == sorted(f.t for f in frames)
    for f in frames:
        assert set(f.commit_ms) == set(f.apply_ms) == set(f.used) == osds
        assert all(0 < u < 1 for u in f.used.values())


def test_values_that_are_not_numbers_are_no_points() -> None:
    """0/0 comes back as "NaN": no value then, as a missing point says it."""
    raw = json.loads(body("nan"))["data"]["result"]
    assert raw and all(v == "NaN" for s in raw for _, v in s["values"])
    assert [pts for _, pts in parse_matrix(body("nan"))] == [[] for _ in raw]
    assert frames_from({"used": parse_matrix(body("nan"))}) == []


def test_a_metric_with_no_series_is_no_points() -> None:
    assert parse_matrix(body("empty")) == []


def test_a_refusal_carries_the_servers_words() -> None:
    assert asked("error_bad_data")["http_status"] == 400
    server_said = json.loads(body("error_bad_data"))["error"]
    said = parse_error(body("error_bad_data"), 400)
    assert said == f"{server_said} (bad_data, HTTP 400)"
    with pytest.raises(PrometheusError, match="unclosed left parenthesis"):
        parse_matrix(body("error_bad_data"))


def test_not_json_is_said_as_it_came() -> None:
    """A proxy's page in front of Prometheus: the start of its text, not a JSON traceback."""
    page = b"<html><body><h1>502 Bad Gateway</h1>\n</body></html>"
    assert parse_error(page, 502) == "HTTP 502: <html><body><h1>502 Bad Gateway</h1> </body></html>"
    with pytest.raises(PrometheusError, match="not JSON"):
        parse_matrix(page)


def test_noout_is_raised_then_cleared() -> None:
    known, active = parse_matrix(body("health_status")), parse_matrix(body("health_detail"))
    since = asked("write_bps")["start"]
    events = events_from(known, active, since)
    assert [(e.code, e.change, e.severity) for e in events] == [
        ("OSDMAP_FLAGS", "raised", "HEALTH_WARN"), ("OSDMAP_FLAGS", "cleared", "")]
    raised, cleared = events
    assert META["noout_set"] <= raised.t <= META["noout_unset"] + 1 < cleared.t + 1
    assert cleared.t >= META["noout_unset"] - 1


def test_a_scrape_gap_is_not_a_clear() -> None:
    """Timestamps without a known point (Prometheus did not scrape) are skipped, not read as "cleared"."""
    known, active = parse_matrix(body("health_status")), parse_matrix(body("health_detail"))
    raised_at = [t for t, v in active[0][1] if v == 1]
    gap = [(labels, [(t, v) for t, v in pts if t not in raised_at[1:]]) for labels, pts in known]
    since = asked("write_bps")["start"]
    assert [(e.change, e.t) for e in events_from(gap, active, since)] == [
        (e.change, e.t) for e in events_from(known, active, since)]


def test_a_check_active_from_the_first_point_was_raised_before() -> None:
    """Nothing is said about a check already raised at the window's first point: no change was seen."""
    known, active = parse_matrix(body("health_status")), parse_matrix(body("health_detail"))
    first = next(t for t, v in active[0][1] if v == 1)
    assert [e.change for e in events_from(known, active, first)] == ["raised", "cleared"]  # the point before says
    later = [[(labels, [(t, v) for t, v in pts if t >= first]) for labels, pts in s] for s in (known, active)]
    assert [e.change for e in events_from(*later, first)] == ["cleared"]


@pytest.mark.parametrize("span", [0, 1, 60, 499, 500, 3600, 86400, 31 * 86400, 365 * 86400])
def test_a_window_is_at_most_500_points_ending_at_until(span: float) -> None:
    src = PrometheusSource("http://127.0.0.1:9")
    until = 1_795_919_738.32
    start, end, step = src.plan(until - span, until)
    assert end == until and start >= until - span and step == choose_step(until - span, until)
    assert math.floor((end - start) / step) + 1 <= 500
    assert step == 1 or math.floor(span / (step - 1)) + 1 > 500  # no coarser than it must be
    assert src.rate_window(step) == max(2 * step, 60)


def test_every_name_has_promql() -> None:
    src = PrometheusSource("http://127.0.0.1:9", selector='cluster="a"')
    for metric in CLUSTER_METRICS:
        promql = src.cluster_promql(metric, 1)
        assert promql and promql.count("{") == promql.count('cluster="a"'), promql  # every selector scoped
    for metric in POOL_METRICS:
        assert 'name="we \\"quote\\""' in src.pool_promql('we "quote"', metric, 1)
    assert src.cluster_promql("pg_state:backfill_wait", 1) == \
        'sum(max by (pool_id) (ceph_pg_backfill_wait{cluster="a"}))'
    assert src.cluster_promql("pg_state:active+undersized", 1) is None  # not exported: no series
    assert src.cluster_promql("pg_state:active+clean", 1) == src.cluster_promql("pgs_active_clean", 1)
    with pytest.raises(ValueError):
        src.cluster_promql("no_such_metric", 1)
