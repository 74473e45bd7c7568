"""Guided OSD removal and replacement through Pilot on a real 4-OSD cluster.

One sandbox with four OSDs for the module (the session's has three): a refusal while safe-to-destroy
says no, a replacement, a removal that keeps every object, and a removal interrupted by quitting
cephtui. Each test asks for the OSDs it needs (four_osds, three_osds), which builds them from
whatever the tests before it left: nothing to do in file order, a purge or a new disk otherwise.
"""
from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Checkbox, Input, Select, Static

from cephtui.ceph.workflows.removal_engine import RemovalEngine
from cephtui.ceph.workflows.store import WorkflowStore
from cephtui.ui.app import CephTUI
from cephtui.ui.panes.osds import OSDsPane
from cephtui.ui.screens.removal import PlanScreen, RemovalScreen, ResumeScreen
from cephtui.ui.screens.wizards.form import FormScreen
from tests.cluster import drainlab
from tests.conftest import ROOT, Sandbox, wait_until
from tests.ui.helpers import SIZE, app_factory, click, wait_for

pytestmark = pytest.mark.cluster  # its own sandbox, not the session's

POOL = "ctr-data"
RECORDER = ROOT / "tests" / "cluster" / "stop_recorder.py"


@pytest.fixture(scope="module")
def box() -> Iterator[Sandbox]:
    reuse = os.environ.get("CEPHTUI_SANDBOX4")
    d = Path(reuse) if reuse else Path(tempfile.mkdtemp(prefix="ctt4-", dir="/tmp"))
    b = Sandbox(d, d / "ceph.conf")
    b.tool("start", str(d), "--osds", "4")
    try:
        yield b
    finally:
        if not reuse:
            b.tool("stop", str(d), "--purge")


@pytest.fixture(scope="module")
def checksums(box: Sandbox) -> dict[str, str]:
    """A size-3 pool of 3,000 objects of random content (as in the issue's runs), with their checksums."""
    if POOL not in [p["pool_name"] for p in box.ceph("osd", "pool", "ls", "detail")]:
        box.ceph("osd", "pool", "create", POOL, "32")
        box.ceph("osd", "pool", "application", "enable", POOL, "rbd")
    sums = drainlab.fill(box.conf, POOL, 3000)
    box.heal()
    return sums


def read_back(box: Sandbox, sums: dict[str, str]) -> dict[str, str]:
    """Every object's checksum as read now (the ones that do not match the written ones shown as 'bad')."""
    bad = set(drainlab.verify(box.conf, POOL, sums))
    return {k: ("bad" if k in bad else v) for k, v in sums.items()}


def at_size_two(box: Sandbox) -> bool:
    """Fresh stats after the size change: every PG reports two OSDs in its up set, and is active+clean (until
    the primaries report, the stats still show three copies, and Ceph's ok-to-stop answers from those)."""
    pgs = box.ceph("pg", "dump", "pgs_brief")
    pgs = pgs.get("pg_stats", pgs) if isinstance(pgs, dict) else pgs
    return all(len(pg["up"]) == 2 and pg["state"] == "active+clean" for pg in pgs)


def pg_stat(box: Sandbox) -> dict:
    return box.ceph("pg", "stat")


def assert_stopped_only_when_clean(box: Sandbox, osd: int) -> None:
    """The stop command (tests/cluster/stop_recorder.py) read `ceph pg stat` and `ceph status` as it ran."""
    rec = [r for r in drainlab.stops(box.dir) if r["osd"] == osd][-1]
    pm = rec["pgmap"]
    assert drainlab.clean(rec["pg_stat"]), f"stopped osd.{osd} while pg stat said {rec['pg_stat']}"
    assert not pm.get("degraded_objects") and not pm.get("misplaced_objects"), pm
    assert {s["state_name"] for s in pm["pgs_by_state"]} == {"active+clean"}, pm


def osd_ids(box: Sandbox) -> list[int]:
    return sorted(n["id"] for n in box.ceph("osd", "tree")["nodes"] if n["id"] >= 0)


def all_clean(box: Sandbox) -> bool:
    st = box.ceph("status")["pgmap"]
    return all(s["state_name"] == "active+clean" for s in st["pgs_by_state"])


