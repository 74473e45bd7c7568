"""The cluster's own Prometheus as a history source: weeks of history cephtui did not record.

Every series is read with `/api/v1/query_range` from what the **mgr's prometheus module** exports
(`ceph mgr module enable prometheus`; cephadm deploys a Prometheus that scrapes it). The names below were
checked against a Pacific mgr's own `/metrics`; a name an older mgr does not export (ceph_health_detail
came in Pacific) simply has no series, and its history is [] rather than an error.

Standard library only (urllib, json): this module is read by the recorder and the Doctor as well as the
panes, and must not pull in the UI.
"""
from __future__ import annotations

import json
import math
import re
import socket
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from cephtui.ceph.history.model import CLUSTER_METRICS, PG_STATE_PREFIX, POOL_METRICS, HealthEvent, OsdFrame

Points = list[tuple[float, float]]
Series = tuple[dict[str, str], Points]  # (labels, points oldest first)

MAX_POINTS = 500  # per series per query: enough for a sparkline or a chart a screen wide, cheap to move
TIMEOUT = 5.0  # seconds; a Prometheus that takes longer is treated as unreachable, the screen must not hang
# The shortest window a rate() is taken over. Prometheus needs two samples inside the window, and the mgr's
# module refreshes its numbers only every mgr/prometheus/scrape_interval (15 s by default) however often it
# is scraped; 4 x 15 s is Grafana's $__rate_interval for that interval. We cannot see the scrape interval
# (it is in Prometheus' YAML, per job), so this is a constructor argument rather than a guess from the API.
MIN_RATE_WINDOW = 60.0

# The severities a health check can have, worst last (a check seen at both in one step is the worse one).
SEVERITY_RANK = {"HEALTH_OK": 0, "HEALTH_WARN": 1, "HEALTH_ERR": 2}

# Counters the mgr exports per pool (`ceph osd pool stats`' client_io_rate is their rate).
POOL_COUNTERS = {"read_bps": "ceph_pool_rd_bytes", "write_bps": "ceph_pool_wr_bytes",
                 "read_ops": "ceph_pool_rd", "write_ops": "ceph_pool_wr"}
# Cluster-wide gauges with one series (the number `ceph -s` shows).
CLUSTER_GAUGES = {"degraded_objects": "ceph_num_objects_degraded", "misplaced_objects": "ceph_num_objects_misplaced",
                  "unfound_objects": "ceph_num_objects_unfound"}
# Per-pool gauges that are already rates (the mgr's pool stats deltas, which `ceph -s` sums into "recovery:").
RECOVERY_GAUGES = {"recovering_bps": "ceph_pool_recovering_bytes_per_sec",
                   "recovering_objects_ps": "ceph_pool_recovering_objects_per_sec"}
PG_STATE_WORD = re.compile(r"[a-z_]+")  # the words of a PG state, as the mgr names its ceph_pg_<state> gauges


class PrometheusError(Exception):
    """Prometheus could not be asked, or refused the query; the message carries the server's own text."""


