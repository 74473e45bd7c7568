"""The Bench tab's block mode on the look capture (no cluster): `k` switches to block runs, `b` opens the image
form, and bad input is refused with the reason while nothing runs. Runs on a real image, the temporary image and
killed runs' leftovers are tests/ui/test_bench_block.py's."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cephtui.ui.app import CephTUI
from cephtui.ui.panes.bench import BenchPane
from cephtui.ui.screens.wizards.form import FormScreen
from tests.ui.helpers import SIZE, click, wait_for, wait_screen
from tests.ui.test_bench import fill, flat, open_bench


@pytest.fixture(autouse=True)
def own_history(tmp_path: Path, monkeypatch: Any) -> Path:
    monkeypatch.setenv("CEPHTUI_DATA_DIR", str(tmp_path))
    return tmp_path / "bench-history.jsonl"


async def block_form(app: CephTUI, pilot: Any) -> FormScreen:
    pane = await open_bench(app, pilot)
    await pilot.press("k")
    await wait_for(pilot, lambda: pane.kind == "rbd", 5, "block mode")
    assert "block · rbd bench" in str(app.query_one("#bench-live").border_title)
    await pilot.press("b")
    form = await wait_screen(pilot, FormScreen, 20, "the block form (images listed off the UI thread)")
    assert isinstance(form, FormScreen)
    return form


async def test_the_image_form_refuses_bad_input_and_nothing_runs(look_app: Any, own_history: Path) -> None:
    app = look_app()
    async with app.run_test(size=SIZE) as pilot:
        form = await block_form(app, pilot)
        asked = app.client.handle_asked  # a run would open an image through librados
        for values, message in (({"other": "no-slash"}, "is not pool/name"),
                                ({"other": "", "io_size": "4X"}, "not a size"),
                                ({"io_size": "4K", "io_threads": "0"}, "between 1 and"),
                                ({"io_threads": "16", "rw_mix_read": "120"}, "percentage")):
            await fill(app, pilot, values)
            assert message in flat(app, "#form-status"), values
            await click(pilot, "#form-ok")
            assert app.screen is form
        assert app.pane(BenchPane).bench_run is None and app.pane(BenchPane).last_result is None  # nothing ran
        assert app.client.handle_asked == asked
    # No image was made or written: nothing but reads was sent (look_app fails a mutating command), no history.
    assert not [p for _, p, _ in app.client.sent if p.startswith("rbd") or "create" in p]
    assert not own_history.exists()
