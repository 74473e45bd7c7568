"""PrometheusSource against a real Prometheus scraping the sandbox's mgr prometheus module.

The module's series are the mgr's own export, scraped every second by /usr/bin/prometheus; what
PrometheusSource answers is compared with the server's own answer to the PromQL an admin would write,
and with what the cluster itself says (`osd ls`, `osd df`, a health flag set and cleared).

The session sandbox is shared: enabling the module respawns the mgr, so the fixture puts everything back
(module disabled, its options and the dashboard's key removed) and waits for the cluster to settle.
"""
from __future__ import annotations

import math
import time
from collections.abc import Iterator
from typing import Any

import pytest

from cephtui.ceph.history.model import CLUSTER_METRICS, HealthEvent
from cephtui.ceph.history.prometheus import DASHBOARD_KEY, PrometheusError, PrometheusSource, find_prometheus
from tests.cluster import promlab
from tests.cluster.promlab import RATE_FLOOR, Lab
from tests.conftest import Sandbox, wait_until


@pytest.fixture(scope="module")
def lab(sandbox: Sandbox) -> Iterator[Lab]:
    with promlab.running_lab(sandbox, RATE_FLOOR) as it:
        yield it


def test_write_rate_is_the_servers_own_answer(lab: Lab, sandbox: Sandbox) -> None:
    """write_bps is sum(rate(ceph_pool_wr_bytes[w])): the same points as the server gives for that PromQL,
    non-zero while a client writes, and about what the client wrote."""
    src = lab.source
    t0 = time.time()
    writer = promlab.Writer(sandbox.conf, "rbd")
    try:
        # Written until Prometheus has seen the writes: 5 non-zero points of the rate.
        wait_until(lambda: sum(v > 0 for _, v in src.cluster_series("write_bps", t0, time.time())) >= 5, 90,
                   "5 non-zero points of write_bps")
    finally:
        writer.stop()
    assert writer.first is not None and writer.last is not None
    # Until the rate is back to 0 two windows after the last write: the whole burst is in.
    quiet = writer.last + 2 * RATE_FLOOR
    wait_until(lambda: time.time() > quiet and src.cluster_series("write_bps", quiet, time.time())[-1][1] == 0, 90,
               "write_bps back to 0 after the writes")
    since, until = t0 - 5, time.time()  # from before the first write: the fixture saw the rate at 0 then
    ours = src.cluster_series("write_bps", since, until)

    start, end, step = src.plan(since, until)
    assert step == 1 and len(ours) > 10
    window = int(max(2 * step, RATE_FLOOR))
    theirs = lab.server.get("/api/v1/query_range", query=f"sum(rate(ceph_pool_wr_bytes[{window}s]))",
                            start=start, end=end, step=step)["data"]["result"]
    assert len(theirs) == 1
    assert [t for t, _ in ours] == [float(t) for t, _ in theirs[0]["values"]]
    assert [v for _, v in ours] == pytest.approx([float(v) for _, v in theirs[0]["values"]], rel=1e-9)

    # The integral of a rate over a span that holds the whole burst is what the counter grew by: the bytes
    # the writer had acknowledged (the mgr reports client bytes, not replicas). Prometheus extrapolates
    # each window to its edges, hence the margin.
    written = sum(v * step for _, v in ours)
    assert 0.5 * writer.bytes < written < 2 * writer.bytes, (written, writer.bytes)

    # The pool's own series, by name, is the server's rate of that pool's counter.
    pool_id = next(p["pool_id"] for p in sandbox.ceph("osd", "pool", "ls", "detail") if p["pool_name"] == "rbd")
    per_pool = src.pool_series("rbd", "write_bps", since, until)
    theirs = lab.server.get("/api/v1/query_range", query=f'sum(rate(ceph_pool_wr_bytes{{pool_id="{pool_id}"}}'
                            f'[{window}s]))', start=start, end=end, step=step)["data"]["result"][0]["values"]
    assert [t for t, _ in per_pool] == [float(t) for t, _ in theirs]
    assert [v for _, v in per_pool] == pytest.approx([float(v) for _, v in theirs], rel=1e-9)
    assert max(v for _, v in per_pool) > 0
    assert src.pool_series("no-such-pool", "write_bps", since, until) == []


def test_every_cluster_metric_has_points(lab: Lab, sandbox: Sandbox) -> None:
    """Every CLUSTER_METRICS name reads from a series this mgr exports, and the counts are the cluster's."""
    now = time.time()
    series = {m: lab.source.cluster_series(m, now - 20, now) for m in CLUSTER_METRICS}
    assert [m for m, pts in series.items() if not pts] == []
    osds = sandbox.ceph("osd", "ls")
    pgs = sum(p["pg_num"] for p in sandbox.ceph("osd", "pool", "ls", "detail"))
    last = {m: pts[-1][1] for m, pts in series.items()}
    assert (last["osds"], last["osds_up"], last["osds_in"]) == (len(osds),) * 3
    assert last["pgs"] == last["pgs_active_clean"] == pgs
    assert last["degraded_objects"] == last["misplaced_objects"] == last["unfound_objects"] == 0
    assert lab.source.cluster_series("pg_state:active", now - 20, now)[-1][1] == pgs
    assert lab.source.cluster_series("pg_state:no_such_state", now - 20, now) == []  # no series: no points


