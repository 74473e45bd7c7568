"""CephTUI: the app shell. It lays out the tabs of ui/tabs.py with the panes of ui/registry.py and wires the
keys, themes, help and command palette to them. Its parts are objects it owns, each with its own state: the
poller (ui/poller.py), the tabs' panes (ui/tab_panes.py), moving around (ui/navigation.py), the removal queue
(ui/removals.py) and the history (ui/history.py). Panes, screens and wizards see it only as the AppServices
of ui/services.py (`self.services` in a pane), never as this class.
"""
from __future__ import annotations

import gc
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from rich.console import RenderableType
from textual import events, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.theme import Theme
from textual.widget import Widget
from textual.widgets import DataTable, Input, Static, TabbedContent, TabPane, TextArea

from cephtui.ceph import ops
from cephtui.ceph.cluster import Cluster
from cephtui.ceph.history.model import INTERVAL
from cephtui.ceph.secrets import redact
from cephtui.ceph.snapshot.builder import SnapshotBuilder
from cephtui.ceph.snapshot.cluster_snapshot import ClusterSnapshot
from cephtui.ceph.snapshot.clusterlog import ClusterLog
from cephtui.ceph.workflows.maintenance import MaintenanceStore
from cephtui.ceph.workflows.store import WorkflowStore
from cephtui.config.model import BenchDefaults
from cephtui.ui import jump as jumps
from cephtui.ui import navigation as nav
from cephtui.ui import palette
from cephtui.ui.compat import KeysInOrder, node_bindings, parse_action
from cephtui.ui.dialog_types import Builder, Field, Outcome
from cephtui.ui.history import JUDGE_EVERY, FailSlowReady, History, HistoryReady
from cephtui.ui.messages import PollFailed, SnapshotReady
from cephtui.ui.navigation import Navigation
from cephtui.ui.pane import NOTHING_MORE, Pane, tab_of
from cephtui.ui.panes.bench import BenchPane
from cephtui.ui.panes.osds import OSDsPane
from cephtui.ui.poller import RECLAIM_EVERY, Poller
from cephtui.ui.readonly import WHY, mutating_action, refusal
from cephtui.ui.registry import PANES
from cephtui.ui.removals import RemovalQueue
from cephtui.ui.screens.confirm import ConfirmScreen
from cephtui.ui.screens.dialog import close_like_escape
from cephtui.ui.screens.wizards.form import FormScreen
from cephtui.ui.services import serve
from cephtui.ui.tab_panes import TabPanes
from cephtui.ui.tabs import NUMBER_KEYS, number_key
from cephtui.ui.tabs import TABS as REGISTRY
from cephtui.ui.themes import DEFAULT_THEME, display_path, load_all_themes, user_config_file
from cephtui.ui.widgets.footer import CephFooter
from cephtui.ui.widgets.preview_view import preview_for
from cephtui.ui.widgets.promptbar import PromptBar
from cephtui.ui.widgets.statusbar import StatusBar
from cephtui.ui.widgets.virtualtable import VirtualTable

log = logging.getLogger("cephtui")

__all__ = ["RECLAIM_EVERY", "TABS", "CephTUI", "pane_bindings"]

TABS = tuple((t.key, t.title) for t in REGISTRY)  # (key, title) in order: what tests and scripts iterate


def pane_bindings(pane: Widget) -> list[Binding]:
    """A pane's own key bindings, one per action (the palette and `?` list these)."""
    seen: dict[str, Binding] = {}
    for bindings in node_bindings(pane).values():
        for b in bindings:
            if b.action not in seen and b.action != "clear_filter":
                seen[b.action] = b
    return list(seen.values())


W = TypeVar("W", bound=Widget)


