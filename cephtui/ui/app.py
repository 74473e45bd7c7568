"""CephTUI: the app shell, the poller, tabs, bindings, help and command palette."""
from __future__ import annotations

import gc
import logging
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from rich.console import RenderableType
from rich.text import Text
from textual import work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.theme import Theme
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import DataTable, Input, Static, TabbedContent, TabPane, TextArea

from cephtui.ceph import ops
from cephtui.ceph.client import CephClient, CephError, CephTimeout
from cephtui.ceph.secrets import redact
from cephtui.ceph.snapshot.builder import SnapshotBuilder
from cephtui.ceph.snapshot.clusterlog import ClusterLog
from cephtui.ceph.snapshot.models import ClusterSnapshot
from cephtui.ceph.workflows.queue import driven_elsewhere, indicator, queue_rows
from cephtui.ceph.workflows.removal import KIND, Removal, RemovalEngine
from cephtui.ceph.workflows.store import WorkflowConflict, WorkflowStore
from cephtui.ui import jump as jumps
from cephtui.ui import navigation as nav
from cephtui.ui import palette
from cephtui.ui.compat import node_bindings, parse_action
from cephtui.ui.messages import PollFailed, SnapshotReady
from cephtui.ui.panes.activity import ActivityPane
from cephtui.ui.panes.bench import BenchPane
from cephtui.ui.panes.crush import CrushPane
from cephtui.ui.panes.health import HealthPane
from cephtui.ui.panes.maintenance import MaintenancePane
from cephtui.ui.panes.osds import OSDsPane
from cephtui.ui.panes.pgs import PGsPane
from cephtui.ui.panes.pools import PoolsPane
from cephtui.ui.panes.users import UsersPane
from cephtui.ui.readonly import WHY, mutating_action, refusal
from cephtui.ui.screens.removal import RemovalScreen, ResumeScreen, StopChoice
from cephtui.ui.themes import DEFAULT_THEME, display_path, load_all_themes, user_config_file
from cephtui.ui.widgets.confirm import ConfirmScreen, Outcome
from cephtui.ui.widgets.dialog import close_like_escape
from cephtui.ui.widgets.footer import CephFooter
from cephtui.ui.widgets.preview_view import preview_for
from cephtui.ui.widgets.promptbar import PromptBar
from cephtui.ui.widgets.statusbar import StatusBar
from cephtui.ui.widgets.virtualtable import VirtualTable
from cephtui.ui.wizards.form import Builder, Field, FormScreen

log = logging.getLogger("cephtui")

RECLAIM_EVERY = 30.0  # seconds: the least time between two full collections prompted by frozen garbage

TABS = (
    ("health", "Health"), ("pgs", "PGs"), ("osds", "OSDs"), ("crush", "CRUSH"), ("pools", "Pools"),
    ("users", "Users"), ("maintenance", "Maintenance"), ("bench", "Bench"), ("activity", "Activity"),
)


def pane_bindings(pane: Widget) -> list[Binding]:
    """A pane's own key bindings, one per action (the palette and `?` list these)."""
    seen: dict[str, Binding] = {}
    for bindings in node_bindings(pane).values():
        for b in bindings:
            if b.action not in seen and b.action != "clear_filter":
                seen[b.action] = b
    return list(seen.values())


