"""--read-only: every mutating action stays visible, dimmed, and says why when used.

Three layers, so one forgotten key cannot write: a pane lists its mutating
actions (dimmed in the footer, refused with a message by the app before they
run), the app's shared paths (confirm dialog, forms, workflows) refuse, and
the client itself refuses any command the cluster's own table marks "w".
"""
from __future__ import annotations

from cephtui.ui.pane import Pane

WHY = "cephtui was started with --read-only"


def refusal(what: str, why: str = WHY) -> str:
    return f"Read-only mode: {what} is disabled ({why})."


# What keeps the guard: every pane's MUTATING and check_action (ui/pane.py).
GuardedActions = Pane


def mutating_action(target: object, action: str) -> str | None:
    """What `action` on `target` (the app, a screen, a pane) would change, if it is a pane's mutating action."""
    return target.MUTATING.get(action) if isinstance(target, Pane) else None
