"""Health: status and checks, services, capacity, IO, and the live cluster log."""
from __future__ import annotations

import re
import time

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import RichLog, Static

from cephtui.ceph.format import human_bytes, human_rate, percent
from cephtui.ceph.history.view import HistoryView
from cephtui.ceph.snapshot.cluster_snapshot import ClusterSnapshot
from cephtui.ceph.snapshot.models import HealthCheck, LogEntry, Ratios
from cephtui.ui import palette
from cephtui.ui.compat import DataTable
from cephtui.ui.pane import Pane
from cephtui.ui.tabs import number_key, place_of
from cephtui.ui.widgets.cluster_log import ClusterLog
from cephtui.ui.widgets.spark import spark_line
from cephtui.ui.widgets.statusbar import health_badge
from cephtui.ui.widgets.tables import sync_static, sync_table

# Styles as palette specs (roles, not colours): palette.style() turns them into the theme's colours.
SEVERITY_STYLE = {"HEALTH_ERR": "bold err", "HEALTH_WARN": "warn"}
LOG_STYLE = {"[ERR]": "bold err", "[WRN]": "warn", "[SEC]": "accent", "[DBG]": "muted"}
FILL_STYLE = {"full": "badge err", "backfillfull": "bold err", "nearfull": "bold warn"}
DETAIL_LINES = 8
LOG_TITLE = "Cluster log (ceph -w)"
RETHEME_LINES = 200  # log lines drawn again after a theme change
LOG_WRITE_MAX = 100  # lines written per refresh (200 cost 42 ms, 100 cost 16: bench_logflood.py); the rest: dropped


def fill_level(fraction: float, ratios: Ratios) -> str:
    """"full", "backfillfull", "nearfull" or "": the highest of the cluster's own ratios `fraction` reached."""
    if fraction >= ratios.full:
        return "full"
    if fraction >= ratios.backfillfull:
        return "backfillfull"
    if fraction >= ratios.nearfull:
        return "nearfull"
    return ""


def fill_style(fraction: float, ratios: Ratios) -> str:
    level = fill_level(fraction, ratios)
    return palette.style(FILL_STYLE[level]) if level else ""


def usage_bar(fraction: float, ratios: Ratios, width: int = 30) -> Text:
    filled = max(0, min(width, round(fraction * width)))
    spec = FILL_STYLE.get(fill_level(fraction, ratios), "ok").replace("badge ", "bold ")
    bar = Text("█" * filled, style=palette.style(spec))
    bar.append("░" * (width - filled), style=palette.style("muted"))
    return bar


def render_checks(snap: ClusterSnapshot) -> Group | Text:
    h = snap.health
    if not h.checks:
        return Text("No health checks raised.", style=palette.style("ok"))
    parts: list[Text] = []
    if all(c.muted for c in h.checks):  # `ceph -s`: HEALTH_OK (muted: ...)
        parts.append(Text("No health checks raised (muted ones below).", style=palette.style("ok")))
    # Muted checks last and on one line each, as `ceph -s` leaves them out: a check someone muted on
    # purpose (a packaging quirk, a known warning) must not push the live ones off a small screen.
    for c in sorted(h.checks, key=lambda c: c.muted):
        line = Text()
        line.append(f"[{c.severity.removeprefix('HEALTH_')}] ", style=palette.style(SEVERITY_STYLE.get(c.severity, "")))
        line.append(c.code, style="bold")
        line.append(f"  {c.summary}")
        if c.muted:
            line.append("  (muted)", style=palette.style("italic muted"))
        parts.append(line)
        if c.muted:
            continue
        for d in c.detail[:DETAIL_LINES]:
            parts.append(Text(f"    {d}", style=palette.style("muted") if c.muted else ""))
        if len(c.detail) > DETAIL_LINES:
            parts.append(Text(f"    … and {len(c.detail) - DETAIL_LINES} more", style=palette.style("muted")))
    return Group(*parts)


