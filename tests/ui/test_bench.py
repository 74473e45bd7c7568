"""Bench tab through Pilot on the real cluster: a live run stopped early, bad input, compare/export, per-OSD."""
from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Select, Sparkline

from cephtui.ui.app import CephTUI
from cephtui.ui.panes.bench import BenchPane
from cephtui.ui.screens.bench_views import BenchConfirmScreen, CompareScreen
from cephtui.ui.screens.wizards.form import FormScreen
from tests.conftest import Sandbox
from tests.ui.helpers import SIZE, cells, click, open_screen, plain, show_tab, text_of, wait_for, wait_screen


@pytest.fixture(autouse=True)
def own_history(tmp_path: Path, monkeypatch: Any) -> Path:
    monkeypatch.setenv("CEPHTUI_DATA_DIR", str(tmp_path))
    return tmp_path / "bench-history.jsonl"


def flat(app: CephTUI, selector: str) -> str:
    """A widget's text with line wrapping undone."""
    return " ".join(text_of(app, selector).split())


def bench_objects(sandbox: Sandbox) -> list[str]:
    out = subprocess.run(["rados", "-c", str(sandbox.conf), "-p", "rbd", "ls"], capture_output=True, text=True,
                         check=True).stdout
    return [o for o in out.split() if o.startswith("benchmark_")]


async def open_bench(app: CephTUI, pilot: Pilot, pool: str | None = None) -> BenchPane:
    """The Bench tab, shown; with `pool`, once its forms can offer that pool."""
    await wait_for(pilot, lambda: app.snapshot is not None, 10, "a first snapshot")
    await show_tab(pilot, "8", "bench")
    pane = app.pane(BenchPane)
    if pool is not None:
        await wait_for(pilot, lambda: pool in pane._pool_names(), 10, f"the pool {pool} in the form")
    return pane


async def fill(app: CephTUI, pilot: Pilot, values: dict[str, str]) -> FormScreen:
    form = app.screen
    assert isinstance(form, FormScreen)
    for key, text in values.items():
        form.query_one(f"#field-{key}", Input).focus()
        await pilot.press("ctrl+u", *text)
    await pilot.pause()  # the form checks its fields as they change, on the UI thread
    return form


async def submit_and_run(app: CephTUI, pilot: Pilot) -> None:
    """Next on the form, then Run on the confirmation."""
    await click(pilot, "#form-ok")
    await wait_screen(pilot, BenchConfirmScreen, 5, "the bench confirmation")
    await click(pilot, "#bench-confirm-run")


async def set_choice(app: CephTUI, pilot: Pilot, key: str, value: str) -> None:
    app.screen.query_one(f"#field-{key}", Select).value = value
    await pilot.pause()  # Select.Changed handled


async def start_run(app: CephTUI, pilot: Pilot, key: str, values: dict[str, str],
                    choices: dict[str, str] | None = None) -> None:
    """The form `key` opens, its `choices` chosen and `values` typed, then Next and Run."""
    await open_screen(pilot, key, FormScreen)
    for field, value in (choices or {}).items():
        await set_choice(app, pilot, field, value)
    await fill(app, pilot, values)
    await submit_and_run(app, pilot)


async def test_live_run_fills_sparklines_and_stops_early_with_partial_results(make_app: Any, sandbox: Sandbox,
                                                                               own_history: Path) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_bench(app, pilot)
        await open_screen(pilot, "b", FormScreen)
        # the form shows the exact rados bench command as it is edited
        await fill(app, pilot, {"seconds": "30", "op_size": "64K"})
        assert "rados bench -p rbd 30 write -t 16 -b 65536 --no-hints" in text_of(app, "#form-status")
        await pilot.press("escape")
        await start_run(app, pilot, "b", {"seconds": "30", "op_size": "64K"})
        spark = app.query_one("#bench-bw", Sparkline)
        await wait_for(pilot, lambda: len(list(spark.data or ())) >= 2 and max(spark.data or [0]) > 0, 15,
                       "a sparkline with two seconds of throughput")
        assert "RUNNING rados bench -p rbd 30 write" in flat(app, "#bench-status")
        assert "in flight" in text_of(app, "#bench-summary")
        await pilot.press("x")
        await wait_for(pilot, lambda: pane.engine is None and pane.last_result is not None, 40, "the stopped run")
        r = pane.last_result
        # stopped well before its end (a loaded host delays the x)
        assert r is not None and r.stopped and r.ok and r.ops > 0 and r.total_time_run < 30
        summary = text_of(app, "#bench-summary")
        assert summary.startswith("stopped write at") and f"{r.ops} ops" in summary and "p99" in summary
        assert "stopped early: partial results" in flat(app, "#bench-status")
        assert cells(app, "#bench-history", 9) == ["stopped"]
    assert bench_objects(sandbox) == []  # cleanup ran after the stop
    saved = [json.loads(line) for line in own_history.read_text().splitlines()]
    assert len(saved) == 1 and saved[0]["stopped"] and saved[0]["ops"] == r.ops
    audit = [json.loads(line) for line in Path(os.environ["CEPHTUI_AUDIT_LOG"]).read_text().splitlines()]
    assert audit[-1]["cli"] == "rados bench -p rbd 30 write -t 16 -b 65536 --no-hints" and audit[-1]["ok"]


