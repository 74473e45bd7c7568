#!/usr/bin/python3
"""Throwaway single-host Ceph cluster for demos and tests.

    sandbox.py start DIR [--osds N] [--mons N] [--port P] [--pool NAME[:PGS]]... [--fs NAME]
                         [--release pacific|reef|tentacle]
    sandbox.py stop DIR [--purge]
    sandbox.py status DIR
    sandbox.py kill DIR DAEMON [--hard]      # DAEMON: mon.a, mgr.x, osd.2
    sandbox.py revive DIR DAEMON
    sandbox.py crash DIR DAEMON              # SIGABRT it, post its crash report as ceph-crash does

One mon (or --mons N: a, b, c ... on ports of their own), one mgr and N bluestore OSDs on sparse
files, cephx on, loopback only. --fs NAME adds a CephFS file system (pools NAME_metadata and NAME_data)
served by two MDS daemons, mds.a active and mds.b standby.
Everything lives under DIR (config, keyrings, data, logs, sockets, pid files), so
several sandboxes on different ports run side by side and `stop` ends exactly
the daemons this tool started, by pid. Runs with Debian's /usr/bin/python3,
which carries the rados bindings; needs no cephtui code.

--release runs the daemons of another Ceph release: this host's own packages when they are that
release, else inside a cached Debian chroot (scripts/chroot.sh; built on first use): pacific =
bookworm, reef = trixie, tentacle = forky. The release and chroot are recorded in DIR/release.json,
so stop, status, kill, revive, ... re-execute themselves inside the same chroot. DIR should be under
/tmp, which the chroot shares, so the host sees the same files; the conf and keyring are then those of
a client of that release (`scripts/chroot.sh run SUITE -- ceph -c DIR/ceph.conf ...`).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import rados

ROOT = Path(__file__).resolve().parents[1]
CHROOT_SH = ROOT / "scripts" / "chroot.sh"
# Debian suite whose own archive carries each release (scripts/chroot.sh builds it).
RELEASE_SUITES = {"pacific": "bookworm", "reef": "trixie", "tentacle": "forky"}
MON_ID = "a"
MGR_ID = "x"
HEALTH_TIMEOUT = 120.0

CONF_TEMPLATE = """\
[global]
fsid = {fsid}
mon host = {mon_host}
mon initial members = {mon_ids}
public addr = 127.0.0.1
public network = 127.0.0.0/8
ms bind msgr1 = false
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
run dir = {dir}/run
log file = {dir}/log/$name.log
pid file = {dir}/run/$name.pid
crash dir = {dir}/crash
exporter sock dir = {dir}/run
osd crush chooseleaf type = 0
osd pool default size = 3
osd pool default min size = 2
osd pool default pg autoscale mode = off
mon allow pool delete = true
mon data avail warn = 2
mon data avail crit = 1
mon warn on pool no app = true
osd heartbeat interval = 3
osd heartbeat grace = 10
mon osd down out interval = 600

[client]
keyring = {dir}/ceph.client.admin.keyring

[mon]
admin socket = {dir}/run/$name.asok
mon data = {dir}/mon/ceph-$id
keyring = {dir}/mon/ceph-$id/keyring

[mgr]
admin socket = {dir}/run/$name.asok
mgr data = {dir}/mgr/ceph-$id
keyring = {dir}/mgr/ceph-$id/keyring

[mds]
admin socket = {dir}/run/$name.asok
mds data = {dir}/mds/ceph-$id
keyring = {dir}/mds/ceph-$id/keyring

[osd]
admin socket = {dir}/run/$name.asok
osd data = {dir}/osd/ceph-$id
keyring = {dir}/osd/ceph-$id/keyring
osd objectstore = bluestore
bluestore block create = true
bluestore block size = 10737418240
bluestore block db create = false
bluestore block wal create = false
bluestore fsck on mount = false
osd memory target = 1073741824
bluestore cache autotune = false
bluestore cache size = 134217728
# Loopback and sparse files: no reason to throttle recovery like a spinning disk.
osd recovery sleep hdd = 0
osd recovery max active hdd = 10
# Absolute, always: Debian's Reef and Tentacle builds default to a relative `lib/<triplet>/rados-classes`,
# which the OSD resolves against its cwd (DIR here), so no object class loads and cls_lock fails with
# EOPNOTSUPP; the mgr's devicehealth (libcephsqlite) then fails with "disk I/O error".
osd class dir = {class_dir}
"""



def _gone_is_fine(func, path, exc_info) -> None:  # type: ignore[no-untyped-def]
    """rmtree's error hook: a file removed meanwhile (a second stop racing this one) is not an error."""
    if not isinstance(exc_info[1], FileNotFoundError):
        raise exc_info[1]

