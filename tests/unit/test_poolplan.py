"""The create-pool plan: checks, risk warnings, the command sequence and its undo (pure)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cephtui.ceph.crush import model as crush
from cephtui.ceph.ops import poolplan
from cephtui.ceph.ops.poolplan import PoolPlan

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "crush"


@pytest.fixture(scope="module")
def cmap() -> crush.CrushMap:
    # A captured map: host vm (3 OSDs) and rack1 > host2 (1 OSD) under root default.
    return crush.parse_crush(json.loads((FIX / "crush_dump.json").read_text()),
                             json.loads((FIX / "osd_dump.json").read_text()))


def test_names_and_replication_checks() -> None:
    assert poolplan.check_name(" vms ", ["rbd"]) == "vms"
    for bad, why in (("my pool", "may only contain"), ("rbd", "already exists"), (".mgr2", "reserved"),
                     ("", "empty")):
        with pytest.raises(ValueError, match=why):
            poolplan.check_name(bad, ["rbd"])
    assert poolplan.check_replication("3", "2") == (3, 2)
    with pytest.raises(ValueError, match="cannot exceed size"):
        poolplan.check_replication("2", "3")
    with pytest.raises(ValueError, match="whole number"):
        poolplan.check_replication("three", "2")
    with pytest.raises(ValueError, match="between 1 and 10"):
        poolplan.check_replication("0", "1")


def test_failure_domains_count_only_buckets_holding_osds(cmap: crush.CrushMap) -> None:
    assert poolplan.failure_domains(cmap, "default", "host") == 2
    assert poolplan.failure_domains(cmap, "default", "osd") == 4
    assert poolplan.failure_domains(cmap, "default", "rack") == 1
    assert poolplan.failure_domains(cmap, "nosuchroot", "host") is None


def test_warnings_explain_the_risk(cmap: crush.CrushMap) -> None:
    assert poolplan.warnings(PoolPlan("p", size=3, min_size=2)) == []
    two = poolplan.warnings(PoolPlan("p", size=2, min_size=1))
    assert any("size 2" in w for w in two) and any("min_size 1" in w for w in two)
    ec = PoolPlan("e", pool_type="erasure", application="rgw", ec_profile="x", new_profile=(2, 1, "host", ""),
                  size=3, min_size=poolplan.ec_min_size(2, 1))
    assert ("only 2 of its 3 chunks can be placed (2 hosts under default): every PG would be active+undersized "
            "from the start, and could lose 0 hosts before its I/O stops, not 1") in poolplan.warnings(ec, cmap)
    poolplan.check_placement(ec, cmap)  # undersized, yet active: allowed, said
    ec_osd = PoolPlan("e", pool_type="erasure", application="rgw", ec_profile="x", new_profile=(2, 2, "osd", ""),
                      size=4, min_size=3)
    assert not any("placed" in w for w in poolplan.warnings(ec_osd, cmap))
    poolplan.check_placement(ec_osd, cmap)


def test_a_pool_whose_pgs_could_never_be_active_is_refused(cmap: crush.CrushMap) -> None:
    """The issue's case: k=4 m=2 by host where CRUSH finds too few hosts (here 2 of the 6 needed, min_size 5)."""
    ec = PoolPlan("e", pool_type="erasure", application="rbd", ec_profile="x", new_profile=(4, 2, "host", ""),
                  size=6, min_size=poolplan.ec_min_size(4, 2))
    with pytest.raises(ValueError, match=r"every PG of this pool would be inactive \(incomplete\): its 6 chunks "
                                         r"\(k 4 \+ m 2\) each need a host of their own, CRUSH finds 2 hosts under "
                                         r"default, so it places 2, fewer than min_size 5"):
        poolplan.check_placement(ec, cmap)
    # Replicated, through the rule's own root, failure domain and device class: "fast" takes the ssd OSDs (one).
    fast = PoolPlan("r", size=3, min_size=2, rule="fast")
    with pytest.raises(ValueError, match="its 3 copies \\(size 3\\) each need an osd of their own, CRUSH finds "
                                         "1 osd under default, so it places 1, fewer than min_size 2"):
        poolplan.check_placement(fast, cmap)
    five = PoolPlan("r", size=5, min_size=3, rule="replicated_rule")  # any class: 4 OSDs
    poolplan.check_placement(five, cmap)
    assert any("only 4 of its 5 copies can be placed (4 osds under default)" in w
               for w in poolplan.warnings(five, cmap))
    four = PoolPlan("r", size=4, min_size=3, rule="replicated_rule")
    assert not any("placed" in w for w in poolplan.warnings(four, cmap))
    assert poolplan.failure_domains(cmap, "default", "osd", "nosuchclass") == 0
    # What the map cannot say is not refused: no map, a rule it does not hold.
    poolplan.check_placement(four, None)
    poolplan.check_placement(PoolPlan("r", size=4, min_size=3, rule="nosuchrule"), cmap)


