"""Bench: a live `rados bench`, this host's load beside it, the history of runs, and per-OSD bench.

The engine runs in a worker thread; a half-second timer reads its progress (a
lock and a copy, never the cluster) into sparklines, so the UI stays responsive
even at 4 KiB ops. Every run is saved to the history, which lists, compares
and exports runs.
"""
from __future__ import annotations

import logging
import os
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import ProgressBar, Sparkline, Static

from cephtui.ceph import ops
from cephtui.ceph.bench.engine import (
    LATENCY_PRESET,
    STALL_NOTABLE,
    BenchEngine,
    BenchError,
    BenchParams,
    BenchResult,
    MiB,
    Progress,
    parse_size,
    run_bench,
    write_refusal,
)
from cephtui.ceph.bench.history import BenchHistory, export_csv, export_json, scope, write_export
from cephtui.ceph.bench.hoststats import HostSample, HostSampler, bottleneck_hint
from cephtui.ceph.bench.osdbench import OSDBench, OSDBenchParams, OSDBenchResult, bench_client, rank_results
from cephtui.ceph.bench.osdbench import cli as osd_bench_cli
from cephtui.ceph.bench.pool import (
    TEMP_POOL_PREFIX,
    bench_operation,
    explain_temp_pool_refusal,
    temp_pool_create_ops,
    temp_pool_delete_op,
    temp_pool_name,
    temp_pool_pg_num,
)
from cephtui.ceph.client import CephError
from cephtui.ceph.format import human_bytes, human_rate
from cephtui.ceph.snapshot.models import ClusterSnapshot
from cephtui.config import BenchDefaults
from cephtui.ui import palette
from cephtui.ui.compat import DataTable
from cephtui.ui.readonly import GuardedActions
from cephtui.ui.screens.bench_views import BenchConfirmScreen, CompareScreen, RunDetailScreen
from cephtui.ui.widgets.tables import sync_table
from cephtui.ui.wizards.form import Field, FormScreen

log = logging.getLogger("cephtui")

HISTORY_COLUMNS = (("when", 16), ("mode", 5), ("pool", 14), ("op size", 7), ("thr", 3), ("MiB/s", 8),
                   ("IOPS", 7), ("avg ms", 8), ("p99 ms", 8), ("status", 7))
OSD_COLUMNS = (("#", 2), ("osd", 7), ("MiB/s", 8), ("IOPS", 6), ("time", 6), ("×median", 7), ("", 34))
YES_NO = ("yes", "no")
SPARK_POINTS = 300  # seconds of history the sparklines keep


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def _size(n: int) -> str:
    return human_bytes(n).replace(" ", "").replace(".0", "")


