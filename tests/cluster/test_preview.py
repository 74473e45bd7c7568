"""The PG-movement preview against what the real cluster then does.

Each test that changes CRUSH puts it back and waits for HEALTH_OK.
"""
from __future__ import annotations

from typing import Any

import pytest

from cephtui.ceph import ops
from cephtui.ceph.client import CephClient
from cephtui.ceph.crush import crushtool
from cephtui.ceph.crush.model import check_add_bucket, check_move, check_remove_bucket, parse_crush
from cephtui.ceph.errors import CephError
from cephtui.ceph.movement import fetch_osdmap, preview
from tests.conftest import Sandbox, wait_until


def _brief(client: CephClient) -> dict[str, tuple[int, ...]]:
    d = client.mgr("pg dump", dumpcontents=["pgs_brief"])
    stats = d.get("pg_stats", d.get("pg_map", {}).get("pg_stats", [])) if isinstance(d, dict) else d
    return {p["pgid"]: tuple(p["up"]) for p in stats}


def _states(client: CephClient) -> dict[str, str]:
    d = client.mgr("pg dump", dumpcontents=["pgs_brief"])
    stats = d.get("pg_stats", d.get("pg_map", {}).get("pg_stats", [])) if isinstance(d, dict) else d
    return {p["pgid"]: p["state"] for p in stats}


def _clean(client: CephClient) -> bool:
    states = _states(client)
    return bool(states) and all(s == "active+clean" for s in states.values())


def _stored(client: CephClient) -> int:
    d = client.mgr("pg dump", dumpcontents=["pgs"])
    stats = d.get("pg_stats", d.get("pg_map", {}).get("pg_stats", [])) if isinstance(d, dict) else d
    return sum(p["stat_sum"]["num_bytes"] for p in stats)


def _crush_shape(d: dict[str, Any]) -> Any:
    """What CRUSH hashes: bucket ids, types, weights, items (ids and weights), devices, rules."""
    return (sorted((b["id"], b["name"], b["type_id"], b["weight"], b["alg"],
                    tuple((i["id"], i["weight"]) for i in b["items"])) for b in d["buckets"]),
            d["devices"], [(r["rule_id"], r["steps"]) for r in d["rules"]])


def test_preview_predicts_real_movement(client: CephClient, sandbox: Sandbox) -> None:
    wait_until(lambda: _clean(client), 120, "all PGs active+clean before the test")
    wait_until(lambda: _stored(client) > 0, 30, "the mgr to report the objects conftest wrote")
    cmap = parse_crush(client.mon("osd crush dump"), client.mon("osd dump"))
    host = cmap.parent_of("osd.2")
    assert host is not None and host.type_name == "host"
    check_add_bucket(cmap, "ct-host2", "host", "default")
    steps = [ops.crush_add_bucket("ct-host2", "host", [("root", "default")]),
             ops.crush_move("osd.2", [("host", "ct-host2")])]

    _, epoch0 = fetch_osdmap(client)
    before = _brief(client)
    pv = preview(client, steps)
    # A preview is read-only: same osdmap epoch, same crush map.
    _, epoch1 = fetch_osdmap(client)
    assert epoch1 == epoch0 == pv.epoch
    assert pv.total_pgs == len(before)
    assert pv.changed, "moving an OSD to another host must remap something"
    # With 3 OSDs and size 3 the up sets only reorder (new primaries, no copies); with more, shards
    # move and, the pool holding conftest's objects, so do bytes.
    assert pv.bytes_to_move is not None and (pv.bytes_to_move > 0) == (pv.shards_moved > 0)

    try:
        for op in steps:
            ops.run(client, op)
        # The emulated map is the map the mons built: same bucket ids, weights, shadow trees.
        om, _ = fetch_osdmap(client)
        assert _crush_shape(crushtool.dump(crushtool.export_crush(om))) == _crush_shape(crushtool.dump(pv.new_crush))
        expected = crushtool.map_pgs(om)
        # Wait until the mgr's PG table shows every PG on its new up set, then compare with before.
        wait_until(lambda: _brief(client) == expected, 120, "the mgr to report the new up sets")
        after = _brief(client)
        really_changed = {pgid for pgid, up in before.items() if after.get(pgid) != up}
        assert really_changed == set(pv.changed)
        for pm in pv.pools:
            assert pm.changed_pgs == sum(1 for pgid in really_changed if pgid.startswith(f"{pm.pool_id}."))
            shards = sum(len(set(after[p]) - set(before[p])) for p in really_changed
                         if p.startswith(f"{pm.pool_id}."))
            assert pm.shards_moved == shards
        assert pv.changed_pgs == sum(pm.changed_pgs for pm in pv.pools)
    finally:
        ops.run(client, ops.crush_move("osd.2", [("host", host.name)]))
        cmap = parse_crush(client.mon("osd crush dump"))
        check_remove_bucket(cmap, "ct-host2")
        ops.run(client, ops.crush_remove_bucket("ct-host2"))
        sandbox.heal()
    assert parse_crush(client.mon("osd crush dump")).bucket("ct-host2") is None
    wait_until(lambda: _clean(client), 120, "all PGs active+clean after the test")