class SandboxError(Exception):
    pass


# ---------------------------------------------------------------- helpers

def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def note(msg: str) -> None:
    """A distro quirk handled on purpose, said on stderr."""
    print(f"sandbox: note: {msg}", file=sys.stderr)


def osd_class_dir() -> str:
    """Where this host's ceph-osd finds its object classes (libcls_*.so), as an absolute path.

    Debian builds Reef and later with a relative default (`lib/x86_64-linux-gnu/rados-classes`, from
    CMAKE_INSTALL_LIBDIR), which the OSD resolves against its working directory. Under the install
    prefix it names the real directory; said when it is corrected.
    """
    value = run(["ceph-osd", "-c", "/dev/null", "--show-config-value", "osd_class_dir"]).strip()
    if os.path.isabs(value):
        return value
    fixed = os.path.join("/usr", value)
    if not os.path.isdir(fixed):
        raise SandboxError(f"ceph-osd's default osd_class_dir {value!r} is relative and {fixed} does not exist")
    note(f"ceph-osd's default osd_class_dir is relative ({value!r}, resolved against the OSD's cwd, so no "
         f"object class would load and cls_lock-based locks fail with EOPNOTSUPP); set to {fixed}")
    return fixed


def run(cmd: list[str], **kw) -> str:
    res = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if res.returncode != 0:
        raise SandboxError(f"{' '.join(cmd)} failed ({res.returncode}): {res.stderr.strip() or res.stdout.strip()}")
    return res.stdout


def local_release() -> str:
    """The release name of this environment's ceph-osd.

    `ceph version 18.2.7 (SHA) reef (stable)`, `... (SHA) tentacle (stable - RelWithDebInfo)`.
    """
    m = re.search(r"\) ([a-z]+) \(", run(["ceph-osd", "--version"]))
    return m.group(1) if m else "unknown"


def local_suite() -> str:
    """Where this process runs: the chroot's suite (scripts/chroot.sh sets it) or "host"."""
    return os.environ.get("CEPHTUI_RELEASE_SUITE") or "host"


def reexec_in(suite: str, argv: list[str]) -> int:
    """Run this tool with the same arguments inside SUITE's chroot; its exit status is ours."""
    cmd = ["bash", str(CHROOT_SH), "run", suite, "--", "python3", str(Path(__file__).resolve()), *argv]
    return subprocess.run(cmd).returncode


