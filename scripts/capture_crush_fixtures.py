#!/usr/bin/env python3
"""Capture the CRUSH fixtures under tests/fixtures/crush/ from a real sandbox cluster.

    .venv/bin/python scripts/capture_crush_fixtures.py [OUTDIR]
    scripts/chroot.sh run forky -- .venv-forky/bin/python scripts/capture_crush_fixtures.py

OUTDIR defaults to tests/fixtures/<release>/crush/ for the release the sandbox reports, except
Pacific's, which stay in tests/fixtures/crush/ where the CRUSH tests read them.

Starts its own 4-OSD sandbox, gives it a hierarchy worth parsing (a rack with a second
host, osd.3 as class ssd so there are two sets of shadow trees, a class rule, an EC
profile and pool, and a too-wide EC pool whose up sets have holes), records what Ceph
answers, and stops the sandbox. Nothing here is typed by hand.
"""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from capturelib import FIXTURES, note_capture, release_of, sandbox, start_sandbox  # noqa: E402

from cephtui.ceph.client import CephClient  # noqa: E402
from cephtui.ceph.connection import ConnectionSpec  # noqa: E402
from cephtui.ceph.crush import crushtool  # noqa: E402


def main() -> None:
    d = tempfile.mkdtemp(prefix="ctcap-", dir="/tmp")
    conf, quirks = start_sandbox(d, "--osds", "4", "--pool", "rbd:32")
    try:
        c = CephClient(ConnectionSpec(conffile=conf, op_timeout=30)).connect()
        release = release_of(c.mon("version")["version"])
        default = FIXTURES / "crush" if release == "pacific" else FIXTURES / release / "crush"
        out = Path(sys.argv[1]) if len(sys.argv) > 1 else default
        out.mkdir(parents=True, exist_ok=True)
        steps: list[tuple[str, dict[str, object]]] = [
            ("osd crush add-bucket", {"name": "rack1", "type": "rack", "args": ["root=default"]}),
            ("osd crush add-bucket", {"name": "host2", "type": "host", "args": ["rack=rack1"]}),
            ("osd crush move", {"name": "osd.3", "args": ["host=host2"]}),
            ("osd crush rm-device-class", {"ids": ["3"]}),
            ("osd crush set-device-class", {"class": "ssd", "ids": ["3"]}),
            ("osd crush rule create-replicated", {"name": "fast", "root": "default", "type": "osd",
                                                  "class": "ssd"}),
            ("osd erasure-code-profile set", {"name": "ec21", "profile": [
                "k=2", "m=1", "crush-failure-domain=osd", "crush-device-class=hdd"]}),
            ("osd pool create", {"pool": "ecpool", "pg_num": 8, "pgp_num": 8, "pool_type": "erasure",
                                 "erasure_code_profile": "ec21"}),
            ("osd erasure-code-profile set", {"name": "ec42", "profile": ["k=4", "m=2",
                                                                          "crush-failure-domain=osd"]}),
            ("osd pool create", {"pool": "ecwide", "pg_num": 4, "pgp_num": 4, "pool_type": "erasure",
                                 "erasure_code_profile": "ec42"}),
        ]
        for prefix, args in steps:
            c.mon_raw(prefix, **args)
        (out / "crush_dump.json").write_text(json.dumps(c.mon("osd crush dump"), indent=1) + "\n")
        (out / "osd_dump.json").write_text(json.dumps(c.mon("osd dump"), indent=1) + "\n")
        crush, _ = c.mon_raw("osd getcrushmap")
        osdmap, _ = c.mon_raw("osd getmap")
        (out / "crushmap.bin").write_bytes(crush)
        (out / "osdmap.bin").write_bytes(osdmap)
        (out / "crushmap.txt").write_text(crushtool.decompile(crush, exact=False))  # crushtool's own text
        version = c.mon("version")
        (out / "VERSION").write_text(json.dumps(version) + "\n")
        c.close()
    finally:
        sandbox("stop", d, "--purge")
    if len(sys.argv) == 1 and release != "pacific":  # a release directory: say what made these files
        note_capture(out.parent, [f"crush/{n}" for n in ("crush_dump.json", "osd_dump.json", "crushmap.bin",
                                                          "osdmap.bin", "crushmap.txt", "VERSION")],
                     Path(__file__).name, version["version"], quirks)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
