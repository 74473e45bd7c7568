"""The caps checker against the running release's own monitor, over the whole caps corpus.

tests/unit/test_caps.py pins the answers Pacific's monitor gave; here every case of that corpus is
sent again, as `auth caps client.probe SERVICE TEXT`, to whatever release the sandbox runs, and the
checker must agree with it: accept what it accepts, refuse what it refuses with its own words.
"""
from __future__ import annotations

import json
from typing import Any

import pytest

from cephtui.ceph.ops.caps import CapsError, validate
from tests.conftest import Sandbox
from tests.unit.test_caps import MON_VERIFIED

pytestmark = [pytest.mark.cluster, pytest.mark.tier]

PROBE = "client.ctt-caps-probe"


def _mon(r: Any, **cmd: Any) -> tuple[int, str]:
    ret, _, errs = r.mon_command(json.dumps(cmd), b"")
    return ret, errs


def test_caps_checker_agrees_with_this_releases_monitor(sandbox: Sandbox) -> None:
    import rados

    r = rados.Rados(conffile=str(sandbox.conf), conf={"log_to_stderr": "false", "err_to_stderr": "false"})
    r.connect(timeout=10)
    disagree: list[str] = []
    try:
        ret, errs = _mon(r, prefix="auth get-or-create", entity=PROBE, caps=["mon", "allow r"])
        assert ret == 0, errs
        release = int(sandbox.ceph("mon", "dump")["min_mon_release"])  # the grammar the checker must use
        for service, text, _pacific in MON_VERIFIED:
            ret, errs = _mon(r, prefix="auth caps", entity=PROBE, caps=[service, text])
            mon_says = None if ret == 0 else errs.strip()
            try:
                validate(service, text, strict=False, release=release)
                ours = None
            except CapsError as e:
                ours = str(e)
            if mon_says is None and ours is None:
                continue
            # mgr's profile-evaluation refusals: the checker adds the known profiles after the mon's words
            if mon_says is not None and ours is not None and (ours == mon_says
                                                              or ours.startswith(mon_says + " (known")):
                continue
            disagree.append(f"{service} {text!r}: monitor {mon_says!r}, checker {ours!r}")
    finally:
        _mon(r, prefix="auth rm", entity=PROBE)
        r.shutdown()
    assert not disagree, f"{len(disagree)} of {len(MON_VERIFIED)} cases differ:\n" + "\n".join(disagree)
