"""The lean `osd dump` holds exactly what the generic parse holds for the fields cephtui reads."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cephtui.ceph.snapshot import osdmap
from tests.releases import FIXTURES, raw_out, release_params


def dump_raw(path: Path) -> bytes:
    return raw_out(path, "mon", "osd dump")


@pytest.mark.parametrize("fx", [*release_params("healthy"), *release_params("osd_down"), *release_params("nearfull"),
                                *release_params("full"), *release_params("osd_map_stall")])
def test_lean_dump_equals_the_trimmed_generic_parse(fx: Path) -> None:
    raw = dump_raw(fx)
    generic = json.loads(raw)
    lean = osdmap.lean_dump(raw)
    trimmed = osdmap.trim(generic)
    assert set(lean) == set(osdmap.KEPT)
    for key in osdmap.KEPT:
        if key != "osds":
            assert lean[key] == generic[key], key
    assert [{k: (list(v) if k == "state" else v) for k, v in o.items()} for o in lean["osds"]] == trimmed["osds"]
    assert len(lean["osds"]) == 3 and "public_addrs" not in lean["osds"][0] and "osd_xinfo" not in lean


def test_unexpected_shapes_fall_back_to_the_generic_parse() -> None:
    generic = json.loads(dump_raw(FIXTURES / "pacific" / "osd_down.json"))
    generic["flags_set"] = 0  # osdmaptool prints an int here
    lean = osdmap.lean_dump(json.dumps(generic).encode())
    assert lean["flags_set"] == 0 and [o["osd"] for o in lean["osds"]] == [0, 1, 2]
