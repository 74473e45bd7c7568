#!/usr/bin/python3
"""Record what native `rados bench` leaves in a pool, for the bench engine's compatibility tests.

    /usr/bin/python3 scripts/capture_bench_fixtures.py CONF POOL

Runs `rados bench 2 write -b 8192 -O 16384 --no-cleanup --run-name capture` on POOL, then saves the
metadata object's bytes, the pid from the object prefix, and the first bytes of two ops (object 1
holds ops 2 and 3) to tests/fixtures/bench/native.json, and cleans up. Uses Debian's python3-rados.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import rados

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "bench" / "native.json"


def main(conf: str, pool: str) -> None:
    run = subprocess.run(["rados", "-c", conf, "-p", pool, "bench", "2", "write", "-t", "4", "-b", "8192",
                          "-O", "16384", "--no-cleanup", "--no-hints", "--run-name", "capture"],
                         capture_output=True, text=True, check=True)
    prefix = re.search(r"Object prefix: (\S+)", run.stdout).group(1)
    r = rados.Rados(conffile=conf)
    r.connect(timeout=10)
    try:
        with r.open_ioctx(pool) as io:
            meta = io.read("capture", 64)
            obj1 = io.read(f"{prefix}_object1", 16384)
    finally:
        r.shutdown()
    subprocess.run(["rados", "-c", conf, "-p", pool, "cleanup", "--run-name", "capture"], check=True,
                   capture_output=True)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({
        "command": "rados bench 2 write -t 4 -b 8192 -O 16384 --no-cleanup --no-hints --run-name capture",
        "object_prefix": prefix,
        "total_writes_made": int(re.search(r"Total writes made:\s+(\d+)", run.stdout).group(1)),
        "metadata_hex": meta.hex(),
        "object1_len": len(obj1),
        "object1_op0_head_hex": obj1[:64].hex(),
        "object1_op1_head_hex": obj1[8192:8192 + 64].hex(),
        "object1_tail_bytes": sorted(set(obj1[32:8192])),
    }, indent=2) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
