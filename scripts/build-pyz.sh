#!/usr/bin/env bash
# Builds dist/cephtui.pyz: cephtui and its dependencies in one file, for CPython 3.9 to 3.14 on
# manylinux x86_64, run by the node's own python3 with the node's own `rados`.
#
#   scripts/build-pyz.sh            # builds, or says it is up to date (inputs unchanged)
#   scripts/build-pyz.sh --force    # builds even so
#
# Tool: shiv (pinned below), installed from PyPI into a build venv of its own (.venv-pyzbuild).
# A shiv file is a zipapp holding one site-packages; its bootstrap unpacks it once under SHIV_ROOT
# (default ~/.shiv) and puts it on sys.path *before* the system site-packages: `rados` comes from
# the distribution (python3-rados), everything else from the pyz even where the distribution has its
# own copy. One process, no venv.
#
# One site-packages for six Pythons:
#  - msgspec 0.20.0 is the one release with wheels for cp39 to cp314; its compiled module is named
#    per Python (_core.cpython-39-x86_64-linux-gnu.so, ...), so the six sit side by side in msgspec/
#    (a node unpacks its own Python's only). psutil is one abi3 wheel.
#  - the pure-Python dependencies are resolved once, for 3.9 (the oldest), and serve every Python.
#  - what a start of cephtui does not import (pygments, markdown-it and kin) is zipped into
#    site-packages/_cephtui_lazy.zip, which a .pth file puts on sys.path, with the *.dist-info of all;
#    the zipped modules import from the zip when first used (the help screen's Markdown).
#  - the bytecode of what the first screen imports, per Python, compiled by that Python here (found on
#    the host, in the release chroots or in pyenv): pyc/cpython-3X.zlib beside site-packages. A node's
#    first start inflates only its own Python's into one file, which every start imports from; a Python
#    not found here gets none and compiles on its first start (docs/install-pyz.md).
#  - shiv's __main__.py goes straight to its bootstrap: this script puts its own in front (the
#    Python and machine checks, a temporary cache when $HOME is not writable, a faster unpacking and
#    the bytecode). Its unpacking leaves every Python source packed (about 40 files written instead of
#    about 600): a module's source is unpacked when that module is imported and the bytecode does not
#    hold it, or when something reads it (a traceback, inspect).
#  - aarch64 is not carried: psutil's abi3 module has the same file name on both architectures.
#
# Inputs hashed for the up-to-date check: the files git knows under cephtui/ and themes/,
# pyproject.toml, README.md, this script. The wheels come from PyPI (or the pip configuration's
# mirror) on each build.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SELF=$ROOT/scripts/build-pyz.sh
SHIV_VERSION=1.0.8
PIP_VERSION=26.2.1
SETUPTOOLS_VERSION=84.2.1
MSGSPEC_VERSION=0.20.0
BUILD_VENV=${CEPHTUI_PYZ_BUILD_VENV:-$ROOT/.venv-pyzbuild}
OUT=${CEPHTUI_PYZ_OUT:-$ROOT/dist/cephtui.pyz}
PYTHONS=(3.9 3.10 3.11 3.12 3.13 3.14)
# manylinux2014 = glibc 2.17: every supported distribution (EL8 has 2.28, bullseye 2.31).
PLATFORM=manylinux2014_x86_64

say() { echo "build-pyz: $*" >&2; }
# Each Python's bytecode is compiled by that Python: the host's /usr/bin, then the release chroots
# (scripts/chroot.sh), then pyenv, then PATH. A Python not found gets no bytecode (it compiles on its
# first start instead: slower, nothing else).
CHROOTS=${CEPHTUI_CHROOTS:-${XDG_CACHE_HOME:-$HOME/.cache}/cephtui/chroots}
interpreter() {  # prints the command (words) that runs Python $1, or nothing
    local v=$1 suite p
    if [ -x "/usr/bin/python$v" ]; then echo "/usr/bin/python$v"; return; fi
    for suite in bullseye trixie forky; do
        if [ -x "$CHROOTS/$suite/usr/bin/python$v" ]; then
            # (env -i inside: the hash seed again)
            echo "bash $ROOT/scripts/chroot.sh run $suite -- env PYTHONHASHSEED=0 /usr/bin/python$v"; return
        fi
    done
    for p in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$v".*/bin/"python$v"; do
        if [ -x "$p" ]; then echo "$p"; return; fi
    done
    command -v "python$v" || true
}
force=0
for a in "$@"; do
    case "$a" in
        --force) force=1;;
        -h|--help) sed -n '2,35p' "$SELF" | sed 's/^# \{0,1\}//'; exit 0;;
        *) say "unknown argument '$a' (--force, --help)"; exit 2;;
    esac
