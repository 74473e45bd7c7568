from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from cephtui.ui.app import CephTUI
from tests.conftest import Sandbox
from tests.ui.helpers import app_factory


@pytest.fixture
def make_app(sandbox: Sandbox) -> Iterator[Callable[..., CephTUI]]:
    with app_factory(sandbox.conf) as make:
        yield make


@pytest.fixture
def slow_two_copies(sandbox: Sandbox) -> Iterator[Sandbox]:
    """Every pool at size 2, backfill slowed (a sleep before each recovery op); put back afterwards."""
    # Healthy first, at full recovery speed: what an earlier test left degraded would take minutes
    # to recover with the sleep below.
    sandbox.heal()
    sizes = {p["pool_name"]: p["size"] for p in sandbox.ceph("osd", "pool", "ls", "detail")}
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
        sandbox.heal()
        for name, size in sizes.items():
            if name in {p["pool_name"] for p in sandbox.ceph("osd", "pool", "ls", "detail")}:
                sandbox.ceph("osd", "pool", "set", name, "size", str(size))
        sandbox.heal()
