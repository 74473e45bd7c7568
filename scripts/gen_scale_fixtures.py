#!/usr/bin/env python3
"""Recordings of big clusters for the scale harness, built by Ceph's own tools, not typed.

    .venv/bin/python scripts/gen_scale_fixtures.py --osds 5000 --pgs 200000 [--out DIR]

Writes DIR/scale-<osds>-<pgs>/: one file per command holding the raw JSON a
cluster would send, and index.json (command key -> file, as in
`cephtui.ceph.recording`). `ReplayClient.from_dir` serves them to the app: each
answer is read from its file when asked, as bytes, and parsed by the same code
that parses a cluster's answer.

Where each answer comes from:
- `osd tree`, `osd dump`: `crushtool --build --num_osds N host straw2 20 rack straw2 10
  root straw2 0`, imported into `osdmaptool --createsimple N --with-default-pool`, printed
  by `osdmaptool --tree=json` / `--dump json` (the code behind `ceph osd tree/dump -f json`).
- every PG's up set: `osdmaptool --test-map-pgs-dump --pg_num P` (real CRUSH placement).
- everything else (status, health detail, pg stat, pg dump pgs_brief, pg dump_stuck,
  df, osd df, osd perf, mgr/mon maps) has no generator: each is the sandbox capture
  tests/fixtures/pacific/osd_down.json with its shape kept and its figures extended by
  the rules below.

Rules (deterministic; the same arguments give the same bytes):
- Down (for 15 minutes, still `in`): one OSD in each thousand (osd.50, osd.1050 ...), and
  from 2,000 OSDs on also every OSD of host1 (a failed host). `ceph osd tree/dump` show them.
- PG states: a PG with a down OSD in its CRUSH set loses it from up/acting and is
  `active+undersized+degraded`, and stuck (dump_stuck unclean/undersized/degraded), since
  the failure is older than mon_pg_stuck_threshold. Of the rest, by pgid hash: 0.5 %
  `active+clean+scrubbing`, 0.2 % `active+clean+scrubbing+deep`, 0.2 %
  `active+remapped+backfill_wait` (acting keeps the next OSD id instead of the last up),
  the others `active+clean`. `pg dump` lists PGs in a shuffled order, as the mgr's hash
  map does.
- Capacity: 4 TiB per OSD; the pool holds 40 % of raw over 3 replicas, spread evenly over
  PGs, 4 MiB objects; each OSD's use is its PG count times the per-PG share.
  Device class hdd on every OSD (crushtool --build assigns none; real clusters do).
- Health: OSD_DOWN, OSD_HOST_DOWN and PG_DEGRADED with Ceph's message wording, details
  capped at 50 lines like mon_health_max_detail.
- osd perf: commit/apply latency 0-29 ms spread by OSD id; down OSDs report none.
- mon_pg_stuck_threshold (`config get`): 300, Ceph's default.
"""
from __future__ import annotations

import argparse
import copy
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BASE = ROOT / "tests" / "fixtures" / "pacific" / "osd_down.json"
VERSION = 3  # bump when the rules change: cached recordings are regenerated
PER_HOST, HOSTS_PER_RACK = 20, 10
OSD_KB = 4 * 1024 ** 3  # 4 TiB
FILL = 0.40
OBJECT = 4 << 20
DETAIL_MAX = 50
STAMP = "2026-11-22T12:00:00.000000+0000"
DOWN_SINCE = "2026-11-22T11:45:00.000000+0000"


def tool(argv: list[str], cwd: Path) -> str:
    return subprocess.run(argv, cwd=cwd, check=True, capture_output=True, text=True).stdout


def tool_json(argv: list[str], cwd: Path) -> Any:
    out = tool(argv, cwd)
    return json.loads(out[out.index("{"):])  # osdmaptool prints its file name first


def dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"))