def with_osds(box: Sandbox, want: set[int], size: int | None) -> None:
    """Bring the module's sandbox to the OSDs a test needs: an extra OSD is stopped and purged, a missing one
    gets a new disk (sandbox.py recreate: the same id, placed under its host as it starts); every pool at
    `size` copies when given; then every PG active+clean."""
    have = set(osd_ids(box))
    for osd in sorted(have - want):
        box.kill(f"osd.{osd}")
        wait_until(lambda osd=osd: not next(o for o in box.ceph("osd", "dump")["osds"] if o["osd"] == osd)["up"],
                   60, f"osd.{osd} down")
        box.ceph("osd", "purge-actual", str(osd), "--yes-i-really-mean-it")
        box.tool("forget", str(box.dir), f"osd.{osd}")
    for osd in sorted(want - have):
        box.tool("recreate", str(box.dir), f"osd.{osd}")
    if size is not None:
        for pool in box.ceph("osd", "pool", "ls", "detail"):
            if pool["size"] != size:
                box.ceph("osd", "pool", "set", pool["pool_name"], "size", str(size))
    # Always, also when nothing changed here: the test before may have left backfill running (a drain it
    # cancelled moves the data back), and a removal started then is refused ("PGs are already degraded or
    # moving"). `heal` waits for HEALTH_OK on PG stats sent after the last osdmap change (the mgr's pgmap lags).
    box.heal()
    wait_until(lambda: set(osd_ids(box)) == want and all_clean(box), 300, f"osds {sorted(want)}, all clean")


@pytest.fixture
def four_osds(box: Sandbox, checksums: dict[str, str]) -> None:
    """osd.0-3, every pool at three copies: the module's starting state."""
    with_osds(box, {0, 1, 2, 3}, 3)


@pytest.fixture
def three_osds(box: Sandbox, checksums: dict[str, str]) -> None:
    """osd.0-2 (osd.3 removed, as the removal test leaves it)."""
    with_osds(box, {0, 1, 2}, None)


def stop_cmd(box: Sandbox) -> str:
    """Records what the cluster says at the moment of the stop, then kills the OSD by pid."""
    return f"/usr/bin/python3 {RECORDER} {box.conf} {box.dir} {{id}}"


@pytest.fixture
def backfill_forced(box: Sandbox) -> Iterator[None]:
    """PG logs of a few entries: a PG can never catch up from its log, so every copy moves by backfill."""
    settings = {"osd_min_pg_log_entries": "1", "osd_max_pg_log_entries": "2", "osd_pg_log_trim_min": "1"}
    for k, v in settings.items():
        box.ceph("config", "set", "osd", k, v)
    try:
        yield
    finally:
        for k in settings:
            box.ceph("config", "rm", "osd", k)


@pytest.fixture
def store(tmp_path: Path) -> WorkflowStore:
    """Each test's own workflow state (shared by the apps within it): a removal left unfinished by a
    failed test must not greet the next test's app with a resume offer."""
    return WorkflowStore(tmp_path)


@pytest.fixture
def make(box: Sandbox, store: WorkflowStore) -> Iterator[Callable[..., CephTUI]]:
    with app_factory(box.conf, op_timeout=10, osd_stop_cmd=stop_cmd(box), workflow_store=store) as factory:
        yield factory


def pools_at_size_two(box: Sandbox) -> None:
    """The mgr creates device_health_metrics (size 3) on its own schedule: bring every pool to 2 copies."""
    for p in box.ceph("osd", "pool", "ls", "detail"):
        if p["size"] > 2:
            box.ceph("osd", "pool", "set", p["pool_name"], "size", "2")


async def open_plan(app: CephTUI, pilot: Pilot, osd: int, mode: str = "remove",
                    stop: str | None = None, shell: bool = False,
                    before_ok: Callable[[], object] | None = None) -> PlanScreen:
    """X on the OSD, the form, then the plan with the preflight's answers (waited for). `before_ok` runs just
    before the form's OK, so that the plan's first preflight meets whatever it did at once."""
    await wait_for(pilot, lambda: app.snapshot is not None, 15, "a first snapshot")
    await pilot.press("3")
    await wait_for(pilot, lambda: any(r.is_osd and r.node.id == osd for r in app.pane(OSDsPane).vtable.rows), 15,
                   f"osd.{osd} in the tree")
    rows = app.pane(OSDsPane).vtable.rows
    await pilot.press("home", *["down"] * next(i for i, r in enumerate(rows) if r.is_osd and r.node.id == osd))
    await pilot.press("X")
    # The form is pushed by the wizard's worker (push_screen_wait), which a loaded machine runs after the press
    # has returned: seen in a clean-clone run, app.screen was still the main screen.
    await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), 10, "the removal form")
    form = app.screen
    assert isinstance(form, FormScreen)
    form.query_one("#field-mode", Select).value = mode
    if stop is not None:
        form.query_one("#field-stop", Input).value = stop
    if shell:
        form.query_one("#field-shell", Select).value = "yes"
    await pilot.pause()
    if before_ok is not None:
        before_ok()
    await click(pilot, "#form-ok")
    await wait_for(pilot, lambda: isinstance(app.screen, PlanScreen), 10, "the plan")
    plan = app.screen
    assert isinstance(plan, PlanScreen)
    await wait_for(pilot, lambda: plan.checks is not None, 60, "the preflight's answers in the plan")
    return plan


