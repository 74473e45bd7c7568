"""A real Prometheus scraping a sandbox's mgr: what test_prometheus_history.py and
scripts/capture_prometheus_fixture.py share.

The mgr's prometheus module listens on loopback at a free port and refreshes its numbers every second
(mgr/prometheus/scrape_interval), and /usr/bin/prometheus (Debian's package) scrapes it every second into
a temporary TSDB. Both are started and stopped by this code alone: Prometheus by the pid it was started
with, the module by disabling it and removing the options set for it.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PROMETHEUS = "/usr/bin/prometheus"
RATE_FLOOR = 10.0  # s: the module refreshes every second here, the pool counters every mgr stats period (5 s)
CEPH_QUIET = {"log_to_stderr": "false", "err_to_stderr": "false"}
MODULE_OPTIONS = ("mgr/prometheus/server_addr", "mgr/prometheus/server_port", "mgr/prometheus/scrape_interval")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(cond: Callable[[], Any], timeout: float, what: str, interval: float = 0.5) -> Any:
    """Until cond() is true (returned); a look that raises OSError or a lookup error means "not yet"."""
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while True:
        try:
            value = cond()
        except (OSError, LookupError, ValueError) as e:
            value, last = None, e
        if value:
            return value
        if time.monotonic() > deadline:
            why = f" (last look: {type(last).__name__}: {last})" if last else ""
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}{why}")
        time.sleep(interval)


class Mon:
    """Mon commands on one librados connection (config set/rm, mgr module enable/disable, osd set)."""

    def __init__(self, conf: Path) -> None:
        import rados

        self.r = rados.Rados(conffile=str(conf), conf=CEPH_QUIET)
        self.r.connect(timeout=10)

    def __call__(self, prefix: str, **args: Any) -> Any:
        ret, out, outs = self.r.mon_command(json.dumps({"prefix": prefix, "format": "json", **args}), b"", timeout=60)
        if ret != 0:
            raise RuntimeError(f"{prefix} {args}: {outs.strip()} ({ret})")
        return json.loads(out) if out.strip() else None

    def close(self) -> None:
        self.r.shutdown()


def enable_module(mon: Mon, port: int) -> str:
    """The mgr's prometheus module on 127.0.0.1:port, refreshing every second; returns its /metrics URL.

    The options are set before the module is enabled: the address and the refresh interval are read when
    the module starts (can_update_at_runtime: false). Enabling a module respawns the mgr."""
    enabled = mon("mgr module ls").get("enabled_modules", [])
    if "prometheus" in enabled:  # left on by an interrupted run, on other options: start it afresh
        mon("mgr module disable", module="prometheus")
    mon("config set", who="mgr", name="mgr/prometheus/server_addr", value="127.0.0.1")
    mon("config set", who="mgr", name="mgr/prometheus/server_port", value=str(port))
    mon("config set", who="mgr", name="mgr/prometheus/scrape_interval", value="1")
    mon("mgr module enable", module="prometheus")
    return f"http://127.0.0.1:{port}/metrics"


def disable_module(mon: Mon) -> None:
    mon("mgr module disable", module="prometheus")
    for name in MODULE_OPTIONS:
        mon("config rm", who="mgr", name=name)


class PromServer:
    """/usr/bin/prometheus on a free loopback port, scraping `targets` every second into a temporary TSDB."""

    def __init__(self, targets: list[str]) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="ctprom-", dir="/tmp"))
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = self.dir / "prometheus.yml"
        lines = ["global:", "  scrape_interval: 1s", "  scrape_timeout: 1s", "scrape_configs:",
                 "  - job_name: ceph", "    honor_labels: true", "    static_configs:",
                 f"      - targets: {json.dumps(targets)}"]
        config.write_text("\n".join(lines) + "\n")
        self.log = open(self.dir / "prometheus.log", "wb")  # noqa: SIM115 (closed in stop)
        self.proc = subprocess.Popen(
            [PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={self.dir / 'data'}",
             f"--web.listen-address=127.0.0.1:{self.port}", "--web.enable-lifecycle"],
            stdout=self.log, stderr=subprocess.STDOUT, cwd=self.dir)

    def get(self, path: str, **params: Any) -> Any:
        query = f"?{urllib.parse.urlencode(params)}" if params else ""
        with urllib.request.urlopen(f"{self.url}{path}{query}", timeout=5) as answer:
            return json.loads(answer.read())

    def raw(self, path: str, **params: Any) -> tuple[int, bytes]:
        """(HTTP status, body) of a GET, whatever the status: what a fixture keeps."""
        try:
            with urllib.request.urlopen(f"{self.url}{path}?{urllib.parse.urlencode(params)}", timeout=5) as a:
                return a.status, a.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def wait_ready(self, timeout: float = 60) -> None:
        """Until the server answers and its only target has been scraped successfully."""
        def up() -> bool:
            if self.proc.poll() is not None:
                raise AssertionError(f"prometheus exited ({self.proc.returncode}): {self.log_tail()}")
            targets = self.get("/api/v1/targets")["data"]["activeTargets"]
            return bool(targets) and all(t["health"] == "up" for t in targets)
        wait_for(up, timeout, "Prometheus up and its mgr target scraped")

    def points(self, promql: str, seconds: float) -> int:
        """How many points the server's own range query has for promql over the last `seconds`, at 1 s."""
        now = time.time()
        data = self.get("/api/v1/query_range", query=promql, start=now - seconds, end=now, step=1)["data"]
        return max((len(s["values"]) for s in data["result"]), default=0)

    def log_tail(self) -> str:
        path = self.dir / "prometheus.log"
        return path.read_text(errors="replace")[-2000:] if path.exists() else ""

    def stop(self) -> None:
        """Terminate by pid and wait; kill if it does not stop (it flushes its head block first)."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class Writer:
    """Client writes into a pool from a thread until stopped: 1 MiB objects overwritten in a ring of 8, so
    the pool does not grow, removed at the end. `bytes` counts what was acknowledged."""

    def __init__(self, conf: Path, pool: str, prefix: str = "ctprom") -> None:
        import rados

        self.r = rados.Rados(conffile=str(conf), conf=CEPH_QUIET)
        self.r.connect(timeout=10)
        self.io = self.r.open_ioctx(pool)
        self.names = [f"{prefix}-{i}" for i in range(8)]
        self.bytes = 0
        self.first: float | None = None  # wall time of the first and last acknowledged write
        self.last: float | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        data = os.urandom(1 << 20)
        i = 0
        while not self._stop.is_set():
            self.io.write_full(self.names[i % len(self.names)], data)
            now = time.time()
            self.first = self.first or now
            self.last = now
            self.bytes += len(data)
            i += 1

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=60)
        for name in self.names:
            try:
                self.io.remove_object(name)
            except Exception:  # noqa: BLE001 (never written: the writer stopped before reaching it)
                pass
        self.io.close()
        self.r.shutdown()


@dataclass
class Lab:
    server: PromServer
    mon: Mon
    source: Any  # PrometheusSource


@contextmanager
def running_lab(sandbox: Any, rate_floor: float = RATE_FLOOR) -> Iterator[Lab]:
    """The sandbox's mgr module on, a Prometheus scraping it, and its series settled; all put back at the end
    (the session sandbox is shared: enabling the module respawns the mgr)."""
    from cephtui.ceph.history.prometheus import PrometheusSource

    mon = Mon(sandbox.conf)
    server = None
    try:
        metrics = enable_module(mon, free_port())
        server = PromServer([metrics.split("/")[2]])
        server.wait_ready(timeout=120)  # the mgr respawns on enable: its first scrapes fail until it is back
        # Every series is in once the module has collected once: the OSDs' and the pools' among them.
        wait_for(lambda: server.points("ceph_osd_commit_latency_ms", 30) >= 5 and
                 server.points("ceph_pool_wr_bytes", 30) >= 5, 120, "5 scraped points of the mgr's series")
        source = PrometheusSource(server.url, min_rate_window=rate_floor)

        # The respawned mgr's pool counters climb back to their totals as the OSDs report their PGs, which a
        # rate reads as writes: wait until they hold still (no client writes here) for two rate windows.
        def still() -> bool:
            now = time.time()
            pts = source.cluster_series("write_bps", now - 2 * rate_floor, now)
            return len(pts) > 2 * rate_floor - 3 and all(v == 0 for _, v in pts)

        wait_for(still, 120, "the mgr's pool write counter holding still")
        yield Lab(server, mon, source)
    finally:
        if server is not None:
            server.stop()
        disable_module(mon)
        mon.close()
        sandbox.heal()  # the mgr respawned again on disable: back to HEALTH_OK with its modules loaded