def choose_step(since: float, until: float, max_points: int = MAX_POINTS) -> int:
    """Whole seconds between points, so that [since, until] holds at most max_points of them."""
    # floor(span / step) + 1 points fit when step > span / max_points: the finest such whole step.
    return int(max(0.0, until - since) // max(1, max_points)) + 1


def parse_matrix(body: bytes | str) -> list[Series]:
    """A query_range answer as (labels, points) per series. Points whose value is not finite (NaN from a
    0/0, ±Inf) are left out: they mean "no value then", which is what a missing point means to a caller."""
    data = _parse_body(body)
    if data.get("resultType") != "matrix":
        raise PrometheusError(f"Prometheus answered a {data.get('resultType')!r}, not a matrix (range query)")
    out: list[Series] = []
    for series in data.get("result") or []:
        points = [(float(t), v) for t, v in ((t, float(s)) for t, s in series.get("values") or [])
                  if math.isfinite(v)]
        out.append((dict(series.get("metric") or {}), points))
    return out


def parse_error(body: bytes | str, http_status: int | None = None) -> str:
    """The server's own words for a failed request: its `error` (and `errorType`), or the start of whatever
    else answered (a proxy's HTML page)."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    where = f"HTTP {http_status}" if http_status else ""
    if isinstance(doc, dict) and doc.get("error"):
        kind = doc.get("errorType") or ""
        return f"{doc['error']} ({', '.join(x for x in (kind, where) if x)})" if kind or where else str(doc["error"])
    snippet = " ".join(text.split())[:200]
    return f"{where}: {snippet}" if where else snippet


def _parse_body(body: bytes | str) -> dict[str, Any]:
    try:
        doc = json.loads(body)
    except ValueError as e:
        raise PrometheusError(f"Prometheus answered something that is not JSON: {parse_error(body)!r}") from e
    if not isinstance(doc, dict) or doc.get("status") != "success":
        raise PrometheusError(parse_error(body))
    return doc.get("data") or {}


def events_from(known: list[Series], active: list[Series], since: float) -> list[HealthEvent]:
    """Health events from two range answers over the same timestamps.

    known: any series of the module's (ceph_health_status): a timestamp with a point there is one at which
    Prometheus had scraped the mgr. active: ceph_health_detail{name,severity} (1 raised, 0 cleared) per
    step. A check is raised at a known timestamp when one of its series is 1 there; a check the module has
    never seen has no series at all, so absent means not raised. Changes are taken between consecutive
    known timestamps only: a gap in scraping (no point for anything) is not a clear followed by a raise."""
    times = sorted({t for _, pts in known for t, _ in pts})
    raised: dict[float, dict[str, str]] = {}
    for labels, pts in active:
        code, sev = labels.get("name", ""), labels.get("severity", "")
        for t, v in pts:
            if v < 0.5:
                continue
            now = raised.setdefault(t, {})
            if SEVERITY_RANK.get(sev, 1) >= SEVERITY_RANK.get(now.get(code, ""), -1):
                now[code] = sev
    out: list[HealthEvent] = []
    prev: dict[str, str] | None = None
    for t in times:
        cur = raised.get(t, {})
        if prev is not None and t >= since:
            for code in sorted(set(prev) | set(cur)):
                if code not in prev:
                    out.append(HealthEvent(t, code, "raised", cur[code], ""))
                elif code not in cur:
                    out.append(HealthEvent(t, code, "cleared", "", ""))
                elif cur[code] != prev[code]:
                    out.append(HealthEvent(t, code, "changed", cur[code], ""))
        prev = cur
    return out


def frames_from(answers: dict[str, list[Series]]) -> list[OsdFrame]:
    """OsdFrames from one range answer per OsdFrame field (commit_ms, apply_ms, used), each a series per
    OSD labelled ceph_daemon="osd.N": one frame per timestamp any of them has, oldest first."""
    values: dict[float, dict[str, dict[int, float]]] = {}
    for name, series in answers.items():
        for labels, points in series:
            osd = _osd_id(labels.get("ceph_daemon", ""))
            if osd is None:
                continue
            for t, v in points:
                values.setdefault(t, {}).setdefault(name, {})[osd] = v
    return [OsdFrame(t, commit_ms=f.get("commit_ms", {}), apply_ms=f.get("apply_ms", {}), used=f.get("used", {}))
            for t, f in sorted(values.items())]


class PrometheusSource:
    """HistorySource over a Prometheus that scrapes the cluster's mgr.

    selector: extra label matchers put into every series selector (`cluster="ceph1"`, `job="ceph"`), for a
    Prometheus that scrapes more than one cluster; empty for cephadm's own, which scrapes only its cluster.
    Health events carry no summary: the module exports only each check's code and severity."""

    def __init__(self, url: str, timeout: float = TIMEOUT, min_rate_window: float = MIN_RATE_WINDOW,
                 selector: str = "", max_points: int = MAX_POINTS) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout
        self.min_rate_window = min_rate_window
        self.selector = selector.strip().strip(",")
        self.max_points = max_points
        self.label = f"Prometheus {self.url}"

    # ------------------------------------------------------------ the HTTP API
    def query_range(self, promql: str, start: float, end: float, step: float) -> list[Series]:
        """One `/api/v1/query_range`; raises PrometheusError with the server's words when it fails."""
        query = urllib.parse.urlencode({"query": promql, "start": _num(start), "end": _num(end), "step": _num(step)})
        url = f"{self.url}/api/v1/query_range?{query}"
        try:
            with urllib.request.urlopen(url, timeout=self.timeout) as answer:
                body = answer.read()
        except urllib.error.HTTPError as e:  # 400 bad_data, 422 execution, 503 timeout: the JSON says which
            raise PrometheusError(f"Prometheus {self.url} refused {promql!r}: {parse_error(e.read(), e.code)}") from e
        except urllib.error.URLError as e:
            raise PrometheusError(f"cannot reach Prometheus at {self.url}: {e.reason}") from e
        except (socket.timeout, TimeoutError) as e:  # a read that stalls after connecting
            raise PrometheusError(f"Prometheus {self.url} did not answer within {self.timeout:g} s") from e
        except OSError as e:
            raise PrometheusError(f"cannot read from Prometheus at {self.url}: {e}") from e
        try:
            return parse_matrix(body)
        except PrometheusError as e:
            raise PrometheusError(f"Prometheus {self.url}, {promql!r}: {e}") from e

    def plan(self, since: float, until: float) -> tuple[float, float, int]:
        """(start, end, step) of a range query over [since, until]. The points are counted back from until,
        so the newest point is `until` itself (the latest numbers are never up to a step old) and none falls
        before since."""
        step = choose_step(since, until, self.max_points)
        start = until - math.floor(max(0.0, until - since) / step) * step
        return start, until, step

    def rate_window(self, step: int) -> int:
        """The rate() window for a step: two steps, so each point's window overlaps the next and no counter
        increment falls between points, and never below min_rate_window (two of the mgr's refreshes)."""
        return int(math.ceil(max(2 * step, self.min_rate_window)))

    # ------------------------------------------------------------ PromQL for our names
    def sel(self, metric: str, *matchers: str) -> str:
        parts = [m for m in (self.selector, *matchers) if m]
        return f"{metric}{{{','.join(parts)}}}" if parts else metric

    def gauge(self, metric: str, step: int, *matchers: str) -> str:
        """A gauge at each point: its last value while points are finer than the rate window (tier 0 of the
        local store, too, is a sample), the mean over each step once they are coarser (as the store's coarse
        tiers are means of their buckets)."""
        s = self.sel(metric, *matchers)
        return f"avg_over_time({s}[{step}s])" if step >= self.min_rate_window else s

    def cluster_promql(self, metric: str, step: int) -> str | None:
        """The PromQL for one CLUSTER_METRICS name (or pg_state:<state>); None when Prometheus has no such
        series. Per-pool and per-OSD series are first reduced by their own key (`max by (pool_id)`), so that
        two scrapes of the same numbers (both mgrs during a failover, two jobs) are not counted twice."""
        w = self.rate_window(step)
        if metric in POOL_COUNTERS:
            return f"sum(max by (pool_id) (rate({self.sel(POOL_COUNTERS[metric])}[{w}s])))"
        if metric in RECOVERY_GAUGES:
            return f"sum(max by (pool_id) ({self.gauge(RECOVERY_GAUGES[metric], step)}))"
        if metric in CLUSTER_GAUGES:
            return f"max({self.gauge(CLUSTER_GAUGES[metric], step)})"
        if metric == "pgs":
            return f"sum(max by (pool_id) ({self.gauge('ceph_pg_total', step)}))"
        if metric == "pgs_active_clean" or metric == PG_STATE_PREFIX + "active+clean":
            # The module counts each state word on its own (ceph_pg_active, ceph_pg_clean, per pool), never a
            # combination. Per pool, min(active, clean) is the count of PGs that are both when clean implies
            # active (Ceph sets clean on active PGs only), and never more than that otherwise. The min is
            # "clean where below active, else active" (`<` filters, `or` fills the pools it dropped).
            active = f"max by (pool_id) ({self.gauge('ceph_pg_active', step)})"
            clean = f"max by (pool_id) ({self.gauge('ceph_pg_clean', step)})"
            return f"sum({clean} < {active} or {active})"
        if metric.startswith(PG_STATE_PREFIX):
            state = metric[len(PG_STATE_PREFIX):]
            if not PG_STATE_WORD.fullmatch(state):
                return None  # a combination ("active+undersized+degraded"): not exported, see above
            return f"sum(max by (pool_id) ({self.gauge('ceph_pg_' + state, step)}))"
        if metric in ("osds_up", "osds_in"):
            return f"sum(max by (ceph_daemon) ({self.gauge('ceph_osd_' + metric[5:], step)}))"
        if metric == "osds":
            return f"count(max by (ceph_daemon) ({self.gauge('ceph_osd_up', step)}))"
        if metric in CLUSTER_METRICS:
            raise AssertionError(f"{metric} is in CLUSTER_METRICS but has no PromQL here")  # a new name
        raise ValueError(f"unknown cluster metric {metric!r}")

    def pool_promql(self, pool: str, metric: str, step: int) -> str:
        if metric not in POOL_METRICS:
            raise ValueError(f"unknown pool metric {metric!r}")
        w = self.rate_window(step)
        # The counters are keyed by pool_id; the name is on ceph_pool_metadata, so a renamed pool follows
        # its name over time. json.dumps quotes the name as a PromQL string literal (same escapes).
        meta = self.sel("ceph_pool_metadata", f"name={json.dumps(pool)}")
        return (f"sum(max by (pool_id) (rate({self.sel(POOL_COUNTERS[metric])}[{w}s]))"
                f" * on (pool_id) max by (pool_id) ({meta}))")

    # ------------------------------------------------------------ HistorySource
    def cluster_series(self, metric: str, since: float, until: float) -> list[tuple[float, float]]:
        start, end, step = self.plan(since, until)
        promql = self.cluster_promql(metric, step)
        return self._one(promql, start, end, step) if promql else []

    def pool_series(self, pool: str, metric: str, since: float, until: float) -> list[tuple[float, float]]:
        """(t, value) points of one POOL_METRICS name for the pool of that name, oldest first."""
        start, end, step = self.plan(since, until)
        return self._one(self.pool_promql(pool, metric, step), start, end, step)

    def osd_promql(self, step: int) -> dict[str, str]:
        """The PromQL per OsdFrame field, each a series per OSD (ceph_daemon="osd.N")."""
        by = "max by (ceph_daemon)"
        return {
            "commit_ms": f"{by} ({self.gauge('ceph_osd_commit_latency_ms', step)})",
            "apply_ms": f"{by} ({self.gauge('ceph_osd_apply_latency_ms', step)})",
            # An OSD that has not reported its size (0 bytes) gives NaN or Inf, left out by parse_matrix.
            "used": f"{by} ({self.gauge('ceph_osd_stat_bytes_used', step)})"
                    f" / {by} ({self.gauge('ceph_osd_stat_bytes', step)})",
        }

    def events_promql(self, step: int) -> tuple[str, str]:
        """(active, known) for events_from. Each point looks back over its whole step (max_over_time), so a
        check raised and cleared between two points still shows as raised at one of them."""
        window = f"[{step}s]"
        return (f"max by (name, severity) (max_over_time({self.sel('ceph_health_detail')}{window}))",
                f"max(max_over_time({self.sel('ceph_health_status')}{window}))")

    def osd_frames(self, since: float, until: float, max_frames: int | None = None) -> list[OsdFrame]:
        start, end, step = self.plan(since, until)
        if max_frames:
            step = max(step, choose_step(since, until, max_frames))
            start = until - math.floor(max(0.0, until - since) / step) * step
        return frames_from({name: self.query_range(promql, start, end, step)
                            for name, promql in self.osd_promql(step).items()})

    def events(self, since: float, until: float) -> list[HealthEvent]:
        start, end, step = self.plan(since, until)
        # From one step before since: a change at the first point inside the window needs the one before.
        # An event's time is the first point at which Prometheus saw the change (up to a step late).
        active, known = self.events_promql(step)
        start -= step
        events = events_from(self.query_range(known, start, end, step), self.query_range(active, start, end, step),
                             since)
        return [e for e in events if e.t <= until]

    def _one(self, promql: str, start: float, end: float, step: int) -> list[tuple[float, float]]:
        """The points of an expression that aggregates to one series (sum, max, count): [] when no series
        matched (the metric is not exported by this mgr, or nothing was scraped then)."""
        result = self.query_range(promql, start, end, step)
        if len(result) > 1:
            raise PrometheusError(f"{promql!r} gave {len(result)} series, expected one")
        return result[0][1] if result else []


DASHBOARD_KEY = "mgr/dashboard/PROMETHEUS_API_HOST"


def find_prometheus(client: Any) -> str | None:
    """The cluster's own Prometheus URL, as cephadm or an admin told the dashboard
    (`ceph dashboard set-prometheus-api-host URL`), or None when it was never told.

    client: a connected CephClient (anything with its `mon(prefix, **args)`). Raises what the client raises
    (CephError) when the mon cannot be asked.

    Read from the mon's config database (the dashboard keeps module options there, set_module_option, since
    the option exists: Nautilus; not in config-key), with the **mon** command `config get`: a mgr command
    would strand discovery with the mgr down, which is when history is wanted most. The whole mgr section
    is asked for, not `key=`: with a key the mon answers ENOENT "unrecognized key" whenever no mgr module
    declares the option (no dashboard package installed, as on a host that set it with `--force`), and
    plain text rather than JSON; the section lists every value set for mgr, declared or not (Pacific)."""
    section = client.mon("config get", who="mgr")
    entry = section.get(DASHBOARD_KEY) if isinstance(section, dict) else None
    value = entry.get("value") if isinstance(entry, dict) else entry
    url = str(value).strip() if value is not None else ""
    return url.rstrip("/") or None


def _osd_id(daemon: str) -> int | None:
    """osd.12 -> 12; anything else (a label the mgr did not set) -> None."""
    kind, _, num = daemon.partition(".")
    return int(num) if kind == "osd" and num.isdigit() else None


def _num(x: float) -> str:
    """A time or step as Prometheus reads it: whole numbers without a fraction, others in full."""
    return str(int(x)) if float(x).is_integer() else repr(float(x))
