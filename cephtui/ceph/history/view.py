"""What the panes show of the history: one frozen view over a window, built off the UI thread.

A view holds the cluster series over the window (the Health tab's sparklines), each OSD's latency trend
(the OSDs tab), and, when the time cursor is set, what the cluster looked like at that moment: its rates,
PG states and the health checks that were raised then.
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from cephtui.ceph.history.model import PG_STATE_PREFIX, HealthEvent, HistorySource, OsdFrame

WINDOWS = (("15m", 900), ("1h", 3600), ("24h", 86400), ("7d", 7 * 86400))
SPARK_METRICS = ("read_bps", "write_bps", "read_ops", "write_ops", "recovering_bps", "degraded_objects",
                 "misplaced_objects")
CHECKS_LOOKBACK = 86400  # events read before the cursor to know which checks were raised at it
TREND_CELLS = 12  # the OSDs tab's trend column
TREND_FRAMES = 4 * TREND_CELLS  # frames read for it: a few a cell (5,000 OSDs x 180 frames held the GIL ~1 s)


def cursor_step(window: float) -> float:
    """How far one press of the time-cursor keys moves: a 15th of the window, at least a minute."""
    return max(60.0, window / 15)


@dataclass(frozen=True)
class AtCursor:
    t: float  # the point shown (the nearest recorded one at or before the cursor)
    cluster: dict[str, float]
    checks: dict[str, tuple[str, str]]  # raised then: code -> (severity, summary)
    osd: OsdFrame | None


@dataclass(frozen=True)
class HistoryView:
    label: str  # the source, as said on screen
    window: float  # seconds
    since: float
    until: float
    series: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    # Per OSD, its highest commit latency (ms) in each of TREND_CELLS time slots of the window (None: no
    # value then), oldest first; trend_top: the highest of all, the column's common scale.
    osd_trend: dict[int, list[float | None]] = field(default_factory=dict)
    trend_top: float = 0.0
    at: AtCursor | None = None
    problem: str = ""  # why the view is empty or partial ("" when all is well)

    @property
    def points(self) -> int:
        return max((len(v) for v in self.series.values()), default=0)


def checks_at(events: Sequence[HealthEvent], t: float) -> dict[str, tuple[str, str]]:
    """Replay raised/changed/cleared events up to t: the checks raised at that moment."""
    open_: dict[str, tuple[str, str]] = {}
    for e in events:
        if e.t > t:
            break
        if e.change == "cleared":
            open_.pop(e.code, None)
        else:
            open_[e.code] = (e.severity, e.summary)
    return open_


def _nearest(points: Sequence[tuple[float, float]], t: float) -> float | None:
    best = None
    for pt, v in points:
        if pt > t:
            break
        best = v
    return best


def build_view(source: HistorySource, window: float, cursor: float | None = None, osds: bool = False,
               now: float | None = None) -> HistoryView:
    """Read the window ending now (or at the cursor, when it lies before the window's start)."""
    now = time.time() if now is None else now
    until = now if cursor is None or cursor >= now - window else cursor + window / 2
    since = until - window
    series = _series(source, since, until)
    frames = source.osd_frames(since, until, max_frames=TREND_FRAMES) if osds or cursor is not None else []
    trend = trend_cells(frames, since, until) if osds else {}
    at = None
    if cursor is not None:
        before = source.events(cursor - CHECKS_LOOKBACK, cursor)
        pg_names = [m for m in _pg_state_names(source, cursor)]
        cluster = {m: v for m in (*SPARK_METRICS, "pgs", "pgs_active_clean", *pg_names)
                   for v in [_nearest(series.get(m) or source.cluster_series(m, cursor - window, cursor), cursor)]
                   if v is not None}
        frame = next((f for f in reversed(frames) if f.t <= cursor), None)
        t = max((pt for pt, _ in series.get("write_bps", []) if pt <= cursor), default=cursor)
        at = AtCursor(t=t, cluster=cluster, checks=checks_at(before, cursor), osd=frame)
    problem = "" if any(series.values()) else "no history recorded for this window yet"
    return HistoryView(label=source.label, window=window, since=since, until=until, series=series,
                       osd_trend=trend, trend_top=max((v for cells in trend.values() for v in cells if v is not None),
                                                      default=0.0),
                       at=at, problem=problem)


def trend_cells(frames: Sequence[OsdFrame], since: float, until: float,
                cells: int = TREND_CELLS) -> dict[int, list[float | None]]:
    """Each OSD's highest commit latency per time slot, binned by time as the sparklines are (a gap in the
    recording stays a gap). Built here, in the reader's thread: the pane only draws 12 values an OSD."""
    out: dict[int, list[float | None]] = {}
    span = max(until - since, 1e-9)
    for f in frames:
        if f.t < since or f.t > until:
            continue
        k = min(int((f.t - since) / span * cells), cells - 1)
        for osd, v in f.commit_ms.items():
            row = out.get(osd)
            if row is None:
                row = out[osd] = [None] * cells
            old = row[k]
            if old is None or v > old:
                row[k] = v
    return out


def _series(source: HistorySource, since: float, until: float) -> dict[str, list[tuple[float, float]]]:
    """The sparklines' series. The local store keeps every cluster metric of a point in one blob: unpack each
    point once, not once per series (7x the zlib+JSON work: 24 h is 1,440 points)."""
    frames = getattr(source, "cluster_frames", None)
    if frames is None:  # Prometheus: one query per series
        return {m: source.cluster_series(m, since, until) for m in SPARK_METRICS}
    rows = frames(since, until)
    return {m: [(t, float(d.get(m, 0.0))) for t, d in rows] for m in SPARK_METRICS}


def _pg_state_names(source: HistorySource, t: float) -> list[str]:
    """The pg_state:* names a source recorded near t (the local store keeps them per sample)."""
    frames = getattr(source, "cluster_frames", None)
    if frames is None:
        return []
    near = frames(t - 3600, t)
    return sorted({k for _, d in near[-1:] for k in d if k.startswith(PG_STATE_PREFIX)})
