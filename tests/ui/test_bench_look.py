"""Bench tab forms on a replayed capture (no cluster): bad input is refused with a clear line, and nothing runs
(the form never reaches for librados, no history is written)."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cephtui.ui.app import CephTUI
from cephtui.ui.screens.wizards.form import FormScreen
from tests.ui.helpers import SIZE, click, open_screen, text_of
from tests.ui.test_bench import fill, open_bench

LookApp = Callable[..., CephTUI]


@pytest.fixture(autouse=True)
def own_history(tmp_path: Path, monkeypatch: Any) -> Path:
    monkeypatch.setenv("CEPHTUI_DATA_DIR", str(tmp_path))
    return tmp_path / "bench-history.jsonl"


@pytest.mark.parametrize("values,message", [
    ({"seconds": "abc"}, "seconds: 'abc' is not a number"),
    ({"seconds": "-3"}, "seconds must be between"),
    ({"threads": "0"}, "threads (concurrent ops) must be between 1 and 1024"),
    ({"op_size": "4X"}, "not a size"),
    ({"op_size": "4K", "object_size": "6K"}, "multiple of the op size"),
    ({"run_name": "two words"}, "run name"),
])
async def test_bad_input_is_refused_and_nothing_runs(look_app: LookApp, own_history: Path,
                                                     values: dict[str, str], message: str) -> None:
    app = look_app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_bench(app, pilot)
        asked = app.client.handle_asked  # the cluster log's reader asks once at start
        await open_screen(pilot, "b", FormScreen)
        form = await fill(app, pilot, values)
        assert message in text_of(app, "#form-status")
        await click(pilot, "#form-ok")
        await pilot.pause()  # the press handled: the form refused it
        assert app.screen is form and pane.engine is None and not pane.phase
    assert not own_history.exists() and app.client.handle_asked == asked
