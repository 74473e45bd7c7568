"""No single key changes many OSDs unseen; dangerous flags need their name typed; the Impact line is computed.

The osdmap is the captured Pacific fixture (tests/fixtures/crush/osdmap.bin: 4 OSDs, rbd size 3,
EC pools), edited offline the way the preview edits it.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from cephtui.ceph import movement as preview
from cephtui.ceph import ops
from cephtui.ceph.crush import crushtool
from cephtui.ceph.snapshot.models import FlagState
from cephtui.ceph.workflows import maintenance as mt
from cephtui.ceph.workflows import maintenance_banner as mbanner
from cephtui.ceph.workflows.flag_origin import FlagOrigin
from cephtui.ui.panes.maintenance import flag_rows
from cephtui.ui.screens.confirm import impact_of, same_names
from tests.unit.test_crush import reads_fixture_osdmap

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "crush"
needs_tools = pytest.mark.skipif(bool(crushtool.missing_tools()), reason="crushtool/osdmaptool not installed")


# ------------------------------------------------------------------ typed names for many OSDs

def test_bucket_action_needs_the_bucket_name() -> None:
    [op] = ops.require_names([ops.osd_out([0, 1, 2, 3])], [0, 1, 2, 3], bucket="default")
    assert op.confirm_text == "default"
    assert "every OSD under default" in op.confirm_why and "osd.3" in op.confirm_why
    assert op.impact != ops.DESTROYS and op.osd_weights == ((0, 0.0), (1, 0.0), (2, 0.0), (3, 0.0))


def test_several_marked_osds_need_their_names_one_does_not() -> None:
    [op] = ops.require_names([ops.osd_noout([3, 1], True)], [3, 1])
    assert op.confirm_text == "osd.1 osd.3"
    [single] = ops.require_names([ops.osd_out([2])], [2])
    assert single.confirm_text is None
    # A host with one OSD is still a bucket: its name is typed.
    [host] = ops.require_names([ops.osd_in([2])], [2], bucket="vm")
    assert host.confirm_text == "vm"
    # Several operations (one reweight per OSD): the first asks, for all of them.
    many = ops.require_names([ops.osd_reweight(i, "0.5") for i in (0, 1)], [0, 1])
    assert many[0].confirm_text == "osd.0 osd.1" and many[1].confirm_text is None


def test_typed_names_compare_by_name_not_by_spacing() -> None:
    assert same_names(" osd.1,  osd.3 ", "osd.1 osd.3")
    assert same_names("default", "default")
    assert not same_names("osd.3 osd.1", "osd.1 osd.3")
    assert not same_names("defaul", "default")
    assert not same_names("", "default")


# ------------------------------------------------------------------ dangerous flags

@pytest.mark.parametrize("flag", ["pause", "noup", "nodown", "noin", "norecover"])
def test_dangerous_flags_need_their_name_and_say_what_they_do(flag: str) -> None:
    op = ops.flag_set(flag, True)
    assert op.confirm_text == flag and op.effect == ops.DANGEROUS_FLAGS[flag]
    text, style = impact_of([op], "none")
    assert text == op.effect and style == "bold err"
    off = ops.flag_set(flag, False)
    assert off.confirm_text is None and off.cli == f"ceph osd unset {flag}"


def test_pause_impact_is_client_io_not_data_movement() -> None:
    text, _ = impact_of([ops.flag_set("pause", True)], "none")
    assert "stops ALL client reads and writes" in text and "No data moves" in text
    assert impact_of([ops.flag_set("noscrub", True)], "none")[0].startswith("no data moves")


def test_unset_of_a_flag_cephtui_does_not_know_goes_to_the_mon() -> None:
    assert ops.flag_set("noautoscale", False).cli == "ceph osd unset noautoscale"
    with pytest.raises(ValueError, match="unknown flag"):
        ops.flag_set("pausewr", True)
    with pytest.raises(ValueError):
        ops.flag_set("no scrub; rm", False)


def test_pause_shows_as_one_row_and_a_lone_half_is_explained() -> None:
    both = [FlagState("pauserd", "", 10.0), FlagState("pausewr", "", 12.0), FlagState("noout", "host vm", 5.0)]
    rows = flag_rows(both, [], {("pause", ""): FlagOrigin(since=10.0, who="alice@mon1 (cephtui)")})
    pause = next(r for r in rows if r.flag == "pause")
    assert pause.is_set and pause.since == 10.0 and pause.owner == "alice@mon1 (cephtui)" and not pause.partial
    assert not any(r.flag in ("pauserd", "pausewr") for r in rows)
    assert [r.flag for r in rows][0] == "noout" and [r.flag for r in rows if not r.scope][-1] == "pause"
    lone = next(r for r in flag_rows([FlagState("pausewr", "", 3.0)], []) if r.flag == "pause")
    assert not lone.is_set and lone.partial == "pausewr" and "WRITES" in mt.PAUSE_PARTIAL["pausewr"]
    assert mbanner.banner_items([], both)[0].startswith("pause since")


# ------------------------------------------------------------------ the Impact line comes from the preview

def test_impact_comes_from_the_preview_not_from_the_operation() -> None:
    out = ops.osd_out([1])
    assert impact_of([out], "running")[0] == "computing the PG-movement preview…"
    assert impact_of([out], "ready", "no data moves (no PG changes its up set)") == (
        "no data moves (no PG changes its up set)", "ok")
    assert impact_of([out], "failed")[0].startswith("unknown: no PG-movement preview")
    # Creating a pool and changing a device class no longer claim to move data by themselves.
    create = ops.pool_create("p", 32)
    assert "no existing data moves" in impact_of([create], "none")[0]
    cls = ops.set_device_class([3], "hdd", {3: "ssd"})
    assert impact_of(cls, "ready", "no data moves (no PG changes its up set)")[0].startswith("no data moves")
    assert impact_of([ops.osd_noout([1, 2], True)], "none")[0].startswith("no data moves")
    assert impact_of([ops.pool_set("p", "size", 2)], "none")[0].startswith("moves data (not previewed")


def _preview(before: dict[str, tuple[int, ...]], after: dict[str, tuple[int, ...]]) -> preview.Preview:
    info = {"epoch": 7, "pools": [{"pool": 1, "pool_name": "rbd", "pg_num": len(before), "size": 3, "min_size": 2,
                                   "type": 1}]}
    return preview.summarize(info, before, after, b"", pg_bytes={k: 1 << 20 for k in before})


def test_impact_label_names_moves_and_undersized() -> None:
    same = _preview({"1.0": (0, 1, 2)}, {"1.0": (0, 1, 2)})
    assert preview.impact_label(same) == "no data moves (no PG changes its up set)"
    moved = _preview({"1.0": (0, 1, 2), "1.1": (1, 2, 0)}, {"1.0": (0, 1, 3), "1.1": (1, 2, 0)})
    assert preview.impact_label(moved).startswith("1 of 2 PGs remapped: 1 shard copies, ≈1.0 MiB")
    shrunk = _preview({"1.0": (0, 1, 2)}, {"1.0": (0, 1)})
    assert shrunk.undersized_pgs == 1 and shrunk.shards_moved == 0
    assert "1 PGs become undersized" in preview.impact_label(shrunk) and shrunk.inactive_pgs == 0
    gone = _preview({"1.0": (0, 1, 2)}, {"1.0": (0,)})
    assert gone.inactive_pgs == 1 and "client IO to them STOPS" in preview.impact_label(gone)


# ------------------------------------------------------------------ OSD weights on an offline osdmap

def test_crc32c_is_cephs() -> None:
    # The standard CRC-32C check value is 0xE3069283; Ceph's variant skips the final inversion.
    assert preview.crc32c(b"123456789") == 0xE3069283 ^ 0xFFFFFFFF


@needs_tools
@reads_fixture_osdmap
def test_weights_edit_matches_osdmaptool_mark_out_and_decodes() -> None:
    om = (FIX / "osdmap.bin").read_bytes()
    out2 = preview.set_osd_weights(om, {2: 0.0})
    assert crushtool.map_pgs(out2) == crushtool.map_pgs(om, mark_out=2)  # the same as osdmaptool's own
    half = preview.set_osd_weights(om, {1: 0.5, 3: 0.0})
    info = crushtool.osdmap_dump(half)
    preview.check_weights(info, {1: 0.5, 3: 0.0})
    assert {o["osd"]: o["weight"] for o in info["osds"]} == {0: 1, 1: 0.5, 2: 1, 3: 0}
    with pytest.raises(crushtool.CrushToolError, match="osd.1"):  # the unedited map fails the check
        preview.check_weights(crushtool.osdmap_dump(om), {1: 0.5})
    with pytest.raises(crushtool.CrushToolError, match="osd.9"):
        preview.set_osd_weights(om, {9: 0.0})
    with pytest.raises(crushtool.CrushToolError):
        preview.set_osd_weights(om[:40], {1: 0.0})


@needs_tools
@reads_fixture_osdmap
def test_marking_out_two_of_four_leaves_size_3_pgs_undersized() -> None:
    om = (FIX / "osdmap.bin").read_bytes()
    crush = crushtool.export_crush(om)
    info, before, after = preview.mappings(om, crush, crush, new_osdmap=preview.set_osd_weights(om, {0: 0, 1: 0}))
    p = preview.summarize(info, before, after, crush, pg_bytes={})
    rbd = next(pm for pm in p.pools if pm.pool_name == "rbd")
    assert rbd.size == 3 and rbd.undersized_pgs == rbd.pg_num  # two OSDs left for three copies
    assert rbd.inactive_pgs == 0  # two copies still meet min_size 2
    assert "become undersized" in preview.impact_label(p)
    # Back in: the reverse edit maps every PG as it is now.
    back = preview.set_osd_weights(preview.set_osd_weights(om, {0: 0, 1: 0}), {0: 1.0, 1: 1.0})
    assert crushtool.map_pgs(back) == before