def render_services(snap: ClusterSnapshot) -> Table:
    t = Table.grid(padding=(0, 2))
    t.add_column(style="bold")
    t.add_column()
    m, g, o = snap.mons, snap.mgr, snap.osds
    mon = Text(f"{len(m.quorum)}/{len(m.names)} in quorum", style=palette.style("warn" if m.out_of_quorum else "ok"))
    mon.append(f"  ({', '.join(m.quorum)}" + (f"; leader {m.leader})" if m.leader else ")"),
               style=palette.style("muted"))
    if m.out_of_quorum:
        mon.append(f"  out: {', '.join(m.out_of_quorum)}", style=palette.style("bold err"))
    t.add_row("mon", mon)
    mgr = (Text(f"{g.active} active", style=palette.style("ok")) if g.available
           else Text("no active mgr", style=palette.style("bold err")))
    mgr.append(f"  standbys: {', '.join(g.standbys) or 'none'}", style=palette.style("muted"))
    t.add_row("mgr", mgr)
    osd = Text(f"{o.total} osds: ")
    osd.append(f"{o.up} up", style=palette.style("ok" if o.up == o.total else "bold err"))
    osd.append(", ")
    osd.append(f"{o.in_} in", style=palette.style("ok" if o.in_ == o.total else "warn"))
    if o.remapped_pgs:
        osd.append(f"; {o.remapped_pgs} remapped pgs", style=palette.style("warn"))
    t.add_row("osd", osd)
    return t


def render_io(snap: ClusterSnapshot) -> Table:
    io = snap.io
    t = Table.grid(padding=(0, 2))
    t.add_column(style="bold")
    t.add_column()
    t.add_row("client", f"{human_rate(io.read_bps)} rd, {human_rate(io.write_bps)} wr, "
                        f"{io.read_ops} op/s rd, {io.write_ops} op/s wr")
    rec = f"{human_rate(io.recovering_bps)}, {io.recovering_objects_ps} objects/s" \
        if io.recovering_bps or io.recovering_objects_ps else "idle"
    t.add_row("recovery", Text(rec, style=palette.style("warn" if rec != "idle" else "muted")))
    for ev in snap.progress:
        t.add_row("progress", Text(f"{ev.message} {percent(ev.fraction)}", style=palette.style("info")))
    return t


SPARKS = (("wr", "write_bps", human_rate), ("rd", "read_bps", human_rate),
          ("rec", "recovering_bps", human_rate), ("degr", "degraded_objects", lambda v: f"{v:,.0f} obj"))
SPARK_WIDTH = 60


def _clock(t: float) -> str:
    return time.strftime("%H:%M:%S" if time.time() - t < 86400 else "%m-%d %H:%M", time.localtime(t))


def render_history(view: HistoryView, width: int = SPARK_WIDTH) -> Text:
    """The IO box's history: one sparkline per rate over the window, and the time cursor's moment."""
    s = palette.style
    t = Text()
    at = view.at
    if at is not None:
        ago = time.time() - at.t
        t.append(f"⏪ {_clock(at.t)} ({ago / 60:.0f} min ago)", style=s("bold accent"))
        t.append("  ] later, [ earlier\n", style=s("muted"))
        c = at.cluster
        t.append(f"client {human_rate(c.get('read_bps', 0))} rd, {human_rate(c.get('write_bps', 0))} wr, "
                 f"{c.get('read_ops', 0):.0f} op/s rd, {c.get('write_ops', 0):.0f} op/s wr\n")
        if c.get("pgs"):
            states = sorted(((k[9:], v) for k, v in c.items() if k.startswith("pg_state:") and v), key=lambda x: -x[1])
            t.append("pgs " + ", ".join(f"{v:.0f} {k}" for k, v in states[:3]) + "\n")
        checks = ", ".join(f"{code} ({sev.removeprefix('HEALTH_')})" for code, (sev, _) in sorted(at.checks.items()))
        t.append("checks then: " + (checks or "none") + "\n",
                 style=s("warn" if at.checks else "ok"))
    if view.problem:
        t.append(view.problem, style=s("muted"))
        return t
    cursor = at.t if at is not None else None
    for label, metric, fmt in SPARKS:
        points = view.series.get(metric) or []
        top = max((v for _, v in points), default=0.0)
        t.append(f"{label:<5}", style="bold")
        t.append_text(spark_line(points, view.since, view.until, width, cursor, style=s("info")))
        t.append(f" max {fmt(top)}\n", style=s("muted"))
    t.rstrip()
    return t


def history_title(view: HistoryView | None, window: str) -> str:
    if view is None:
        return f"w: {window}"
    return f"{window} · {view.label.split(' (')[0]} · w window, [ ] time, t timeline"


