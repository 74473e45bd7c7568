"""Before a block run: the temporary images that killed runs left behind, offered for removal."""
from __future__ import annotations

import asyncio
from collections.abc import Sequence

from textual.widget import Widget

from cephtui.ceph.bench.image import Leftover, find_leftovers, image_remove_op
from cephtui.ceph.bench.params import BenchError
from cephtui.ceph.bench.service import remove_temp_leftovers
from cephtui.ui.screens.bench_views import BenchConfirmScreen
from cephtui.ui.services import services_of


async def offer_leftover_images(node: Widget, pools: Sequence[str]) -> None:
    """Temporary images that killed runs left (their process is gone, nobody watches them): offered for
    removal, each `rbd rm` shown and audited, before the block run's form (a flow: await it from a worker of
    `node`)."""
    services = services_of(node)
    spec = services.client.spec

    def find() -> list[Leftover]:
        from cephtui.ceph.bench.rbdengine import BlockSession, rbd
        found: list[Leftover] = []
        for pool in pools:
            try:
                session = BlockSession(spec, pool)
            except BenchError:
                continue
            try:
                found += find_leftovers(session.io, rbd)
            finally:
                session.close()
        return found

    try:
        leftovers = await asyncio.to_thread(find)
    except Exception as e:  # rbd errors: said; the run form still opens
        node.app.notify(f"could not look for leftover temporary images: {e}", severity="warning")
        return
    removable = [left for left in leftovers if left.removable]
    if not removable:
        return
    plan = [image_remove_op(left.pool, left.name) for left in removable]
    if not await node.app.push_screen_wait(BenchConfirmScreen(
            f"Remove {len(plan)} temporary image(s) left by killed benchmark runs?", plan,
            "Their runs are gone (their process no longer exists, and nobody has them open). Cancel keeps "
            "them; `cephtui bench rbd --pool P --cleanup-temp` removes them later.")):
        return
    audit = services.audit
    removed: list[str] = []
    problems: list[str] = []
    for pool in dict.fromkeys(left.pool for left in removable):
        done, failed = await asyncio.to_thread(remove_temp_leftovers, spec, pool, audit)
        removed += done
        problems += failed
    node.app.notify(f"removed {len(removed)} leftover image(s)" + (f"; {'; '.join(problems)}" if problems
                                                                    else ""),
                    severity="warning" if problems else "information")