async def start_wizard(app: CephTUI, pilot: Pilot, osd: int, mode: str = "remove", overrides: tuple[str, ...] = (),
                       stop: str | None = None, shell: bool = False) -> RemovalEngine:
    plan = await open_plan(app, pilot, osd, mode, stop, shell)
    await pilot.press(*"osd.x", "enter")  # a wrong name starts nothing
    assert isinstance(app.screen, PlanScreen) and not app.removals.engines
    for name in overrides:
        plan.query_one(f"#override-{name}", Checkbox).value = True
    await pilot.press("ctrl+u", *f"osd.{osd}", "enter")
    assert app.screen is not plan, f"the plan refused: {plan_error(plan)}"
    await wait_for(pilot, lambda: isinstance(app.screen, RemovalScreen), 10, "the workflow screen")
    assert isinstance(app.screen, RemovalScreen)
    return app.screen.engine


def plan_error(plan: PlanScreen) -> str:
    return str(plan.query_one("#plan-error", Static).content)


async def test_refuses_while_safe_to_destroy_says_no(box: Sandbox, checksums: dict[str, str], make,
                                                     four_osds: None) -> None:
    """A size-1 pool whose only copy sits on a dead OSD: the wizard waits, says why, and destroys nothing."""
    box.ceph("config", "set", "global", "mon_allow_pool_size_one", "true")
    box.ceph("osd", "pool", "create", "ctr-one", "8")
    box.ceph("osd", "pool", "set", "ctr-one", "size", "1", "--yes-i-really-mean-it")
    box.ceph("osd", "pool", "application", "enable", "ctr-one", "rbd")
    pool_id = next(p["pool_id"] for p in box.ceph("osd", "pool", "ls", "detail") if p["pool_name"] == "ctr-one")
    victim = box.ceph("pg", "map", f"{pool_id}.0")["acting"][0]
    import rados

    wait_until(lambda: all_clean(box), 60, "the new pool's PGs created")
    r = rados.Rados(conffile=str(box.conf), conf={"log_to_stderr": "false", "err_to_stderr": "false"})
    r.connect(timeout=10)
    with r.open_ioctx("ctr-one") as io:
        for i in range(16):
            io.write_full(f"o{i}", b"x" * 4096)
    r.shutdown()
    box.kill(f"osd.{victim}")
    wait_until(lambda: not next(o for o in box.ceph("osd", "dump")["osds"] if o["osd"] == victim)["up"], 60,
               f"osd.{victim} down")
    # The other pools' PGs re-peer for a moment after an OSD dies; preflight waits for that by itself.
    app = make()
    try:
        async with app.run_test(size=SIZE) as pilot:
            engine = await start_wizard(app, pilot, victim)
            try:
                await wait_for(pilot, lambda: engine.state.step == "wait_safe"
                               and "only copy" in engine.state.waiting_for, 90, "the refusal with its reason")
            except AssertionError:
                raise AssertionError(f"{engine.state.step}/{engine.state.status}: {engine.state.waiting_for}; "
                                     f"checks {engine.state.checks}") from None
            s = engine.state
            assert "safe-to-destroy says not yet" in s.waiting_for and "would lose" in s.waiting_for
            assert any(c["name"] == "pgs" and c["level"] == "warn" for c in s.checks)
            polled = s.updated
            await wait_for(pilot, lambda: s.updated > polled + 3, 20, "more polls")  # it keeps waiting
            assert s.step == "wait_safe" and not s.removed and not s.stopped
            assert victim in osd_ids(box)
            assert "destroyed" not in next(o for o in box.ceph("osd", "dump")["osds"] if o["osd"] == victim)["state"]
            await pilot.press("a", "a")  # abort (twice: confirm); marks the OSD back in
            await wait_for(pilot, lambda: s.status == "aborted", 20, "the abort")
            assert next(o for o in box.ceph("osd", "dump")["osds"] if o["osd"] == victim)["in"] == 1
    finally:
        box.revive(f"osd.{victim}")
        box.ceph("osd", "in", str(victim))
        box.ceph("osd", "pool", "delete", "ctr-one", "ctr-one", "--yes-i-really-really-mean-it")
        box.heal()


