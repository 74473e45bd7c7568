"""CRUSH: the hierarchy, rules, classes, EC profiles and tunables; edits through forms or the text editor.

Every edit is checked against the current map first (crush.check_*: what Ceph
would refuse, said before sending), shows its `ceph` command, and is previewed
offline (crushtool + osdmaptool) before the operator can apply it.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Static

from cephtui.ceph import ops
from cephtui.ceph.crush import model as crush
from cephtui.ceph.crush.model import CrushMap
from cephtui.ceph.errors import CephError
from cephtui.ceph.snapshot.cluster_snapshot import ClusterSnapshot
from cephtui.ui import palette
from cephtui.ui.compat import FORM_FOLLOWS, DataTable
from cephtui.ui.dialog_types import Field
from cephtui.ui.pane import Fetch, Pane
from cephtui.ui.widgets.tables import set_subtitle, sync_table
from cephtui.ui.widgets.virtualtable import VirtualTable

COLUMNS = (("name", 30), ("type", 10), ("id", 6), ("alg", 7), ("weight", 9), ("items", 5), ("class", 6))
# Below 140 columns: name, weight and type in view; the rest is a left/right scroll away.
COLUMNS_NARROW = (("name", 20), ("weight", 9), ("type", 8), ("id", 6), ("items", 5), ("class", 6), ("alg", 7))
ORDER_NARROW = (0, 4, 1, 2, 5, 6, 3)


@dataclass(frozen=True)
class CrushRow:
    depth: int
    name: str
    type_name: str
    id: int
    alg: str
    weight: float
    items: int
    device_class: str
    is_device: bool


def hierarchy_rows(cmap: CrushMap) -> list[CrushRow]:
    classes = {d.name: d.device_class or "" for d in cmap.devices}
    ids = {d.name: d.id for d in cmap.devices}
    weights: dict[str, float] = {}
    for parent in cmap.real_buckets():
        for it in parent.items:
            weights[it.name] = it.weight
    rows = []
    for depth, name in crush.iter_tree(cmap):
        b = cmap.bucket(name)
        if b is not None:
            rows.append(CrushRow(depth, name, b.type_name, b.id, b.alg, b.weight, len(b.items), "", False))
        else:
            rows.append(CrushRow(depth, name, cmap.types[0][1] if cmap.types else "osd", ids.get(name, 0), "",
                                 weights.get(name, 0.0), 0, classes.get(name, ""), True))
    return rows


def _cells(r: CrushRow) -> tuple[tuple[str, str], ...]:
    indent = "  " * r.depth
    name = f"{indent}{'• ' if r.is_device else '▾ '}{r.name}"
    return ((name, "" if r.is_device else "bold"), (r.type_name, palette.style("muted" if r.is_device else "info")),
            (str(r.id), ""),
            (r.alg, ""), (f"{r.weight:.5f}", ""), ("" if r.is_device else str(r.items), ""), (r.device_class, ""))


class CrushPane(Pane):
    HELP = ("Changes to CRUSH are previewed offline with `crushtool` and `osdmaptool`: how many PGs per pool change "
            "their up set and roughly how much data would move. Without those tools (or when the preview fails) "
            "applying needs a second confirmation.")
    ACTION_HELP = {
        "move": "move a bucket or an OSD",
        "remove_bucket": "remove an empty bucket",
        "remove_rule": "remove an unused rule",
        "new_ec": "new EC profile and its rule",
        "edit_text": "edit the map as text: `ctrl+s` compiles and shows the diff, `ctrl+a` previews and applies",
    }
    # What each key would change: dimmed and refused in --read-only mode (see ui/readonly.py).
    MUTATING = {
        "add_bucket": "adding a CRUSH bucket",
        "move": "moving a CRUSH item",
        "rename": "renaming a CRUSH bucket",
        "remove_bucket": "removing a CRUSH bucket",
        "new_rule": "creating a CRUSH rule",
        "new_ec": "creating an EC profile and rule",
        "remove_rule": "removing a CRUSH rule",
    }
    BINDINGS = [
        Binding("a", "add_bucket", "Add bucket"),
        Binding("m", "move", "Move"),
        Binding("R", "rename", "Rename"),
        Binding("x", "remove_bucket", "Remove bucket"),
        Binding("u", "new_rule", "New rule"),
        Binding("e", "new_ec", "EC profile+rule"),
        Binding("X", "remove_rule", "Remove rule"),
        Binding("t", "edit_text", "Edit text"),
    ]

    def __init__(self, **kw: object) -> None:
        super().__init__(**kw)  # type: ignore[arg-type]
        self.cmap: CrushMap | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="crush-top"):
            yield VirtualTable(COLUMNS, _cells, key=lambda r: r.name, id="crush-tree", classes="box")
            yield Static(id="crush-info", classes="box")
        yield DataTable(id="crush-rules", classes="box", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        self.query_one("#crush-tree").border_title = "Hierarchy (ceph osd crush dump; class shadow trees hidden)"
        self.query_one("#crush-info").border_title = "Classes, EC profiles, tunables"
        rules = self.query_one("#crush-rules", DataTable)
        rules.border_title = "Rules"
        for col in ("id", "name", "type", "pools", "steps"):
            rules.add_column(col, key=col)

    @property
    def hierarchy(self) -> VirtualTable[CrushRow]:
        return self.query_one("#crush-tree", VirtualTable)

    def on_resize(self, event: events.Resize) -> None:
        narrow = self.app.size.width < 140
        self.hierarchy.set_columns(COLUMNS_NARROW if narrow else COLUMNS, ORDER_NARROW if narrow else None)

    def focus_table(self) -> None:
        self.hierarchy.focus()

    # ------------------------------------------------------------ rendering
    def _draw_rules(self, cmap: CrushMap) -> None:
        sync_table(self.query_one("#crush-rules", DataTable), {
            r.name: (str(r.id), Text(r.name, style="bold"), r.type,
                     Text(", ".join(r.pools) or "unused", style=palette.style("" if r.pools else "muted")),
                     " / ".join(r.steps))
            for r in cmap.rules})

    def retheme(self) -> None:
        if self.cmap is not None:  # show() skips an unchanged map: draw the rules in the new colours here
            self._draw_rules(self.cmap)

    def fetch(self) -> Fetch:
        return Fetch(crush=True)

    def show(self, snap: ClusterSnapshot) -> None:
        if snap.crush is None and (why := snap.missing("osd crush dump")) is not None:
            set_subtitle(self.hierarchy, f"⚠ CRUSH map unavailable: {why}")
        if snap.crush is None or snap.crush is self.cmap:
            return  # the builder hands over the same object until the osdmap epoch moves
        self.cmap = snap.crush
        cmap = snap.crush
        self.hierarchy.set_rows(hierarchy_rows(cmap))
        self.hierarchy.border_subtitle = f"{len(cmap.real_buckets())} buckets, {len(cmap.devices)} devices"
        self._draw_rules(cmap)
        self.query_one("#crush-info", Static).update(self._info(cmap))

    @staticmethod
    def _info(cmap: CrushMap) -> Group:
        t = Table.grid(padding=(0, 2))
        t.add_column(style="bold")
        t.add_column()
        per_class = Counter(d.device_class for d in cmap.devices if d.device_class)
        t.add_row("classes", ", ".join(f"{c} ({per_class.get(c, 0)} OSDs)" for c in cmap.classes) or "none")
        t.add_row("types", " < ".join(n for _, n in cmap.types))
        t.add_row("tunables", cmap.tunables_profile or "?")
        ec = Table(box=None, padding=(0, 1), title="EC profiles", title_justify="left", title_style="bold")
        for col in ("name", "k+m", "plugin", "domain", "class"):
            ec.add_column(col)
        for p in cmap.ec_profiles:
            ec.add_row(p.name, f"{p.k}+{p.m}" if p.k is not None else "?", p.plugin, p.failure_domain,
                       p.device_class or "-")
        pools = Table(box=None, padding=(0, 1), title="Pools and their rules", title_justify="left",
                      title_style="bold")
        for col in ("pool", "type", "size", "rule"):
            pools.add_column(col)
        names = {r.id: r.name for r in cmap.rules}
        for pool in cmap.pools:
            pools.add_row(pool.name, pool.type, str(pool.size), names.get(pool.rule_id, str(pool.rule_id)))
        return Group(t, Text(""), ec, Text(""), pools)

    # ------------------------------------------------------------ helpers
    def _selected(self) -> CrushRow | None:
        vt = self.hierarchy
        return vt.rows[vt.cursor] if 0 <= vt.cursor < vt.row_count else None

    def _selected_rule(self) -> str | None:
        rules = self.query_one("#crush-rules", DataTable)
        if not rules.row_count:
            return None
        key = rules.coordinate_to_cell_key(rules.cursor_coordinate).row_key
        return str(key.value) if key is not None else None

    def _form(self, title: str, fields: list[Field], build: Callable[[CrushMap, dict[str, str]], list[ops.Operation]],
              help: str = "") -> None:
        cmap = self.cmap
        if cmap is None:
            self.app.notify("The CRUSH map has not been read yet.", severity="warning")
            return

        self.services.form_then_confirm(title, fields, lambda v: build(cmap, v), help)

    def _map_first(self, action: Callable[[], None]) -> bool:
        """True when the map has not come yet: it is read here and `action` runs again once it has.

        Over ssh a tab key, a form key and the form's values come in one read (`4a node4⏎`): the form key finds
        no map before the tab's first poll has answered. Said "not read yet", it dropped the form, and the name
        typed behind it acted as this tab's keys. The read is a FORM_FOLLOWS worker, so those keys wait for it
        and go to the form."""
        if self.cmap is not None:
            return False
        snap = self.services.snapshot
        why = snap.missing("osd crush dump") if snap is not None else None
        if why is not None:
            self.app.notify(f"The CRUSH map is unavailable: {why}", severity="warning")
        else:
            self._read_map_then(action)
        return True

    @work(thread=True, group="crush-read", exit_on_error=False, name=FORM_FOLLOWS,
          description="read the CRUSH map (ceph osd crush dump, osd dump)")
    def _read_map_then(self, action: Callable[[], None]) -> None:
        client = self.services.client
        try:
            cmap = crush.parse_crush(client.mon("osd crush dump"), client.mon("osd dump"))
        except CephError as e:
            self.app.call_from_thread(self.app.notify, f"Cannot read the CRUSH map (ceph osd crush dump): {e}",
                                      severity="error")
            return

        def then() -> None:
            if self.cmap is None:  # the poll's map, when it came meanwhile, is the one the tab draws
                self.cmap = cmap
            action()
        self.app.call_from_thread(then)

    def _bucket_names(self) -> tuple[str, ...]:
        return tuple(b.name for b in self.cmap.real_buckets()) if self.cmap else ()

    def _type_names(self, buckets_only: bool = True) -> tuple[str, ...]:
        return tuple(n for i, n in self.cmap.types if i > 0 or not buckets_only) if self.cmap else ()

    # ------------------------------------------------------------ actions
    def action_add_bucket(self) -> None:
        if self._map_first(self.action_add_bucket):
            return
        sel = self._selected()
        parent = sel.name if sel and not sel.is_device else ""

        def build(cmap: CrushMap, v: dict[str, str]) -> list[ops.Operation]:
            crush.check_add_bucket(cmap, v["name"], v["type"], v["parent"] or None)
            p = cmap.bucket(v["parent"]) if v["parent"] else None
            return [ops.crush_add_bucket(v["name"], v["type"], [(p.type_name, p.name)] if p else [])]

        self._form("Add a CRUSH bucket", [
            Field("name", "Name", placeholder="e.g. node4, rack2"),
            Field("type", "Type", "host", choices=self._type_names()),
            Field("parent", "Under (empty: a new top-level root)", parent, choices=("",) + self._bucket_names()),
        ], build, help="A new bucket is empty: adding it moves no data; moving OSDs into it does.")

    def action_move(self) -> None:
        if self._map_first(self.action_move):
            return
        sel = self._selected()

        def build(cmap: CrushMap, v: dict[str, str]) -> list[ops.Operation]:
            item = v["item"].strip()
            if not v["dest"]:
                raise ValueError("choose the new parent bucket")
            crush.check_move(cmap, item, v["dest"])
            d = cmap.bucket(v["dest"])
            assert d is not None
            return [ops.crush_move(item, [(d.type_name, d.name)])]

        self._form("Move a bucket or an OSD", [
            Field("item", "Item (bucket or osd.N)", sel.name if sel else ""),
            Field("dest", "New parent", choices=self._bucket_names()),
        ], build, help="Moving changes where CRUSH places data: the preview shows how many PGs remap.")

    def action_rename(self) -> None:
        sel = self._selected()
        if sel is None or sel.is_device:
            self.app.notify("Select a bucket to rename (devices are named osd.N by Ceph).", severity="warning")
            return

        def build(cmap: CrushMap, v: dict[str, str]) -> list[ops.Operation]:
            crush.check_rename(cmap, sel.name, v["dst"].strip())
            return [ops.crush_rename_bucket(sel.name, v["dst"], sel.type_name)]

        self._form(f"Rename {sel.type_name} {sel.name}", [Field("dst", "New name", sel.name)], build,
                   help="Names are not part of placement: renaming moves no data now. OSDs that restart place "
                        "themselves by name (their crush location: root=default host=<hostname>).")

    def action_remove_bucket(self) -> None:
        sel = self._selected()
        if sel is None or sel.is_device or self.cmap is None:
            self.app.notify("Select an empty bucket to remove.", severity="warning")
            return
        try:
            crush.check_remove_bucket(self.cmap, sel.name)
            op = ops.crush_remove_bucket(sel.name)
        except ValueError as e:
            self.app.notify(str(e), severity="error", timeout=10)
            return
        self.services.confirm_operations([op])

    def action_new_rule(self) -> None:
        if self._map_first(self.action_new_rule):
            return
        roots = tuple(b.name for b in self.cmap.roots()) if self.cmap else ()

        def build(cmap: CrushMap, v: dict[str, str]) -> list[ops.Operation]:
            crush.check_rule_create(cmap, v["name"], v["root"], v["domain"], v["cls"])
            return [ops.rule_create_replicated(v["name"], v["root"], v["domain"], v["cls"])]

        self._form("Create a replicated rule", [
            Field("name", "Rule name", placeholder="e.g. replicated_ssd"),
            Field("root", "Root", roots[0] if roots else "", choices=roots),
            Field("domain", "Failure domain (replicas on different …)", "host", choices=self._type_names(False)),
            Field("cls", "Device class (empty: any)", "", choices=("",) + (self.cmap.classes if self.cmap else ())),
        ], build, help="A new rule moves no data until a pool uses it (ceph osd pool set POOL crush_rule RULE).")

    def action_new_ec(self) -> None:
        if self._map_first(self.action_new_ec):
            return
        def build(cmap: CrushMap, v: dict[str, str]) -> list[ops.Operation]:
            crush.check_ec_profile(cmap, v["name"], v["domain"], v["cls"], v["root"])
            rule_name = v["rule"].strip() or v["name"].strip()
            if cmap.rule(rule_name) is not None:
                raise ValueError(f"rule {rule_name} already exists")
            return [ops.ec_profile_set(v["name"], v["k"], v["m"], v["domain"], v["cls"], v["plugin"], v["root"]),
                    ops.rule_create_erasure(rule_name, v["name"].strip())]

        roots = tuple(b.name for b in self.cmap.roots()) if self.cmap else ()
        self._form("Create an erasure-code profile and its rule", [
            Field("name", "Profile name", placeholder="e.g. ec42"),
            Field("k", "k (data chunks)", "2"), Field("m", "m (coding chunks)", "1"),
            Field("domain", "Failure domain", "host", choices=self._type_names(False)),
            Field("cls", "Device class (empty: any)", "", choices=("",) + (self.cmap.classes if self.cmap else ())),
            Field("root", "Root", roots[0] if roots else "default", choices=roots),
            Field("plugin", "Plugin", "jerasure", choices=ops.EC_PLUGINS),
            Field("rule", "Rule name (empty: same as the profile)"),
        ], build, help="k+m must not exceed the number of failure domains, or PGs stay incomplete.")

    def action_remove_rule(self) -> None:
        name = self._selected_rule()
        if name is None or self.cmap is None:
            self.app.notify("Select a rule in the Rules table.", severity="warning")
            return
        try:
            crush.check_rule_remove(self.cmap, name)
            op = ops.rule_remove(name)
        except ValueError as e:
            self.app.notify(str(e), severity="error", timeout=10)
            return
        self.services.confirm_operations([op])

    def action_edit_text(self) -> None:
        from cephtui.ui.screens.crush_editor import CrushEditorScreen

        self.app.push_screen(CrushEditorScreen(self.services.client))
