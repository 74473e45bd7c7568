"""What the capture scripts share: a sandbox of whatever release is installed here, and the
per-release fixture directory with its meta file. The benchmark scripts take their sandbox from
here too (`conf_or_sandbox`).

The capture scripts are release-agnostic: they run on the host (Pacific) or inside a release
chroot (`scripts/chroot.sh run trixie -- .venv-trixie/bin/python scripts/capture_fixtures.py`),
start a sandbox with that environment's own Ceph, and write to tests/fixtures/<release>/ where
<release> is the codename the cluster itself reports (`ceph version ... reef (stable)`).

Each fixture directory carries RELEASE.json: the release, the exact `ceph version`, and per
capture file the script, the Python, the time, and any distro quirk handled while capturing.
"""
from __future__ import annotations

import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
SANDBOX = ["/usr/bin/python3", str(ROOT / "scripts" / "sandbox.py")]
# CEPHTUI_CAPTURE_CHROOT=SUITE: the sandbox's daemons run in that release chroot while the capture
# script (and its librados) runs here. For a release whose Python cephtui cannot run on (Nautilus on
# bullseye's 3.9): the answers are still the cluster's own; the client's release is noted as a quirk.
CHROOT = os.environ.get("CEPHTUI_CAPTURE_CHROOT", "")
if CHROOT:
    SANDBOX = ["bash", str(ROOT / "scripts" / "chroot.sh"), "run", CHROOT, "--", "python3",
               str(ROOT / "scripts" / "sandbox.py")]


def sandbox(*args: str) -> str:
    return subprocess.run([*SANDBOX, *args], check=True, capture_output=True, text=True).stdout.strip()


@contextmanager
def conf_or_sandbox(conf: str | None, prefix: str, *sandbox_args: str) -> Iterator[str]:
    """The cluster a benchmark script runs against: `conf` when given (--conf), else a new sandbox
    (`sandbox.py start DIR SANDBOX_ARGS`, DIR a new /tmp/PREFIX… directory) stopped and purged after."""
    if conf:
        yield conf
        return
    d = tempfile.mkdtemp(prefix=prefix, dir="/tmp")
    try:
        yield sandbox("start", d, *sandbox_args).splitlines()[-1]
    finally:
        subprocess.run([*SANDBOX, "stop", d, "--purge"], capture_output=True)


def start_sandbox(d: str, *args: str) -> tuple[str, list[str]]:
    """`sandbox.py start D ARGS` with this environment's own Ceph.

    Returns the conf path and the distro quirks the sandbox handled on the way (its `note:` lines,
    e.g. Debian Reef's MGR_MODULE_DEPENDENCY muted); none on the host's Pacific.
    """
    res = subprocess.run([*SANDBOX, "start", d, *args], capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(f"sandbox start failed: {res.stderr.strip()}")
    quirks = [line.split("note:", 1)[1].strip() for line in res.stderr.splitlines() if "sandbox: note:" in line]
    if CHROOT:
        client = subprocess.run(["ceph", "--version"], capture_output=True, text=True).stdout.split()
        quirks.append(f"daemons ran in the {CHROOT} chroot; captured through this host's librados "
                      f"({' '.join(client[2:3])}, Python {platform.python_version()})")
    for q in quirks:
        print(f"capture: sandbox quirk: {q}", file=sys.stderr)
    return res.stdout.strip().splitlines()[-1], quirks


@dataclass(frozen=True)
class Capture:
    """A capture's own sandbox: the connected client, where the files go, the cluster's version, its quirks."""
    client: Any  # CephClient; imported in captured_cluster, once the script has put the checkout on sys.path
    dir: str
    conf: str
    out: Path
    version: str
    quirks: list[str]

    def note(self, files: list[str], script: str) -> None:
        note_capture(self.out, files, Path(script).name, self.version, self.quirks)


@contextmanager
def captured_cluster(prefix: str, argv: list[str], *sandbox_args: str) -> Iterator[Capture]:
    """A new sandbox (`sandbox.py start DIR SANDBOX_ARGS`) for one capture script, stopped and purged after.

    OUTDIR is argv[1] when given, else tests/fixtures/<the cluster's release>/.
    """
    from cephtui.ceph.client import CephClient
    from cephtui.ceph.connection import ConnectionSpec

    d = tempfile.mkdtemp(prefix=prefix, dir="/tmp")
    conf, quirks = start_sandbox(d, *sandbox_args)
    client = CephClient(ConnectionSpec(conffile=conf)).connect()
    try:
        version = client.mon("version")["version"]
        yield Capture(client, d, conf, outdir(argv, version), version, quirks)
    finally:
        client.close()
        sandbox("stop", d, "--purge")


def wait_for(what: str, cond: Callable[[], Any], timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(1)
    raise SystemExit(f"timed out waiting for {what}")


def release_of(version: str) -> str:
    """'ceph version 18.2.7 (...) reef (stable)' -> 'reef'."""
    words = version.replace("(", " ").replace(")", " ").split()
    for i, w in enumerate(words):
        if w in ("stable", "dev", "rc") and i > 0:
            return words[i - 1]
    raise SystemExit(f"cannot tell the release from {version!r}")


def outdir(argv: list[str], version: str) -> Path:
    """OUTDIR from the command line, else tests/fixtures/<the cluster's release>/."""
    out = Path(argv[1]) if len(argv) > 1 else FIXTURES / release_of(version)
    out.mkdir(parents=True, exist_ok=True)
    return out


def note_capture(out: Path, files: list[str], script: str, version: str, quirks: list[str]) -> None:
    """Record in OUT/RELEASE.json which release made FILES, with what and when."""
    meta_path = out / "RELEASE.json"
    meta: dict[str, Any] = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    release = release_of(version)
    if meta.get("release", release) != release:
        raise SystemExit(f"{out} holds {meta['release']} captures; this cluster is {release}")
    meta["release"] = release
    meta["ceph_version"] = version
    captures = meta.setdefault("captures", {})
    for name in files:
        captures[name] = {
            "script": f"scripts/{script}",
            "python": platform.python_version(),
            "captured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "quirks": quirks,
        }
    meta["captures"] = dict(sorted(captures.items()))
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")


def stop_process(pid: int, timeout: float = 10.0) -> None:
    """SIGSTOP `pid`, returning once every thread of it is stopped. kill() only queues the signal: one thread takes
    it and then stops the others, and on a loaded machine the rest run on meanwhile (seen in CI: an MDS answered
    a command sent after kill() had returned, 0.9 ms later, and a test of "an MDS that stops answering" saw it
    answer). Continue it with os.kill(pid, signal.SIGCONT)."""
    os.kill(pid, signal.SIGSTOP)
    deadline = time.monotonic() + timeout
    while True:
        states = []
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:  # "TID (comm) STATE ...": comm may hold spaces and parentheses
                states.append((task / "stat").read_text().rsplit(")", 1)[1].split()[0])
            except (FileNotFoundError, ProcessLookupError):
                continue  # a thread that ended meanwhile
        if states and all(state in "tT" for state in states):
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"process {pid} not stopped {timeout:g} s after SIGSTOP (threads: {states})")
        time.sleep(0.005)
