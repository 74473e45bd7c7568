"""Waiting, in the look tier, until the app has drawn what its last key asked for: a condition, not a sleep."""
from __future__ import annotations

import time
from collections.abc import Callable

from textual.app import App
from textual.pilot import Pilot
from textual.worker import Worker, WorkerState

from cephtui.ui.tabs import NUMBER_KEYS, TABS, number_key

QUIET_ROUNDS = 5  # consecutive looks with nothing running and nothing new asked of the cluster


async def settle(pilot: Pilot, timeout: float = 20,
                 ready: Callable[[App], bool] = lambda app: True) -> None:
    """Until no worker runs, the client has been asked nothing new, and `ready(app)` holds (what a pane
    draws from a timer of its own, not from a worker), for QUIET_ROUNDS looks in a row; a replay answers
    at once, so this is quick."""
    app = pilot.app
    client = app.client  # type: ignore[attr-defined]
    deadline = time.monotonic() + timeout
    quiet, seen = 0, -1
    while quiet < QUIET_ROUNDS:
        if time.monotonic() > deadline:
            raise AssertionError(f"the app did not settle within {timeout:.0f} s")
        await pilot.pause(0.05)
        busy = any(_busy(w) for w in app.workers)
        asked = len(getattr(client, "sent", ()))
        waiting = busy or asked != seen or app.snapshot is None or not ready(app)  # type: ignore[attr-defined]
        quiet = 0 if waiting else quiet + 1
        seen = asked
    await pilot.wait_for_scheduled_animations()


def _busy(worker: Worker) -> bool:
    """A thread worker (a cluster read) not yet done, or any worker not yet started. A flow's own async
    worker runs for as long as its dialog is open (dialog_flows.py: it awaits the screen's answer), so a running
    one is not "busy": what it reads it reads on a thread worker, which is."""
    if worker.state is WorkerState.PENDING:
        return True
    return worker.state is WorkerState.RUNNING and worker._thread_worker  # Textual has no public name for it


def keys_for(tab: str) -> list[str]:
    """The keys an admin presses to show `tab`: its number, or `:` and its name past the tenth."""
    place = next(i for i, t in enumerate(TABS, 1) if t.key == tab)
    return [number_key(place)] if place <= NUMBER_KEYS else [":", *tab, "enter"]
