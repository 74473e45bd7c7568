"""CRUSH model, validators and the crushtool/osdmaptool wrappers, on captured or tool-made maps.

Fixtures in tests/fixtures/crush/ come from scripts/capture_crush_fixtures.py (a real Pacific
sandbox: a rack with a second host, osd.3 of class ssd, a class rule, EC pools).
"""
from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cephtui.ceph import movement as preview
from cephtui.ceph import ops
from cephtui.ceph.crush import crushtool
from cephtui.ceph.crush import model as C
from cephtui.ceph.crush.crushtool import NONE_OSD

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "crush"
needs_tools = pytest.mark.skipif(bool(crushtool.missing_tools()), reason="crushtool/osdmaptool not installed")


def _major(version: str) -> int | None:
    m = re.search(r"(\d+)\.\d+\.\d+", version)
    return int(m.group(1)) if m else None


# The fixture's osdmap is Pacific's. An osdmaptool of an older release cannot map its PGs: Nautilus' (bullseye's
# 14.2.21) crashes on it, so those tests need a Pacific or newer tool; test_an_older_osdmaptool_says_so runs instead.
FIXTURE_CEPH = json.loads((FIX / "VERSION").read_text())["version"]
LOCAL_OSDMAPTOOL = crushtool.tool_version("osdmaptool")
OLDER_OSDMAPTOOL = (_major(LOCAL_OSDMAPTOOL) or 99) < (_major(FIXTURE_CEPH) or 0)
reads_fixture_osdmap = pytest.mark.skipif(
    OLDER_OSDMAPTOOL, reason=f"osdmaptool {LOCAL_OSDMAPTOOL} is older than the fixture's osdmap ({FIXTURE_CEPH})")


@pytest.fixture(scope="module")
def cmap() -> C.CrushMap:
    return C.parse_crush(json.loads((FIX / "crush_dump.json").read_text()),
                         json.loads((FIX / "osd_dump.json").read_text()))


def test_parse_counts_and_tree(cmap: C.CrushMap) -> None:
    assert [d.name for d in cmap.devices] == ["osd.0", "osd.1", "osd.2", "osd.3"]
    assert cmap.device("osd.3").device_class == "ssd"  # type: ignore[union-attr]
    assert len(cmap.types) == 12 and cmap.types[0] == (0, "osd") and cmap.type_id("rack") == 3
    assert len(cmap.buckets) == 12  # 4 real + hdd and ssd shadow copies of each
    assert {b.name for b in cmap.real_buckets()} == {"default", "vm", "rack1", "host2"}
    assert all("~" not in b.name for b in cmap.real_buckets())
    assert cmap.bucket("default~ssd").shadow_of_class == "ssd"  # type: ignore[union-attr]
    assert [r.name for r in cmap.roots()] == ["default"]
    assert cmap.classes == ("hdd", "ssd")
    assert cmap.tunables_profile == "jewel" and dict(cmap.tunables)["choose_total_tries"] == 50
    vm = cmap.bucket("vm")
    assert vm is not None and vm.type_name == "host" and vm.alg == "straw2"
    assert vm.weight == pytest.approx(sum(i.weight for i in vm.items))
    assert abs(vm.items[0].weight - 642 / 0x10000) < 1e-12  # 16.16 fixed point, divided exactly
    assert cmap.location_of("osd.3") == [("host", "host2"), ("rack", "rack1"), ("root", "default")]
    assert cmap.parent_of("host2").name == "rack1"  # type: ignore[union-attr]
    assert set(cmap.descendants("rack1")) == {"host2", "osd.3"}
    assert cmap.item_id("vm") == -3 and cmap.item_id("osd.2") == 2 and cmap.item_id("nope") is None
    assert [n for _, n in C.iter_tree(cmap)][:2] == ["default", "vm"]


