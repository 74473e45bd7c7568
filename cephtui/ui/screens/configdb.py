"""The config database: every stored option (`config dump`), searchable, with what it is (`config help`);
what the mons and the active mgr really run where the database says otherwise (ceph.conf or an override
shadowing it); any daemon's non-default values with their sources; set and rm through the confirmation."""
from __future__ import annotations

from functools import partial
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Input, Static

from cephtui.ceph.doctor.configdb import (
    ConfigEntry,
    Shadow,
    help_lines,
    not_default,
    parse_dump,
    read_running,
    shadowed,
)
from cephtui.ceph.errors import CephError
from cephtui.ceph.ops.health import config_rm, config_set
from cephtui.ui import palette
from cephtui.ui.compat import DataTable
from cephtui.ui.dialog_flows import in_thread
from cephtui.ui.dialog_types import Field
from cephtui.ui.screens.reading import ReadingDialog
from cephtui.ui.screens.wizards.form import FormScreen
from cephtui.ui.services import services_of
from cephtui.ui.widgets.tables import sync_table

MAX_ROWS = 2000  # a config database this big is a script's doing; the filter finds the rest


def matches(e: ConfigEntry, text: str) -> bool:
    text = text.lower()
    return text in e.name.lower() or text in e.who.lower() or text in e.value.lower()