class Sandbox:
    def __init__(self, root: str | Path) -> None:
        self.dir = Path(root).resolve()
        self.conf = self.dir / "ceph.conf"
        self.pids = self.dir / "pids"
        self.release_file = self.dir / "release.json"

    def recorded(self) -> dict | None:
        """{"release": ..., "suite": ...} this sandbox was made with, or None (none, or made before --release)."""
        try:
            return json.loads(self.release_file.read_text())
        except (OSError, ValueError):
            return None

    # ----- daemons bookkeeping: one JSON per daemon with its argv and pid
    def _record(self, name: str) -> Path:
        return self.pids / f"{name}.json"

    def daemon_names(self) -> list[str]:
        if not self.pids.is_dir():
            return []
        return sorted(p.stem for p in self.pids.glob("*.json"))

    def _load(self, name: str) -> dict:
        path = self._record(name)
        if not path.exists():
            have = ", ".join(self.daemon_names()) or "none"
            raise SandboxError(f"unknown daemon {name!r} in {self.dir} (have: {have})")
        return json.loads(path.read_text())

    def pid_of(self, name: str) -> int | None:
        """The daemon's pid if that process is alive and really is ours."""
        rec = self._load(name)
        pid = rec.get("pid")
        if not pid:
            return None
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            return None
        # Guard against pid reuse: the process must carry our own conf path.
        if str(self.conf).encode() not in cmdline:
            return None
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            if stat.rsplit(")", 1)[1].split()[0] == "Z":
                # The leader thread is a zombie, but its other threads may still be exiting (a ceph-osd's aio
                # and kv threads finishing a write): until the last one is gone, its files, and so the
                # store's lock, are still held, and ceph-objectstore-tool finds the store locked.
                return pid if len(os.listdir(f"/proc/{pid}/task")) > 1 else None
        except OSError:
            return None
        return pid

    def spawn(self, name: str, argv: list[str]) -> int:
        out = open(self.dir / "log" / f"{name}.out", "ab")
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                start_new_session=True, cwd=self.dir)
        out.close()
        self._record(name).write_text(json.dumps({"argv": argv, "pid": proc.pid}))
        return proc.pid

    def daemon_argv(self, name: str) -> list[str]:
        kind, ident = name.split(".", 1)
        return [f"/usr/bin/ceph-{kind}", "-f", "-c", str(self.conf), "-i", ident]

    def stop_daemon(self, name: str, sig: int = signal.SIGTERM, wait: float = 20.0) -> bool:
        pid = self.pid_of(name)
        if pid is None:
            return False
        os.kill(pid, sig)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if self.pid_of(name) is None:
                return True
            time.sleep(0.1)
        os.kill(pid, signal.SIGKILL)
        while self.pid_of(name) is not None:
            time.sleep(0.05)
        return True

    def crash(self, name: str, timeout: float = 30.0) -> str:
        """A real crash report, as in life: SIGABRT the daemon (its signal handler writes DIR/crash/ID/meta,
        then `done`), then post the report as ceph-crash does (`crash post -i meta`, the dump moved to
        crash/posted/). Returns the crash id. The daemon stays down (start or revive brings it back)."""
        crash_dir = self.dir / "crash"
        before = set(os.listdir(crash_dir))
        pid = self.pid_of(name)
        if pid is None:
            raise SandboxError(f"{name} is not running")
        os.kill(pid, signal.SIGABRT)
        deadline = time.monotonic() + timeout
        while True:
            dumps = [crash_dir / d for d in os.listdir(crash_dir)
                     if d not in before and (crash_dir / d / "done").exists()]
            if dumps:
                break
            if time.monotonic() > deadline:
                raise SandboxError(f"{name} wrote no crash dump to {crash_dir} within {timeout:.0f}s")
            time.sleep(0.1)
        meta = (dumps[0] / "meta").read_bytes()
        r = self.connect()
        try:
            ret, _, errs = r.mgr_command(json.dumps({"prefix": "crash post"}), meta)
        finally:
            r.shutdown()
        if ret != 0:  # Debian's Reef mgr runs no Python modules: no crash module to post to
            raise SandboxError(f"crash post: {errs or os.strerror(-ret)}")
        (crash_dir / "posted").mkdir(exist_ok=True)
        dumps[0].rename(crash_dir / "posted" / dumps[0].name)
        return str(json.loads(meta)["crash_id"])

    # ----- cluster access through librados (much faster than the ceph CLI)
    def connect(self, timeout: int = 10) -> rados.Rados:
        r = rados.Rados(conffile=str(self.conf), rados_id="admin",
                        conf={"rados_mon_op_timeout": "15", "log_to_stderr": "false",
                              "err_to_stderr": "false", "log_file": ""})
        r.connect(timeout=timeout)
        return r

    @staticmethod
    def mon(r: rados.Rados, inbuf: bytes = b"", **cmd) -> bytes:
        cmd.setdefault("format", "json")
        ret, out, errs = r.mon_command(json.dumps(cmd), inbuf)
        if ret != 0:
            raise SandboxError(f"{cmd['prefix']}: {errs or os.strerror(-ret)}")
        return out

    # ----- lifecycle
    def start(self, osds: int, port: int | None, pools: list[str], mons: int = 1, fs: str | None = None) -> None:
        if self.conf.exists():  # an existing sandbox: restart whatever is stopped
            self._start_missing()
            self.wait_healthy()
            return
        if len(str(self.dir / "run" / "osd.99.asok")) > 100:
            raise SandboxError(f"{self.dir} is too long for unix socket paths; use a shorter DIR")
        port = port or free_port()
        if not 1 <= mons <= 5:
            raise SandboxError("--mons takes 1 to 5")
        # mon.a on `port`, the others (b, c ...) on free ports of their own, all in the initial quorum.
        mon_ids = [chr(ord(MON_ID) + i) for i in range(mons)]
        ports = [port] + [free_port() for _ in mon_ids[1:]]
        addrs = [f"[v2:127.0.0.1:{p}]" for p in ports]
        for sub in ("run", "log", "pids", "crash", "mon", "mgr", "osd"):
            (self.dir / sub).mkdir(parents=True, exist_ok=True)
        fsid = str(uuid.uuid4())
        self.release_file.write_text(json.dumps({"release": local_release(), "suite": local_suite()}) + "\n")
        self.conf.write_text(CONF_TEMPLATE.format(fsid=fsid, mon_host=",".join(addrs), mon_ids=",".join(mon_ids),
                                                  dir=self.dir, class_dir=osd_class_dir()))
        c = ["-c", str(self.conf)]

        t0 = time.monotonic()
        # mon: keyrings, monmap, mkfs
        admin_kr = self.dir / "ceph.client.admin.keyring"
        mon_kr = self.dir / "mon.keyring"
        run(["ceph-authtool", "--create-keyring", str(mon_kr), "--gen-key", "-n", "mon.", "--cap", "mon", "allow *"])
        run(["ceph-authtool", "--create-keyring", str(admin_kr), "--gen-key", "-n", "client.admin",
             "--cap", "mon", "allow *", "--cap", "osd", "allow *", "--cap", "mds", "allow *",
             "--cap", "mgr", "allow *"])
        os.chmod(admin_kr, 0o600)
        run(["ceph-authtool", str(mon_kr), "--import-keyring", str(admin_kr)])
        monmap = self.dir / "monmap"
        run(["monmaptool", "--create", "--clobber", "--fsid", fsid,
             *[w for ident, addr in zip(mon_ids, addrs) for w in ("--addv", ident, addr)], str(monmap)])
        for ident in mon_ids:
            run(["ceph-mon", *c, "--mkfs", "-i", ident, "--monmap", str(monmap), "--keyring", str(mon_kr)])
            self.spawn(f"mon.{ident}", self.daemon_argv(f"mon.{ident}"))

        r = self._connect_retry()
        try:
            # In the mon's config database, as cephadm and a hand-upgraded cluster carry it, not in ceph.conf:
            # a file value outranks `ceph config set`, so the Doctor's fix could not take effect.
            self.mon(r, prefix="config set", who="mon", name="auth_allow_insecure_global_id_reclaim", value="false")
            # mgr
            mgr_dir = self.dir / "mgr" / f"ceph-{MGR_ID}"
            mgr_dir.mkdir(parents=True, exist_ok=True)
            kr = self.mon(r, prefix="auth get-or-create", entity=f"mgr.{MGR_ID}",
                          caps=["mon", "allow profile mgr", "osd", "allow *", "mds", "allow *"], format="plain")
            (mgr_dir / "keyring").write_bytes(kr)
            self.spawn(f"mgr.{MGR_ID}", self.daemon_argv(f"mgr.{MGR_ID}"))

            # OSDs: register all, mkfs in parallel, start
            mkfs: list[tuple[int, subprocess.Popen]] = []
            for _ in range(osds):
                osd_uuid = str(uuid.uuid4())
                key = run(["ceph-authtool", "--gen-print-key"]).strip()
                out = self.mon(r, inbuf=json.dumps({"cephx_secret": key}).encode(), prefix="osd new", uuid=osd_uuid)
                osd_id = int(json.loads(out)["osdid"])
                odir = self.dir / "osd" / f"ceph-{osd_id}"
                odir.mkdir(parents=True, exist_ok=True)
                (odir / "keyring").write_text(f"[osd.{osd_id}]\n\tkey = {key}\n")
                log = open(self.dir / "log" / f"osd.{osd_id}.mkfs.out", "wb")
                mkfs.append((osd_id, subprocess.Popen(
                    ["ceph-osd", *c, "-i", str(osd_id), "--mkfs", "--osd-uuid", osd_uuid, "--no-mon-config"],
                    stdout=log, stderr=log)))
                log.close()
            for osd_id, proc in mkfs:
                if proc.wait() != 0:
                    raise SandboxError(f"ceph-osd --mkfs for osd.{osd_id} failed; "
                                       f"see {self.dir}/log/osd.{osd_id}.mkfs.out")
                self.spawn(f"osd.{osd_id}", self.daemon_argv(f"osd.{osd_id}"))

            for spec in pools:
                name, _, pgs = spec.partition(":")
                self.mon(r, prefix="osd pool create", pool=name, pg_num=int(pgs or 32))
                self.mon(r, prefix="osd pool application enable", pool=name, app="rbd")
            if fs:
                self._add_fs(r, fs)
        finally:
            r.shutdown()
        self.wait_healthy()
        print(f"sandbox up in {time.monotonic() - t0:.1f}s", file=sys.stderr)

    def _add_fs(self, r: rados.Rados, name: str) -> None:
        """A file system with its two pools (`fs new` tags them cephfs) and two MDS daemons: one takes rank 0,
        the other stands by (one alone raises MDS_INSUFFICIENT_STANDBY, as standby_count_wanted is 1)."""
        meta, data = f"{name}_metadata", f"{name}_data"
        self.mon(r, prefix="osd pool create", pool=meta, pg_num=8)
        self.mon(r, prefix="osd pool create", pool=data, pg_num=16)
        self.mon(r, prefix="fs new", fs_name=name, metadata=meta, data=data)
        for ident in ("a", "b"):
            mds_dir = self.dir / "mds" / f"ceph-{ident}"
            mds_dir.mkdir(parents=True, exist_ok=True)
            kr = self.mon(r, prefix="auth get-or-create", entity=f"mds.{ident}", format="plain",
                          caps=["mon", "allow profile mds", "osd", "allow rwx", "mds", "allow", "mgr",
                                "allow profile mds"])
            (mds_dir / "keyring").write_bytes(kr)
            self.spawn(f"mds.{ident}", self.daemon_argv(f"mds.{ident}"))

    def recreate_osd(self, osd_id: int) -> None:
        """A replacement disk for a destroyed OSD: new uuid and key, same id and CRUSH position, fresh mkfs.

        What `ceph-volume lvm create --osd-id ID --data DEV` does on a real host: `osd new UUID ID`
        reuses the destroyed id, then the new store is made and the daemon started.
        """
        name = f"osd.{osd_id}"
        self.stop_daemon(name, signal.SIGKILL, wait=10)
        odir = self.dir / "osd" / f"ceph-{osd_id}"
        shutil.rmtree(odir, onerror=_gone_is_fine)
        odir.mkdir(parents=True)
        r = self._connect_retry()
        try:
            osd_uuid = str(uuid.uuid4())
            key = run(["ceph-authtool", "--gen-print-key"]).strip()
            self.mon(r, inbuf=json.dumps({"cephx_secret": key}).encode(), prefix="osd new", uuid=osd_uuid,
                     id=osd_id)
        finally:
            r.shutdown()
        (odir / "keyring").write_text(f"[osd.{osd_id}]\n\tkey = {key}\n")
        c = ["-c", str(self.conf)]
        with open(self.dir / "log" / f"osd.{osd_id}.mkfs.out", "wb") as log:
            if subprocess.run(["ceph-osd", *c, "-i", str(osd_id), "--mkfs", "--osd-uuid", osd_uuid,
                               "--no-mon-config"], stdout=log, stderr=log).returncode != 0:
                raise SandboxError(f"ceph-osd --mkfs for osd.{osd_id} failed; see {self.dir}/log/osd.{osd_id}.mkfs.out")
        self.spawn(name, self.daemon_argv(name))

    def forget(self, name: str) -> None:
        """A purged daemon: stop it if still running and drop its record, so start/heal does not revive it."""
        self.stop_daemon(name, signal.SIGKILL, wait=10)
        self._record(name).unlink(missing_ok=True)
        if name.startswith("osd."):
            shutil.rmtree(self.dir / "osd" / f"ceph-{name[4:]}", onerror=_gone_is_fine)

    def _start_missing(self) -> None:
        for name in self.daemon_names():
            if self.pid_of(name) is None:
                self.spawn(name, self._load(name)["argv"])

    def _connect_retry(self, timeout: float = 30.0) -> rados.Rados:
        deadline = time.monotonic() + timeout
        while True:
            try:
                return self.connect(timeout=5)
            except rados.Error as e:
                if time.monotonic() > deadline:
                    raise SandboxError(f"mon did not answer within {timeout:.0f}s; "
                                       f"see {self.dir}/log/mon.{MON_ID}.log") from e
                time.sleep(0.3)

    def wait_healthy(self, timeout: float = HEALTH_TIMEOUT) -> None:
        r = self._connect_retry()
        try:
            deadline = time.monotonic() + timeout
            last = ""
            while time.monotonic() < deadline:
                try:
                    st = json.loads(self.mon(r, prefix="status"))
                except SandboxError as e:
                    last = str(e)
                    time.sleep(0.5)
                    continue
                mgr_wait = self._mgr_modules_settled(r)
                if mgr_wait:
                    last = mgr_wait
                    time.sleep(0.5)
                    continue
                health = st["health"]["status"]
                osdmap = st["osdmap"].get("osdmap", st["osdmap"])
                # The mgr's pgmap lags the osdmap: compare against the pools' own pg_num.
                expected = sum(p["pg_num"] for p in json.loads(self.mon(r, prefix="osd dump"))["pools"])
                pgs = st["pgmap"].get("pgs_by_state", [])
                clean = sum(s["count"] for s in pgs if s["state_name"] == "active+clean") == expected
                total = osdmap["num_osds"]
                if health == "HEALTH_OK" and osdmap["num_up_osds"] == total and clean \
                        and st.get("mgrmap", {}).get("available", True):
                    # The pgmap may predate the last osdmap change (a pool's size set a moment ago):
                    # healthy only if it still holds with stats sent after that change, on that epoch.
                    # (`pg stat` from the mgr itself: the mon's copy of the pgmap comes every few seconds)
                    # (epochs only grow: the same epoch after both checks means no change in between)
                    if flush_pg_stats(r) and self._mgr_pgs_clean(r) == expected \
                            and self._osdmap_epoch(r) == osdmap["epoch"]:
                        return
                    last = f"PG stats older than osdmap epoch {osdmap['epoch']}, or it moved on"
                    time.sleep(0.2)
                    continue
                states = ", ".join(f"{s['count']} {s['state_name']}" for s in pgs) or "none reported"
                mgr = "up" if st.get("mgrmap", {}).get("available", True) else "down"
                last = (f"{health} {', '.join(st['health'].get('checks', {}))}; osds up {osdmap['num_up_osds']}/"
                        f"{total}; PGs {states} (of {expected}); mgr {mgr}")
                time.sleep(0.5)
            # healthy = HEALTH_OK, every OSD up, every PG active+clean and a mgr: `last` says which one failed
            raise SandboxError(f"cluster not healthy (HEALTH_OK, all OSDs up, all PGs active+clean, a mgr) "
                               f"after {timeout:.0f}s: {last}")
        finally:
            r.shutdown()

    def _osdmap_epoch(self, r: rados.Rados) -> int:
        return int(json.loads(self.mon(r, prefix="osd dump"))["epoch"])

    def _mgr_pgs_clean(self, r: rados.Rados) -> int:
        ret, out, _ = r.mgr_command(json.dumps({"prefix": "pg stat", "format": "json"}), b"")
        if ret != 0:
            return -1
        stat = json.loads(out)
        summary = stat.get("pg_summary", stat)  # Pacific and later nest it
        return sum(s["num"] for s in summary.get("num_pg_by_state", []) if s["name"] == "active+clean")

    PYO3 = "PyO3 modules do not yet support subinterpreters"

    def _mgr_modules_settled(self, r: rados.Rados) -> str:
        """"" once the active mgr has loaded its Python modules, else what is still awaited.

        The mgr reports HEALTH_OK before its modules have loaded, and a module failing afterwards
        (MGR_MODULE_ERROR, MGR_MODULE_DEPENDENCY) then turns the cluster unhealthy behind our back:
        wait for the module list first. One failure is a packaging quirk, handled here and said:
        Debian's Reef (trixie) ships python3-bcrypt built with PyO3, which refuses to load in a
        second Python interpreter, and every mgr module imports bcrypt (mgr_util) in its own
        subinterpreter, so no Python module can run. Always-on modules cannot be disabled, so the
        one check saying so, MGR_MODULE_DEPENDENCY, is muted (sticky, so a restarted mgr stays
        muted), and only when every failing module fails for that reason.
        """
        mgr = json.loads(self.mon(r, prefix="mgr dump"))
        if not mgr.get("available"):
            return "mgr not available yet"
        modules = mgr.get("available_modules") or []
        if not modules:
            return "mgr modules not loaded yet"
        always = mgr.get("always_on_modules") or {}
        # Release names are alphabetical; the newest key is the running release's list.
        enabled = set(mgr.get("modules") or []) | set(always[max(always)] if always else [])
        failing = {m["name"]: m.get("error_string", "") for m in modules
                   if m["name"] in enabled and not m.get("can_run", True)}
        if not failing:
            return ""
        if all(self.PYO3 in err for err in failing.values()):
            if not getattr(self, "_muted_pyo3", False):
                self.mon(r, prefix="health mute", code="MGR_MODULE_DEPENDENCY", sticky=True)
                self._muted_pyo3 = True
                note(f"MGR_MODULE_DEPENDENCY muted (sticky): this ceph-mgr cannot run its Python modules "
                     f"({', '.join(sorted(failing))}): \"{self.PYO3}\" (python3-bcrypt is built with PyO3 and "
                     f"mgr_util imports it in each module's subinterpreter). Always-on modules cannot be "
                     f"disabled; their commands (osd pool autoscale-status, balancer, crash, device, ...) "
                     f"are unknown to this cluster")
            return ""
        return "mgr modules failing: " + "; ".join(f"{k}: {v}" for k, v in sorted(failing.items()))

    def stop(self, purge: bool) -> None:
        # MDSs (their clients' data is on the OSDs) and OSDs first, then mgr, mon last, so they can still report to it.
        rank = {"mds": -1, "osd": 0, "mgr": 1, "mon": 2}
        order = sorted(self.daemon_names(), key=lambda n: rank.get(n.split(".")[0], 3))
        for name in order:
            if self.stop_daemon(name):
                print(f"stopped {name}", file=sys.stderr)
        if purge and self.conf.exists():
            shutil.rmtree(self.dir, onerror=_gone_is_fine)

    def status(self) -> int:
        if not self.conf.exists():
            print(f"no sandbox in {self.dir}")
            return 1
        rec = self.recorded()
        if rec is not None:
            where = "this host" if rec["suite"] == "host" else f"chroot {rec['suite']}"
            print(f"release: {rec['release']} ({where})")
        for name in self.daemon_names():
            pid = self.pid_of(name)
            print(f"{name:10} {'running pid ' + str(pid) if pid else 'stopped'}")
        try:
            r = self.connect(timeout=5)
            try:
                st = json.loads(self.mon(r, prefix="health"))
                print(f"health: {st['status']}")
            finally:
                r.shutdown()
        except (rados.Error, SandboxError) as e:
            print(f"health: unreachable ({e})")
        print(self.conf)
        return 0


