"""Multi-step dialog flows as workers: each step awaited in turn (`App.push_screen_wait`), so what one
step found is a local variable of the next, not state parked on the pane between callbacks."""
from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from textual.dom import DOMNode
from textual.worker import WorkerFailed

from cephtui.ui.compat import FLOW_READ, FORM_FOLLOWS

T = TypeVar("T")


async def in_thread(node: DOMNode, fn: Callable[[], T], description: str, form_follows: bool = False) -> T:
    """`fn()` on a thread worker, awaited by a flow: a blocking cluster call stays off the UI thread.

    Its exception is raised here, as if `fn` had been called in place. form_follows: the flow's next step is a
    form (or a confirmation), so the keys typed behind the key that started it wait for the read and go to that
    form (compat.KeysInOrder); otherwise they go on at once: keys never wait on the cluster.
    """
    worker = node.run_worker(fn, thread=True, exit_on_error=False, description=description,
                             name=FORM_FOLLOWS if form_follows else FLOW_READ)
    try:
        return await worker.wait()
    except WorkerFailed as e:
        raise e.error from None


def flow_running(node: DOMNode, group: str) -> bool:
    """A flow of `node` in `group` is still under way (one at a time: a second key press is refused)."""
    return any(w.node is node and w.group == group and not w.is_finished for w in node.workers)