done

cd "$ROOT"
# What goes in: tracked and untracked-but-not-ignored files, so a local edit is built too.
sources() {
    if git rev-parse --git-dir >/dev/null 2>&1; then
        git ls-files -z -co --exclude-standard -- cephtui themes pyproject.toml README.md
    else
        find cephtui themes pyproject.toml README.md -type f ! -path '*/__pycache__/*' -print0
    fi
}
inputs_hash() {
    {
        echo "shiv=$SHIV_VERSION pip=$PIP_VERSION setuptools=$SETUPTOOLS_VERSION msgspec=$MSGSPEC_VERSION"
        echo "pythons=${PYTHONS[*]} platform=$PLATFORM"
        for v in "${PYTHONS[@]}"; do echo "bytecode $v: $(interpreter "$v")"; done
        sha256sum < "$SELF"
        sources | sort -z | xargs -0 sha256sum
    } | sha256sum | cut -d' ' -f1
}
want=$(inputs_hash)
stamp="$OUT.inputs"
if [ "$force" -eq 0 ] && [ -f "$OUT" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    say "up to date: $OUT ($(du -h "$OUT" | cut -f1), inputs $want)"
    echo "$OUT"
    exit 0
fi

if [ ! -x "$BUILD_VENV/bin/shiv" ] || [ "$("$BUILD_VENV/bin/shiv" --version)" != "shiv, version $SHIV_VERSION" ] \
        || [ "$("$BUILD_VENV/bin/pip" --version | cut -d' ' -f2)" != "$PIP_VERSION" ]; then
    say "build venv $BUILD_VENV: shiv==$SHIV_VERSION pip==$PIP_VERSION setuptools==$SETUPTOOLS_VERSION from PyPI"
    [ -x "$BUILD_VENV/bin/python" ] || /usr/bin/python3 -m venv "$BUILD_VENV"
    "$BUILD_VENV/bin/pip" install -q --disable-pip-version-check "pip==$PIP_VERSION" "shiv==$SHIV_VERSION" \
        "setuptools==$SETUPTOOLS_VERSION" wheel >&2
fi
PIP=("$BUILD_VENV/bin/pip" --disable-pip-version-check)

work=$(mktemp -d /tmp/cephtui-pyz.XXXXXX)
trap 'rm -rf "$work"' EXIT
# The wheel is built from a copy: the checkout gets no build/ or egg-info.
mkdir -p "$work/src" "$work/wheel" "$work/base" "$work/msgspec" "$work/site-packages"
sources | tar --null -T - -cf - | tar -xf - -C "$work/src"
"${PIP[@]}" wheel -q --no-deps --no-build-isolation --no-index -w "$work/wheel" "$work/src" >&2
wheel=$(ls "$work"/wheel/cephtui-*.whl)

target() {  # pip's options for one target Python (markers are still evaluated for the running one)
    echo --only-binary :all: --platform "$PLATFORM" --python-version "$1" --implementation cp --abi "cp${1/./}"
}
# Everything, resolved for the oldest Python. tomli is named because pip evaluates cephtui's
# `python_version < '3.11'` marker for the Python it runs on, not for --python-version.
say "resolving for CPython ${PYTHONS[0]} ($PLATFORM), msgspec $MSGSPEC_VERSION"
# shellcheck disable=SC2046
"${PIP[@]}" download -q $(target "${PYTHONS[0]}") -d "$work/base" "$wheel" "msgspec==$MSGSPEC_VERSION" \
    "tomli>=1.1" >&2
# shellcheck disable=SC2046
"${PIP[@]}" install -q --no-deps --no-compile $(target "${PYTHONS[0]}") --target "$work/site-packages" \
    "$work"/base/*.whl >&2
# The other Pythons' msgspec: only their compiled module, next to the first one.
for v in "${PYTHONS[@]:1}"; do
    # shellcheck disable=SC2046
    "${PIP[@]}" download -q --no-deps $(target "$v") -d "$work/msgspec" "msgspec==$MSGSPEC_VERSION" >&2
done
"$BUILD_VENV/bin/python" - "$work/msgspec" "$work/site-packages" <<'EOF'
import pathlib, sys, zipfile
src, dest = map(pathlib.Path, sys.argv[1:])
for whl in sorted(src.glob("msgspec-*.whl")):
    with zipfile.ZipFile(whl) as z:
        for name in z.namelist():
            if name.startswith("msgspec/") and name.endswith(".so"):
                (dest / name).write_bytes(z.read(name))
                (dest / name).chmod(0o755)
EOF
rm -rf "$work/site-packages/bin"  # console scripts (pygments, markdown-it): not used here
# pip's record of where each wheel came from (this build's temporary directory): without it the same
# inputs make the same file, and the same shiv build id (the name of the directory a node unpacks to).
rm -f "$work"/site-packages/*.dist-info/direct_url.json
sed -i '/\.dist-info\/direct_url\.json,/d' "$work"/site-packages/*.dist-info/RECORD
so_count=$(ls "$work"/site-packages/msgspec/_core.cpython-3*-x86_64-linux-gnu.so | wc -l)
[ "$so_count" -eq "${#PYTHONS[@]}" ] || { say "expected ${#PYTHONS[@]} msgspec modules, found $so_count"; exit 1; }
# What a start of cephtui imports (its CLI, and its TUI up to the first screen) stays as files, which
# shiv unpacks; the distributions it does not import (pygments, markdown-it and their kin: the help
# screen's Markdown, syntax highlighting) go into one zip inside site-packages, named by a .pth file,
# and are imported from it (zipimport) when first used: one file to unpack instead of ~450. The
# unpacked distributions' *.dist-info go into it too.
cat > "$work/startup_packages.py" <<'EOF'
import importlib, sys
site = sys.argv[1]
sys.path.insert(0, site)
# cephtui's entry points, and the textual modules its first screen loads at run time (not on import)
from cephtui.cli.table import COMMANDS  # every headless command's module: each start builds their parsers
NAMES = ["cephtui.launcher", "cephtui.cli.dispatch", *(f"cephtui.cli.{c.module}" for c in COMMANDS), "cephtui.ui.app",
         "cephtui.ui.screens.timeline", "cephtui.typeahead",
         "textual.drivers.linux_driver"]
for name in NAMES:
    importlib.import_module(name)
print("\n".join(sorted({n.split(".")[0] for n, m in list(sys.modules.items())
                        if (getattr(m, "__file__", None) or "").startswith(site + "/")})))
EOF
(cd /tmp && "$BUILD_VENV/bin/python" "$work/startup_packages.py" "$work/site-packages") > "$work/startup.txt"
"$BUILD_VENV/bin/python" - "$work/site-packages" "$work/startup.txt" <<'EOF'
import os, pathlib, shutil, sys, zipfile
site, startup = pathlib.Path(sys.argv[1]), set(pathlib.Path(sys.argv[2]).read_text().split())
startup.add("tomli")  # what cephtui imports instead of tomllib before 3.11 (the list above is from 3.11)
lazy, kept = [], []
for rec in sorted(site.glob("*.dist-info/RECORD")):
    tops = {line.split(",")[0].split("/")[0] for line in rec.read_text().splitlines() if line}
    tops = {t for t in tops if t not in (".", "..") and (site / t).exists()}  # not ../../bin/...
    mods = {t[:-3] if t.endswith(".py") else t for t in tops if not t.endswith((".dist-info", ".data"))}
    (kept if mods & startup or not mods else lazy).append((rec.parent.name, tops))
# The kept distributions' *.dist-info (~50 files) go into the zip too: nothing reads them on a start, and
# importlib.metadata (textual's __version__) finds them there, the zip being on sys.path.
zipped = [tops for _, tops in lazy] + [{t for t in tops if t.endswith(".dist-info")} for _, tops in kept]
with zipfile.ZipFile(site / "_cephtui_lazy.zip", "w", zipfile.ZIP_DEFLATED) as z:
    for tops in zipped:
        for top in sorted(tops):
            path = site / top
            for f in sorted(path.rglob("*")) if path.is_dir() else [path]:
                if f.is_file() and "__pycache__" not in f.parts:  # fixed times: the same inputs, the same zip
                    info = zipfile.ZipInfo(f.relative_to(site).as_posix(), (1980, 1, 1, 0, 0, 0))
                    info.external_attr = (f.stat().st_mode & 0o777 | 0o100000) << 16
                    z.writestr(info, f.read_bytes(), zipfile.ZIP_DEFLATED)
            shutil.rmtree(path) if path.is_dir() else path.unlink()
(site / "_cephtui_lazy.pth").write_text("_cephtui_lazy.zip\n")
print("build-pyz: unpacked: %s; zipped (imported on use): %s" % (
    " ".join(n.split("-")[0] for n, _ in kept), " ".join(n.split("-")[0] for n, _ in lazy)), file=sys.stderr)
EOF

# Bytecode of what the first screen imports, one archive per Python, compiled by that Python:
# pyc/cpython-3X.zlib beside shiv's site-packages (not in it: a node unpacks only its own Python's). The
# pyz's __main__ inflates it into one file once and imports from it. unchecked-hash .pyc data: valid
# whatever the unpacked sources' mtimes. Compiled with -X no_debug_ranges (3.11+: no column tables,
# so a traceback has no ^^^ under the failing expression): 20 % smaller. One solid zlib stream:
# 1.7 MB for 3.11 against 2.5 MB as zip members; xz would be 1.2 MB but costs 0.06 s more to unpack.
cat > "$work/compile_pyc.py" <<'EOF'
import importlib, importlib.util, os, py_compile, site, sys, tempfile, zlib
sp, out = sys.argv[1:]
site.addsitedir(sp)  # the lazy zip's .pth too
sys.path.insert(0, sp)
# cephtui's entry points and its first screen; the rest are what the first paint loads at run time
# (from sys.modules after a first paint on 3.11).
from cephtui.cli.table import COMMANDS  # every headless command's module: each start builds their parsers
NAMES = ["cephtui.launcher", "cephtui.cli.dispatch", *(f"cephtui.cli.{c.module}" for c in COMMANDS), "cephtui.ui.app",
         "cephtui.ui.screens.timeline", "cephtui.typeahead",
         "textual.drivers.linux_driver", "textual.drivers.headless_driver", "textual.pilot",
         "textual.scrollbar", "textual.layouts.factory", "textual.layouts.horizontal",
         "textual.layouts.stream", "rich._emoji_codes"]
for name in NAMES:
    importlib.import_module(name)
os.environ.pop("UNICODE_VERSION", None)
importlib.import_module("rich._unicode_data").load()  # the table of the latest Unicode, as at run time
files = sorted({m.__file__ for m in list(sys.modules.values())
                if (getattr(m, "__file__", None) or "").startswith(sp + "/") and m.__file__.endswith(".py")})
assert any("/cephtui/" in f for f in files), "cephtui not imported from " + sp
chunks = []
with tempfile.TemporaryDirectory() as tmp:
    for f in files:
        rel = os.path.relpath(f, sp)
        cfile = os.path.join(tmp, "x.pyc")
        py_compile.compile(f, cfile=cfile, dfile=rel, doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
        with open(cfile, "rb") as fh:
            data = fh.read()
        # source path NUL size(4, little-endian) .pyc: read by the pyz's __main__
        chunks += [rel.encode(), b"\0", len(data).to_bytes(4, "little"), data]
with open(out, "wb") as fh:
    fh.write(zlib.compress(b"".join(chunks), 9))
print("build-pyz: bytecode for %s: %d modules, %d kB" % (sys.implementation.cache_tag, len(files),
                                                        os.path.getsize(out) // 1024), file=sys.stderr)
EOF
mkdir -p "$work/pyc"
for v in "${PYTHONS[@]}"; do
    py=$(interpreter "$v")
    if [ -z "$py" ]; then say "no Python $v here: the pyz carries no bytecode for it (it compiles on its first start)"; continue; fi
    # shellcheck disable=SC2086
    # A fixed hash seed: the order of set constants in the bytecode, so the same inputs make the same file.
    (cd /tmp && env PYTHONHASHSEED=0 $py -s -X no_debug_ranges "$work/compile_pyc.py" "$work/site-packages" \
        "$work/pyc/cpython-${v/./}.zlib")
done

# The archive: shiv's, with its __main__.py replaced.
"$BUILD_VENV/bin/shiv" --site-packages "$work/site-packages" --entry-point cephtui.launcher:main \
    --python "/usr/bin/env python3" --reproducible \
    --output-file "$work/shiv.pyz" >&2
cat > "$work/__main__.py" <<'EOF'
# cephtui.pyz: checks this Python and machine, picks the cache directory, then runs shiv's bootstrap
# (which unpacks site-packages there once and starts cephtui). Kept to the syntax of old Pythons so
# that they get the message rather than a SyntaxError.
import os
import sys


def _fail(text):
    sys.stderr.write("cephtui.pyz: " + text + "\n")
    sys.exit(1)


if not ((3, 9) <= sys.version_info[:2] <= (3, 14)) or sys.implementation.name != "cpython":
    _fail("this file runs on CPython 3.9 to 3.14, not %s %d.%d (%s): run it with another python3, or "
          "install cephtui with pip" % (sys.implementation.name, sys.version_info[0], sys.version_info[1],
                                        sys.executable))
if os.uname().machine != "x86_64":
    _fail("this file carries compiled modules for x86_64 only, not %s: install cephtui with pip "
          "instead" % os.uname().machine)

# For cephtui's messages (which Python to run this file with).
os.environ["CEPHTUI_PYZ"] = os.path.abspath(sys.argv[0])
# Where shiv unpacks: SHIV_ROOT or ~/.shiv. When that cannot be written (a read-only $HOME), a temporary
# directory instead, with a warning, removed at exit: shiv itself would stop with a traceback.
_tmp_root = None
_root = os.path.expanduser(os.environ.get("SHIV_ROOT") or "~/.shiv")
try:
    os.makedirs(_root, exist_ok=True)
    _ok = os.access(_root, os.W_OK | os.X_OK)
except OSError:
    _ok = False
if not _ok:
    import tempfile
    _tmp_root = tempfile.mkdtemp(prefix="cephtui-pyz-")
    os.environ["SHIV_ROOT"] = _tmp_root
    sys.stderr.write("cephtui.pyz: %s cannot be written, unpacking into the temporary %s instead (removed "
                     "at exit; set SHIV_ROOT to a writable directory to keep it)\n" % (_root, _tmp_root))

import _bootstrap  # noqa: E402  (shiv's)
from _bootstrap.filelock import FileLock  # noqa: E402

# The bytecode this Python needs for cephtui's first screen ships compiled, in pyc/cpython-3X.zlib. A first
# start writes it, inflated, as one file beside site-packages (bytecode-cpython-3X); every start maps that
# file and imports those modules' code from it (a finder ahead of sys.path's): one file instead of ~350
# .pyc files to write, then to open.
# A first start writes only what it needs: no Python source (_PY: every module in site-packages/), and of
# msgspec's compiled modules (one per Python) its own Python's. The finder unpacks a module's source from the
# pyz when that module is imported and the bytecode file does not hold it (Python then compiles it and caches
# its .pyc, as for any module), or when something reads it (a traceback's lines, inspect): __file__ is where
# the source is or will be. Another Python's first start in the same directory adds its own compiled module
# and bytecode. Creating a file costs 0.15 to 0.4 ms of CPU on the development machine's disk (ext4 on a
# virtual disk): 36 files on a first start instead of about 600 is 0.1 to 0.2 s less.
_TAG = sys.implementation.cache_tag
_BUILD_ID = "@BUILD_ID@"
_PY = "@PY@"  # paths under site-packages/, space-separated
_ARCHIVE = os.path.abspath(sys.argv[0])


def _own_native(name):
    """False for another Python's compiled module (msgspec/_core.cpython-3Y-...so), True for anything else."""
    if not (name.endswith(".so") and ".cpython-" in name):
        return True
    from importlib.machinery import EXTENSION_SUFFIXES
    return name.endswith(EXTENSION_SUFFIXES[0])


def _write(path, data, mode=0o644):
    """data into path, atomically: the tree may be in use by another process (another Python)."""
    tmp = path + ".%d.tmp" % os.getpid()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
        os.fchmod(fd, mode)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def _add_python(archive, target):
    """This Python's compiled modules and bytecode (target/bytecode-TAG, empty: none in the file), written last:
    its presence says this Python's part of the directory is complete."""
    import zlib
    for info in archive.infolist():
        name = info.filename
        if name.startswith("site-packages/") and name.endswith(".so") and ".cpython-" in name and _own_native(name):
            path = os.path.join(target, name)
            if not os.path.exists(path):
                _write(path, archive.read(info), info.external_attr >> 16)
    try:
        data = zlib.decompress(archive.read("pyc/%s.zlib" % _TAG))
    except KeyError:  # no bytecode for this Python in the file: it compiles on import instead
        data = b""
    _write(os.path.join(target, "bytecode-" + _TAG), data)


def _use_bytecode(target):
    """The finder for every module of _PY: its code from target/bytecode-TAG where that holds it (entries
    `source path NUL size(4) pyc`), else from its source, unpacked from the pyz on first use."""
    import _imp
    import marshal
    import mmap
    from importlib.machinery import SourceFileLoader
    from importlib.util import spec_from_file_location
    site_packages, index, modules, data = os.path.join(target, "site-packages"), {}, {}, b""
    try:
        with open(os.path.join(target, "bytecode-" + _TAG), "rb") as f:
            data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # missing, or empty (mmap refuses an empty file)
        pass
    pos = 0
    while pos < len(data):
        end = data.find(b"\0", pos)
        rel = data[pos:end].decode()
        size = int.from_bytes(data[end + 1:end + 5], "little")
        pos = end + 5 + size
        index[rel] = (end + 5 + 16, pos)  # 16: the pyc header
    for rel in _PY.split():
        parts = rel[:-3].split("/")
        package = parts[-1] == "__init__"
        modules[".".join(parts[:-1] if package else parts)] = (rel, package)
    opened = []  # the pyz, opened when a first source is needed

    def unpack(rel):
        """The source of site-packages/rel from the pyz, written there if this user can (None: the pyz is
        another build now, or gone)."""
        if not opened:
            import json
            import zipfile
            try:
                archive = zipfile.ZipFile(_ARCHIVE)
                if json.loads(archive.read("environment.json").decode())["build_id"] != _BUILD_ID:
                    archive = None
            except (OSError, KeyError, ValueError, zipfile.BadZipFile):
                archive = None
            opened.append(archive)
        try:
            text = opened[0].read("site-packages/" + rel)
        except (AttributeError, KeyError, OSError, ValueError):
            return None
        try:
            _write(os.path.join(site_packages, rel), text)
        except OSError:  # a directory unpacked by another user: the source stays in memory
            pass
        return text

    class Loader(SourceFileLoader):
        def __init__(self, fullname, path, rel):
            SourceFileLoader.__init__(self, fullname, path)
            self.rel = rel  # the path under site-packages/

        def get_code(self, fullname):
            entry = index.get(self.rel)
            if entry is None:  # not in the bytecode file: from the source, as usual
                return SourceFileLoader.get_code(self, fullname)
            code = marshal.loads(data[entry[0]:entry[1]])
            _imp._fix_co_filename(code, self.path)  # as importlib does for a .pyc: the source's real path
            return code

        def get_data(self, path):
            try:
                return SourceFileLoader.get_data(self, path)
            except FileNotFoundError:
                text = unpack(self.rel) if path == self.path else None
                if text is None:
                    raise
                return text

        def exec_module(self, module):
            # the lines of a traceback through this module (rich's too, which asks linecache by file name
            # only) come from get_source when the source is not on disk
            import linecache
            linecache.lazycache(self.path, module.__dict__)
            SourceFileLoader.exec_module(self, module)

    class Finder:
        @staticmethod
        def find_spec(fullname, path=None, target=None):
            entry = modules.get(fullname)
            if entry is None:
                return None
            origin = os.path.join(site_packages, entry[0])
            if entry[0] not in index and not os.path.exists(origin):
                unpack(entry[0])  # before the import: Python caches its .pyc beside it
            return spec_from_file_location(fullname, origin, loader=Loader(fullname, origin, entry[0]),
                                           submodule_search_locations=[os.path.dirname(origin)] if entry[1] else None)

    sys.meta_path.insert(0, Finder)


def _extract(archive, target_path, compile_pyc=False, compile_workers=0, force=False):
    """shiv's extract_site_packages (same lock, same atomic move), with fewer system calls per file, without
    the Python sources (their directories only) and other Pythons' compiled modules, and with this Python's
    bytecode; then the finder (unpacked by another process meanwhile: that one's, and this Python's added)."""
    import shutil
    parent = str(target_path.parent)
    tmp = os.path.join(parent, target_path.name + ".tmp")
    os.makedirs(parent, exist_ok=True)
    with FileLock(os.path.join(parent, ".%s_lock" % target_path.name)):
        if not target_path.exists() or force:
            shutil.rmtree(tmp, ignore_errors=True)  # what an interrupted first start left
            made = set()
            for info in archive.infolist():
                name = info.filename
                if not name.startswith("site-packages/") or name.endswith("/"):
                    continue
                path = os.path.join(tmp, name)
                folder = os.path.dirname(path)
                if folder not in made:
                    os.makedirs(folder, exist_ok=True)
                    made.add(folder)
                if name.endswith(".py") or not _own_native(name):
                    continue
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                try:
                    os.write(fd, archive.read(info))  # regular files: written whole
                    os.fchmod(fd, info.external_attr >> 16)  # the original permissions, as shiv
                finally:
                    os.close(fd)
            _add_python(archive, tmp)
            if compile_pyc:  # SHIV_COMPILE_PYC: every source, as shiv does
                import compileall
                for info in archive.infolist():
                    if info.filename.startswith("site-packages/") and info.filename.endswith(".py"):
                        _write(os.path.join(tmp, info.filename), archive.read(info))
                compileall.compile_dir(tmp, quiet=2, workers=compile_workers)
            if target_path.exists():
                shutil.rmtree(str(target_path))
            shutil.move(tmp, str(target_path))
        elif not os.path.exists(os.path.join(str(target_path), "bytecode-" + _TAG)):
            _add_python(archive, str(target_path))
    _use_bytecode(str(target_path))


_bootstrap.extract_site_packages = _extract
# Where shiv unpacks (as its cache_path makes it).
_target = os.path.join(_root if _tmp_root is None else _tmp_root,
                       "%s_%s" % (os.path.basename(os.path.realpath(sys.argv[0])), _BUILD_ID))
if os.path.isdir(os.path.join(_target, "site-packages")) and not os.path.exists(
        os.path.join(_target, "bytecode-" + _TAG)):  # unpacked before by another Python: add this one's
    import zipfile
    with zipfile.ZipFile(sys.argv[0]) as _archive:
        _add_python(_archive, _target)
    _use_bytecode(_target)
elif os.path.isdir(os.path.join(_target, "site-packages")):
    _use_bytecode(_target)
# else: a first start; shiv's bootstrap calls _extract, which puts the finder in place before any import

try:
    _bootstrap.bootstrap()
finally:
    if _tmp_root is not None:
        import shutil
        shutil.rmtree(_tmp_root, ignore_errors=True)
EOF
"$BUILD_VENV/bin/python" - "$work/shiv.pyz" "$work/__main__.py" "$work/pyc" "$work/cephtui.pyz" <<'EOF'
import hashlib, json, pathlib, sys, zipfile
shiv_pyz, main, pycs, out = map(pathlib.Path, sys.argv[1:])
with open(shiv_pyz, "rb") as f:
    shebang = f.readline()
with zipfile.ZipFile(shiv_pyz) as src, open(out, "wb") as raw:
    # shiv's build id (the name of the directory a node unpacks to) hashes site-packages only: this
    # __main__.py goes into it too, as what it unpacks depends on it
    env = json.loads(src.read("environment.json"))
    build_id = env["build_id"] = hashlib.sha256((env["build_id"] + "\n").encode() + main.read_bytes()).hexdigest()
    # __main__ finds the unpacked directory (and whether this Python's bytecode is in) without opening the
    # zip, and knows every Python module of site-packages (a first start unpacks none of them)
    py = sorted(n[len("site-packages/"):] for n in src.namelist() if n.startswith("site-packages/") and n.endswith(".py"))
    assert py and not any(" " in n or '"' in n for n in py), py
    main_text = main.read_bytes().replace(b"@BUILD_ID@", build_id.encode()).replace(b"@PY@", " ".join(py).encode())
    replaced = {"__main__.py": main_text, "environment.json": json.dumps(env).encode()}
    raw.write(shebang)
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = replaced[info.filename] if info.filename in replaced else src.read(info)
            if info.filename == "site-packages/_cephtui_lazy.zip":  # compressed already: inflating it again
                info.compress_type = zipfile.ZIP_STORED             # on a first start took 0.017 s
            dst.writestr(info, data)
        for pyc in sorted(pycs.glob("*.zlib")):  # already compressed
            dst.writestr(zipfile.ZipInfo("pyc/" + pyc.name, (1980, 1, 1, 0, 0, 0)), pyc.read_bytes(),
                         zipfile.ZIP_STORED)
out.chmod(0o755)
EOF
mkdir -p "$(dirname "$OUT")"
mv "$work/cephtui.pyz" "$OUT"
echo "$want" > "$stamp"
say "built $OUT ($(du -h "$OUT" | cut -f1))"
echo "$OUT"
