"""`cephtui doctor` as a process on a real cluster: a healthy cluster exits 0; a raised check is explained with
what it names and the command that fixes it, as text and as JSON, and the exit status says how bad it is."""
from __future__ import annotations

import json

from tests.cluster.test_cli import run
from tests.conftest import Sandbox, wait_until


def raised(sandbox: Sandbox) -> set[str]:
    return set(sandbox.ceph("health").get("checks", {}))


def test_doctor_explains_a_flag_on_one_osd(sandbox: Sandbox) -> None:
    sandbox.heal()  # HEALTH_OK first, whatever an earlier module left
    res, _ = run("-c", str(sandbox.conf), "doctor", "--window", "5")  # an idle cluster: no one is slow
    assert res.returncode == 0, res.stdout + res.stderr
    assert "HEALTH_OK" in res.stdout and "No health checks raised." in res.stdout
    assert "note: fail-slow: sampled osd perf for 5 s" in res.stdout
    sandbox.ceph("osd", "add-noout", "osd.1")
    try:
        wait_until(lambda: "OSD_FLAGS" in raised(sandbox), 30, "OSD_FLAGS")
        res, _ = run("-c", str(sandbox.conf), "doctor", "--json", "--window", "0")  # fail-slow: test_failslow
        assert res.returncode == 3, res.stderr  # a warning
        out = json.loads(res.stdout)
        assert out["status"] == "HEALTH_WARN"
        (f,) = [f for f in out["findings"] if f["code"] == "OSD_FLAGS"]
        assert f["affected"]["osds"] == [1] and f["affected"]["unparsed"] == []
        assert f["explanation"]["title"] and f["explanation"]["actions"]
        assert {"label": "Unset noout on osd.1", "command": "ceph osd unset-group noout osd.1"} in f["fixes"]
        res, _ = run("-c", str(sandbox.conf), "doctor", "--window", "0")
        assert res.returncode == 3
        text = res.stdout
        assert "[WARN] OSD_FLAGS" in text and "OSDs: osd.1" in text and "What to do:" in text
        assert "cephtui offers: Unset noout on osd.1: ceph osd unset-group noout osd.1" in text
    finally:
        sandbox.ceph("osd", "rm-noout", "osd.1")
    wait_until(lambda: "OSD_FLAGS" not in raised(sandbox), 30, "the flag gone")
