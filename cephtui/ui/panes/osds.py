"""OSDs: the CRUSH hierarchy with per-OSD state, usage and latency; filter, sort, detail, actions."""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from rich.markup import escape
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Static

from cephtui.ceph import ops
from cephtui.ceph.format import human_bytes
from cephtui.ceph.history.failslow import OWN_PAST, FailSlowReport
from cephtui.ceph.history.failslow_words import compared_with
from cephtui.ceph.history.view import HistoryView
from cephtui.ceph.snapshot.cluster_snapshot import ClusterSnapshot
from cephtui.ceph.snapshot.osdtree import BucketInfo, OSDInfo, OSDTable, TreeRow
from cephtui.ceph.snapshot.osdview import SORTS, OSDFilter, osd_names, selected_osds, view
from cephtui.ui import palette
from cephtui.ui.dialog_types import Field, readable
from cephtui.ui.holds import refresh_holds, refusal
from cephtui.ui.pane import Fetch, Pane
from cephtui.ui.screens.wizards.form import FormScreen
from cephtui.ui.widgets.filterinput import FilterInput
from cephtui.ui.widgets.spark import spark
from cephtui.ui.widgets.tables import set_subtitle, sync_static
from cephtui.ui.widgets.virtualtable import VirtualTable

COLUMNS = (("name", 26), ("class", 5), ("status", 11), ("weight", 7), ("reweight", 8), ("pri-aff", 7),
           ("size", 9), ("%use", 6), ("var", 4), ("pgs", 4), ("lat c/a", 9), ("flags", 22), ("host", 14))
TREND_FLOOR_MS = 10.0  # the trend's full bar is at least this: 0-1 ms noise on a quiet cluster stays flat
TREND = ("trend", 12)  # cell 15: the OSD's commit latency over the history window (ui/history.py)
# palette specs (roles: the theme's colours): palette.style() resolves them when a row is drawn
FULL_STYLE = {"full": "badge err", "backfillfull": "bold err", "nearfull": "bold warn"}
FLAG_STYLE = {"destroyed": "bold err", "noout": "info", "nodown": "info", "noup": "accent", "noin": "accent",
              **FULL_STYLE}


# Columns by terminal width: display (cell index, width); cells 13/14 (used, avail) exist for wide ones.
# Below 180 columns what an admin looks for first (state, %use, PGs, weights, flags) comes first; the
# rest is a left/right scroll away.
LABELS = tuple(c for c, _ in COLUMNS) + ("used", "avail", TREND[0])
NARROW = ((0, 18), (2, 9), (7, 5), (9, 4), (4, 8), (3, 7), (11, 14), (10, 7), (15, 12),
          (1, 5), (6, 8), (8, 4), (5, 7), (12, 14))
# The trend before the flags, as on wide screens: its newest cells are its right end, which at 120 columns fell
# past the edge (only the empty start of a young recording showed); the flags keep 16 columns there.
MEDIUM = ((0, 26), (2, 11), (7, 6), (9, 4), (4, 8), (3, 7), (10, 9), (15, 12), (11, 22),
          (6, 9), (8, 4), (1, 5), (5, 7), (12, 14))
WIDE = ((0, 26), (1, 5), (2, 11), (3, 7), (4, 8), (5, 7), (6, 9), (13, 8), (14, 8), (7, 6), (8, 4), (9, 4), (10, 9),
        (15, 12), (11, 22), (12, 14))


def column_layout(width: int) -> tuple[list[tuple[str, int]], list[int]]:
    spec = NARROW if width < 100 else (MEDIUM if width < 180 else WIDE)
    return [(LABELS[i], w) for i, w in spec], [i for i, _ in spec]


def _window_name(seconds: float) -> str:
    return f"{seconds / 86400:.0f}d" if seconds >= 86400 * 2 else (f"{seconds / 3600:.0f}h" if seconds >= 3600
                                                                   else f"{seconds / 60:.0f}m")


def _w(x: float) -> str:
    return f"{x:.5f}"


