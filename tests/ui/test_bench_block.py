"""The Bench tab's block mode through Pilot on the real cluster: k switches to block runs, the image picker,
the typed name a write to an existing image needs, a temporary image made and removed, killed runs' leftovers
offered for removal."""
from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Select

from cephtui.ceph.bench.image import TEMP_IMAGE_PREFIX, short_host
from cephtui.ui.panes.bench import BenchPane
from cephtui.ui.screens.bench_views import BenchConfirmScreen
from cephtui.ui.screens.wizards.form import FormScreen
from tests.conftest import Sandbox
from tests.ui.helpers import SIZE, cells, click, wait_for, wait_screen
from tests.ui.test_bench import fill, flat, open_bench, set_choice
from tests.ui.test_bench_block_look import block_form

rbd = pytest.importorskip("rbd")
MiB = 1024 * 1024


@pytest.fixture(autouse=True)
def own_history(tmp_path: Path, monkeypatch: Any) -> Path:
    monkeypatch.setenv("CEPHTUI_DATA_DIR", str(tmp_path))
    return tmp_path / "bench-history.jsonl"


def images(io: Any) -> list[str]:
    return sorted(rbd.RBD().list(io))


def data_objects(io: Any, name: str) -> int:
    with rbd.Image(io, name, read_only=True) as image:
        prefix = image.stat()["block_name_prefix"]
    return sum(1 for o in io.list_objects() if o.key.startswith(prefix))


@pytest.fixture
def image(ioctx: Any, request: pytest.FixtureRequest) -> Iterator[str]:
    name = f"ui-{request.node.name[:30]}".replace("[", "-").replace("]", "")
    rbd.RBD().create(ioctx, name, 64 * MiB)
    try:
        yield name
    finally:
        rbd.RBD().remove(ioctx, name)


async def test_a_write_to_an_image_needs_its_name_typed_then_runs_like_rbd_bench(
        make_app: Any, sandbox: Sandbox, ioctx: Any, image: str, own_history: Path) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        form = await block_form(app, pilot)
        choices = [v for _, v in form.query_one("#field-target", Select)._options]
        assert "temp:rbd" in choices and f"rbd/{image}" in choices  # the picker lists the pool's images
        await set_choice(app, pilot, "target", f"rbd/{image}")
        await set_choice(app, pilot, "io_pattern", "rand")
        await fill(app, pilot, {"io_total": "4M", "io_size": "4K"})
        status = flat(app, "#form-status")
        assert f"type its name ({image}) to confirm" in status  # refused until typed: nothing can run
        await click(pilot, "#form-ok")
        assert app.screen is form and data_objects(ioctx, image) == 0
        await fill(app, pilot, {"confirm": image})
        status = flat(app, "#form-status")
        cli = (f"CEPH_ARGS=--rbd_cache=false rbd bench --io-type write --io-size 4096 --io-threads 16 "
               f"--io-total 4194304 --io-pattern rand rbd/{image}")
        assert cli in status and "fio equivalent: CEPH_ARGS=--rbd_cache=false fio --name=cephtui --ioengine=rbd" \
               in status
        await click(pilot, "#form-ok")
        confirm = await wait_screen(pilot, BenchConfirmScreen, 10, "the confirmation")
        assert cli in flat(app, "#bench-confirm-body") and "overwritten" in flat(app, "#bench-confirm-body")
        assert isinstance(confirm, BenchConfirmScreen)
        await click(pilot, "#bench-confirm-run")
        pane = app.pane(BenchPane)
        await wait_for(pilot, lambda: pane.last_result is not None and pane.engine is None, 60, "the block run")
        r = pane.last_result
        assert r is not None and r.ok and r.ops == 1024, r.error
        summary = flat(app, "#bench-summary")
        assert "rbd-w" in summary and "cache off" in summary and "p99.9" in summary
        assert cells(app, "#bench-history", 1) == ["rbd-w"] and cells(app, "#bench-history", 2) == [f"rbd/{image}"]
    assert data_objects(ioctx, image) > 0  # it wrote to the image it was told to
    saved = [json.loads(line) for line in own_history.read_text().splitlines()]
    assert saved[-1]["kind"] == "rbd" and saved[-1]["params"]["cache"] == "off"
    audit = [json.loads(line) for line in Path(os.environ["CEPHTUI_AUDIT_LOG"]).read_text().splitlines()]
    assert audit[-1]["cli"].startswith(cli) and audit[-1]["ok"]


