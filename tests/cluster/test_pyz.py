"""The one-file build: scripts/build-pyz.sh makes dist/cephtui.pyz, the distribution's python3 runs it.

The build is skipped when its inputs are unchanged (the script hashes them), so only the first run after
a change pays for it (about 20 seconds: pip fetches the wheels from PyPI, shiv packs them).
When the build fails and PyPI does not answer either, the test skips saying so; any other build failure
fails it.

The release chroots (scripts/chroot.sh: bullseye 3.9, trixie 3.13, forky 3.14), where built already,
run the same snapshot with their own /usr/bin/python3, which has python3-rados and no pip; a chroot not
built yet is skipped (building one takes minutes: `scripts/chroot.sh build SUITE`).

Every run is from a cwd outside the repo with a SHIV_ROOT of the test's own (a fresh one per session: the
first run unpacks, as on a node) and without PYTHONPATH: what runs is the pyz's own copy of cephtui and
of its dependencies, and the distribution's `rados`.
"""
from __future__ import annotations

import glob
import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import zipfile
import zlib
from pathlib import Path

import pytest

from tests.conftest import Sandbox

ROOT = Path(__file__).resolve().parents[2]
PYZ = ROOT / "dist" / "cephtui.pyz"
PYTHON = "/usr/bin/python3"  # the distribution's, which has python3-rados
# 15 MB until the block bench, the latency probe and the bench worker (issue 29) added about 0.5 MB of
# compiled code across the six Pythons the file carries.
# 16 MB until the history, its Prometheus source and the fail-slow ranking (issue 32) added about 0.25 MB.
# 17 MB until the File systems tab (issue 41: ceph/cephfs/, its panes and dialogs) took the file to 17.02 MB.
BUDGET_BYTES = 18 * 1000 * 1000
PYTHONS = ("39", "310", "311", "312", "313", "314")


def _pypi_reachable() -> bool:
    res = subprocess.run([str(ROOT / ".venv" / "bin" / "pip"), "index", "versions", "shiv",
                          "--disable-pip-version-check"], capture_output=True, text=True, timeout=60)
    return res.returncode == 0


@pytest.fixture(scope="module")
def pyz() -> Path:
    res = subprocess.run(["bash", str(ROOT / "scripts" / "build-pyz.sh")], capture_output=True, text=True,
                         timeout=900)
    if res.returncode != 0:
        if not _pypi_reachable():
            pytest.skip("PyPI is unreachable: scripts/build-pyz.sh cannot fetch shiv and the wheels")
        pytest.fail(f"scripts/build-pyz.sh failed:\n{res.stderr[-4000:]}")
    assert res.stdout.strip().splitlines()[-1] == str(PYZ)
    return PYZ


@pytest.fixture(scope="module")
def run_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "CEPH_ARGS", "CEPH_CONF", "PYTHONDONTWRITEBYTECODE", "VIRTUAL_ENV")
           and not k.startswith("SHIV_")}
    env["SHIV_ROOT"] = str(tmp_path_factory.mktemp("shiv_root"))
    env["XDG_CONFIG_HOME"] = str(tmp_path_factory.mktemp("config"))
    return env


def _run(pyz: Path, args: list[str], env: dict[str, str], cwd: Path, extra: dict[str, str] | None = None,
         timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PYTHON, str(pyz), *args], capture_output=True, text=True, cwd=cwd,
                          env={**env, **(extra or {})}, timeout=timeout)