def test_parse_rules_pools_profiles(cmap: C.CrushMap) -> None:
    fast, ec = cmap.rule("fast"), cmap.rule("ecpool")
    assert fast is not None and ec is not None
    assert fast.steps == ("take default class ssd", "choose firstn 0 type osd", "emit")
    assert (fast.root, fast.device_class, fast.failure_domain, fast.pools) == ("default", "ssd", "osd", ())
    assert ec.type == "erasure" and ec.steps[0] == "set_chooseleaf_tries 5" and ec.steps[3] == "choose indep 0 type osd"
    assert cmap.pools_using_rule("replicated_rule") == ("rbd", "device_health_metrics")
    assert cmap.pools_using_rule("ecpool") == ("ecpool",)
    p = cmap.ec_profile("ec21")
    assert p is not None and (p.k, p.m, p.plugin, p.failure_domain, p.device_class) == (2, 1, "jerasure", "osd", "hdd")
    d = cmap.ec_profile("default")
    assert d is not None and d.failure_domain == "host" and d.device_class is None  # Ceph's defaults


def test_parse_tolerates_missing_keys_and_squid_steps() -> None:
    m = C.parse_crush({"rules": [{"rule_id": 4, "rule_name": "m", "type": 6, "steps": [
        {"op": "take", "item": -1, "item_name": "default"}, {"op": "choosemsr", "num": 2, "type": "host"},
        {"op": "set_msr_descents", "num": 3}, {"op": "emit"}]}]}, None)
    r = m.rule("m")
    assert r is not None and r.type == "msr_indep"
    assert r.steps == ("take default", "choosemsr 2 type host", "set_msr_descents 3", "emit")
    assert C.parse_crush({}, {}).buckets == ()


def test_check_add_bucket(cmap: C.CrushMap) -> None:
    assert C.check_add_bucket(cmap, "host3", "host", "rack1") is None
    assert C.check_add_bucket(cmap, "newroot", "root") is None
    for args, why in [(("vm", "host", "default"), "already exists"), (("osd.2", "host", None), "already exists"),
                      (("h 3", "host", None), "may only contain"), (("h3", "shelf", None), "unknown bucket type"),
                      (("h3", "osd", None), "device type"), (("h3", "host", "nope"), "does not exist"),
                      (("r2", "rack", "vm"), "parent's type must be higher"),
                      (("h3", "host", "default~hdd"), "shadow"), (("h3", "host", "osd.1"), "is a device")]:
        with pytest.raises(ValueError, match=why):
            C.check_add_bucket(cmap, *args)


def test_check_move(cmap: C.CrushMap) -> None:
    assert C.check_move(cmap, "osd.3", "vm") is None
    assert C.check_move(cmap, "host2", "default") is None
    for args, why in [(("osd.9", "vm"), "does not exist"), (("osd.0", "vm"), "already under"),
                      (("osd.0", "vm~hdd"), "shadow"), (("rack1", "host2"), "descendants"),
                      (("default", "default"), "itself"), (("vm", "vm"), "itself"),
                      (("vm", "host2"), "type must be higher"), (("osd.0", "osd.1"), "device, not a bucket")]:
        with pytest.raises(ValueError, match=why):
            C.check_move(cmap, *args)


def test_check_rename_and_remove(cmap: C.CrushMap) -> None:
    assert C.check_rename(cmap, "host2", "host9") is None
    for args, why in [(("nope", "x"), "does not exist"), (("host2", "vm"), "already exists"),
                      (("host2", "host2"), "same"), (("osd.1", "x"), "device"), (("vm~hdd", "x"), "shadow")]:
        with pytest.raises(ValueError, match=why):
            C.check_rename(cmap, *args)
    with pytest.raises(ValueError, match="ENOTEMPTY"):
        C.check_remove_bucket(cmap, "host2")
    with pytest.raises(ValueError, match="is a device"):
        C.check_remove_bucket(cmap, "osd.3")
    empty = C.parse_crush({"types": [{"type_id": 0, "name": "osd"}, {"type_id": 11, "name": "root"}],
                           "buckets": [{"id": -1, "name": "spare", "type_id": 11, "items": []},
                                       {"id": -2, "name": "used", "type_id": 11, "items": []}],
                           "rules": [{"rule_id": 0, "rule_name": "r", "type": 1,
                                      "steps": [{"op": "take", "item": -2, "item_name": "used"}, {"op": "emit"}]}]})
    assert C.check_remove_bucket(empty, "spare") is None
    with pytest.raises(ValueError, match="used by rule r"):
        C.check_remove_bucket(empty, "used")


