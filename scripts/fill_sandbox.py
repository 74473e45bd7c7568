#!/usr/bin/python3
"""Fill a sandbox cluster on purpose until the monitor raises OSD_FULL.

    fill_sandbox.py CONF POOL [--headroom 0.01] [--object-size 4M] [--timeout 180]
    fill_sandbox.py CONF --ratios-above-usage 0.01     # only move the ratios (no writes)

How: read `osd df`, take the fullest OSD's utilization U, set the cluster's own
thresholds just above it (nearfull U+0.4*H, backfillfull U+0.7*H, full U+H, with
H the headroom as a fraction, 0.01 = one percentage point, about 100 MiB on the
sandbox's 10 GiB OSDs), then write 4 MiB objects named `fill-N` into POOL with
librados until `health` lists OSD_FULL. Once an OSD is full the pool gets the
`full` flag and further writes block in librados, so every write here carries
an osd op timeout and a timed-out write just means "full already, wait for the
flag". Prints a JSON summary on stdout. Runs with Debian's /usr/bin/python3 or
the project venv (both carry the rados bindings); needs no cephtui code.

The usage is read from stats every OSD has just sent (`flush_pg_stats`, as the sandbox's own health
check does): right after a fill, `osd df` can lag the OSDs by a report or two, and ratios set from
that lagging number left an OSD already past the new full ratio (seen once in CI). With
--ratios-above-usage the script also waits until no OSD and no pool is flagged full, and moves
the ratios up again if the fresh usage still passes them.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import rados
from sandbox import flush_pg_stats  # this directory's: the script runs from it


def _cmd(r: rados.Rados, prefix: str, mgr: bool = False, **args: Any) -> Any:
    args.update(prefix=prefix, format="json")
    fn = r.mgr_command if mgr else r.mon_command
    ret, out, errs = fn(json.dumps(args), b"")
    if ret != 0:
        raise SystemExit(f"{prefix}: {errs or ret}")
    return json.loads(out) if out else None


def max_utilization(r: rados.Rados) -> float:
    nodes = [n for n in _cmd(r, "osd df", mgr=True)["nodes"] if n.get("kb")]
    return max(n["kb_used"] / n["kb"] for n in nodes)


def fresh_max_utilization(r: rados.Rados) -> float:
    if not flush_pg_stats(r):
        raise SystemExit("the OSDs' stats did not reach the mgr within 30 s")
    return max_utilization(r)


def set_ratios_above_usage(r: rados.Rados, headroom: float) -> dict[str, float]:
    u = fresh_max_utilization(r)
    ratios = {"nearfull": round(u + 0.4 * headroom, 4), "backfillfull": round(u + 0.7 * headroom, 4),
              "full": round(u + headroom, 4)}
    # Raise in the order full, backfillfull, nearfull and lower the other way round, so the three
    # never pass through an out-of-order state (OSD_OUT_OF_ORDER_FULL) longer than one command.
    dump = _cmd(r, "osd dump")
    order = ("full", "backfillfull", "nearfull") if ratios["full"] > float(dump["full_ratio"]) \
        else ("nearfull", "backfillfull", "full")
    for name in order:
        _cmd(r, f"osd set-{name}-ratio", ratio=ratios[name])
    return {"utilization": u, **ratios}


def full_flags(r: rados.Rados) -> list[str]:
    """The OSDs and pools the osdmap flags full right now."""
    dump = _cmd(r, "osd dump")
    return [f"osd.{o['osd']}" for o in dump["osds"] if "full" in o.get("state", [])] + [
        f"pool {p['pool_name']}" for p in dump["pools"] if "full" in p.get("flags_names", "").split(",")]


def make_room(r: rados.Rados, headroom: float, timeout: float = 60) -> dict[str, float]:
    """Ratios `headroom` above the fullest OSD's usage, returned once no OSD or pool is flagged full and
    fresh stats still leave at least half the headroom. Right after a fill the usage goes on rising for
    a few seconds (1 to 5 points seen here), so when it passes that mark the ratios move up with it."""
    ratios = set_ratios_above_usage(r, headroom)
    deadline = time.monotonic() + timeout
    moved = 0
    while True:
        if fresh_max_utilization(r) + headroom / 2 > ratios["full"]:
            ratios = set_ratios_above_usage(r, headroom)
            moved += 1
        else:
            flagged = full_flags(r)
            if not flagged:
                return {**ratios, "moved_up_again": moved}
        if time.monotonic() > deadline:
            raise SystemExit(f"no room after {timeout:.0f}s: flagged full {full_flags(r)}, ratios {ratios}")
        time.sleep(0.5)  # the OSDs clear their own full flags on their next heartbeat


def health_checks(r: rados.Rados) -> dict[str, Any]:
    return _cmd(r, "health", detail="detail").get("checks") or {}


def fill(r: rados.Rados, pool: str, object_size: int, timeout: float) -> int:
    """Write objects until OSD_FULL; returns how many were written."""
    written = 0
    data = b"f" * object_size
    deadline = time.monotonic() + timeout
    with r.open_ioctx(pool) as io:
        while time.monotonic() < deadline:
            if written % 4 == 0 and "OSD_FULL" in health_checks(r):
                return written
            try:
                io.write_full(f"fill-{written}", data)
                written += 1
            except rados.Error:  # timed out: the pool is flagged full and writes pause
                break
        while time.monotonic() < deadline:
            if "OSD_FULL" in health_checks(r):
                return written
            time.sleep(1)
    raise SystemExit(f"no OSD_FULL after {timeout:.0f}s and {written} objects: {sorted(health_checks(r))}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("conf")
    p.add_argument("pool", nargs="?")
    p.add_argument("--headroom", type=float, default=0.01)
    p.add_argument("--object-size", type=int, default=4 << 20)
    p.add_argument("--timeout", type=float, default=180)
    p.add_argument("--ratios-above-usage", type=float, metavar="H", help="only set the ratios, write nothing")
    a = p.parse_args(argv)
    r = rados.Rados(conffile=a.conf, conf={"rados_osd_op_timeout": "10", "rados_mon_op_timeout": "15",
                                           "log_to_stderr": "false", "err_to_stderr": "false"})
    r.connect(timeout=15)
    try:
        if a.ratios_above_usage is not None:
            print(json.dumps(make_room(r, a.ratios_above_usage)))
            return 0
        if not a.pool:
            p.error("POOL is needed to fill")
        ratios = set_ratios_above_usage(r, a.headroom)
        n = fill(r, a.pool, a.object_size, a.timeout)
        checks = health_checks(r)
        print(json.dumps({"ratios": ratios, "objects": n, "checks": sorted(checks),
                          "osd_full": [d["message"] for d in checks["OSD_FULL"].get("detail", [])]}))
    finally:
        r.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