async def test_a_plan_opened_as_a_pool_is_created_waits_for_the_new_pgs_then_answers(
        box: Sandbox, checksums: dict[str, str], make, four_osds: None) -> None:
    """For about 2 s after `ceph osd pool create` (measured on this sandbox), Ceph answers ok-to-stop with
    `16 pgs have unknown state; cannot draw any conclusions`. The plan shows that as a wait, asks again by
    itself, and then shows Ceph's real answer: never a blocker an admin would have to override."""
    app = make()
    try:
        async with app.run_test(size=SIZE) as pilot:
            plan = await open_plan(app, pilot, 3,
                                   before_ok=lambda: box.ceph("osd", "pool", "create", "ctr-new", "16"))
            seen: list[tuple[str, str]] = []  # each change of ok-to-stop's answer, in order

            def answered() -> bool:
                check = next((c for c in plan.checks or () if c.name == "ok-to-stop"), None)
                if check is not None and (not seen or seen[-1][0] != check.level):
                    seen.append((check.level, check.detail))
                return check is not None and check.level == "ok"

            await wait_for(pilot, answered, 60, "ok-to-stop's answer once the new PGs have reported")
            assert [level for level, _ in seen if level != "wait"] == ["ok"], seen
            for _, detail in seen[:-1]:  # the wait, when the first preflight was quick enough to meet it
                assert "not ok to stop" in detail and "asking again" in detail, detail
    finally:
        box.ceph("osd", "pool", "delete", "ctr-new", "ctr-new", "--yes-i-really-really-mean-it")
    wait_until(lambda: all_clean(box), 60, "every PG active+clean")


def settled_without_osd0(box: Sandbox) -> bool:
    """The PG stats show osd.0's absence (undersized PGs) and nothing is peering any more: until then they may
    still say active+clean, from before it went down."""
    names = [x["state_name"] for x in box.ceph("status")["pgmap"]["pgs_by_state"]]
    return any("undersized" in n for n in names) and not any(
        b in n for n in names for b in ("peering", "activating", "unknown"))


async def test_another_osd_down_refuses_until_overridden(box: Sandbox, checksums: dict[str, str], make,
                                                         four_osds: None) -> None:
    """osd.0 is down: the plan shows the blockers before the typed name and refuses to start; with the overrides
    ticked the drain starts, but nothing is stopped or destroyed while the cluster cannot be clean."""
    box.kill("osd.0")
    try:
        wait_until(lambda: not next(o for o in box.ceph("osd", "dump")["osds"] if o["osd"] == 0)["up"], 60,
                   "osd.0 down")
        wait_until(lambda: settled_without_osd0(box), 90, "the PGs to re-peer without osd.0 (stats showing it)")
        app = make()
        async with app.run_test(size=SIZE) as pilot:
            plan = await open_plan(app, pilot, 3)
            # PGs may still be peering for a moment (then 'pgs' says wait): ask again until it settles.
            for _ in range(20):
                if not any(c.level == "wait" for c in plan.checks or ()):
                    break
                await pilot.press("ctrl+r")
                await wait_for(pilot, lambda: plan.checks is not None, 60, "the preflight again")
            blockers = {c.override for c in plan.checks or () if c.level == "block"}
            assert {"osds-down", "ok-to-stop", "pgs"} <= blockers, plan.checks
            assert "osd.0 is down already" in next(c.detail for c in plan.checks or () if c.name == "osds-down")
            await pilot.press(*"osd.3", "enter")
            assert isinstance(app.screen, PlanScreen) and not app.removals.engines
            assert "Blocked by" in plan_error(plan) and "Nothing was done" in plan_error(plan)
            assert next(o for o in box.ceph("osd", "dump")["osds"] if o["osd"] == 3)["in"] == 1  # untouched
            await pilot.press("escape")
            engine = await start_wizard(app, pilot, 3, overrides=tuple(sorted(blockers)))
            s = engine.state
            await wait_for(pilot, lambda: s.step == "wait_safe" and "waiting before the stop" in s.waiting_for, 60,
                           "the drain, then the wait")
            assert sorted(s.overrides) == sorted(blockers)
            assert [c["level"] for c in s.checks if c["name"] == "osds-down"] == ["override"]
            assert not any("osd.0 went down" in e["text"] for e in s.log)  # it was down before we started
            polled = s.updated
            await wait_for(pilot, lambda: s.updated > polled + 10, 40, "10 s more of polls")
            assert s.step == "wait_safe" and not s.stopped and not s.removed
            assert "not active+clean" in s.waiting_for or "degraded" in s.waiting_for, s.waiting_for
            osd3 = next(o for o in box.ceph("osd", "dump")["osds"] if o["osd"] == 3)
            assert osd3["up"] == 1 and "destroyed" not in osd3["state"]
            await pilot.press("a", "a")
            await wait_for(pilot, lambda: s.status == "aborted", 20, "the abort")
        audit = [json.loads(line) for line in Path(os.environ["CEPHTUI_AUDIT_LOG"]).read_text().splitlines()]
        overrides = {e["cli"] for e in audit if e["cli"].startswith("cephtui remove --override")}
        assert overrides == {f"cephtui remove --override {o}" for o in blockers}
    finally:
        box.revive("osd.0")
        box.ceph("osd", "in", "3")
        box.heal()


