#!/usr/bin/env python3
"""Ask a real monitor for its verdict on every case of the caps corpus.

    .venv/bin/python scripts/capture_caps_verdicts.py [--conf CONF] [OUTDIR]
    scripts/chroot.sh run trixie -- .venv-trixie/bin/python scripts/capture_caps_verdicts.py

The corpus (tests/fixtures/caps/corpus.json) is a list of [service, caps text]. Each case is sent
as `auth caps client.probe SERVICE TEXT`; the verdict is None when the mon accepted it, else the
mon's own refusal text. Writes OUTDIR/caps_verdicts.json, OUTDIR defaulting to
tests/fixtures/<release>/ (the release the monitor reports), and notes it in RELEASE.json.

With --conf it asks an existing cluster (only the mon is needed); without, it starts its own
sandbox and stops it after. Nothing here is typed by hand: the verdicts are the monitor's.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from capturelib import note_capture, outdir, sandbox, start_sandbox  # noqa: E402

from cephtui.ceph.client import CephClient  # noqa: E402
from cephtui.ceph.connection import ConnectionSpec  # noqa: E402
from cephtui.ceph.errors import CephError  # noqa: E402

CORPUS = ROOT / "tests" / "fixtures" / "caps" / "corpus.json"
PROBE = "client.probe"


def verdicts(client: CephClient, corpus: list[list[str]]) -> list[list[Any]]:
    try:
        client.mon_raw("auth get-or-create", entity=PROBE)
    except CephError as e:
        raise SystemExit(f"cannot make {PROBE}: {e}") from e
    out: list[list[Any]] = []
    for service, text in corpus:
        said: str | None = None
        try:
            client.mon_raw("auth caps", entity=PROBE, caps=[service, text])
        except CephError as e:
            said = e.message
        out.append([service, text, said])
    client.mon_raw("auth del", entity=PROBE)
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--conf", help="ask this cluster's monitor instead of starting a sandbox")
    p.add_argument("outdir", nargs="?")
    args = p.parse_args()
    corpus = json.loads(CORPUS.read_text())
    d = None
    quirks: list[str] = []
    conf = args.conf
    if conf is None:
        d = tempfile.mkdtemp(prefix="ctcaps-", dir="/tmp")
        conf, quirks = start_sandbox(d)
    try:
        client = CephClient(ConnectionSpec(conffile=conf)).connect()
        try:
            version = client.mon("version")["version"]
            out = outdir([sys.argv[0]] + ([args.outdir] if args.outdir else []), version)
            result = verdicts(client, corpus)
        finally:
            client.close()
    finally:
        if d is not None:
            sandbox("stop", d, "--purge")
    refused = sum(1 for v in result if v[2] is not None)
    body = ",\n".join(json.dumps(v) for v in result)
    (out / "caps_verdicts.json").write_text(
        json.dumps({"ceph_version": version, "captured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                    "how": f"auth caps {PROBE} SERVICE TEXT; null = accepted, else the mon's refusal"})[:-1]
        + ', "verdicts": [\n' + body + "\n]}\n")
    note_capture(out, ["caps_verdicts.json"], Path(__file__).name, version, quirks)
    print(f"wrote {out / 'caps_verdicts.json'}: {len(result)} cases, {refused} refused", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
