from __future__ import annotations

import pytest

from cephtui.ceph.client import CephClient, ConnectionSpec
from cephtui.ui.app import CephTUI
from tests.conftest import Sandbox


@pytest.fixture
def make_app(sandbox: Sandbox):
    clients: list[CephClient] = []

    def make(refresh: float = 1.0) -> CephTUI:
        client = CephClient(ConnectionSpec(conffile=str(sandbox.conf), op_timeout=5)).connect()
        clients.append(client)
        return CephTUI(client=client, refresh=refresh)

    yield make
    for c in clients:
        c.close()