async def replace_and_check(box: Sandbox, checksums: dict[str, str], make, target: int) -> None:
    stop = f"/usr/bin/python3 {RECORDER} {box.conf} {box.dir} {{id}} && echo stopped {{name}}"
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        engine = await start_wizard(app, pilot, target, mode="replace", stop=stop, shell=True)
        # blocked or failed end the wait at once: the assert below says why, not a timeout 300 s later
        await wait_for(pilot, lambda: ("ceph-volume" in engine.state.waiting_for
                                       or engine.state.status in ("failed", "blocked")),
                       300, "the destroy, then the request for a new disk")
        assert engine.state.status == "running", engine.state.waiting_for
        assert_stopped_only_when_clean(box, target)
        assert any(f"stopped osd.{target}" in e["text"] for e in engine.state.log)  # it ran through the shell
        osd = next(o for o in box.ceph("osd", "dump")["osds"] if o["osd"] == target)
        assert "destroyed" in osd["state"] and target in osd_ids(box)  # id and CRUSH position kept
        box.tool("recreate", str(box.dir), f"osd.{target}")  # the new disk, as ceph-volume would make it
        await wait_for(pilot, lambda: engine.state.status in ("done", "failed", "blocked"), 300,
                       "backfill to active+clean")
        assert engine.state.status == "done", engine.state.waiting_for
        assert drainlab.clean(pg_stat(box)), "done, but `ceph pg stat` disagrees"
    osd = next(o for o in box.ceph("osd", "dump")["osds"] if o["osd"] == target)
    assert osd["up"] == 1 and osd["in"] == 1 and "destroyed" not in osd["state"]
    assert read_back(box, checksums) == checksums


@pytest.mark.tier
async def test_replace_waits_for_clean_before_the_stop_and_after_the_new_disk(
        box: Sandbox, checksums: dict[str, str], make, four_osds: None) -> None:
    """Default settings (the case that failed: stopped with PGs peering, 'done' before backfill began)."""
    await replace_and_check(box, checksums, make, 2)


async def test_replace_with_backfill_forced(box: Sandbox, checksums: dict[str, str], make, four_osds: None,
                                            backfill_forced: None) -> None:
    await replace_and_check(box, checksums, make, 1)


@pytest.mark.tier
async def test_remove_an_osd_and_every_object_survives(box: Sandbox, checksums: dict[str, str], make,
                                                       four_osds: None) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        engine = await start_wizard(app, pilot, 3)
        await wait_for(pilot, lambda: engine.state.status in ("done", "failed", "blocked"), 300, "the removal")
        assert engine.state.status == "done", engine.state.waiting_for
        assert drainlab.clean(pg_stat(box)), "done, but `ceph pg stat` disagrees"
        clis = [e.get("cli", "") for e in engine.state.log]
        # crush0, a removal's default drain: the purge then moves nothing a second time
        assert "ceph osd crush reweight osd.3 0" in clis and "ceph osd purge-actual 3 --yes-i-really-mean-it" in clis
        assert "ceph osd out 3" not in clis
        # clean by fresh stats and safe-to-destroy said yes before the stop and the purge
        steps = [e["text"] for e in engine.state.log]
        gate = next(i for i, t in enumerate(steps) if t.startswith("safe-to-destroy: yes, and every PG active+clean"))
        assert gate < next(i for i, c in enumerate(clis) if "stop_recorder" in c) < \
            next(i for i, c in enumerate(clis) if "purge-actual" in c)
        assert any("ceph-volume lvm zap --destroy --osd-id 3" in t for t in steps)
    assert_stopped_only_when_clean(box, 3)
    box.tool("forget", str(box.dir), "osd.3")
    assert 3 not in osd_ids(box)
    audit = [json.loads(line) for line in Path(os.environ["CEPHTUI_AUDIT_LOG"]).read_text().splitlines()]
    mine = [e for e in audit if e["command"].get("workflow") == engine.state.id]
    assert any(e["cli"] == "ceph osd safe-to-destroy 3" and e["ok"] and "authorises" in e.get("message", "")
               or e["cli"] == "ceph osd safe-to-destroy 3" and e["ok"] for e in mine)
    assert any("stop_recorder" in e["cli"] and e["ok"] for e in mine)  # the stop command itself
    wait_until(lambda: all_clean(box), 120, "every PG active+clean")
    assert read_back(box, checksums) == checksums


