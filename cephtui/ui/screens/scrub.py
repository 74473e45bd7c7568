"""Scrub errors: the inconsistent PGs (`pg ls inconsistent`), for the selected one which objects and which
copies are bad (`rados list-inconsistent-obj`), then `pg repair` (or a new deep scrub) through the confirmation."""
from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from cephtui.ceph.doctor.scrub import (
    InconsistentObject,
    InconsistentPG,
    ScrubInfoError,
    list_inconsistent_obj,
    parse_pg_ls,
)
from cephtui.ceph.errors import CephError
from cephtui.ceph.ops.health import pg_repair, pg_scrub
from cephtui.ui import palette
from cephtui.ui.compat import DataTable
from cephtui.ui.dialog_flows import in_thread
from cephtui.ui.screens.reading import ReadingDialog
from cephtui.ui.widgets.tables import sync_table


def render_objects(pgid: str, objects: tuple[InconsistentObject, ...]) -> RenderableType:
    if not objects:
        return Text(f"{pgid}: no inconsistent object listed (the last deep scrub found none, or it was repaired).",
                    style=palette.style("ok"))
    parts: list[RenderableType] = [Text(f"rados list-inconsistent-obj {pgid}: {len(objects)} object(s)", style="bold")]
    for o in objects[:50]:
        parts.append(Text(f"• {o.name}{' (namespace ' + o.nspace + ')' if o.nspace else ''}: "
                          f"{', '.join(o.errors) or 'shard errors only'}"))
        for b in o.bad:
            parts.append(Text(f"    osd.{b.osd}{' primary' if b.primary else ''}"
                              f"{f' shard {b.shard}' if b.shard >= 0 else ''}: {', '.join(b.errors)}",
                              style=palette.style("bold err")))
        parts.append(Text(f"    {o.verdict}", style=palette.style("ok" if o.authoritative else "bold warn")))
    if len(objects) > 50:
        parts.append(Text(f"… and {len(objects) - 50} more"))
    return Group(*parts)


class ScrubScreen(ReadingDialog):
    BINDINGS = [
        Binding("escape", "dismiss", "Close"),
        Binding("r", "repair", "Repair PG"),
        Binding("d", "deep_scrub", "Deep-scrub PG"),
        Binding("R", "reload", "Reload"),
    ]
    DEFAULT_CSS = """
    ScrubScreen > Vertical { width: 120; height: 90%; }
    ScrubScreen #scrub-table { height: 10; }
    ScrubScreen #scrub-info-box { height: 1fr; border-top: solid $primary; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.pgs: tuple[InconsistentPG, ...] = ()
        self.objects: dict[str, tuple[InconsistentObject, ...]] = {}

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Scrub errors (r repair · d deep-scrub · R reload · escape closes)"
            yield Static(Text("Loading pg ls inconsistent…", style="italic"), id="scrub-summary")
            table: DataTable[Any] = DataTable(id="scrub-table", cursor_type="row", zebra_stripes=True)
            for label, width in (("pg", 10), ("state", 44), ("acting", 14), ("errors", 6), ("last deep scrub", 19)):
                table.add_column(label, width=width)
            yield table
            with VerticalScroll(id="scrub-info-box"):
                yield Static("", id="scrub-info")

    async def load(self) -> None:
        summary = self.query_one("#scrub-summary", Static)
        try:
            raw = await in_thread(self, lambda: self.client.mgr("pg ls", states=["inconsistent"]), "pg ls")
        except CephError as e:
            summary.update(Text(f"pg ls inconsistent: {e.message}", style=palette.style("warn")))
            return
        self.pgs = parse_pg_ls(raw)
        self.objects.clear()
        summary.update(Text(f"{len(self.pgs)} inconsistent PG(s). Repair rewrites the bad copies from the copy "
                            "Ceph judges good (checksums decide): read which copy is bad first.",
                            style=palette.style("bold warn" if self.pgs else "ok")))
        table = self.query_one("#scrub-table", DataTable)
        sync_table(table, {p.pgid: (p.pgid, p.state, ",".join(map(str, p.acting)), str(p.scrub_errors),
                                    p.last_deep_scrub) for p in self.pgs})
        if self.pgs:
            table.focus()
            self.show_detail()
        else:
            self.query_one("#scrub-info", Static).update(Text("No inconsistent PG.", style=palette.style("ok")))

    def selected(self) -> InconsistentPG | None:
        key = self.row_key(self.query_one("#scrub-table", DataTable))
        return next((p for p in self.pgs if p.pgid == key), None)

    async def detail(self) -> None:
        pg = self.selected()
        if pg is None:
            return
        box = self.query_one("#scrub-info", Static)
        if pg.pgid not in self.objects:
            box.update(Text(f"rados list-inconsistent-obj {pg.pgid}…", style="italic"))
            spec = self.client.spec
            try:
                self.objects[pg.pgid] = await in_thread(self, lambda: list_inconsistent_obj(spec, pg.pgid),
                                                        "list-inconsistent-obj")
            except (ScrubInfoError, CephError) as e:
                box.update(Text(str(e) if isinstance(e, ScrubInfoError) else e.message, style=palette.style("warn")))
                return
        if self.selected() is pg:
            box.update(render_objects(pg.pgid, self.objects[pg.pgid]))

    def action_repair(self) -> None:
        pg = self.selected()
        if pg is None:
            self.app.notify("No inconsistent PG selected.")
            return
        verdicts = [f"{o.name}: {o.verdict}" for o in self.objects.get(pg.pgid, ())]
        if any(not o.authoritative for o in self.objects.get(pg.pgid, ())):
            verdicts.append("Some objects have no copy Ceph can trust: repair will not fix those.")
        self.confirm_then_reload([pg_repair(pg.pgid)], explain="\n".join(verdicts[:10]))

    def action_deep_scrub(self) -> None:
        pg = self.selected()
        if pg is None:
            self.app.notify("No inconsistent PG selected.")
            return
        self.confirm_then_reload([pg_scrub(pg.pgid, deep=True)])