def test_osd_frames_have_every_osd(lab: Lab, sandbox: Sandbox) -> None:
    """Every OSD's commit and apply latency and used fraction, the latter as `osd df` says it."""
    osds = set(sandbox.ceph("osd", "ls"))
    seen: dict[str, Any] = {}

    def every_osd() -> bool:
        """10 points of the last 20 s, the newest with every OSD. On a loaded host a 1-s scrape of the module
        can time out (its timeout is the interval): a gap then means "not yet", not a wrong answer."""
        now = time.time()
        frames = lab.source.osd_frames(now - 20, now)
        seen.update(now=now, frames=frames)
        return len(frames) >= 10 and set(frames[-1].commit_ms) == set(frames[-1].apply_ms) == \
            set(frames[-1].used) == osds
    wait_until(every_osd, 60, "10 points of every OSD's latency and usage in the last 20 s")
    frames, now = seen["frames"], seen["now"]
    assert all(f.t >= now - 20 - 0.001 for f in frames)  # Prometheus keeps a query's start to the millisecond
    last = frames[-1]
    assert all(v >= 0 for v in [*last.commit_ms.values(), *last.apply_ms.values()])
    assert all(0 < u < 1 for u in last.used.values())

    def same_as_df() -> bool:
        """The newest frame's used fractions are `osd df`'s: the same mgr numbers, but a scrape apart, and
        BlueStore frees what the write test removed a while after (a difference then means "not yet")."""
        now = time.time()
        used = lab.source.osd_frames(now - 5, now)[-1].used
        df = {n["id"]: n["kb_used"] / n["kb"] for n in sandbox.ceph("osd", "df")["nodes"]}
        return set(used) == set(df) and all(abs(used[o] - df[o]) < 0.002 for o in df)
    wait_until(same_as_df, 60, "the OSDs' used fractions in Prometheus as `osd df` says them")


def test_health_flag_is_raised_and_cleared(lab: Lab) -> None:
    """noout set and unset: OSDMAP_FLAGS raised, then cleared, from ceph_health_detail."""
    src = lab.source
    t0 = time.time()

    def flags() -> list[HealthEvent]:
        return [e for e in src.events(t0, time.time()) if e.code == "OSDMAP_FLAGS"]

    lab.mon("osd set", key="noout")
    try:
        raised = wait_until(flags, 60, "OSDMAP_FLAGS raised in Prometheus")
    finally:
        lab.mon("osd unset", key="noout")
    t1 = time.time()
    assert [(e.change, e.severity) for e in raised] == [("raised", "HEALTH_WARN")]
    assert t0 <= raised[0].t <= t1
    events = wait_until(lambda: (lambda ev: ev if len(ev) >= 2 else None)(flags()), 60,
                        "OSDMAP_FLAGS cleared in Prometheus")
    assert [(e.change, e.severity) for e in events] == [("raised", "HEALTH_WARN"), ("cleared", "")]
    assert events[1].t >= t1 - 1  # not before the flag was unset (but for one step's rounding)


def test_errors_carry_the_servers_words(lab: Lab) -> None:
    now = time.time()
    with pytest.raises(PrometheusError) as bad:
        lab.source.query_range("sum(rate(", now - 10, now, 1)
    assert "parse error" in str(bad.value) and "bad_data" in str(bad.value) and "HTTP 400" in str(bad.value)
    nobody = PrometheusSource(f"http://127.0.0.1:{promlab.free_port()}", timeout=2)
    with pytest.raises(PrometheusError, match="cannot reach Prometheus"):
        nobody.cluster_series("osds", now - 10, now)


def test_find_prometheus_reads_the_dashboards_setting(lab: Lab, client) -> None:
    """None while unset; the URL once `PROMETHEUS_API_HOST` is set for mgr, and that URL answers."""
    assert find_prometheus(client) is None
    # --force: this host has no dashboard module to declare the option (as `ceph dashboard
    # set-prometheus-api-host` would set it with one); the mon keeps it in the same place either way.
    lab.mon("config set", who="mgr", name=DASHBOARD_KEY, value=lab.server.url + "/", force=True)
    try:
        found = find_prometheus(client)
        assert found == lab.server.url
        now = time.time()
        assert PrometheusSource(found).cluster_series("osds", now - 10, now)
    finally:
        lab.mon("config rm", who="mgr", name=DASHBOARD_KEY)
    assert find_prometheus(client) is None


def test_rate_window_follows_the_step(lab: Lab) -> None:
    """A month's span is 500 points at most, each rate over two steps: the server accepts the query."""
    now = time.time()
    start, end, step = lab.source.plan(now - 31 * 86400, now)
    assert math.floor((end - start) / step) + 1 <= 500 and end == now
    assert lab.source.rate_window(step) == 2 * step
    assert lab.source.cluster_series("write_bps", now - 31 * 86400, now)  # the last point holds the lab's data
    assert len(lab.source.osd_frames(now - 31 * 86400, now)[-1].used) >= 3  # and the OSDs', a mean over the step