def flush_pg_stats(r: rados.Rados, timeout: float = 30.0) -> bool:
    """Every up OSD sends its PG and OSD stats (usage included) now, and the mgr has them: Ceph's own test
    suite's way (qa/tasks/ceph_manager.py flush_pg_stats: `tell osd.N flush_pg_stats`, then
    `osd last-stat-seq`). False if an OSD does not answer or the stats do not arrive in time."""
    mon = Sandbox.mon
    up = [o["osd"] for o in json.loads(mon(r, prefix="osd dump"))["osds"] if o["up"]]
    seqs = {}
    for osd in up:
        try:
            ret, out, _ = r.osd_command(osd, json.dumps({"prefix": "flush_pg_stats"}), b"", timeout=10)
        except rados.Error:  # down since the osd dump, or not answering
            return False
        if ret != 0:
            return False
        seqs[osd] = int(out.decode().strip() or 0)
    deadline = time.monotonic() + timeout
    for osd, seq in seqs.items():
        while int(mon(r, prefix="osd last-stat-seq", id=osd, format="plain").decode().strip() or 0) < seq:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.1)
    return True


def where_to_run(box: Sandbox, release: str | None) -> str | None:
    """The chroot suite this command must run in, or None for here.

    A sandbox's record decides (all its daemons are of one release); for a new one, --release does.
    """
    here = local_suite()
    rec = box.recorded()
    if rec is not None:
        if release is not None and release != rec["release"]:
            raise SandboxError(f"{box.dir} holds a {rec['release']} sandbox, not {release}")
        return None if rec["suite"] == here else rec["suite"]
    if release is None:
        return None
    if release == local_release():
        return None
    if here != "host":  # inside a chroot of another release: refuse rather than nest chroots
        raise SandboxError(f"this chroot ({here}) runs {local_release()}, not {release}")
    return RELEASE_SUITES[release]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("start", help="create (or restart) a sandbox and wait for HEALTH_OK")
    s.add_argument("dir")
    s.add_argument("--osds", type=int, default=3)
    s.add_argument("--port", type=int, default=None, help="mon v2 port (default: a free one)")
    s.add_argument("--mons", type=int, default=1, help="monitors (1-5; mon.a, mon.b ...; default 1)")
    s.add_argument("--pool", action="append", default=[], metavar="NAME[:PGS]",
                   help="create a replicated pool (repeatable)")
    s.add_argument("--fs", default=None, metavar="NAME",
                   help="a CephFS file system NAME (pools NAME_metadata, NAME_data) with mds.a and mds.b")
    s.add_argument("--release", choices=sorted(RELEASE_SUITES), default=None,
                   help="Ceph release of the daemons (default: this host's own packages); another release "
                        "runs inside a cached Debian chroot (scripts/chroot.sh)")
    s = sub.add_parser("stop", help="stop this sandbox's daemons")
    s.add_argument("dir")
    s.add_argument("--purge", action="store_true", help="also delete DIR")
    s = sub.add_parser("status")
    s.add_argument("dir")
    for name, hlp in (("kill", "stop one daemon (SIGTERM; --hard for SIGKILL)"), ("revive", "start one daemon again"),
                      ("crash", "abort one daemon (SIGABRT: it writes a crash dump) and post the report as "
                                "ceph-crash does; prints the crash id"),
                      ("recreate", "give a destroyed OSD a fresh store with the same id (a replacement disk)"),
                      ("forget", "drop a purged daemon so start does not revive it")):
        s = sub.add_parser(name, help=hlp)
        s.add_argument("dir")
        s.add_argument("daemon", help="mon.a, mgr.x, osd.N, mds.a")
        if name == "kill":
            s.add_argument("--hard", action="store_true")
    args = p.parse_args(argv)
    raw = list(sys.argv[1:] if argv is None else argv)
    box = Sandbox(args.dir)
    try:
        suite = where_to_run(box, getattr(args, "release", None))
        if suite is not None:
            return reexec_in(suite, raw)
        if args.cmd == "start":
            box.start(args.osds, args.port, args.pool, args.mons, args.fs)
            print(box.conf)
        elif args.cmd == "stop":
            box.stop(args.purge)
        elif args.cmd == "status":
            return box.status()
        elif args.cmd == "kill":
            box._load(args.daemon)
            if not box.stop_daemon(args.daemon, signal.SIGKILL if args.hard else signal.SIGTERM):
                print(f"{args.daemon} was not running", file=sys.stderr)
        elif args.cmd == "crash":
            box._load(args.daemon)
            print(box.crash(args.daemon))
        elif args.cmd == "recreate":
            if not args.daemon.startswith("osd."):
                raise SandboxError("only OSDs can be recreated")
            box.recreate_osd(int(args.daemon[4:]))
        elif args.cmd == "forget":
            box.forget(args.daemon)
        elif args.cmd == "revive":
            if box.pid_of(args.daemon) is None:
                box.spawn(args.daemon, box._load(args.daemon)["argv"])
    except SandboxError as e:
        print(f"sandbox: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