class BenchPane(GuardedActions, Vertical):
    # What each key would change: dimmed and refused in --read-only mode (see ui/readonly.py).
    MUTATING = {
        "new_run": "a benchmark run (it writes to a pool)",
        "latency_run": "a latency run (it writes to a pool)",
        "repeat": "repeating a benchmark run (it writes)",
        "osd_bench": "the per-OSD bench (it writes to every OSD)",
    }
    BINDINGS = [
        Binding("b", "new_run", "New run"),
        Binding("l", "latency_run", "Latency run"),
        Binding("R", "repeat", "Repeat"),
        Binding("x", "stop", "Stop"),
        Binding("o", "osd_bench", "OSD bench"),
        Binding("space", "mark", "Mark"),
        Binding("c", "compare", "Compare"),
        Binding("e", "export", "Export"),
    ]

    def __init__(self, history: BenchHistory | None = None, **kw: object) -> None:
        super().__init__(**kw)  # type: ignore[arg-type]
        self.history_store = history or BenchHistory()
        self.history: list[BenchResult] = []  # this cluster's runs (see benchhistory.scope)
        self._all_runs: list[BenchResult] = []  # every run in the file, of any cluster
        self.fsid = ""  # the connected cluster's, once known: the history shows only its runs
        self.marked: set[str] = set()
        self.snap: ClusterSnapshot | None = None
        self.engine: BenchEngine | None = None
        self.running: BenchParams | None = None
        self.phase = ""
        self.last_params: tuple[BenchParams, bool] | None = None
        self.last_result: BenchResult | None = None
        self.message: Text = Text("")
        self._said: tuple[str, str] | None = None  # the message's text and palette spec
        self.osd_bench: OSDBench | None = None
        self.osd_results: tuple[OSDBenchResult, ...] = ()
        self.osd_progress = ""
        self.sampler = HostSampler()
        self.host: HostSample | None = None
        self._ticks = 0
        self._shown_samples = -1

    # ------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield Static(id="bench-status")
        with Horizontal(id="bench-top"):
            with Vertical(id="bench-live", classes="box"):
                yield ProgressBar(total=1, show_eta=False, id="bench-progress")
                yield Static("MiB/s", id="bench-bw-label", classes="spark-label")
                yield Sparkline([], id="bench-bw", summary_function=max)
                yield Static("IOPS", id="bench-iops-label", classes="spark-label")
                yield Sparkline([], id="bench-iops", summary_function=max)
                yield Static("latency", id="bench-lat-label", classes="spark-label")
                yield Sparkline([], id="bench-lat", summary_function=max)
                yield Static(id="bench-summary")
            yield Static(id="bench-host", classes="box")
        with Horizontal(id="bench-bottom"):
            yield DataTable(id="bench-history", classes="box", cursor_type="row", zebra_stripes=True)
            yield DataTable(id="bench-osds", classes="box", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        self.query_one("#bench-live").border_title = "Live (b new run · l latency run · R repeat · x stop)"
        self.query_one("#bench-host").border_title = "This host (psutil)"
        hist = self.query_one("#bench-history", DataTable)
        hist.border_title = "History (enter detail · space mark · c compare · e export)"
        for c, w in HISTORY_COLUMNS:
            hist.add_column(c, key=c, width=w)
        osds = self.query_one("#bench-osds", DataTable)
        osds.display = False  # appears with the first per-OSD bench; until then the history has the room
        osds.border_title = "Per-OSD bench (o): ceph tell osd.N bench"
        for c, w in OSD_COLUMNS:
            osds.add_column(c, key=c or "flag", width=w)
        self.sampler.sample()  # primes the counters: rates start with the next call
        self._render_status()
        self._load_history()
        self.set_interval(0.5, self._tick)

    def focus_table(self) -> None:
        # Without scrolling: on a short terminal the pane scrolls, and it should open on the live view.
        self.query_one("#bench-history", DataTable).focus(scroll_visible=False)

    def show(self, snap: ClusterSnapshot) -> None:
        self.snap = snap  # pools and OSD counts for the forms; the bench itself needs no poll
        if snap.fsid and snap.fsid != self.fsid:
            self.fsid = snap.fsid
            self._scope()

    # ------------------------------------------------------------ live view
    def _visible(self) -> bool:
        tabs = getattr(self.app, "tabs", None)
        return tabs is None or tabs.active == "bench"

    def _tick(self) -> None:
        self._ticks += 1
        busy = self.engine is not None or self.osd_bench is not None
        if self._ticks % 2 == 0 and (busy or self._visible()):
            self.host = self.sampler.sample()
            self._render_host()
        if self.engine is not None:
            self._render_progress(self.engine.progress())
        if self.osd_bench is not None:
            self._render_osds()

    def _render_progress(self, p: Progress) -> None:
        bar = self.query_one("#bench-progress", ProgressBar)
        if p.total_ops:
            bar.update(total=p.total_ops, progress=p.finished)
        else:
            bar.update(total=p.seconds, progress=min(p.elapsed, p.seconds))
        if len(p.samples) != self._shown_samples:
            self._shown_samples = len(p.samples)
            self._render_sparklines(p.samples[-SPARK_POINTS:])
        mib = p.finished * p.op_size / MiB / p.elapsed if p.elapsed > 0 else 0.0
        t = Text()
        t.append(f"{self.phase or p.phase}", style=palette.style("bold warn"))
        t.append(f" · {p.elapsed:.0f}/{p.seconds:.0f} s · {p.finished} ops")
        if p.failed:
            t.append(f" ({p.failed} failed)", style=palette.style("err"))
        t.append(f" · {p.in_flight} in flight · avg {mib:.2f} MiB/s · avg lat {_ms(p.avg_latency)}")
        self.query_one("#bench-summary", Static).update(t)

    def _render_sparklines(self, samples: Sequence[Any]) -> None:
        bw = [s.mib_s for s in samples]
        iops = [float(s.ops) for s in samples]
        lat = [s.avg_lat * 1000 for s in samples]
        # The numbers before any note: on 80 columns the end of the line is cut.
        for key, data, label, fmt, note in (("bw", bw, "MiB/s", "{:.1f}", ""), ("iops", iops, "IOPS", "{:.0f}", ""),
                                            ("lat", lat, "latency ms", "{:.2f}", "  (avg of each second)")):
            self.query_one(f"#bench-{key}", Sparkline).data = data or [0.0]
            cur = fmt.format(data[-1]) if data else "-"
            top = fmt.format(max(data)) if data else "-"
            low = fmt.format(min(data)) if data else "-"
            self.query_one(f"#bench-{key}-label", Static).update(
                Text.assemble((label, "bold"), f"  now {cur}  min {low}  max {top}", (note, palette.style("muted"))))

    def _render_host(self) -> None:
        h = self.host
        if h is None or not h.primed:
            return
        t = Table.grid(padding=(0, 1))
        t.add_column(style="bold")
        t.add_column()
        cores = " ".join(f"{c:.0f}" for c in h.per_core_percent)
        t.add_row("CPU", f"{h.cpu_percent or 0:.0f}% (cores {cores})")
        t.add_row("cephtui", f"{h.process_cpu_percent or 0:.0f}% of a core")
        t.add_row("memory", f"{human_bytes(h.mem_used)} / {human_bytes(h.mem_total)}")
        t.add_row("disk", f"{human_rate(h.disk_read_bps or 0)} rd, {human_rate(h.disk_write_bps or 0)} wr")
        t.add_row("network", f"{human_rate(h.net_rx_bps or 0)} rx, {human_rate(h.net_tx_bps or 0)} tx")
        t.add_row("loopback", f"{human_rate(h.loopback_rx_bps or 0)}")
        samples = self.engine.progress().samples if self.engine is not None else ()
        hint = bottleneck_hint(h, samples[-1].mib_s if samples else 0.0)
        self.query_one("#bench-host", Static).update(_with_hint(t, hint) if hint else t)

    def _render_status(self) -> None:
        t = Text(" ")
        if self.engine is not None or self.phase:
            t.append("RUNNING ", style=palette.badge("warn"))
            t.append(self.running.cli() if self.running else self.phase, style=palette.style("info"))
            t.append("  x stops")
        elif self.osd_bench is not None:
            t.append("OSD BENCH ", style=palette.badge("warn"))
            t.append(self.osd_progress + "  x stops after the current OSD")
        else:
            t.append("idle", style="bold")
            t.append(" · b new run · l latency (4 KiB, 1 thread) · o per-OSD bench")
        if self.message.plain:
            t.append("  ")
            t.append_text(self.message)
        self.query_one("#bench-status", Static).update(t)

    def _say(self, text: str, spec: str = "") -> None:
        """A message in the status line; `spec` is a palette spec ("bold err"), kept for a theme change."""
        self._said = (text, spec)
        self.message = Text(text, style=palette.style(spec))
        self._render_status()

    def retheme(self) -> None:
        """Draw what stays on screen between events again, in the new theme's colours."""
        if self._said is not None:
            self.message = Text(self._said[0], style=palette.style(self._said[1]))
        self._render_history()
        self._render_osds()  # and the status line
        last = self.last_result or (self.history[-1] if self.history else None)
        if last is not None and self.engine is None and not self.phase:
            self._render_final(last)

    # ------------------------------------------------------------ history
    @work(thread=True, exit_on_error=False, group="bench-history", description="load bench history")
    def _load_history(self) -> None:
        loaded = self.history_store.load()
        try:
            fsid = self.app.client.fsid()  # type: ignore[attr-defined]  # librados' own copy: no round trip
        except Exception:  # not connected yet: the first snapshot brings it (show)
            fsid = ""
        self.app.call_from_thread(self._history_loaded, list(loaded.runs), loaded.skipped, fsid)

    def _history_loaded(self, runs: list[BenchResult], skipped: int, fsid: str = "") -> None:
        self._all_runs = runs
        self.fsid = fsid or self.fsid
        self._scope()
        runs = self.history
        if runs and self.engine is None and not self.phase and self.last_result is None:
            last = runs[-1]  # the live box shows the last run until a new one starts
            self._render_sparklines(last.samples[-SPARK_POINTS:])
            self._render_final(last)
        if skipped:
            self.app.notify(f"bench history: skipped {skipped} damaged line(s) in {self.history_store.path}",
                            severity="warning")

    def _scope(self) -> None:
        """Show this cluster's runs only; say how many others the file holds."""
        scoped = scope(self._all_runs, self.fsid)
        self.history = list(scoped.runs)
        hist = self.query_one("#bench-history", DataTable)
        hist.border_subtitle = (scoped.note(self.history_store.path) if self.fsid
                                else "waiting for the cluster's fsid to show its runs")
        self.marked &= {self._key(r) for r in self.history}
        self._render_history()

    @staticmethod
    def _key(r: BenchResult) -> str:
        return f"{r.started_at:.6f}-{r.pid}"

    def _render_history(self) -> None:
        rows = {}
        for r in reversed(self.history):
            style = palette.style("err" if r.error else "warn" if r.stopped else "")
            mark = "✔ " if self._key(r) in self.marked else "  "
            rows[self._key(r)] = (
                Text(mark + time.strftime("%m-%d %H:%M:%S", time.localtime(r.started_at)),
                     style="bold" if mark.strip() else ""), r.params.mode, r.params.pool,
                _size(r.op_size), str(r.params.threads), f"{r.bandwidth:.2f}", f"{r.average_iops:.0f}",
                f"{r.average_latency * 1000:.2f}", f"{r.latency_p99 * 1000:.2f}", Text(r.status, style=style))
        table = self.query_one("#bench-history", DataTable)
        if [str(k.value) for k in table.rows][:1] != list(rows)[:1]:
            table.clear()  # a new run goes on top: rebuild (the history is short; sync keeps order otherwise)
        sync_table(table, rows)

    def _cursor_run(self) -> BenchResult | None:
        table = self.query_one("#bench-history", DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return next((r for r in self.history if self._key(r) == key), None)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id == "bench-history":
            r = self._cursor_run()
            if r is not None:
                self.app.push_screen(RunDetailScreen(r))

    def action_mark(self) -> None:
        r = self._cursor_run()
        if r is None:
            return
        key = self._key(r)
        self.marked.symmetric_difference_update({key})
        self._render_history()

    def action_compare(self) -> None:
        marked = [r for r in self.history if self._key(r) in self.marked]
        cur = self._cursor_run()
        if len(marked) >= 2:
            a, b = marked[-2], marked[-1]
        elif len(marked) == 1 and cur is not None and self._key(cur) not in self.marked:
            a, b = sorted((marked[0], cur), key=lambda r: r.started_at)
        elif cur is not None:
            earlier = [r for r in self.history if r.started_at < cur.started_at and r.params.mode == cur.params.mode]
            if not earlier:
                self.app.notify("Mark two runs with space, then c.", severity="warning")
                return
            a, b = earlier[-1], cur
        else:
            self.app.notify("No runs yet.", severity="warning")
            return
        self.app.push_screen(CompareScreen(a, b))

    def action_export(self) -> None:
        if not self.history:
            self.app.notify("No runs to export yet.", severity="warning")
            return
        stamp = time.strftime("%Y%m%d-%H%M%S")
        default = os.path.join(os.path.expanduser("~"), f"cephtui-bench-{stamp}.csv")

        def runs(values: dict[str, str]) -> list[BenchResult]:
            chosen = [r for r in self.history if self._key(r) in self.marked]
            return chosen if values.get("which") == "marked" and chosen else list(self.history)

        def build(values: dict[str, str]) -> list[ops.Operation]:
            fmt = values.get("format") or ""
            path = values.get("path", "").strip()
            if fmt not in ("csv", "json"):
                raise ValueError("choose csv or json")
            if not path:
                raise ValueError("give a file name")
            if os.path.exists(os.path.expanduser(path)):
                raise ValueError(f"{path} already exists; choose another name")
            return []  # a local file, no cluster command

        form = FormScreen("Export bench history", [
            Field("format", "Format", "csv", choices=("csv", "json")),
            Field("which", "Runs", "marked" if self.marked else "all", choices=("all", "marked")),
            Field("path", "File (created new, mode 0600)", default)], build,
            help="CSV has one row per run (the rados bench summary fields); JSON has every field and the "
                 "per-second samples.")

        def done(result: list[ops.Operation] | None) -> None:
            if result is None:
                return
            v = form.submitted_values
            chosen = runs(v)
            text = export_csv(chosen) if v["format"] == "csv" else export_json(chosen)
            try:
                path = write_export(v["path"], text)
            except (OSError, ValueError) as e:
                self.app.notify(f"export failed: {e}", severity="error")
                return
            self.app.notify(f"exported {len(chosen)} run(s) to {path}")
        self.app.push_screen(form, done)

    # ------------------------------------------------------------ starting a run
    def _pool_names(self) -> tuple[str, ...]:
        if self.snap is None:
            return ()
        return tuple(p.name for p in self.snap.capacity.pools)

    def action_new_run(self) -> None:
        self._run_form()

    def action_latency_run(self) -> None:
        self._run_form(latency=True)

    def _run_form(self, latency: bool = False) -> None:
        if self._busy():
            return
        last = self.last_params[0] if self.last_params else None
        # Defaults: this session's last run, else the config file's [bench] (cephtui.config.BenchDefaults).
        d = getattr(self.app, "bench_defaults", None) or BenchDefaults()
        pools = self._pool_names()
        pool = last.pool if last and last.pool in pools else d.pool if d.pool and (d.pool in pools or not pools) \
            else next((p for p in pools if p == "rbd"), "")
        temp_name = temp_pool_name()
        osds_in = self.snap.osds.in_ if self.snap else 1
        op_size, threads = (LATENCY_PRESET["op_size"], LATENCY_PRESET["threads"]) if latency else (
            (last.op_size, last.threads) if last else (d.block_size, d.threads))
        object_size = 0 if latency or last else d.object_size
        fields = [
            Field("pool", "Pool (or a temporary pool below)", pool, choices=("", *pools) if pools else ()),
            Field("temp", "Temporary size-1 pool, deleted after", "no", choices=YES_NO),
            Field("mode", "Mode", last.mode if last and not latency else "write" if latency else d.mode,
                  choices=("write", "seq", "rand")),
            Field("seconds", "Seconds", f"{last.seconds if last else d.seconds:g}"),
            Field("threads", "Concurrent ops (threads)", str(threads)),
            Field("op_size", "Op size (e.g. 4K, 4M)", _size(op_size)),
            Field("object_size", "Object size (empty: = op size)",
                  _size(object_size) if object_size and object_size != op_size else ""),
            Field("run_name", "Run name (metadata object)", last.run_name if last else ""),
            Field("cleanup", "Remove the objects afterwards", "yes" if d.cleanup else "no", choices=YES_NO),
            Field("op_timeout", "Op timeout (s)", f"{last.op_timeout if last else d.op_timeout:g}"),
        ]

        def params_of(v: dict[str, str]) -> tuple[BenchParams, bool]:
            temp = v.get("temp") == "yes"
            if not temp and not v.get("pool"):
                raise ValueError("choose a pool, or a temporary pool")
            if temp and v.get("mode") != "write":
                raise ValueError("a temporary pool starts empty: only write makes sense there")
            if not v["run_name"].strip().isprintable():  # zero-width and bidi characters would hide in the name
                raise ValueError("run name: only printable characters (no control, zero-width or bidi characters)")
            try:
                p = BenchParams(pool=temp_name if temp else v["pool"], mode=v.get("mode") or "write",
                                seconds=_float(v["seconds"], "seconds"), threads=_int(v["threads"], "threads"),
                                op_size=parse_size(v["op_size"]),
                                object_size=parse_size(v["object_size"]) if v["object_size"].strip() else 0,
                                run_name=v["run_name"].strip(), cleanup=v.get("cleanup") != "no",
                                op_timeout=_float(v["op_timeout"], "op timeout"))
            except BenchError as e:
                raise ValueError(str(e)) from None
            return p, temp

        def build(v: dict[str, str]) -> list[ops.Operation]:
            p, temp = params_of(v)
            return self._plan(p, temp, osds_in)

        def warn(v: dict[str, str]) -> list[str]:
            notes = []
            if v.get("mode") in ("seq", "rand"):
                notes.append("reads need objects a write left with cleanup off (same run name)")
            if v.get("cleanup") == "no" and v.get("mode") == "write":
                notes.append("the objects stay in the pool until a cleanup (they use space)")
            return notes

        form = FormScreen("Latency run (4 KiB, one op at a time)" if latency else "New benchmark run", fields, build,
                          help="The same engine and semantics as `rados bench` (16 × 4 MiB by default). Latency, "
                               "not peak throughput, is what most workloads feel: try l.", warn=warn)

        def done(result: list[ops.Operation] | None) -> None:
            if result:
                self._confirm(*params_of(form.submitted_values))
        self.app.push_screen(form, done)

    def _plan(self, p: BenchParams, temp: bool, osds_in: int) -> list[ops.Operation]:
        plan: list[ops.Operation] = []
        if temp:
            plan += temp_pool_create_ops(p.pool, temp_pool_pg_num(osds_in))
        plan.append(bench_operation(p))
        if temp:
            plan.append(temp_pool_delete_op(p.pool))
        return plan

    def action_repeat(self) -> None:
        if self.last_params is None and self.history:
            last = self.history[-1].params  # the last run of an earlier session
            self.last_params = (last, last.pool.startswith(TEMP_POOL_PREFIX))
        if self.last_params is None:
            self.app.notify("No run to repeat yet: n starts one.", severity="warning")
            return
        if self._busy():
            return
        p, temp = self.last_params
        if temp:
            p = replace(p, pool=temp_pool_name())
        self._confirm(p, temp)

    def _busy(self) -> bool:
        if self.engine is not None or self.phase or self.osd_bench is not None or self.osd_progress:
            self.app.notify("A benchmark is running: x stops it.", severity="warning")
            return True
        return False

    def _confirm(self, p: BenchParams, temp: bool) -> None:
        osds_in = self.snap.osds.in_ if self.snap else 1
        plan = self._plan(p, temp, osds_in)
        if p.mode == "write":
            explain = (f"Writes {_size(p.op_size)} ops, {p.threads} at a time, for {p.seconds:g} s into pool "
                       f"{p.pool}: clients of that pool will feel the load. "
                       + ("The objects are removed afterwards." if p.cleanup else
                          "The objects stay (for seq/rand reads) until a cleanup."))
        else:
            explain = f"Reads the objects of the last write run in pool {p.pool} for up to {p.seconds:g} s."
        if temp:
            explain += " The temporary pool is deleted at the end, whatever happens."

        def done(go: bool | None) -> None:
            if go:
                self._start(p, temp)
        self.app.push_screen(BenchConfirmScreen(f"Run the benchmark on {p.pool}?", plan, explain), done)

    def _start(self, p: BenchParams, temp: bool) -> None:
        self.last_params = (p, temp)
        self.running = p
        self.phase = "creating the temporary pool" if temp else "connecting"
        self._shown_samples = -1
        self._render_sparklines([])
        self._say("")
        self._run_worker(p, temp)

    @work(thread=True, exit_on_error=False, group="bench", description="bench run")
    def _run_worker(self, p: BenchParams, temp: bool) -> None:
        app: Any = self.app
        client, audit = app.client, app.audit
        result: BenchResult | None = None
        failure = ""
        deleted_temp = False
        try:
            if temp and p.mode == "write":  # a new pool on a full cluster: every write would block
                failure = write_refusal(client.mon("osd dump"), None) or ""
                temp = not failure  # nothing was created: nothing to delete
            if temp:
                failure = self._create_temp(p, client, audit)
            if not failure:
                self.app.call_from_thread(self._set_phase, "connecting")
                result = run_bench(client.spec, p, on_start=self._engine_started)
        except BenchError as e:
            failure = str(e)
        except CephError as e:
            failure = e.message
        except Exception as e:  # never a traceback in the UI
            log.exception("bench run failed")
            failure = f"internal error: {e!r}"
        finally:
            if temp:
                self.app.call_from_thread(self._set_phase, "deleting the temporary pool")
                note = self._delete_temp(p.pool, client, audit)
                if note:
                    failure = (failure + " " + note).strip()
                deleted_temp = not note
            if result is not None and deleted_temp and result.cleanup_note and (
                    "cleanup skipped" in result.cleanup_note or not p.cleanup):
                # whatever the run left is gone with its pool: no `rados cleanup` to suggest
                result = replace(result, cleanup_note=f"the temporary pool {p.pool} was deleted with its objects")
            if result is not None and not result.cluster and self.fsid:
                result = replace(result, cluster=self.fsid)  # librados could not say: the app's connection can
            if result is not None:
                audit.record(bench_operation(p), result.ok, result.error or f"{result.ops} ops, "
                             f"{result.bandwidth:.2f} MiB/s, avg lat {_ms(result.average_latency)}")
                try:
                    self.history_store.append(result)
                except OSError as e:
                    failure = (failure + f" could not save to the history: {e}").strip()
            self.app.call_from_thread(self._finished, result, failure)

    def _create_temp(self, p: BenchParams, client: Any, audit: ops.AuditLog) -> str:
        """Create the temporary pool; the monitor's refusal (and what to do) if it would not."""
        osds_in = self.snap.osds.in_ if self.snap else 1
        for op in temp_pool_create_ops(p.pool, temp_pool_pg_num(osds_in)):
            try:
                ops.run(client, op, audit)
            except CephError as e:
                hint = explain_temp_pool_refusal(e.message) or ""
                return f"`{op.cli}` refused: {e.message} {hint}".strip()
        return ""

    def _delete_temp(self, pool: str, client: Any, audit: ops.AuditLog) -> str:
        try:
            ops.run(client, temp_pool_delete_op(pool), audit)
        except CephError as e:
            if e.errno == 2:
                return ""
            return f"The temporary pool {pool} was not deleted: {e.message}. " + (
                explain_temp_pool_refusal(e.message) or "")
        return ""

    def _engine_started(self, engine: BenchEngine) -> None:
        self.app.call_from_thread(self._engine_attached, engine)

    def _engine_attached(self, engine: BenchEngine) -> None:
        self.engine = engine
        self.phase = ""
        self._render_status()

    def _set_phase(self, phase: str) -> None:
        self.phase = phase
        self._render_status()

    def _finished(self, result: BenchResult | None, failure: str) -> None:
        if self.engine is not None and result is not None:
            self._render_progress(self.engine.progress())
        self.engine = None
        self.phase = ""
        self.running = None
        if result is not None:
            self.last_result = result
            self._all_runs.append(result)
            self.history.append(result)
            self._render_history()
            self._render_sparklines(result.samples[-SPARK_POINTS:])
            self._render_final(result)
        if result is not None and result.error:
            self._say(f"✖ {result.error} {failure}".strip(), "bold err")
            self.app.notify(result.error, severity="error", timeout=15)
        elif failure:
            self._say(f"✖ {failure}", "bold err")
            self.app.notify(failure, severity="error", timeout=15)
        elif result is not None:
            stall = _stall_text(result)
            self._say(f"{'⚠' if stall else '✔'} {'stopped early: partial results' if result.stopped else 'done'} · "
                      + (f"{stall} · " if stall else "") + f"{result.cleanup_note or ''}",
                      "warn" if stall else "ok")
        else:
            self._render_status()

    def _render_final(self, r: BenchResult) -> None:
        bar = self.query_one("#bench-progress", ProgressBar)
        bar.update(total=max(r.total_time_run, 0.001), progress=r.total_time_run)
        t = Text()
        t.append(f"{r.status} ",
                 style=palette.style("bold err" if r.error else "bold warn" if r.stopped else "bold ok"))
        t.append(f"{r.params.mode} at {time.strftime('%H:%M:%S', time.localtime(r.started_at))} · {r.ops} ops "
                 f"in {r.total_time_run:.2f} s")
        if r.failed_ops:
            t.append(f" ({r.failed_ops} failed)", style=palette.style("err"))
        stall = _stall_text(r)
        if stall:
            t.append(f" · {stall}", style=palette.style("bold warn"))
        t.append(f" · {r.bandwidth:.2f} MiB/s (σ {r.stddev_bandwidth:.2f}) · {r.average_iops:.0f} IOPS · "
                 f"lat avg {_ms(r.average_latency)} p50 {_ms(r.latency_p50)} p95 {_ms(r.latency_p95)} "
                 f"p99 {_ms(r.latency_p99)} max {_ms(r.max_latency)}")
        self.query_one("#bench-summary", Static).update(t)

    def action_stop(self) -> None:
        if self.engine is not None:
            self.engine.stop()
            self._say("stopping: waiting for the ops in flight…", "warn")
        elif self.osd_bench is not None:
            self.osd_bench.stop()
            self._say("stopping after the current OSD…", "warn")
        else:
            self.app.notify("Nothing is running.")

    # ------------------------------------------------------------ per-OSD bench
    def action_osd_bench(self) -> None:
        if self._busy():
            return
        total = self.snap.osds.total if self.snap else 0

        def params_of(v: dict[str, str]) -> tuple[OSDBenchParams, tuple[int, ...] | None]:
            try:
                p = OSDBenchParams(parse_size(v["total"]), parse_size(v["block"]))
            except BenchError as e:
                raise ValueError(str(e)) from None
            which = v["osds"].strip().lower()
            if which in ("", "all"):
                return p, None
            ids = []
            for part in which.replace(" ", ",").split(","):
                if part:
                    part = part.removeprefix("osd.")
                    # isdigit() alone takes '²' and 4,300-digit numbers, which int() then refuses obscurely
                    if not (part.isascii() and part.isdigit()) or len(part) > 9:
                        raise ValueError(f"OSDs: '{part[:20]}' is not an OSD id (use all, or ids like 0,3,osd.7)")
                    ids.append(int(part))
            return p, tuple(dict.fromkeys(ids))

        def build(v: dict[str, str]) -> list[ops.Operation]:
            p, ids = params_of(v)
            if ids is None:  # every OSD (ids need not be contiguous): the shell loop an admin would type
                each = osd_bench_cli(0, p).replace("osd.0", "osd.$id")
                return [ops.Operation(title=f"bench all {total} OSDs", prefix="tell bench", args=(),
                                      cli=f"for id in $(ceph osd ls); do {each}; done")]
            return [ops.Operation(title=f"bench osd.{i}", prefix="tell bench", args=(), cli=osd_bench_cli(i, p))
                    for i in ids]

        def warn(v: dict[str, str]) -> list[str]:
            try:
                p, _ = params_of(v)
            except ValueError:
                return []
            w = p.default_limit_warning()
            return [w] if w else []

        form = FormScreen("Per-OSD bench", [
            Field("osds", "OSDs (all, or ids: 0,3,osd.7)", "all"),
            Field("total", "Bytes per OSD", "1G"),
            Field("block", "Block size", "4M")], build,
            help="Each OSD writes to its own disk, one OSD at a time (in parallel they would measure each "
                 "other). The fastest way to find the one slow disk. Defaults are ceph's.", warn=warn)

        def done(result: list[ops.Operation] | None) -> None:
            if result:
                p, ids = params_of(form.submitted_values)
                go = BenchConfirmScreen("Run the per-OSD bench?", result,
                                        "Each OSD writes the given bytes to its disk (then deletes them); client IO "
                                        "on that OSD slows down meanwhile.")
                self.app.push_screen(go, lambda ok: self._start_osd_bench(p, ids) if ok else None)
        self.app.push_screen(form, done)

    def _start_osd_bench(self, p: OSDBenchParams, ids: tuple[int, ...] | None) -> None:
        self.osd_results = ()
        self.query_one("#bench-osds", DataTable).display = True
        self.osd_progress = "starting"
        self._say("")
        self._osd_worker(p, ids)

    @work(thread=True, exit_on_error=False, group="osd-bench", description="per-OSD bench")
    def _osd_worker(self, p: OSDBenchParams, ids: tuple[int, ...] | None) -> None:
        app: Any = self.app
        failure = ""
        client = None
        try:
            if ids is None:
                ids = tuple(int(i) for i in (app.client.mon("osd ls") or ()))
            client = bench_client(app.client.spec)
            runner = OSDBench(client, ids, p, on_progress=self._osd_progress)
            self.app.call_from_thread(setattr, self, "osd_bench", runner)
            results = runner.run()
            for r in results:
                op = ops.Operation(title=f"bench osd.{r.osd}", prefix="tell bench",
                                   args=(("osd", r.osd), ("count", p.total_bytes), ("size", p.block_size)),
                                   cli=osd_bench_cli(r.osd, p))
                app.audit.record(op, r.ok, r.error or f"{r.mib_per_sec:.1f} MiB/s, {r.iops:.0f} IOPS")
        except CephError as e:
            failure = e.message
        except Exception as e:  # never a traceback in the UI
            log.exception("osd bench failed")
            failure = f"internal error: {e!r}"
        finally:
            if client is not None:
                client.close()
            self.app.call_from_thread(self._osd_finished, failure)

    def _osd_progress(self, done: int, total: int, current: int | None, result: OSDBenchResult | None) -> None:
        text = f"{done}/{total} OSDs" + (f", benching osd.{current}" if current is not None else "")
        self.app.call_from_thread(setattr, self, "osd_progress", text)

    def _render_osds(self) -> None:
        runner = self.osd_bench
        if runner is not None:
            self.osd_results = runner.results
        ranking = rank_results(self.osd_results)
        rows = {}
        for row in ranking.rows:
            r = row.result
            s = palette.style
            flag = {"slow": Text("◀ slow (< 0.7 × median): rerun to confirm", style=s("bold err")),
                    "fast": Text("▶ fast (> 1.5 × median)", style=s("warn")),
                    "error": Text(r.error or "error", style=s("err"))}.get(row.flag, Text(""))
            rows[r.osd] = (str(row.rank or "-"), f"osd.{r.osd}", f"{r.mib_per_sec:.1f}" if r.ok else "-",
                           f"{r.iops:.0f}" if r.ok else "-", f"{r.elapsed_sec:.1f}s" if r.ok else "-",
                           f"{row.ratio:.2f}" if row.ratio is not None else "-", flag)
        table = self.query_one("#bench-osds", DataTable)
        if [str(k.value) for k in table.rows] != [str(k) for k in rows]:
            table.clear()  # re-ranked: rebuild in the new order (a few rows per OSD set)
        sync_table(table, rows)
        table.border_subtitle = (f"median {ranking.median_bytes_per_sec / MiB:.1f} MiB/s · "
                                 f"{len(ranking.outliers)} outlier(s)" if ranking.rows else "")
        self._render_status()

    def _osd_finished(self, failure: str) -> None:
        self._render_osds()
        self.osd_bench = None
        self.osd_progress = ""
        errors = [r for r in self.osd_results if not r.ok]
        if failure:
            self._say(f"✖ per-OSD bench: {failure}", "bold err")
        else:
            ranking = rank_results(self.osd_results)
            slow = [f"osd.{r.osd}" for r in ranking.outliers if r.flag == "slow"]
            self._say(f"✔ per-OSD bench: {len(self.osd_results)} OSD(s)"
                      + (f", {len(errors)} failed" if errors else "")
                      + (f", slow: {', '.join(slow)}" if slow else ", no slow outlier"),
                      "warn" if slow or errors else "ok")


def _stall_text(r: BenchResult) -> str:
    """'stalled 12 s (from second 3)': the longest stretch with ops in flight and none completing."""
    stall = r.longest_stall
    if stall is None or stall[1] < STALL_NOTABLE:
        return ""
    first, length = stall
    return f"stalled {length} s from second {first} (ops in flight, none completed)"


def _with_hint(t: Table, hint: str) -> Table:
    t.add_row(Text("bottleneck", style=palette.style("bold err")), Text(hint, style=palette.style("err")))
    return t


def _float(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{what}: '{text}' is not a number") from None
    return value


def _int(text: str, what: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise ValueError(f"{what}: '{text}' is not a whole number") from None
