"""The snapshot tests can fail: one character changed in what a pane draws, or in its layout, gives a screen
that differs from the stored baseline, while the same app unchanged gives the baseline exactly.

These compare by hand (the screenshot pytest-textual-snapshot takes, normalised as it stores them) with the
baseline test_tab_snapshots.py keeps, so that `--snapshot-update` can never store a changed screen."""
from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pytest_textual_snapshot import normalize_svg
from textual._doc import take_svg_screenshot
from textual.pilot import Pilot

from cephtui.ui import app as app_module
from cephtui.ui.app import CephTUI
from cephtui.ui.panes import health
from tests.look.conftest import snapshots_here
from tests.look.settle import keys_for, settle

pytestmark = snapshots_here

SIZE = (120, 36)
BASELINE = Path(__file__).parent / "__snapshots__" / "test_tab_snapshots" / "test_tabs[pacific-120x36][health].svg"


def health_screen(app: CephTUI) -> str:
    """The Health tab's screen as test_tab_snapshots.py takes it (the first tab of its walk), normalised as syrupy
    stores it."""
    async def show(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press(*keys_for("health"))
        await settle(pilot)

    return normalize_svg(take_svg_screenshot(app=app, terminal_size=SIZE, run_before=show))


@pytest.fixture
def baseline() -> str:
    if not BASELINE.is_file():
        pytest.fail(f"no baseline {BASELINE.name}: run pytest tests/look --snapshot-update")
    return BASELINE.read_text()


def test_the_unchanged_app_gives_its_baseline(look_app: Callable[..., CephTUI], baseline: str) -> None:
    assert health_screen(look_app("pacific")) == baseline


def test_one_character_of_a_panes_text_fails(look_app: Callable[..., CephTUI], baseline: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    assert health.LOG_TITLE == "Cluster log (ceph -w)"
    monkeypatch.setattr(health, "LOG_TITLE", "Cluster log (ceph -W)")
    assert health_screen(look_app("pacific")) != baseline


def test_one_character_of_a_panes_layout_fails(look_app: Callable[..., CephTUI], baseline: str,
                                               monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    css = Path(app_module.__file__).with_name("app.tcss").read_text()
    rule = re.compile(r"^#health-log \{ width: 1fr; \}$", re.M)  # the wide layout's, not `.-narrow`'s
    assert len(rule.findall(css)) == 1, "the Health log's width rule moved: pick another one-character change"
    changed = tmp_path / "app.tcss"
    changed.write_text(rule.sub("#health-log { width: 2fr; }", css))
    monkeypatch.setattr(CephTUI, "CSS_PATH", changed)
    app: Any = look_app("pacific")
    assert health_screen(app) != baseline