def test_pyz_contents(pyz: Path) -> None:
    size = pyz.stat().st_size
    assert size <= BUDGET_BYTES, f"{size / 1e6:.2f} MB is over the {BUDGET_BYTES / 1e6:g} MB budget"
    with zipfile.ZipFile(pyz) as z:
        env = json.loads(z.read("environment.json"))
        names = set(z.namelist())
        main = z.read("__main__.py").decode()
        with zipfile.ZipFile(io.BytesIO(z.read("site-packages/_cephtui_lazy.zip"))) as lazy:
            zipped = {n.split("/")[0] for n in lazy.namelist()}
        pth = z.read("site-packages/_cephtui_lazy.pth").decode().split()
    assert env["entry_point"] == "cephtui.launcher:main"
    assert "_bootstrap/__init__.py" in names  # shiv's bootstrap, started by our own __main__.py
    assert "_bootstrap.bootstrap()" in main and "SHIV_ROOT" in main
    # one site-packages: msgspec's compiled module for each Python, side by side; psutil's abi3 one
    for v in PYTHONS:
        assert f"site-packages/msgspec/_core.cpython-{v}-x86_64-linux-gnu.so" in names, v
    assert any(n.startswith("site-packages/psutil/") and n.endswith(".abi3.so") for n in names)
    for name in ("cephtui", "textual", "rich", "tomli"):  # tomli: Python 3.9 and 3.10 only
        assert f"site-packages/{name}/__init__.py" in names, name
    # what the first start does not import, in one zip that a .pth file puts on sys.path
    assert pth == ["_cephtui_lazy.zip"]
    assert {"pygments", "markdown_it"} <= zipped
    assert not {"cephtui", "textual", "rich"} & zipped
    # The distribution's rados binding is never bundled (rados.cpython-*.so, a rados/ package, its egg-info): a
    # top-level entry of site-packages or of the lazy zip named for it. cephtui's own modules may say "rados".
    tops = {n.split("/")[1] for n in names if n.startswith("site-packages/") and n.count("/") >= 1} | zipped
    assert not [t for t in tops if t.split(".")[0].split("-")[0] in ("rados", "rbd", "cephfs")], sorted(tops)
    # bytecode per Python, beside site-packages (shiv unpacks none of it): at least the host Python's,
    # whose interpreter the build always has; the others where the build machine has them
    pycs = {n for n in names if n.startswith("pyc/")}
    assert pycs <= {f"pyc/cpython-{v}.zlib" for v in PYTHONS}, pycs
    assert f"pyc/{_cache_tag(PYTHON)}.zlib" in pycs, pycs
    # a first start unpacks no Python source: __main__.py knows every module of site-packages, and where the
    # bytecode file does not hold one, unpacks its source when it is first imported
    with zipfile.ZipFile(pyz) as z:
        shipped = _bytecode_index(z.read(f"pyc/{_cache_tag(PYTHON)}.zlib"))
    sources = {n[len("site-packages/"):] for n in names if n.startswith("site-packages/") and n.endswith(".py")}
    assert _packed(pyz) == sources
    assert {"cephtui/ui/app.py", "textual/app.py", "rich/console.py"} <= shipped < sources
    assert "cephtui/ui/screens/help.py" not in shipped  # the first screen does not import it
    # the unpacked distributions' metadata is in the zip (importlib.metadata reads it there), not unpacked
    assert not any(n.startswith("site-packages/") and ".dist-info/" in n for n in names)
    assert {d.split("-")[0] for d in zipped if d.endswith(".dist-info")} >= {"cephtui", "textual", "rich", "msgspec"}


def _bytecode_index(compressed: bytes) -> set[str]:
    """The source paths (under site-packages) one pyc/cpython-3X.zlib holds bytecode for."""
    data, pos, paths = zlib.decompress(compressed), 0, set()
    while pos < len(data):  # source path NUL size(4, little-endian) .pyc
        end = data.index(b"\0", pos)
        paths.add(data[pos:end].decode())
        pos = end + 5 + int.from_bytes(data[end + 1:end + 5], "little")
    return paths


def _packed(pyz: Path) -> set[str]:
    """The modules (paths under site-packages) a first start leaves packed: __main__.py's _PY."""
    with zipfile.ZipFile(pyz) as z:
        m = re.search(r'^_PY = "([^"]*)"', z.read("__main__.py").decode(), re.M)
    assert m, "no _PY in __main__.py"
    return set(m.group(1).split())


def _natives(shiv_root: Path) -> set[str]:
    """msgspec's compiled modules unpacked under shiv_root, by file name."""
    return {p.name for p in shiv_root.glob("*/site-packages/msgspec/_core.*.so")}


