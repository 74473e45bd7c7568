"""Maintenance records in the cluster (config-key), on the session sandbox: an older cephtui's maintenance.json
is migrated once and another machine sees it; a removal and a maintenance of the same OSD refuse each other,
the headless `cephtui remove` too (exit 2, naming the maintenance, before anything runs)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from cephtui.ceph.client import CephClient
from cephtui.ceph.connection import ConnectionSpec
from cephtui.ceph.workflows import maintenance as mt
from cephtui.ceph.workflows import maintenance_plan as mplan
from cephtui.ceph.workflows.removal import KIND as REMOVAL
from cephtui.ceph.workflows.removal import Removal
from cephtui.ceph.workflows.store import PREFIX, WorkflowConflict, WorkflowStore
from tests.conftest import Sandbox


def stored(box: Sandbox, kind: str) -> dict[str, dict]:
    raw = box.ceph("config-key", "dump", f"{PREFIX}/{kind}/") or {}
    return {k.rsplit("/", 1)[1]: json.loads(v) for k, v in raw.items()}


@pytest.fixture
def clean(sandbox: Sandbox) -> Iterator[None]:
    yield
    for key in sandbox.ceph("config-key", "dump", f"{PREFIX}/") or {}:
        sandbox.ceph("config-key", "rm", key)


@pytest.fixture
def other(sandbox: Sandbox) -> Iterator[CephClient]:
    """A second connection: another machine."""
    c = CephClient(ConnectionSpec(conffile=str(sandbox.conf))).connect()
    yield c
    c.close()


def maintenance_of(osds: tuple[int, ...], fsid: str, user: str = "alice") -> mt.Maintenance:
    m, ops_ = mplan.plan_enter(mt.Target("", osds), (), set(), fsid, user=user)
    done = mplan.finish_enter(m, [(op, True, "") for op in ops_], ran=True)
    assert done is not None
    return done


def test_an_older_state_file_is_migrated_to_the_cluster_once(sandbox: Sandbox, client: CephClient, other: CephClient,
                                                               tmp_path: Path, clean: None) -> None:
    fsid = client.fsid()
    mine, theirs = maintenance_of((1,), fsid), maintenance_of((2,), "another-cluster-fsid")
    legacy = tmp_path / "a" / "maintenance.json"
    legacy.parent.mkdir()
    legacy.write_text(json.dumps({"version": 1, "maintenances": [mine.to_json(), theirs.to_json()], "history": []}))

    a = mt.MaintenanceStore(WorkflowStore(tmp_path / "a", client), legacy=legacy)
    a.load()
    assert a.error == "" and a.problem == "" and [m.id for m in a.records] == [mine.id]
    record = stored(sandbox, mt.KIND)[mine.id]
    assert record["restore"] == [{"flag": "noout", "scope": "osd.1"}] and record["user"] == "alice"
    assert record["_cephtui"]["started_by"].startswith("alice@") and record["_cephtui"]["kind"] == mt.KIND
    # Another cluster's record stays in the file (several clusters managed from one machine).
    left = json.loads(legacy.read_text())
    assert [d["id"] for d in left["maintenances"]] == [theirs.id]

    b = mt.MaintenanceStore(WorkflowStore(tmp_path / "b", other), legacy=tmp_path / "b" / "maintenance.json")
    b.load()  # another machine, nothing on its disk
    assert [(m.id, m.owned, m.starter) for m in b.records] == [(mine.id, mine.owned, a.records[0].starter)]
    a.load()  # once: not migrated twice
    assert list(stored(sandbox, mt.KIND)) == [mine.id]


def test_removal_and_maintenance_of_one_osd_refuse_each_other(sandbox: Sandbox, client: CephClient,
                                                              other: CephClient, tmp_path: Path,
                                                              clean: None) -> None:
    fsid = client.fsid()
    a = mt.MaintenanceStore(WorkflowStore(tmp_path / "a", client))
    m = maintenance_of((2,), fsid)
    a.put(m)

    # The headless remove, from another HOME: refused before anything runs, naming the maintenance.
    home = tmp_path / "home"
    env = {**{k: v for k, v in os.environ.items() if k not in ("CEPH_CONF", "CEPH_ARGS", "CEPHTUI_CONFIG")},
           "HOME": str(home), "CEPHTUI_STATE_DIR": str(home / "state"), "CEPHTUI_AUDIT_LOG": str(home / "audit.log"),
           "XDG_CONFIG_HOME": "/nonexistent/cephtui-tests"}
    before = sandbox.ceph("osd", "dump")["osds"]
    res = subprocess.run([sys.executable, "-m", "cephtui", "-c", str(sandbox.conf), "remove", "osd.2",
                          "--yes-i-typed", "osd.2"], capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode == 2, res.stderr
    assert f"osd.2 already in workflow {m.id} (maintenance of osd.2, active, started by {a.workflows.me} at " \
           in res.stderr and "end that maintenance first" in res.stderr, res.stderr
    assert sandbox.ceph("osd", "dump")["osds"] == before and stored(sandbox, REMOVAL) == {}

    # The store refuses it too (the TUI's path), and a removal of another OSD is fine.
    b = WorkflowStore(tmp_path / "b", other)
    clash = Removal(osds=[2])
    with pytest.raises(WorkflowConflict, match=rf"osd\.2 already in workflow {m.id} \(maintenance of osd\.2"):
        b.save(REMOVAL, clash.id, clash.to_json())
    assert stored(sandbox, REMOVAL) == {}

    # The other way: the maintenance ended, a removal of osd.2 saved; a maintenance of osd.2 is refused.
    a.put(replace(m, state="done"))
    b.save(REMOVAL, clash.id, clash.to_json())
    with pytest.raises(WorkflowConflict, match=rf"osd\.2 already in workflow {clash.id} \(removal at preflight"):
        mt.MaintenanceStore(WorkflowStore(tmp_path / "c", client)).put(maintenance_of((2, 3), fsid, user="eve"))
    assert [d["id"] for d in stored(sandbox, mt.KIND).values() if d["status"] != "done"] == []
