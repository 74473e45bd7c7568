"""What panes, screens and wizards see of the running app: the AppServices Protocol, and `services_of(node)`.

Nothing under ui/ imports the app class (ui/app.py imports every pane; the panes importing it back made the
UI one import circle). A widget asks `services_of(self)` (a pane has it as `self.services`) for cephtui's
services: the cluster client, the audit log, the last snapshot, the confirm dialog and forms, the removal
queue. What any Textual app does (notify, push_screen, call_from_thread, workers) it asks of `self.app`.
The app registers itself with `serve` (which mypy checks against the Protocol).
"""
from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

from rich.console import RenderableType
from textual.app import App
from textual.dom import DOMNode
from textual.widget import Widget

from cephtui.ceph import ops
from cephtui.ceph.cluster import Cluster
from cephtui.ceph.snapshot.cluster_snapshot import ClusterSnapshot
from cephtui.ceph.workflows.maintenance import MaintenanceStore
from cephtui.ceph.workflows.removal import Removal
from cephtui.ceph.workflows.removal_engine import RemovalEngine
from cephtui.ceph.workflows.store import WorkflowStore
from cephtui.config.model import BenchDefaults
from cephtui.ui.dialog_types import Builder, Field, Outcome
from cephtui.ui.history import History
from cephtui.ui.widgets.statusbar import StatusBar

W = TypeVar("W", bound=Widget)


class RemovalService(Protocol):
    """The OSD removal queue as the app keeps it (ui/removals.py): this session's engines and everyone's rows."""

    engines: dict[str, RemovalEngine]  # this session's workflows (started or taken over here), by id
    queue: list[dict[str, Any]]  # the cluster's queue as last read (colleagues' too)

    def rows(self) -> list[dict[str, Any]]: ...

    def start(self, plan: Removal) -> None: ...

    def open(self, wf_id: str) -> None: ...

    def abort(self, engine: RemovalEngine) -> None: ...

    def tick(self) -> None: ...


class AppServices(Protocol):
    client: Cluster
    audit: ops.AuditLog
    read_only: bool
    read_only_why: str  # why --read-only is on ("read_only = true in …"), for refusals
    osd_stop_cmd: str  # e.g. "ssh {host} systemctl stop ceph-osd@{id}"; "" = systemd here, or by hand
    bench_defaults: BenchDefaults | None  # the config file's [bench]
    workflow_store: WorkflowStore  # the workflows kept in the cluster (config-key)
    maintenance_store: MaintenanceStore  # the maintenance records, in the same store
    statusbar: StatusBar
    history: History  # the recorded history: its view, window and time cursor (ui/history.py)

    @property
    def snapshot(self) -> ClusterSnapshot | None:
        """The last snapshot the poller brought (None before the first)."""

    @property
    def active_tab(self) -> str:
        """The key of the tab shown (ui/tabs.py)."""

    @property
    def removals(self) -> RemovalService: ...

    def pane(self, cls: type[W]) -> W:
        """The one pane of that class."""

    def show_tab(self, key: str) -> None: ...

    def refresh_now(self) -> None:
        """Poll the cluster now (after a change), not at the next refresh."""

    def when_opened(self, pane: Widget, draw: Callable[[], None]) -> None:
        """A hidden pane has news of its own: `draw` runs when its tab opens."""

    def bury(self, rows: list[object]) -> None:
        """A big list the UI no longer shows, freed off the UI thread."""

    def jump_to_osds(self, ids: tuple[int, ...]) -> None: ...

    def refuse_if_read_only(self, what: str) -> bool:
        """In --read-only mode say why `what` cannot be done and return True."""

    def confirm_operations(self, operations: list[ops.Operation], explain: RenderableType | str = "",
                           preview: Callable[[], RenderableType] | None = None,
                           undo: Callable[[Sequence[ops.Operation]], list[ops.Operation]] | None = None) -> None:
        """Show the commands, confirm, run them; refresh once the dialog closes."""

    async def ask_confirm(self, operations: list[ops.Operation], explain: RenderableType | str = "",
                          preview: Callable[[], RenderableType] | None = None,
                          undo: Callable[[Sequence[ops.Operation]], list[ops.Operation]] | None = None,
                          before_run: Callable[[], str] | None = None) -> Outcome | None:
        """The confirm dialog as one step of a flow: its outcome, None if refused."""

    def form_then_confirm(self, title: str, fields: Sequence[Field], build: Builder, help: str = "",
                          warn: Callable[[dict[str, str]], Sequence[str]] | None = None) -> None:
        """A checked form whose operations then go through the confirm dialog."""


_SERVING: weakref.WeakKeyDictionary[App[Any], AppServices] = weakref.WeakKeyDictionary()


def serve(app: App[Any], services: AppServices) -> None:
    """`app` offers `services` to its widgets (CephTUI passes itself: mypy checks it keeps the Protocol)."""
    _SERVING[app] = services


def services_of(node: DOMNode) -> AppServices:
    """The services of the app `node` runs in; a TypeError where it runs in another app (a bare test app)."""
    found = _SERVING.get(node.app)
    if found is None:
        raise TypeError(f"{type(node).__name__} runs in {type(node.app).__name__}, which offers no cephtui services")
    return found
