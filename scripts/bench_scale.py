#!/usr/bin/env python3
"""Scale harness: the real app on recordings of 100 to 10,000 OSDs, measured against the budgets.

    .venv/bin/python scripts/bench_scale.py [--sizes 100:10000,1000:100000,5000:200000,10000:200000]
                                            [--conf CEPH_CONF | --no-cli] [--refreshes 6] [--root DIR]

Each size is a recording made by scripts/gen_scale_fixtures.py (crushtool/osdmaptool
maps, PG states by rule; cached under .scale-cache/). For each size a fresh Python
process starts the whole CephTUI app headless (Textual's run_test, 160x48) on a
`ReplayClient` of that recording and measures, while a 20 ms heartbeat timer runs on
the UI thread:

  first frame   process start (before the interpreter) -> the app's first painted frame (tabs,
                status bar, "connecting"), and -> Health painted with the first snapshot
  refresh       r pressed -> new snapshot fetched, parsed, built, the visible pane's widgets
                updated and the screen refreshed; Health, PGs, OSDs and Doctor tabs, median and max.
                Each `pg dump` differs from the last (0.1 % of PGs change, as scrubs start and
                end), so the PG table is decoded for real at every refresh.
  UI block      the longest heartbeat gap during those refreshes (any wait the UI thread had)
  filter        one keystroke in the PG / OSD filter -> the filtered rows on screen
                (typing 'degraded' and 'host12' a key at a time, median and max)
  RSS           resident memory at the end, and the peak

References measured in the same run:
  - per size, the standard library's json.loads of the answers a refresh of each tab fetches;
    cephtui's whole refresh over it (below 1: cheaper than merely parsing them the usual way);
  - unless --no-cli, the refresh as scripts do it today, `ceph -s`, `ceph osd tree` and `ceph pg
    stat` as processes against a real sandbox cluster, against the same app's refresh (real
    client, same harness) on that cluster. --conf uses a running cluster; otherwise a sandbox is
    started and stopped.

--root measures another checkout's app with this harness (e.g. the commit before an
optimisation, with this checkout's cephtui/ceph/recording.py copied in for the replay).
"""
from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BUDGET = {"refresh": 250.0, "block": 50.0, "filter": 100.0, "rss": 400.0, "first": 1500.0}
DEFAULT_SIZES = "100:10000,1000:100000,5000:200000,10000:200000"


