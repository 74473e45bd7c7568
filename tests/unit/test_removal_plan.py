"""The removal's plan, help and queue without a cluster: the plan is made of the operations the engine sends,
the default drain per kind and what `out` costs, every override --help names is one the parser takes, and the
queue's PGs left (the real run, plan equal to the audit log, is tests/cluster/test_removal_drain.py)."""
from __future__ import annotations

import io
import re
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from cephtui.ceph.workflows.queue import indicator, queue_rows
from cephtui.ceph.workflows.removal import OVERRIDES, Removal
from cephtui.ceph.workflows.removal_engine import RemovalEngine
from cephtui.ceph.workflows.removal_plan import drain_cost, planned_commands
from cephtui.ceph.workflows.store import WorkflowStore
from cephtui.cli import dispatch as cli
from cephtui.cli.remove import _apply_options
from cephtui.ui.screens.wizards.removal_form import drain_notes


def remove_help() -> str:
    out = io.StringIO()
    with redirect_stdout(out), pytest.raises(SystemExit), pytest.MonkeyPatch.context() as mp:
        mp.setenv("COLUMNS", "1000")  # argparse would also break a name at its hyphen
        cli.parse_command_line(["remove", "--help"])
    return " ".join(out.getvalue().split())  # argparse's line breaks undone


def test_every_override_named_in_help_is_accepted() -> None:
    m = re.search(r"--override NAME lift one preflight blocker, naming the risk \(([^)]*)\)", remove_help())
    assert m, remove_help()
    named = [n.strip() for n in m.group(1).split(",")]
    assert named == list(OVERRIDES) and "pgs-unhealthy" not in named
    for name in named:
        _, args, _ = cli.parse_command_line(["remove", "osd.3", "--override", name, "--yes-i-typed", "osd.3"])
        state = Removal(osds=[3])
        _apply_options(state, args)  # raises ValueError for a name the parser does not know
        assert state.overrides == [name]
    _, args, _ = cli.parse_command_line(["remove", "osd.3", "--override", "pgs-unhealthy"])
    with pytest.raises(ValueError, match="unknown override 'pgs-unhealthy'.*ok-to-stop, osds-down, pgs"):
        _apply_options(Removal(osds=[3]), args)


def test_default_drain_per_kind_in_help_form_and_state() -> None:
    assert Removal(osds=[3]).drain_mode == "crush0"
    assert Removal(osds=[3], replace=True).drain_mode == "out"
    assert Removal(osds=[3], drain_mode="out").drain_mode == "out"  # chosen, or read back from a saved state
    assert Removal.from_json({**Removal(osds=[3], drain_mode="out").to_json()}).drain_mode == "out"
    _, args, _ = cli.parse_command_line(["remove", "osd.3"])
    assert args.drain is None  # resolved by the kind: crush0, or out with --replace
    assert "crush0: CRUSH weight 0 (default for a removal" in remove_help()
    # The form explains a drain that costs more than the kind's default, and only then.
    assert drain_notes([3], {"mode": "remove", "drain": "crush0"}) == []
    assert drain_notes([3], {"mode": "replace", "drain": "out"}) == []
    (note,) = drain_notes([3], {"mode": "remove", "drain": "out"})
    assert "SECOND MOVE AT THE PURGE" in note and "PG_AVAILABILITY" in note
    (note,) = drain_notes([3], {"mode": "replace", "drain": "crush0"})
    assert "sets the old weight back" in note