def test_ec_min_size_as_pacific_sets_it() -> None:
    # Measured on 16.2.15: a 2+1 pool gets min_size 2, a 2+2 pool 3.
    assert (poolplan.ec_min_size(2, 1), poolplan.ec_min_size(2, 2), poolplan.ec_min_size(4, 2)) == (2, 3, 5)


def test_plan_ops_and_undo() -> None:
    plan = PoolPlan("vms", size=3, min_size=2, rule="replicated_rule", pg_num=64, application="rbd")
    steps = poolplan.plan_ops(plan)
    assert [s.cli for s in steps] == [
        "ceph osd pool create vms 64 64 replicated replicated_rule",  # autoscale: the cluster's default
        "ceph osd pool set vms size 3", "ceph osd pool set vms min_size 2",
        "ceph osd pool application enable vms rbd"]
    assert [u.cli for u in poolplan.undo_ops(steps[:2])] == [
        "ceph osd pool delete vms vms --yes-i-really-really-mean-it"]

    ec = PoolPlan("data", pool_type="erasure", application="cephfs", ec_profile="ec42",
                  new_profile=(4, 2, "host", "hdd"),
                  pg_num=32, autoscale_mode="warn")
    steps = poolplan.plan_ops(ec)
    assert steps[0].cli.startswith("ceph osd erasure-code-profile set ec42 k=4 m=2 plugin=jerasure "
                                   "crush-failure-domain=host")
    assert "crush-device-class=hdd" in steps[0].cli
    assert steps[1].cli == "ceph osd pool create data 32 32 erasure ec42 --autoscale-mode=warn"
    assert steps[2].cli == "ceph osd pool set data allow_ec_overwrites true"
    # Undo is newest first: the pool, then the profile made for it.
    assert [u.prefix for u in poolplan.undo_ops(steps[:2])] == ["osd pool delete", "osd erasure-code-profile rm"]
    assert poolplan.undo_ops(steps[:1])[0].cli == "ceph osd erasure-code-profile rm ec42"


def test_creating_a_pool_moves_no_data() -> None:
    # Issue 16: the confirm dialog said "Impact: moves data" for a new, empty pool.
    for plan in (PoolPlan("vms", size=3, min_size=2, rule="replicated_rule", pg_num=64),
                 PoolPlan("data", pool_type="erasure", ec_profile="ec42", new_profile=(4, 2, "host", ""))):
        assert {op.impact for op in poolplan.plan_ops(plan)} == {"safe"}
    assert PoolPlan("x").autoscale_mode == ""  # the cluster's default unless the operator chose one
    assert "--autoscale-mode=off" in poolplan.plan_ops(PoolPlan("x", rule="r", autoscale_mode="off"))[0].cli


class _Answers:
    """Answers in the shape the sandbox's Pacific gave (`config show mon.a`, `mgr stat`, `config get`)."""

    def __init__(self, mgr_up: bool) -> None:
        self.mgr_up, self.sent = mgr_up, []

    def mon(self, prefix: str, **args: object) -> object:
        self.sent.append(prefix)
        return {"mgr stat": {"epoch": 4, "available": self.mgr_up, "active_name": "x", "num_standby": 0},
                "quorum_status": {"quorum_leader_name": "a"}}[prefix]

    def mon_raw(self, prefix: str, **args: object) -> tuple[bytes, str]:
        self.sent.append(prefix)
        assert prefix == "config get"
        if args == {"who": "mgr", "key": "mgr/pg_autoscaler/noautoscale"}:
            return b"true\n" if not self.mgr_up else b"false\n", ""
        assert args == {"who": "mon", "key": "osd_pool_default_pg_autoscale_mode"}
        return b"warn\n", ""

    def mgr(self, prefix: str, **args: object) -> object:
        self.sent.append(f"MGR {prefix} {args.get('who')}")
        if args.get("who") == "mon.a":
            return [{"name": "osd_pool_default_pg_autoscale_mode", "value": "off", "source": "file"}]
        return [{"name": "mon_target_pg_per_osd", "value": "200", "source": "mon"}]


def test_the_clusters_defaults_come_from_the_running_config() -> None:
    up = _Answers(mgr_up=True)
    d = poolplan.read_defaults(up)
    assert (d.autoscale_mode, d.target_pg_per_osd, d.noautoscale, d.problems) == ("off", 200, False, ())
    assert "ceph.conf" in d.autoscale_source and up.sent.count("config get") == 1  # only the noautoscale flag
    # No active mgr: nothing is asked of it; the config database answers, and the page says what that misses.
    down = _Answers(mgr_up=False)
    d = poolplan.read_defaults(down)
    assert d.autoscale_mode == "warn" and d.noautoscale and not any(s.startswith("MGR ") for s in down.sent)
    assert "config database" in d.autoscale_source and "no active mgr" in d.problems[0]
