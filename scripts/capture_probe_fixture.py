#!/usr/bin/env python3
"""Capture tests/fixtures/probe/ from a real sandbox cluster: one latency probe, and everything it read.

    .venv/bin/python scripts/capture_probe_fixture.py [--conf CEPH_CONF] [--seconds S] [OUTDIR]

Without --conf it starts its own 3-OSD sandbox (temporary directory, free port) and stops it after.
Runs a RADOS latency probe of pool rbd (probe.rados_probe) through a client that records every answer
the probe got: `osd dump`, `pg ls-by-pool`, the mgr's `dump_osd_network`, each OSD's `perf dump`
(only the osd and bluestore loggers are kept: the rest is large and unused), the TCP handshake times,
and both runs' results (BenchResult.to_dict). The unit tests rebuild the floor, the OSD times and the
words from these. Nothing here is typed by hand.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cephtui.ceph import ops  # noqa: E402
from cephtui.ceph.bench import netfloor, probe  # noqa: E402
from cephtui.ceph.client import CephClient  # noqa: E402
from cephtui.ceph.connection import ConnectionSpec  # noqa: E402

SANDBOX = ["/usr/bin/python3", str(ROOT / "scripts" / "sandbox.py")]


class RecordingHandle:
    def __init__(self, handle: Any, log: dict[str, Any]) -> None:
        self._h, self._log = handle, log

    def mgr_command(self, cmd: str, inbuf: bytes, **kw: Any) -> Any:
        ret, out, outs = self._h.mgr_command(cmd, inbuf, **kw)
        self._log.setdefault("mgr_tell", []).append({"cmd": json.loads(cmd), "ret": ret, "out": out.decode(),
                                                     "outs": outs})
        return ret, out, outs

    def __getattr__(self, name: str) -> Any:
        return getattr(self._h, name)


class RecordingClient:
    """The probe's client, keeping each parsed answer in the order asked."""

    def __init__(self, client: CephClient) -> None:
        self._c = client
        self.log: dict[str, Any] = {}
        self.handle = RecordingHandle(client.handle, self.log)

    def mon(self, prefix: str, **args: Any) -> Any:
        out = self._c.mon(prefix, **args)
        kept = out
        if prefix == "pg ls-by-pool":  # the PG map's placement only: its statistics are large and unused
            kept = {**out, "pg_stats": [{k: pg.get(k) for k in ("pgid", "state", "up", "acting", "up_primary",
                                                                  "acting_primary")} for pg in out["pg_stats"]]}
        self.log.setdefault("mon", []).append({"prefix": prefix, "args": args, "out": kept})
        return out

    def osd_tell(self, osd: int, prefix: str, **args: Any) -> Any:
        out = self._c.osd_tell(osd, prefix, **args)
        kept = {k: v for k, v in out.items() if k in ("osd", "bluestore")}
        self.log.setdefault("perf", []).append({"osd": osd, "out": kept})
        return out

    def __getattr__(self, name: str) -> Any:
        return getattr(self._c, name)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--conf")
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("outdir", nargs="?", default=str(ROOT / "tests" / "fixtures" / "probe"))
    a = ap.parse_args()
    out = Path(a.outdir)
    out.mkdir(parents=True, exist_ok=True)
    own = None
    conf = a.conf
    if not conf:
        own = tempfile.mkdtemp(prefix="ctprobe-", dir="/tmp")
        subprocess.run([*SANDBOX, "start", own, "--pool", "rbd:32"], check=True, capture_output=True)
        conf = f"{own}/ceph.conf"
    try:
        spec = ConnectionSpec(conffile=conf)
        client = CephClient(spec).connect()
        rec = RecordingClient(client)
        reaches: list[Any] = []
        real = netfloor.handshakes

        def recorded(*args: Any, **kw: Any) -> list[Any]:
            got = real(*args, **kw)
            reaches.extend(got)
            return got
        netfloor.handshakes = recorded  # type: ignore[assignment]  # measure_floor looks it up when called
        audit = ops.AuditLog(cluster=client.fsid(), entity=spec.name, path=Path(tempfile.mkdtemp()) / "audit.log")
        p, _ = probe.rados_probe(rec, "rbd", audit, None, seconds=a.seconds)
        result = p.run()
        rec.log["handshakes"] = [{"osd": r.address.osd, "host": r.address.host, "port": r.address.port,
                                  "rtts": list(r.rtts), "error": r.error} for r in reaches]
        rec.log["runs"] = [r.to_dict() for r in result.results]
        rec.log["seconds"] = a.seconds
        (out / "rados_probe.json").write_text(json.dumps(rec.log, indent=1, default=str) + "\n")
        (out / "rados_probe_words.txt").write_text("\n".join(result.words) + "\n")
        print("\n".join(result.words))
        client.close()
    finally:
        if own:
            subprocess.run([*SANDBOX, "stop", own, "--purge"], capture_output=True)


if __name__ == "__main__":
    main()
