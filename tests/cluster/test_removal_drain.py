"""`cephtui remove` with the default drain, on its own 4-OSD sandbox with default settings, while the cluster
log is watched (`ceph -w`, a process this test starts and ends by pid) and the PG states are sampled.

- the default drain of a removal is crush0, and with it nothing goes inactive during or after the purge: no
  PG_AVAILABILITY in the cluster log, no PG peering/activating/unknown in the samples (drained by `out`,
  the purge moved data a second time and 3 PGs peered for 5 s);
- the plan printed before the typed confirmation lists exactly the commands the run sends: every mutating
  command in the audit log, in order, is a planned one, and every planned one was sent.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cluster import drainlab
from tests.conftest import Sandbox, own_sandbox, wait_until

ROOT = Path(__file__).resolve().parents[2]
CEPHTUI = [sys.executable, "-m", "cephtui"]
RECORDER = ROOT / "tests" / "cluster" / "stop_recorder.py"
AFTER = 20  # PG samples watched after "done" (about 10 s or more)


@pytest.fixture(scope="module")
def box4() -> Iterator[Sandbox]:
    with own_sandbox("ctt-drain-", "--osds", "4", "--pool", "lab:32") as box:
        yield box


def env(audit: Path, state: Path) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if k not in ("CEPH_CONF", "CEPH_ARGS", "CEPHTUI_CONFIG")}
    e.update(CEPHTUI_AUDIT_LOG=str(audit), CEPHTUI_STATE_DIR=str(state), XDG_CONFIG_HOME="/nonexistent/cephtui")
    return e


def planned(stdout: str) -> list[str]:
    """The plan's command lines as printed (`  $ CMD   (note)`), the command only."""
    return [line.strip()[2:].split("   (", 1)[0] for line in stdout.splitlines() if line.startswith("  $ ")]


def test_default_drain_no_pg_availability_and_the_plan_is_what_runs(box4: Sandbox, tmp_path: Path) -> None:
    sums = drainlab.fill(box4.conf, "lab", 1500)
    box4.heal()
    stop = f"/usr/bin/python3 {RECORDER} {box4.conf} {box4.dir} {{id}}"
    audit, state = tmp_path / "audit.log", tmp_path / "state"
    weight = next(n["crush_weight"] for n in box4.ceph("osd", "tree")["nodes"] if n["id"] == 3)
    assert weight > 0
    watch = drainlab.ClusterWatch(box4.conf)
    try:
        wait_until(lambda: watch.samples > 0, 30, "the first PG sample")  # the state before the removal
        t0 = time.time()
        res = subprocess.run([*CEPHTUI, "-c", str(box4.conf), "remove", "osd.3", "--osd-stop-cmd", stop,
                              "--yes-i-typed", "osd.3", "--interval", "0.5"], capture_output=True, text=True,
                             env=env(audit, state), timeout=900)
        done = time.time()
        assert res.returncode == 0, (res.stdout, res.stderr)
        # Watched past "done": AFTER samples more (one every 0.5 s at most), so stats newer than the purge are in.
        after_done = watch.samples
        wait_until(lambda: watch.samples >= after_done + AFTER, 120, f"{AFTER} PG samples after done")
        deadline = time.time()
    finally:
        watch.stop()

    # The plan: crush0 by default, and exactly what was sent.
    assert "Plan: Remove osd.3 (drain by CRUSH weight 0)" in res.stdout
    plan = planned(res.stdout)
    sent_plan = [c for c in plan if not c.startswith(("ceph osd ok-to-stop", "ceph osd safe-to-destroy"))]
    assert sent_plan == ["ceph osd crush reweight osd.3 0", stop.replace("{id}", "3"),
                         "ceph osd purge-actual 3 --yes-i-really-mean-it"], plan
    entries = [json.loads(line) for line in audit.read_text().splitlines()]
    clis = [e["cli"] for e in entries]
    assert all(c in plan for c in clis), (clis, plan)  # nothing ran that the plan did not show
    assert [c for c in clis if not c.startswith("ceph osd safe-to-destroy")] == sent_plan
    assert all(e["ok"] for e in entries if e["cli"] in sent_plan)

    # The timeline, and no inactive PG around the purge.
    purge_at = next(e for e in entries if "purge-actual" in e["cli"])
    log = [line for line in res.stdout.splitlines() if line[:4].isdigit()]
    stops = drainlab.stops(box4.dir)
    assert stops and drainlab.clean(stops[-1]["pg_stat"]), stops
    purge_t = time.mktime(time.strptime(purge_at["time"][:19], "%Y-%m-%dT%H:%M:%S"))
    seen_inactive = [(round(t - t0, 1), bad) for t, bad in watch.inactive]
    print(f"\nremoval of osd.3 (crush0, {len(sums)} objects): {done - t0:.1f} s; stop at +{stops[-1]['time'] - t0:.1f}"
          f" s, purge at +{purge_t - t0:.0f} s; {watch.samples} pg samples; inactive samples {seen_inactive}; "
          f"PG_AVAILABILITY lines {watch.availability(t0, deadline)}; PGs remapped by the drain "
          f"{len(watch.remapped(t0 + 0.5, purge_t - 0.5))}, by the purge {watch.remapped(purge_t - 0.5, deadline)}")
    print("\n".join(log))
    assert watch.samples > 10, "too few PG samples to say anything"
    # The second move `out` costs: with crush0 the purge takes a weight-0 item out of CRUSH, and no PG's up set
    # changes (drained by `out`, the same purge remapped PGs again).
    moved = watch.remapped(purge_t - 0.5, deadline)
    assert watch.remapped(t0 + 0.5, purge_t - 0.5), "the drain itself moved nothing: the sampler sees nothing"
    assert moved == [], moved
    assert watch.availability(purge_t - 1, deadline) == [], watch.log
    assert [x for x in watch.inactive if x[0] >= purge_t - 1] == [], seen_inactive
    assert any(line for _, line in watch.log), "ceph -w printed nothing"
    assert drainlab.verify(box4.conf, "lab", sums) == []
    box4.tool("forget", str(box4.dir), "osd.3")