def _cache_tag(python: str, chroot: str | None = None) -> str:
    cmd = [python, "-c", "import sys; print(sys.implementation.cache_tag)"]
    res = _in_chroot(chroot, *cmd) if chroot else subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    assert res.returncode == 0, res.stderr
    return res.stdout.strip()


def _compiled(shiv_root: Path, tag: str) -> int:
    """How many modules one Python compiled on import: it writes a .pyc for each, under site-packages."""
    return len(list(shiv_root.glob(f"*/site-packages/**/__pycache__/*.{tag}.pyc")))


def _shipped(shiv_root: Path, tag: str) -> int:
    """Size of the bytecode file a first start of one Python writes beside site-packages (0: none)."""
    files = list(shiv_root.glob(f"*/bytecode-{tag}"))
    assert len(files) <= 1, files
    return files[0].stat().st_size if files else 0


def test_pyz_snapshot_matches_ceph(pyz: Path, sandbox: Sandbox, run_env: dict[str, str], tmp_path: Path) -> None:
    res = _run(pyz, ["-c", str(sandbox.conf), "snapshot", "--json"], run_env, tmp_path)
    assert res.returncode == 0, res.stderr
    snap = json.loads(res.stdout)
    status = sandbox.ceph("-s")
    assert snap["fsid"] == status["fsid"]
    assert snap["health"]["status"] == status["health"]["status"]
    osdmap = status["osdmap"].get("osdmap", status["osdmap"])  # nested before Quincy
    assert snap["osds"]["total"] == osdmap["num_osds"]
    assert snap["osds"]["up"] == osdmap["num_up_osds"]
    assert snap["osds"]["in"] == osdmap["num_in_osds"]


WHERE = "import json, rados, textual, msgspec, cephtui; print(json.dumps({m.__name__: m.__file__ for m in " \
        "(rados, textual, msgspec, cephtui)}))"


