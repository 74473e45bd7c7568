"""Images: the RBD images of a pool (or namespace) as `rbd ls`, `rbd info`, `rbd du`, `rbd snap ls` and
`rbd status` show them; the trash (`rbd trash ls`); live per-image IO (`rbd perf image iostat`).

Scale: listing a pool is one call whatever its size (10,000 names in one omap read), and the table formats only
the rows on screen. An image's details (an open of the image; its used size from the fast-diff map) are read
for the rows on screen only, in a worker, and kept until the next change. Sorting by a column other than the
name reads the other rows' details in the background; until then they sort last, and the box says how many are
known. An image without fast-diff has its used size measured by scanning, later, and marked `*`.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from rich.markup import escape
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Static

from cephtui.ceph import ops
from cephtui.ceph.format import human_bytes
from cephtui.ceph.images import ops as image_ops
from cephtui.ceph.images import perf, reader
from cephtui.ceph.images.model import ImageInfo, ImageRef, Place, TrashEntry, utcnow
from cephtui.ceph.images.place_listing import PlaceListing, chosen, read_one, read_place
from cephtui.ceph.images.tasks import Task
from cephtui.ceph.snapshot.cluster_snapshot import ClusterSnapshot
from cephtui.ui import palette
from cephtui.ui.compat import FORM_FOLLOWS
from cephtui.ui.dialog_types import Field, readable
from cephtui.ui.pane import Pane
from cephtui.ui.panes.bench import BenchPane
from cephtui.ui.panes.images_io import ImageIOTable
from cephtui.ui.panes.images_reading import DetailsReader
from cephtui.ui.widgets.filterinput import FilterInput
from cephtui.ui.widgets.image_info import describe, image_cells, trash_cells
from cephtui.ui.widgets.tables import set_subtitle
from cephtui.ui.widgets.virtualtable import VirtualTable

# (label, width, sort key): the key reads an ImageInfo (None: not known yet, sorted last)
COLUMNS: tuple[tuple[str, int], ...] = (
    ("image", 28), ("size", 10), ("used +snaps", 20), ("snaps", 12), ("watchers", 24), ("parent", 24),
    ("features", 40), ("object", 7), ("data pool", 12), ("children", 8), ("mirror", 9),
)
NARROW = (0, 1, 2, 3, 4)  # what fits in 80 columns
SORTS: tuple[tuple[str, Callable[[ImageInfo], Any]], ...] = (
    ("size", lambda i: i.size), ("used +snaps", lambda i: i.used + i.snaps_used if i.used is not None else -1),
    ("snaps", lambda i: len(i.snaps)), ("watchers", lambda i: len(i.watchers)), ("parent", lambda i: i.parent),
    ("features", lambda i: ",".join(i.features)), ("object", lambda i: i.object_size),
    ("data pool", lambda i: i.data_pool), ("children", lambda i: len(i.children)), ("mirror", lambda i: i.mirroring),
)
TRASH_COLUMNS = (("image", 28), ("id", 16), ("source", 8), ("moved to the trash (UTC)", 24), ("purgeable", 24))
LIST_EVERY = 10.0  # seconds between two listings of the pool (one call)
DETAILS_STALE = 30.0  # an image's details are read again after this long, if on screen


class ImagesPane(Pane):
    HELP = ("RBD images of one pool (or namespace) at a time; `p` moves to the next. Names come from one listing "
            "call; details are read for the rows on screen. Every change goes through a form, the exact `rbd` "
            "command, a confirmation (the image's name typed for anything that destroys data) and the audit log.")
    ACTION_HELP = {
        "next_pool": "the next pool or namespace with the rbd application",
        "reread": "read the listing and the images on screen again now (changes made elsewhere)",
        "sort": "sort by the next column (name first); other rows' details are read in the background",
        "reverse": "reverse the order",
        "trash": "show the trash (`rbd trash ls`) instead of the images, and back",
        "iostat": "live IO per image (`rbd perf image iostat`, from the mgr), and back",
        "open": "the image's details, snapshots, clones and watchers; snapshot operations there",
        "bench": "benchmark this image in the Bench tab (rbd bench; a write needs its name typed, and is refused "
                 "while it is in use)",
        "create": "create an image: size, features, object size, an EC data pool",
        "resize": "grow or shrink (shrinking wants the name typed and says what is lost)",
        "snapshot": "take a snapshot",
        "flatten": "copy a clone's parent data in (an mgr task that goes on after cephtui quits)",
        "to_trash": "move to the trash (restorable)",
        "delete": "remove the image (typed name; refused while watched), or in the trash delete one for good",
        "restore": "in the trash: restore the image",
        "purge": "in the trash: purge what has passed its deferment time",
    }
    MUTATING = {
        "create": "creating an image", "resize": "resizing an image", "snapshot": "taking a snapshot",
        "flatten": "flattening a clone", "to_trash": "moving an image to the trash", "delete": "removing an image",
        "restore": "restoring an image", "purge": "purging the trash",
    }
    BINDINGS = [
        Binding("enter", "open", "Details"),
        Binding("p", "next_pool", "Pool"),
        Binding("o", "sort", "Sort"),
        Binding("O", "reverse", "Reverse", show=False),
        Binding("t", "trash", "Trash"),
        Binding("i", "iostat", "IO"),
        Binding("b", "bench", "Bench"),
        Binding("c", "create", "Create"),
        Binding("e", "resize", "Resize"),
        Binding("s", "snapshot", "Snapshot"),
        Binding("f", "flatten", "Flatten", show=False),
        Binding("T", "to_trash", "To trash", show=False),
        Binding("D", "delete", "Delete"),
        Binding("u", "restore", "Restore", show=False),
        Binding("P", "purge", "Purge", show=False),
        Binding("escape", "clear_filter", "Clear filter", show=False),
        Binding("r", "reread", "Refresh", show=False),
    ]

    def __init__(self, **kw: object) -> None:
        super().__init__(**kw)  # type: ignore[arg-type]
        self.places: tuple[Place, ...] = ()
        self.place: Place | None = None
        self.names: tuple[str, ...] = ()
        self.listed_at = 0.0
        self.problem = ""  # why the images cannot be listed (module missing, pool gone, caps)
        self.details: dict[ImageRef, ImageInfo] = {}
        self.read_at: dict[ImageRef, float] = {}
        self.failed: dict[ImageRef, str] = {}
        self.trash: tuple[TrashEntry, ...] = ()
        self.tasks: tuple[Task, ...] = ()  # the mgr's image tasks (ceph rbd task list)
        self.tasks_problem = ""
        self.mgr_tasks = True  # the mgr serves `rbd task add flatten` (else librbd flattens from here)
        self.mode = "images"  # images / trash / io
        self.sort_index = -1  # -1: by name; else SORTS[i]
        self.reverse = False
        self.filter_text = ""
        self.reader = DetailsReader(self, lambda: self.services.client, self._got_details)
        self._audited = 0  # how many audit entries were seen: a change made here reloads the listing
        self._listing = False
        self._now = utcnow()

    def compose(self) -> ComposeResult:
        yield Static(id="images-summary")
        with Vertical(id="images-box", classes="box"):
            yield FilterInput("filter: image name (all words must match)", id="images-filter")
            yield VirtualTable(COLUMNS, self._cells, key=lambda r: r, id="images-table")
            yield VirtualTable(TRASH_COLUMNS, self._trash_cells, key=lambda e: e.id, id="images-trash")
            yield ImageIOTable(self._io_changed, id="images-io")
        yield Static(id="images-detail", classes="box")

    def on_resize(self) -> None:
        """Under 100 columns: name, size, used, snapshots and watchers, in narrower columns."""
        narrow = self.size.width < 100
        if narrow:
            self.vtable.set_columns([("image", 18), ("size", 8), ("used +snaps", 17), ("snaps", 11), ("watchers", 14)],
                                    NARROW)
        else:
            self.vtable.set_columns(COLUMNS)

    def on_mount(self) -> None:
        self.query_one("#images-detail").border_title = "Selected"
        self.query_one("#images-trash").display = False
        self.query_one("#images-io").display = False
        self.watch(self.vtable, "cursor", self._show_detail, init=False)
        self.set_interval(0.3, self._want_visible)
        self.set_interval(1.0, self._tick)
        self._title()
        self._summary()

    # ------------------------------------------------------------ the contract
    @property
    def vtable(self) -> VirtualTable[ImageRef]:
        return self.query_one("#images-table", VirtualTable)

    def focus_table(self) -> None:
        self._table().focus()

    def _table(self) -> VirtualTable[Any]:
        return self.query_one({"images": "#images-table", "trash": "#images-trash", "io": "#images-io"}[self.mode],
                              VirtualTable)

    def show(self, snap: ClusterSnapshot) -> None:
        audited = len(self.services.audit.session) if self.services.audit is not None else 0
        changed = audited != self._audited
        self._audited = audited
        if changed:  # something changed through cephtui: the rows on screen are read again (the rest keep
            self.read_at.clear()  # their details until shown, so a sorted table keeps its order meanwhile)
        if changed or self.tasks or time.monotonic() - self.listed_at > LIST_EVERY:  # a task's progress: each poll
            self.reload()

    def is_match(self, table: object, index: int) -> bool:
        return True  # the filter box already narrows the rows

    def retheme(self) -> None:
        self._summary()
        self._show_detail()

    # ------------------------------------------------------------ listing
    def reload(self) -> None:
        if not self._listing:
            self._listing = True
            self._list(self.place)

    @work(thread=True, group="images-list", exit_on_error=False)
    def _list(self, place: Place | None) -> None:
        client = self.services.client
        try:
            places, problems = reader.places(client)
            place = chosen(place, places)
            got = read_place(client, places, problems, place)
        except reader.ImagesUnavailable as e:
            got = PlaceListing(problem=str(e), mgr_tasks=self.mgr_tasks)
        except Exception as e:  # rados.Error, rbd.Error, CephError: said on the tab, tried again later
            got = PlaceListing(self.places, place, self.names, self.trash, f"cannot list images: {e}", self.tasks,
                               self.tasks_problem, self.mgr_tasks)
        self.app.call_from_thread(self._listed, got)

    def _listed(self, got: PlaceListing) -> None:
        self._listing = False
        self.tasks, self.tasks_problem, self.mgr_tasks = got.tasks, got.tasks_problem, got.mgr_tasks
        self.listed_at = time.monotonic()
        place, names = got.place, got.names
        moved = place != self.place
        self.places, self.place, self.trash, self.problem = got.places, place, got.trash, got.problem
        if moved:
            self.details.clear()
            self.read_at.clear()
            self.failed.clear()
        if names != self.names or moved:
            self.names = names
            listed = set(names)  # a removed or renamed image's details no longer count (the summary's "read")
            for kept in (self.details, self.read_at, self.failed):
                for ref in [r for r in kept if r.name not in listed]:
                    del kept[ref]
        self._rows()
        self._title()
        self._summary()

    def _refs(self) -> list[ImageRef]:
        if self.place is None:
            return []
        words = self.filter_text.lower().split()
        names = [n for n in self.names if all(w in n.lower() for w in words)] if words else self.names
        return [ImageRef(self.place.pool, n, self.place.namespace) for n in names]

    def _rows(self) -> None:
        refs = self._refs()
        if self.sort_index >= 0:
            _, key = SORTS[self.sort_index]
            known = [r for r in refs if r in self.details]
            unknown = [r for r in refs if r not in self.details]
            known.sort(key=lambda r: (key(self.details[r]), r.name), reverse=self.reverse)
            refs = known + unknown
        elif self.reverse:
            refs.reverse()
        self.vtable.set_rows(refs)
        self.query_one("#images-trash", VirtualTable).set_rows(self.trash)
        self._show_detail()

    # ------------------------------------------------------------ details of the rows on screen
    def _visible(self) -> list[ImageRef]:
        vt = self.vtable
        top = vt.scroll_offset.y
        rows = vt.rows
        return list(rows[top:top + max(vt.size.height, 1) + 1])

    def _want_visible(self) -> None:
        if self.mode != "images" or not self.names or self.services.active_tab != "images":
            return  # a hidden tab reads nothing
        now = time.monotonic()
        want = [r for r in self._visible() if r not in self.failed and r not in self.reader.asked
                and now - self.read_at.get(r, -1e9) > DETAILS_STALE]
        if want:
            self.reader.want(want)

    def _got_details(self, got: list[tuple[ImageRef, ImageInfo | None, str]]) -> None:
        self.reader.answered(got)  # first: a row whose used size is still to be scanned is drawn so
        now = time.monotonic()
        for ref, info, error in got:
            self.read_at[ref] = now
            if info is None:
                self.failed[ref] = error
                self.details.pop(ref, None)
            else:
                self.failed.pop(ref, None)
                self.details[ref] = info
        if self.sort_index >= 0:
            self._rows()
            self._title()  # "details known for N of M" as the background reading goes on
        else:
            self.vtable.refresh()
        self._show_detail()
        self._summary()

    # ------------------------------------------------------------ cells
    def _cells(self, ref: ImageRef) -> list[tuple[str, str]]:
        return image_cells(ref, self.details.get(ref), self.failed.get(ref), ref in self.reader.scanning,
                           self._now)

    def _trash_cells(self, e: TrashEntry) -> list[tuple[str, str]]:
        return trash_cells(e, self._now)

    # ------------------------------------------------------------ texts
    def _title(self) -> None:
        box = self.query_one("#images-box")
        where = self.place.spec if self.place else "?"
        box.border_title = {
            "images": f"images in {where} (rbd ls; details for the rows on screen)",
            "trash": f"trash of {where} (rbd trash ls)",
            "io": self.io_view.title(),
        }[self.mode]
        if self.mode == "trash":
            set_subtitle(box, f"{len(self.trash)} in the trash")
            return
        if self.mode == "io":
            set_subtitle(box, self.io_view.subtitle())
            return
        order = "name" if self.sort_index < 0 else SORTS[self.sort_index][0]
        shown = self.vtable.row_count
        known = sum(1 for r in self.vtable.rows if r in self.details) if self.sort_index >= 0 else 0
        partial = f", details known for {known} of {shown}" if self.sort_index >= 0 and known < shown else ""
        note = f" match '{readable(self.filter_text, 40)}'" if self.filter_text.strip() else ""
        set_subtitle(box, f"{shown} of {len(self.names)} images{note} · by {order}"
                          f"{' (reversed)' if self.reverse else ''}{partial}")

    def _summary(self) -> None:
        parts = []
        if self.problem:
            parts.append(palette.markup("bold warn", f"⚠ {escape(self.problem)}"))
        if self.place is None and not self.problem:
            parts.append("[i]listing the rbd pools…[/]")
        if self.place is not None:
            others = f" ({len(self.places)} places, p: next)" if len(self.places) > 1 else ""
            parts.append(f"[b]{escape(self.place.spec)}[/]{others}: [b]{len(self.names)}[/] images")
            known = [i for i in self.details.values() if i.ref.place == self.place.spec]
            if known:
                watched = sum(1 for i in known if i.watchers)
                parts.append(f"{watched} of {len(self.names)} in use" if len(known) >= len(self.names) else
                             f"in use: {watched} of the {len(known)} read so far")
            parts.append(f"{len(self.trash)} in the trash (t)")
            if any(not i.used_exact for i in known):
                parts.append("* used size scanned (no fast-diff)")
        if self.tasks:
            parts.append("mgr tasks: " + escape("; ".join(t.describe() for t in self.tasks[:3])))
        elif self.tasks_problem and not self.problem:
            parts.append(palette.markup("muted", escape(self.tasks_problem)))
        if self.mode == "io":
            parts.append(self.io_view.state())
        self.query_one("#images-summary", Static).update(" · ".join(parts))

    def _show_detail(self) -> None:
        detail = self.query_one("#images-detail", Static)
        if self.mode == "trash":
            e = self._selected_trash()
            detail.update(Text(f"{e.place}/{e.name} (id {e.id}): u restores it, D deletes it for good, P purges "
                               "everything past its deferment time" if e else "The trash is empty.",
                               style=palette.style("muted")))
            return
        if self.mode == "io":
            detail.update(Text(f"The mgr's rbd perf image stats: it {perf.LIMITS}. o sorts by the next of write "
                               "ops, read ops, write bytes, read bytes, write and read latency (as rbd perf image "
                               "iostat --sort-by).", style=palette.style("muted")))
            return
        ref = self.selected()
        if ref is None:
            detail.update(Text("No image here (c creates one)." if self.place else "", style=palette.style("muted")))
            return
        info = self.details.get(ref)
        if info is None:
            detail.update(Text(self.failed.get(ref, f"reading {ref.spec}…"), style=palette.style("muted")))
            return
        detail.update(describe(info, self._now))

    # ------------------------------------------------------------ timers
    def _tick(self) -> None:
        self._now = utcnow()
        if self.mode == "io" and self.services.active_tab == "images":
            self.io_view.tick(self.place.spec if self.place else "")
        if self.mode == "io":
            self._summary()

    @property
    def io_view(self) -> ImageIOTable:
        return self.query_one("#images-io", ImageIOTable)

    def _io_changed(self) -> None:
        if self.mode == "io":
            self._title()
        self._summary()

    # ------------------------------------------------------------ selection
    def selected(self) -> ImageRef | None:
        vt = self.vtable
        if self.mode == "images" and 0 <= vt.cursor < vt.row_count:
            return vt.rows[vt.cursor]
        return None

    def _selected_trash(self) -> TrashEntry | None:
        t = self.query_one("#images-trash", VirtualTable)
        if self.mode == "trash" and 0 <= t.cursor < t.row_count:
            entry: TrashEntry = t.rows[t.cursor]
            return entry
        return None

    # ------------------------------------------------------------ view actions
    @on(FilterInput.Applied, "#images-filter")
    def _apply_filter(self, event: FilterInput.Applied) -> None:
        self.filter_text = event.text
        self._rows()
        self._title()

    @on(Input.Submitted, "#images-filter")
    def _filter_submitted(self) -> None:
        self.vtable.focus()  # Enter hands the keys back to the table

    def action_reread(self) -> None:
        """r: the listing and the details on screen read again now (a change made elsewhere), and the poll."""
        self.read_at.clear()
        self.failed.clear()
        self.reload()
        self.services.refresh_now()

    def action_clear_filter(self) -> None:
        self.query_one("#images-filter", FilterInput).clear_filter()

    def action_next_pool(self) -> None:
        if not self.places:
            self.app.notify("No pool with the rbd application.", severity="warning")
            return
        i = self.places.index(self.place) if self.place in self.places else -1
        self.place = None if len(self.places) == 0 else self.places[(i + 1) % len(self.places)]
        self.names, self.trash = (), ()
        self.details.clear()
        self.read_at.clear()
        self._rows()
        self._listing = True
        self._list(self.place)

    def action_sort(self) -> None:
        if self.mode == "io":
            self.io_view.next_sort()
            self._title()
            return
        self.sort_index = self.sort_index + 1 if self.sort_index + 1 < len(SORTS) else -1
        if self.sort_index >= 0:
            self.reader.fill([r for r in self._refs() if r not in self.details])
        self._rows()
        self._title()

    def action_reverse(self) -> None:
        self.reverse = not self.reverse
        self._rows()
        self._title()

    def _set_mode(self, mode: str) -> None:
        self.mode = mode if self.mode != mode else "images"
        for m, sel in (("images", "#images-table"), ("trash", "#images-trash"), ("io", "#images-io")):
            self.query_one(sel).display = self.mode == m
        self.query_one("#images-filter").display = self.mode == "images"
        if self.mode == "io":
            self.io_view.opened()
            self._tick()
        self._table().focus()
        self._title()
        self._summary()
        self._show_detail()

    def action_trash(self) -> None:
        self._set_mode("trash")

    def action_iostat(self) -> None:
        self._set_mode("io")

    def action_open(self) -> None:
        ref = self.selected()
        if ref is None:
            return
        from cephtui.ui.screens.image_detail import ImageDetailScreen
        self.app.push_screen(ImageDetailScreen(ref))

    def action_bench(self) -> None:
        ref = self.selected()
        if ref is None:
            self.app.notify("Select an image first.", severity="warning")
            return
        self.services.show_tab("bench")
        self.services.pane(BenchPane).bench_image(ref.spec)

    # ------------------------------------------------------------ operations
    def _fresh(self, then: Callable[..., None], extents: bool = False) -> None:
        """Read the selected image again (used size included) before a change is built on it."""
        ref = self.selected()
        if ref is None:
            self.app.notify("Select an image first." if self.mode == "images" else "Back to the images first (t).",
                            severity="warning")
            return
        self._fresh_worker(ref, then, extents)

    # FORM_FOLLOWS: `s mysnap` in one read names the snapshot mysnap (the keys wait for this read and its form).
    @work(thread=True, group="images-fresh", exit_on_error=False, name=FORM_FOLLOWS,
          description="read the image again")
    def _fresh_worker(self, ref: ImageRef, then: Callable[..., None], extents: bool) -> None:
        client = self.services.client
        got = read_one(client, ref, self.reader.hosts(client), du="scan")
        if got[1] is None:
            self.app.call_from_thread(self.app.notify, f"Cannot read {ref.spec}: {got[2]}", severity="error")
            return
        if not extents:
            self.app.call_from_thread(then, got[1])
            return
        try:
            where: tuple[tuple[int, int], ...] | None = reader.used_extents(client.handle, ref)
        except Exception:  # the form then says "up to" the used size
            where = None
        self.app.call_from_thread(then, got[1], where)

    def _confirm(self, build: Callable[[], ops.Operation], info: ImageInfo | None = None) -> None:
        try:
            op = build()
        except ValueError as e:
            self.app.notify(readable(str(e)), title="Refused: nothing was sent", severity="error", timeout=12)
            return
        # The operation's effect is the dialog's Impact line; the image as it is now goes under the command.
        self.services.confirm_operations([op], explain=describe(info, self._now) if info is not None else "")

    def action_create(self) -> None:
        if self.place is None:
            self.app.notify("No pool with the rbd application to create an image in.", severity="warning")
            return
        place = self.place
        self.services.form_then_confirm(
            f"Create an image in {place.spec}",
            [Field("name", "name"), Field("size", "size (e.g. 10G)", "10G"),
             Field("object_size", "object size (empty: 4M)", placeholder="4M"),
             Field("features", "features (empty: the cluster's default)",
                   placeholder="layering,exclusive-lock,object-map,fast-diff,deep-flatten"),
             Field("data_pool", "data pool (erasure-coded; empty: none)")],
            lambda v: [image_ops.build_create(place, v["name"], v["size"], v["object_size"], v["features"],
                                              v["data_pool"])],
            help="The image is thin: it takes space only as it is written.")

    def action_resize(self) -> None:
        self._fresh(self._resize_form, extents=True)

    def _resize_form(self, info: ImageInfo, extents: tuple[tuple[int, int], ...] | None = None) -> None:
        self.services.form_then_confirm(
            f"Resize {info.ref.spec} ({human_bytes(info.size)}, {human_bytes(info.used or 0)} used)",
            [Field("size", "new size", human_bytes(info.size).replace(" ", "").replace("iB", ""))],
            lambda v: [image_ops.build_resize(info, v["size"], extents)],
            help="Growing is plain. Shrinking discards everything past the new end: the name is asked for.")

    def action_snapshot(self) -> None:
        self._fresh(lambda info: self.services.form_then_confirm(
            f"Snapshot {info.ref.spec}",
            [Field("snap", "snapshot name", utcnow().strftime("snap-%Y%m%d-%H%M"))],
            lambda v: [image_ops.build_snap_create(info, v["snap"])]))

    def action_flatten(self) -> None:
        self._fresh(lambda info: self._confirm(lambda: image_ops.build_flatten(info, self.mgr_tasks), info))

    def action_to_trash(self) -> None:
        self._fresh(lambda info: self._confirm(lambda: image_ops.build_trash_move(info), info))

    def action_delete(self) -> None:
        if self.mode == "trash":
            e = self._selected_trash()
            if e is not None:
                self._confirm(lambda: image_ops.build_trash_remove(e, utcnow()))
            return
        self._fresh(lambda info: self._confirm(lambda: image_ops.build_remove(info), info))

    def action_restore(self) -> None:
        e = self._selected_trash()
        if e is None:
            self.app.notify("Open the trash (t) and select an image first.", severity="warning")
            return
        self.services.form_then_confirm(
            f"Restore {e.place}/{e.name} from the trash", [Field("name", "restore as", e.name)],
            lambda v: [image_ops.build_trash_restore(e, v["name"])])

    def action_purge(self) -> None:
        if self.place is None:
            return
        place, trash = self.place, self.trash
        self._confirm(lambda: image_ops.build_trash_purge(place, trash, utcnow()))
