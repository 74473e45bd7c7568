"""Bench: a live `rados bench`, this host's load beside it, the history of runs, and per-OSD bench.

A run is one linear worker: the form, the plan, Run or Cancel, then the bench-run service (shared with
`cephtui bench`) in a thread. A half-second timer copies the engine's progress into sparklines, so the UI
stays responsive even at 4 KiB ops. Forms: ui/screens/bench_forms.py; drawing: ui/screens/bench_views.py.
"""
from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import ProgressBar, Sparkline, Static

from cephtui.ceph.bench.blockparams import BlockParams
from cephtui.ceph.bench.blockprobe import block_probe, probe_operations
from cephtui.ceph.bench.history import BenchHistory, export_csv, export_json, pick_pair, write_export
from cephtui.ceph.bench.hoststats import HostSample, HostSampler
from cephtui.ceph.bench.image import TEMP_IMAGE_PREFIX
from cephtui.ceph.bench.osdbench import OSDBenchParams
from cephtui.ceph.bench.params import BenchError, BenchParams
from cephtui.ceph.bench.pool import TEMP_POOL_PREFIX, temp_pool_name
from cephtui.ceph.bench.probe import LatencyProbe, rados_probe
from cephtui.ceph.bench.probe_result import ProbeResult
from cephtui.ceph.bench.remote import EngineHandle
from cephtui.ceph.bench.results import BenchResult, Progress, Sample
from cephtui.ceph.bench.service import CONNECTING, CREATING, BenchRun, RunOutcome
from cephtui.ceph.errors import CephError
from cephtui.ceph.images.listing import RBD_MISSING, list_images, rbd_available
from cephtui.ceph.snapshot.cluster_snapshot import ClusterSnapshot
from cephtui.config.model import BenchDefaults
from cephtui.ui import palette
from cephtui.ui.compat import DataTable
from cephtui.ui.pane import Pane
from cephtui.ui.panes.bench_osds import OSDBenchTable
from cephtui.ui.panes.bench_runs import BenchRuns, run_key
from cephtui.ui.screens import bench_views as views
from cephtui.ui.screens.bench_block_form import block_run_form, explain_block_run
from cephtui.ui.screens.bench_forms import OSD_BENCH_EXPLAIN, explain_run, export_form, osd_bench_form, run_form
from cephtui.ui.screens.bench_leftovers import offer_leftover_images
from cephtui.ui.screens.bench_probe import ProbeChoice, ProbeResultScreen, probe_form
from cephtui.ui.screens.bench_views import BenchConfirmScreen, CompareScreen, RunDetailScreen
from cephtui.ui.widgets.inplace import update_in_place

log = logging.getLogger("cephtui")

SPARK_POINTS = 300  # seconds of history the sparklines keep
TICK = 0.25  # seconds between two parts of the live view (see BenchPane._tick)