class ConfigScreen(ReadingDialog):
    BINDINGS = [
        Binding("escape", "dismiss", "Close"),
        Binding("s", "set", "Set"),
        Binding("x", "remove", "Remove"),
        Binding("d", "daemon", "A daemon's values"),
        Binding("slash", "filter", "Filter"),
        Binding("r", "reload", "Reload"),
    ]
    DEFAULT_CSS = """
    ConfigScreen > Vertical { width: 140; height: 95%; }
    ConfigScreen #config-table { height: 1fr; }
    ConfigScreen #config-detail-box { height: 14; border-top: solid $primary; }
    """

    def __init__(self, search: str = "") -> None:
        super().__init__()
        self.search = search  # the filter it opens with (an option the Doctor's check names)
        self.entries: tuple[ConfigEntry, ...] = ()
        self.shadows: tuple[Shadow, ...] = ()
        self.shown: list[ConfigEntry] = []
        self.help: dict[str, list[str]] = {}  # option -> `config help` lines, fetched once each
        self.daemon_view: RenderableType | None = None

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = ("Config database (/ filter · s set · x remove · d a daemon's values · escape closes)")
            yield Static(Text("Loading config dump…", style="italic"), id="config-summary")
            yield Input(self.search, placeholder="filter: option, section or value", id="config-filter")
            table: DataTable[Any] = DataTable(id="config-table", cursor_type="row", zebra_stripes=True)
            for label, width in (("who", 22), ("option", 44), ("value", 40), ("runtime", 7)):
                table.add_column(label, width=width)
            yield table
            with VerticalScroll(id="config-detail-box"):
                yield Static("", id="config-detail")

    def _watched(self) -> list[str]:
        """The daemons whose running values are checked against the database: the mons in quorum and the
        active mgr (a handful of small mgr answers, never every OSD)."""
        snap = services_of(self).snapshot
        if snap is None:
            return []
        return [f"mon.{m}" for m in snap.mons.quorum] + ([f"mgr.{snap.mgr.active}"] if snap.mgr.active else [])

    async def load(self) -> None:
        summary = self.query_one("#config-summary", Static)
        try:
            self.entries = parse_dump(await in_thread(self, lambda: self.client.mon("config dump"), "config dump"))
        except CephError as e:
            summary.update(Text(f"config dump: {e.message}", style=palette.style("warn")))
            return
        shadows: list[Shadow] = []
        unread: list[str] = []
        for daemon in self._watched():
            try:
                running = await in_thread(self, partial(read_running, self.client, daemon), f"config show {daemon}")
            except CephError as e:
                unread.append(f"{daemon}: {e.message}")
                continue
            shadows.extend(shadowed(daemon, running))
        self.shadows = tuple(shadows)
        parts: list[RenderableType] = [Text(f"{len(self.entries)} options stored; checked what "
                                            f"{', '.join(self._watched()) or 'no daemon'} run.")]
        for s in self.shadows:
            parts.append(Text(f"⚠ {s.text}. Fix: {s.remedy}", style=palette.style("bold warn")))
        for u in unread:
            parts.append(Text(f"not checked: {u}", style=palette.style("muted")))
        summary.update(Group(*parts))
        self._fill()

    @on(Input.Changed, "#config-filter")
    def _filtered(self) -> None:
        self._fill()

    def _fill(self) -> None:
        text = self.query_one("#config-filter", Input).value.strip()
        self.shown = [e for e in self.entries if not text or matches(e, text)][:MAX_ROWS]
        shadowed_names = {s.name for s in self.shadows}
        table = self.query_one("#config-table", DataTable)
        table.clear()
        sync_table(table, {i: (e.who, Text(e.name, style=palette.style("bold warn")) if e.name in shadowed_names
                               else e.name, e.value[:60], "yes" if e.runtime else "restart")
                           for i, e in enumerate(self.shown)})
        self.show_detail()

    def selected(self) -> ConfigEntry | None:
        row = self.query_one("#config-table", DataTable).cursor_row
        return self.shown[row] if 0 <= row < len(self.shown) else None

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """Before the base's handler (which shows the detail): moving in the table goes back to the options."""
        if event.data_table.has_focus:
            self.daemon_view = None

    async def detail(self) -> None:
        box = self.query_one("#config-detail", Static)
        if self.daemon_view is not None:
            box.update(self.daemon_view)
            return
        e = self.selected()
        if e is None:
            box.update(Text("No option stored matches." if self.entries else ""))
            return
        if e.name not in self.help:
            try:
                self.help[e.name] = help_lines(await in_thread(self, lambda: self.client.mon("config help", key=e.name),
                                                               "config help"))
            except CephError as err:
                self.help[e.name] = [f"config help {e.name}: {err.message}"]
        if self.selected() is not e:
            return
        lines = [Text(f"{e.who}: {e.name} = {e.value}", style="bold"), Text("\n".join(self.help[e.name]))]
        lines.extend(Text(f"⚠ {s.text}. Fix: {s.remedy}", style=palette.style("bold warn"))
                     for s in self.shadows if s.name == e.name)
        box.update(Group(*lines))

    def action_filter(self) -> None:
        self.daemon_view = None
        self.query_one("#config-filter", Input).focus()

    def _explain(self, name: str) -> str:
        warn = [f"{s.text}: this change will not reach it. {s.remedy}." for s in self.shadows if s.name == name]
        return "\n".join(self.help.get(name, [])[:4] + warn)

    @work(group="config-flow", exclusive=True, exit_on_error=False)
    async def action_set(self) -> None:
        e = self.selected()
        fields = [Field("who", "Section (global, mon, osd, osd.3, osd/class:ssd)", e.who if e else "global"),
                  Field("name", "Option", e.name if e else ""), Field("value", "Value", e.value if e else "")]
        form = FormScreen("Set a config option (ceph config set)", fields,
                          lambda v: [config_set(v["who"], v["name"], v["value"])],
                          help="Stored in the mons' config database; daemons read it at once unless the option is "
                               "read at startup only, or their ceph.conf or an override sets it.")
        operations = await self.app.push_screen_wait(form)
        if operations:
            name = form.submitted_values.get("name", "")
            await services_of(self).ask_confirm(operations, explain=self._explain(name))
            self.action_reload()

    def action_remove(self) -> None:
        e = self.selected()
        if e is None:
            self.app.notify("No option selected.", severity="warning")
            return
        self.confirm_then_reload([config_rm(e.who, e.name)], explain=self._explain(e.name))

    @work(group="config-flow", exclusive=True, exit_on_error=False)
    async def action_daemon(self) -> None:
        form = FormScreen("A daemon's running values (ceph config show)", [Field("daemon", "Daemon", "mon.a" if not
                          self._watched() else self._watched()[0], placeholder="mon.a, mgr.x, osd.3")], _no_ops)
        if await self.app.push_screen_wait(form) is None:
            return
        daemon = form.submitted_values.get("daemon", "").strip()
        try:
            running = await in_thread(self, partial(read_running, self.client, daemon), f"config show {daemon}")
        except CephError as e:
            self.daemon_view = Text(f"config show {daemon}: {e.message}", style=palette.style("warn"))
            self.show_detail()
            return
        rows = [Text(f"{daemon}: {len(not_default(running))} values not at their default (source: where from)",
                     style="bold")]
        for v in not_default(running):
            rows.append(Text(f"  {v.name} = {v.value}   [{v.source}]"
                             + "".join(f" (beats {s} {val!r})" for s, val in v.overrides)))
        rows.extend(Text(f"⚠ {s.text}. Fix: {s.remedy}", style=palette.style("bold warn"))
                    for s in shadowed(daemon, running))
        self.daemon_view = Group(*rows)
        self.show_detail()


def _no_ops(values: dict[str, str]) -> list[Any]:
    """The daemon form changes nothing: a valid name closes it with no operations."""
    daemon = values.get("daemon", "").strip()
    if not daemon or " " in daemon or "." not in daemon:
        raise ValueError("a daemon name: type.id, like mon.a, mgr.x or osd.3")
    return []
