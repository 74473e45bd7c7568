from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from cephtui.ui.app import CephTUI
from tests.conftest import Sandbox
from tests.lookapp import frozen_clock, look_app
from tests.ui.helpers import app_factory

__all__ = ["frozen_clock", "look_app"]  # the replay app's fixtures, for the modules that only look


@pytest.fixture
def make_app(sandbox: Sandbox) -> Iterator[Callable[..., CephTUI]]:
    with app_factory(sandbox.conf) as make:
        yield make


def crush_weights(sandbox: Sandbox) -> dict[int, float]:
    """Each OSD's CRUSH weight, from `osd tree`."""
    return {n["id"]: n["crush_weight"] for n in sandbox.ceph("osd", "tree")["nodes"] if n["type"] == "osd"}


def put_osds_back(sandbox: Sandbox, weights: dict[int, float]) -> None:
    """Every OSD in, at the CRUSH weight it had: a removal that failed or was aborted mid-drain can leave one
    out (or at weight 0), and pools back at size 3 then cannot get clean on the two OSDs left in."""
    now = crush_weights(sandbox)
    out = [o["osd"] for o in sandbox.ceph("osd", "dump")["osds"] if o["osd"] in weights and not o["in"]]
    if out:
        sandbox.ceph("osd", "in", *(f"osd.{i}" for i in out))
    for i, weight in weights.items():
        if i in now and now[i] != weight:
            sandbox.ceph("osd", "crush", "reweight", f"osd.{i}", str(weight))


@pytest.fixture
def slow_two_copies(sandbox: Sandbox) -> Iterator[Sandbox]:
    """Every pool at size 2, backfill slowed (a sleep before each recovery op); put back afterwards, with
    every OSD in at its CRUSH weight."""
    # Healthy first, at full recovery speed: what an earlier test left degraded would take minutes
    # to recover with the sleep below.
    sandbox.heal()
    sizes = {p["pool_name"]: p["size"] for p in sandbox.ceph("osd", "pool", "ls", "detail")}
    weights = crush_weights(sandbox)
    try:
        for name, size in sizes.items():
            if size > 2:
                sandbox.ceph("osd", "pool", "set", name, "size", "2")
        # Healthy at full speed first; only then slow recovery down for the test itself (a PG still
        # recovering from the size change would take minutes with the sleep, past heal's 120 s).
        sandbox.heal()
        sandbox.ceph("config", "set", "osd", "osd_recovery_sleep", "1")
        yield sandbox
    finally:
        sandbox.ceph("config", "rm", "osd", "osd_recovery_sleep")
        put_osds_back(sandbox, weights)  # before the sizes: three copies need all three OSDs in
        sandbox.heal()
        for name, size in sizes.items():
            if name in {p["pool_name"] for p in sandbox.ceph("osd", "pool", "ls", "detail")}:
                sandbox.ceph("osd", "pool", "set", name, "size", str(size))
        sandbox.heal()