class BenchPane(Pane):
    HELP = ("Runs use `rados bench` semantics (16 × 4 MiB by default, same object names and metadata), so native "
            "`rados bench seq|rand` reads what cephtui wrote with cleanup off, `rados cleanup` removes it, and the "
            "other way round. Every run is saved to `~/.local/share/cephtui/bench-history.jsonl`. Headless: `cephtui "
            "bench --pool P --seconds S --mode write|seq|rand [--json]`.")
    ACTION_HELP = {
        "new_run": ("new run: pool (or a temporary size-1 pool), write / seq / rand, seconds, ops in flight, op and "
                    "object size; shows the equivalent `rados bench` command"),
        "latency_run": ("latency probe: 4 KiB, one op at a time, writes then reads (what a VM with cache=none "
                        "feels), held against the network's floor, with where the time goes"),
        "switch_kind": ("objects or block: runs of RADOS objects (`rados bench`) or of an RBD image (`rbd bench`, "
                        "what a VM's disk feels)"),
        "repeat": "repeat the last run",
        "stop": "stop the run (ops in flight finish; partial results are kept)",
        "osd_bench": ("per-OSD bench: `ceph tell osd.N bench` on every (or chosen) OSD, one at a time, ranked, "
                      "outliers flagged"),
        "mark": "mark a run in the history",
        "compare": "compare two marked runs side by side",
        "export": "export the marked (or all) runs as CSV or JSON",
    }
    # What each key would change: dimmed and refused in --read-only mode (see ui/readonly.py).
    MUTATING = {
        "new_run": "a benchmark run (it writes to a pool)",
        "latency_run": "the latency probe (it writes to a pool or an image)",
        "repeat": "repeating a benchmark run (it writes)",
        "osd_bench": "the per-OSD bench (it writes to every OSD)",
    }
    BINDINGS = [
        Binding("b", "new_run", "New run"),
        Binding("l", "latency_run", "Latency probe"),
        Binding("k", "switch_kind", "Objects/Block"),
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
        self.runs = BenchRuns(self.history_store, id="bench-history", classes="box")  # this cluster's runs
        self.snap: ClusterSnapshot | None = None
        self.engine: EngineHandle | None = None  # the worker process's proxy while a run goes on
        self.bench_run: BenchRun | None = None  # from the confirmation to the end of the run
        self.running: BenchParams | BlockParams | None = None
        self.phase = ""
        self.last_params: tuple[BenchParams | BlockParams, bool] | None = None
        self.kind = "rados"  # what b and l start: "rados" (objects) or "rbd" (an image)
        self.probe: LatencyProbe | None = None  # the latency probe going on (l)
        self.last_probe: ProbeChoice | None = None
        self.last_block: BlockParams | None = None
        self.last_result: BenchResult | None = None
        self.message: Text = Text("")
        self._said: tuple[str, str] | None = None  # the message's text and palette spec
        self.osd_table = OSDBenchTable(id="bench-osds", classes="box")  # the per-OSD bench and its ranking
        self.sampler = HostSampler()
        self.host: HostSample | None = None
        self._ticks = 0
        self._shown_samples = -1

    @property
    def history(self) -> list[BenchResult]:
        """This cluster's runs, oldest first (the history table's)."""
        return self.runs.runs

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
            yield self.runs
            yield self.osd_table

    def on_mount(self) -> None:
        self._title_live()
        self.query_one("#bench-host").border_title = "This host (psutil)"
        self.sampler.sample()  # primes the counters: rates start with the next call
        self._render_status()
        self._load_history()
        self.set_interval(TICK, self._tick)

    def on_unmount(self) -> None:
        # The app is quitting with a run going: stop it (its worker process reports the partial result),
        # so that the run's thread soon deletes the temporary pool and ends, instead of running on unseen.
        if self.bench_run is not None:
            self.bench_run.stop()

    def focus_table(self) -> None:
        # Without scrolling: on a short terminal the pane scrolls, and it should open on the live view.
        self.runs.focus(scroll_visible=False)

    def show(self, snap: ClusterSnapshot) -> None:
        self.snap = snap  # pools and OSD counts for the forms; the bench itself needs no poll
        self.runs.for_cluster(snap.fsid)

    # ------------------------------------------------------------ live view
    def _visible(self) -> bool:
        return self.services.active_tab == "bench"

    def _tick(self) -> None:
        """Every quarter second, one part of the live view in turn: the progress (twice a second), the
        sparklines (when a second's sample came), the host panel (once a second). Each screen update then
        redraws a third of the view: on two cores busy with a run, drawing it all at once stalled the UI's
        thread for 15-50 ms once a second (bench_ui_responsiveness.py)."""
        self._ticks += 1
        part = self._ticks % 4
        busy = self.engine is not None or self.osd_table.runner is not None
        if part == 3 and (busy or self._visible()):
            self.host = self.sampler.sample()
            self._render_host()
        if self.engine is not None and part in (0, 2):
            self._render_progress(self.engine.progress())
        elif self.engine is not None and part == 1:
            self._render_new_samples(self.engine.progress())
        if self.osd_table.runner is not None and part in (0, 2):
            self.osd_table.render_ranking()
            self._render_status()

    def _render_progress(self, p: Progress) -> None:
        bar = self.query_one("#bench-progress", ProgressBar)
        if p.total_ops:
            bar.update(total=p.total_ops, progress=p.finished)
        else:
            bar.update(total=p.seconds, progress=min(p.elapsed, p.seconds))
        update_in_place(self.query_one("#bench-summary", Static), views.progress_text(p, self.phase))

    def _render_new_samples(self, p: Progress) -> None:
        if len(p.samples) != self._shown_samples:
            self._shown_samples = len(p.samples)
            self._render_sparklines(p.samples[-SPARK_POINTS:])

    def _render_sparklines(self, samples: Sequence[Sample]) -> None:
        for key, data, label in views.spark_series(samples):
            self.query_one(f"#bench-{key}", Sparkline).data = data or [0.0]
            update_in_place(self.query_one(f"#bench-{key}-label", Static), label)

    def _render_host(self) -> None:
        h = self.host
        if h is None or not h.primed:
            return
        samples = self.engine.progress().samples if self.engine is not None else ()
        update_in_place(self.query_one("#bench-host", Static),
                        views.host_table(h, samples[-1].mib_s if samples else 0.0))

    def _render_status(self) -> None:
        running = (self.running.cli() if self.running else self.phase) if self.engine is not None or self.phase \
            else None
        osd = self.osd_table.progress if self.osd_table.runner is not None else None
        update_in_place(self.query_one("#bench-status", Static), views.status_text(running, osd, self.message))

    def _say(self, text: str, spec: str = "") -> None:
        """A message in the status line; `spec` is a palette spec ("bold err"), kept for a theme change."""
        self._said = (text, spec)
        self.message = Text(text, style=palette.style(spec))
        self._render_status()

    def retheme(self) -> None:
        """Draw what stays on screen between events again, in the new theme's colours."""
        if self._said is not None:
            self.message = Text(self._said[0], style=palette.style(self._said[1]))
        self.runs.render_runs()
        self.osd_table.render_ranking()
        self._render_status()
        last = self.last_result or (self.history[-1] if self.history else None)
        if last is not None and self.engine is None and not self.phase:
            self._render_final(last)

    # ------------------------------------------------------------ history
    @work(thread=True, exit_on_error=False, group="bench-history", description="load bench history")
    def _load_history(self) -> None:
        loaded = self.history_store.load()
        try:
            fsid = self.services.client.fsid()  # librados' own copy: no round trip
        except Exception:  # not connected yet: the first snapshot brings it (show)
            fsid = ""
        self.app.call_from_thread(self._history_loaded, list(loaded.runs), loaded.skipped, fsid)

    def _history_loaded(self, runs: list[BenchResult], skipped: int, fsid: str = "") -> None:
        self.runs.loaded(runs, fsid)
        runs = self.history
        if runs and self.engine is None and not self.phase and self.last_result is None:
            last = runs[-1]  # the live box shows the last run until a new one starts
            self._render_sparklines(last.samples[-SPARK_POINTS:])
            self._render_final(last)
        if skipped:
            self.app.notify(f"bench history: skipped {skipped} damaged line(s) in {self.history_store.path}",
                            severity="warning")

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table is self.runs:
            r = self.runs.cursor_run()
            if r is not None:
                self.app.push_screen(RunDetailScreen(r))

    def action_mark(self) -> None:
        self.runs.toggle_mark()

    def action_compare(self) -> None:
        pair = pick_pair(self.history, self.runs.marked, self.runs.cursor_run(), run_key)
        if isinstance(pair, str):
            self.app.notify(pair, severity="warning")
        else:
            self.app.push_screen(CompareScreen(*pair))

    def action_export(self) -> None:
        if not self.history:
            self.app.notify("No runs to export yet.", severity="warning")
            return
        self._export_flow()

    @work(exit_on_error=False, group="bench-export", description="export bench history")
    async def _export_flow(self) -> None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        form = export_form(bool(self.runs.marked), os.path.join(os.path.expanduser("~"), f"cephtui-bench-{stamp}.csv"))
        if await self.app.push_screen_wait(form) is None:
            return
        v = form.submitted_values
        marked = self.runs.marked_runs()
        chosen = marked if v.get("which") == "marked" and marked else list(self.history)
        text = export_csv(chosen) if v["format"] == "csv" else export_json(chosen)
        try:
            path = write_export(v["path"], text)
        except (OSError, ValueError) as e:
            self.app.notify(f"export failed: {e}", severity="error")
            return
        self.app.notify(f"exported {len(chosen)} run(s) to {path}")

    # ------------------------------------------------------------ a run
    def _pool_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.snap.capacity.pools) if self.snap is not None else ()

    def action_new_run(self) -> None:
        if not self._busy():
            if self.kind == "rbd":
                self._block_flow()
            else:
                self._run_flow()

    def action_latency_run(self) -> None:
        if not self._busy():
            self._probe_flow()

    @work(exit_on_error=False, group="bench", description="latency probe")
    async def _probe_flow(self) -> None:
        """The probe's form (a pool, or an image), the commands it amounts to, Run or Cancel, the probe in a
        worker thread (x stops it), then its table and words."""
        kind = self.kind
        images = await asyncio.to_thread(list_images, self.services.client) if kind == "rbd" else None
        if images is not None and not images.rbd_pools and not images.images:
            self._say("✖ " + (" ".join(images.problems) or "no pool has the rbd application"), "bold err")
            return
        form, choice_of = probe_form(kind=kind, pools=self._pool_names(), images=images, last=self.last_probe)
        if await self.app.push_screen_wait(form) is None:
            return
        choice = choice_of(form.submitted_values)
        self.last_probe = choice
        app = self.services
        on_phase = lambda text: self.app.call_from_thread(self._set_phase, text)  # noqa: E731
        on_start = lambda engine: self.app.call_from_thread(self._engine_attached, engine)  # noqa: E731
        common = dict(seconds=choice.seconds, on_phase=on_phase, on_start=on_start)
        probe: LatencyProbe
        runner: Any
        try:
            if kind == "rbd":
                probe, runner = block_probe(app.client, choice.pool, app.audit, self.history_store,
                                            image=choice.image, confirmed_image=choice.image, cache=choice.cache,
                                            read_only=app.read_only, **common)  # type: ignore[arg-type]
            else:
                probe, runner = rados_probe(app.client, choice.pool, app.audit, self.history_store,
                                            **common)  # type: ignore[arg-type]
        except BenchError as e:
            self._say(f"✖ {e}", "bold err")
            return
        where = f"image {choice.pool}/{choice.image}" if choice.image else probe.plan.target
        if not await self.app.push_screen_wait(BenchConfirmScreen(
                f"Run the latency probe on {where}?", probe_operations(probe),
                f"Writes 4 KiB at random, one at a time, for {choice.seconds:g} s, then reads for as long"
                + (f", client cache {choice.cache}" if kind == "rbd" else "") + "; measures the network's floor "
                "(TCP handshakes to the pool's OSDs, their heartbeat pings) and reads the OSDs' perf counters "
                "around each direction. What it writes is removed afterwards"
                + (" (an existing image keeps what was written)." if choice.image else "."))):
            return
        self.probe = probe
        self.phase = "latency probe"
        self._shown_samples = -1
        self._render_sparklines([])
        self._say("")
        self._render_status()
        result: ProbeResult | None = None
        failure = ""
        try:
            result = await asyncio.to_thread(probe.run)
        except (BenchError, CephError) as e:
            failure = getattr(e, "message", "") or str(e)
        except Exception as e:  # never a traceback in the UI
            log.exception("latency probe failed")
            failure = f"internal error: {e!r}"
        self.probe = None
        failure = " ".join(x for x in (failure, *runner.problems) if x)
        if result is None:
            self._finished(RunOutcome(None, (failure or "the probe did not run",)))
            return
        for r in result.results[:-1]:  # _finished adds the last one
            self.runs.add(r, draw=False)
        self._finished(RunOutcome(result.results[-1] if result.results else None, (failure,) if failure else ()))
        await self.app.push_screen_wait(ProbeResultScreen(result))

    def action_switch_kind(self) -> None:
        if self.kind == "rados" and not rbd_available():
            self.app.notify(RBD_MISSING, severity="warning", timeout=12)
            return
        self.kind = "rbd" if self.kind == "rados" else "rados"
        self._title_live()
        self.app.notify("b and l now run block benchmarks on an RBD image (rbd bench)" if self.kind == "rbd" else
                        "b and l now run object benchmarks (rados bench)")

    def _title_live(self) -> None:
        what = "block · rbd bench" if self.kind == "rbd" else "objects · rados bench"
        self.query_one("#bench-live").border_title = f"Live: {what} (b new run · l latency · k objects/block · " \
                                                     "R repeat · x stop)"

    def bench_image(self, spec: str) -> None:
        """From the Images tab: the block run form with this image picked (pool/image)."""
        if not self._busy():
            self.kind = "rbd"
            self._title_live()
            self._block_flow(spec)

    @work(exit_on_error=False, group="bench", description="block bench run")
    async def _block_flow(self, pick: str = "") -> None:
        """The image picker (listed off the UI thread), the form, the plan (watchers checked), Run or Cancel."""
        images = await asyncio.to_thread(list_images, self.services.client)
        if not images.rbd_pools and not images.images:
            self._say("✖ " + (" ".join(images.problems) or "no pool has the rbd application: "
                              "`rbd pool init POOL` tags one"), "bold err")
            return
        for problem in images.problems:
            self.app.notify(problem, severity="warning")
        if any(i.partition("/")[2].startswith(TEMP_IMAGE_PREFIX) for i in images.images):
            await offer_leftover_images(self, images.rbd_pools)
        form, params_of = block_run_form(images=images, last=self.last_block, pick=pick)
        if not await self.app.push_screen_wait(form):
            return
        p = params_of(form.submitted_values)  # the form refused to close until a write's image name was typed
        self.last_block = p
        await self._confirm_and_run(self._bench_run(p, not p.image, confirmed_image=p.image),
                                    explain_block_run(p))

    def action_repeat(self) -> None:
        if self.last_params is None and self.history:
            last = self.history[-1].params  # the last run of an earlier session
            if isinstance(last, BenchParams):  # a block run is repeated from its own form (issue 29)
                self.last_params = (last, last.pool.startswith(TEMP_POOL_PREFIX))
        if self.last_params is None:
            self.app.notify("No run to repeat yet: n starts one.", severity="warning")
            return
        if self._busy():
            return
        p, temp = self.last_params
        if isinstance(p, BlockParams) and p.image and p.writes:
            # It destroys the image's data: through the form again, where its name is typed again.
            self.last_block = p
            self._block_flow()
            return
        if temp and isinstance(p, BenchParams):
            p = replace(p, pool=temp_pool_name())
        self._run_flow(repeat=(p, temp))

    def _busy(self) -> bool:
        if self.engine is not None or self.phase or self.osd_table.runner is not None or self.osd_table.progress \
                or self.probe:
            self.app.notify("A benchmark is running: x stops it.", severity="warning")
            return True
        return False

    def _last_rados_params(self) -> BenchParams | None:
        """The form's defaults from the last run when it was a RADOS run (block runs have their own form)."""
        last = self.last_params[0] if self.last_params else None
        return last if isinstance(last, BenchParams) else None

    @work(exit_on_error=False, group="bench", description="bench run")
    async def _run_flow(self, repeat: tuple[BenchParams | BlockParams, bool] | None = None,
                        ask: bool = True) -> None:
        """The form (not for a repeat), the plan with the cluster's numbers, Run or Cancel, the run."""
        if repeat is None:
            # Defaults: this session's last run, else the config file's [bench] (cephtui.config.BenchDefaults).
            d = self.services.bench_defaults or BenchDefaults()
            form, params_of = run_form(last=self._last_rados_params(),
                                       defaults=d, pools=self._pool_names(), temp_name=temp_pool_name(),
                                       osds_in=self.snap.osds.in_ if self.snap else 1)
            if not await self.app.push_screen_wait(form):
                return
            chosen: tuple[BenchParams | BlockParams, bool] = params_of(form.submitted_values)
        else:
            chosen = repeat
        p, temp = chosen
        run = self._bench_run(p, temp)
        await self._confirm_and_run(run, explain_run(p, temp) if isinstance(p, BenchParams) else
                                    explain_block_run(p), ask=ask)

    async def _confirm_and_run(self, run: BenchRun, explain: str, ask: bool = True) -> None:
        p = run.params
        if ask:
            try:  # a temporary pool's size and an image's watchers are asked of the cluster: what is confirmed runs
                plan = await asyncio.to_thread(run.plan)
            except CephError as e:
                self._say(f"✖ {e.message}", "bold err")
                return
            except BenchError as e:
                self._say(f"✖ {e}", "bold err")
                return
            where = f"image {p.pool}/{p.image}" if isinstance(p, BlockParams) and p.image else p.pool
            if not await self.app.push_screen_wait(BenchConfirmScreen(f"Run the benchmark on {where}?", plan,
                                                                      explain)):
                return
        self._begin(run)
        try:
            outcome = await asyncio.to_thread(run.run)  # the temporary pool, the run, the audit, the history
        except Exception as e:  # never a traceback in the UI
            log.exception("bench run failed")
            outcome = RunOutcome(None, (f"internal error: {e!r}",))
        self._finished(outcome)

    def _start(self, p: BenchParams | BlockParams, temp: bool) -> None:
        """A run without the dialogs (scripts/bench_ui_responsiveness.py)."""
        self._run_flow(repeat=(p, temp), ask=False)

    def _bench_run(self, p: BenchParams | BlockParams, temp: bool, confirmed_image: str = "") -> BenchRun:
        app = self.services
        client, audit = app.client, app.audit
        return BenchRun(client, p, audit, temp=temp, history=self.history_store, confirmed_image=confirmed_image,
                        read_only=app.read_only,
                        on_step=lambda phase, op: self.app.call_from_thread(self._set_phase, phase),
                        on_start=lambda engine: self.app.call_from_thread(self._engine_attached, engine))

    def _begin(self, run: BenchRun) -> None:
        """Busy from now on: the keys refuse a second run, x stops this one."""
        self.bench_run = run
        self.last_params = (run.params, run.temp)
        self.running = run.params
        self.phase = CREATING if run.temp else CONNECTING
        self._shown_samples = -1
        self._render_sparklines([])
        self._say("")

    def _engine_attached(self, engine: EngineHandle) -> None:
        self.engine = engine
        self.phase = ""
        self._render_status()
        # The live line now, not on the next progress tick: an engine that attaches with samples already
        # read (a loaded host) would otherwise draw its sparklines first, on a tick of theirs, above an empty
        # line (_tick staggers the parts).
        self._render_progress(engine.progress())

    def _set_phase(self, phase: str) -> None:
        self.phase = phase
        self._render_status()

    def _finished(self, outcome: RunOutcome) -> None:
        result, failure = outcome.result, outcome.failure
        if self.engine is not None and result is not None:
            self._render_progress(self.engine.progress())
        self.engine = None
        self.bench_run = None
        self.phase = ""
        self.running = None
        if result is not None:
            self.last_result = result
            self.runs.add(result)
            self._render_sparklines(result.samples[-SPARK_POINTS:])
            self._render_final(result)
        text, spec = views.run_message(result, failure)
        if text:
            self._say(text, spec)
        else:
            self._render_status()
        if spec == "bold err":
            self.app.notify(result.error if result is not None and result.error else failure, severity="error",
                            timeout=15)

    def _render_final(self, r: BenchResult) -> None:
        bar = self.query_one("#bench-progress", ProgressBar)
        bar.update(total=max(r.total_time_run, 0.001), progress=r.total_time_run)
        self.query_one("#bench-summary", Static).update(views.final_text(r))

    def action_stop(self) -> None:
        if self.probe is not None:
            self.probe.stop()
            self._say("stopping the probe: the op in flight finishes, what it wrote is removed…", "warn")
        elif self.bench_run is not None:  # running, or still creating its temporary pool or connecting
            self.bench_run.stop()
            self._say("stopping: waiting for the ops in flight…" if self.engine is not None else
                      "stopping before the run starts…", "warn")
        elif self.osd_table.runner is not None:
            self.osd_table.runner.stop()
            self._say("stopping after the current OSD…", "warn")
        else:
            self.app.notify("Nothing is running.")

    # ------------------------------------------------------------ per-OSD bench
    def action_osd_bench(self) -> None:
        if not self._busy():
            self._osd_flow()

    def osd_bench_for(self, ids: tuple[int, ...]) -> None:
        """The per-OSD bench form with these OSDs filled in (the Doctor's fail-slow suspects and their peers)."""
        if not self._busy():
            self._osd_flow(",".join(f"osd.{i}" for i in ids))

    @work(exit_on_error=False, group="osd-bench-flow", description="per-OSD bench dialogs")
    async def _osd_flow(self, osds: str = "all") -> None:
        form, params_of = osd_bench_form(self.snap.osds.total if self.snap else 0, osds)
        plan = await self.app.push_screen_wait(form)
        if not plan:
            return
        p, ids = params_of(form.submitted_values)
        if await self.app.push_screen_wait(BenchConfirmScreen("Run the per-OSD bench?", plan, OSD_BENCH_EXPLAIN)):
            self._start_osd_bench(p, ids)

    def _start_osd_bench(self, p: OSDBenchParams, ids: tuple[int, ...] | None) -> None:
        self._say("")
        self.osd_table.start(self.services.client, self.services.audit, p, ids, self._osd_finished)
        self._render_status()

    def _osd_finished(self, failure: str) -> None:
        self._say(*views.osd_bench_message(self.osd_table.results, failure))