class CephTUI(App[None]):
    CSS_PATH = Path(__file__).parent / "app.tcss"  # absolute: subclasses live elsewhere
    TITLE = "cephtui"
    # Every screen (dialogs too) carries one class of each: app.tcss fits 80x24 and fills 200x60 by them.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-normal"), (180, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (34, "-medium"), (50, "-tall")]
    BINDINGS = [
        Binding("q", "close_or_quit", "Quit", tooltip="Close the dialog or prompt on top; on the main screen, quit"),
        Binding("question_mark", "help", "Help", tooltip="The keys of this tab"),
        Binding("r", "refresh_now", "Refresh"),
        # Priority: run while the key is still at the app, before the keys typed after it are handed to the
        # focused table (a non-priority binding runs only after `:` has bubbled back up from the table,
        # by which time a fast `:osd.3` had sent its `o` to the OSD table: "mark out"). check_action
        # keeps them off dialogs and text fields.
        Binding("colon", "jump", "Jump", tooltip=":osds, :osd.3, :1.2f, :rbd, :client.admin, :a-host",
                priority=True),
        Binding("slash", "search", "Search", show=False, priority=True),
        Binding("n", "next_match(1)", "Next match", show=False),
        Binding("N", "next_match(-1)", "Previous match", show=False),
        Binding("g", "edge(0)", "Top", show=False),
        Binding("G", "edge(-1)", "Bottom", show=False),
        *(Binding(str(i), f"show_tab('{key}')", title, show=False) for i, (key, title) in enumerate(TABS, 1)),
    ]

    def __init__(self, client: CephClient, refresh: float = 2.0, cluster: str = "ceph", osd_stop_cmd: str = "",
                 workflow_store: WorkflowStore | None = None, read_only: bool = False, theme: str | None = None,
                 bench_defaults: Any = None, read_only_why: str = "", config_file: str | None = None) -> None:
        super().__init__()
        self.initial_theme = theme  # from the config file; None: the default theme
        self._theme_problems = self._load_themes()  # before any pane draws (see there)
        self.bench_defaults = bench_defaults  # cephtui.config.BenchDefaults from the config file, or None
        # --read-only: panes dim their mutating keys, the shared paths below refuse, and the client
        # itself refuses any command the cluster's table marks as writing (see ui/readonly.py).
        self.read_only = read_only
        self.config_file = config_file  # the config file read (--config, $CEPHTUI_CONFIG or the XDG one), if any
        self.startup_notes: list[str] = []
        self.read_only_why = read_only_why or WHY  # e.g. "read_only = true in ~/.config/cephtui/config.toml"
        if read_only:
            client.read_only = True
        self.osd_stop_cmd = osd_stop_cmd  # e.g. "ssh {host} systemctl stop ceph-osd@{id}"; "" = systemd here/manual
        # The removal queue lives in the cluster (config-key), the local file is its cache; read by a worker.
        self.workflow_store = workflow_store or WorkflowStore(client=client)
        self.removals: dict[str, RemovalEngine] = {}
        self.removal_queue: list[dict[str, Any]] = []  # the store's queue as last read (colleagues' too)
        self._queue_loading = False
        self._ticking = False
        self.client = client
        self.refresh_interval = refresh
        self.cluster_name = cluster
        self.cluster_log = ClusterLog(client)
        self.builder = SnapshotBuilder(client, log=self.cluster_log)
        self.snapshot: ClusterSnapshot | None = None
        self.audit = ops.AuditLog(entity=client.spec.name)
        self.last_outcome: Outcome | None = None
        self.connected: bool | None = None
        self._polling = False
        self._poll_started = 0.0  # monotonic start of the poll in flight
        self._timer: Timer | None = None
        self._jump_names = jumps.Names()  # names `:` completes, kept across snapshots
        self._search: dict[str, str] = {}  # tab -> the `/` search of a tab without a filter of its own
        self._quit_armed = 0.0  # monotonic time of a `q` that asked "a run is going: again to quit"

    # ------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield StatusBar(self.cluster_name, id="statusbar")
        with TabbedContent(initial="health", id="tabs"):
            for i, (key, title) in enumerate(TABS, 1):
                with TabPane(f"{title} {i}", id=key):
                    # Shown in every tab's body while the mon does not answer (see _set_stale).
                    yield Static("", classes="stale-banner")
                    if key == "health":
                        yield HealthPane(id="health-pane")
                    elif key == "pgs":
                        yield PGsPane(id="pgs-pane")
                    elif key == "osds":
                        yield OSDsPane(id="osds-pane")
                    elif key == "crush":
                        yield CrushPane(id="crush-pane")
                    elif key == "pools":
                        yield PoolsPane(id="pools-pane")
                    elif key == "users":
                        yield UsersPane(id="users-pane")
                    elif key == "maintenance":
                        yield MaintenancePane(id="maintenance-pane")
                    elif key == "bench":
                        yield BenchPane(id="bench-pane")
                    else:
                        yield ActivityPane(id="activity-pane")
        yield PromptBar()
        yield CephFooter()

    def on_mount(self) -> None:
        # Kept, not queried later: while a modal or the palette is up, queries see that screen instead.
        self.tabs = self.query_one(TabbedContent)
        self.statusbar = self.query_one(StatusBar)
        self.osds_pane = self.query_one(OSDsPane)
        self.pgs_pane = self.query_one(PGsPane)
        self.crush_pane = self.query_one(CrushPane)
        self.pools_pane = self.query_one(PoolsPane)
        self.users_pane = self.query_one(UsersPane)
        self.maintenance_pane = self.query_one(MaintenancePane)
        self.bench_pane = self.query_one(BenchPane)
        self.activity_pane = self.query_one(ActivityPane)
        self.health_pane = self.query_one(HealthPane)
        self.panes = (self.health_pane, self.pgs_pane, self.osds_pane, self.crush_pane, self.pools_pane,
                      self.users_pane, self.maintenance_pane, self.bench_pane, self.activity_pane)
        self.statusbar.read_only = self.read_only
        self._always_shown: tuple[Widget, ...] = (self.maintenance_pane, self.bench_pane)
        self._stale: set[Widget] = set()
        self._graveyard: list[ClusterSnapshot | list[object]] = []
        self._frozen_at_reclaim = 0  # gc.get_freeze_count() after the last full collection
        self._reclaimed_at = time.monotonic()
        self._setup_themes()
        self._schedule(0)
        self.set_interval(0.5, self._watchdog)
        self.set_interval(2.0, self._tick_workflows)
        self.set_interval(600, self._reclaim)
        self._load_queue(offer=True)  # then offers to resume an interrupted removal
        for note in self.startup_notes:  # e.g. this librados older than the cluster (cli.run_tui)
            self.notify(note, title="Releases", severity="warning", timeout=20)
        self.set_interval(10.0, self._load_queue)
        self.set_interval(1.0, self._show_removal_indicator)

    # ------------------------------------------------------------ themes
    def _load_themes(self) -> list[str]:
        """Register cephtui's themes and the user's and pick the configured one; what to tell the user.

        Runs in __init__: panes draw their first texts when they mount, before the app's on_mount,
        and take their colours from the palette, which must be the chosen theme's by then.
        """
        self._start_theme: str | None = None
        themes, problems = load_all_themes()
        for theme in themes:
            self.register_theme(theme)
        wanted = self.initial_theme or DEFAULT_THEME
        if wanted not in self.available_themes:
            problems.append(f"No theme called {wanted!r} (config: {display_path(user_config_file())}); "
                            f"using {DEFAULT_THEME!r}. Themes: {', '.join(sorted(self.available_themes))}")
            log.warning("unknown theme %r, using %r", wanted, DEFAULT_THEME)
            wanted = DEFAULT_THEME
        chosen = self.get_theme(wanted)
        if chosen is not None:  # None only if cephtui's own theme files are missing: Textual's default stays
            self._start_theme = wanted
            palette.set_theme(chosen)
        return problems

    def _setup_themes(self) -> None:
        """Apply the theme chosen in __init__, say which theme files were skipped, follow later changes."""
        if self._start_theme is not None:
            self.theme = self._start_theme
        palette.set_theme(self.current_theme)
        for problem in self._theme_problems:
            self.notify(problem, title="Themes", severity="warning", timeout=15)
        self.theme_changed_signal.subscribe(self, self._theme_changed)

    def _theme_changed(self, theme: Theme) -> None:
        """Redraw what panes render in Python (Rich styles do not follow CSS variables) in the new colours."""
        if palette.current().name == theme.name:
            return  # the start-up theme, applied in _setup_themes
        palette.set_theme(theme)
        self.statusbar.refresh_text()
        visible = self.tabs.active
        for pane in self.panes:
            retheme = getattr(pane, "retheme", None)
            try:
                if retheme is not None:
                    retheme()  # draw again what it keeps between snapshots, in the new colours
            except Exception as e:  # a pane left in the old colours is no reason to stop
                log.exception("re-colouring %s failed", pane.id)
                self.notify(f"could not re-colour {pane.id}: {e!r}", severity="error")
            shown = (pane.parent is not None and pane.parent.id == visible) or pane in self._always_shown
            if shown and self.snapshot is not None:
                self._show(pane, self.snapshot)
            elif not shown:
                self._stale.add(pane)
        self.notify(f"Theme {theme.name} for this session; to keep it, set theme = \"{theme.name}\" in "
                    f"{display_path(Path(self.config_file) if self.config_file else user_config_file())}",
                    timeout=8)

    # ------------------------------------------------------------ workflows
    def _load_queue(self, offer: bool = False) -> None:
        if not self._queue_loading:
            self._queue_loading = True
            self._queue_worker(offer)

    @work(thread=True, exit_on_error=False, group="workflow-queue", description="read the removal queue")
    def _queue_worker(self, offer: bool) -> None:
        try:
            queue = self.workflow_store.load_all(KIND)
        except Exception:  # a bug here must not stop the indicator for good
            log.exception("reading the removal queue failed")
            queue = self.removal_queue
        finally:
            self._queue_loading = False
        self.call_from_thread(self._queue_loaded, queue, offer)

    def _queue_loaded(self, queue: list[dict[str, Any]], offer: bool) -> None:
        self.removal_queue = queue
        self._show_removal_indicator()
        if offer:
            self._offer_resume()

    def removal_rows(self) -> list[dict[str, Any]]:
        """The queue as rows: the cluster's as last read, this session's own workflows at their live state."""
        by_id = {d.get("id"): d for d in self.removal_queue}
        for wf_id, engine in self.removals.items():
            meta = dict(by_id.get(wf_id, {}).get("_cephtui") or {})
            meta.setdefault("started_by", self.workflow_store.me)
            meta["driven_by"] = self.workflow_store.me
            by_id[wf_id] = {**engine.state.to_json(), "_cephtui": meta}
        return queue_rows(list(by_id.values()))

    def _show_removal_indicator(self) -> None:
        rows = self.removal_rows()
        text = indicator(rows)
        live = [r["status"] for r in rows if r["status"] not in ("done", "aborted")]
        role = "err" if {"blocked", "failed"} & set(live) else ("warn" if "paused" in live else "info")
        self.statusbar.set_removals(text, role)

    def open_removal(self, wf_id: str) -> None:
        """One workflow of the queue: this session's, or one taken over (it stays paused until `p`)."""
        engine = self.removals.get(wf_id)
        if engine is None:
            row = next((r for r in self.removal_rows() if r["id"] == wf_id), None)
            data = next((d for d in self.removal_queue if d.get("id") == wf_id), None)
            if row is None or data is None:
                return
            if driven_elsewhere(row, self.workflow_store.me):
                self.notify(f"{wf_id} is being driven by {row['driven_by'] or 'another cephtui'}: pause it there "
                            "first to take it over here.", severity="warning")
                return
            if self.read_only and row["status"] not in ("done", "aborted"):
                self.notify(refusal("taking over a removal", self.read_only_why), severity="warning")
                return
            state = Removal.from_json(data)
            if state.status == "running":  # its driver is gone (nothing saved for a minute): held until `p`
                state.status = "paused"
                state.note("taken over by " + self.workflow_store.me + ": paused until resumed here")
            engine = RemovalEngine(self.client, state, self.workflow_store, self.audit)
            self.removals[wf_id] = engine
        self.push_screen(RemovalScreen(engine))

    def _offer_resume(self) -> None:
        pending = []
        for row in self.removal_rows():
            if row["id"] in self.removals or row["status"] in ("done", "aborted") \
                    or driven_elsewhere(row, self.workflow_store.me):
                continue  # finished, or another cephtui (a colleague's, a `cephtui remove`) is ticking it now
            data = next(d for d in self.removal_queue if d.get("id") == row["id"])
            pending.append(Removal.from_json(data))
        if not pending:
            return
        if self.read_only:
            self.notify(f"{len(pending)} unfinished OSD removal(s) left as they are: "
                        + refusal("resuming them", self.read_only_why), severity="warning", timeout=10)
            return
        r = pending[0]

        def done(choice: StopChoice | None) -> None:
            engine = RemovalEngine(self.client, r, self.workflow_store, self.audit)
            self.removals[r.id] = engine
            if choice is not None:
                # The stop method may have been changed in the dialog (a failing one is not kept for ever).
                self.run_worker(lambda: engine.resume(choice.template, choice.shell), thread=True,
                                group="workflow-control")
                self.push_screen(RemovalScreen(engine))
            else:
                # kept, paused, until resumed from the OSDs tab (key P)
                self.run_worker(engine.pause, thread=True, group="workflow-control")
        self.push_screen(ResumeScreen(r, self.osd_stop_cmd or ""), done)

    def start_removal(self, plan: Removal) -> None:
        if self.refuse_if_read_only("removing or replacing an OSD"):
            return
        self._start_removal(RemovalEngine(self.client, plan, self.workflow_store, self.audit))

    @work(thread=True, exit_on_error=False, group="workflow-control", description="start a removal")
    def _start_removal(self, engine: RemovalEngine) -> None:
        # The first save reads and writes the cluster's queue (one workflow per OSD, whoever started it):
        # mon round trips, so off the UI thread.
        try:
            engine.save()
        except WorkflowConflict as e:
            self.call_from_thread(self.notify, f"Not started: {e}", title="Removal", severity="error",
                                  timeout=15)
            return
        except Exception as e:  # e.g. the local cache not writable: the removal must not start unsaved
            log.exception("saving a new removal failed")
            self.call_from_thread(self.notify, f"Not started: the workflow could not be saved ({e})",
                                  title="Removal", severity="error", timeout=15)
            return
        self.call_from_thread(self._removal_started, engine)

    def _removal_started(self, engine: RemovalEngine) -> None:
        self.removals[engine.state.id] = engine
        self.push_screen(RemovalScreen(engine))
        self._tick_workflows()

    def open_removals(self) -> None:
        live = [e for e in self.removals.values() if not e.state.finished]
        if live:
            self.push_screen(RemovalScreen(live[0]))
        else:
            self.notify("No removal or replacement in progress.")

    def abort_workflow(self, engine: RemovalEngine) -> None:
        self._abort(engine)

    @work(thread=True, exit_on_error=False, group="workflows-abort", description="abort a workflow")
    def _abort(self, engine: RemovalEngine) -> None:
        undone = engine.abort()
        self.call_from_thread(self.notify, "Aborted. " + "; ".join(undone), timeout=15)

    def _tick_workflows(self) -> None:
        running = any(e.state.status == "running" for e in self.removals.values())
        if not self._ticking and not self.read_only and running:
            self._ticking = True
            self._tick_worker()

    @work(thread=True, exit_on_error=False, group="workflows", description="advance workflows")
    def _tick_worker(self) -> None:
        try:
            for engine in list(self.removals.values()):
                try:
                    engine.tick()
                except Exception:  # a bug in one step must not kill the app or the other workflows
                    log.exception("workflow %s failed", engine.state.id)
                    engine.state.status = "failed"
                    engine.state.waiting_for = "internal error (see the log); resume to retry or abort"
                    engine.save()
        finally:
            self._ticking = False

    # ------------------------------------------------------------ polling
    def _schedule(self, delay: float) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(max(delay, 0.01), self._start_poll)

    def _start_poll(self) -> None:
        if self._polling:
            return
        self._polling = True
        self._poll_started = time.monotonic()
        self.set_timer(self._stall_after, self._watchdog)  # on time, not at the next 0.5 s tick
        active = self.tabs.active
        self._poll(pg_table=active == "pgs", osd_tree=active == "osds", shadow=self.osds_pane.show_shadow,
                   crush=active in ("crush", "pools"), pools=active == "pools", users=active == "users")

    @work(thread=True, exclusive=True, group="poll", exit_on_error=False)
    def _poll(self, pg_table: bool, osd_tree: bool, shadow: bool, crush: bool, pools: bool, users: bool) -> None:
        """Runs in a worker thread: the only place the app waits on the cluster."""
        self._free_buried()
        try:
            if not self.cluster_log.started:
                try:
                    self.cluster_log.start()
                except CephError:
                    pass  # tried again next poll
            snap = self.builder.build(pg_table=pg_table, osd_tree=osd_tree, shadow=shadow, crush=crush, pools=pools,
                                      users=users)
        except CephTimeout as e:
            self.post_message(PollFailed(f"monitor not answering ({e.message})"))
        except CephError as e:
            self.post_message(PollFailed(f"{e.prefix}: {e.message}" if e.prefix else e.message))
        except Exception as e:  # never let a surprise end the app with a traceback
            log.exception("poll failed")
            self.post_message(PollFailed(f"internal error: {e!r}"))
        else:
            self.post_message(SnapshotReady(snap))

    def _watchdog(self) -> None:
        """Say "disconnected" within two refresh intervals, not after librados' op timeout.

        A poll waiting on a mon that does not answer would otherwise show nothing until the
        timeout (5 s by default) ends it. A poll takes milliseconds (150 ms at 5,000 OSDs), so
        one that has waited 0.9 of an interval is lost: with the next poll due at most one
        interval after the mon went away, that is under two intervals. A hung mgr command is
        not a lost cluster: the mon still answers, so that is a note, not "disconnected".
        """
        if not self._polling:
            self.statusbar.show_mgr_stall("")
            return
        waited = time.monotonic() - self._poll_started
        waiting = getattr(self.client, "waiting", lambda: None)()
        if waited < self._stall_after - 0.05 or waiting is None:
            return
        prefix, seconds = waiting
        if getattr(self.client, "is_mgr_command", lambda p: False)(prefix):
            self.statusbar.show_mgr_stall(f"the mgr has not answered `{prefix}` for {seconds:.0f}s")
        elif self.connected is not False or self.statusbar.error.startswith("no answer"):
            self.connected = False
            self.statusbar.show_failure(f"no answer from the monitors for {seconds:.0f}s (`{prefix}`)")
            self._set_stale(f"no answer for {seconds:.0f}s")

    @property
    def _stall_after(self) -> float:
        return max(0.9 * self.refresh_interval, 0.5)

    def on_snapshot_ready(self, message: SnapshotReady) -> None:
        self._polling = False
        self.statusbar.show_mgr_stall("")
        if self.snapshot is not None:
            self._graveyard.append(self.snapshot)  # freed by the next poll's thread: see _free_buried
        self.call_after_refresh(self._freeze)  # see the note above _show
        self.snapshot, self.connected = message.snapshot, True
        self._jump_names = jumps.names_from(message.snapshot, self._jump_names)  # for `:` completion
        self._set_stale("")
        self.audit.cluster = message.snapshot.fsid
        self.statusbar.show_snapshot(message.snapshot)
        # Only the pane on screen renders now (and the two that keep state for the status bar
        # and forms); the others render this snapshot when their tab is opened.
        visible = self.tabs.active
        for pane in self.panes:
            if (pane.parent is not None and pane.parent.id == visible) or pane in self._always_shown:
                self._show(pane, message.snapshot)
            else:
                self._stale.add(pane)
        self._schedule(self.refresh_interval)

    # The garbage collector. Its full collections walk every tracked object with the GIL held;
    # with a big cluster's tables and Textual's render caches that froze the UI for 60-80 ms every
    # few refreshes (scripts/bench_scale.py). So after each snapshot is painted, gc.freeze() moves
    # what is alive out of those scans. Frozen objects are still freed as soon as they are dropped;
    # only garbage in reference cycles (a closed dialog's widgets, a tab's replaced render caches,
    # Textual's spent messages) waits for _reclaim, which runs after a dialog closes, every ten
    # minutes, and once the frozen set has grown by a quarter since the last one (see _freeze).

    def bury(self, rows: list[object]) -> None:
        """Hand a big list the UI no longer shows (a filter's result) to the poller thread to free."""
        self._graveyard.append(rows)

    def _free_buried(self) -> None:
        """Free replaced snapshots here, in the poller's thread, and a big PG table a slice at a time.

        Dropping the last reference to a table of 200,000 PGs is one C-level cascade of 200,000
        decrefs (~25 ms here) that holds the GIL; on the UI thread that was a visible stall at every
        refresh. A table still shown by a pane (more references than ours) is left whole.
        """
        while self._graveyard:
            snap = self._graveyard.pop()
            if sys.getrefcount(snap) > 2:  # ours and the call's: anything more still uses it
                continue
            rows = snap if isinstance(snap, list) else snap.pg_table
            del snap
            if isinstance(rows, list) and sys.getrefcount(rows) == 2:  # nobody else has the table either
                while rows:
                    del rows[-16384:]
                    time.sleep(0)
            del rows

    def _freeze(self) -> None:
        """gc.freeze(), and a full collection once the frozen set has grown by a quarter (CPython's own
        rule for its oldest generation), at most every RECLAIM_EVERY seconds. Before, cycles frozen while
        alive waited the full ten minutes: switching tabs every 3 s at --refresh 1 piled up ~35 MB a
        minute of them (scripts/soak.py). The floor bounds the pauses where a collection is slow: ~100 ms
        at 2,000 OSDs and 40,000 PGs, where switching tabs every 2 s grew the set by a quarter in 10 s."""
        gc.freeze()
        frozen = gc.get_freeze_count()
        if not self._frozen_at_reclaim:  # the first paint: what is frozen now is the baseline
            self._frozen_at_reclaim = frozen
        elif (frozen > max(self._frozen_at_reclaim * 5 // 4, self._frozen_at_reclaim + 20_000)
              and time.monotonic() - self._reclaimed_at >= RECLAIM_EVERY):
            self._reclaim()

    def _reclaim(self) -> None:
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self._frozen_at_reclaim = gc.get_freeze_count()
        self._reclaimed_at = time.monotonic()

    def pop_screen(self) -> Any:
        result = super().pop_screen()
        self.set_timer(1.0, self._reclaim)  # after the dialog's own teardown
        return result

    def _show(self, pane: Widget, snap: ClusterSnapshot) -> None:
        self._stale.discard(pane)
        try:
            if pane is self.health_pane and self.tabs.has_class("-stale"):
                self.health_pane.show(snap, stale=True)  # opened while the mon is away: no green from old data
                return
            pane.show(snap)  # type: ignore[attr-defined]
        except Exception as e:
            log.exception("rendering %s failed", pane.id)
            self.notify(f"could not render {pane.id}: {e!r}", severity="error")

    def on_poll_failed(self, message: PollFailed) -> None:
        self._polling = False
        self.statusbar.show_mgr_stall("")
        self.connected = False
        self.statusbar.show_failure(message.error)
        self._set_stale(message.error)
        self._schedule(self.refresh_interval)

    def _set_stale(self, why: str) -> None:
        """Mon gone ("" = back): every tab's body is dimmed under a banner, and the Health pane
        stops showing the last HEALTH_OK and quorum in green, as if they were current."""
        # The tabs live on the app's first screen, whatever is on top; none while the app is being
        # torn down (a poll that ends during exit must not raise).
        found = self.screen_stack[0].query("#tabs") if self.screen_stack else None
        if not found:
            return
        tabs = found.first()
        if not why:
            if tabs.has_class("-stale"):
                tabs.remove_class("-stale")
            return
        age = f", data {time.time() - self.snapshot.taken_at:.0f} s old" if self.snapshot is not None else ""
        text = f"⚠ STALE: disconnected from the monitors ({why}){age}; shown as last seen"
        for banner in self.query(".stale-banner").results(Static):
            banner.update(Text(text))
        tabs.add_class("-stale")
        if self.snapshot is not None:
            self.health_pane.show(self.snapshot, stale=True)

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        stale = [p for p in self._stale if p.parent is event.pane]
        if stale and self.snapshot is not None:
            self._show(stale[0], self.snapshot)
        # Tables of these tabs are fetched only while shown: fill them now, not at the next tick.
        focus = {"pgs": self.pgs_pane.focus_table, "osds": self.osds_pane.focus_table,
                 "crush": self.crush_pane.focus_table, "pools": self.pools_pane.focus_table,
                 "users": self.users_pane.focus_table,
                 "maintenance": self.maintenance_pane.focus_table,
                 "bench": self.bench_pane.focus_table, "activity": self.activity_pane.focus_table,
                 }.get(event.pane.id or "")
        if focus is not None:
            # After the tab's own focus handling, so digits switch tabs instead of typing in the filter.
            self.call_after_refresh(focus)
        if event.pane.id in ("pgs", "osds", "crush", "pools", "users") and not self._polling:
            self._schedule(0)

    # ------------------------------------------------------------ actions
    def refuse_if_read_only(self, what: str) -> bool:
        """In --read-only mode say why `what` cannot be done and return True."""
        if self.read_only:
            self.notify(refusal(what, self.read_only_why), severity="warning", timeout=6)
        return self.read_only

    async def run_action(self, action: Any, default_namespace: Any = None, namespaces: Any = None) -> bool:
        # A pane's mutating key in --read-only mode: say why instead of doing nothing (its
        # check_action dims it in the footer, which alone would swallow the key silently).
        if self.read_only and isinstance(action, str):
            target, name, _ = parse_action(self, action, self if default_namespace is None else default_namespace,
                                           namespaces)
            what = mutating_action(target, name)
            if what is not None:
                self.refuse_if_read_only(what)
                return True
        return await super().run_action(action, default_namespace, namespaces)

    def action_show_tab(self, key: str) -> None:
        if key == self.tabs.active:
            # No tab change, so no TabActivated to refocus the pane: focus it here, or its keys
            # would stop working until another tab was picked.
            self._focus_pane()
            return
        # Drop focus first: a focused widget in the old pane would pull its tab back to the front.
        self.set_focus(None)
        self.tabs.active = key

    def action_refresh_now(self) -> None:
        self.builder.expire()
        if not self._polling:
            self._schedule(0)

    # ------------------------------------------------------------ moving around (less / k9s habits)
    @property
    def active_pane(self) -> Widget:
        key = self.tabs.active
        return next(p for p in self.panes if p.parent is not None and p.parent.id == key)

    @property
    def prompt(self) -> PromptBar:
        return self.query_one(PromptBar)

    def _focus_pane(self) -> None:
        focus = getattr(self.active_pane, "focus_table", None)
        if focus is not None:
            focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("jump", "search"):  # priority bindings: the main screen only, never over typing
            return len(self.screen_stack) == 1 and not isinstance(self.focused, (Input, TextArea))
        return True

    def action_jump(self) -> None:
        n = self._jump_names
        self.prompt.open("jump", completions=jumps.suggestions(n.pools, n.osds, sorted(self.available_themes),
                                                               n.users, n.buckets))

    def action_search(self) -> None:
        """`/` on a tab without a filter of its own: find rows by their text (less's search)."""
        filter_box = nav.filter_of(self.active_pane)
        if filter_box is not None:
            self.screen.set_focus(filter_box)  # at once: the keys typed after `/` are the filter's
            return
        if nav.table_of(self.active_pane, self.focused) is None:
            self.notify("Nothing to search on this tab.", timeout=3)
            return
        self.prompt.open("search", self._search.get(self.tabs.active, ""))

    def on_prompt_bar_changed(self, message: PromptBar.Changed) -> None:
        if message.mode == "search" and message.text.strip():
            table = nav.table_of(self.active_pane, None)
            if table is not None:  # as you type, the cursor goes to the first match from where it is
                index, _ = nav.find(table, nav.text_matcher(table, message.text), nav.cursor(table), 0)
                if index is not None:
                    nav.move(table, index)

    def on_prompt_bar_done(self, message: PromptBar.Done) -> None:
        if message.mode == "search":
            self._search[self.tabs.active] = "" if message.cancelled else message.text.strip()
            self._focus_pane()
        elif message.cancelled:
            self._focus_pane()
        else:
            self._jump(message.text)

    def _jump(self, text: str) -> None:
        snap = self.snapshot
        j = jumps.resolve(text, [p.name for p in snap.capacity.pools] if snap is not None else (),
                          self._jump_names.buckets)
        if j.error:
            self.notify(j.error, severity="warning", timeout=5)
            self._focus_pane()
        elif j.command == "quit":
            self.call_later(self.action_close_or_quit)
        elif j.command == "help":
            self.action_help()
        elif j.command == "theme":
            if j.arg in self.available_themes:
                self.theme = j.arg
            else:
                self.notify(f"No theme called '{j.arg}'. Themes: {', '.join(sorted(self.available_themes))}",
                            severity="warning", timeout=8)
        else:
            self.action_show_tab(j.tab)
            pane = self.active_pane
            box = nav.filter_of(pane)
            if box is not None and (j.filter or box.value):
                box.value = j.filter  # the filter posts Applied: the pane filters its table
            if j.note:
                self.notify(j.note, timeout=6)
            self.call_after_refresh(self._focus_pane)
            if j.reveal:
                self._reveal(pane, j.reveal, time.monotonic() + 10)

    def _reveal(self, pane: Widget, name: str, until: float) -> None:
        """Put the cursor on the row called `name`: the tab's data may still be coming, so try a while."""
        table = nav.table_of(pane, None)
        index = nav.named_row(table, name) if table is not None else None
        if index is not None:
            nav.move(table, index)  # type: ignore[arg-type]
        elif time.monotonic() < until and pane is self._shown_pane():
            self.set_timer(0.25, lambda: self._reveal(pane, name, until))

    def _shown_pane(self) -> Widget | None:
        """The active pane, or None between tabs or while the app is torn down (a timer may fire then)."""
        try:
            return self.active_pane
        except (StopIteration, NoMatches):
            return None

    def action_next_match(self, step: int) -> None:
        """`n` / `N`: the next / previous row matching the tab's filter or `/` search, wrapping."""
        pane = self.active_pane
        table = nav.table_of(pane, self.focused)
        if table is None:
            return
        box = nav.filter_of(pane)
        if box is not None and box.value.strip():
            what = f"filter '{box.value.strip()}'"
            match = getattr(pane, "is_match", lambda table, i: True)
            index, wrapped = nav.find(table, lambda i: match(table, i), nav.cursor(table), step)
        elif self._search.get(self.tabs.active):
            what = f"search '{self._search[self.tabs.active]}'"
            index, wrapped = nav.find(table, nav.text_matcher(table, self._search[self.tabs.active]),
                                      nav.cursor(table), step)
        else:
            self.notify("Nothing to match: `/` first (filter or search).", timeout=3)
            return
        if index is None:
            self.notify(f"Pattern not found: {what}", severity="warning", timeout=3)
            return
        nav.move(table, index)
        table.focus()
        if wrapped:
            self.notify(f"{what}: wrapped to the {'top' if step > 0 else 'bottom'}", timeout=2)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a DataTable (or a click on its highlighted row) is the pane's `enter`: the table's own
        enter binding would otherwise swallow it (the Pools tab's settings view never opened from its table)."""
        self._open_row(event.data_table)

    def on_virtual_table_activated(self, event: VirtualTable.Activated) -> None:
        self._open_row(event.table)  # a double click

    def _open_row(self, table: Widget) -> None:
        """Run the `enter` of the pane holding `table` (OSD detail, pool settings …), if it has one."""
        pane = next((p for p in table.ancestors if p in self.panes), None)
        if pane is None or table.screen is not self.screen:
            return
        enter = node_bindings(pane).get("enter")
        if enter:
            self.run_worker(self.run_action(enter[0].action, pane), exit_on_error=False)

    def action_edge(self, where: int) -> None:
        table = nav.table_of(self.active_pane, self.focused)
        if table is not None and nav.row_count(table):
            nav.move(table, 0 if where == 0 else nav.row_count(table) - 1)
            table.focus()

    async def action_close_or_quit(self) -> None:
        """`q`: close what is on top (a dialog, the prompt); on the main screen, quit."""
        if len(self.screen_stack) > 1:
            await close_like_escape(self.screen)
            return
        if self.prompt.is_open:
            self.prompt.action_close()
            return
        running = self.bench_pane.engine is not None or self.bench_pane.osd_bench is not None
        if running and time.monotonic() - self._quit_armed > 3:
            self._quit_armed = time.monotonic()
            self.notify("A benchmark is running: q again within 3 s stops it and quits.", severity="warning",
                        timeout=3)
            return
        self.exit()

    def confirm_operations(self, operations: list[ops.Operation], explain: RenderableType | str = "",
                           preview: Callable[[], RenderableType] | None = None,
                           on_done: Callable[[Outcome], None] | None = None,
                           undo: Callable[[Sequence[ops.Operation]], list[ops.Operation]] | None = None) -> None:
        """Show the commands, confirm, run them in the dialog; refresh once it closes.

        Operations that change CRUSH get an offline preview of the PGs they remap
        unless the caller brings its own.
        """
        if self.refuse_if_read_only("changing the cluster (" + "; ".join(op.cli for op in operations) + ")"):
            return

        def done(outcome: Outcome | None) -> None:
            self.last_outcome = outcome
            if outcome is not None and outcome.ran:
                self.action_refresh_now()
            if on_done is not None and outcome is not None:
                on_done(outcome)

        if preview is None:
            preview = preview_for(self.client, operations)
        self.push_screen(ConfirmScreen(self.client, operations, self.audit, explain=explain, preview=preview,
                                       undo=undo), done)

    def form_then_confirm(self, title: str, fields: Sequence[Field], build: Builder, help: str = "",
                          warn: Callable[[dict[str, str]], Sequence[str]] | None = None) -> None:
        """A checked form whose operations then go through the confirm dialog: every pane's edit path."""
        if self.refuse_if_read_only(title.lower()):
            return
        def done(result: list[ops.Operation] | None) -> None:
            if result:
                self.confirm_operations(result)

        self.push_screen(FormScreen(title, fields, build, help, warn), done)

    def action_help(self) -> None:
        from cephtui.ui.help import HelpScreen, tab_section  # Markdown and its parser: loaded on the first `?`

        if isinstance(self.screen, HelpScreen):
            return
        sections = {key: tab_section(key, title, [(self.get_key_display(b), b.action, b.description, b.tooltip)
                                                  for b in pane_bindings(pane)], self.read_only)
                    for (key, title), pane in zip(TABS, self.panes)}
        self.push_screen(HelpScreen(self.tabs.active, sections))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for i, (key, title) in enumerate(TABS, 1):
            yield SystemCommand(f"Go to {title}", f"Show the {title} tab (key {i})",
                                lambda key=key: self.action_show_tab(key))
        yield SystemCommand("Refresh now", "Poll the cluster immediately (key r)", self.action_refresh_now)
        yield SystemCommand("Jump to …", "A tab, osd.3, a PG id, a pool, a user or a host (key :)", self.action_jump)
        yield SystemCommand("Help: keys of this tab", "What every key of the tab shown does (key ?)",
                            self.action_help)
        if screen is not self.screen_stack[0]:
            return  # a dialog is open: the tabs' actions are for the main screen
        from cephtui.ui.help import ACTION_TEXT

        for (key, title), pane in zip(TABS, self.panes):
            for binding in pane_bindings(pane):
                what = ACTION_TEXT.get((key, binding.action)) or binding.tooltip or binding.description
                yield SystemCommand(f"{title}: {binding.description}",
                                    f"{what} (key {self.get_key_display(binding)} on the {title} tab)",
                                    lambda key=key, pane=pane, action=binding.action: self._pane_action(key, pane,
                                                                                                        action))

    def _pane_action(self, key: str, pane: Widget, action: str) -> None:
        """A tab's action from the palette: that tab is shown first, then the action runs as its key would
        (read-only refusals included)."""
        self.action_show_tab(key)
        self.call_after_refresh(self.run_action, action, pane)

    def export_screenshot(self, *, title: str | None = None, simplify: bool = False) -> str:
        # Every screenshot (the palette's "Save screenshot", scripts/screenshot.py) goes through
        # here: one taken while the reveal screen shows a key gets the mask, not the key.
        return redact(super().export_screenshot(title=title, simplify=simplify))

    def on_unmount(self) -> None:
        self.cluster_log.stop()
        gc.unfreeze()  # the app's objects become collectable again (tests run many apps in one process)
