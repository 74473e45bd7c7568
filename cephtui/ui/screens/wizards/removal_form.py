"""The removal form's one behaviour beyond a plain form: the drain follows what is done.

A removal drains by CRUSH weight 0 by default and a replacement by marking out (removal.default_drain says
why). Switching remove/replace moves the drain to that kind's default, unless the operator had picked the
other drain; a drain that costs more than the default is explained under the form.
"""
from __future__ import annotations

from collections.abc import Sequence

from textual import on
from textual.widgets import Select

from cephtui.ceph.workflows.removal import Removal, default_drain
from cephtui.ceph.workflows.removal_plan import drain_cost
from cephtui.ui.dialog_types import Builder, Field
from cephtui.ui.screens.wizards.form import FormScreen

KINDS = ("remove", "replace")


def drain_notes(osds: Sequence[int], values: dict[str, str]) -> list[str]:
    """What a drain other than the kind's default costs (shown under the form as a warning)."""
    kind, drain = values.get("mode"), values.get("drain")
    if kind not in KINDS or not drain or drain == default_drain(kind == "replace"):
        return []
    return [drain_cost(Removal(osds=list(osds) or [0], replace=kind == "replace", drain_mode=drain))]


class RemovalForm(FormScreen):
    def __init__(self, title: str, fields: Sequence[Field], build: Builder, osds: Sequence[int],
                 help: str = "") -> None:
        super().__init__(title, fields, build, help=help, warn=lambda v: drain_notes(osds, v))
        self._kind = next((f.value for f in fields if f.key == "mode"), "")

    @on(Select.Changed, "#field-mode")
    def _kind_changed(self, event: Select.Changed) -> None:
        old, new = self._kind, str(event.value)
        self._kind = new
        if old not in KINDS or new not in KINDS or old == new:
            return
        drain = self.query_one("#field-drain", Select)
        if drain.value == default_drain(old == "replace"):  # still the default: not a choice to keep
            drain.value = default_drain(new == "replace")