def render_raw(snap: ClusterSnapshot) -> Text:
    c = snap.capacity
    t = Text("raw  ", style="bold")
    t.append_text(usage_bar(c.ratio, snap.ratios, width=20))
    t.append(f" {percent(c.ratio)}", style=fill_style(c.ratio, snap.ratios))
    t.append(f"  {human_bytes(c.used)} / {human_bytes(c.total)} used, {human_bytes(c.avail)} avail")
    r = snap.ratios
    for ratio, name in ((r.full, "full"), (r.backfillfull, "backfillfull"), (r.nearfull, "nearfull")):
        if c.ratio >= ratio:
            t.append(f"  past the {name} ratio", style=fill_style(c.ratio, r))
            break
    t.append(f"\n     nearfull {percent(r.nearfull)} · backfillfull {percent(r.backfillfull)} · full {percent(r.full)}",
             style=palette.style("muted"))
    return t


def _named(check: HealthCheck | None, pattern: str) -> list[str]:
    """What a check's detail lines name: 'osd.0 is full' -> osd.0, "pool 'x' is full (no space)" -> x."""
    if check is None:
        return []
    out = []
    for d in check.detail:
        m = re.match(pattern, d)
        if m:
            out.append(m.group(1))
    return out


def _few(names: list[str], limit: int = 6) -> str:
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")


def fullness(snap: ClusterSnapshot) -> Text | None:
    """What the fullness checks mean, with the OSDs and pools they name and the cluster's own ratios.

    `osd.0 is full` alone does not say at what level, nor that writes have stopped."""
    checks = {c.code: c for c in snap.health.checks}
    r = snap.ratios
    t = Text()
    osd_full = checks.get("OSD_FULL")
    pool_full = checks.get("POOL_FULL")
    if osd_full or pool_full:
        osds = _named(osd_full, r"(osd\.\d+) is full")
        pools = _named(pool_full, r"pool '(.+)' is full")
        t.append("⛔ FULL: writes are blocked", style=palette.badge("err"))
        if osds:
            t.append(f"\n{_few(osds)} past the full ratio ({percent(r.full)})", style=palette.style("bold err"))
        if pools:
            t.append(f"\npools that refuse writes: {_few(pools)}", style=palette.style("bold err"))
        t.append("\nAdd OSDs, or free space: plain deletes wait too (`rados rm --force-full` does not); raising "
                 "`ceph osd set-full-ratio` a little, briefly, lets clients delete.", style=palette.style("err"))
    back = _named(checks.get("OSD_BACKFILLFULL"), r"(osd\.\d+) is backfill full")
    if back:
        t.append(("\n" if t.plain else "") + f"⚠ {_few(back)} past backfillfull ({percent(r.backfillfull)}): "
                 "backfill onto them stops", style=palette.style("bold warn"))
    near = _named(checks.get("OSD_NEARFULL"), r"(osd\.\d+) is near full")
    if near and not t.plain:
        t.append(f"⚠ {_few(near)} past nearfull ({percent(r.nearfull)})", style=palette.style("warn"))
    return t if t.plain else None


def log_line(e: LogEntry, narrow: bool = False) -> Text:
    """One entry as `ceph -w` shows it; `narrow` (a log box under 60 columns) leaves out a mon's name, which is
    most lines' and says least, so that the text starts on the stamp's line."""
    t = Text(e.stamp[11:19] + " ", style=palette.style("muted"))
    if not (narrow and e.name.startswith("mon.")):
        t.append(f"{e.name} ", style=palette.style("info"))
    t.append(f"{e.priority} ", style=palette.style(LOG_STYLE.get(e.priority, "ok")))
    t.append(e.message, style=palette.style(LOG_STYLE.get(e.priority, "")))
    return t


