"""The typed way from a widget to the running CephTUI: `cephtui_app(self).client`, never
a getattr on the app or a type-ignore. Panes have it as `self.cephtui` (ui/pane.py)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from textual.dom import DOMNode

if TYPE_CHECKING:
    from cephtui.ui.app import CephTUI


def cephtui_app(node: DOMNode) -> CephTUI:
    """The app `node` runs in, as the CephTUI it is (mypy checks every attribute used on it)."""
    from cephtui.ui.app import CephTUI  # here: ui/app.py imports every pane, which import this module

    app = node.app
    if not isinstance(app, CephTUI):
        raise TypeError(f"{type(node).__name__} runs in {type(app).__name__}, not in a CephTUI")
    return app
