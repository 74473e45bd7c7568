"""Which OSDs an unfinished workflow (a removal or a maintenance, anyone's) holds, for the forms that start
one: they say it at once, as the OSDs are chosen, before any typed name; the first save checks the cluster
again (workflows.store), so a form working from a queue read a few seconds ago cannot let a conflict through.
"""
from __future__ import annotations

import logging
from typing import Any

from textual.dom import DOMNode

from cephtui.ceph.workflows.maintenance import KIND as MAINTENANCE
from cephtui.ceph.workflows.maintenance import Maintenance
from cephtui.ceph.workflows.removal import KIND as REMOVAL
from cephtui.ceph.workflows.removal import Check
from cephtui.ceph.workflows.store import META, WorkflowStore, conflict_text
from cephtui.ui.dialog_flows import in_thread
from cephtui.ui.services import services_of

log = logging.getLogger("cephtui")


async def refresh_holds(node: DOMNode) -> None:
    """Read the cluster's removal queue and maintenance records now, on a thread (a colleague may have started
    one a moment ago); the last read stays when the mons do not answer (the stores say why)."""
    app = services_of(node)

    def read() -> None:
        app.removals.queue = app.workflow_store.load_all(REMOVAL)
        app.maintenance_store.load()

    try:
        await in_thread(node, read, "read the removal queue and maintenance records", form_follows=True)
    except Exception:
        log.exception("reading the workflow queues failed")


def holders(node: DOMNode, osds: list[int], kinds: tuple[str, ...] = (REMOVAL, MAINTENANCE)) -> list[dict[str, Any]]:
    """The unfinished workflows of `kinds` holding any of `osds`, as last read (this session's removals at
    their last saved state, whole: RemovalEngine.published), each a stored workflow with its kind, for
    conflict_text."""
    app = services_of(node)
    queue: list[dict[str, Any]] = []
    if REMOVAL in kinds:
        by_id = {d.get("id"): d for d in app.removals.queue}
        for wf_id, engine in app.removals.engines.items():
            meta = dict(by_id.get(wf_id, {}).get(META) or {})
            meta.setdefault("started_by", app.workflow_store.me)
            by_id[wf_id] = {**engine.published.to_json(), META: {**meta, "driven_by": app.workflow_store.me}}
        queue += [{**d, META: {**(d.get(META) or {}), "kind": REMOVAL}} for d in by_id.values()]
    if MAINTENANCE in kinds:
        queue += [maintenance_json(m) for m in app.maintenance_store.records if m.active]
    return app.workflow_store.conflicts(REMOVAL, osds, queue=queue)


def maintenance_json(m: Maintenance) -> dict[str, Any]:
    return {**m.to_json(), META: {"started_by": m.starter, "kind": MAINTENANCE}}


def refusal(node: DOMNode, osds: list[int], kinds: tuple[str, ...] = (REMOVAL, MAINTENANCE)) -> str:
    """conflict_text for the holders of `osds`, or ''."""
    found = holders(node, osds, kinds)
    return conflict_text(osds, found) if found else ""


def held_checks(store: WorkflowStore, osds: list[int]) -> list[Check]:
    """A blocker no override lifts when another unfinished workflow holds any of `osds`, read from the cluster
    now (a thread's call: the plan's preflight)."""
    found = store.conflicts(REMOVAL, osds)
    return [Check("workflow", "block", conflict_text(osds, found))] if found else []