class HealthPane(Pane):
    SHOWS_HISTORY = True  # sparklines of the history window
    HELP = ("Cluster name and fsid, the health badge (OK / WARN / ERR), the connection state and the age of the data "
            "shown are in the header. When the monitors stop answering, the last data stays on screen with its age "
            "and cephtui keeps retrying; it recovers by itself.")

    def compose(self) -> ComposeResult:
        with Horizontal(id="health-top"):
            with Vertical(id="health-left"):
                yield Static(id="health-status", classes="box")
                yield Static(id="health-services", classes="box")
                yield Static(id="health-io", classes="box")
            with VerticalScroll(id="health-checks-box", classes="box"):
                yield Static(id="health-checks")
        with Horizontal(id="health-bottom"):
            with Vertical(id="health-bottom-left"):
                yield Static(id="health-history", classes="box")
                with Vertical(id="health-capacity", classes="box"):
                    yield Static(id="health-raw")
                    yield DataTable(id="health-pools", cursor_type="row", zebra_stripes=True)
            # min_width: RichLog draws every line at least 78 columns wide by default; in a 38-column box (an
            # 80-column terminal) the rest of each line was cut off, leaving the stamp and the daemon
            yield ClusterLog(id="health-log", classes="box", max_lines=2000, wrap=True, markup=False, min_width=20)

    def on_mount(self) -> None:
        self.query_one("#health-status").border_title = "Status"
        self.query_one("#health-services").border_title = "Services"
        self.query_one("#health-io").border_title = "IO"
        hist = self.query_one("#health-history")
        hist.border_title = "History"
        hist.add_class("-empty")  # until there is a history to show (none in a replay)
        self.query_one("#health-checks-box").border_title = "Health checks"
        self.query_one("#health-checks-box").border_subtitle = \
            f"{number_key(place_of('doctor'))}: Doctor explains and fixes"
        self.query_one("#health-capacity").border_title = "Capacity"
        self.query_one("#health-log").border_title = LOG_TITLE
        pools = self.query_one("#health-pools", DataTable)
        for label, key in (("pool", "pool"), ("stored", "stored"), ("used", "used"),
                           ("%used", "pct"), ("max avail", "avail"), ("objects", "objects"), ("quota", "quota")):
            pools.add_column(label, key=key)
        self._log_upto: int | None = None  # the number of the newest log entry written
        self._log_missed = 0  # entries this pane never wrote (hidden during a flood, or over LOG_WRITE_MAX)
        self.log_written = 0  # entries written (for scripts/bench_logflood.py)
        self._log_started = False
        self._log_since: str | None = None  # "— live since … —", when the mon's tail had nothing to backfill

    def show_stale(self, snap: ClusterSnapshot) -> bool:
        self.show(snap, stale=True)
        return True

    def show(self, snap: ClusterSnapshot, stale: bool = False) -> None:
        if stale:  # the mon is away: the last status and quorum in grey, never a green "HEALTH_OK"
            muted = palette.style("muted")
            text = Text(f"Overall  unknown: no answer from the monitors\nlast seen: {snap.health.short}", style=muted)
            sync_static(self.query_one("#health-status", Static), ("stale", snap.health.short), lambda: text)
            m, g, o = snap.mons, snap.mgr, snap.osds
            services = Text(f"mon  no answer (last seen: quorum {', '.join(m.quorum) or 'none'})\n"
                            f"mgr  unknown (last seen: {g.active + ' active' if g.available else 'none active'})\n"
                            f"osd  unknown (last seen: {o.up}/{o.total} up)", style=muted)
            sync_static(self.query_one("#health-services", Static), ("stale", snap.mons, snap.mgr, snap.osds),
                        lambda: services)
            n = sum(1 for c in snap.health.checks if not c.muted)  # what `ceph -s` counts
            checks = Text(f"unknown: no answer from the monitors (last seen: {n} check{'s' if n != 1 else ''})",
                          style=muted)
            sync_static(self.query_one("#health-checks", Static), ("stale", n), lambda: checks)
            return
        status = Text("Overall  ", style="bold")
        status.append_text(health_badge(snap.health.short))
        status.append(f"  {snap.health.status}")
        n = sum(1 for c in snap.health.checks if not c.muted)  # what `ceph -s` counts
        status.append(f"\n{n} check{'s' if n != 1 else ''} raised" if n else "\nall checks pass",
                      style=palette.style("warn" if n else "ok"))
        if snap.health.mutes:
            status.append(f", {len(snap.health.mutes)} muted", style=palette.style("muted"))
        full = fullness(snap)
        if full is not None:
            status.append("\n")
            status.append_text(full)
        for note in snap.notes:
            status.append(f"\n⚠ {note}", style=palette.style("warn"))
        sync_static(self.query_one("#health-status", Static), status, lambda: status)
        sync_static(self.query_one("#health-services", Static), (snap.mons, snap.mgr, snap.osds),
                    lambda: render_services(snap))
        if snap.mgr_down:  # client and recovery rates come from the mgr: unknown, not 0
            io_text = Text(f"⚠ {snap.mgr_down}", style=palette.style("warn"))
            sync_static(self.query_one("#health-io", Static), ("mgr down", snap.mgr_down), lambda: io_text)
        else:
            sync_static(self.query_one("#health-io", Static), (snap.io, snap.progress), lambda: render_io(snap))
        sync_static(self.query_one("#health-checks", Static), snap.health, lambda: render_checks(snap))
        sync_static(self.query_one("#health-raw", Static), (snap.capacity.total, snap.capacity.used,
                                                            snap.capacity.avail, snap.ratios),
                    lambda: render_raw(snap))
        rows = {}
        for p in snap.capacity.pools:
            style = fill_style(p.percent_used, snap.ratios)
            quota = " ".join(filter(None, (human_bytes(p.quota_bytes) if p.quota_bytes else "",
                                           f"{p.quota_objects} obj" if p.quota_objects else ""))) or "-"
            rows[p.id] = (Text(p.name, style=style), human_bytes(p.stored), human_bytes(p.used),
                          Text(percent(p.percent_used), style=style), human_bytes(p.max_avail), str(p.objects), quota)
        sync_table(self.query_one("#health-pools", DataTable), rows)
        self._append_log(snap)

    def show_history(self, view: HistoryView | None, window: str) -> None:
        box = self.query_one("#health-history", Static)
        if view is None:
            box.add_class("-empty")
            return
        box.remove_class("-empty")
        # label (5) + line + " max 1023.9 MiB/s" (17), inside the border and padding (4)
        width = max(10, min(SPARK_WIDTH, box.size.width - 27)) if box.size.width else 30
        box.border_subtitle = history_title(view, window)
        sync_static(box, (view, width), lambda: render_history(view, width))

    def retheme(self) -> None:
        """The log keeps lines as drawn: draw the ones the last snapshot still holds again, in the new colours."""
        self._redraw_log()

    def on_cluster_log_reflow(self, event: ClusterLog.Reflow) -> None:
        """The log's width changed: its lines again, wrapped for the new width."""
        event.stop()
        self._redraw_log()

    def _redraw_log(self) -> None:
        snap = self.services.snapshot
        if snap is None or self._log_upto is None:
            return
        first = snap.log_total - len(snap.log) + 1
        written = snap.log[max(0, len(snap.log) - RETHEME_LINES):max(0, self._log_upto - first + 1)]
        log = self.query_one("#health-log", RichLog)
        log.clear()
        if self._log_since is not None:
            log.write(self._since_line(self._log_since))
        if written:
            log.write(Text("\n").join(log_line(e, self._log_narrow(log)) for e in written))

    @staticmethod
    def _since_line(stamp: str) -> Text:
        return Text(f"— live since {stamp} UTC —", style=palette.style("muted"))

    def _log_narrow(self, log: RichLog) -> bool:
        """Under 60 columns (80-column terminals): before the first layout, half the screen is what it gets."""
        return (log.size.width or self.app.size.width // 2) < 60

    def _append_log(self, snap: ClusterSnapshot) -> None:
        """Write the lines this pane has not written yet; count the ones it never can.

        Entries are numbered by the builder (`log_total` is the newest one's number), so a gap
        (the pane was hidden while more than a snapshot's worth went by) is counted, not silently
        skipped. At most LOG_WRITE_MAX lines are written per refresh: rendering thousands of lines
        on the UI thread during a flood would freeze the UI, and nobody reads them at that speed.
        """
        entries, total = snap.log, snap.log_total
        first = total - len(entries) + 1  # the number of entries[0]
        if self._log_upto is None or total < self._log_upto:  # first show, or a new builder: no gap
            self._log_upto = first - 1
        start = max(self._log_upto + 1, first)
        missed = start - (self._log_upto + 1)
        new = entries[start - first:]
        if len(new) > LOG_WRITE_MAX:
            missed += len(new) - LOG_WRITE_MAX
            new = new[-LOG_WRITE_MAX:]
        self._log_missed += missed
        self._log_upto = total
        log = self.query_one("#health-log", RichLog)
        if not self._log_started:
            self._log_started = True
            if not entries:  # the mon's short tail held no cluster-channel lines to backfill
                self._log_since = time.strftime('%H:%M:%S', time.gmtime())
                log.write(self._since_line(self._log_since))
        if new:
            # One write for the batch: each write() is a render pass of its own.
            narrow = self._log_narrow(log)
            log.write(Text("\n").join(log_line(e, narrow) for e in new))
            self.log_written += len(new)
        dropped = snap.log_dropped + self._log_missed
        title = LOG_TITLE + (f" · {dropped:,} lines dropped (flood)" if dropped else "")
        if log.border_title != title:
            log.border_title = title
            log.border_subtitle = "" if not dropped else "more lines than the screen can take: newest kept"
