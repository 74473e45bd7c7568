#!/usr/bin/env python3
"""Capture the Doctor's fixture: one sandbox with many health checks raised at once, each made the way it
happens in life, with the cluster's own commands.

    .venv/bin/python scripts/capture_doctor_fixtures.py [OUTDIR]

OUTDIR defaults to tests/fixtures/<release>/ (scripts/capturelib.py). Writes doctor.json: `health detail`,
`crash ls`, `crash info` of the crash, and every command a snapshot needs, recorded through RecordingClient.
Raised on purpose:

- OSD_SCRUB_ERRORS, PG_DAMAGED: one replica of an object in pool `scrubbed` overwritten on disk with
  ceph-objectstore-tool, then a deep scrub (recorded: `pg ls inconsistent`, and in the meta the rados CLI's
  `list-inconsistent-obj` answer);
- POOL_APP_NOT_ENABLED: pool `noapp`, no application, one object (Pacific warns only for pools holding data;
  Squid and later wait `mon_warn_on_pool_no_app_grace`, set to 0 where it exists);
- POOL_NO_REDUNDANCY: pool `single` at size 1;
- POOL_PG_NUM_NOT_POWER_OF_TWO: pool `odd` with 6 PGs, muted sticky (a mute with no expiry);
- AUTH_INSECURE_GLOBAL_ID_RECLAIM_ALLOWED: `config set mon auth_allow_insecure_global_id_reclaim true`;
- OSDMAP_FLAGS: noout and noscrub/nodeep-scrub set, muted for an hour (a mute with an expiry);
- OSD_FLAGS: `osd add-noout osd.0`;
- OSD_NEARFULL (and POOL_NEARFULL): the nearfull ratio moved below the OSDs' usage;
- PG_NOT_DEEP_SCRUBBED / PG_NOT_SCRUBBED: the mgr's scrub intervals shortened (the OSDs' are not);
- a config database value shadowed: `config set mon mon_allow_pool_delete false` under the sandbox's
  ceph.conf `mon allow pool delete = true` (recorded: config dump, config show mon.a / mgr.x, config help);
- RECENT_CRASH, OSD_DOWN, PG_DEGRADED: osd.2 aborted (SIGABRT writes its crash dump), the dump posted as
  ceph-crash does (`crash post -i meta`). Not osd.2 when it is the scrubbed PG's primary (as on Debian's Reef): the
  scrub's findings live on that primary only, so its loss would clear PG_DAMAGED; then the highest other OSD
  (meta `crashed`).

A check this release cannot raise is said, not waited for: meta `unraisable` maps it to the cluster's own reason
(Debian's Reef mgr runs no Python modules, so no crash module takes the report: no RECENT_CRASH).

Then slowops.json: osd.1 hung (SIGSTOP, with nodown) under client writes, SLOW_OPS raised; the tell dumps
of the OSDs it names. Stops and purges the sandbox after. Nothing is typed by hand: the files are what Ceph answered.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from capturelib import captured_cluster, sandbox, wait_for  # noqa: E402

from cephtui.ceph.client import CephClient  # noqa: E402
from cephtui.ceph.recording import RecordingClient  # noqa: E402
from cephtui.ceph.snapshot.builder import SnapshotBuilder  # noqa: E402

WANTED = {"PG_DAMAGED", "OSD_SCRUB_ERRORS", "POOL_APP_NOT_ENABLED", "POOL_NO_REDUNDANCY",
          "POOL_PG_NUM_NOT_POWER_OF_TWO", "AUTH_INSECURE_GLOBAL_ID_RECLAIM_ALLOWED", "OSDMAP_FLAGS", "OSD_FLAGS",
          "OSD_NEARFULL",
          "PG_NOT_DEEP_SCRUBBED", "PG_NOT_SCRUBBED", "RECENT_CRASH", "OSD_DOWN", "PG_DEGRADED"}


def raised(client: CephClient) -> set[str]:
    return set(client.mon("health").get("checks") or {})


def pgs_clean(client: CephClient) -> bool:
    """Every PG active+clean in the mgr's view (a PG the revived OSD left undersized or stale is not)."""
    stat = client.mgr("pg stat")
    states = stat.get("pg_summary", stat).get("num_pg_by_state") or []
    return bool(states) and all(s["name"].startswith("active+clean") for s in states)


def module_error(client: CephClient, module: str) -> str:
    """Why the active mgr cannot run MODULE, in the mgr's own words ("" when it can)."""
    mods = client.mon("mgr dump").get("available_modules") or []
    return next((m.get("error_string") or "cannot run" for m in mods
                 if m["name"] == module and not m.get("can_run", True)), "")


def config_set(client: CephClient, who: str, name: str, value: str) -> None:
    client.mon_raw("config set", who=who, name=name, value=value)


