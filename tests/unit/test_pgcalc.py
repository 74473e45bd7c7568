"""The classic PG calculator (published pgcalc rule) and the monitor's pg_num limits."""
from __future__ import annotations

import math
from typing import Any

import pytest

from cephtui.ceph.ops import pgcalc
from cephtui.ceph.ops.pgcalc import check_pg_num, pg_budget, suggest, warn_pg_per_osd


@pytest.mark.parametrize("osds,size,share,target,raw,pg_num", [
    (12, 3, 0.25, 100, 100.0, 128),  # nearest power of two (log domain) is already 128
    (200, 3, 1.0, 100, 6666.7, 8192),  # Red Hat's worked example: 200 OSDs, size 3 -> 8192
    (100, 3, 0.05, 200, 333.3, 256),  # target 200, 5% of the data: 256 is 23% below 333.3, kept
    (51, 3, 0.1, 100, 170.0, 128),  # 128 is 24.7% below 170: stays at 128
    (16, 6, 0.32, 100, 85.3, 64),  # EC 4+2: raw = 256/3, exactly 4/3 of 64 -> 64 is exactly 25% below: kept
    (16, 6, 0.33, 100, 88.0, 128),  # EC 4+2: 64 is 27% below 88 -> next power up
    (10, 3, 1.0, 100, 333.3, 256),
    (8, 2, 1.0, 100, 400.0, 512),  # nearest is 512 (400 > 256*sqrt 2)
    (64, 1, 1.0, 1, 64.0, 64),  # already a power of two
])
def test_published_rule(osds: int, size: int, share: float, target: int, raw: float, pg_num: int) -> None:
    s = suggest(osds, size, share, target)
    assert s.pg_num == pg_num
    assert round(s.raw, 1) == raw


def test_the_25_percent_edge_on_both_sides() -> None:
    at_edge = suggest(16, 6, 0.32)  # 85.33: 64 is exactly 25% below, not more
    assert at_edge.pg_num == 64 and at_edge.steps[-1] == "nearest power of two: 64"
    past_edge = suggest(16, 6, 0.33)
    assert past_edge.pg_num == 128
    assert past_edge.steps[-1] == "nearest power of two: 128 (64 is more than 25% below 88.0)"


def test_osd_over_size_floor() -> None:
    s = suggest(100, 3, 0.001)  # 3.3 < 100/3
    assert round(s.raw, 2) == 33.33 and s.pg_num == 32
    assert s.steps[1].startswith("below OSDs ÷ size = 100 ÷ 3 = 33.3, so use 33.3")


def test_erasure_coded_size_is_k_plus_m() -> None:
    # k=8, m=3 on 40 OSDs holding everything: 100 * 40 / 11 = 363.6, just past 256 * sqrt(2) -> 512
    s = suggest(40, 8 + 3)
    assert round(s.raw, 1) == 363.6 and s.pg_num == 512


def test_steps_show_the_working() -> None:
    s = suggest(12, 3, 0.25)
    assert s.steps == ("100 PGs per OSD × 12 OSDs × 25% of the data ÷ size 3 = 100.0",
                       "nearest power of two: 128")
    assert suggest(1, 1, 1.0, 1).steps[-1] == "1 is already a power of two"


def test_tiny_values_give_at_least_one_pg() -> None:
    s = suggest(1, 3, 0.01)  # floor 1/3 is still below one PG
    assert s.pg_num == 1 and s.steps[-1] == "at least 1 PG: 0.3 rounds up to 1"


def test_just_below_the_geometric_midpoint_the_25_percent_rule_decides() -> None:
    # 100 * 9 / 10 = 90: nearest power (log domain) is 64, but 64 is 28.9% below 90
    s = suggest(9, 10)
    assert s.pg_num == 128 and s.steps[-1] == "nearest power of two: 128 (64 is more than 25% below 90.0)"


def test_growth_targets() -> None:
    assert suggest(30, 3, 1.0, 200).pg_num == 2048  # 2000 -> 2048
    assert suggest(30, 3, 1.0, 300).pg_num == 4096  # 3000 is past 2048 * sqrt(2): nearest is 4096