def base_commands() -> dict[str, Any]:
    recs = json.loads(BASE.read_text())["commands"]
    out: dict[str, Any] = {}
    for key, rec in recs.items():
        k = json.loads(key)
        out[k["prefix"] + (" " + k["stuckops"][0] if "stuckops" in k else "")] = json.loads(rec["out"])
    return out


def key(target: str, prefix: str, **args: Any) -> str:
    from cephtui.ceph.recording import command_key
    return command_key(target, prefix, {"format": "json", **args})


def down_osds(num_osds: int) -> set[int]:
    scattered = set(range(50, num_osds, 1000))
    host1 = set(range(PER_HOST, 2 * PER_HOST)) if num_osds >= 2000 else set()
    return scattered | host1


def pg_state(i: int, crush_set: list[int], down: set[int], num_osds: int) -> tuple[str, list[int], list[int]]:
    up = [o for o in crush_set if o not in down]
    if len(up) < len(crush_set):
        return "active+undersized+degraded", up, up
    h = (i * 2654435761) % 1000
    if h < 5:
        return "active+clean+scrubbing", up, up
    if h < 7:
        return "active+clean+scrubbing+deep", up, up
    if h < 9:
        return "active+remapped+backfill_wait", up, up[:-1] + [(up[-1] + 1) % num_osds]
    return "active+clean", up, up


