"""Shared fixtures: one real sandbox cluster per test session.

The cluster starts once (about 15 s), gets a replicated pool with some objects so
that a stopped OSD shows degraded PGs, and stops at the end. Tests that break
something (stop an OSD or the mon) put it back and wait for HEALTH_OK.

Set CEPHTUI_SANDBOX=DIR to reuse (and keep) a sandbox across runs while developing.

Tiers (markers set here from where a test lives and what it uses, so no module has to say it):
`unit` (tests/unit: no cluster, no app) runs first, so a red unit test shows in seconds; then
`cluster` (tests/cluster), then `ui` (tests/ui, most of which also get `cluster`). Pick one with
`pytest -m unit`, `-m "not unit"`, `-m "ui and not cluster"`, ...
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import textual.constants

from scripts.capturelib import stop_process

ROOT = Path(__file__).resolve().parents[1]
SANDBOX_PY = ROOT / "scripts" / "sandbox.py"
FIXTURES = ROOT / "tests" / "fixtures"
__all__ = ["stop_process"]  # the tests stop daemons with it; the capture scripts too


@dataclass
class Sandbox:
    dir: Path
    conf: Path
    _rados: Any = field(default=None, repr=False)
    _sigs: dict[tuple[str, str], Any] = field(default_factory=dict, repr=False)

    def tool(self, *args: str, timeout: float = 180) -> str:
        if args and args[0] == "stop":
            self.close()
        res = subprocess.run(["/usr/bin/python3", str(SANDBOX_PY), *args], capture_output=True, text=True,
                             timeout=timeout)
        if res.returncode != 0:
            raise RuntimeError(f"sandbox {' '.join(args)} failed: {res.stderr.strip()}")
        return res.stdout.strip()

    def kill(self, daemon: str) -> None:
        self.tool("kill", str(self.dir), daemon)

    def revive(self, daemon: str) -> None:
        self.tool("revive", str(self.dir), daemon)

    def heal(self) -> None:
        """Restart whatever is stopped and wait for HEALTH_OK with all PGs active+clean."""
        self.tool("start", str(self.dir))

    def ceph(self, *args: str) -> Any:
        """`ceph ARGS -f json` as an admin would type it, parsed from JSON.

        The words go through the ceph CLI's own machinery (ceph_argparse: the command table the
        cluster publishes, the same validation, the same mon/mgr/osd routing), in this process on one
        librados connection: a `ceph` process costs about 2 s on a loaded 2-core machine, this a few ms.
        """
        try:
            import ceph_argparse as cli
        except ImportError:  # no python3-ceph-argparse: the CLI itself
            return self._ceph_cli(*args)
        words = ["status" if w in ("-s", "--status") else w for w in args]  # the CLI's own -s, as it reads it
        target = cli.find_cmd_target(words)
        if words and words[0] == "tell":
            words = words[2:]
        valid = self._validate(cli, target, words) or self._validate(cli, target, words, fresh=True)
        if not valid:
            raise RuntimeError(f"ceph {' '.join(args)}: invalid command")
        valid["format"] = "json"
        ret, out, outs = cli.json_command(self._handle(), target=target, argdict=valid, timeout=60)
        if ret != 0:
            raise RuntimeError(f"ceph {' '.join(args)}: {outs.strip()} ({ret})")
        return json.loads(out) if out.strip() else None

    def _validate(self, cli: Any, target: tuple[str, str], words: list[str], fresh: bool = False) -> Any:
        """The command's arguments as the CLI would send them, or {} (a mgr module may have added
        commands since the table was read: the caller asks again with a fresh one)."""
        if fresh or target not in self._sigs:
            ret, out, outs = cli.json_command(self._handle(), target=target, prefix="get_command_descriptions",
                                              timeout=60)
            if ret != 0:
                raise RuntimeError(f"get_command_descriptions from {target}: {outs}")
            self._sigs[target] = cli.parse_json_funcsigs(out.decode("utf-8"), "cli")
        # Only the signatures whose fixed words start the command: validating against all ~600 costs 0.2 s.
        sigs = {tag: cmd for tag, cmd in self._sigs[target].items() if _fixed_words(cli, cmd["sig"]) == words[
            :len(_fixed_words(cli, cmd["sig"]))]}
        with open(os.devnull, "w") as quiet, contextlib.redirect_stderr(quiet):
            return cli.validate_command(sigs, words)

    def _handle(self) -> Any:
        if self._rados is None:
            import rados

            r = rados.Rados(conffile=str(self.conf), conf={"log_to_stderr": "false", "err_to_stderr": "false"})
            r.connect(timeout=10)
            self._rados = r
        return self._rados

    def mon_dispatches(self, cmd: dict[str, Any]) -> list[str]:
        """The mon's audit lines (`from=… cmd=… : dispatch`) for exactly `cmd`, oldest first: who sent it
        and when, and how often the mon ran it (a command the mon re-runs is dispatched again)."""
        wanted = json.dumps(cmd)
        log = self.dir / "log" / "mon.a.log"
        if not log.exists():
            return []
        forms = (f"cmd={wanted} : dispatch", f"cmd=[{wanted}]: dispatch")  # Reef on, and before
        return [line.strip() for line in log.read_text(errors="replace").splitlines()
                if "log_channel(audit)" in line and any(f in line for f in forms)]

    def close(self) -> None:
        if self._rados is not None:
            self._rados.shutdown()
            self._rados = None

    def _ceph_cli(self, *args: str) -> Any:
        res = subprocess.run(["ceph", "-c", str(self.conf), "--connect-timeout", "10", *args, "-f", "json"],
                             capture_output=True, text=True, timeout=60)
        if res.returncode != 0:
            raise RuntimeError(f"ceph {' '.join(args)}: {res.stderr.strip()}")
        return json.loads(res.stdout) if res.stdout.strip() else None


def _fixed_words(cli: Any, sig: list[Any]) -> list[str]:
    """The literal words a command signature starts with (`osd pool set` of `osd pool set <pool> ...`)."""
    words = []
    for desc in sig:
        if desc.t is not cli.CephPrefix:
            break
        words.append(desc.instance.prefix)
    return words


TIERS = ("unit", "look", "cluster", "ui")
# A tests/ui module marked `walk` needs no cluster either, but walks long (every form with every hostile value:
# about four minutes of CPU): it runs beside the cluster and UI tiers (`-m "not unit and not look"`), not in the
# fast loop after every change (`-m "unit or look"`); `-m walk` runs it alone.

# Parallel runs (pytest-xdist, `-n N`; scripts/test.sh): each worker process has its own session sandbox,
# and gets whole groups, one test module each by default, so a module's fixtures and the cluster state its
# tests build stay in one process and one cluster. The groups are this file's (pytest_xdist_make_scheduler
# below), from the test's id alone: xdist's own `--dist loadgroup` marks do not work with pytest 9, whose
# node ids no longer come from the attribute xdist rewrites.
# - These share machine-wide things (the release chroots' mounts, dist/cephtui.pyz): one worker runs them all.
SHARED_GROUPS = {"tests/cluster/test_pyz.py": "chroots", "tests/cluster/test_releases_cli.py": "chroots"}
# - These modules' tests are independent of each other (each starts its own app on a cluster it leaves as it
#   found it) and long, so each test is a group of its own.
PER_TEST_GROUPS = {"tests/ui/test_hostile_forms.py", "tests/ui/test_faults_drain.py", "tests/ui/test_faults_bench.py",
                   "tests/ui/test_doctor.py", "tests/ui/test_faults_kills.py",
                   # The look tier's modules: no cluster, an app of their own per test. As whole modules, the 65
                   # dialog snapshots kept one worker busy for 100 s after the other three had finished.
                   "tests/ui/test_releases.py", "tests/ui/test_navigation.py", "tests/ui/test_bench_look.py",
                   "tests/ui/test_keybursts_look.py"}
PER_TEST_DIRS = ("tests/look/",)
# - The longest groups go first, so that the workers finish together: a hint from a `--durations` run on the
#   2-core CI machine. A stale entry costs time, never a result.
LONG_FIRST = ("tests/ui/test_faults_kills.py", "tests/ui/test_removal.py", "tests/cluster/test_failslow.py",
              "tests/ui/test_faults_drain.py",
              "tests/ui/test_doctor.py", "tests/ui/test_faults_mgrdown.py", "tests/cluster/test_removal_drain.py",
              "tests/ui/test_hostile_forms.py", "tests/ui/test_faults_bench.py", "tests/ui/test_bench.py",
              "tests/ui/test_faults_full.py", "tests/cluster/test_bench.py",
              "tests/ui/test_pools.py", "tests/ui/test_faults_crush.py", "tests/ui/test_users.py",
              "tests/cluster/test_removecli.py",
              # The no-cluster tiers' longest (a tab walk is 11 screens in one app, about 13 s)
              "tests/look/test_tab_snapshots.py", "tests/ui/test_releases.py", "tests/look/test_dialog_snapshots.py",
              "tests/ui/test_navigation.py")


def xdist_group(nodeid: str) -> str:
    """The group a test goes to a worker with (ids are relative to the repo: `tests/ui/x.py::test_y[p]`)."""
    module = nodeid.split("::", 1)[0]
    if module in SHARED_GROUPS:
        return SHARED_GROUPS[module]
    return nodeid if module in PER_TEST_GROUPS or module.startswith(PER_TEST_DIRS) else module


try:
    from xdist.scheduler import LoadScopeScheduling
except ImportError:  # no pytest-xdist: the suite runs in one process, as it always could
    LoadScopeScheduling = None

if LoadScopeScheduling is not None:
    class GroupScheduling(LoadScopeScheduling):  # type: ignore[misc,valid-type]
        """xdist's scope scheduler with our groups, in collection order (longest first), not reordered."""

        def _split_scope(self, nodeid: str) -> str:
            return xdist_group(nodeid)

    def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
        config.option.loadscopereorder = False  # keep LONG_FIRST's order, not "most tests first"
        return GroupScheduling(config, log)


