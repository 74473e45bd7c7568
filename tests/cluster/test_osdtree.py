"""The OSD table equals what `ceph osd tree` and `ceph osd df` say, for every OSD and bucket."""
from __future__ import annotations

import time

import pytest

from cephtui.ceph.snapshot.builder import SnapshotBuilder
from cephtui.ceph.snapshot.cluster_snapshot import ClusterSnapshot
from cephtui.ceph.snapshot.osdtree import BucketInfo, OSDInfo
from tests.conftest import Sandbox


def _settled_snapshot(client, sandbox: Sandbox) -> tuple[ClusterSnapshot, dict]:
    """A snapshot taken between two equal `ceph osd df` readings.

    An earlier test (`ceph tell osd.N bench`) leaves bytes that the OSDs report to the mgr for a few
    seconds more, so usage can move by 15 points between two calls; compare only once it is still.
    """
    for _ in range(15):
        before = sandbox.ceph("osd", "df")
        snap = SnapshotBuilder(client).build(osd_tree=True)
        after = sandbox.ceph("osd", "df")
        if [n["kb_used"] for n in before["nodes"]] == [n["kb_used"] for n in after["nodes"]]:
            return snap, after
        time.sleep(1)
    raise AssertionError("osd usage kept moving for 15 s")


def test_osd_table_equals_ceph_osd_tree_and_osd_df(client, sandbox: Sandbox) -> None:
    snap, df = _settled_snapshot(client, sandbox)
    table = snap.osd_table
    assert table is not None
    tree = sandbox.ceph("osd", "tree")

    cli_osds = {n["id"]: n for n in tree["nodes"] if n["id"] >= 0}
    assert {o.id for o in table.osds} == set(cli_osds)
    for n in cli_osds.values():
        o = table.osd(n["id"])
        assert o is not None
        assert (o.name, o.device_class, o.status) == (n["name"], n["device_class"], n["status"])
        assert o.crush_weight == pytest.approx(n["crush_weight"])
        assert o.reweight == pytest.approx(n["reweight"]) and o.primary_affinity == pytest.approx(n["primary_affinity"])
    for n in df["nodes"]:
        o = table.osd(n["id"])
        assert o is not None
        assert (o.kb, o.pgs) == (n["kb"], n["pgs"])
        assert o.utilization == pytest.approx(n["utilization"], abs=0.5)
        assert o.kb_used == pytest.approx(n["kb_used"], rel=0.05)
        assert o.var == pytest.approx(n["var"], abs=0.05)

    # The hierarchy: every bucket of `ceph osd tree`, with its children in the rows beneath it.
    buckets = {n["id"]: n for n in tree["nodes"] if n["id"] < 0}
    shown = {r.node.id: r for r in table.rows if isinstance(r.node, BucketInfo)}
    assert set(shown) == set(buckets)
    for bid, n in buckets.items():
        b = shown[bid].node
        assert isinstance(b, BucketInfo)
        assert (b.name, b.type_name) == (n["name"], n["type"])
        under = table.subtree_osds(bid)
        assert b.osds_total == len(under) and b.osds_up == sum(cli_osds[i]["status"] == "up" for i in under)
        assert b.kb == sum(x["kb"] for x in df["nodes"] if x["id"] in under)
    host = next(r.node for r in table.rows if isinstance(r.node, BucketInfo) and r.node.type_name == "host")
    assert all(isinstance(o, OSDInfo) and o.host == host.name for o in table.osds)


def test_per_osd_flags_and_perf_come_through(client, sandbox: Sandbox) -> None:
    builder = SnapshotBuilder(client)
    client.mon_raw("osd add-noout", ids=["1"])
    try:
        table = builder.build(osd_tree=True).osd_table
        assert table is not None
        flagged = [o.id for o in table.osds if "noout" in o.flags]
        assert flagged == [1]
        perf = sandbox.ceph("osd", "perf")
        ids = {p["id"] for p in perf["osdstats"]["osd_perf_infos"]}
        assert ids == {o.id for o in table.osds if o.commit_ms is not None}
    finally:
        client.mon_raw("osd rm-noout", ids=["1"])
    table = builder.build(osd_tree=True).osd_table
    assert table is not None and not any("noout" in o.flags for o in table.osds)


def test_shadow_trees_only_when_asked(client) -> None:
    builder = SnapshotBuilder(client)
    plain = builder.build(osd_tree=True).osd_table
    shadow = builder.build(osd_tree=True, shadow=True).osd_table
    assert plain is not None and shadow is not None
    assert not any(isinstance(r.node, BucketInfo) and "~" in r.node.name for r in plain.rows)
    shadows = [r.node for r in shadow.rows if isinstance(r.node, BucketInfo) and r.node.shadow]
    assert shadows and all("~" in b.name for b in shadows)
    assert any(b.name.endswith("~hdd") and b.osds_total == len(plain.osds) for b in shadows)