def corrupt_and_scrub(client: CephClient, cap: Any) -> tuple[str, int, str]:
    """One replica's bytes changed on disk (ceph-objectstore-tool on the stopped OSD, the same length: only a
    deep scrub sees it), then a deep scrub. Returns the PG, its primary and `rados list-inconsistent-obj PG`'s
    answer, read before anything re-peers the PG (the listing belongs to the scrub's interval)."""
    good = b"the one good copy of this object\n" * 64
    client.mon_raw("osd pool create", pool="scrubbed", pg_num=1)
    client.mon_raw("osd pool application enable", pool="scrubbed", app="cephtui")
    with client.handle.open_ioctx("scrubbed") as io:
        io.write_full("damaged", good)
    where = client.mon("osd map", pool="scrubbed", object="damaged")
    pgid, replica = where["pgid"], next(o for o in where["acting"] if o != where["acting_primary"])
    sandbox("kill", cap.dir, f"osd.{replica}")
    bad = Path(cap.dir) / "bad-bytes"
    bad.write_bytes(b"X" * len(good))
    subprocess.run(["ceph-objectstore-tool", "--no-mon-config", "--data-path", f"{cap.dir}/osd/ceph-{replica}",
                    "damaged", "set-bytes", str(bad)], check=True, capture_output=True, timeout=120)
    sandbox("start", cap.dir)  # revives it, waits for HEALTH_OK
    client.mgr_raw("pg deep-scrub", pgid=pgid)
    wait_for("the scrub errors", lambda: {"PG_DAMAGED", "OSD_SCRUB_ERRORS"} <= raised(client), timeout=120)
    listing = subprocess.run(["rados", "-c", cap.conf, "list-inconsistent-obj", pgid, "--format=json"],
                             check=True, capture_output=True, text=True, timeout=60).stdout
    return pgid, int(where["acting_primary"]), listing