KEPT_LOGS = Path(os.environ.get("CEPHTUI_KEPT_LOGS", "/tmp/cephtui-kept-logs"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A test that fails on a cluster keeps that cluster's daemon logs (the mon's audit channel says who sent
    what, and when), because the sandbox is purged at the end of the session. The failure report says where."""
    outcome = yield
    report = outcome.get_result()
    if not report.failed or call.when == "teardown":
        return
    boxes = {id(v): v for v in getattr(item, "funcargs", {}).values() if isinstance(v, Sandbox)}
    for box in boxes.values():
        logs = box.dir / "log"
        if not logs.is_dir():
            continue
        dest = KEPT_LOGS / f"{time.strftime('%Y%m%d-%H%M%S')}-{item.name[:60]}-{box.dir.name}"
        try:
            shutil.copytree(logs, dest, ignore=shutil.ignore_patterns("*.asok"))
        except OSError as e:
            report.sections.append(("sandbox logs", f"could not keep {logs}: {e}"))
        else:
            report.sections.append(("sandbox logs", f"{box.dir}'s daemon logs kept in {dest}"))


@pytest.hookimpl(tryfirst=True)  # before -m deselects: the markers below must already be there
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with its tier and run the tiers in order: unit, cluster, ui (in a parallel run the
    longest modules first instead)."""
    rank: dict[str, int] = {}
    parallel = bool(getattr(config.option, "numprocesses", None)) or "PYTEST_XDIST_WORKER" in os.environ
    for item in items:
        parts = Path(str(item.fspath)).resolve().parts
        tier = parts[-2] if len(parts) > 2 and parts[-3] == "tests" and parts[-2] in TIERS else "cluster"
        item.add_marker(tier)
        if tier == "ui":
            # A UI test on the replay app (`look_app`) or marked `look` (a bare app, a replay of its own) needs
            # no cluster: it runs with the look tier, in the fast loop after every change. Any other is in the
            # cluster tier as well, the session sandbox's or a cluster of its own (own_sandbox).
            walk = item.get_closest_marker("walk") is not None
            no_cluster = "sandbox" not in item.fixturenames and (
                walk or "look_app" in item.fixturenames or item.get_closest_marker("look") is not None)
            item.add_marker(("walk" if walk else "look") if no_cluster else "cluster")
        module = item.nodeid.split("::", 1)[0]
        first = LONG_FIRST.index(module) if module in LONG_FIRST else len(LONG_FIRST)
        rank[item.nodeid] = first if parallel else TIERS.index(tier)
    items.sort(key=lambda it: rank[it.nodeid])  # stable: within a rank, pytest's own order


@pytest.fixture(scope="session", autouse=True)
def audit_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Actions run by tests are audited to a temporary file, not the developer's own log."""
    path = tmp_path_factory.mktemp("audit") / "audit.log"
    os.environ["CEPHTUI_AUDIT_LOG"] = str(path)
    # Workflow and maintenance state, too: never the developer's own, never shared between runs.
    os.environ["CEPHTUI_STATE_DIR"] = str(tmp_path_factory.mktemp("state"))
    os.environ["CEPHTUI_DATA_DIR"] = str(tmp_path_factory.mktemp("data"))  # bench history
    # Nor the developer's config file and themes (~/.config/cephtui): tests start from the defaults.
    os.environ["XDG_CONFIG_HOME"] = str(tmp_path_factory.mktemp("config"))
    os.environ.pop("CEPHTUI_CONFIG", None)
    return path


@contextlib.contextmanager
def own_sandbox(prefix: str, *start_args: str) -> Iterator[Sandbox]:
    """A sandbox of a test module's own (`sandbox.py start DIR ARGS`: --osds 4, --mons 3 ...), stopped and
    purged after; for tests that break or reshape their cluster."""
    if shutil.which("ceph-mon") is None:
        pytest.fail("Ceph is not installed: run scripts/setup.sh (the README's test command does)")
    d = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    box = Sandbox(d, d / "ceph.conf")
    try:
        box.tool("start", str(d), *start_args)
        yield box
    finally:
        box.tool("stop", str(d), "--purge")


@pytest.fixture(scope="session")
def sandbox() -> Iterator[Sandbox]:
    if shutil.which("ceph-mon") is None:
        pytest.fail("Ceph is not installed: run scripts/setup.sh (the README's test command does)")
    reuse = os.environ.get("CEPHTUI_SANDBOX")
    worker = os.environ.get("PYTEST_XDIST_WORKER")  # a parallel run: one sandbox per worker process
    if reuse and worker:
        reuse = f"{reuse}-{worker}"
    d = Path(reuse) if reuse else Path(tempfile.mkdtemp(prefix="ctt-", dir="/tmp"))
    box = Sandbox(d, d / "ceph.conf")
    box.tool("start", str(d), "--pool", "rbd:32")
    _fill(box)
    try:
        yield box
    finally:
        if not reuse:
            box.tool("stop", str(d), "--purge")


def _fill(box: Sandbox) -> None:
    """Objects in the pool, so a missing OSD leaves degraded objects, not just undersized PGs."""
    import rados

    r = rados.Rados(conffile=str(box.conf), conf={"log_to_stderr": "false", "err_to_stderr": "false"})
    r.connect(timeout=10)
    try:
        with r.open_ioctx("rbd") as io:
            for i in range(100):
                io.write_full(f"cephtui-test-{i}", bytes(16 * 1024))
    finally:
        r.shutdown()


@pytest.fixture
def ioctx(sandbox: Sandbox) -> Iterator[Any]:
    """An ioctx on the sandbox's rbd pool, through a librados handle of the test's own."""
    import rados

    r = rados.Rados(conffile=str(sandbox.conf), conf={"log_to_stderr": "false", "err_to_stderr": "false"})
    r.connect(timeout=10)
    io = r.open_ioctx("rbd")
    try:
        yield io
    finally:
        io.close()
        r.shutdown()


@pytest.fixture
def client(sandbox: Sandbox):
    from cephtui.ceph.client import CephClient
    from cephtui.ceph.connection import ConnectionSpec

    c = CephClient(ConnectionSpec(conffile=str(sandbox.conf))).connect()
    yield c
    c.close()


# What a wait condition may raise while the state it waits for is still forming: a key or list entry not
# there yet (`mgr dump` says available before `active_addrs` holds its v2 address), an unpacking of an
# empty list. "Not yet", never an error: the timeout names the last one. An AssertionError still fails at
# once (conditions assert what must never happen while waiting).
TRANSIENT = (LookupError, ValueError)


def wait_until(cond: Callable[[], Any], timeout: float, what: str, interval: float = 0.2) -> Any:
    """Until cond() returns something true (returned); fails naming `what` after `timeout` seconds.
    The interval is short because a look is cheap (Sandbox.ceph takes milliseconds)."""
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while True:
        try:
            value = cond()
        except TRANSIENT as e:
            value, last = None, e
        if value:
            return value
        if time.monotonic() > deadline:
            why = f" (the last look raised {type(last).__name__}: {last})" if last is not None else ""
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}{why}")
        time.sleep(interval)


@pytest.fixture(autouse=True)
def _no_animations_in_the_fast_tiers(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The apps of the no-cluster tiers (unit, look, walk) run without Textual's animations (the tabs' sliding
    underline, smooth scrolls): Pilot waits after each key until every animation has ended, about a quarter of a
    second a tab switch, and what is drawn when they end is the same (the screen snapshots are unchanged).
    App.__init__ reads this constant. The cluster and UI tiers keep them, as an admin's terminal does: there
    Pilot's waits are what their tests have always been timed against."""
    if any(request.node.get_closest_marker(m) for m in ("unit", "look", "walk")):
        monkeypatch.setattr(textual.constants, "TEXTUAL_ANIMATIONS", "none")