class CephTUI(KeysInOrder):
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
        Binding("left_square_bracket", "history_cursor(-1)", "Earlier", show=False,
                tooltip="Move the time cursor back: the Health and OSDs tabs show the cluster then"),
        Binding("right_square_bracket", "history_cursor(1)", "Later", show=False,
                tooltip="Move the time cursor forward, back to now at the end"),
        # A tab's own `w`/`t` (OSDs: reweight) comes first: these are the Health tab's, and any tab's without one.
        Binding("w", "history_window", "History window", show=False,
                tooltip="The history window: 15 min, 1 h, 24 h, 7 days (Health sparklines, OSD trends)"),
        Binding("t", "timeline", "Timeline", show=False,
                tooltip="Health checks raised and cleared, with the cluster log around each moment"),
        *(Binding(number_key(i), f"show_tab('{t.key}')", t.title, show=False)
          for i, t in enumerate(REGISTRY, 1) if i <= NUMBER_KEYS),
    ]


    def __init__(self, client: Cluster, refresh: float = 2.0, cluster: str = "ceph", osd_stop_cmd: str = "",
                 workflow_store: WorkflowStore | None = None, read_only: bool = False, theme: str | None = None,
                 bench_defaults: BenchDefaults | None = None, read_only_why: str = "",
                 config_file: str | None = None, history: bool = True,
                 prometheus: str = "") -> None:
        super().__init__()
        self.initial_theme = theme  # from the config file; None: the default theme
        self._theme_problems = self._load_themes()  # before any pane draws (see there)
        self.bench_defaults = bench_defaults  # the config file's [bench], or None
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
        self.maintenance_store = MaintenanceStore(self.workflow_store)  # the Maintenance tab's records
        self.client = client
        self.refresh_interval = refresh
        self.cluster_name = cluster
        self.cluster_log = ClusterLog(client)
        self.builder = SnapshotBuilder(client, log=self.cluster_log)
        self.audit = ops.AuditLog(entity=client.spec.name)
        self.last_outcome: Outcome | None = None
        # Made here, not queried later: panes use them from their own on_mount (before the app's), and
        # while a modal or the palette is up, queries see that screen instead.
        self.statusbar = StatusBar(self.cluster_name, id="statusbar")
        self.tabs = TabbedContent(initial=REGISTRY[0].key, id="tabs")
        self._narrow_labels = False  # the tabs' labels are the short ones (on_resize)
        panes = tuple(PANES[t.key](id=t.pane_id) for t in REGISTRY)
        self.tab_panes = TabPanes(self, self.tabs, panes,
                                  tuple(p for p, t in zip(panes, REGISTRY) if t.always_shown))
        self.poller = Poller(self, client, self.builder, self.cluster_log, self.statusbar, refresh,
                             wanted=self.tab_panes.wanted, lost=self._lost)
        self.nav = Navigation(self, self.tabs, self.tab_panes, self.keys_wait_for)
        self._removals = RemovalQueue(self, client, self.workflow_store, self.audit, self.statusbar,
                                      read_only=lambda: (self.read_only, self.read_only_why),
                                      osd_stop_cmd=lambda: self.osd_stop_cmd)
        self._quit_armed = 0.0  # monotonic time of a `q` that asked "a run is going: again to quit"
        # A replay (tests, demos) records nothing: only a real cluster's answers go into the history.
        self.history = History(self, client, snapshot=lambda: self.snapshot,
                               osds_shown=lambda: self.tabs.active == tab_of(self.pane(OSDsPane)),
                               attached=self._read_history, record=history and client.live, prometheus=prometheus)
        serve(self, self)  # what panes, screens and wizards see of this app (ui/services.py)

    # ------------------------------------------------------------ the parts' state, as widgets and tests read it
    @property
    def snapshot(self) -> ClusterSnapshot | None:
        return self.poller.snapshot

    @property
    def connected(self) -> bool | None:
        return self.poller.connected

    @property
    def panes(self) -> tuple[Pane, ...]:
        return self.tab_panes.panes

    @property
    def active_pane(self) -> Pane:
        return self.tab_panes.active

    @property
    def active_tab(self) -> str:
        return self.tabs.active

    @property
    def removals(self) -> RemovalQueue:
        return self._removals

    @property
    def prompt(self) -> PromptBar:
        return self.nav.prompt

    def pane(self, cls: type[W]) -> W:
        """The one pane of that class (the registry has one tab per pane class)."""
        return next(p for p in self.tab_panes.panes if isinstance(p, cls))

    # ------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield self.statusbar
        with self.tabs:
            for i, (tab, pane) in enumerate(zip(REGISTRY, self.panes), 1):
                with TabPane(tab.label(i), id=tab.key):
                    # Shown in every tab's body while the mon does not answer (TabPanes.set_stale).
                    yield Static("", classes="stale-banner")
                    yield pane
        yield PromptBar()
        yield CephFooter()

    def on_resize(self, event: events.Resize) -> None:
        """Under 100 columns the tabs take their short titles: all ten labels fit in 80."""
        narrow = event.size.width < self.HORIZONTAL_BREAKPOINTS[1][0]
        if narrow == self._narrow_labels:
            return
        self._narrow_labels = narrow
        for i, tab in enumerate(REGISTRY, 1):
            self.tabs.get_tab(tab.key).label = tab.label(i, narrow)

    def on_mount(self) -> None:
        self.statusbar.read_only = self.read_only
        self._setup_themes()
        self.poller.schedule(0)
        self.set_interval(0.5, self.poller.watchdog)
        self.set_interval(2.0, self._removals.tick)
        self.set_interval(600, self.poller.reclaim)
        self._removals.load(offer=True)  # then offers to resume an interrupted removal
        for note in self.startup_notes:  # e.g. this librados older than the cluster (cli/tui.py)
            self.notify(note, title="Releases", severity="warning", timeout=20)
        self.set_interval(10.0, self._removals.load)
        self.set_interval(1.0, self._removals.show_indicator)
        self.history.start()
        self.set_interval(INTERVAL, self._read_history)
        self.set_interval(JUDGE_EVERY, self.history.judge)

    # ------------------------------------------------------------ themes
    def _load_themes(self) -> list[str]:
        """Register cephtui's themes and the user's and pick the configured one; what to tell the user.

        Runs in __init__: panes draw their first texts when they mount, before the app's on_mount,
        and take their colours from the palette, which must be the chosen theme's by then.
        """
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
            palette.set_theme(chosen)
            # Set before compose, not in on_mount: a theme set once the widgets are mounted restyles every one
            # of them again (App.refresh_css): a third of the CPU of a start
            # (0.95 -> 0.63 CPU-s per start on the look capture, measured with cProfile over 10 starts).
            self.theme = wanted
        return problems

    def _setup_themes(self) -> None:
        """Say which theme files were skipped (the theme itself is set in __init__), follow later changes."""
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
        self.tab_panes.retheme(self.snapshot)
        self.notify(f"Theme {theme.name} for this session; to keep it, set theme = \"{theme.name}\" in "
                    f"{display_path(Path(self.config_file) if self.config_file else user_config_file())}",
                    timeout=8)

    # ------------------------------------------------------------ polling
    def on_snapshot_ready(self, message: SnapshotReady) -> None:
        snap = message.snapshot
        self.poller.arrived(snap)
        self.nav.names = jumps.names_from(snap, self.nav.names)  # for `:` completion
        self.tab_panes.set_stale("", snap)
        self.audit.cluster = snap.fsid
        self.tab_panes.show_snapshot(snap)
        self.poller.next_poll()

    def on_poll_failed(self, message: PollFailed) -> None:
        self.poller.failed(message.error)

    def _lost(self, why: str) -> None:
        """The monitors do not answer: every tab goes stale under a banner."""
        self.tab_panes.set_stale(why, self.snapshot)

    def pop_screen(self) -> Any:
        result = super().pop_screen()
        self.set_timer(1.0, self.poller.reclaim)  # after the dialog's own teardown
        return result

    # ------------------------------------------------------------ tabs
    def when_opened(self, pane: Widget, draw: Callable[[], None]) -> None:
        """A hidden pane has news of its own (not a snapshot's): `draw` runs when its tab opens."""
        if isinstance(pane, Pane):
            self.tab_panes.when_opened(pane, draw)

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        pane = self.tab_panes.opened(event.pane, self.snapshot)
        self.nav.tab_activated(pane)
        # What a tab fetches only while shown (its table): fill it now, not at the next tick. The keys typed
        # behind the key that opened it act on that data, so they wait for it (bounded by KEY_SETTLE_WAIT):
        # `:fs⏎m⌫2⏎` in one read found no file system yet, dropped the `m`, and the `2` opened the PGs tab.
        if pane is not None and pane.fetch() != NOTHING_MORE:
            self.keys_wait_for(self.poller.fetched(pane.fetch()))
            self.poller.poll_now()

    def show_tab(self, key: str) -> None:
        self.nav.show_tab(key)

    def action_show_tab(self, key: str) -> None:
        self.nav.show_tab(key)

    def bury(self, rows: list[object]) -> None:
        self.poller.bury(rows)

    # ------------------------------------------------------------ moving (ui/navigation.py)
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("jump", "search"):  # priority bindings: the main screen only, never over typing
            return len(self.screen_stack) == 1 and not isinstance(self.focused, (Input, TextArea))
        return True

    def action_jump(self) -> None:
        self.nav.open_jump()

    def action_search(self) -> None:
        self.nav.search()

    def on_prompt_bar_changed(self, message: PromptBar.Changed) -> None:
        self.nav.search_changed(message)

    def action_next_match(self, step: int) -> None:
        self.nav.next_match(step)

    def action_edge(self, where: int) -> None:
        self.nav.edge(where)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a DataTable (or a click on its highlighted row) is the pane's `enter`: the table's own
        enter binding would otherwise swallow it (the Pools tab's settings view never opened from its table)."""
        self.nav.open_row(event.data_table)

    def on_virtual_table_activated(self, event: VirtualTable.Activated) -> None:
        self.nav.open_row(event.table)  # a double click

    # ------------------------------------------------------------ actions
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

    def action_refresh_now(self) -> None:
        self.builder.expire()
        self.poller.poll_now()

    def refresh_now(self) -> None:
        self.action_refresh_now()

    def refuse_if_read_only(self, what: str) -> bool:
        """In --read-only mode say why `what` cannot be done and return True."""
        if self.read_only:
            self.notify(refusal(what, self.read_only_why), severity="warning", timeout=6)
        return self.read_only

    def on_prompt_bar_done(self, message: PromptBar.Done) -> None:
        if message.mode == "search":
            self.nav.searched(message.text, message.cancelled)
        elif message.cancelled:
            self.nav.focus_pane()
        else:
            self._jump(message.text)

    def _jump(self, text: str) -> None:
        snap = self.snapshot
        j = jumps.resolve(text, [p.name for p in snap.capacity.pools] if snap is not None else (),
                          self.nav.names.buckets)
        if j.error:
            self.notify(j.error, severity="warning", timeout=5)
            self.nav.focus_pane()
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
            self.nav.show_tab(j.tab)
            pane = self.tab_panes.active
            box = nav.filter_of(pane)
            if box is not None and (j.filter or box.value):
                box.value = j.filter  # the filter posts Applied: the pane filters its table
            if j.note:
                self.notify(j.note, timeout=6)
            self.call_after_refresh(self.nav.focus_pane)
            if j.reveal:
                self.nav.reveal(pane, j.reveal, time.monotonic() + 10)

    async def action_close_or_quit(self) -> None:
        """`q`: close what is on top (a dialog, the prompt); on the main screen, quit."""
        if len(self.screen_stack) > 1:
            await close_like_escape(self.screen)
            return
        if self.prompt.is_open:
            self.prompt.action_close()
            return
        bench = self.pane(BenchPane)
        running = bench.engine is not None or bench.osd_table.runner is not None
        if running and time.monotonic() - self._quit_armed > 3:
            self._quit_armed = time.monotonic()
            self.notify("A benchmark is running: q again within 3 s stops it and quits.", severity="warning",
                        timeout=3)
            return
        self._removals.quit(ask=True)  # asks while this cephtui drives a removal, and pauses it

    async def action_quit(self) -> None:
        """ctrl+q: quit at once, but a removal this cephtui drives is paused in the cluster's queue first."""
        self._removals.quit(ask=False)

    def confirm_operations(self, operations: list[ops.Operation], explain: RenderableType | str = "",
                           preview: Callable[[], RenderableType] | None = None,
                           undo: Callable[[Sequence[ops.Operation]], list[ops.Operation]] | None = None) -> None:
        """Show the commands, confirm, run them in the dialog; refresh once it closes.

        Operations that change CRUSH get an offline preview of the PGs they remap
        unless the caller brings its own. A flow that goes on afterwards awaits `ask_confirm` instead.
        """
        screen = self._confirm_screen(operations, explain, preview, undo)
        if screen is not None:
            self.push_screen(screen, self._confirmed)

    async def ask_confirm(self, operations: list[ops.Operation], explain: RenderableType | str = "",
                          preview: Callable[[], RenderableType] | None = None,
                          undo: Callable[[Sequence[ops.Operation]], list[ops.Operation]] | None = None,
                          before_run: Callable[[], str] | None = None) -> Outcome | None:
        """The confirm dialog as one step of a flow (await it from a worker): its outcome, None if refused.
        `before_run` runs on the dialog's thread once Run is pressed (ConfirmScreen)."""
        screen = self._confirm_screen(operations, explain, preview, undo)
        if screen is None:
            return None
        screen.before_run = before_run
        outcome = await self.push_screen_wait(screen)
        self._confirmed(outcome)
        return outcome

    def _confirm_screen(self, operations: list[ops.Operation], explain: RenderableType | str,
                        preview: Callable[[], RenderableType] | None,
                        undo: Callable[[Sequence[ops.Operation]], list[ops.Operation]] | None) -> ConfirmScreen | None:
        if self.refuse_if_read_only("changing the cluster (" + "; ".join(op.cli for op in operations) + ")"):
            return None
        if preview is None:
            preview = preview_for(self.client, operations)
        return ConfirmScreen(self.client, operations, self.audit, explain=explain, preview=preview, undo=undo)

    def _confirmed(self, outcome: Outcome | None) -> None:
        self.last_outcome = outcome
        if outcome is not None and outcome.ran:
            self.action_refresh_now()

    def form_then_confirm(self, title: str, fields: Sequence[Field], build: Builder, help: str = "",
                          warn: Callable[[dict[str, str]], Sequence[str]] | None = None) -> None:
        """A checked form whose operations then go through the confirm dialog: every pane's edit path."""
        if self.refuse_if_read_only(title.lower()):
            return
        self._form_then_confirm(FormScreen(title, fields, build, help, warn))

    @work(group="dialog-flow", description="form, then confirm")
    async def _form_then_confirm(self, form: FormScreen) -> None:
        operations = await self.push_screen_wait(form)
        if operations:
            await self.ask_confirm(operations)

    def action_help(self) -> None:
        from cephtui.ui.screens.help import HelpScreen, tab_section  # Markdown and its parser: loaded on the first `?`

        if isinstance(self.screen, HelpScreen):
            return
        sections = {tab.key: tab_section(tab, type(pane), [(self.get_key_display(b), b.action, b.description, b.tooltip)
                                               for b in pane_bindings(pane)], self.read_only)
                    for tab, pane in zip(REGISTRY, self.panes)}
        self.push_screen(HelpScreen(self.tabs.active, sections))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for i, tab in enumerate(REGISTRY, 1):
            yield SystemCommand(f"Go to {tab.title}", f"Show the {tab.title} tab (key {i})",
                                lambda key=tab.key: self.action_show_tab(key))
        yield SystemCommand("Refresh now", "Poll the cluster immediately (key r)", self.action_refresh_now)
        yield SystemCommand("Jump to …", "A tab, osd.3, a PG id, a pool, a user or a host (key :)", self.action_jump)
        yield SystemCommand("Help: keys of this tab", "What every key of the tab shown does (key ?)",
                            self.action_help)
        if screen is not self.screen_stack[0]:
            return  # a dialog is open: the tabs' actions are for the main screen
        for tab, pane in zip(REGISTRY, self.panes):
            for binding in pane_bindings(pane):
                what = pane.ACTION_HELP.get(binding.action) or binding.tooltip or binding.description
                yield SystemCommand(f"{tab.title}: {binding.description}",
                                    f"{what} (key {self.get_key_display(binding)} on the {tab.title} tab)",
                                    lambda key=tab.key, pane=pane, action=binding.action: self._pane_action(key, pane,
                                                                                                            action))

    def _pane_action(self, key: str, pane: Pane, action: str) -> None:
        """A tab's action from the palette: that tab is shown first, then the action runs as its key would
        (read-only refusals included)."""
        self.action_show_tab(key)
        self.call_after_refresh(self.run_action, action, pane)

    def export_screenshot(self, *, title: str | None = None, simplify: bool = False) -> str:
        # Every screenshot (the palette's "Save screenshot", scripts/screenshot.py) goes through
        # here: one taken while the reveal screen shows a key gets the mask, not the key.
        return redact(super().export_screenshot(title=title, simplify=simplify))

    # ------------------------------------------------------------ history
    def _read_history(self) -> None:
        if self.snapshot is not None:
            self.history.attach(self.snapshot.fsid)
        if self.tab_panes.history_shown():
            self.history.read()

    def on_history_ready(self, message: HistoryReady) -> None:
        self.history.done(message.view)
        try:
            self.tab_panes.show_history(message.view, self.history.window_name)
        except NoMatches:  # a read that ends while the app closes: its panes are being taken down
            pass

    def jump_to_osds(self, ids: tuple[int, ...]) -> None:
        """The OSDs tab sorted by latency, these OSDs marked: their latency now and its trend beside their peers'."""
        self.nav.show_tab("osds")
        pane = self.pane(OSDsPane)
        pane.marked = set(ids)
        pane.sort_mode = "latency"
        pane.refresh_rows()

    def on_fail_slow_ready(self, message: FailSlowReady) -> None:
        self.history.judged(message)
        try:
            self.tab_panes.show_failslow(message.report, message.note)
        except NoMatches:  # a ranking that ends while the app closes
            pass

    def action_history_cursor(self, steps: int) -> None:
        if self.snapshot is not None:
            self.history.attach(self.snapshot.fsid)
        if self.history.source is None:
            self.notify("no history yet: it is recorded while cephtui runs, or by `cephtui record`",
                        title="History", severity="warning")
            return
        self.history.move_cursor(steps)
        if self.history.cursor is None and steps > 0:
            self.notify("back to now", title="History", timeout=2)

    def action_history_window(self) -> None:
        self.history.next_window()
        self.notify(f"history window: {self.history.window_name}", title="History", timeout=2)

    def action_timeline(self) -> None:
        from cephtui.ui.screens.timeline import TimelineScreen

        if self.snapshot is not None:
            self.history.attach(self.snapshot.fsid)
        source = self.history.source
        if source is None:
            self.notify("no history yet: it is recorded while cephtui runs, or by `cephtui record`",
                        title="History", severity="warning")
            return
        self.push_screen(TimelineScreen(source, self.history.store))

    def on_unmount(self) -> None:
        self.history.stop()
        self.cluster_log.stop()
        gc.unfreeze()  # the app's objects become collectable again (tests run many apps in one process)