def capture_slow_ops(client: CephClient, cap: Any, crashed: int) -> None:
    """slowops.json: a replica hung (SIGSTOP; nodown keeps it up in the osdmap) under client writes. SLOW_OPS
    names the primaries that wait; their `dump_blocked_ops`, `dump_ops_in_flight`, `dump_historic_slow_ops`
    are recorded (tell commands: kept in the meta, by OSD), with `health detail` and `osd perf`."""
    sandbox("revive", cap.dir, f"osd.{crashed}")  # the crashed OSD back: only the hung one is at fault
    wait_for("every OSD up", lambda: client.mon("osd stat")["num_up_osds"] == 3, timeout=60)
    # Peering done first: a PG still peering with the hung OSD would hold its ops "waiting for peered", and
    # SLOW_OPS would name no op waiting on a peer.
    wait_for("every PG active+clean", lambda: pgs_clean(client), timeout=120)
    client.mon_raw("osd set", key="nodown")
    config_set(client, "osd", "osd_op_complaint_time", "5")
    hung = 1
    pid = int((Path(cap.dir) / "run" / f"osd.{hung}.pid").read_text())
    os.kill(pid, signal.SIGSTOP)
    try:
        with client.handle.open_ioctx("rbd") as io:
            for i in range(48):
                io.aio_write_full(f"slow-{i}", b"w" * 4096)
            wait_for("SLOW_OPS", lambda: "SLOW_OPS" in raised(client), timeout=90)
            rec = RecordingClient(client)
            health = rec.mon("health", detail="detail")
            rec.mgr("osd perf")
            summary = health["checks"]["SLOW_OPS"]["summary"]["message"]
            named = sorted({int(x) for x in re.findall(r"osd\.(\d+)", summary)})
            dumps = {str(osd): {prefix: client.osd_tell(osd, prefix) for prefix in
                                ("dump_blocked_ops", "dump_ops_in_flight", "dump_historic_slow_ops")}
                     for osd in named}
            path = cap.out / "slowops.json"
            rec.save(path, {"scenario": f"osd.{hung} hung (SIGSTOP, nodown) under 48 client writes",
                            "ceph_version": cap.version, "hung": hung, "tell": dumps,
                            "captured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
            print(f"wrote {path}: SLOW_OPS on {named}", file=sys.stderr)
            os.kill(pid, signal.SIGCONT)
            io.aio_flush()
    finally:
        os.kill(pid, signal.SIGCONT)
        client.mon_raw("osd unset", key="nodown")


def main() -> int:
    with captured_cluster("ctdoc-", sys.argv, "--pool", "rbd:16") as cap:
        client = cap.client
        scrub_pg, scrub_primary, listing = corrupt_and_scrub(client, cap)  # first: needs a healthy cluster
        # Squid+ waits this long (5 min) before warning about a new pool without an application.
        grace = "mon_warn_on_pool_no_app_grace"
        if grace in client.mon("config ls"):
            config_set(client, "global", grace, "0")
        client.mon_raw("osd pool create", pool="noapp", pg_num=8)
        with client.handle.open_ioctx("noapp") as io:
            io.write_full("o1", b"one object: Pacific warns only for pools holding data")
        client.mon_raw("osd pool create", pool="odd", pg_num=6)
        client.mon_raw("osd pool application enable", pool="odd", app="rbd")
        client.mon_raw("osd pool create", pool="single", pg_num=8)
        client.mon_raw("osd pool application enable", pool="single", app="rbd")
        config_set(client, "global", "mon_allow_pool_size_one", "true")
        client.mon_raw("osd pool set", pool="single", var="size", val="1", yes_i_really_mean_it=True)
        config_set(client, "mon", "auth_allow_insecure_global_id_reclaim", "true")
        # The sandbox's ceph.conf says `mon allow pool delete = true`: the file outranks this database value.
        config_set(client, "mon", "mon_allow_pool_delete", "false")
        # The scrub checks are the mgr's: shortening its intervals only makes the PGs overdue; noscrub and
        # nodeep-scrub keep the OSDs from scrubbing them meanwhile.
        for flag in ("noout", "noscrub", "nodeep-scrub"):
            client.mon_raw("osd set", key=flag)
        config_set(client, "mgr", "osd_deep_scrub_interval", "30")
        config_set(client, "mgr", "osd_scrub_max_interval", "30")
        client.mon_raw("osd add-noout", ids=["osd.0"])
        used = max(n["kb_used"] / n["kb"] for n in client.mgr("osd df")["nodes"])
        client.mon_raw("osd set-nearfull-ratio", ratio=round(used / 2, 5))
        wanted = set(WANTED)
        unraisable: dict[str, str] = {}
        # A new primary knows nothing of its predecessor's scrub: crashing the scrubbed PG's primary would
        # clear OSD_SCRUB_ERRORS and PG_DAMAGED (noscrub keeps them from being found again).
        crashed = max(o for o in range(3) if o != scrub_primary)
        try:  # SIGABRT: the OSD writes its crash dump; posted as ceph-crash does (scripts/sandbox.py crash)
            crash_id = sandbox("crash", cap.dir, f"osd.{crashed}")
        except subprocess.CalledProcessError as e:  # Debian's Reef mgr cannot load its Python modules
            crash_id = ""
            wanted.discard("RECENT_CRASH")
            why = module_error(client, "crash")
            unraisable["RECENT_CRASH"] = (f"the mgr took no crash report ({e.stderr.strip()})"
                                          + (f": its crash module cannot run: {why}" if why else ""))
            cap.quirks.append(f"no crash module: {e.stderr.strip()}; no RECENT_CRASH in this capture")
        for code, why in unraisable.items():
            print(f"capture: {code} cannot be raised on this release ({why}); not waited for", file=sys.stderr)
        client.mon_raw("health mute", code="OSDMAP_FLAGS", ttl="1h")
        client.mon_raw("health mute", code="POOL_PG_NUM_NOT_POWER_OF_TWO", sticky=True)
        try:
            wait_for(f"the checks {sorted(wanted)}", lambda: wanted <= raised(client), timeout=180)
        except SystemExit:
            now = raised(client)
            raise SystemExit(f"never raised (or raised and cleared): {sorted(wanted - now)}; "
                             f"raised: {sorted(now)}") from None
        rec = RecordingClient(client)
        SnapshotBuilder(rec).build(pg_table=True, osd_tree=True, pools=True)  # what the Doctor tab fetches
        rec.mon("health", detail="detail")
        rec.mgr("pg ls", states=["inconsistent"])
        rec.mon("config dump")
        rec.mon("config help", key="mon_allow_pool_delete")
        rec.mgr("config show", who="mon.a")
        rec.mgr("config show", who="mgr.x")
        if crash_id:
            rec.mgr("crash ls")
            rec.mgr("crash info", id=crash_id)
        missing = wanted - raised(client)
        if missing:
            raise SystemExit(f"checks cleared while recording: {sorted(missing)}")
        path = cap.out / "doctor.json"
        rec.save(path, {"scenario": "many checks at once (scripts/capture_doctor_fixtures.py docstring)",
                        "ceph_version": cap.version, "checks": sorted(raised(client)), "crash_id": crash_id,
                        "crashed": crashed, "unraisable": unraisable,
                        # a librados call no mon/mgr command answers: the rados CLI's own output
                        "list_inconsistent_obj": {"pgid": scrub_pg, "out": listing},
                        "captured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
        print(f"wrote {path}: {json.dumps(sorted(raised(client)))}", file=sys.stderr)
        capture_slow_ops(client, cap, crashed)
        cap.note(["doctor.json", "slowops.json"], __file__)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