def test_check_rules_and_profiles(cmap: C.CrushMap) -> None:
    assert C.check_rule_create(cmap, "r2", "default", "host", "hdd") is None
    assert C.check_rule_create(cmap, "r2", "rack1", "osd") is None
    for args, why in [(("fast", "default", "host", ""), "already exists"),
                      (("r2", "nope", "host", ""), "does not exist"),
                      (("r2", "default", "shelf", ""), "unknown failure domain"),
                      (("r2", "default", "host", "nvme"), "does not exist"),
                      (("r2", "vm", "host", "ssd"), "has no devices with class ssd")]:
        with pytest.raises(ValueError, match=why):
            C.check_rule_create(cmap, *args)
    assert C.check_rule_remove(cmap, "fast") is None
    with pytest.raises(ValueError, match="in use by pools rbd, device_health_metrics"):
        C.check_rule_remove(cmap, "replicated_rule")
    with pytest.raises(ValueError, match="does not exist"):
        C.check_rule_remove(cmap, "nope")
    assert C.check_ec_profile(cmap, "ec32", "host", "ssd") is None
    assert C.check_ec_profile(cmap, "ec21", "osd", force=True) is None
    for args, why in [(("ec21",), "already exists"), (("ec32", "shelf"), "unknown failure domain"),
                      (("ec32", "host", "nvme"), "does not exist"), (("ec32", "host", "", "nope"), "does not exist")]:
        with pytest.raises(ValueError, match=why):
            C.check_ec_profile(cmap, *args)  # type: ignore[arg-type]


# ------------------------------------------------------------------ the binaries

@needs_tools
def test_compile_error_carries_line() -> None:
    text = (FIX / "crushmap.txt").read_text().splitlines()
    at = text.index("\tstep emit")
    text[at] = "\tstep emmit"
    with pytest.raises(crushtool.CrushCompileError) as e:
        crushtool.compile_text("\n".join(text) + "\n")
    assert e.value.line is not None and 0 < e.value.line <= at + 1  # the parser points at the rule
    assert e.value.message.startswith(f"line {e.value.line} error: parse error")
    text[at] = "\tstep emit"
    text[text.index("\titem osd.0 weight 0.010")] = "\titem osd.9 weight 0.010"
    with pytest.raises(crushtool.CrushCompileError, match="item 'osd.9' in bucket 'vm' is not defined") as e2:
        crushtool.compile_text("\n".join(text) + "\n")
    assert e2.value.line is None


@needs_tools
def test_decompile_is_exact_but_crushtools_text_is_not() -> None:
    binary = (FIX / "crushmap.bin").read_bytes()
    exact = crushtool.decompile(binary)
    assert crushtool.dump(crushtool.compile_text(exact)) == crushtool.dump(binary)
    # crushtool -d prints 3 decimals: compiling its text as is changes weights (0.00980 -> 0.010).
    lossy = crushtool.dump(crushtool.compile_text((FIX / "crushmap.txt").read_text()))
    assert lossy["buckets"] != crushtool.dump(binary)["buckets"]


@needs_tools
def test_map_pgs_on_a_createsimple_map(tmp_path: Path) -> None:
    subprocess.run(["osdmaptool", "--createsimple", "12", "--pg-bits", "2", "--with-default-pool", str(tmp_path / "m")],
                   check=True, capture_output=True)
    om = (tmp_path / "m").read_bytes()
    pg_num = sum(p["pg_num"] for p in crushtool.osdmap_dump(om)["pools"])
    m = crushtool.map_pgs(om, mark_up_in=True)
    assert len(m) == pg_num == 48
    # createsimple puts every OSD in one host and its rule separates replicas by host: one OSD each.
    assert all(len(up) == 1 and 0 <= up[0] < 12 for up in m.values())
    assert len({up[0] for up in m.values()}) > 6
    assert all(up == () for up in crushtool.map_pgs(om).values())  # createsimple OSDs are down


