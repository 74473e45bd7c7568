"""The one shape of the dialogs that look at something in the cluster (crashes, scrub errors, the config
database, the balancer, slow ops, the health timeline): read when opened and again on reload, show it, send
what the admin picks through the confirm dialog, and read again once that ran. A master-detail dialog also
shows, below its table, the highlighted row's own part (a backtrace, the objects of a PG, an option's help),
read on each move.

A subclass writes `load` (and `detail` if it has that half); the base runs them as exclusive workers of the
dialog, so a reload asked for while one runs replaces it and nothing waits on the UI thread.
"""
from __future__ import annotations

from collections.abc import Callable, Coroutine, Sequence
from typing import Any, TypeVar

from rich.console import RenderableType
from textual.widgets import DataTable
from textual.worker import Worker

from cephtui.ceph import ops
from cephtui.ceph.cluster import Cluster
from cephtui.ceph.errors import CephError
from cephtui.ui.dialog_flows import in_thread
from cephtui.ui.screens.dialog import Dialog
from cephtui.ui.services import AppServices, services_of

T = TypeVar("T")


class ReadingDialog(Dialog[None]):
    def on_mount(self) -> None:
        self.action_reload()

    @property
    def services(self) -> AppServices:
        return services_of(self)

    @property
    def client(self) -> Cluster:
        return self.services.client

    @property
    def _group(self) -> str:
        return type(self).__name__

    # ------------------------------------------------------------ the whole
    def action_reload(self) -> None:
        # The coroutine function, not a coroutine: a read replaced (exclusive) or cancelled before it started
        # leaves no coroutine that was never awaited (Python's RuntimeWarning in the suite's logs).
        self._run(self.load, "load", "read")

    def _run(self, work: Callable[[], Coroutine[Any, Any, None]], part: str, what: str) -> Worker[None]:
        return self.run_worker(work, group=f"{self._group}-{part}", exclusive=True, exit_on_error=False,
                               description=f"{self._group}: {what}")

    async def load(self) -> None:
        """Read what the dialog shows (await `self.ask` or dialog_flows.in_thread) and show it."""
        raise NotImplementedError(f"{type(self).__name__}.load")

    async def ask(self, what: str, fn: Callable[[], T]) -> T | CephError:
        """`fn()` off the UI thread; the cluster's refusal is returned, to be shown where its answer would be."""
        try:
            return await in_thread(self, fn, what)
        except CephError as e:
            return e

    # ------------------------------------------------------------ the highlighted row
    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_detail()

    def show_detail(self) -> None:
        self._run(self.detail, "detail", "the highlighted row")

    async def detail(self) -> None:
        """Show the highlighted row's own part; nothing where the dialog has no table."""

    @staticmethod
    def row_key(table: DataTable[Any]) -> str | None:
        """The key of the row under the table's cursor, or None when the table is empty."""
        if not table.row_count or not 0 <= table.cursor_row < table.row_count:
            return None
        return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)

    # ------------------------------------------------------------ changes
    def confirm_then_reload(self, operations: Sequence[ops.Operation], explain: RenderableType | str = "") -> None:
        """The confirm dialog for `operations`; read again once they ran."""
        self.run_worker(self._confirm_then_reload(list(operations), explain), group=f"{self._group}-flow",
                        exclusive=True, exit_on_error=False, description=f"{self._group}: confirm")

    async def _confirm_then_reload(self, operations: list[ops.Operation], explain: RenderableType | str) -> None:
        outcome = await self.services.ask_confirm(operations, explain=explain)
        if outcome is not None and outcome.ran:
            self.action_reload()