def test_move_validator_agrees_with_the_mon(client: CephClient) -> None:
    cmap = parse_crush(client.mon("osd crush dump"))
    host = cmap.parent_of("osd.0")
    assert host is not None
    with pytest.raises(ValueError, match="already under"):
        check_move(cmap, "osd.0", host.name)
    with pytest.raises(ValueError, match="under itself"):
        check_move(cmap, "default", "default")
    # What we refuse, the mon refuses too (so our refusal is not stricter than Ceph for this case).
    with pytest.raises(ValueError):
        check_remove_bucket(cmap, host.name)
    with pytest.raises(CephError) as e:
        client.mon_raw("osd crush rm", name=host.name)
    assert e.value.errno == 39  # ENOTEMPTY


def test_bad_map_text_is_refused_and_nothing_applied(client: CephClient) -> None:
    crush, _ = client.mon_raw("osd getcrushmap")
    _, epoch0 = fetch_osdmap(client)
    text = crushtool.decompile(crush)
    # Exact weights: an untouched round trip is lossless (bytes may differ: empty rule slots are compacted).
    assert crushtool.dump(crushtool.compile_text(text)) == crushtool.dump(crush)
    lines = text.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.strip() == "step emit")
    lines[at] = "\tstep emmit"
    with pytest.raises(crushtool.CrushCompileError) as e:
        crushtool.compile_text("\n".join(lines) + "\n")
    assert e.value.line is not None and 0 < e.value.line <= at + 1
    assert "parse error" in e.value.message
    # Nothing reached the cluster.
    _, epoch1 = fetch_osdmap(client)
    assert epoch1 == epoch0
    assert client.mon_raw("osd getcrushmap")[0] == crush


def test_weight_preview_predicts_the_mons_own_mapping(client: CephClient, sandbox: Sandbox) -> None:
    """Reweight two OSDs in one go (the osdmap's override weights edited offline): the osdmap the mons
    then build maps exactly the PGs the preview said, and as many undersized (3 OSDs, size 3: a PG
    that CRUSH steers off a reweighted OSD has nowhere else to go)."""
    wait_until(lambda: _clean(client), 120, "all PGs active+clean before the test")
    steps = [ops.osd_reweight(0, "0.5"), ops.osd_reweight(1, "0.8")]
    om0, epoch0 = fetch_osdmap(client)
    before = crushtool.map_pgs(om0)
    pv = preview(client, steps)
    assert fetch_osdmap(client)[1] == epoch0 == pv.epoch  # read-only
    assert pv.changed and 0 < pv.undersized_pgs < pv.total_pgs
    try:
        for op in steps:
            ops.run(client, op)
        after = crushtool.map_pgs(fetch_osdmap(client)[0])  # the mons' own map, as it is now
        really_changed = {pgid for pgid, up in before.items() if after[pgid] != up}
        assert really_changed == set(pv.changed)
        assert sum(1 for pgid in really_changed if len(after[pgid]) < len(before[pgid])) == pv.undersized_pgs
    finally:
        ops.run(client, ops.osd_reweight(0, "1"))
        ops.run(client, ops.osd_reweight(1, "1"))
    wait_until(lambda: _clean(client), 120, "all PGs active+clean after the test")