async def test_compare_and_export_two_real_runs(make_app: Any, sandbox: Sandbox, tmp_path: Path) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_bench(app, pilot)
        await start_run(app, pilot, "b", {"seconds": "2", "op_size": "64K"})
        await wait_for(pilot, lambda: len(pane.history) == 1 and pane.engine is None, 40, "the first run")
        await start_run(app, pilot, "b", {"seconds": "2", "op_size": "4K", "threads": "1"})  # 4 KiB, one at a time
        await wait_for(pilot, lambda: len(pane.history) == 2 and pane.engine is None, 40, "the second run")
        latency = pane.history[-1]
        assert (latency.op_size, latency.params.threads) == (4096, 1)
        assert cells(app, "#bench-history", 3) == ["4KiB", "64KiB"]  # newest first
        table = app.query_one("#bench-history", DataTable)
        table.focus()
        await pilot.press("space", "down", "space", "c")
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen), 5, "the comparison")
        body = text_of(app, "#bench-compare-body")
        assert "op size 65536 vs 4096" in body and "threads 16 vs 1" in body  # not the same measurement
        assert "Bandwidth" in body and "Latency p99" in body and "%" in body
        await pilot.press("escape")
        await open_screen(pilot, "e", FormScreen)
        target = tmp_path / "runs.csv"
        await fill(app, pilot, {"path": str(target)})
        await click(pilot, "#form-ok")
        await wait_for(pilot, lambda: target.exists(), 5, "the export")
        lines = target.read_text().splitlines()
        assert len(lines) == 3 and lines[0].startswith("started_at,cluster,pool,mode")
        assert stat.S_IMODE(target.stat().st_mode) == 0o600
        # the same name again is refused in the form, nothing overwritten
        await open_screen(pilot, "e", FormScreen)
        await fill(app, pilot, {"path": str(target)})
        assert "already exists" in text_of(app, "#form-status")


async def test_per_osd_bench_ranks_every_osd(make_app: Any, sandbox: Sandbox) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_bench(app, pilot)
        await open_screen(pilot, "o", FormScreen)
        await fill(app, pilot, {"osds": "0", "total": "32M", "block": "4M"})
        assert "ceph tell osd.0 bench 33554432 4194304" in text_of(app, "#form-status")
        await fill(app, pilot, {"osds": "all"})  # every OSD, whatever their ids: the loop an admin would type
        assert ("for id in $(ceph osd ls); do ceph tell osd.$id bench 33554432 4194304; done"
                in flat(app, "#form-status"))
        await submit_and_run(app, pilot)
        osds = pane.osd_table
        await wait_for(pilot, lambda: osds.runner is None and len(osds.results) == 3 and not osds.progress,
                       90, "three OSD results")
        assert sorted(cells(app, "#bench-osds", 1)) == ["osd.0", "osd.1", "osd.2"]
        assert cells(app, "#bench-osds", 0) == ["1", "2", "3"]
        speeds = [float(x) for x in cells(app, "#bench-osds", 2)]
        assert speeds == sorted(speeds, reverse=True) and speeds[-1] > 0
        assert all(r.bytes_written == 32 << 20 for r in pane.osd_table.results)
        assert "per-OSD bench: 3 OSD(s)" in flat(app, "#bench-status")
        assert "median" in plain(app.query_one("#bench-osds").border_subtitle)


def pool_names(sandbox: Sandbox) -> list[str]:
    return [p["pool_name"] for p in sandbox.ceph("osd", "pool", "ls", "detail")]


