"""Every tab painted, at 200x60, with the numbers the running release's own `ceph` CLI gives.

The release tier's check that each pane reads this release's JSON right: a field renamed or moved
between releases shows as a number that differs from the CLI (or a blank), on the screen itself.
"""
from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from tests.conftest import Sandbox
from tests.ui.test_layout import BIG, TAB_KEYS, until

pytestmark = [pytest.mark.cluster, pytest.mark.tier]


async def test_every_tab_shows_the_clis_numbers(make_app, sandbox: Sandbox) -> None:
    sandbox.heal()  # a quiet cluster: what the CLI says now is what the next poll shows
    osd_stat = sandbox.ceph("osd", "stat")
    health = sandbox.ceph("health")["status"]
    pg_stat = sandbox.ceph("pg", "stat")["pg_summary"]
    pools = sandbox.ceph("osd", "pool", "ls", "detail")
    osd_df = sandbox.ceph("osd", "df")["nodes"]
    tree = sandbox.ceph("osd", "tree")["nodes"]
    rules = [r["rule_name"] for r in sandbox.ceph("osd", "crush", "rule", "dump")]
    entities = [e["entity"] for e in sandbox.ceph("auth", "ls")["auth_dump"]]
    flags = set(sandbox.ceph("osd", "dump")["flags_set"])

    app = make_app()
    async with app.run_test(size=BIG) as pilot:
        await until(pilot, app, lambda t: "connected" in t.splitlines()[0], "the first snapshot")

        async def tab(key: str, cond: Callable[[str], object], what: str) -> None:
            await pilot.press(TAB_KEYS[key])
            await until(pilot, app, cond, f"{key}: {what}", timeout=30)

        await tab("health", lambda t: health in t and
                  f"{osd_stat['num_osds']} osds: {osd_stat['num_up_osds']} up, {osd_stat['num_in_osds']} in" in t
                  and all(re.search(rf"│\s+{re.escape(p['pool_name'])}\s", t) for p in pools),
                  f"{health}, the OSD counts of `ceph osd stat` and every pool of `ceph df`")
        await tab("pgs", lambda t: f"{pg_stat['num_pgs']} total" in t and all(
            re.search(rf"│\s+{re.escape(p['pool_name'])}\s+{p['pg_num']}\s+{p['pg_num']}\s", t) for p in pools),
                  f"{pg_stat['num_pgs']} PGs of `ceph pg stat`, each pool's pg_num all clean")
        # The OSD rows: each with the PG count of `ceph osd df` (the column before lat c/a).
        await tab("osds", lambda t: all(re.search(rf"osd\.{o['id']}\s.*\s{o['pgs']}\s+\d+/\d+\s", t) for o in osd_df),
                  "each OSD's PG count from `ceph osd df`")
        root = next(n for n in tree if n["type"] == "root")
        weight = sum(n.get("crush_weight", 0) for n in tree if n["type"] == "osd")  # the root's: its OSDs' sum
        hosts = [n["name"] for n in tree if n["type"] == "host"]
        await tab("crush", lambda t: re.search(rf"{re.escape(root['name'])}\s+root\s+{root['id']}\s+\w+\s+"
                                               rf"{weight:.5f}", t)
                  and all(h in t for h in hosts) and all(r in t for r in rules),
                  "the root's id and weight, the hosts and rules of `ceph osd tree` / `crush rule dump`")
        await tab("pools", lambda t: all(
            # id, name, type, size/min_size, then the capacity columns (stored, used, %used, max avail,
            # objects), then pg_num
            re.search(rf"│\s+{p['pool_id']}\s+{re.escape(p['pool_name'])}\s+replicated\s+{p['size']}/{p['min_size']}"
                      rf"\s+\S+ \S+\s+\S+ \S+\s+\d+\.\d%\s+\S+ \S+\s+\d+\s+{p['pg_num']}\s", t) for p in pools),
                  "each pool's id, size/min_size and pg_num of `ceph osd pool ls detail`")
        await tab("users", lambda t: all(re.search(rf"│\s+{re.escape(e)}\s", t) for e in entities),
                  "every entity of `ceph auth ls`")
        await tab("maintenance", lambda t: all(re.search(rf"│\s+{f}\s+cluster\s+{'set' if f in flags else '-'}\s", t)
                                               for f in ("noout", "norebalance", "noscrub")),
                  f"the cluster flags as `ceph osd dump` has them ({sorted(flags)})")
        await tab("bench", lambda t: "idle" in t and "History" in t, "the bench pane")
        await tab("activity", lambda t: "This session's commands" in t, "the activity pane")