def test_pyz_bench_runs_its_engine_in_a_worker_started_from_the_pyz(pyz: Path, sandbox: Sandbox,
                                                                   run_env: dict[str, str], tmp_path: Path) -> None:
    # The worker is the pyz again (shiv's interpreter mode): its sources are unpacked on import by the pyz's
    # own finder, and there is no other cephtui for it to find (no PYTHONPATH, a cwd outside the repo).
    proc = subprocess.Popen([PYTHON, str(pyz), "-c", str(sandbox.conf), "bench", "--pool", "rbd", "--seconds", "2",
                             "-b", "4K", "--no-save", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=tmp_path, env=run_env)
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    result = json.loads(out)
    assert result["error"] is None and result["ops"] > 0 and len(result["samples"]) >= 2
    assert result["pid"] != proc.pid  # the engine ran in a process of its own
    assert result["cleanup_note"] == f"cleanup removed {result['ops']} objects"
    assert result["cluster"] == sandbox.ceph("fsid")["fsid"]


def test_pyz_imports_the_distributions_rados_and_its_own_rest(pyz: Path, run_env: dict[str, str],
                                                               tmp_path: Path) -> None:
    res = _run(pyz, ["-c", WHERE], run_env, tmp_path, {"SHIV_INTERPRETER": "1"})
    assert res.returncode == 0, res.stderr
    where = {k: Path(v).resolve() for k, v in json.loads(res.stdout.strip().splitlines()[-1]).items()}
    system = subprocess.run([PYTHON, "-c", "import rados; print(rados.__file__)"], capture_output=True, text=True,
                            cwd=tmp_path, env=run_env, timeout=30)
    assert system.returncode == 0, system.stderr
    assert where["rados"] == Path(system.stdout.strip()).resolve()
    shiv_root = Path(run_env["SHIV_ROOT"]).resolve()
    for name in ("textual", "msgspec", "cephtui"):
        assert where[name].is_relative_to(shiv_root), (name, where[name])
    # the zipped ones import from the zip, the help screen's Markdown among them
    res = _run(pyz, ["-c", "import markdown_it, cephtui.ui.screens.help; print(markdown_it.__file__)"], run_env,
               tmp_path, {"SHIV_INTERPRETER": "1"})
    assert res.returncode == 0, res.stderr
    assert "/site-packages/_cephtui_lazy.zip/markdown_it/" in res.stdout, res.stdout


def test_pyz_first_start_compiles_nothing_the_first_screen_imports(pyz: Path, run_env: dict[str, str],
                                                                 tmp_path: Path) -> None:
    # a node's first start: the pyz writes this Python's shipped bytecode in one file, and the TUI and its
    # first screen's textual modules import from it (sources and __file__ where they always are), so
    # nothing is compiled (Python writes a .pyc for each module it compiles)
    shiv_root = tmp_path / "shiv_root"
    code = ("import json, cephtui.ui.app, textual.app, textual.drivers.linux_driver as d; print(json.dumps("
            "[textual.app.__file__, textual.app.App.__init__.__code__.co_filename, "
            "type(d.__spec__.loader).__qualname__]))")
    res = _run(pyz, ["-c", code], run_env, tmp_path, {"SHIV_INTERPRETER": "1", "SHIV_ROOT": str(shiv_root)})
    assert res.returncode == 0, res.stderr
    file, co_filename, loader = json.loads(res.stdout.strip().splitlines()[-1])
    tag = _cache_tag(PYTHON)
    assert _compiled(shiv_root, tag) == 0
    assert _shipped(shiv_root, tag) > 1_000_000
    assert Path(file).is_relative_to(shiv_root) and file.endswith("/site-packages/textual/app.py")
    assert co_filename == file  # tracebacks and inspect find the unpacked source
    assert loader.startswith("_use_bytecode."), loader  # the pyz's own
    assert not list(shiv_root.glob("*.tmp")) and not list(shiv_root.glob("*/*.tmp"))
    # a warm start uses the same file: still nothing compiled
    res = _run(pyz, ["-c", code], run_env, tmp_path, {"SHIV_INTERPRETER": "1", "SHIV_ROOT": str(shiv_root)})
    assert res.returncode == 0, res.stderr
    assert _compiled(shiv_root, tag) == 0


def test_pyz_first_start_writes_only_what_it_needs(pyz: Path, run_env: dict[str, str], tmp_path: Path) -> None:
    # a node's first start writes this Python's msgspec module only, no Python source and no *.dist-info.
    # A module the bytecode file does not hold has its source unpacked from the pyz when first imported, then
    # is cached as any other (source and .pyc on disk); one it holds, when something reads the source (a
    # traceback's lines, inspect). The metadata reads from the zip.
    shiv_root = tmp_path / "shiv_root"
    env = {"SHIV_ROOT": str(shiv_root)}
    res = _run(pyz, ["--version"], run_env, tmp_path, env)
    assert res.returncode == 0, res.stderr
    (target,) = shiv_root.glob("cephtui.pyz_*")
    site = target / "site-packages"
    tag = _cache_tag(PYTHON)
    assert _natives(shiv_root) == {f"_core.{tag}-x86_64-linux-gnu.so"}
    assert not list(site.rglob("*.py"))
    assert {"cephtui/ui/app.tcss", "cephtui/themes/cephtui.json"} <= {
        p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}  # the data files are there
    assert not list(site.glob("*.dist-info"))
    assert {p.name for p in target.iterdir()} == {"site-packages", f"bytecode-{tag}"}
    code = ("import io, json, inspect, importlib.metadata as md, rich.console, rich.traceback, textual, textual.app, "
            "cephtui.ui.screens.help, cephtui.ui.screens.wizards.pool as w\n"
            "console = rich.console.Console(file=io.StringIO(), width=200)\n"
            "try:\n    textual.app.App.run(None)\n"
            "except AttributeError:\n    console.print(rich.traceback.Traceback())\n"
            "print(json.dumps([w.__file__, w.__cached__, w.PoolWizard.__init__.__code__.co_filename, "
            "textual.app.__file__, inspect.getsource(textual.app.App.run), console.file.getvalue(), "
            "textual.__version__, md.version('textual'), str(md.distribution('textual').locate_file(''))]))")
    res = _run(pyz, ["-c", code], run_env, tmp_path, {**env, "SHIV_INTERPRETER": "1"})
    assert res.returncode == 0, res.stderr
    file, cached, co_filename, app_file, app_run, traceback, version, md_version, dist_at = json.loads(
        res.stdout.strip().splitlines()[-1])
    with zipfile.ZipFile(pyz) as z:
        pool_source = z.read("site-packages/cephtui/ui/screens/wizards/pool.py")
        app_source = z.read("site-packages/textual/app.py")
        shipped = _bytecode_index(z.read(f"pyc/{tag}.zlib"))
    # not in the bytecode file: unpacked on import, compiled and cached
    assert file == str(site / "cephtui/ui/screens/wizards/pool.py") == co_filename
    assert Path(file).read_bytes() == pool_source
    assert Path(cached).is_file()
    assert (site / "cephtui/ui/screens/help.py").is_file() and (site / "textual/widgets/_markdown.py").is_file()
    assert not (site / "cephtui/ui/screens/crush_editor.py").exists()  # not imported: still packed
    # in it: imported from the bytecode; its source read (inspect, the traceback's lines) from the pyz, unpacked
    assert app_file == str(site / "textual/app.py")
    assert app_run.startswith("    def run(") and app_run in app_source.decode()
    assert "❱" in traceback and "return await self.run_async(" in traceback, traceback  # a line of textual/app.py
    assert Path(app_file).read_bytes() == app_source
    assert not (site / "textual/screen.py").exists()  # imported, never read: still packed
    assert version == md_version and re.fullmatch(r"\d+\.\d+\.\d+", version), version
    assert dist_at.startswith(str(site / "_cephtui_lazy.zip")), dist_at
    assert not list(target.rglob("*.tmp"))
    # compiled: what was unpacked to be imported, not what the bytecode file holds
    for p in site.rglob("*.py"):
        rel = p.relative_to(site).as_posix()
        assert (p.parent / "__pycache__" / f"{p.stem}.{tag}.pyc").is_file() == (rel not in shipped), rel
    # again: all found where the first run left them, nothing new unpacked or compiled
    before = sorted(p.relative_to(target) for p in target.rglob("*"))
    res = _run(pyz, ["-c", code], run_env, tmp_path, {**env, "SHIV_INTERPRETER": "1"})
    assert res.returncode == 0, res.stderr
    assert sorted(p.relative_to(target) for p in target.rglob("*")) == before


def test_pyz_imports_a_packed_module_where_it_cannot_unpack_it(pyz: Path, run_env: dict[str, str]) -> None:
    # a directory unpacked by root, then run by another user (a shared SHIV_ROOT, like /tmp): the modules
    # still packed import from the pyz itself, compiled in memory, and sources read from it; nothing written
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root and setpriv to run as another user")
    shared = Path(tempfile.mkdtemp(prefix="cephtui-pyz-shared-", dir="/tmp"))
    try:
        shared.chmod(0o1777)
        copy = Path(shutil.copy2(pyz, shared / pyz.name))
        copy.chmod(0o644)
        env = {**run_env, "SHIV_ROOT": str(shared), "HOME": str(shared)}
        res = subprocess.run([PYTHON, str(copy), "--version"], capture_output=True, text=True, cwd=shared, env=env,
                             timeout=120)
        assert res.returncode == 0, res.stderr
        (target,) = shared.glob("cephtui.pyz_*")
        before = sorted(p.relative_to(target) for p in target.rglob("*"))
        code = ("import inspect, json, textual.app, cephtui.ui.screens.wizards.pool as w, "
                "textual.widgets._markdown as m; "
                "print(json.dumps([w.__file__, w.PoolWizard.__init__.__code__.co_filename, m.__file__, "
                "inspect.getsource(textual.app.App.run)]))")
        res = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", PYTHON, str(copy),
                              "-c", code], capture_output=True, text=True, cwd=shared,
                             env={**env, "SHIV_INTERPRETER": "1"}, timeout=120)
        assert res.returncode == 0, res.stderr
        assert "Traceback" not in res.stderr and "cannot be written" not in res.stderr
        file, co_filename, markdown, app_run = json.loads(res.stdout.strip().splitlines()[-1])
        site = target / "site-packages"
        assert file == co_filename == str(site / "cephtui/ui/screens/wizards/pool.py")
        assert markdown == str(site / "textual/widgets/_markdown.py")
        assert app_run.startswith("    def run(")  # a source the bytecode file holds, read from the pyz
        assert sorted(p.relative_to(target) for p in target.rglob("*")) == before  # nothing written
    finally:
        shutil.rmtree(shared, ignore_errors=True)