def generate(num_osds: int, num_pgs: int, out_dir: Path) -> Path:
    sys.path.insert(0, str(ROOT))
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"scale-{num_osds}-{num_pgs}"
    try:
        if json.loads((path / "index.json").read_text())["meta"].get("generator") == VERSION:
            return path
    except (OSError, ValueError, KeyError):
        pass
    t0 = time.monotonic()
    base = base_commands()
    down = down_osds(num_osds)
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        tool(["crushtool", "--build", "--num_osds", str(num_osds), "host", "straw2", str(PER_HOST), "rack", "straw2",
              str(HOSTS_PER_RACK), "root", "straw2", "0", "-o", "crush"], d)
        tool(["osdmaptool", "--createsimple", str(num_osds), "--with-default-pool", "--clobber", "om"], d)
        tool(["osdmaptool", "om", "--import-crush", "crush"], d)
        tree = tool_json(["osdmaptool", "om", "--mark-up-in", "--tree=json"], d)
        dump = tool_json(["osdmaptool", "om", "--mark-up-in", "--dump", "json"], d)
        mapping = tool(["osdmaptool", "om", "--mark-up-in", "--test-map-pgs-dump", "--pg_num", str(num_pgs)], d)

    # ---- PGs
    pgs: list[dict[str, Any]] = []
    per_osd: Counter[int] = Counter()
    for line in mapping.splitlines():
        parts = line.split("\t")
        if len(parts) != 3 or not parts[1].startswith("["):
            continue
        crush_set = [int(x) for x in parts[1].strip("[]").split(",") if x]
        state, up, acting = pg_state(len(pgs), crush_set, down, num_osds)
        per_osd.update(acting)
        pgs.append({"pgid": parts[0], "state": state, "up": up, "acting": acting,
                    "up_primary": up[0] if up else -1, "acting_primary": acting[0] if acting else -1})
    assert len(pgs) == num_pgs, (len(pgs), num_pgs)
    states = Counter(p["state"] for p in pgs)
    degraded = [p for p in pgs if "degraded" in p["state"]]
    shuffled = pgs[:]
    random.Random(num_osds * 7 + num_pgs).shuffle(shuffled)

    raw_total = num_osds * OSD_KB * 1024
    stored_per_pg = int(FILL * raw_total / 3 / num_pgs)
    objects_per_pg = max(stored_per_pg // OBJECT, 1)
    stored, objects = stored_per_pg * num_pgs, objects_per_pg * num_pgs
    raw_used = stored * 3
    degraded_objects = sum(objects_per_pg * (3 - len(p["acting"])) for p in degraded)

    # ---- OSD maps: the tools' JSON, with the down OSDs marked as the mon would
    nodes_by_id = {}
    for n in tree["nodes"]:
        if n["id"] >= 0:
            n["device_class"] = "hdd"
            if n["id"] in down:
                n["status"] = "down"
        nodes_by_id[n["id"]] = n
    parent: dict[int, int] = {}
    for n in tree["nodes"]:
        for c in n.get("children") or ():
            parent[c] = n["id"]
    base_dump = base["osd dump"]
    for k in ("epoch", "fsid", "created", "modified", "flags", "flags_num", "flags_set", "full_ratio",
              "backfillfull_ratio", "nearfull_ratio", "require_min_compat_client", "require_osd_release"):
        dump[k] = base_dump[k]
    epoch = dump["epoch"] = 1000 + num_osds
    for o in dump["osds"]:
        if o["osd"] in down:
            o["up"], o["state"], o["down_at"] = 0, ["exists"], epoch - 1
        o["up_from"], o["up_thru"] = 10, epoch - 2
    for p in dump["pools"]:
        for f in ("pg_num", "pg_placement_num", "pg_placement_num_target", "pg_num_target", "pg_num_pending"):
            p[f] = num_pgs

    def location(osd: int) -> str:
        chain, cur = [], osd
        while cur in parent:
            cur = parent[cur]
            chain.append(f"{nodes_by_id[cur]['type']}={nodes_by_id[cur]['name']}")
        return ",".join(reversed(chain))

    # ---- health, as the mon words it
    up_count = num_osds - len(down)
    host1 = nodes_by_id[parent[PER_HOST]] if PER_HOST in down else None
    pct = 100 * degraded_objects / (objects * 3)
    deg_msg = (f"Degraded data redundancy: {degraded_objects}/{objects * 3} objects degraded ({pct:.3f}%), "
               f"{len(degraded)} pgs degraded, {len(degraded)} pgs undersized")
    checks_detail: dict[str, Any] = {
        "OSD_DOWN": {"severity": "HEALTH_WARN", "summary": {"message": f"{len(down)} osds down", "count": len(down)},
                     "detail": [{"message": f"osd.{o} ({location(o)}) is down"} for o in sorted(down)],
                     "muted": False},
    }
    if host1 is not None:
        checks_detail["OSD_HOST_DOWN"] = {
            "severity": "HEALTH_WARN", "summary": {"message": f"1 host ({PER_HOST} osds) down", "count": 1},
            "detail": [{"message": f"host {host1['name']} ({location(PER_HOST).rsplit(',', 1)[0]}) "
                                   f"({PER_HOST} osds) is down"}], "muted": False}
    pg_lines = [{"message": f"pg {p['pgid']} is {p['state']}, acting [{','.join(map(str, p['acting']))}]"}
                for p in sorted(degraded, key=lambda p: p["pgid"])[:DETAIL_MAX]]
    checks_detail["PG_DEGRADED"] = {"severity": "HEALTH_WARN",
                                    "summary": {"message": deg_msg, "count": len(degraded)},
                                    "detail": pg_lines, "muted": False}
    health = {"status": "HEALTH_WARN", "checks": checks_detail, "mutes": []}
    health_summary = {"status": "HEALTH_WARN", "mutes": [], "checks": {
        k: {kk: vv for kk, vv in v.items() if kk != "detail"} for k, v in checks_detail.items()}}

    by_state = [{"state_name": s, "count": n} for s, n in states.most_common()]
    status = copy.deepcopy(base["status"])
    status["health"] = health_summary
    status["osdmap"].update(epoch=epoch, num_osds=num_osds, num_up_osds=up_count, num_in_osds=num_osds,
                            num_remapped_pgs=states["active+remapped+backfill_wait"])
    status["pgmap"] = {"pgs_by_state": by_state, "num_pgs": num_pgs, "num_pools": 1, "num_objects": objects,
                       "data_bytes": stored, "bytes_used": raw_used, "bytes_avail": raw_total - raw_used,
                       "bytes_total": raw_total, "degraded_objects": degraded_objects,
                       "degraded_total": objects * 3, "degraded_ratio": degraded_objects / (objects * 3),
                       "read_bytes_sec": 1_250_000_000, "write_bytes_sec": 640_000_000,
                       "read_op_per_sec": 52_000, "write_op_per_sec": 18_000}

    pg_stat = {"pg_ready": True, "pg_summary": {
        "num_pg_by_state": [{"name": s, "num": n} for s, n in sorted(states.items())], "num_pgs": num_pgs,
        "num_bytes": stored, "total_bytes": raw_total, "total_avail_bytes": raw_total - raw_used,
        "total_used_bytes": raw_used, "total_used_raw_bytes": raw_used, "degraded_objects": degraded_objects,
        "degraded_total": objects * 3, "degraded_ratio": degraded_objects / (objects * 3)}}

    template = base["pg dump_stuck unclean"]["stuck_pg_stats"][0]

    def stuck_entry(p: dict[str, Any]) -> dict[str, Any]:
        e = copy.deepcopy(template)
        e.update(pgid=p["pgid"], state=p["state"], up=p["up"], acting=p["acting"], up_primary=p["up_primary"],
                 acting_primary=p["acting_primary"], reported_epoch=epoch,
                 avail_no_missing=[str(o) for o in p["acting"]])
        for f in ("last_fresh", "last_change", "last_active", "last_peered", "last_unstale", "last_became_active",
                  "last_became_peered"):
            e[f] = STAMP
        for f in ("last_clean", "last_undegraded", "last_fullsized"):
            e[f] = DOWN_SINCE
        e["stat_sum"].update(num_objects=objects_per_pg, num_bytes=stored_per_pg,
                             num_object_copies=objects_per_pg * 3, num_objects_degraded=objects_per_pg)
        return e

    stuck = {"pg_ready": True, "stuck_pg_stats": [stuck_entry(p) for p in degraded]}
    empty_stuck = {"pg_ready": True, "stuck_pg_stats": []}

    df = copy.deepcopy(base["df"])
    df["stats"].update(total_bytes=raw_total, total_avail_bytes=raw_total - raw_used, total_used_bytes=raw_used,
                       total_used_raw_bytes=raw_used, total_used_raw_ratio=raw_used / raw_total,
                       num_osds=num_osds, num_per_pool_osds=num_osds, num_per_pool_omap_osds=num_osds)
    df["stats_by_class"] = {"hdd": {k: df["stats"][k] for k in ("total_bytes", "total_avail_bytes",
                                                                 "total_used_bytes", "total_used_raw_bytes",
                                                                 "total_used_raw_ratio")}}
    pool = copy.deepcopy(df["pools"][0])
    max_avail = int((raw_total - raw_used) / 3 * 0.9)
    pool["stats"].update(stored=stored, stored_data=stored, objects=objects, kb_used=raw_used // 1024,
                         bytes_used=raw_used, data_bytes_used=raw_used, stored_raw=raw_used,
                         percent_used=raw_used / (raw_used + max_avail * 3), max_avail=max_avail,
                         avail_raw=raw_total - raw_used, wr=objects, wr_bytes=stored)
    df["pools"] = [pool]

    df_nodes, utils = [], []
    node_tmpl = base["osd df"]["nodes"][0]
    for n in tree["nodes"]:
        if n["id"] < 0:
            continue
        o = n["id"]
        used = min(per_osd[o] * stored_per_pg // 1024 + 1024 ** 2, OSD_KB)
        e = dict(node_tmpl, id=o, name=n["name"], crush_weight=n["crush_weight"], depth=n["depth"],
                 kb=OSD_KB, kb_used=used, kb_used_data=used - 1024 ** 2, kb_used_meta=1024 ** 2, kb_avail=OSD_KB - used,
                 utilization=used * 100 / OSD_KB, pgs=per_osd[o], status=n["status"])
        df_nodes.append(e)
        utils.append(e["utilization"])
    avg = sum(utils) / len(utils)
    for e in df_nodes:
        e["var"] = e["utilization"] / avg if avg else 1.0
    tot_used = sum(e["kb_used"] for e in df_nodes)
    osd_df = {"nodes": df_nodes, "stray": [], "summary": {
        "total_kb": OSD_KB * num_osds, "total_kb_used": tot_used, "total_kb_used_data": tot_used - num_osds * 1024 ** 2,
        "total_kb_used_omap": 0, "total_kb_used_meta": num_osds * 1024 ** 2,
        "total_kb_avail": OSD_KB * num_osds - tot_used,
        "average_utilization": avg, "min_var": min(e["var"] for e in df_nodes),
        "max_var": max(e["var"] for e in df_nodes), "dev": 0.0}}

    perf = {"pg_ready": True, "osdstats": {"osd_perf_infos": [
        {"id": o, "perf_stats": {"commit_latency_ms": (o * 7) % 30, "apply_latency_ms": (o * 7) % 30,
                                 "commit_latency_ns": (o * 7) % 30 * 1_000_000,
                                 "apply_latency_ns": (o * 7) % 30 * 1_000_000}}
        for o in range(num_osds - 1, -1, -1) if o not in down]}}

    osd_stat = dict(base["osd stat"], epoch=epoch, num_osds=num_osds, num_up_osds=up_count, num_in_osds=num_osds,
                    num_remapped_pgs=states["active+remapped+backfill_wait"])

    records: dict[str, Any] = {
        key("mon", "status"): status,
        key("mon", "health", detail="detail"): health,
        key("mon", "quorum_status"): base["quorum_status"],
        key("mon", "mgr stat"): base["mgr stat"],
        key("mon", "mgr dump"): base["mgr dump"],
        key("mon", "osd dump"): dump,
        key("mon", "osd stat"): osd_stat,
        key("mon", "df", detail="detail"): df,
        key("mon", "osd tree"): tree,
        key("mgr", "pg stat"): pg_stat,
        key("mgr", "pg dump", dumpcontents=["pgs_brief"]): {"pg_ready": True, "pg_stats": shuffled},
        key("mgr", "osd df"): osd_df,
        key("mgr", "osd perf"): perf,
    }
    kinds = ["inactive", "unclean", "stale", "undersized", "degraded"]
    for kind in kinds:
        records[key("mgr", "pg dump_stuck", stuckops=[kind])] = \
            stuck if kind in ("unclean", "undersized", "degraded") else empty_stuck
    # All five at once, as cephtui asks: the mgr answers the union (the same degraded PGs).
    records[key("mgr", "pg dump_stuck", stuckops=kinds, threshold=300)] = stuck
    records[key("mon", "config get", who="mgr", key="mon_pg_stuck_threshold")] = 300  # the default
    meta = {"generator": VERSION, "osds": num_osds, "pgs": num_pgs, "down_osds": len(down),
            "degraded_pgs": len(degraded), "states": dict(states), "base": str(BASE.relative_to(ROOT)),
            "seconds": round(time.monotonic() - t0, 1)}
    tmp = out_dir / (path.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    index = {}
    for i, (k, v) in enumerate(records.items()):
        name = f"{i:02d}-{json.loads(k)['prefix'].replace(' ', '_')}.json"
        (tmp / name).write_text(dumps(v))
        index[k] = name
    (tmp / "index.json").write_text(json.dumps({"meta": meta, "files": index}, indent=1))
    shutil.rmtree(path, ignore_errors=True)
    tmp.rename(path)
    return path


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--osds", type=int, required=True)
    p.add_argument("--pgs", type=int, required=True)
    p.add_argument("--out", type=Path, default=ROOT / ".scale-cache")
    args = p.parse_args()
    path = generate(args.osds, args.pgs, args.out)
    meta = json.loads((path / "index.json").read_text())["meta"]
    size = sum(f.stat().st_size for f in path.iterdir())
    print(f"{path} ({size / 1e6:.1f} MB): {json.dumps(meta)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