@needs_tools
@pytest.mark.skipif(not OLDER_OSDMAPTOOL, reason=f"osdmaptool {LOCAL_OSDMAPTOOL} reads the fixture's osdmap")
def test_an_older_osdmaptool_says_so() -> None:
    """An osdmaptool older than the cluster crashes on its map: one line naming the tool's release and the fix."""
    with pytest.raises(crushtool.CrushToolError) as e:
        crushtool.map_pgs((FIX / "osdmap.bin").read_bytes())
    msg = str(e.value)
    assert "\n" not in msg and "crashed (SIGSEGV)" in msg and LOCAL_OSDMAPTOOL in msg and "ceph-common" in msg


@needs_tools
@reads_fixture_osdmap
def test_map_pgs_real_osdmap_with_ec_holes() -> None:
    om = (FIX / "osdmap.bin").read_bytes()
    info = crushtool.osdmap_dump(om)
    m = crushtool.map_pgs(om)
    assert len(m) == sum(p["pg_num"] for p in info["pools"])
    wide = next(p["pool"] for p in info["pools"] if p["pool_name"] == "ecwide")  # k=4 m=2 on 4 OSDs
    ups = [up for pgid, up in m.items() if pgid.startswith(f"{wide}.")]
    assert all(len(up) == 6 and up.count(NONE_OSD) == 2 for up in ups)
    assert 3 not in m[f"{next(p['pool'] for p in info['pools'] if p['pool_name'] == 'ecpool')}.0"]  # hdd only


def test_shards_moved() -> None:
    assert preview.shards_moved((0, 1, 2), (1, 0, 2), erasure=False) == 0  # reordered: nothing to copy
    assert preview.shards_moved((0, 1, 2), (0, 1, 3), erasure=False) == 1
    assert preview.shards_moved((0, 1, 2), (1, 0, 2), erasure=True) == 2  # EC shards are positional
    assert preview.shards_moved((0, 1, NONE_OSD), (0, 1, 3), erasure=True) == 1
    assert preview.shards_moved((0, 1, 2), (0, 1, NONE_OSD), erasure=True) == 0


@needs_tools
@reads_fixture_osdmap
def test_preview_offline_move_and_noop() -> None:
    om = (FIX / "osdmap.bin").read_bytes()
    old = crushtool.export_crush(om)
    same = preview.compare(om, old, old, pg_bytes={})
    assert same.changed == frozenset() and same.bytes_to_move == 0 and same.total_pgs == 45
    new, notes = preview.build_crush(old, [ops.crush_move("osd.3", [("host", "vm")]),
                                           ops.rule_create_erasure("e2", "ec21"),
                                           ops.crush_rename_bucket("host2", "h2")])
    assert len(notes) == 1 and "moves nothing" in notes[0]
    pv = preview.compare(om, old, new, pg_bytes={pgid: 4096 for pgid in crushtool.map_pgs(om)})
    assert pv.changed_pgs == len(pv.changed) == sum(p.changed_pgs for p in pv.pools) > 0
    assert pv.bytes_to_move is not None and pv.bytes_to_move > 0
    assert next(p for p in pv.pools if p.pool_name == "ecpool").changed_pgs == 0  # hdd rule: osd.3 is ssd
    unknown = preview.compare(om, old, new)
    assert unknown.bytes_to_move is None and unknown.changed == pv.changed


@needs_tools
def test_device_class_edit_rebuilds_and_drops_shadow_trees() -> None:
    old = crushtool.export_crush((FIX / "osdmap.bin").read_bytes())
    to_hdd = ops.set_device_class([3], "hdd", {3: "ssd"})
    new, _ = preview.build_crush(old, to_hdd)
    m = C.parse_crush(crushtool.dump(new))
    assert m.device("osd.3").device_class == "hdd"  # type: ignore[union-attr]
    assert "osd.3" in [i.name for i in m.bucket("host2~hdd").items]  # type: ignore[union-attr]
    assert m.bucket("default~ssd") is not None  # rule "fast" still takes class ssd: kept, like the mon
    no_rule = crushtool.apply_edit(old, ("--remove-rule", "fast"))
    new2, _ = preview.build_crush(no_rule, to_hdd)
    m2 = C.parse_crush(crushtool.dump(new2))
    assert m2.classes == ("hdd",) and all(b.shadow_of_class != "ssd" for b in m2.buckets)