@pytest.mark.parametrize("variable", ["HOME", "SHIV_ROOT"])
def test_pyz_with_an_unwritable_cache_falls_back_to_a_temporary_one(variable: str, pyz: Path,
                                                                    run_env: dict[str, str], tmp_path: Path) -> None:
    # HOME (the default ~/.shiv), or SHIV_ROOT, below a regular file: nothing can be made there, even as root
    blocker = tmp_path / "file"
    blocker.write_text("")
    env = {k: v for k, v in run_env.items() if k != "SHIV_ROOT"}
    env[variable] = str(blocker / "dir")
    res = _run(pyz, ["--version"], env, tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip().startswith("cephtui ")
    m = re.search(r"cannot be written, unpacking into the temporary (\S+) instead", res.stderr)
    assert m, res.stderr
    assert "Traceback" not in res.stderr
    assert Path(m.group(1)).is_relative_to(Path(tempfile.gettempdir()))
    assert not Path(m.group(1)).exists(), "the temporary SHIV_ROOT is left behind"


def test_pyz_refuses_a_python_it_does_not_carry_modules_for(pyz: Path, run_env: dict[str, str],
                                                           tmp_path: Path) -> None:
    # A Python older than 3.9 (EL8's 3.6, a cephadm image built on CentOS 8) gets one line, no traceback.
    candidates = ["python3.6", "python3.7", "python3.8",
                  *sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.[678].*/bin/python3.[678]")))]
    old = next((p for p in candidates if _runs(p)), None)
    if old is None:
        pytest.skip("no Python older than 3.9 here (python3.6, 3.7 or 3.8)")
    res = subprocess.run([old, str(pyz), "--version"], capture_output=True, text=True, cwd=tmp_path, env=run_env,
                         timeout=60)
    assert res.returncode == 1
    assert res.stderr.startswith("cephtui.pyz: this file runs on CPython 3.9 to 3.14, not cpython 3."), res.stderr
    assert "Traceback" not in res.stderr


def _runs(python: str) -> bool:
    try:
        return subprocess.run([python, "-c", "pass"], capture_output=True, timeout=30).returncode == 0
    except OSError:
        return False


CHROOT_SH = ROOT / "scripts" / "chroot.sh"
SUITES = {"bullseye": "3.9", "trixie": "3.13", "forky": "3.14"}


def _chroot_ready(suite: str) -> bool:
    if os.geteuid() != 0:
        return False
    res = subprocess.run(["bash", str(CHROOT_SH), "path", suite], capture_output=True, text=True, timeout=30)
    return res.returncode == 0 and (Path(res.stdout.strip()) / ".cephtui-ready").is_file()


def _in_chroot(suite: str, *cmd: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(CHROOT_SH), "run", suite, "--", *cmd], capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_pyz_in_a_release_chroot_with_its_own_python(suite: str, pyz: Path, sandbox: Sandbox,
                                                     run_env: dict[str, str], tmp_path: Path) -> None:
    if not _chroot_ready(suite):
        pytest.skip(f"the {suite} chroot is not built (as root: scripts/chroot.sh build {suite})")
    version = _in_chroot(suite, "/usr/bin/python3", "-c",
                         "import sys, importlib.util as u; print('%d.%d' % sys.version_info[:2], "
                         "u.find_spec('pip') is not None)")
    assert version.returncode == 0, version.stderr
    assert version.stdout.split() == [SUITES[suite], "False"], "expected the suite's Python, without pip"
    # A copy under the shared /tmp: the checkout's bind mount in the chroot may be another checkout's, or
    # a stale one (the mounts stay up between runs, shared by every checkout).
    (tmp_path / "pyz").mkdir()
    pyz = Path(shutil.copy2(pyz, tmp_path / "pyz" / pyz.name))
    # its own SHIV_ROOT under the shared /tmp: what a node's first run unpacks
    res = _in_chroot(suite, "env", f"SHIV_ROOT={tmp_path / 'shiv_root'}", "/usr/bin/python3", str(pyz),
                     "-c", str(sandbox.conf), "snapshot", "--json")
    assert res.returncode == 0, res.stderr
    snap = json.loads(res.stdout)
    assert snap["fsid"] == sandbox.ceph("fsid")["fsid"]
    assert snap["osds"]["total"] == 3
    where = _in_chroot(suite, "env", f"SHIV_ROOT={tmp_path / 'shiv_root'}", "SHIV_INTERPRETER=1", "/usr/bin/python3",
                       str(pyz), "-c", "import rados, textual; print(rados.__file__); print(textual.__file__)")
    assert where.returncode == 0, where.stderr
    rados_file, textual_file = where.stdout.strip().splitlines()[-2:]
    assert rados_file.startswith("/usr/lib/python3/dist-packages/rados.cpython-"), rados_file
    assert textual_file.startswith(str(tmp_path / "shiv_root")), textual_file
    # its own Python's bytecode was written on that first start: textual and cephtui were not compiled
    tag = _cache_tag("/usr/bin/python3", suite)
    assert _compiled(tmp_path / "shiv_root", tag) == 0
    assert _shipped(tmp_path / "shiv_root", tag) > 1_000_000
    assert _natives(tmp_path / "shiv_root") == {f"_core.{tag}-x86_64-linux-gnu.so"}
    # a directory the host's Python unpacked first: the suite's Python adds its own bytecode to it, once
    shared = tmp_path / "shared_root"
    host = subprocess.run([PYTHON, str(pyz), "--version"], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path, env={**run_env, "SHIV_ROOT": str(shared)})
    assert host.returncode == 0, host.stderr
    assert _shipped(shared, tag) == 0
    assert _natives(shared) == {f"_core.{_cache_tag(PYTHON)}-x86_64-linux-gnu.so"}  # the host Python's only
    res = _in_chroot(suite, "env", f"SHIV_ROOT={shared}", "SHIV_INTERPRETER=1", "/usr/bin/python3", str(pyz), "-c",
                     "import cephtui.ui.app, textual.drivers.linux_driver")
    assert res.returncode == 0, res.stderr
    assert _compiled(shared, tag) == 0
    assert _shipped(shared, tag) > 1_000_000
    assert _natives(shared) == {f"_core.{t}-x86_64-linux-gnu.so" for t in (_cache_tag(PYTHON), tag)}
    assert {p.name for p in shared.glob("*/bytecode-*")} == {f"bytecode-{_cache_tag(PYTHON)}", f"bytecode-{tag}"}


def test_pyz_runs_the_block_bench(pyz: Path, sandbox: Sandbox, run_env: dict[str, str], tmp_path: Path) -> None:
    """`bench rbd` from the one file: the distribution's rbd module is found beside its rados."""
    res = _run(pyz, ["-c", str(sandbox.conf), "bench", "rbd", "--pool", "rbd", "--temp-image", "16M", "--io-total",
                     "1M", "--json", "--no-save"], run_env, tmp_path,
               {"CEPHTUI_AUDIT_LOG": str(tmp_path / "audit.log")})
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["ops"] == 256 and out["kind"] == "rbd" and out["error"] is None and out["cache"] == "off"
    assert out["image"].startswith("cephtui-bench-") and out["temporary_image"]