@pytest.mark.parametrize("args,match", [
    ((0, 3), "OSD count must be at least 1"),
    ((3, 0), "size must be at least 1"),
    ((3, 3, 0.0), "data share must be more than 0"),
    ((3, 3, 1.5), "at most 1"),
    ((3, 3, 1.0, 0), "target PGs per OSD must be at least 1"),
    ((3.5, 3), "OSD count must be a whole number"),
    ((3, True), "size must be a whole number"),
])
def test_suggest_rejects_bad_arguments(args: tuple, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        suggest(*args)


def test_check_pg_num() -> None:
    assert check_pg_num("128") == (128, None)
    assert check_pg_num(" 64 ") == (64, None)
    assert check_pg_num(65536) == (65536, None)
    value, warning = check_pg_num("100")
    assert value == 100 and warning is not None and "not a power of two" in warning and "64 or 128" in warning


@pytest.mark.parametrize("text,match", [
    ("abc", "positive whole number"),
    ("1.5", "positive whole number"),
    ("-1", "positive whole number"),
    ("", "empty"),
    ("1_000", "positive whole number"),
    ("0", "greater than 0"),
    ("65537", "less than or equal to 65536"),
    (70000, "you may adjust 'mon max pool pg num'"),
])
def test_check_pg_num_refuses(text: str | int, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        check_pg_num(text)


# Checked against the Pacific 16.2.15 sandbox mon (3 OSDs in, mon_max_pg_per_osd 250) with pools
# of (pg_num, size) (1, 3), (8, 3), (8, 3): `osd pool create t1 234` was refused with
# "pg_num 234 size 3 would mean 753 total pgs, which exceeds max 750 (mon_max_pg_per_osd 250 *
# num_in_osds 3)" and `osd pool create t1 233` was created (750 is not more than 750).
SANDBOX_POOLS = [(1, 3), (8, 3), (8, 3)]


def test_pg_per_osd_matches_the_mon() -> None:
    assert warn_pg_per_osd(234, 3, SANDBOX_POOLS, 3) == (
        "pg_num 234 size 3 would mean 753 total pgs, which exceeds max 750 "
        "(mon_max_pg_per_osd 250 * num_in_osds 3)")
    assert warn_pg_per_osd(233, 3, SANDBOX_POOLS, 3) is None
    # after t1 (233) existed, even one more PG was refused
    assert warn_pg_per_osd(1, 3, SANDBOX_POOLS + [(233, 3)], 3) == (
        "pg_num 1 size 3 would mean 753 total pgs, which exceeds max 750 "
        "(mon_max_pg_per_osd 250 * num_in_osds 3)")


def test_pg_budget_assumes_at_least_three_osds() -> None:
    b = pg_budget(64, 3, [], 1)
    assert b.num_osds == 3 and b.max_pgs == 750 and b.ok and b.per_osd == 64.0
    big = pg_budget(1024, 3, [(128, 3)], 10, mon_max_pg_per_osd=300)
    assert not big.ok and big.projected == 3456 and big.max_pgs == 3000
    assert big.refusal is not None and "mon_max_pg_per_osd 300 * num_in_osds 10" in big.refusal


def test_power_of_two() -> None:
    assert [n for n in range(1, 20) if pgcalc.is_power_of_two(n)] == [1, 2, 4, 8, 16]


def _pgcalc_js(osds: int, size: int, share: float, target: int) -> float:
    """The page's own code (pgcalc.js: the OSD#/Size floor, then nearestPow2 with a 0.25 threshold)."""
    value = max(target * osds * share / size, osds / size)
    tmp = 2.0 ** math.floor(math.log(value) / math.log(2) + 0.5)  # Math.round
    return tmp * 2 if tmp < value * 0.75 else tmp


def test_agrees_with_the_published_javascript() -> None:
    for osds in (3, 5, 9, 12, 16, 24, 37, 60, 100, 250, 999):
        for size in (2, 3, 4, 6, 9, 11):
            for share in (1.0, 0.5, 0.33, 0.25, 0.1, 0.05, 0.01):
                for target in (100, 200, 300):
                    assert suggest(osds, size, share, target).pg_num == max(1, _pgcalc_js(osds, size, share, target))


# ------------------------------------------------------------------ existing pools and the autoscaler
MGR_AUTOSCALER = "/usr/share/ceph/mgr/pg_autoscaler/module.py"


def _mgr_function(name: str) -> Any:
    """A function of the installed pg_autoscaler module, compiled from its own source (the module itself
    imports the mgr runtime, so it cannot be imported here)."""
    import ast
    from pathlib import Path

    path = Path(MGR_AUTOSCALER)
    if not path.exists():
        pytest.skip("ceph-mgr's pg_autoscaler is not installed")
    tree = ast.parse(path.read_text())
    node = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)
    scope: dict[str, Any] = {}
    exec(compile(ast.Module([node], []), MGR_AUTOSCALER, "exec"), scope)
    return scope[name]


def test_autoscaler_rounding_is_the_mgrs_own() -> None:
    theirs = _mgr_function("nearest_power_of_two")
    for n in [0, 0.5, 1, 1.5, 2, 2.9, 3, 5, 6, 12, 24, 33.3, 100, 133.3, 191.9, 192, 4095.5, 65536]:
        assert pgcalc.autoscaler_pow2(n) == theirs(n), n
    assert theirs(0) == 0  # so an empty pool's target is pg_num_min
    assert pgcalc.AUTOSCALE_PG_NUM_MIN == _mgr_constant("PG_NUM_MIN")


def _mgr_constant(name: str) -> Any:
    import ast
    from pathlib import Path

    tree = ast.parse(Path(MGR_AUTOSCALER).read_text())
    for n in tree.body:
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in n.targets):
            return ast.literal_eval(n.value)
    raise AssertionError(f"{name} not found in {MGR_AUTOSCALER}")


