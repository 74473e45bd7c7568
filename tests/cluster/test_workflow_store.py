"""The workflow queue kept in the cluster (config-key), on a real sandbox: two stores with their own
cache directories and their own connections are two machines; caps and a dead mon fall back to the cache."""
from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cephtui.ceph.client import CephClient
from cephtui.ceph.connection import ConnectionSpec
from cephtui.ceph.secrets import MASK
from cephtui.ceph.workflows.removal import KIND, Removal, unfinished
from cephtui.ceph.workflows.store import KEEP_FINISHED_DAYS, META, PREFIX, WorkflowConflict, WorkflowStore
from tests.conftest import Sandbox, wait_until

KEY = "AQBRZ2Vm2kYHExAAsz1d0uQ3w5l2wYc9h0Vb0A=="  # the shape of a cephx key (made up, no such entity)


def cluster_queue(box: Sandbox) -> dict[str, dict]:
    """What the real CLI sees under cephtui's prefix."""
    raw = box.ceph("config-key", "dump", f"{PREFIX}/{KIND}/") or {}
    return {k.rsplit("/", 1)[1]: json.loads(v) for k, v in raw.items()}


@pytest.fixture
def clean_queue(sandbox: Sandbox) -> Iterator[None]:
    yield
    for wf_id in cluster_queue(sandbox):
        sandbox.ceph("config-key", "rm", f"{PREFIX}/{KIND}/{wf_id}")


def connect(box: Sandbox, **kw: object) -> CephClient:
    return CephClient(ConnectionSpec(conffile=str(box.conf), **kw)).connect()  # type: ignore[arg-type]


def test_two_machines_share_the_queue_and_conflicts_are_refused(sandbox: Sandbox, client: CephClient,
                                                                tmp_path: Path, clean_queue: None) -> None:
    other = connect(sandbox)
    try:
        a, b = WorkflowStore(tmp_path / "a", client), WorkflowStore(tmp_path / "b", other)
        r = Removal(osds=[1], stop_template=f"ssh {{host}} --key={KEY} stop {{id}}")
        a.save(KIND, r.id, r.to_json())
        seen = cluster_queue(sandbox)
        assert list(seen) == [r.id]
        assert KEY not in json.dumps(seen) and MASK in seen[r.id]["stop_template"]  # nothing secret in the cluster
        assert seen[r.id][META]["started_by"] == a.me and seen[r.id][META]["fsid"] == client.fsid()

        # The other machine, with an empty cache, sees it: same state, read back by the engine's own parser.
        back = unfinished(b)
        assert [x.id for x in back] == [r.id] and back[0].osds == [1] and back[0].step == r.step
        assert b.problem == ""

        # A second workflow on an OSD the first holds is refused there, and nothing of it is kept.
        clash = Removal(osds=[2, 1])
        with pytest.raises(WorkflowConflict, match=r"osd\.1 already in workflow " + r.id):
            b.save(KIND, clash.id, clash.to_json())
        assert list(cluster_queue(sandbox)) == [r.id] and not b.path(KIND, clash.id).exists()
        fine = Removal(osds=[2])
        b.save(KIND, fine.id, fine.to_json())

        # Finished there: the OSD is free again; machine b drives the first one now, its origin is kept.
        b.load_all(KIND)
        r.status = "done"
        b.save(KIND, r.id, r.to_json())
        again = Removal(osds=[1])
        a.save(KIND, again.id, again.to_json())
        seen = cluster_queue(sandbox)
        assert set(seen) == {r.id, fine.id, again.id}
        assert seen[r.id][META]["started_by"] == a.me and seen[r.id]["status"] == "done"

        # Pruning: a finished workflow older than the keep rule goes at the next listing, by anyone.
        old = Removal(osds=[0], status="aborted")
        data = old.to_json()
        data["updated"] = time.time() - (KEEP_FINISHED_DAYS + 1) * 86400
        a.save(KIND, old.id, data)
        assert old.id in cluster_queue(sandbox)
        assert old.id not in {d["id"] for d in b.load_all(KIND)}
        assert old.id not in cluster_queue(sandbox)
        a.load_all(KIND)  # machine a had it in its cache: gone there too, once the cluster no longer has it
        assert not a.path(KIND, old.id).exists()
    finally:
        other.close()


def _user(box: Sandbox, tmp_path: Path, name: str, mon_caps: str) -> CephClient:
    keyring = tmp_path / f"{name}.keyring"
    subprocess.run(["ceph", "-c", str(box.conf), "auth", "get-or-create", f"client.{name}", "mon", mon_caps,
                    "-o", str(keyring)], check=True, capture_output=True, timeout=60)
    return connect(box, name=f"client.{name}", keyring=str(keyring))


def test_caps_refusing_config_key_fall_back_to_the_cache(sandbox: Sandbox, client: CephClient, tmp_path: Path,
                                                         clean_queue: None) -> None:
    # config-key is not covered by mon 'allow r' (it holds other tools' secrets): reading it needs its own grant.
    ro = _user(sandbox, tmp_path, "cephtui-wf-ro", 'allow r, allow command "config-key dump"')
    blind = _user(sandbox, tmp_path, "cephtui-wf-blind", "allow r")
    try:
        theirs = Removal(osds=[1])
        WorkflowStore(tmp_path / "admin", client).save(KIND, theirs.id, theirs.to_json())

        # Read allowed, write refused: the conflict check still sees the cluster's queue ...
        store = WorkflowStore(tmp_path / "ro", ro)
        with pytest.raises(WorkflowConflict):
            store.save(KIND, "x", Removal(osds=[1], id="x").to_json())
        # ... and a workflow it may run is kept locally, saying why the cluster does not have it.
        mine = Removal(osds=[2])
        store.save(KIND, mine.id, mine.to_json())
        assert "refused config-key" in store.problem and "this machine's copy only" in store.problem
        assert store.path(KIND, mine.id).exists() and mine.id not in cluster_queue(sandbox)
        assert {r.id for r in unfinished(store)} == {theirs.id, mine.id}

        # No config-key read at all: the cache alone (the queue as last read, and its own), and it says so.
        blind_store = WorkflowStore(tmp_path / "ro", blind)  # the same machine's cache
        assert {r.id for r in unfinished(blind_store)} == {theirs.id, mine.id}
        assert "reading the cluster's queue" in blind_store.problem and "refused" in blind_store.problem
    finally:
        ro.close()
        blind.close()
        for name in ("cephtui-wf-ro", "cephtui-wf-blind"):
            sandbox.ceph("auth", "rm", f"client.{name}")


def test_mon_down_uses_the_cache_and_syncs_when_back(sandbox: Sandbox, tmp_path: Path, clean_queue: None) -> None:
    c = CephClient(ConnectionSpec(conffile=str(sandbox.conf), op_timeout=2)).connect()
    store = WorkflowStore(tmp_path / "m", c)
    try:
        store.load_all(KIND)
        sandbox.kill("mon.a")
        try:
            r = Removal(osds=[1])
            store.save(KIND, r.id, r.to_json())  # bounded by the op timeout, never hangs
            assert "could not be reached" in store.problem
            assert [x.id for x in unfinished(store)] == [r.id]  # from the cache
        finally:
            sandbox.revive("mon.a")
        # Back: the next listing gives the cluster the workflow started while it was away.
        wait_until(lambda: r.id in {x.id for x in unfinished(store)} and not store.problem, 60, "the mon back")
        assert list(cluster_queue(sandbox)) == [r.id]
        assert cluster_queue(sandbox)[r.id][META]["started_by"] == store.me
    finally:
        c.close()
        sandbox.heal()
