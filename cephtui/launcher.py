"""Entry point of the `cephtui` command and of `python -m cephtui`.

Ceph's Python bindings (`rados`) come with the distribution's Ceph packages, not from PyPI, so
`pip install cephtui` alone cannot bring them. Before anything that needs them is imported, the
launcher tries `import rados`; when that fails it says in one paragraph which package provides the
module and, when it can tell, why this Python does not see it: a venv or pipx made without system site
packages, or a module built for another Python version. `--help` and `--version` work regardless.

Only the standard library is imported here until rados is found.
"""
from __future__ import annotations

import glob
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cephtui.cli.table import NAMES

# Where distributions install python3-rados: Debian/Ubuntu, then RHEL/Fedora/openSUSE (lib64 on 64-bit).
DISTRO_SITE_GLOBS = (
    "/usr/lib/python3/dist-packages",
    "/usr/lib64/python3*/site-packages",
    "/usr/lib/python3*/site-packages",
)
INSTALL_HINT = ("It comes with Ceph from your distribution, not from PyPI: on Debian/Ubuntu "
                "`apt install python3-rados`, on RHEL/Rocky/Fedora/CentOS `dnf install python3-rados`, "
                "on openSUSE `zypper install python3-rados`.")
_TAG = re.compile(r"^rados\.cpython-(\d)(\d+)[-.]")
_NO_CHECK = ("-h", "--help", "--version")
# The command table's names (cephtui/cli/table.py imports nothing heavy: this runs before librados is found).
HEADLESS_COMMANDS = NAMES
# The connection options that take a value: `cephtui --id rbd` is the TUI as client.rbd, not `cephtui rbd`.
_VALUED = frozenset(("-c", "--conf", "--id", "-n", "--name", "-k", "--keyring", "--cluster", "-m", "--mon-host",
                     "--osd-stop-cmd", "--refresh", "--timeout", "--connect-timeout", "--prometheus"))


def headless(args: Sequence[str]) -> bool:
    """Whether the line runs a headless command (or --help/--version) rather than the TUI."""
    return any((a in HEADLESS_COMMANDS and (i == 0 or args[i - 1] not in _VALUED)) or a in _NO_CHECK
               for i, a in enumerate(args))


@dataclass(frozen=True)
class DistroModule:
    """A rados extension module found in a distribution's site directory."""

    path: Path
    version: str | None  # "3.11" from the ABI tag cpython-311; None when the file name carries no tag

    @property
    def directory(self) -> Path:
        return self.path.parent


def find_distro_modules(site_globs: Sequence[str] = DISTRO_SITE_GLOBS) -> list[DistroModule]:
    """Every rados*.so in the distribution's site directories, with the Python version it was built for."""
    found: list[DistroModule] = []
    seen: set[Path] = set()
    for pattern in site_globs:
        for directory in sorted(glob.glob(pattern)):
            for so in sorted(Path(directory).glob("rados*.so")):
                real = so.resolve()
                if real in seen:
                    continue
                seen.add(real)
                m = _TAG.match(so.name)
                found.append(DistroModule(so, f"{m.group(1)}.{m.group(2)}" if m else None))
    return found


def venv_without_system_site(prefix: str | None = None, base_prefix: str | None = None) -> bool:
    """True in a venv (pipx's too) whose pyvenv.cfg says include-system-site-packages = false."""
    prefix = sys.prefix if prefix is None else prefix
    base_prefix = sys.base_prefix if base_prefix is None else base_prefix
    if os.path.realpath(prefix) == os.path.realpath(base_prefix):
        return False
    try:
        text = Path(prefix, "pyvenv.cfg").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip().lower() == "include-system-site-packages":
            return value.strip().lower() != "true"
    return True  # venv's default when the key is absent


VENV_FIX = "`/usr/bin/python3 -m venv --system-site-packages DIR`"
# Set by the one-file build (dist/cephtui.pyz) to its own path before cephtui starts.
PYZ_ENV = "CEPHTUI_PYZ"
PIPX_FIX = "`pipx install --system-site-packages --python /usr/bin/python3 PATH-OR-URL`"


def missing_rados_message(error: BaseException | None = None, *, in_isolated_venv: bool | None = None,
                          modules: Sequence[DistroModule] | None = None, executable: str | None = None,
                          version: str | None = None, path: Sequence[str] | None = None,
                          prefix: str | None = None, pyz: str | None = None) -> str:
    """The paragraph printed when `import rados` fails. Every input can be given, for the tests.

    pyz: the one-file build being run (its __main__ sets $CEPHTUI_PYZ to it, scripts/build-pyz.sh); then
    the fix is to run it with another Python, not to install anything.
    """
    isolated = venv_without_system_site() if in_isolated_venv is None else in_isolated_venv
    mods = find_distro_modules() if modules is None else list(modules)
    exe = (sys.executable or "python3") if executable is None else executable
    ver = f"{sys.version_info[0]}.{sys.version_info[1]}" if version is None else version
    search = {os.path.realpath(p) for p in (sys.path if path is None else path) if p}
    venv = sys.prefix if prefix is None else prefix
    pyz = os.environ.get(PYZ_ENV) if pyz is None else pyz
    if pyz and executable is None:
        exe = os.path.realpath(exe)  # the Python that ran it, not a symlink to it
    own_python = (f"run it with the distribution's own Python: `/usr/bin/python3 {pyz}`" if pyz else
                  f"install cephtui with the distribution's own /usr/bin/python3 ({VENV_FIX}, or {PIPX_FIX})")

    why = f": {type(error).__name__}: {error}." if error is not None else "."
    where_run = f"{pyz} run by {exe}" if pyz else exe
    parts = [f"cephtui: Ceph's Python module `rados` does not import in {where_run} (Python {ver}){why}", INSTALL_HINT]
    same = [m for m in mods if m.version == ver]
    other = sorted({m.version for m in mods if m.version and m.version != ver})
    if isolated:
        module = f"the distribution's module ({same[0].path})" if same else "the distribution's module, once installed,"
        parts.append(f"cephtui runs in a virtual environment ({venv}) made without system site packages, so it "
                     f"does not see {module}. Make the venv with {VENV_FIX}, or with pipx: "
                     "`pipx uninstall cephtui`, then `pipx install --system-site-packages PATH-OR-URL`.")
    if other and not same:
        where = ", ".join(str(m.path) for m in mods if m.version in other)
        parts.append(f"The distribution's module is installed ({where}) but built for Python {' and '.join(other)}, "
                     f"while cephtui runs on Python {ver}: {own_python}.")
    elif same and not isolated:
        visible = [m for m in same if os.path.realpath(m.directory) in search]
        if not visible:
            parts.append(f"The distribution's module for Python {ver} is installed ({same[0].path}), but {exe} does "
                         f"not look in {same[0].directory}: {own_python}.")
        elif error is not None:
            parts.append(f"The distribution's module is installed ({visible[0].path}) and in reach, so the import "
                         "error is the cause (a missing librados library, for instance: reinstall python3-rados).")
    # Not wrapped: the terminal wraps, and a command copied from the message must not hold a line break.
    return "\n".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if argv is None and not headless(args):
        # The TUI: keys typed while it starts wait for it as typed (typeahead.py says why).
        from cephtui import typeahead

        typeahead.hold()
    try:
        import rados  # noqa: F401  (only to learn whether it imports)
    except ImportError as e:
        if not any(a in _NO_CHECK for a in args):
            print(missing_rados_message(e), file=sys.stderr)
            return 1
    from cephtui.cli.dispatch import main as cli_main

    return cli_main(argv)