async def test_quit_mid_drain_then_resume(box: Sandbox, checksums: dict[str, str], make, three_osds: None,
                                          backfill_forced: None) -> None:
    """A removal with backfill forced, interrupted by quitting cephtui mid-drain and resumed by a new one."""
    # Two OSDs would remain: with a size-3 pool the plan refuses before anything starts, and says why.
    box.ceph("osd", "pool", "create", "ctr-three", "8")
    box.ceph("osd", "pool", "set", "ctr-three", "size", "3")
    try:
        app = make()
        async with app.run_test(size=SIZE) as pilot:
            plan = await open_plan(app, pilot, 1)
            check = next(c for c in plan.checks or () if c.name == "pool sizes")
            assert check.level == "block" and "ctr-three (size 3)" in check.detail and not check.override
            await pilot.press(*"osd.1", "enter")
            assert isinstance(app.screen, PlanScreen) and not app.removals.engines
            assert "pool sizes must be fixed first" in plan_error(plan)
            assert next(o for o in box.ceph("osd", "dump")["osds"] if o["osd"] == 1)["in"] == 1  # untouched
    finally:
        box.ceph("osd", "pool", "delete", "ctr-three", "ctr-three", "--yes-i-really-really-mean-it")
    pools_at_size_two(box)
    wait_until(lambda: at_size_two(box), 90, "PG stats showing two copies, all active+clean")
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        # Two copies and min_size 2: stopping osd.1 right now would stop IO to its PGs, so Ceph's ok-to-stop
        # says no and the plan needs the override (the drain moves the data before anything is stopped).
        # Seconds after the size change (or a balancer's upmap) Ceph's "no" is a wait: the plan asks again
        # by itself until the PGs have reported, and then shows the blocker with its override.
        plan = await open_plan(app, pilot, 1)
        await wait_for(pilot, lambda: [c.level for c in plan.checks or () if c.name == "ok-to-stop"] == ["block"],
                       120, "ok-to-stop's refusal once the PGs have reported")
        assert plan.query_one("#override-ok-to-stop", Checkbox)
        await pilot.press("escape")
        engine = await start_wizard(app, pilot, 1, overrides=("ok-to-stop",))
        await wait_for(pilot, lambda: engine.state.step in ("wait_safe", "stop"), 60, "the drain under way")
        wf_id = engine.state.id
    # cephtui is gone; the state file says where it stopped. A new cephtui offers to resume.
    app2 = make()
    async with app2.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app2.screen, ResumeScreen), 15, "the resume offer")
        assert app2.screen.removal.id == wf_id
        await click(pilot, "#resume-go")  # once it can take the click; fails if the click did not land
        await wait_for(pilot, lambda: wf_id in app2.removals.engines, 10, "the resumed engine")
        engine2 = app2.removals.engines[wf_id]
        await wait_for(pilot, lambda: engine2.state.status in ("done", "failed", "blocked"), 300, "the resumed removal")
        assert engine2.state.status == "done", engine2.state.waiting_for
        assert drainlab.clean(pg_stat(box)), "done, but `ceph pg stat` disagrees"
        assert engine2.state.started == engine.state.started  # the same workflow, continued
    assert_stopped_only_when_clean(box, 1)
    box.tool("forget", str(box.dir), "osd.1")
    assert 1 not in osd_ids(box)
    wait_until(lambda: all_clean(box), 120, "every PG active+clean")
    assert read_back(box, checksums) == checksums
