"""Pure parts of the removal queue: the keep rule, the size limit of a config-key value, the header text,
who counts as driving a workflow, and the OSD names `cephtui remove` accepts."""
from __future__ import annotations

import json
import os
import time

import pytest

from cephtui.ceph.workflows.queue import DRIVER_FRESH, driven_elsewhere, indicator, queue_rows
from cephtui.ceph.workflows.removal import Removal
from cephtui.ceph.workflows.store import (
    KEEP_FINISHED_COUNT,
    KEEP_FINISHED_DAYS,
    MAX_VALUE,
    META,
    WorkflowStore,
    cluster_text,
)
from cephtui.cli.remove import parse_osd_names

DAY = 86400.0


def test_prune_keeps_unfinished_and_recent_finished() -> None:
    now = 1_000_000_000.0
    queue = {
        "old-done": {"status": "done", "updated": now - (KEEP_FINISHED_DAYS + 1) * DAY},
        "old-paused": {"status": "paused", "updated": now - 100 * DAY},  # never pruned: someone must decide
        "old-failed": {"status": "failed", "updated": now - 100 * DAY},
        "new-aborted": {"status": "aborted", "updated": now - DAY},
    }
    assert WorkflowStore._prune_ids(queue, now) == ["old-done"]
    many = {f"d{i:03}": {"status": "done", "updated": now - i} for i in range(KEEP_FINISHED_COUNT + 3)}
    assert WorkflowStore._prune_ids(many, now) == [f"d{i:03}" for i in range(KEEP_FINISHED_COUNT,
                                                                              KEEP_FINISHED_COUNT + 3)]


def test_cluster_copy_fits_a_config_key_value_and_keeps_the_newest_log() -> None:
    r = Removal(osds=[3])
    for i in range(200):
        r.note(f"line {i} " + "x" * 400, "ceph osd out 3")
    text = cluster_text(r.to_json())
    assert len(text.encode()) <= MAX_VALUE
    back = json.loads(text)
    assert back["log"] and back["log"][-1]["text"].startswith("line 199 ")
    assert Removal.from_json(back).osds == [3]


def test_indicator_and_rows() -> None:
    a = Removal(osds=[3], step="wait_safe", progress={"pgs_on_osds": 12})
    b = Removal(osds=[4], status="paused", replace=True)
    done = Removal(osds=[5], status="done")
    assert indicator(queue_rows([done.to_json()])) == ""
    assert indicator(queue_rows([a.to_json(), done.to_json()])) == "removing osd.3: running (wait_safe, 12 PGs left)"
    assert indicator(queue_rows([a.to_json(), b.to_json()])) == "2 removals: 1 paused, 1 running"
    row = queue_rows([{**b.to_json(), META: {"started_by": "ann@mon1 (client.admin)"}}])[0]
    assert (row["kind"], row["osds"], row["started_by"]) == ("replace", ["osd.4"], "ann@mon1 (client.admin)")


def test_driven_elsewhere() -> None:
    now = time.time()
    me = "root@here (client.admin)"
    row = {"status": "running", "updated": now - 5, "driven_by": "ann@mon2 (client.admin)", "pid": 1}
    assert driven_elsewhere(row, me, now)
    assert not driven_elsewhere({**row, "updated": now - DRIVER_FRESH - 1}, me, now)  # its driver went quiet
    assert not driven_elsewhere({**row, "status": "paused"}, me, now)
    assert not driven_elsewhere({**row, "driven_by": me, "pid": os.getpid()}, me, now)  # this process
    gone = 2 ** 22 + 12345  # above pid_max's default: no such process
    assert not driven_elsewhere({**row, "driven_by": me, "pid": gone}, me, now)


@pytest.mark.parametrize("names, why", [(["3"], "not an OSD name"), (["osd.03"], "not an OSD name"),
                                        (["osd.3", "osd.3"], "twice"), (["host.3"], "not an OSD name")])
def test_osd_names_are_exact(names: list[str], why: str) -> None:
    with pytest.raises(ValueError, match=why):
        parse_osd_names(names)
    assert parse_osd_names(["osd.3", "osd.10"]) == [3, 10]
