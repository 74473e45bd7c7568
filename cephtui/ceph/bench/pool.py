"""The bench's side effects as operations: a temporary size-1 pool, and the run itself for the audit log.

A temporary pool keeps benchmark objects out of production pools and measures
the raw OSD path (size 1: no replication traffic). Pacific refuses size 1 unless
mon_allow_pool_size_one is true, and deletion needs mon_allow_pool_delete; both
refusals are the monitor's and are shown with what to do, never worked around.
"""
from __future__ import annotations

import os
import time

from cephtui.ceph import ops
from cephtui.ceph.bench.params import BenchParams
from cephtui.ceph.ops import Operation

TEMP_POOL_PREFIX = "cephtui-bench-"
TEMP_POOL_APP = "benchmark"


def temp_pool_name(now: float | None = None) -> str:
    return f"{TEMP_POOL_PREFIX}{time.strftime('%Y%m%d-%H%M%S', time.localtime(now))}-{os.getpid()}"


def temp_pool_pg_num(num_in_osds: int) -> int:
    """Enough PGs that every OSD gets a few (a bench should touch every disk), few enough to create
    and delete in seconds and stay far below mon_max_pg_per_osd: 4 per OSD, a power of two, 8..1024."""
    want = max(8, 4 * max(1, num_in_osds))
    pg = 8
    while pg < want and pg < 1024:
        pg *= 2
    return pg


def temp_pool_create_ops(name: str, pg_num: int) -> list[Operation]:
    size_one = Operation(
        title=f"Keep one copy in pool {name} (a bench pool: no replication)", prefix="osd pool set",
        args=(("pool", name), ("var", "size"), ("val", "1"), ("yes_i_really_mean_it", True)),
        cli=f"ceph osd pool set {name} size 1 --yes-i-really-mean-it")
    return [ops.pool_create(name, pg_num), size_one, ops.pool_application_enable(name, TEMP_POOL_APP)]


def temp_pool_delete_op(name: str) -> Operation:
    return ops.pool_delete(name)


def explain_temp_pool_refusal(message: str) -> str | None:
    if "mon_allow_pool_size_one" in message or "size as 1" in message or "size 1" in message.lower():
        return ("The monitors refuse pools of size 1 while mon_allow_pool_size_one is false. Bench an existing "
                "pool instead, or allow it with `ceph config set global mon_allow_pool_size_one true` "
                "(and set it back afterwards).")
    if "mon_allow_pool_delete" in message:
        return ("The temporary pool could not be deleted: mon_allow_pool_delete is false. Delete it later with "
                "`ceph config set mon mon_allow_pool_delete true`, `ceph osd pool delete NAME NAME "
                "--yes-i-really-really-mean-it`, and set the switch back.")
    return None


def bench_operation(params: BenchParams) -> Operation:
    """Not a mon command: recorded in the audit log with its `rados bench` equivalent."""
    return Operation(title=f"Benchmark pool {params.pool} ({params.mode}, {params.seconds:g} s)", prefix="rados bench",
                     args=tuple((k, v) for k, v in (
                         ("pool", params.pool), ("mode", params.mode), ("seconds", params.seconds),
                         ("threads", params.threads), ("op_size", params.op_size),
                         ("object_size", params.objsize), ("run_name", params.run_name),
                         ("cleanup", params.cleanup))),
                     cli=params.cli())
