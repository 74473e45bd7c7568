"""The config file's [bench] defaults in the Bench tab's new-run form, through Pilot on a replayed capture (no
cluster: the form only shows them, nothing is run)."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Select

from cephtui.ceph.bench.params import MiB
from cephtui.config.load import parse_config
from cephtui.config.model import BenchDefaults
from cephtui.ui.app import CephTUI
from cephtui.ui.panes.bench import BenchPane
from cephtui.ui.panes.osds import OSDsPane
from cephtui.ui.screens.wizards.form import FormScreen
from tests.ui.helpers import SIZE, show_tab, wait_for

CONFIG = """\
[bench]
pool = "rbd"
mode = "write"
seconds = 7
threads = 3
block_size = "64K"
object_size = "128K"
op_timeout = 12
cleanup = false
"""


@pytest.fixture(autouse=True)
def own_history(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("CEPHTUI_DATA_DIR", str(tmp_path))


async def open_form(app: CephTUI, latency: bool = False) -> tuple[dict[str, str], str]:
    """The new-run form's values as it opens, and the rados bench command they stand for."""
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.snapshot is not None, 10, "a first snapshot")
        await show_tab(pilot, "8", "bench")
        pane = app.pane(BenchPane)
        # The action, not its key: the key binding is being renamed.
        pane.action_latency_run() if latency else pane.action_new_run()
        # mounted, not only composed: a Select takes its initial value in its own Mount handler
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen) and app.screen.query("#field-op_timeout")
                       and all(w.is_mounted for w in app.screen.query(Select)), 5, "the new-run form, mounted")
        form = app.screen
        assert isinstance(form, FormScreen)
        values = form.values()
        ops = form.build(values)  # what Next would send on: the defaults are accepted as they are
        return values, ops[-1].cli


async def test_new_run_form_shows_the_configured_defaults(look_app: Callable[..., CephTUI]) -> None:
    defaults = parse_config(CONFIG).bench
    assert defaults == BenchDefaults(pool="rbd", seconds=7, threads=3, block_size=64 * 1024, object_size=128 * 1024,
                                     op_timeout=12, cleanup=False)
    v, cli = await open_form(look_app(bench_defaults=defaults))
    assert (v["pool"], v["mode"], v["seconds"], v["threads"], v["op_size"], v["object_size"], v["cleanup"],
            v["op_timeout"]) == ("rbd", "write", "7", "3", "64KiB", "128KiB", "no", "12")
    assert cli == "rados bench -p rbd 7 write -t 3 -b 65536 -O 131072 --no-cleanup --no-hints"


async def test_without_a_config_the_form_keeps_rados_bench_defaults(look_app: Callable[..., CephTUI]) -> None:
    v, cli = await open_form(look_app())
    assert (v["pool"], v["seconds"], v["threads"], v["op_size"], v["object_size"], v["cleanup"], v["op_timeout"]) == (
        "rbd", "10", "16", "4MiB", "", "yes", "30")
    assert cli == "rados bench -p rbd 10 write -t 16 -b 4194304 --no-hints"


async def test_the_latency_key_opens_the_probe_form_on_an_existing_pool(look_app: Callable[..., CephTUI]) -> None:
    defaults = BenchDefaults(pool="no-such-pool", seconds=5, threads=8, block_size=MiB, op_timeout=9)
    app = look_app(bench_defaults=defaults)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.snapshot is not None, 10, "a first snapshot")
        await show_tab(pilot, "8", "bench")
        app.pane(BenchPane).action_latency_run()
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen) and app.screen.query("#field-seconds")
                       and all(w.is_mounted for w in app.screen.query(Select)), 5, "the probe form, mounted")
        form = app.screen
        assert isinstance(form, FormScreen) and form.title_text == "Latency probe: objects (RADOS)"
        # the probe is 4 KiB x 1 by definition; an unknown configured pool is not offered
        assert form.values() == {"pool": "rbd", "seconds": "10"}


async def test_read_only_from_the_config_says_where_it_comes_from(look_app: Callable[..., CephTUI]) -> None:
    """A refusal names the config file's line and the flag that overrides it, not a flag never typed."""
    settings = parse_config("read_only = true\n", path="/etc/x/config.toml")
    assert settings.read_only and settings.source("read_only").startswith("file")
    why = f"read_only = true in /etc/x/config.toml ({settings.source('read_only')}); --read-write overrides it"
    app = look_app(read_only=True, read_only_why=why)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3")
        await wait_for(pilot, lambda: app.pane(OSDsPane).vtable.row_count > 0, 15, "the OSD tree")
        app.clear_notifications()
        await pilot.press("o")
        await wait_for(pilot, lambda: app._notifications, 5, "what o says")
        messages = [n.message for n in app._notifications]
        assert any("config.toml (file line 1)" in m and "--read-write" in m for m in messages), messages
        assert not any("started with --read-only" in m for m in messages)