def test_plan_is_made_of_the_operations_the_engine_sends() -> None:
    stop = "ssh {host} systemctl stop ceph-osd@{id}"
    remove = [c.cli for c in planned_commands(Removal(osds=[3, 4], stop_template=stop), hosts={3: "n1", 4: "n2"})]
    assert remove == ["ceph osd ok-to-stop 3 4", "ceph osd crush reweight osd.3 0", "ceph osd crush reweight osd.4 0",
                      "ceph osd safe-to-destroy 3 4", "ssh n1 systemctl stop ceph-osd@3",
                      "ssh n2 systemctl stop ceph-osd@4", "ceph osd purge-actual 3 --yes-i-really-mean-it",
                      "ceph osd purge-actual 4 --yes-i-really-mean-it"]
    out = [c.cli for c in planned_commands(Removal(osds=[3], drain_mode="out", stop_template="stop {id}"))]
    assert out[1] == "ceph osd out 3" and "ceph osd purge 3 --yes-i-really-mean-it" not in out
    replace = planned_commands(Removal(osds=[5], replace=True, drain_mode="crush0", stop_template="stop {id}"),
                               weights={5: 0.0098})
    assert [c.cli for c in replace][-3:] == ["ceph osd destroy-actual 5 --yes-i-really-mean-it",
                                             "ceph-volume lvm create --osd-id 5 --data /dev/DEVICE",
                                             "ceph osd crush reweight osd.5 0.0098"]
    assert not replace[-2].sent  # the operator's, on the host
    assert "COSTS A SECOND MOVE" in drain_cost(Removal(osds=[3], drain_mode="out"))
    assert "only once" in drain_cost(Removal(osds=[3]))


class ReplacedCluster:
    """osd.5 destroyed after a crush0 drain and recreated: up and in, CRUSH weight still 0."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def mon(self, prefix: str, **args: Any) -> Any:
        if prefix == "osd dump":
            return {"epoch": 40, "osds": [{"osd": 5, "up": 1, "in": 1, "state": ["exists", "up"]}]}
        if prefix == "osd tree":
            return {"nodes": [{"id": 5, "crush_weight": 0.0}]}
        raise AssertionError(prefix)

    def mon_raw(self, prefix: str, inbuf: bytes = b"", **args: Any) -> tuple[bytes, str]:
        self.sent.append({"prefix": prefix, **args})
        return b"", ""


def test_a_crush0_replacement_gets_its_weight_back(tmp_path: Path) -> None:
    """Ceph keeps a destroyed OSD's CRUSH item at weight 0, and the new OSD's create-or-move keeps it there:
    without the old weight back, the new disk would never receive data, and the workflow would say done."""
    state = Removal(osds=[5], replace=True, drain_mode="crush0", step="replace",
                    original={"5": {"in": True, "crush_weight": 0.0098}})
    cluster = ReplacedCluster()
    RemovalEngine(cluster, state, WorkflowStore(tmp_path)).tick()
    assert cluster.sent == [{"prefix": "osd crush reweight", "name": "osd.5", "weight": 0.0098}]
    assert state.step == "backfill"
    assert [c.cli for c in planned_commands(state, weights={5: 0.0098})][-1] == \
        next(e["cli"] for e in state.log if e.get("cli"))  # the plan's line is what was sent


def test_pgs_left_is_the_live_count_of_the_step_and_none_when_finished() -> None:
    def row(**kw: Any) -> dict[str, Any]:
        return queue_rows([Removal(osds=[3], **kw).to_json()])[0]

    draining = row(step="wait_safe", progress={"pgs_on_osds": 14, "pgs_not_clean": 3})
    assert draining["pgs_left"] == 14 and indicator([draining]) == "removing osd.3: running (wait_safe, 14 PGs left)"
    assert row(step="stop", progress={"pgs_on_osds": 14})["pgs_left"] == 0
    assert row(step="backfill", replace=True, progress={"pgs_on_osds": 19, "pgs_not_clean": 7})["pgs_left"] == 7
    # Finished: no stale count (a done replacement kept its new OSD's 18 or 19 PGs).
    for status in ("done", "aborted"):
        finished = row(step="done", status=status, replace=True, progress={"pgs_on_osds": 19, "pgs_not_clean": 0})
        assert finished["pgs_left"] is None
    assert row(step="preflight")["pgs_left"] is None


def test_headless_status_prints_a_dash_for_finished(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cephtui.cli.remove import status_command

    store = WorkflowStore(tmp_path)
    done = Removal(osds=[5], status="done", step="done", progress={"pgs_on_osds": 18})
    store.save("removal", done.id, done.to_json())
    assert status_command(store, as_json=False) == 0
    (line,) = [x for x in capsys.readouterr().out.splitlines() if done.id in x]
    assert line.split()[5] == "-" and "18" not in line.split()[5:6]