@pytest.mark.parametrize("pg_num,after", [(3, 32), (8, 32), (10, 32), (11, 11), (16, 16), (32, 32), (64, 64),
                                          (96, 96), (97, 32), (128, 32)])
def test_what_the_autoscaler_does_to_a_new_empty_pool(pg_num: int, after: int) -> None:
    # An empty pool's target is pg_num_min 32; pg_num moves only when more than 3x away (issue 16: 128 -> 32).
    o = pgcalc.autoscale_outlook(pg_num, 3, 4, 0.5)
    assert (o.target_now, o.pg_num_after) == (32, after)
    word = "splits" if after > pg_num else "merges" if after < pg_num else "leaves it alone"
    assert word in o.lines[1]


def test_the_autoscalers_later_target_follows_the_share() -> None:
    o = pgcalc.autoscale_outlook(32, 3, 12, 1.0)  # 100 x 12 x 100% / 3 = 400 -> 512 (nearer than 256)
    assert o.target_full == 512 and "32 → 512" in o.lines[2]
    small = pgcalc.autoscale_outlook(32, 3, 4, 0.1)  # 13.3 -> 16, floored at 32: no change for that
    assert small.target_full == 32 and "would not change" in small.lines[2]
    assert "estimate" in small.lines[-1]
    with pytest.raises(ValueError):
        pgcalc.autoscale_outlook(0, 3, 4, 0.5)


def test_existing_pools_shares_and_the_default_share() -> None:
    got = pgcalc.shares([pgcalc.PoolShare("rbd", 300), pgcalc.PoolShare(".mgr", 0), pgcalc.PoolShare("big", 700)])
    assert got == [("big", 0.7), ("rbd", 0.3), (".mgr", 0.0)]
    assert pgcalc.shares([pgcalc.PoolShare("rbd", 0)]) == [("rbd", 0.0)]
    assert pgcalc.default_share([]) == 100
    assert pgcalc.default_share(["rbd", ".mgr"]) == 50  # the mgr's own pool holds no user data
    assert pgcalc.default_share(["rbd", "device_health_metrics", "images", "vms"]) == 25