class OSDsPane(Pane):
    SHOWS_HISTORY = True  # latency trends beside each OSD
    HELP = ("The removal wizard: preflight (capacity after the move, ok-to-stop, other PGs, flags that stall "
            "recovery), drain (mark out, or CRUSH weight 0), wait until `ceph osd safe-to-destroy` says yes, stop "
            "the daemon (`--osd-stop-cmd`, the orchestrator, systemd here, or you), destroy (replacement) or purge, "
            "then for a replacement wait for the new OSD with the same id, and follow backfill to active+clean. `p` "
            "pauses or resumes, `a` aborts (OSDs not yet destroyed are marked back in). The state is saved after "
            "every step; a restarted cephtui offers to resume.")
    ACTION_HELP = {
        "focus_filter": ("filter: `osd.3` or `3`, a host or bucket, a class (`ssd`), a state (`up`, `down`, `in`, "
                         "`out`, `destroyed`) or a flag (`noout`, `nearfull` …)"),
        "detail": "detail of the OSD under the cursor: metadata, its PGs by state",
        "mark": ("mark / unmark an OSD; actions apply to the marked OSDs, else to the cursor row (a bucket row means "
                 "every OSD under it)"),
        "sort": "sort: tree, utilisation, latency, PG count",
        "shadow": "show / hide the device-class shadow trees (`default~hdd`)",
        "collapse": "fold the bucket under the cursor (or the OSD's host)",
        "expand": "unfold the bucket under the cursor",
        "fold_hosts": "fold or unfold every host",
        "out": "mark out, with a preview of the PGs that remap",
        "crush_weight": "CRUSH weight (previewed)",
        "reweight": "reweight (0..1)",
        "device_class": "set the device class (previewed)",
        "noout": "toggle per-OSD noout",
        "remove": "guided removal or replacement of the selected OSD(s)",
        "removals": "the removal queue: every removal or replacement (colleagues' too), enter opens one",
    }
    # What each key would change: dimmed and refused in --read-only mode (see ui/readonly.py).
    MUTATING = {
        "out": "marking OSDs out",
        "in": "marking OSDs in",
        "down": "marking OSDs down",
        "reweight": "reweighting OSDs",
        "crush_weight": "changing CRUSH weights",
        "device_class": "changing device classes",
        "affinity": "changing primary affinity",
        "noout": "setting noout",
        "remove": "removing or replacing an OSD",
    }
    BINDINGS = [
        Binding("slash", "focus_filter", "Filter"),
        Binding("escape", "clear_filter", "Clear filter", show=False),
        Binding("enter", "detail", "Detail"),
        Binding("space", "mark", "Mark"),
        Binding("s", "sort", "Sort"),
        Binding("v", "shadow", "Class trees", show=False),
        Binding("minus", "collapse", "Fold", show=False),
        Binding("plus,equals_sign", "expand", "Unfold", show=False),
        Binding("z", "fold_hosts", "Fold hosts", show=False),
        Binding("o", "out", "Out"),
        Binding("i", "in", "In"),
        Binding("d", "down", "Down", show=False),
        Binding("w", "reweight", "Reweight"),
        Binding("W", "crush_weight", "CRUSH weight"),
        Binding("c", "device_class", "Class", show=False),
        Binding("a", "affinity", "Primary affinity", show=False),
        Binding("f", "noout", "noout flag"),
        Binding("X", "remove", "Remove/replace"),
        Binding("P", "removals", "Removal queue", show=False),
    ]

    def __init__(self, **kw: object) -> None:
        super().__init__(**kw)  # type: ignore[arg-type]
        self.table_data: OSDTable | None = None
        self.missing: str | None = None  # why `osd tree` gave nothing, or None
        self.usage_missing: str | None = None  # why `osd df`/`osd perf` gave nothing (mgr down, caps)
        self.ratios_note = ""
        self.osd_filter = OSDFilter("")
        self.sort_mode = "tree"
        self.show_shadow = False
        self.marked: set[int] = set()
        self.collapsed: set[tuple[int, bool]] = set()
        self._generation = 0
        self.history_view: HistoryView | None = None  # the last history read (ui/history.py), for the trend
        self.failslow: FailSlowReport | None = None
        self.slow_osds: frozenset[int] = frozenset()
        self.slow_vs_past: frozenset[int] = frozenset()  # suspects judged against their own past (small class)

    def compose(self) -> ComposeResult:
        yield Static(id="osds-summary")
        with Vertical(id="osds-box", classes="box"):
            yield FilterInput("filter: osd.3, host or bucket name, class (hdd), up/down/in/out, noout, nearfull …",
                              id="osds-filter")
            yield VirtualTable(COLUMNS, self._cells, key=lambda r: r.key, id="osds-table")

    def on_mount(self) -> None:
        self.query_one("#osds-box").border_title = "OSD tree (ceph osd tree + osd df + osd perf)"

    @property
    def vtable(self) -> VirtualTable[TreeRow]:
        return self.query_one("#osds-table", VirtualTable)

    # ------------------------------------------------------------ rendering
    def _cells(self, row: TreeRow) -> tuple[tuple[str, str], ...]:
        n = row.node
        indent = "  " * row.depth
        if isinstance(n, BucketInfo):
            down = n.osds_total - n.osds_up
            status = f"{n.osds_up}/{n.osds_total} up"
            util = n.utilization
            fold = "▸" if row.key in self.collapsed else "▾"
            s = palette.style
            return ((f"{indent}{fold} {n.type_name} {n.name}", s("bold" if not n.shadow else "bold muted")), ("", ""),
                    (status, s("bold err" if down else "ok")), (_w(n.crush_weight), ""), ("", ""), ("", ""),
                    (human_bytes(n.kb * 1024) if n.kb else "", ""),
                    (f"{util:.1f}" if n.kb else "", ""), ("", ""), ("", ""), ("", ""),
                    (f"{human_bytes(n.kb_used * 1024)} used" if n.kb else "", s("muted")), ("", ""),
                    (human_bytes(n.kb_used * 1024) if n.kb else "", ""),
                    (human_bytes((n.kb - n.kb_used) * 1024) if n.kb else "", ""), ("", ""))
        mark = "✔" if n.id in self.marked else ("✖" if not n.up else "●")
        s = palette.style
        name_style = s("bold err" if not n.up else ("warn" if not n.in_ else ""))
        if n.id in self.marked:
            name_style += " reverse"
        status = ("up" if n.up else n.status) + (" in" if n.in_ else " out")
        status_style = s("bold err" if not n.up else ("warn" if not n.in_ else "ok"))
        full = n.fullness
        commit, apply = n.commit_ms, n.apply_ms
        then = self.history_view.at.osd if self.history_view is not None and self.history_view.at else None
        if then is not None:  # the time cursor is set: the latency as it was then
            c_then, a_then = then.commit_ms.get(n.id), then.apply_ms.get(n.id)
            commit = None if c_then is None else round(c_then)
            apply = None if a_then is None else round(a_then)
        lat = f"{commit}/{apply}" if commit is not None else "-"
        lat_style = s("bold err" if (commit or 0) >= 100 else ("warn" if (commit or 0) >= 20 else ""))
        # Without `osd df` (mgr down, caps) the PG count is unknown, not 0: the summary says why.
        pgs = (str(n.pgs), "") if n.kb or self.usage_missing is None else ("?", s("warn"))
        flags = " ".join(("⚠ " if f in FULL_STYLE else "") + f for f in n.flags)
        flag_style = s(FLAG_STYLE.get(full or (n.flags[0] if n.flags else ""), ""))
        if n.id in self.slow_osds:  # cephtui's own fail-slow ranking, not a flag of Ceph's: said in words
            versus = "its past" if n.id in self.slow_vs_past else "peers"
            flags = f"⚠ slow vs {versus}" + (f" {flags}" if flags else "")
            flag_style = s("bold warn")
        return ((f"{indent}{mark} {n.name}", name_style.strip()), (n.device_class, ""), (status, status_style),
                (_w(n.crush_weight), ""), (f"{n.reweight:.5f}", s("warn" if 0 < n.reweight < 1 else "")),
                (f"{n.primary_affinity:.3f}", s("warn" if n.primary_affinity < 1 else "")),
                (human_bytes(n.kb * 1024) if n.kb else "-", ""),
                (f"{n.utilization:.1f}" if n.kb else "-", s(FULL_STYLE.get(full, ""))),
                (f"{n.var:.2f}" if n.kb else "-", ""), pgs, (lat, lat_style), (flags, flag_style),
                (n.host, s("muted")), (human_bytes(n.kb_used * 1024) if n.kb else "-", ""),
                (human_bytes(n.kb_avail * 1024) if n.kb else "-", ""), self._trend(n.id))

    def _trend(self, osd: int) -> tuple[str, str]:
        """The OSD's commit latency over the window, scaled to the highest of all OSDs' (so a slow one stands
        out among its peers, not each against itself)."""
        v = self.history_view
        cells = v.osd_trend.get(osd) if v is not None else None
        if not cells:
            return "", ""
        worst = max((c for c in cells if c is not None), default=0.0)
        return (spark(cells, max(v.trend_top, TREND_FLOOR_MS)),  # type: ignore[union-attr]
                palette.style("bold err" if worst >= 100 else ("warn" if worst >= 20 else "info")))

    def refresh_rows(self) -> None:
        self._summary()
        self._refresh_view()

    def show_failslow(self, report: FailSlowReport | None, note: str) -> None:
        """The fail-slow suspects (ui/history.py, every 30 s): named in the summary, flagged in their rows."""
        self.failslow = report
        self.slow_osds = frozenset(s.osd for s in report.suspects) if report is not None else frozenset()
        self.slow_vs_past = frozenset(s.osd for s in report.suspects if s.yardstick == OWN_PAST) \
            if report is not None else frozenset()
        self._summary()
        self.vtable.refresh()

    def show_history(self, view: HistoryView | None, window: str) -> None:
        if view is None:
            return
        self.history_view = view if view.osd_trend or view.at is not None else None
        box = self.query_one("#osds-box")
        at = view.at
        when = f" · ⏪ lat at {time.strftime('%H:%M:%S', time.localtime(at.t))} (] returns to now)" if at else ""
        box.border_title = f"OSD tree (ceph osd tree + osd df + osd perf) · trend {_window_name(view.window)}{when}"
        self.vtable.refresh()

    def on_resize(self, event: events.Resize) -> None:
        self.vtable.set_columns(*column_layout(self.app.size.width))

    def fetch(self) -> Fetch:
        return Fetch(osd_tree=True, shadow=self.show_shadow)

    def show(self, snap: ClusterSnapshot) -> None:
        self.missing = snap.missing("osd tree") if snap.osd_table is None else None
        self.usage_missing = snap.missing("osd df", "osd perf")
        if snap.osd_table is None:
            if self.missing is not None:
                text = palette.markup("bold warn", f"⚠ OSD tree unavailable: {escape(self.missing)}")
                sync_static(self.query_one("#osds-summary", Static), text, lambda: text)
            return
        self.table_data = snap.osd_table
        if self.marked:
            self.marked &= {o.id for o in snap.osd_table.osds}
        self._summary()
        self._refresh_view()

    def _summary(self) -> None:
        t = self.table_data
        if t is None:
            return
        up, in_ = t.num_up, t.num_in
        full = dict(reversed(t.fullness))  # nearfull first, as an admin reads them
        m = palette.markup
        parts = [f"[b]{len(t.osds)}[/] OSDs: {m('ok', f'{up} up')}, {in_} in"]
        if len(t.osds) - up:
            parts.append(m("bold err", f"{len(t.osds) - up} down"))
        if len(t.osds) - in_:
            parts.append(m("warn", f"{len(t.osds) - in_} out"))
        parts += [m(FULL_STYLE[k], f"{n} {k}") for k, n in full.items() if n]
        if t.stray:
            parts.append(m("warn", f"{len(t.stray)} not in CRUSH ({osd_names(t.stray)})"))
        if self.usage_missing is not None:
            parts.append(m("warn", f"⚠ usage and latency unavailable: {escape(self.usage_missing)}"))
        slow = self.failslow
        if slow is not None and slow.suspects:
            hosts = [f"host {h.host}" for h in slow.hosts]
            lone = [f"osd.{x.osd}" for x in slow.lone_suspects]
            versus = compared_with(slow.suspects).replace("peers of the same class", "their peers")
            parts.append(m("bold warn", f"⚠ slow against {versus}: {escape(', '.join([*hosts, *lone][:6]))}")
                         + " (Doctor explains)")
        parts.append(f"sort: [b]{self.sort_mode}[/] (s)")
        parts.append(f"class trees: {'shown' if self.show_shadow else 'hidden'} (v)")
        if self.marked:
            parts.append(f"[reverse]marked: {osd_names(sorted(self.marked))}[/] (space)")
        text = " · ".join(parts)
        sync_static(self.query_one("#osds-summary", Static), text, lambda: text)

    def _refresh_view(self) -> None:
        if self.table_data is None:
            return
        self._generation += 1
        self._compute_view(self._generation, self.table_data, self.osd_filter, self.sort_mode,
                           frozenset(self.collapsed))

    # An explicit description: by default Textual repr()s the arguments (5,000 OSDs) on the UI thread.
    @work(thread=True, group="osd-view", description="filter and sort the OSD tree")
    def _compute_view(self, generation: int, table: OSDTable, flt: OSDFilter, sort: str,
                      collapsed: frozenset[tuple[int, bool]]) -> None:
        """Filtering and sorting 5,000 OSDs is cheap but not free: off the UI thread, newest wins."""
        rows = view(table, flt, sort, collapsed)
        self.app.call_from_thread(self._show_rows, generation, rows, sum(r.is_osd for r in rows))

    def _show_rows(self, generation: int, rows: Sequence[TreeRow], n: int) -> None:
        if generation != self._generation or self.table_data is None:
            return
        self.vtable.set_rows(rows)
        # the typed text, cut and with control characters made visible
        note = f" match '{readable(self.osd_filter.text, 60)}'" if self.osd_filter.text.strip() else ""
        set_subtitle(self.query_one("#osds-box"), f"{n} of {len(self.table_data.osds)} OSDs{note}")

    # ------------------------------------------------------------ filter / sort / view
    @on(FilterInput.Applied, "#osds-filter")
    def _apply_filter(self, event: FilterInput.Applied) -> None:
        self.osd_filter = OSDFilter(event.text)
        self._refresh_view()

    @on(Input.Submitted, "#osds-filter")
    def _filter_submitted(self) -> None:
        self.vtable.focus()

    def focus_table(self) -> None:
        self.vtable.focus()

    def is_match(self, table: object, index: int) -> bool:
        """`n`/`N` under a filter: the OSDs it matched, not the buckets shown around them."""
        return table is not self.vtable or self.vtable.rows[index].is_osd

    def action_focus_filter(self) -> None:
        self.query_one("#osds-filter", Input).focus()

    def action_clear_filter(self) -> None:
        self.query_one("#osds-filter", FilterInput).clear_filter()
        self.vtable.focus()

    def action_sort(self) -> None:
        self.sort_mode = SORTS[(SORTS.index(self.sort_mode) + 1) % len(SORTS)]
        self._summary()
        self._refresh_view()

    def action_shadow(self) -> None:
        self.show_shadow = not self.show_shadow
        self._summary()
        self.services.refresh_now()

    def action_collapse(self) -> None:
        """Fold the bucket under the cursor; on an OSD (or a folded bucket), fold its parent."""
        vt, row = self.vtable, self.current_row()
        if row is None or self.sort_mode != "tree":
            return
        index = vt.cursor
        if row.is_osd or row.key in self.collapsed:
            index = next((i for i in range(vt.cursor - 1, -1, -1) if vt.rows[i].depth < row.depth), -1)
            if index < 0:
                return
        self.collapsed.add(vt.rows[index].key)
        vt.cursor = index
        self._refresh_view()

    def action_expand(self) -> None:
        row = self.current_row()
        if row is not None and row.key in self.collapsed:
            self.collapsed.discard(row.key)
            self._refresh_view()

    def action_fold_hosts(self) -> None:
        """Fold every bucket that holds OSDs directly (hosts), or unfold all if some are folded."""
        if self.table_data is None:
            return
        if self.collapsed:
            self.collapsed.clear()
        else:
            rows = self.table_data.rows
            self.collapsed = {r.key for i, r in enumerate(rows[:-1]) if not r.is_osd and rows[i + 1].is_osd
                              and rows[i + 1].depth == r.depth + 1}
        self._refresh_view()

    # ------------------------------------------------------------ selection
    def current_row(self) -> TreeRow | None:
        vt = self.vtable
        return vt.rows[vt.cursor] if 0 <= vt.cursor < vt.row_count else None

    def targets(self) -> tuple[int, ...]:
        """Marked OSDs, else the OSD under the cursor, else every OSD under the bucket under the cursor."""
        if self.marked:
            return tuple(sorted(self.marked))
        if self.table_data is None:
            return ()
        return selected_osds(self.vtable.rows, self.table_data, self.vtable.cursor)

    def target_bucket(self) -> str | None:
        """The bucket under the cursor when the action reaches every OSD under it (nothing marked)."""
        row = self.current_row()
        if self.marked or row is None or row.is_osd or not isinstance(row.node, BucketInfo):
            return None
        return row.node.name

    def _guarded(self, operations: list[ops.Operation], ids: Sequence[int]) -> list[ops.Operation]:
        """A bucket or several OSDs: the names must be typed (one stray key must not change many OSDs)."""
        return ops.require_names(operations, ids, self.target_bucket())

    def action_mark(self) -> None:
        for i in selected_osds(self.vtable.rows, self.table_data, self.vtable.cursor) if self.table_data else ():
            self.marked.symmetric_difference_update({i})
        self._summary()
        self.vtable.refresh()
        self.vtable.action_cursor(1)

    def _osd(self, i: int) -> OSDInfo | None:
        return self.table_data.osd(i) if self.table_data else None

    # ------------------------------------------------------------ actions
    def _act(self, make: Callable[[tuple[int, ...]], list[ops.Operation]], single: bool = False) -> None:
        ids = self.targets()
        if not ids:
            self.app.notify("No OSD selected.", severity="warning")
            return
        if single and len(ids) != 1:
            self.app.notify(f"This acts on one OSD at a time; {len(ids)} are selected "
                            f"({osd_names(ids[:5])}{' …' if len(ids) > 5 else ''}).", severity="warning")
            return
        try:
            operations = self._guarded(make(ids), ids)
        except ValueError as e:
            self.app.notify(str(e), severity="error")
            return
        self.services.confirm_operations(operations)

    def action_out(self) -> None:
        self._act(lambda ids: [ops.osd_out(ids)])

    def action_in(self) -> None:
        self._act(lambda ids: [ops.osd_in(ids)])

    def action_down(self) -> None:
        self._act(lambda ids: [ops.osd_down(ids)])

    def action_noout(self) -> None:
        ids = self.targets()
        on_ = not all("noout" in (o.flags if (o := self._osd(i)) else ()) for i in ids)
        self._act(lambda ids: [ops.osd_noout(ids, on_)])

    def _form(self, title: str, fields: list[Field], build: Callable[[dict[str, str]], list[ops.Operation]],
              help: str = "") -> None:
        ids = self.targets()
        if not ids:
            self.app.notify("No OSD selected.", severity="warning")
            return
        bucket = self.target_bucket()  # read now: the cursor may move while the form is open
        if bucket is not None:
            title += f" (every OSD under {bucket})"

        def guarded(values: dict[str, str]) -> list[ops.Operation]:
            return ops.require_names(build(values), ids, bucket)

        self.services.form_then_confirm(title, fields, guarded, help)

    def action_reweight(self) -> None:
        ids = self.targets()
        first = self._osd(ids[0]) if ids else None
        self._form(f"Reweight {osd_names(ids)}", [Field("weight", "Reweight (0 to 1; 1 = no override)",
                                                        f"{first.reweight:g}" if first else "1")],
                   lambda v: [ops.osd_reweight(i, v["weight"]) for i in ids],
                   help="The override weight (ceph osd reweight) shifts PGs away without changing CRUSH.")

    def action_affinity(self) -> None:
        ids = self.targets()
        first = self._osd(ids[0]) if ids else None
        self._form(f"Primary affinity of {osd_names(ids)}",
                   [Field("weight", "Primary affinity (0 to 1)", f"{first.primary_affinity:g}" if first else "1")],
                   lambda v: [ops.osd_primary_affinity(i, v["weight"]) for i in ids])

    def action_crush_weight(self) -> None:
        ids = self.targets()
        first = self._osd(ids[0]) if ids else None
        self._form(f"CRUSH weight of {osd_names(ids)}",
                   [Field("weight", "CRUSH weight (TiB by convention, ≥ 0)", _w(first.crush_weight) if first else "")],
                   lambda v: [ops.crush_reweight(f"osd.{i}", v["weight"]) for i in ids],
                   help="Changes the CRUSH map: the preview shows how many PGs would move.")

    def action_device_class(self) -> None:
        ids = self.targets()
        current = {i: o.device_class for i in ids if (o := self._osd(i))}
        classes = sorted({o.device_class for o in self.table_data.osds if o.device_class} | {"hdd", "ssd", "nvme"}
                         ) if self.table_data else ["hdd", "ssd", "nvme"]
        first = current.get(ids[0], "") if ids else ""
        self._form(f"Device class of {osd_names(ids)}", [Field("cls", f"Class (known: {', '.join(classes)})", first)],
                   lambda v: ops.set_device_class(ids, v["cls"], current),
                   help="An OSD that already has a class gets rm-device-class first (Ceph refuses to overwrite).")

    def action_remove(self) -> None:
        """The guided removal/replacement wizard for the selected OSD(s)."""
        from cephtui.ceph.workflows.removal import DRAIN_MODES, default_drain
        from cephtui.ceph.workflows.removal_stop import StopCommandError, check_stop_template
        from cephtui.ui.screens.wizards.removal_form import RemovalForm

        ids = self.targets()
        if not ids:
            self.app.notify("No OSD selected.", severity="warning")
            return

        def build(v: dict[str, str]) -> list[ops.Operation]:
            held = refusal(self, list(ids))  # another removal or a maintenance, anyone's: said at once
            if held:
                raise ValueError(held)
            if v["mode"] not in ("remove", "replace") or v["drain"] not in ("out", "crush0"):
                raise ValueError("choose what to do and how to drain")
            try:
                check_stop_template(v["stop"].strip(), v["shell"] == "yes")
            except StopCommandError as e:
                raise ValueError(str(e)) from None
            first = [ops.osd_out(ids)] if v["drain"] == "out" else [ops.crush_reweight(f"osd.{i}", 0) for i in ids]
            return first  # the first commands, shown live; the plan screen lists them all

        form = RemovalForm(f"Remove or replace {osd_names(ids)}", [
            Field("mode", "What", "remove", choices=("remove", "replace")),
            Field("drain", "Drain by", default_drain(replace=False), choices=DRAIN_MODES),
            Field("stop", "Stop command ({id} = OSD id; empty: systemd here, else you stop it)",
                  self.services.osd_stop_cmd),
            Field("shell", "Run the stop command through /bin/sh (&&, pipes)", "no", choices=("no", "yes")),
        ], build, ids, help="remove: osd purge (id gone). replace: osd destroy (id and CRUSH position kept for the "
                            "new disk). Drain: crush0 sets the CRUSH weight to 0 (the default for a removal: nothing "
                            "moves again at the purge); out keeps CRUSH weights (the default for a replacement).")

        self._removal(ids, form)

    @work(group="osd-removal", description="removal wizard")
    async def _removal(self, ids: tuple[int, ...], form: FormScreen) -> None:
        """The form, then the whole plan with its preflight; the removal starts only from the plan's yes."""
        from cephtui.ceph.workflows.removal import Removal
        from cephtui.ui.screens.removal import PlanScreen

        self._recheck_holds(form)
        if not await self.app.push_screen_wait(form):
            return
        v = form.submitted_values
        plan = Removal(osds=list(ids), replace=v["mode"] == "replace", drain_mode=v["drain"],
                       stop_template=v["stop"].strip(), stop_shell=v["shell"] == "yes")
        if await self.app.push_screen_wait(PlanScreen(plan, self.services.client)):
            self.services.removals.start(plan)

    @work(group="osd-holds", description="read the workflow queues for the removal form")
    async def _recheck_holds(self, form: FormScreen) -> None:
        """The form opens on the queues as last read; read them now (a colleague may have started something a
        moment ago) and check the form again."""
        await refresh_holds(self)
        if form.is_attached:
            form.recheck()

    def action_removals(self) -> None:
        """The queue of every removal (the cluster's, colleagues' too); enter opens one."""
        from cephtui.ui.screens.removal_queue import RemovalQueueScreen
        self.app.push_screen(RemovalQueueScreen())

    def action_detail(self) -> None:
        row = self.current_row()
        if row is None or not row.is_osd:
            return
        from cephtui.ui.screens.osd_detail import OSDDetailScreen

        self.app.push_screen(OSDDetailScreen(self.services.client, row.node))  # type: ignore[arg-type]
