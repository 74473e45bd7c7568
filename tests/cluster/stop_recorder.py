#!/usr/bin/python3
"""A stop command for removal tests: records what the cluster says at the moment of the stop, then stops the OSD.

    stop_recorder.py CONF SANDBOX_DIR OSD_ID

Appends one JSON line to SANDBOX_DIR/stops.jsonl: the time, the OSD, `ceph pg stat` and the pgmap of
`ceph status`, both read by the real CLI just before the daemon is killed by pid (scripts/sandbox.py kill).
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def ceph(conf: str, *args: str) -> object:
    out = subprocess.run(["ceph", "-c", conf, "--connect-timeout", "10", *args, "-f", "json"], check=True,
                         capture_output=True, text=True, timeout=60).stdout
    return json.loads(out)


def main() -> int:
    conf, box, osd = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    record = {"time": time.time(), "osd": int(osd), "pg_stat": ceph(conf, "pg", "stat"),
              "pgmap": ceph(conf, "status")["pgmap"]}  # type: ignore[index]
    with open(box / "stops.jsonl", "a", encoding="utf-8") as f:
        f.write(json.dumps(record) + "\n")
    return subprocess.run(["/usr/bin/python3", str(ROOT / "scripts" / "sandbox.py"), "kill", str(box),
                           f"osd.{osd}"], timeout=120).returncode


if __name__ == "__main__":
    sys.exit(main())