async def temp_pool_run(app: CephTUI, pilot: Pilot, pane: BenchPane) -> None:
    await open_screen(pilot, "b", FormScreen)
    await set_choice(app, pilot, "temp", "yes")
    await fill(app, pilot, {"seconds": "2", "op_size": "64K"})
    status = text_of(app, "#form-status")
    assert "ceph osd pool create cephtui-bench-" in status and "size 1 --yes-i-really-mean-it" in status
    assert "ceph osd pool delete cephtui-bench-" in status  # the deletion is shown up front
    await click(pilot, "#form-ok")
    await wait_screen(pilot, BenchConfirmScreen, 5, "the confirmation")
    assert "The temporary pool is deleted" in flat(app, "#bench-confirm-body")
    await click(pilot, "#bench-confirm-run")
    await wait_for(pilot, lambda: pane.engine is None and not pane.phase and pane.message.plain, 60,
                   "the end of the temporary-pool run")


async def test_temporary_pool_refused_by_the_mon_leaves_nothing(make_app: Any, sandbox: Sandbox) -> None:
    before = pool_names(sandbox)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_bench(app, pilot)
        await temp_pool_run(app, pilot, pane)
        status = flat(app, "#bench-status")
        # the monitor's own words, then what to do about them
        assert "configuring pool size as 1 is disabled by default" in status, status
        assert "mon_allow_pool_size_one" in status
        assert pane.last_result is None and not pane.history
    assert pool_names(sandbox) == before


async def test_temporary_pool_run_when_the_mon_allows_it(make_app: Any, sandbox: Sandbox) -> None:
    before = pool_names(sandbox)
    subprocess.run(["ceph", "-c", str(sandbox.conf), "config", "set", "global", "mon_allow_pool_size_one", "true"],
                   check=True, capture_output=True)
    try:
        app = make_app()
        async with app.run_test(size=SIZE) as pilot:
            pane = await open_bench(app, pilot)
            await temp_pool_run(app, pilot, pane)
            r = pane.last_result
            assert r is not None and r.ok and r.ops > 0 and r.params.pool.startswith("cephtui-bench-"), \
                flat(app, "#bench-status")
            assert "✔ done" in flat(app, "#bench-status")
        assert pool_names(sandbox) == before  # created, used, deleted
    finally:
        subprocess.run(["ceph", "-c", str(sandbox.conf), "config", "rm", "global", "mon_allow_pool_size_one"],
                       check=True, capture_output=True)


async def test_a_full_pool_ends_the_run_with_the_reason_on_screen(make_app: Any, sandbox: Sandbox) -> None:
    sandbox.ceph("osd", "pool", "create", "ctquota", "8")
    try:
        sandbox.ceph("osd", "pool", "application", "enable", "ctquota", "rbd")
        sandbox.ceph("osd", "pool", "set-quota", "ctquota", "max_bytes", str(4 << 20))
        app = make_app()
        async with app.run_test(size=SIZE) as pilot:
            pane = await open_bench(app, pilot, "ctquota")
            await start_run(app, pilot, "b", {"seconds": "60", "op_size": "1M", "op_timeout": "5"}, {"pool": "ctquota"})
            await wait_for(pilot, lambda: pane.last_result is not None, 45, "the run to end by itself")
            r = pane.last_result
            assert r is not None and r.error and r.failed_ops > 0
            status = flat(app, "#bench-status")
            assert "✖ an op got no reply within 5 s" in status and "reached its quota" in status, status
            assert cells(app, "#bench-history", 9) == ["error"]
    finally:
        sandbox.ceph("osd", "pool", "delete", "ctquota", "ctquota", "--yes-i-really-really-mean-it")


async def test_history_shows_only_this_clusters_runs(make_app: Any, sandbox: Sandbox, own_history: Path) -> None:
    """Issue 16: the history listed runs of other clusters measured from the same machine."""
    from dataclasses import replace

    from cephtui.ceph.bench.history import BenchHistory
    from cephtui.ceph.bench.params import BenchParams
    from tests.unit.test_bench import _result

    fsid = sandbox.ceph("fsid")["fsid"]
    base = _result(started_at=1_700_000_000.0)
    store = BenchHistory(own_history)
    for i, (cluster, pool) in enumerate(((fsid, "mine"), ("0f0f0f0f-other-cluster", "theirs"), ("", "unknown"))):
        store.append(replace(base, cluster=cluster, params=BenchParams(pool=pool), started_at=base.started_at + i))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_bench(app, pilot)
        await wait_for(pilot, lambda: pane.runs.fsid == fsid and app.query_one("#bench-history", DataTable).row_count,
                       10, "the history")
        assert cells(app, "#bench-history", 2) == ["mine"]
        note = str(app.query_one("#bench-history", DataTable).border_subtitle)
        assert "1 run of other clusters and 1 run without a cluster id" in note and str(own_history) in note
