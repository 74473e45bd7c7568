"""Users: cephx entities and their caps; create from templates, edit caps, reveal/export keys, delete.

Clients come first (what admins manage), then a separator and the daemons' own
keys and the bootstrap keys (`d` hides them). No key is ever part of the pane:
`k` fetches one into a modal that forgets it on close, `x` writes a keyring to
a new 0600 file. Deleting the identity cephtui is connected as, or a daemon's
key, is refused unless forced (`F`) with "force NAME" typed.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.markup import escape
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Static

from cephtui.ceph import ops
from cephtui.ceph.errors import CephError
from cephtui.ceph.snapshot.cluster_snapshot import ClusterSnapshot
from cephtui.ceph.snapshot.users import AuthEntity, parse_auth_ls
from cephtui.ui import palette
from cephtui.ui.compat import FORM_FOLLOWS
from cephtui.ui.dialog_types import readable
from cephtui.ui.pane import Fetch, Pane
from cephtui.ui.screens.wizards.user import caps_diff, create_user, edit_caps_form
from cephtui.ui.widgets.filterinput import FilterInput
from cephtui.ui.widgets.tables import set_subtitle
from cephtui.ui.widgets.virtualtable import VirtualTable

if TYPE_CHECKING:  # the key screens are imported when first opened
    from cephtui.ui.screens.users_keys import ExportKeyringScreen

COLUMNS = (("entity", 30), ("mon", 28), ("mgr", 24), ("osd", 36), ("mds", 22))
SEPARATOR_KEY = "\x00daemons"


@dataclass(frozen=True)
class UserRow:
    entity: AuthEntity | None  # None: the separator between clients and daemons
    label: str = ""


def matches(entity: AuthEntity, text: str) -> bool:
    """Filter words (all must match) against the name and the caps: 'pool=rbd' finds who may use rbd."""
    hay = (entity.name + " " + " ".join(c for _, c in entity.caps)).lower()
    return all(w in hay for w in text.lower().split())


def user_rows(entities: Sequence[AuthEntity], show_daemons: bool, text: str) -> list[UserRow]:
    picked = [e for e in entities if matches(e, text)] if text.strip() else list(entities)
    clients = [UserRow(e) for e in picked if not e.is_daemon]
    daemons = [UserRow(e) for e in picked if e.is_daemon]
    rows = clients
    if daemons:
        rows.append(UserRow(None, f"({len(daemons)}; d hides them) ──" if show_daemons
                            else f"({len(daemons)} hidden; d shows them) ──"))
        if show_daemons:
            rows += daemons
    return rows


def why_protected(entity: AuthEntity, me: str) -> str:
    """Why deleting this entity is dangerous, or '' when it is an ordinary client."""
    if entity.name == me:
        return (f"cephtui is connected as {entity.name}: deleting it cuts this session off at its next "
                "authentication, and if it is your only admin key you lock yourself out of the cluster")
    if entity.name.startswith("client.bootstrap-"):
        return (f"{entity.name} is a bootstrap key: deployment tools (cephadm, ceph-volume, rook) use it to "
                "create new daemons, which then fail to start")
    if entity.is_daemon:
        return (f"{entity.name} is a daemon's own key: once deleted, {entity.name} can no longer authenticate "
                "and drops out at its next reconnect, staying down until a key with the right caps is re-created")
    return ""


class UsersPane(Pane):
    HELP = ("Every action shows the exact `ceph` command first and asks; destroying ones want the name typed. Keys "
            "never enter a snapshot: a key is fetched only when you ask to see or export it.")
    ACTION_HELP = {
        "new_user": ("create a user from a template (RBD client, CephFS client, RGW, read-only monitoring, custom); "
                     "every cap checked before sending"),
        "edit_caps": "edit caps (Ceph replaces all of them: old and new side by side first)",
        "export_keyring": "export the keyring to a new file with mode 0600",
        "delete": "delete (typed name)",
        "force_delete": "force-delete a daemon's key or the identity cephtui uses",
        "toggle_daemons": "show or hide daemons' and bootstrap keys",
        "focus_filter": "filter by name or cap text",
    }
    # What each key would change: dimmed and refused in --read-only mode (see ui/readonly.py).
    MUTATING = {
        "new_user": "creating a user",
        "edit_caps": "changing caps",
        "delete": "deleting a user",
        "force_delete": "deleting a user",
    }
    BINDINGS = [
        Binding("c", "new_user", "Create user"),
        Binding("e", "edit_caps", "Edit caps"),
        Binding("k", "reveal_key", "Reveal key"),
        Binding("x", "export_keyring", "Export keyring"),
        Binding("D", "delete", "Delete"),
        Binding("F", "force_delete", "Force delete", show=False),
        Binding("d", "toggle_daemons", "Daemons"),
        Binding("slash", "focus_filter", "Filter"),
        Binding("escape", "clear_filter", "Clear filter", show=False),
    ]

    def __init__(self, **kw: object) -> None:
        super().__init__(**kw)  # type: ignore[arg-type]
        self.entities: tuple[AuthEntity, ...] | None = None
        self.missing: str | None = None  # why `auth ls` gave nothing (caps), shown instead of the list
        self.pool_names: tuple[str, ...] = ()
        self.show_daemons = True
        self.filter_text = ""
        self._select_next: str | None = None  # a user just created: put the cursor on it once it shows

    def compose(self) -> ComposeResult:
        yield Static(id="users-summary")
        with Vertical(id="users-box", classes="box"):
            yield FilterInput("filter: name or cap text (client.rbd, pool=rbd, profile rbd …)", id="users-filter")
            yield VirtualTable(COLUMNS, self._cells, key=self._key, id="users-table")
        yield Static(id="users-detail", classes="box")

    def on_mount(self) -> None:
        self.query_one("#users-box").border_title = "cephx entities (ceph auth ls; keys are never shown here)"
        self.query_one("#users-detail").border_title = "Selected"
        self.watch(self.vtable, "cursor", self._show_detail, init=False)
        self._summary()

    @property
    def vtable(self) -> VirtualTable[UserRow]:
        return self.query_one("#users-table", VirtualTable)

    def focus_table(self) -> None:
        self.vtable.focus()

    @property
    def me(self) -> str:
        return str(self.services.client.spec.name)

    # ------------------------------------------------------------ rendering
    @staticmethod
    def _key(row: UserRow) -> str:
        return row.entity.name if row.entity is not None else SEPARATOR_KEY

    def _cells(self, row: UserRow) -> tuple[tuple[str, str], ...]:
        e = row.entity
        if e is None:
            sep = palette.style("bold muted")
            return (("── daemons, bootstrap keys", sep), (row.label, sep)) + tuple(
                ("", "") for _ in COLUMNS[2:])
        name = e.name + ("  ◀ this session" if e.name == self.me else "")
        style = palette.style("bold info" if e.name == self.me else ("" if e.is_daemon else "bold"))
        cells: list[tuple[str, str]] = [(name, style)]
        for svc, width in COLUMNS[1:]:
            cap = e.cap(svc)
            if len(cap) > width:
                cap = cap[:width - 1] + "…"  # the Selected box below shows it whole
            cells.append((cap, "") if cap else ("-", palette.style("muted")))
        return tuple(cells)

    def fetch(self) -> Fetch:
        return Fetch(users=True)

    def show(self, snap: ClusterSnapshot) -> None:
        self.pool_names = tuple(p.name for p in snap.capacity.pools)
        missing = snap.missing("auth ls") if snap.users is None else None
        if missing != self.missing:
            self.missing = missing
            self._summary()
        if snap.users is None or snap.users == self.entities:
            return
        self.entities = snap.users
        self._refresh_view()

    def retheme(self) -> None:
        self._summary()  # show() skips unchanged users: draw the texts in the new colours here
        self._show_detail()

    def _refresh_view(self) -> None:
        if self.entities is None:
            return
        rows = user_rows(self.entities, self.show_daemons, self.filter_text)
        self.vtable.set_rows(rows)
        if self._select_next is not None:
            index = next((i for i, r in enumerate(rows) if r.entity and r.entity.name == self._select_next), None)
            if index is not None:
                self.vtable.cursor = index
                self._select_next = None
        shown = sum(r.entity is not None for r in rows)
        # the typed text, cut and with control characters made visible
        note = f" match '{readable(self.filter_text, 60)}'" if self.filter_text.strip() else ""
        set_subtitle(self.query_one("#users-box"), f"{shown} of {len(self.entities)} entities{note}")
        self._summary()
        self._show_detail()

    def _summary(self) -> None:
        parts = []
        if self.missing is not None:
            parts.append(palette.markup("bold warn", f"⚠ users unavailable: {escape(self.missing)}"))
        elif self.entities is None:
            parts.append("[i]reading ceph auth ls…[/]")
        else:
            daemons = sum(e.is_daemon for e in self.entities)
            clients = len(self.entities) - daemons
            parts.append(f"[b]{clients}[/] client{'s' if clients != 1 else ''}")
            parts.append(f"{daemons} daemon/bootstrap keys ({'shown' if self.show_daemons else 'hidden'}, d)")
        parts.append(f"connected as {palette.markup('bold info', escape(self.me))}")
        parts.append("keys: k reveals one, x exports a keyring")
        self.query_one("#users-summary", Static).update(" · ".join(parts))

    def _show_detail(self) -> None:
        detail = self.query_one("#users-detail", Static)
        e = self.selected()
        if e is None:
            detail.update(Text("Select an entity (n creates a new user).", style=palette.style("muted")))
            return
        t = Table.grid(padding=(0, 2))
        t.add_column(style="bold", width=8)
        t.add_column()
        t.add_row("entity", Text(e.name, style="bold"))
        for svc, cap in e.caps:
            t.add_row(svc, cap)
        if not e.caps:
            t.add_row("caps", Text("none: this entity can do nothing", style=palette.style("warn")))
        t.add_row("key", Text("hidden (k reveals it, x exports the keyring)", style=palette.style("muted")))
        why = why_protected(e, self.me)
        if why:
            t.add_row("note", Text(why, style=palette.style("warn")))
        detail.update(t)

    # ------------------------------------------------------------ helpers
    def selected(self) -> AuthEntity | None:
        vt = self.vtable
        if 0 <= vt.cursor < vt.row_count:
            return vt.rows[vt.cursor].entity
        return None

    def _need_selected(self) -> AuthEntity | None:
        e = self.selected()
        if e is None:
            self.app.notify("Select an entity first.", severity="warning")
        return e

    @property
    def _audit(self) -> ops.AuditLog | None:
        return self.services.audit

    # ------------------------------------------------------------ filter / view
    @on(FilterInput.Applied, "#users-filter")
    def _apply_filter(self, event: FilterInput.Applied) -> None:
        self.filter_text = event.text
        self._refresh_view()

    @on(Input.Submitted, "#users-filter")
    def _filter_submitted(self) -> None:
        self.vtable.focus()

    def is_match(self, table: object, index: int) -> bool:
        """`n`/`N` under a filter: users, not the separator row."""
        return table is not self.vtable or self.vtable.rows[index].entity is not None

    def action_focus_filter(self) -> None:
        self.query_one("#users-filter", Input).focus()

    def action_clear_filter(self) -> None:
        self.query_one("#users-filter", FilterInput).clear_filter()
        self.vtable.focus()

    def action_toggle_daemons(self) -> None:
        self.show_daemons = not self.show_daemons
        self._refresh_view()
        self._summary()

    # ------------------------------------------------------------ actions
    def action_new_user(self) -> None:
        if self.entities is not None:
            self._new_user(self.pool_names, {e.name for e in self.entities})
        elif self.missing is not None:
            self.app.notify(f"Cannot list the users to check a new name against: {self.missing}", severity="warning")
        else:
            # `c` typed with the tab, before its first `auth ls` came (over ssh, `6c vmhost4⏎` in one read): read
            # the users here, and the wizard opens on them. The keys typed behind `c` wait for this read
            # (FORM_FOLLOWS) and go to the wizard, not to the tab (where the `4` of the name switched to CRUSH).
            self._read_users_then_create()

    @work(thread=True, group="users-read", exit_on_error=False, name=FORM_FOLLOWS,
          description="read the users (ceph auth ls)")
    def _read_users_then_create(self) -> None:
        try:
            users = parse_auth_ls(self.services.client.mon("auth ls"))
        except CephError as e:
            self.app.call_from_thread(self.app.notify, f"Cannot read the users (ceph auth ls): {e}", severity="error")
            return
        self.app.call_from_thread(self._new_user, self.pool_names, {e.name for e in users})

    @work(group="user-wizard", description="new cephx user")
    async def _new_user(self, pools: Sequence[str], existing: set[str]) -> None:
        name = await create_user(self, pools, existing)
        if name is not None:
            self._select_next = name
            self.app.notify(f"Created {name}. Select it and press x to export its keyring (mode 0600).",
                            timeout=8)

    def action_edit_caps(self) -> None:
        e = self._need_selected()
        if e is not None:
            self._edit_caps(e)

    @work(group="user-wizard", description="edit caps")
    async def _edit_caps(self, e: AuthEntity) -> None:
        """The caps form, then old and new side by side in the confirm dialog."""
        result = await edit_caps_form(e, self)
        if not result:
            return
        new = dict(zip(result[0].command["caps"][::2], result[0].command["caps"][1::2]))
        explain = caps_diff(e.name, e.caps_dict, new, is_self=e.name == self.me, is_daemon=e.is_daemon)
        await self.services.ask_confirm(result, explain=explain)

    def action_reveal_key(self) -> None:
        e = self._need_selected()
        if e is None:
            return
        from cephtui.ui.screens.users_keys import KeyScreen

        self.app.push_screen(KeyScreen(self.services.client, e.name, self._audit))

    def action_export_keyring(self) -> None:
        e = self._need_selected()
        if e is None:
            return
        from cephtui.ui.screens.users_keys import ExportKeyringScreen, default_keyring_path

        self._export(ExportKeyringScreen(self.services.client, e.name,
                                         default_keyring_path(e.name), self._audit), e.name)

    @work(group="user-wizard", description="export a keyring")
    async def _export(self, screen: ExportKeyringScreen, name: str) -> None:
        path = await self.app.push_screen_wait(screen)
        if path:
            self.app.notify(f"Keyring of {name} written to {path} (mode 0600).")

    def action_delete(self) -> None:
        self._delete(force=False)

    def action_force_delete(self) -> None:
        self._delete(force=True)

    def _delete(self, force: bool) -> None:
        e = self._need_selected()
        if e is None:
            return
        why = why_protected(e, self.me)
        if why and not force:
            self.app.notify(f"Refused: {why}. If you really mean it, press F (force delete) and type "
                            f"'force {e.name}'.", severity="error", timeout=12)
            return
        try:
            op = ops.auth_del(e.name)
        except ValueError as err:
            self.app.notify(str(err), severity="error")
            return
        explain: Any = ""
        if why:
            op = dataclasses.replace(op, title=f"FORCE: delete {e.name} and its key", confirm_text=f"force {e.name}")
            explain = Text(f"Warning: {why}.", style=palette.style("bold err"))
        elif force:
            explain = Text(f"{e.name} is an ordinary client: a plain delete (D) would do.",
                           style=palette.style("muted"))
        self.services.confirm_operations([op], explain=explain)
