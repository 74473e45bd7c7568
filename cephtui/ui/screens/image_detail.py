"""One image whole: `rbd info`, `rbd du` (the image and each snapshot), `rbd snap ls`, `rbd children`,
`rbd status`; and the snapshot operations, each through the confirm dialog with its exact `rbd` command."""
from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from cephtui.ceph import ops
from cephtui.ceph.images import ops as image_ops
from cephtui.ceph.images import reader
from cephtui.ceph.images.model import ImageInfo, ImageRef, utcnow
from cephtui.ui import palette
from cephtui.ui.compat import DataTable
from cephtui.ui.dialog_types import Builder, Field, readable
from cephtui.ui.screens.dialog import Dialog
from cephtui.ui.services import services_of
from cephtui.ui.widgets.image_info import describe, snapshot_lines

SNAP_COLUMNS = ("snapshot", "size", "protected", "age", "used")


class ImageDetailScreen(Dialog[None]):
    BINDINGS = [
        Binding("escape", "dismiss_screen", "Close"),
        Binding("s", "snap_create", "Snapshot"),
        Binding("D", "snap_remove", "Remove snapshot"),
        Binding("p", "protect", "Protect"),
        Binding("u", "unprotect", "Unprotect"),
        Binding("b", "rollback", "Roll back"),
        Binding("l", "clone", "Clone"),
    ]
    MUTATING = {"snap_create": "taking a snapshot", "snap_remove": "removing a snapshot",
                "protect": "protecting a snapshot", "unprotect": "unprotecting a snapshot",
                "rollback": "rolling an image back", "clone": "cloning a snapshot"}
    DEFAULT_CSS = """
    ImageDetailScreen #image-info { height: auto; }
    ImageDetailScreen #image-snaps { height: auto; max-height: 14; margin-top: 1; }
    ImageDetailScreen #image-keys { height: auto; margin-top: 1; color: $text-muted; }
    """

    def __init__(self, ref: ImageRef) -> None:
        super().__init__()
        self.ref = ref
        self.info: ImageInfo | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(f"reading {self.ref.spec}…", style="italic"), id="image-info")
            table: DataTable[str] = DataTable(id="image-snaps", cursor_type="row")
            yield table
            yield Static("s snapshot · D remove · p protect · u unprotect · b roll back · l clone · esc close",
                         id="image-keys")

    def on_mount(self) -> None:
        self.query_one("#image-snaps", DataTable).add_columns(*SNAP_COLUMNS)
        self.reload()

    def _refused(self, action: str) -> bool:
        """--read-only: say why (as the tabs do) instead of opening a form that could never be sent."""
        return services_of(self).refuse_if_read_only(self.MUTATING[action])

    @work(thread=True, group="image-detail", exclusive=True, exit_on_error=False)
    def reload(self) -> None:
        client = services_of(self).client
        try:
            info: ImageInfo | None = reader.read_image(client.handle, self.ref, du="scan",
                                                       hosts=reader.host_names(client))
            error = ""
        except Exception as e:  # gone (ImageNotFound), or an OSD did not answer
            info, error = None, str(e) or type(e).__name__
        self.app.call_from_thread(self._show, info, error)

    def _show(self, info: ImageInfo | None, error: str) -> None:
        self.info = info
        box = self.query_one("#image-info", Static)
        if info is None:
            box.update(Text(f"Cannot read {self.ref.spec}: {error}", style=palette.style("bold err")))
            return
        box.update(describe(info, utcnow(), hints=False))
        table = self.query_one("#image-snaps", DataTable)
        keep = table.cursor_row
        table.clear()
        for line in snapshot_lines(info, utcnow()):
            table.add_row(*line, key=line[0])
        if info.snaps:
            table.move_cursor(row=min(keep, len(info.snaps) - 1))
            table.focus()

    def action_dismiss_screen(self) -> None:
        self.dismiss(None)

    # ------------------------------------------------------------ operations
    def _snap(self) -> str | None:
        table = self.query_one("#image-snaps", DataTable)
        if self.info is None or not self.info.snaps or table.row_count == 0:
            self.app.notify("No snapshot selected.", severity="warning")
            return None
        return str(table.get_row_at(table.cursor_row)[0])

    def _confirm(self, build: Callable[[], ops.Operation]) -> None:
        try:
            op = build()
        except ValueError as e:
            self.app.notify(readable(str(e)), title="Refused: nothing was sent", severity="error", timeout=12)
            return
        self._ask(op)

    @work(group="image-detail-confirm")
    async def _ask(self, op: ops.Operation) -> None:
        # The operation's effect is the dialog's Impact line; the image as it is now goes under the command.
        now = utcnow()
        await services_of(self).ask_confirm([op], explain=describe(self.info, now, hints=False) if self.info else "")
        self.reload()

    def action_snap_create(self) -> None:
        if self._refused("snap_create"):
            return
        info = self.info
        if info is None:
            return
        self._form(f"Snapshot {info.ref.spec}",
                   [Field("snap", "snapshot name", utcnow().strftime("snap-%Y%m%d-%H%M"))],
                   lambda v: [image_ops.build_snap_create(info, v["snap"])])

    @work(group="image-detail-confirm")
    async def _form(self, title: str, fields: list[Field], build: Builder) -> None:
        from cephtui.ui.screens.wizards.form import FormScreen
        operations = await self.app.push_screen_wait(FormScreen(title, fields, build))
        if operations:
            await services_of(self).ask_confirm(operations)
        self.reload()

    def action_snap_remove(self) -> None:
        if self._refused("snap_remove"):
            return
        snap, info = self._snap(), self.info
        if snap is None or info is None:
            return
        self._with_children(snap, lambda kids: self._confirm(lambda: image_ops.build_snap_remove(info, snap, kids)))

    def action_protect(self) -> None:
        if self._refused("protect"):
            return
        snap, info = self._snap(), self.info
        if snap is not None and info is not None:
            self._confirm(lambda: image_ops.build_protect(info, snap, True))

    def action_unprotect(self) -> None:
        if self._refused("unprotect"):
            return
        snap, info = self._snap(), self.info
        if snap is None or info is None:
            return
        self._with_children(snap, lambda kids: self._confirm(lambda: image_ops.build_protect(info, snap, False, kids)))

    def action_rollback(self) -> None:
        if self._refused("rollback"):
            return
        snap, info = self._snap(), self.info
        if snap is not None and info is not None:
            self._confirm(lambda: image_ops.build_rollback(info, snap))

    def action_clone(self) -> None:
        if self._refused("clone"):
            return
        snap, info = self._snap(), self.info
        if snap is None or info is None:
            return
        self._form(f"Clone {info.ref.spec}@{snap}", [Field("target", "new image (pool/name or name)",
                                                          f"{info.ref.place}/{info.ref.name}-clone")],
                   lambda v: [image_ops.build_clone(info, snap, v["target"])])

    @work(thread=True, group="image-detail-children", exit_on_error=False)
    def _with_children(self, snap: str, then: Callable[[tuple[str, ...]], None]) -> None:
        """The clones of one snapshot, read just before: they stop an unprotect or a removal."""
        try:
            kids = reader.snap_children(services_of(self).client.handle, self.ref, snap)
        except Exception as e:
            self.app.call_from_thread(self.app.notify, f"Cannot read the clones of {snap}: {e}", severity="error")
            return
        self.app.call_from_thread(then, kids)
