"""Maintenance: host / OSD maintenance mode and the cluster flags manager.

Entering maintenance (`e`) checks `osd ok-to-stop` for the chosen OSDs, sets
`noout` on the host (`osd set-group noout HOST`) or on the chosen OSDs, and the
extra cluster flags asked for, but only those not already set: the record, kept
in the cluster (any cephtui sees and can end it), says which ones this maintenance
set, and exiting (`x`) unsets exactly those. The record is read and written on
thread workers: the UI thread never waits on the mons. The flags table lists every cluster flag with what it does and
every host / class / OSD scoped flag; `s` / `u` / `enter` set, unset, toggle.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from cephtui.ceph import ops
from cephtui.ceph.errors import CephError
from cephtui.ceph.snapshot.cluster_snapshot import ClusterSnapshot
from cephtui.ceph.snapshot.models import FlagState
from cephtui.ceph.workflows import flag_origin as fo
from cephtui.ceph.workflows import maintenance as mt
from cephtui.ceph.workflows import maintenance_banner as mbanner
from cephtui.ceph.workflows import maintenance_plan as mplan
from cephtui.ceph.workflows.store import WorkflowConflict, WorkflowStore
from cephtui.ui import palette
from cephtui.ui.dialog_flows import flow_running, in_thread
from cephtui.ui.dialog_types import Field
from cephtui.ui.holds import refresh_holds, refusal
from cephtui.ui.pane import Pane
from cephtui.ui.panes.maintenance_flags import FlagRow, flag_rows
from cephtui.ui.screens.maintenance_preflight import PreflightScreen, refused_text
from cephtui.ui.screens.wizards.form import FormScreen
from cephtui.ui.widgets.inplace import update_in_place
from cephtui.ui.widgets.virtualtable import VirtualTable

log = logging.getLogger("cephtui")

RETRACE_YOUNG = 120.0  # s: a flag this recent whose setter is unknown is looked up again …
RETRACE_EVERY = 1.0  # … at most this often: a running cephtui's own reads push ~5 entries a second through the
# mons' 50-entry audit tail, so a setter not found at once is gone within seconds
RELOAD_EVERY = 10.0  # s between two reads of the cluster's maintenance records (the removal queue's pace)
MAINT_COLUMNS = (("target", 26), ("state", 9), ("since", 12), ("by", 18), ("set by it (exit unsets)", 40),
                 ("already set by someone else", 36))
HELP_WIDTH = 74  # the "what it does" column; the highlighted flag's whole text is under the table
FLAG_COLUMNS = (("flag", 13), ("scope", 12), ("state", 5), ("since", 12), ("set by", 30), ("what it does", HELP_WIDTH))


def cut_at_word(text: str, width: int) -> str:
    """`text` in `width` columns, ended at a word with … (never mid-word) when it is longer."""
    if len(text) <= width:
        return text
    head = text[:width - 1]
    cut = head.rsplit(" ", 1)[0] if " " in head else head
    return cut.rstrip(" ,:;(") + "…"
# Below 100 columns: what was set, and by whom, first; the rest is a left/right scroll away.
MAINT_ORDER_NARROW = (0, 1, 4, 2, 3, 5)
FLAG_ORDER_NARROW = (0, 2, 4, 5, 1, 3)
DANGER = {"pause", "nodown", "noup", "norecover", "nobackfill", "noin"}


class MaintenancePane(Pane):
    HELP = "While maintenance or a risky flag is on, the header shows it and since when."
    ACTION_HELP = {
        "enter_maintenance": ("enter maintenance for a host or OSDs (ok-to-stop checked; noout on that host only, "
                              "plus the flags you pick)"),
        "exit_maintenance": "exit maintenance (unsets only what it set)",
        "toggle_flag": "toggle the cluster flag under the cursor",
    }
    # What each key would change: dimmed and refused in --read-only mode (see ui/readonly.py).
    MUTATING = {
        "enter_maintenance": "entering maintenance",
        "exit_maintenance": "exiting maintenance",
        "set_flag": "setting a cluster flag",
        "unset_flag": "unsetting a cluster flag",
        "toggle_flag": "toggling a cluster flag",
    }
    BINDINGS = [
        Binding("e", "enter_maintenance", "Enter maintenance"),
        Binding("x", "exit_maintenance", "Exit maintenance"),
        Binding("s", "set_flag", "Set flag"),
        Binding("u", "unset_flag", "Unset flag"),
        Binding("enter", "toggle_flag", "Toggle flag", show=False),
    ]

    def __init__(self, **kw: object) -> None:
        super().__init__(**kw)  # type: ignore[arg-type]
        self.store = mt.MaintenanceStore(WorkflowStore())  # the app's own (in the cluster) from on_mount
        self._loading = False
        self.origins: dict[mt.FlagKey, fo.FlagOrigin] = {}  # who set each flag set now, and when
        self._tracing = False
        self._traced_at = 0.0
        self._osdmaps: fo.OsdmapHistory | None = None
        self.fsid: str | None = None
        self.flags: tuple[FlagState, ...] = ()

    def compose(self) -> ComposeResult:
        yield Static(id="maint-summary")
        with Vertical(id="maint-active-box", classes="box"):
            yield VirtualTable(MAINT_COLUMNS, self._maint_cells, key=lambda m: m.id, id="maint-table")
        with Vertical(id="maint-flags-box", classes="box"):
            yield VirtualTable(FLAG_COLUMNS, self._flag_cells, key=lambda r: r.key, id="maint-flags")
            yield Static(id="maint-flag-help")
        yield Static(id="maint-howto", classes="box")

    def on_mount(self) -> None:
        self.query_one("#maint-active-box").border_title = "Maintenance in progress (e enter · x exit)"
        self.store = self.services.maintenance_store  # the app's: the removal forms read it too (ui/holds.py)
        self.query_one("#maint-active-box").border_subtitle = "kept in the cluster (config-key)"
        self.query_one("#maint-flags-box").border_title = "Flags (s set · u unset · enter toggle)"
        self.query_one("#maint-howto").border_title = "On the host"
        self.watch(self.mtable, "cursor", lambda _=None: self._show_howto(), init=False)
        self.watch(self.ftable, "cursor", lambda _=None: self._show_flag_help(), init=False)
        self._refresh()
        self.reload()
        # Colleagues' maintenances reach the header on every tab, like the removal queue.
        self.set_interval(RELOAD_EVERY, self.reload)

    @property
    def mtable(self) -> VirtualTable[mt.Maintenance]:
        return self.query_one("#maint-table", VirtualTable)

    @property
    def ftable(self) -> VirtualTable[FlagRow]:
        return self.query_one("#maint-flags", VirtualTable)

    def on_resize(self, event: events.Resize) -> None:
        narrow = self.app.size.width < 100
        for table, columns, order in ((self.mtable, MAINT_COLUMNS, MAINT_ORDER_NARROW),
                                      (self.ftable, FLAG_COLUMNS, FLAG_ORDER_NARROW)):
            table.set_columns([columns[i] for i in order] if narrow else columns, order if narrow else None)

    def focus_table(self) -> None:
        self.reload()  # another cephtui may have entered or ended a maintenance meanwhile
        (self.mtable if self.mtable.row_count else self.ftable).focus()

    # ------------------------------------------------------------ data
    def active(self) -> list[mt.Maintenance]:
        return self.store.active(self.fsid)

    def show(self, snap: ClusterSnapshot) -> None:
        changed = snap.flags != self.flags or snap.fsid != self.fsid
        self.fsid, self.flags = snap.fsid, snap.flags
        self._trace_origins()
        if changed:
            self._refresh()
        else:
            self._publish()

    # ------------------------------------------------------------ who set each flag, and when
    def _trace_origins(self) -> None:
        """Look up the setter of each flag not yet traced, off the UI thread. One whose setter is unknown and
        that was set in the last RETRACE_YOUNG s is looked up again (every RETRACE_EVERY s): the mons' audit
        entry of a command can reach `log last` a moment after the flag shows."""
        keys = {(f.flag, f.scope) for f in mt.fold_pause(self.flags)}
        keys |= {(f.flag, "") for f in self.flags if not f.scope and f.flag in mt.PAUSE_PARTS}  # a lone half
        gone = set(self.origins) - keys
        for k in gone:
            del self.origins[k]
        now = time.time()
        new = [k for k in keys if k not in self.origins]
        young = [k for k, o in self.origins.items() if not o.who and o.since is not None
                 and now - o.since < RETRACE_YOUNG and now - self._traced_at >= RETRACE_EVERY]
        if gone and not new:
            self._refresh()
        if (new or young) and not self._tracing and self.fsid:
            self._tracing = True
            self._traced_at = now
            self._trace_worker(sorted(new + young))

    @work(thread=True, exit_on_error=False, group="maint-origins", description="who set the flags")
    def _trace_worker(self, keys: list[mt.FlagKey]) -> None:
        found: dict[mt.FlagKey, fo.FlagOrigin] = {}
        try:
            if self._osdmaps is None:
                self._osdmaps = fo.OsdmapHistory(self.services.client)
            found = fo.origins(self.services.client, keys, self.services.audit.path, self.fsid or "", self._osdmaps)
        except Exception:  # a bug here must not stop the flags table
            log.exception("looking up who set the flags failed")
        finally:
            self._tracing = False
        self.app.call_from_thread(self._traced, found)

    def _traced(self, found: dict[mt.FlagKey, fo.FlagOrigin]) -> None:
        now_set = {(f.flag, f.scope) for f in mt.fold_pause(self.flags)} | {(f.flag, "") for f in self.flags}
        self.origins.update({k: v for k, v in found.items() if k in now_set})
        self._refresh()

    def retheme(self) -> None:
        self._refresh()  # show() redraws only when the flags change: the summary and how-to in the new colours

    def reload(self) -> None:
        """Read the records from the cluster again (another cephtui may have entered or ended one), off the
        UI thread; one read at a time."""
        if not self._loading:
            self._loading = True
            self._load_worker()

    @work(thread=True, exit_on_error=False, group="maint-load", description="read the maintenance records")
    def _load_worker(self) -> None:
        try:
            self.store.load()
        except Exception:  # a bug here must not stop the banner for good
            log.exception("reading the maintenance records failed")
        finally:
            self._loading = False
        self.app.call_from_thread(self._refresh)

    async def _save(self, m: mt.Maintenance) -> bool:
        """Write the record (cache, then the cluster) on a thread; False (and said why) when it was not kept."""
        try:
            await in_thread(self, lambda: self.store.put(m), "save the maintenance record")
        except WorkflowConflict as e:
            self.app.notify(f"Not started: {e}", title="Maintenance", severity="error", timeout=20)
            return False
        except OSError as e:
            self.app.notify(f"Could not write the maintenance record: {e}", severity="error", timeout=20)
            return False
        finally:
            self._refresh()
        return True

    def _publish(self) -> None:
        self.services.statusbar.set_maintenances(tuple(self.active()))
        self.services.statusbar.set_flag_origins(dict(self.origins))

    def _refresh(self) -> None:
        active = self.active()
        self.mtable.set_rows(active)
        self.ftable.set_rows(flag_rows(self.flags, active, self.origins))
        n_set = len(self.flags)
        parts = [f"[b]{len(active)}[/] maintenance{'s' if len(active) != 1 else ''} in progress",
                 f"[b]{n_set}[/] flag{'s' if n_set != 1 else ''} set" if n_set else "no flags set"]
        if self.store.error:
            parts.append(palette.markup("bold err", str(self.store.error)))
        if self.store.problem:
            parts.append(palette.markup("bold warn", str(self.store.problem)))
        parts.append("e enter maintenance · x exit · s/u set/unset a flag")
        update_in_place(self.query_one("#maint-summary", Static), " · ".join(parts))
        self._show_howto()
        self._show_flag_help()
        self._publish()

    # ------------------------------------------------------------ rendering
    def _maint_cells(self, m: mt.Maintenance) -> tuple[tuple[str, str], ...]:
        s = palette.style
        style = s("bold warn" if m.state == "active" else "bold err")
        return ((m.target.label, "bold"), (m.state, style), (mbanner.since_text(m.started), ""),
                (m.starter, s("muted")),
                (", ".join(mt.flag_label(k) for k in m.owned) or "-", s("info")),
                (", ".join(mt.flag_label(k) for k in m.kept) or "-", s("muted")))

    @staticmethod
    def _flag_help(r: FlagRow) -> str:
        help_ = mt.PAUSE_PARTIAL.get(r.partial) or mt.FLAG_HELP.get(r.flag, "")
        if r.scope:
            return f"only for {r.scope}: " + help_
        return ("⚠ " + help_) if r.flag in ops.DANGEROUS_FLAGS else help_

    def _show_flag_help(self) -> None:
        """The highlighted flag's whole description under the table (its cell ends at a word, with …)."""
        r = self.selected_flag()
        text = Text(f"{r.flag}: ", style="bold") + Text(self._flag_help(r)) if r is not None else Text("")
        update_in_place(self.query_one("#maint-flag-help", Static), text)

    def _flag_cells(self, r: FlagRow) -> tuple[tuple[str, str], ...]:
        help_ = cut_at_word(self._flag_help(r), HELP_WIDTH)
        s = palette.style
        on = r.is_set or bool(r.partial)
        state_style = s(("bold err" if r.flag in DANGER else "bold warn") if on else "muted")
        since = r.when_text()
        owner = r.owner or ((r.origin.who_text() if r.origin is not None else "…") if on else "")
        state = "set" if r.is_set else ({"pauserd": "reads", "pausewr": "writes"}.get(r.partial) or "-")
        return ((r.flag, "bold" if on else ""), (r.scope or "cluster", s("" if r.scope else "muted")),
                (state, state_style), (since, ""), (owner, s("info" if r.owner else "muted")),
                (help_, s("" if on else "muted")))

    def _show_howto(self) -> None:
        howto = self.query_one("#maint-howto", Static)
        m = self.selected_maintenance()
        if m is None:
            update_in_place(howto, Text(
                "No maintenance in progress. e: put a host (or some OSDs) into maintenance: ok-to-stop is checked, "
                "noout is set on just that host (not cluster-wide) plus the flags you choose, and the commands to "
                "stop and start its OSDs are shown here. x later unsets exactly what was set.",
                style=palette.style("muted")))
            return
        t = Text()
        t.append(f"{m.target.label}: maintenance {m.state} since {mbanner.since_text(m.started)} by {m.starter}\n",
                 style="bold")
        for line in mplan.instructions(m.target):
            cmd = line.startswith("  ")
            t.append(line + "\n", style=palette.style("bold info") if cmd else "")
        if m.steps:
            last = m.steps[-1]
            t.append(f"last step: {mbanner.since_text(last.time)} {last.what}",
                     style=palette.style("muted" if last.ok else "err"))
        update_in_place(howto, t)

    def selected_maintenance(self) -> mt.Maintenance | None:
        vt = self.mtable
        return vt.rows[vt.cursor] if 0 <= vt.cursor < vt.row_count else None

    def selected_flag(self) -> FlagRow | None:
        vt = self.ftable
        return vt.rows[vt.cursor] if 0 <= vt.cursor < vt.row_count else None

    # ------------------------------------------------------------ flags manager
    def action_set_flag(self) -> None:
        self._flag_action(True)

    def action_unset_flag(self) -> None:
        self._flag_action(False)

    def action_toggle_flag(self) -> None:
        if not self.ftable.has_focus:  # enter on the maintenance table must not flip a flag out of sight
            return
        row = self.selected_flag()
        if row is not None:
            self._flag_action(not (row.is_set or bool(row.partial)))

    def _flag_action(self, on: bool) -> None:
        row = self.selected_flag()
        if row is None:
            return
        if row.is_set == on and not (row.partial and not on):  # a partial pause is unset with `unset pause`
            self.app.notify(f"{mt.flag_label(row.key)} is already {'set' if on else 'unset'}.")
            return
        try:
            if row.scope:
                if on:
                    raise ValueError("scoped flags are set through maintenance (e) or the OSDs tab (f)")
                op = ops.group_flag_set(row.flag, [mt.who_of(row.scope)], False)
            else:
                op = ops.flag_set(row.flag, on)
        except ValueError as e:
            self.app.notify(str(e), severity="error")
            return
        # A dangerous flag's Impact line already says what it does: not twice.
        explain = "" if op.effect else f"{row.flag}: {mt.FLAG_HELP.get(row.flag, '')}."
        if row.partial:
            explain += f"\nNow {mt.PAUSE_PARTIAL[row.partial]}."
        if row.maintenance and not on:
            explain += (f"\nSet by {row.owner}: exiting that maintenance would unset it anyway; unset now, the "
                        "maintenance exit will find it already gone.")
        elif (row.is_set or row.partial) and not on:
            found = row.origin.describe() if row.origin is not None else "who set it is still being looked up"
            explain += f"\nNot set by a cephtui maintenance: {found}. Check they are done with it."
        if on and row.flag in DANGER:
            explain += "\nDo not leave it set unattended: u on this row unsets it."
        explain = explain.strip()
        self.services.confirm_operations([op], explain=explain)

    # ------------------------------------------------------------ enter
    def action_enter_maintenance(self) -> None:
        if flow_running(self, "maint"):
            self.app.notify("Still asking the cluster…")
            return
        self._enter()

    async def _read_maps(self) -> tuple[Any, Any] | None:
        """`osd tree` and `osd dump`, off the UI thread; None (and said why) when the mons do not answer."""
        client = self.services.client
        try:
            return await in_thread(self, lambda: (client.mon("osd tree"), client.mon("osd dump")),
                                   "fetch osd tree and osd dump", form_follows=True)
        except Exception as e:
            self.app.notify("Could not read the OSD map: " + (e.message if isinstance(e, CephError) else repr(e)),
                            severity="error", timeout=10)
            return None

    @work(group="maint", description="enter maintenance")
    async def _enter(self) -> None:
        """Maps, the form, ok-to-stop (and the operator's choice if it says no), then the confirm dialog."""
        maps = await self._read_maps()
        if maps is None:
            return
        tree, dump = maps
        hosts, now_set = mt.hosts_from_osd_tree(tree), mt.flags_from_osd_dump(dump)
        fsid = str(dump.get("fsid") or self.fsid or "")
        await refresh_holds(self)
        self._refresh()

        def plan(v: dict[str, str]) -> tuple[mt.Maintenance, list[ops.Operation]]:
            target = mt.parse_target(v["target"], hosts)
            extra = mt.parse_extra_flags(v["flags"])
            # Said as the OSDs are typed, before anything is asked: which workflow holds them, by whom, since when.
            why = refusal(self, list(target.osds))
            if why:
                raise ValueError(why)
            m, operations = mplan.plan_enter(target, extra, now_set, fsid)
            if not operations:
                raise ValueError("everything asked for is already set by someone else ("
                                 + ", ".join(mt.flag_label(k) for k in m.kept) + "): nothing to set or restore")
            return m, operations

        def warn(v: dict[str, str]) -> list[str]:  # called only once plan(v) has passed
            m = plan(v)[0]
            notes = ["already set by someone else, left alone now and at exit: "
                     + ", ".join(mt.flag_label(k) for k in m.kept)] if m.kept else []
            return notes + ["checked first (changes nothing): ceph osd ok-to-stop "
                            + " ".join(map(str, m.target.osds))]

        hosts_text = ", ".join(f"{h} ({len(ids)} OSDs)" for h, ids in sorted(hosts.items())[:6])
        fields = [Field("target", "Host, or OSD ids (3 4 / osd.3,osd.4)", next(iter(sorted(hosts)), "")),
                  Field("flags", f"Also set cluster-wide ({' '.join(mt.EXTRA_FLAGS)}, or none)",
                        " ".join(mt.DEFAULT_EXTRA))]
        help_ = (f"Hosts: {hosts_text or 'none found'}. noout is set only on the chosen host or OSDs, so the rest "
                 "of the cluster still heals. Flags already set by someone else are not touched, now or at exit.")
        form = FormScreen("Enter maintenance", fields, lambda v: plan(v)[1], help=help_, warn=warn)
        if not await self.app.push_screen_wait(form):
            return
        m, operations = plan(form.submitted_values)
        ok, text = await in_thread(self, lambda: self._ok_to_stop(m.target.osds), "osd ok-to-stop")
        if ok:
            preflight = Text(f"✔ {text}", style=palette.style("ok"))
        elif await self.app.push_screen_wait(PreflightScreen(f"ok-to-stop says no for {m.target.label}",
                                                             refused_text(m, text))):
            preflight = Text(f"✖ ok-to-stop refused: {text}\nContinuing by your choice: stopping these OSDs now "
                             "makes PGs unavailable.", style=palette.style("bold err"))
        else:
            return
        # Written once Run is pressed, before any command: a cephtui killed half-way still knows what it may have
        # set, and the cluster's queues refuse it there if a removal (anyone's) took one of its OSDs meanwhile.
        m = m.log("enter planned: " + "; ".join(op.cli for op in operations))
        written: list[bool] = []
        explain = Text()
        explain.append_text(preflight)
        explain.append("\n" + mplan.enter_explanation(m))
        explain.append("\nThen stop the daemons on the host (the Maintenance tab shows how).",
                       style=palette.style("muted"))
        outcome = await self.services.ask_confirm(operations, explain=explain,
                                                  before_run=self._record_first(m, written))
        if outcome is None:
            return
        entered = mplan.finish_enter(m, outcome.results, outcome.ran)
        if entered is None:
            if not written:  # cancelled (or refused) before the record was written: nothing to take back
                return
            try:
                await in_thread(self, lambda: self.store.drop(m.id), "drop the maintenance record")
            except OSError as e:
                self.app.notify(f"Could not remove the maintenance record: {e}", severity="error")
            self._refresh()
            return
        if await self._save(entered):
            self._select(entered.id)
            self.app.notify(f"{entered.target.label} is in maintenance: stop its OSDs now (see the Maintenance "
                            "tab), and press x here when they are back up.", timeout=10)

    def _record_first(self, m: mt.Maintenance, written: list[bool]) -> Callable[[], str]:
        """The confirm dialog's step before its commands (on its thread): the record into the store; why not, or
        ''. `written` gets an entry once it is."""
        def write() -> str:
            try:
                self.store.put(m)
            except WorkflowConflict as e:
                return f"Not started: {e}"
            except OSError as e:
                return f"the maintenance record could not be written ({e})"
            written.append(True)
            self.app.call_from_thread(self._refresh)
            return ""
        return write

    def _ok_to_stop(self, osds: Sequence[int]) -> tuple[bool, str]:
        """(ok, what the mgr said); never raises: a failed question is a no (runs on a thread)."""
        client = self.services.client
        try:
            return True, mplan.ok_to_stop_summary(client.mgr("osd ok-to-stop", ids=[str(i) for i in osds]))
        except CephError as e:
            return False, f"{e.message} [errno {e.errno}]"
        except Exception as e:
            return False, f"could not ask: {e!r}"

    def _select(self, mid: str) -> None:
        rows = self.mtable.rows
        i = next((i for i, r in enumerate(rows) if r.id == mid), None)
        if i is not None:
            self.mtable.cursor = i
        self._show_howto()

    # ------------------------------------------------------------ exit
    def action_exit_maintenance(self) -> None:
        m = self.selected_maintenance()
        if m is None:
            self.app.notify("No maintenance in progress (e enters one).", severity="warning")
            return
        if flow_running(self, "maint"):
            self.app.notify("Still asking the cluster…")
            return
        self._exit(m.id, m.target.osds)

    @work(group="maint", description="exit maintenance")
    async def _exit(self, mid: str, osds: tuple[int, ...]) -> None:
        """Maps, then the confirm dialog for exactly what this maintenance set (the state file says what)."""
        maps = await self._read_maps()
        if maps is None:
            return
        tree, dump = maps
        m = self.store.get(mid)
        if m is None or not m.active:
            return
        plan = mplan.plan_exit(m, mt.flags_from_osd_dump(dump), self.store.active(m.fsid))
        if not plan.operations:
            await self._finish_exit(m, plan, [])
            self.app.notify(f"{m.target.label}: nothing left to unset; maintenance ended.\n"
                            + plan.explanation(m), timeout=10)
            return
        explain = Text(plan.explanation(m))
        down = mt.osds_down(tree, osds)
        if down:
            names = ", ".join(f"osd.{i}" for i in down)
            them = "it" if len(down) == 1 else "them"
            explain.append(f"\n⚠ {names} still down: once noout is unset the mon marks {them}"
                           " out after mon_osd_down_out_interval (10 min by default) and data starts moving. "
                           "Start the daemons first unless you mean it.", style=palette.style("bold warn"))
        exiting = replace(m, state="exiting").log("exit planned: " + "; ".join(op.cli for op in plan.operations))
        written: list[bool] = []
        outcome = await self.services.ask_confirm(list(plan.operations), explain=explain,
                                                 before_run=self._record_first(exiting, written))
        if outcome is None or not outcome.ran or not written:
            return  # cancelled: nothing was written, the record stays as it was
        current = self.store.get(mid) or exiting
        await self._finish_exit(current, plan, list(outcome.results))

    async def _finish_exit(self, m: mt.Maintenance, plan: mplan.ExitPlan, results: list[Any]) -> None:
        finished = mplan.finish_exit(m, plan, results)

        def save() -> None:
            if plan.handed_over:
                self.store.put_all(mplan.hand_over(self.store.records, plan))
            self.store.put(finished)
        try:
            await in_thread(self, save, "save the maintenance record")
        except OSError as e:
            self.app.notify(f"Could not write the maintenance record: {e}", severity="error", timeout=20)
        self._refresh()
        if finished.state == "done":
            self.app.notify(f"{m.target.label} left maintenance.")
        else:
            self.app.notify(f"{m.target.label}: some flags could not be unset; still in maintenance (x retries).",
                            severity="warning", timeout=10)