async def test_a_temporary_image_is_made_for_the_run_and_removed(make_app: Any, sandbox: Sandbox,
                                                                  ioctx: Any) -> None:
    before = images(ioctx)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await block_form(app, pilot)
        await set_choice(app, pilot, "target", "temp:rbd")
        await fill(app, pilot, {"temp_size": "64M", "io_total": "8M", "io_size": "64K"})
        status = flat(app, "#form-status")
        assert f"rbd create --size 64M rbd/{TEMP_IMAGE_PREFIX}" in status and "rbd bench --io-type write" in status
        await click(pilot, "#form-ok")
        await wait_screen(pilot, BenchConfirmScreen, 10, "the confirmation")
        body = flat(app, "#bench-confirm-body")
        name = next(w for w in body.split() if w.startswith(f"rbd/{TEMP_IMAGE_PREFIX}"))
        assert f"rbd rm {name}" in body  # the removal is shown before anything runs
        await click(pilot, "#bench-confirm-run")
        pane = app.pane(BenchPane)
        await wait_for(pilot, lambda: pane.last_result is not None and pane.engine is None and not pane.phase, 60,
                       "the run and the image's removal")
        assert pane.last_result is not None and pane.last_result.ok, pane.last_result.error
    assert images(ioctx) == before  # the temporary image is gone


async def test_a_killed_runs_leftover_image_is_offered_for_removal(make_app: Any, sandbox: Sandbox,
                                                                   ioctx: Any) -> None:
    dead = 2 ** 22 + 12345  # above pid_max's default: no process has it
    assert not Path(f"/proc/{dead}").exists()
    name = f"{TEMP_IMAGE_PREFIX}{short_host()}-{dead}"
    rbd.RBD().create(ioctx, name, 8 * MiB)
    try:
        app = make_app()
        async with app.run_test(size=SIZE) as pilot:
            pane = await open_bench(app, pilot)
            await pilot.press("k", "b")
            await wait_screen(pilot, BenchConfirmScreen, 20, "the offer to remove the leftover")
            assert f"rbd rm rbd/{name}" in flat(app, "#bench-confirm-body")
            await click(pilot, "#bench-confirm-run")
            await wait_screen(pilot, FormScreen, 20, "the block form after the removal")
            assert name not in images(ioctx)
            assert pane.kind == "rbd"
        audit = [json.loads(line) for line in Path(os.environ["CEPHTUI_AUDIT_LOG"]).read_text().splitlines()]
        assert any(a["cli"] == f"rbd rm rbd/{name}" and a["ok"] for a in audit)
    finally:
        if name in images(ioctx):
            rbd.RBD().remove(ioctx, name)


@pytest.mark.parametrize("kind", ["rados", "rbd"])
async def test_the_latency_probe_shows_its_floor_and_words_and_leaves_nothing(make_app: Any, sandbox: Sandbox,
                                                                            ioctx: Any, kind: str) -> None:
    from cephtui.ui.screens.bench_probe import ProbeResultScreen

    before = images(ioctx)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_bench(app, pilot, "rbd")
        if kind == "rbd":
            await pilot.press("k")
        await pilot.press("l")
        form = await wait_screen(pilot, FormScreen, 20, "the probe form")
        if kind == "rbd":
            await set_choice(app, pilot, "target", "temp:rbd")
        await fill(app, pilot, {"seconds": "2"})
        await click(pilot, "#form-ok")
        assert app.screen is not form
        await wait_screen(pilot, BenchConfirmScreen, 20, "the probe's commands")
        body = flat(app, "#bench-confirm-body")
        assert ("rados -p rbd cleanup --run-name cephtui_latency_probe_" in body if kind == "rados" else
                f"rbd rm rbd/{TEMP_IMAGE_PREFIX}" in body and "--io-threads 1" in body)
        await click(pilot, "#bench-confirm-run")
        screen = await wait_screen(pilot, ProbeResultScreen, 120, "the probe's result")
        assert isinstance(screen, ProbeResultScreen)
        words = flat(app, "#probe-body")
        assert "The network floor for a write is" in words and "Reads: p50" in words, words
        assert (kind == "rbd") == ("client cache off" in words)
        assert pane.probe is None and len(pane.history) == 2  # both directions in the history
        await pilot.press("escape")
    assert images(ioctx) == before
    objects = [o.key for o in ioctx.list_objects() if o.key.startswith("benchmark_data")]
    assert objects == []