# ----------------------------------------------------------------------------- child: one app, one size
async def measure(client: Any, t_start: float, refreshes: int, filters: bool) -> dict[str, Any]:
    from textual.worker import WorkerState

    from cephtui.ui.app import CephTUI
    from cephtui.ui.panes.osds import OSDsPane
    from cephtui.ui.panes.pgs import PGsPane
    from cephtui.ui.widgets.filterinput import FilterInput
    from cephtui.ui.widgets.virtualtable import VirtualTable

    out: dict[str, Any] = {}
    ready = [0]

    class Harness(CephTUI):
        def on_mount(self) -> None:
            super().on_mount()
            self.call_after_refresh(lambda: out.setdefault("first_frame_ms", (time.time() - t_start) * 1000))

        def on_snapshot_ready(self, message: Any) -> None:
            super().on_snapshot_ready(message)
            if "first_data_ms" not in out:
                self.call_after_refresh(lambda: out.setdefault("first_data_ms", (time.time() - t_start) * 1000))
            ready[0] += 1

    app = Harness(client, refresh=3600)  # polls only when asked: each refresh is measured alone
    gaps: list[tuple[float, str]] = []
    phase = ["start"]
    collections: list[tuple[float, int, str]] = []  # (ms, generation, phase): GC pauses hold the GIL
    gc_start = [0.0]

    def on_gc(stage: str, info: dict[str, int]) -> None:
        if stage == "start":
            gc_start[0] = time.perf_counter()
        else:
            collections.append(((time.perf_counter() - gc_start[0]) * 1000, info["generation"], phase[0]))
    gc.callbacks.append(on_gc)
    last = [time.perf_counter()]

    def beat() -> None:
        now = time.perf_counter()
        gaps.append(((now - last[0]) * 1000, phase[0]))
        last[0] = now

    def view_busy() -> bool:
        return any(w.group in ("osd-view", "pg-filter", "poll") and
                   w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in app.workers)

    async def settled(cond: Callable[[], bool], timeout: float = 120) -> float:
        """When `cond` holds and no view worker runs, the time after the next screen refresh.

        Checked from the app's own loop every millisecond; no Pilot pause (which waits for
        the whole process to go idle) stands between the change and the measurement."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[float] = loop.create_future()

        def check() -> None:
            if done.done():
                return
            if cond() and not view_busy():
                app.call_after_refresh(lambda: done.done() or done.set_result(time.perf_counter()))
            else:
                app.set_timer(0.001, check)
        check()
        return await asyncio.wait_for(done, timeout)

    async with app.run_test(size=(160, 48)) as pilot:
        await settled(lambda: "first_data_ms" in out)
        last[0] = time.perf_counter()
        app.set_interval(0.02, beat)
        for tab in MEASURED:
            phase[0] = "switch"
            n = ready[0]
            app.action_show_tab(tab)
            app.action_refresh_now()
            await settled(lambda n=n: ready[0] > n)
            await pilot.pause(0.3)
            times, polls = [], []
            for _ in range(refreshes):
                phase[0] = f"refresh {tab}"
                n = ready[0]
                t0 = time.perf_counter()
                app.poller.schedule(0)  # what the refresh timer does (the r key also re-asks for stuck PGs)
                times.append((await settled(lambda n=n: ready[0] > n) - t0) * 1000)
                polls.append(app.snapshot.poll_ms if app.snapshot else 0.0)
                phase[0] = f"idle {tab}"
                await asyncio.sleep(0.2)
            out[f"refresh_{tab}"] = times
            out[f"poll_{tab}"] = polls
            out[f"block_{tab}"] = max([g for g, p in gaps if p == f"refresh {tab}"], default=0.0)
        if filters:
            for tab, box_id, pane, text in (("pgs", "#pgs-table-box", app.pane(PGsPane), "degraded"),
                                            ("osds", "#osds-box", app.pane(OSDsPane), "host12")):
                app.action_show_tab(tab)
                await pilot.pause(0.3)
                pane.action_focus_filter()
                await pilot.pause(0.1)
                box = pane.query_one(box_id)
                box_input = pane.query_one(FilterInput)
                per_key = []
                phase[0] = f"filter {tab}"
                for i, ch in enumerate(text):
                    want = f"match '{text[:i + 1]}'"
                    t0 = time.perf_counter()
                    box_input.insert_text_at_cursor(ch)  # what a keystroke does to the box
                    shown = await settled(lambda want=want, box=box: want in str(box.border_subtitle))
                    per_key.append((shown - t0) * 1000)
                    await asyncio.sleep(0.05)
                table = pane.query_one("#pgs-table" if tab == "pgs" else VirtualTable, VirtualTable)
                out[f"filter_{tab}"] = per_key
                out[f"filter_{tab}_rows"] = table.row_count
                out[f"block_filter_{tab}"] = max([g for g, p in gaps if p == f"filter {tab}"], default=0.0)
                phase[0] = "clear"
                pane.action_clear_filter()
                await pilot.pause(0.5)
        out["block_idle"] = max([g for g, p in gaps if p.startswith("idle")], default=0.0)
        out["worst_gaps"] = sorted(gaps, reverse=True)[:6]
        out["worst_gc"] = sorted(collections, reverse=True)[:6]
        gc.callbacks.remove(on_gc)
    import resource

    import psutil
    # The replay's own buffers (the churned `pg dump` answers) are the harness's, not the app's.
    harness = sum(map(len, getattr(client, "variants", ()))) / 2**20
    out["rss_mb"] = psutil.Process().memory_info().rss / 2**20 - harness
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - harness
    return out


CHURN = 0.0005  # each `pg dump`, a fresh 0.05 % of the active+clean PGs are scrubbing: 0.1 % change per refresh
VARIANTS = 2  # alternating: each ask differs from the last by ~0.1 % of the PGs


def churning(directory: Path) -> Any:
    """A ReplayClient whose `pg dump` changes at every ask, as a live cluster's does (scrubs start
    and end): without it, unchanged bytes would let the app skip the decode entirely."""
    import random
    import re

    from cephtui.ceph.recording import ReplayClient

    clean, scrubbing = b'"state":"active+clean","up"', b'"state":"active+clean+scrubbing","up"'

    class Churning(ReplayClient):
        variants: list[bytes] = []  # prepared at the first ask, so a fetch costs what receiving it would
        asked = 0

        def raw(self, target: str, prefix: str, args: dict[str, Any]) -> bytes:
            if prefix != "pg dump":
                return super().raw(target, prefix, args)
            if not self.variants:
                out = super().raw(target, prefix, args)
                rng = random.Random(7)
                spots = [m.start() for m in re.finditer(re.escape(clean), out)]
                for _ in range(VARIANTS):
                    parts, last = [], 0
                    for at in sorted(rng.sample(spots, max(1, int(len(spots) * CHURN)))):
                        parts += [out[last:at], scrubbing]
                        last = at + len(clean)
                    parts.append(out[last:])
                    self.variants.append(b"".join(parts))
            self.asked += 1
            return self.variants[self.asked % VARIANTS]

    return Churning.from_dir(directory)


def child(args: argparse.Namespace) -> int:
    if args.replay:
        client: Any = churning(Path(args.replay))
    else:
        from cephtui.ceph.client import CephClient
        from cephtui.ceph.connection import ConnectionSpec
        client = CephClient(ConnectionSpec(conffile=args.conf)).connect()
    result = asyncio.run(measure(client, args.t0, args.refreshes, not args.no_filters))
    print("RESULT " + json.dumps(result))
    return 0


def run_child(root: Path, refreshes: int, *, replay: Path | None = None, conf: str | None = None,
              no_filters: bool = False) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(root))
    argv = [sys.executable, str(Path(__file__).resolve()), "--child", "--refreshes", str(refreshes),
            "--t0", repr(time.time())]
    argv += ["--replay", str(replay)] if replay else ["--conf", str(conf)]
    if no_filters:
        argv.append("--no-filters")
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, cwd=str(root))
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise SystemExit(f"the harness failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}")


# ----------------------------------------------------------------------------- parent: sizes, CLI, table
def med(xs: list[float]) -> float:
    return statistics.median(xs) if xs else 0.0


def cli_reference(conf: str, runs: int = 5) -> dict[str, float]:
    out: dict[str, float] = {}
    for name, argv in (("ceph -s", ["-s"]), ("ceph osd tree", ["osd", "tree"]), ("ceph pg stat", ["pg", "stat"])):
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            subprocess.run(["ceph", "-c", conf, *argv], check=True, capture_output=True)
            times.append((time.perf_counter() - t0) * 1000)
        out[name] = med(times)
    return out


MEASURED = ("health", "pgs", "osds", "doctor")  # the Doctor: the OSD table and pools, plus diagnosing every check
TAB_ANSWERS = {  # what a steady refresh of each tab asks (stuck PGs: every 10 s, left out)
    "health": [("mon", "status", {}), ("mon", "health", {"detail": "detail"}), ("mon", "mgr stat", {}),
               ("mon", "df", {"detail": "detail"}), ("mgr", "pg stat", {})],
    "pgs": [("mgr", "pg dump", {"dumpcontents": ["pgs_brief"]})],
    "osds": [("mgr", "osd df", {}), ("mgr", "osd perf", {})],
    "doctor": [("mgr", "osd df", {}), ("mgr", "osd perf", {})],  # + pool stats, not in the recordings
}


def json_floor(directory: Path) -> dict[str, float]:
    """The reference, in this run: the standard library's json.loads of the answers a refresh of
    each tab fetches (median of 3, ms). cephtui's whole refresh (fetch, parse, build, paint) over
    this floor: below 1 means it costs less than merely parsing its answers the usual way."""
    from cephtui.ceph.recording import command_key
    index = json.loads((directory / "index.json").read_text())["files"]
    out: dict[str, float] = {}
    for tab in TAB_ANSWERS:
        answers = TAB_ANSWERS["health"] + (TAB_ANSWERS[tab] if tab != "health" else [])
        blobs = [(directory / index[command_key(t, p, {"format": "json", **a})]).read_bytes() for t, p, a in answers]
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            for b in blobs:
                json.loads(b)
            times.append((time.perf_counter() - t0) * 1000)
        out[tab] = med(times)
    return out


def mark(value: float, budget: float) -> str:
    return "ok" if value < budget else "OVER"


def report(results: list[tuple[int, int, dict[str, Any]]]) -> None:
    print("\n== budgets: refresh < 250 ms, UI block < 50 ms, filter < 100 ms/key, RSS < 400 MB, "
          "first frame < 1.5 s ==")
    print("refresh and filter: median/max ms; UI block: longest heartbeat gap (ms) while refreshing the "
          "Health/PGs/OSDs/Doctor tab and while filtering PGs/OSDs; first: frame/data ms")
    head = (f"{'OSDs':>6} {'PGs':>7} | {'first':>11} | {'health':>9} {'PGs':>9} {'OSDs':>9} {'Doctor':>9} | "
            f"{'UI block h/p/o/d | fp/fo':>24} | {'filter PGs':>10} {'OSDs':>9} | {'RSS MB':>6} {'peak':>5}")
    print(head)
    print("-" * len(head))
    for osds, pgs, r in results:
        def mm(key: str, r: dict = r) -> str:
            xs = r.get(key) or [0.0]
            return f"{med(xs):.0f}/{max(xs):.0f}"
        blocks = "/".join(f"{r.get(f'block_{t}', 0):.0f}" for t in MEASURED)
        fblocks = "/".join(f"{r.get(k, 0):.0f}" for k in ("block_filter_pgs", "block_filter_osds"))
        print(f"{osds:>6} {pgs:>7} | {r['first_frame_ms']:5.0f}/{r.get('first_data_ms', 0):5.0f} | "
              f"{mm('refresh_health'):>9} {mm('refresh_pgs'):>9} {mm('refresh_osds'):>9} {mm('refresh_doctor'):>9} | "
              f"{blocks + ' | ' + fblocks:>24} | {mm('filter_pgs'):>10} {mm('filter_osds'):>9} | "
              f"{r['rss_mb']:6.0f} {r['peak_rss_mb']:5.0f}")
    print("\nreference in the same run: json.loads (stdlib) of the answers a refresh of the tab fetches")
    print(f"{'OSDs':>6} {'PGs':>7} | {'json.loads ms h/p/o/d':>27} | {'cephtui refresh / json.loads h/p/o/d':>38}")
    for osds, pgs, r in results:
        fl = r["floor"]
        ratios = "/".join(f"{med(r[f'refresh_{t}']) / fl[t]:.2f}" for t in MEASURED)
        floors = "/".join(f"{fl[t]:6.1f}" for t in MEASURED)
        print(f"{osds:>6} {pgs:>7} | {floors:>27} | {ratios:>38}")
    budget_row = [r for o, p, r in results if (o, p) == (5000, 200000)]
    if budget_row:
        r = budget_row[0]
        worst_refresh = max(max(r[f"refresh_{t}"]) for t in MEASURED)
        worst_block = max(r[f"block_{t}"] for t in MEASURED)
        worst_filter = max(max(r.get(f"filter_{t}") or [0.0]) for t in ("pgs", "osds"))
        print(f"\nat 5,000 OSDs / 200,000 PGs: refresh max {worst_refresh:.0f} ms {mark(worst_refresh, 250)}, "
              f"UI block while refreshing max {worst_block:.0f} ms {mark(worst_block, 50)}, filter max "
              f"{worst_filter:.0f} ms/key {mark(worst_filter, 100)}, RSS peak {r['peak_rss_mb']:.0f} MB "
              f"{mark(r['peak_rss_mb'], 400)}, first frame {r['first_frame_ms']:.0f} ms "
              f"{mark(r['first_frame_ms'], 1500)} (with data {r.get('first_data_ms', 0):.0f} ms)")
        # The reference for the UI block: the same 20 ms heartbeat's longest gap while nothing was asked
        # (between refreshes). On a loaded 2-core machine that floor alone can reach the budget.
        print(f"UI block reference in the same run: longest heartbeat gap while idle {r.get('block_idle', 0):.0f} ms")
    if len(results) >= 2:
        (o0, p0, r0), (o1, p1, r1) = results[0], results[-1]
        print(f"\ngrowth from {o0} OSDs/{p0} PGs to {o1} OSDs/{p1} PGs "
              f"(OSDs x{o1 / o0:.0f}, PGs x{p1 / p0:.0f}); linear in its input means a ratio <= that input's factor")
        for label, key, by in (("refresh health", "refresh_health", "neither"), ("refresh PGs", "refresh_pgs", "PGs"),
                               ("refresh OSDs", "refresh_osds", "OSDs"), ("refresh Doctor", "refresh_doctor", "OSDs"),
                               ("filter PGs", "filter_pgs", "PGs"),
                               ("filter OSDs", "filter_osds", "OSDs")):
            a, b = med(r0.get(key) or [0.0]), med(r1.get(key) or [0.0])
            print(f"  {label:16} {a:7.1f} -> {b:7.1f} ms  x{b / a if a else 0:6.1f}   (grows with {by})")
        print(f"  {'RSS':16} {r0['rss_mb']:7.1f} -> {r1['rss_mb']:7.1f} MB  x{r1['rss_mb'] / r0['rss_mb']:6.1f}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default=DEFAULT_SIZES, help="OSDS:PGS,... (default %(default)s)")
    p.add_argument("--refreshes", type=int, default=6)
    p.add_argument("--root", type=Path, default=ROOT, help="the checkout whose app is measured")
    p.add_argument("--conf", help="a running cluster for the CLI reference")
    p.add_argument("--no-cli", action="store_true", help="skip the CLI reference on a sandbox cluster")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--replay", help=argparse.SUPPRESS)
    p.add_argument("--t0", type=float, default=0.0, help=argparse.SUPPRESS)
    p.add_argument("--no-filters", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        return child(args)

    sys.path.insert(0, str(ROOT / "scripts"))
    from gen_scale_fixtures import generate

    results = []
    for spec in args.sizes.split(","):
        osds, pgs = (int(x) for x in spec.split(":"))
        directory = generate(osds, pgs, ROOT / ".scale-cache")
        t0 = time.monotonic()
        r = run_child(args.root.resolve(), args.refreshes, replay=directory)
        r["floor"] = json_floor(directory)
        print(f"{osds} OSDs / {pgs} PGs measured in {time.monotonic() - t0:.0f} s", file=sys.stderr)
        results.append((osds, pgs, r))
    report(results)
    if not args.no_cli:
        cli_vs_app(args)
    return 0


def cli_vs_app(args: argparse.Namespace) -> None:
    from capturelib import conf_or_sandbox  # scripts/ is on the path (main)

    with conf_or_sandbox(args.conf, "ctscale-", "--port", "7060", "--pool", "rbd:32") as conf:
        cli = cli_reference(conf)
        r = run_child(args.root.resolve(), args.refreshes, conf=conf, no_filters=True)
    script = sum(cli.values())
    print("\n== the same refresh as scripts do it, on a real sandbox cluster (3 OSDs), median of 5 ==")
    for name, v in cli.items():
        print(f"  {name:28} {v:7.0f} ms")
    print(f"  {'the three, one after another':28} {script:7.0f} ms")
    for tab in MEASURED:
        m = med(r[f"refresh_{tab}"])
        print(f"  cephtui refresh, {tab + ' tab':11} {m:7.1f} ms  (fetch+parse {med(r[f'poll_{tab}']):5.1f} ms)"
              f"   scripts / cephtui = {script / m:5.1f}x")


if __name__ == "__main__":
    raise SystemExit(main())