# ------------------------------------------------------------------ the same CRUSH capture on each release

def _crush_dirs() -> list[Any]:
    """Pacific's CRUSH capture (tests/fixtures/crush/) and each other release's (tests/fixtures/<release>/crush/)."""
    from tests.releases import release_dirs
    return [pytest.param(FIX, id="pacific")] + [pytest.param(d / "crush", id=d.name) for d in release_dirs()
                                                 if (d / "crush" / "crush_dump.json").is_file()]


def _major(fix: Path) -> int:
    return int(json.loads((fix / "VERSION").read_text())["version"].split()[2].split(".")[0])


@pytest.mark.parametrize("fix", _crush_dirs())
def test_parse_the_same_hierarchy_on_each_release(fix: Path) -> None:
    """capture_crush_fixtures.py built the same hierarchy on each release; its crushtool's own text agrees."""
    dump = json.loads((fix / "crush_dump.json").read_text())
    cmap = C.parse_crush(dump, json.loads((fix / "osd_dump.json").read_text()))
    text = (fix / "crushmap.txt").read_text()  # that release's crushtool -d
    assert [d.name for d in cmap.devices] == ["osd.0", "osd.1", "osd.2", "osd.3"]
    assert cmap.device("osd.3").device_class == "ssd" and cmap.classes == ("hdd", "ssd")  # type: ignore[union-attr]
    hosts = {b.name for b in cmap.real_buckets() if b.type_name == "host"}
    assert {b.name for b in cmap.real_buckets()} == {"default", "rack1"} | hosts and "host2" in hosts
    for b in cmap.real_buckets():
        assert f"{b.type_name} {b.name} {{" in text
        assert b.weight == pytest.approx(sum(i.weight for i in b.items))
    assert cmap.location_of("osd.3") == [("host", "host2"), ("rack", "rack1"), ("root", "default")]
    assert {r.name for r in cmap.rules} == {r["rule_name"] for r in dump["rules"]} >= {"fast", "ecpool", "ecwide"}
    for r in cmap.rules:
        assert f"rule {r.name} {{" in text
    fast = cmap.rule("fast")
    assert fast is not None and fast.steps == ("take default class ssd", "choose firstn 0 type osd", "emit")
    assert cmap.pools_using_rule("ecpool") == ("ecpool",)
    p = cmap.ec_profile("ec21")
    assert p is not None and (p.k, p.m, p.failure_domain, p.device_class) == (2, 1, "osd", "hdd")


@needs_tools
@pytest.mark.parametrize("fix", _crush_dirs())
def test_this_hosts_tools_on_each_releases_maps(fix: Path) -> None:
    """The preview runs this host's crushtool/osdmaptool on the cluster's maps. A map of a newer release
    than the tools may not decode (Pacific's osdmaptool cannot read Tentacle's osdmap): that is a
    CrushToolError with the tool's words, which the preview shows; never another exception."""
    local = int(subprocess.run(["osdmaptool", "--version"], capture_output=True, text=True).stdout.split()[2]
                .split(".")[0])
    assert crushtool.dump((fix / "crushmap.bin").read_bytes())["devices"]
    om = (fix / "osdmap.bin").read_bytes()
    try:
        info = crushtool.osdmap_dump(om)
        mapped = crushtool.map_pgs(om)
    except crushtool.CrushToolError as e:
        assert _major(fix) > local, f"{fix}: {e}"  # only a newer release's map may fail
        # Either the tool cannot decode it (Pacific's osdmaptool on Tentacle's map) or it decodes and then
        # crashes mapping it (Nautilus' on Pacific's): both said in one line naming this tool's release.
        decode = "error decoding osdmap" in str(e) and "probably written by a newer Ceph release" in str(e)
        assert decode or "crashed (SIG" in str(e), str(e)
        assert f"osdmaptool ({crushtool.tool_version('osdmaptool')})" in str(e)
        return
    assert len(mapped) == sum(p["pg_num"] for p in info["pools"])
