#!/usr/bin/env python3
"""Export a recorded history (a recorder's SQLite, e.g. the one a failed CI run of tests/cluster/test_failslow.py
left in its pytest tmp_path) as a fail-slow timeline fixture: the frames as recorded, in the schema of
tests/fixtures/history/timeline_*.json.

    .venv/bin/python scripts/export_failslow_timeline.py HISTORY.sqlite OUT.json --throttled 1 \\
        --throttled-at UNIX --lifted-at UNIX --tree-from tests/fixtures/history/timeline_pacific_3osds.json \\
        --note "what happened"

The sandbox's CRUSH tree is not in a history: --tree-from takes it from a capture of the same layout (the session
sandbox: one host, three hdd OSDs). The throttle's marks are the test's (its log, or the frames).
"""
from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cephtui.ceph.history.store import unpack_osd  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("history")
    p.add_argument("out")
    p.add_argument("--throttled", type=int, action="append", required=True)
    p.add_argument("--throttled-at", type=float, required=True)
    p.add_argument("--lifted-at", type=float, required=True)
    p.add_argument("--tree-from", required=True)
    p.add_argument("--note", default="")
    args = p.parse_args()
    db = sqlite3.connect(f"file:{args.history}?mode=ro", uri=True)
    frames = [unpack_osd(float(t), blob) for t, blob in
              db.execute("SELECT t, data FROM frames WHERE kind='osd' AND tier=0 ORDER BY t")]
    like = json.loads(Path(args.tree_from).read_text())
    out = {
        "meta": {**like["meta"], "script": "scripts/export_failslow_timeline.py", "exported_from": args.history,
                 "exported": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "note": args.note,
                 "tree_from": args.tree_from},
        "scenario": {"throttled": args.throttled, "marks": {"throttled": args.throttled_at, "lifted": args.lifted_at},
                     "tree": like["scenario"]["tree"],
                     "frames": [{"t": f.t, "commit_ms": {str(k): v for k, v in f.commit_ms.items()},
                                 "apply_ms": {str(k): v for k, v in f.apply_ms.items()}} for f in frames]},
    }
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {args.out}: {len(frames)} frames", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
