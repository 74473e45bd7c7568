#!/usr/bin/env python3
"""Capture tests/fixtures/osdbench/ from a real sandbox cluster.

    .venv/bin/python scripts/capture_osdbench_fixture.py [OUTDIR]

Starts its own 3-OSD sandbox (temporary directory, free port), sends `bench` to the
OSDs through librados' osd_command exactly as CephClient.osd_tell does, and records
each reply verbatim (ret, outbuf as text, outs): the default bench, a small one, 4 KiB
blocks, the OSD's refusals at its default guards, a nonexistent OSD and a stopped one.
Also what the ceph CLI prints for `ceph tell osd.0 bench ... -f json`. Stops the
sandbox after. Nothing here is typed by hand.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cephtui.ceph.client import CephClient  # noqa: E402
from cephtui.ceph.connection import ConnectionSpec  # noqa: E402

SANDBOX = ["/usr/bin/python3", str(ROOT / "scripts" / "sandbox.py")]


def sandbox(*args: str) -> str:
    return subprocess.run([*SANDBOX, *args], check=True, capture_output=True, text=True).stdout.strip()


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "tests" / "fixtures" / "osdbench"
    out.mkdir(parents=True, exist_ok=True)
    d = tempfile.mkdtemp(prefix="ctobench-", dir="/tmp")
    sandbox("start", d, "--osds", "3")
    try:
        c = CephClient(ConnectionSpec(conffile=f"{d}/ceph.conf", op_timeout=120)).connect()
        records: list[dict[str, Any]] = []

        def tell(label: str, osd: int, **args: Any) -> None:
            cmd = {"prefix": "bench", **args, "format": "json"}
            t0 = time.monotonic()
            ret, outbuf, outs = c.handle.osd_command(osd, json.dumps(cmd), b"", timeout=120)
            records.append({"label": label, "osd": osd, "cmd": cmd, "ret": ret,
                            "outbuf": outbuf.decode("utf-8", "replace"), "outs": outs,
                            "wall_sec": round(time.monotonic() - t0, 3)})

        for osd in (0, 1, 2):
            tell("default", osd)  # no count/size: the OSD's own defaults, 1 GiB in 4 MiB blocks
        for osd in (0, 1, 2):
            tell("64MiB_4MiB", osd, count=64 * 1024 * 1024, size=4 * 1024 * 1024)
        tell("4KiB_at_limit", 0, count=12288000, size=4096)
        tell("refused_small_iops", 0, count=12288001, size=4096)
        tell("refused_large_throughput", 0, count=3145728001, size=4 * 1024 * 1024)
        tell("refused_block_size", 0, count=128 * 1024 * 1024, size=128 * 1024 * 1024)
        tell("nonexistent", 9, count=64 * 1024 * 1024, size=4 * 1024 * 1024)
        sandbox("kill", d, "osd.2")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if not next(o for o in c.mon("osd dump")["osds"] if o["osd"] == 2)["up"]:
                break
            time.sleep(1)
        tell("down", 2, count=64 * 1024 * 1024, size=4 * 1024 * 1024)

        cli = subprocess.run(["ceph", "-c", f"{d}/ceph.conf", "tell", "osd.0", "bench", str(64 * 1024 * 1024),
                              str(4 * 1024 * 1024), "-f", "json"], capture_output=True, text=True, timeout=120)
        version = c.mon("version")
        c.close()
    finally:
        sandbox("stop", d, "--purge")
    (out / "replies.json").write_text(json.dumps({"version": version, "replies": records}, indent=1) + "\n")
    (out / "cli_tell_bench.json").write_text(cli.stdout)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
