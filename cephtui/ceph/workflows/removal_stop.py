"""The OSD stop command of a removal: the operator's template, checked, and run without a shell unless asked."""
from __future__ import annotations

import shlex
import shutil
import socket
import string
import subprocess

from cephtui.ceph.workflows.removal import (
    PLACEHOLDERS,
    SHELL_CHARS,
    StopCommandError,
)


def check_stop_template(template: str, shell: bool) -> None:
    """Refuse a template that could not run as meant: an unknown {placeholder}, or shell syntax (&&, |, ;,
    redirections, $(...)) without asking for a shell (it would reach the program as literal words)."""
    if not template.strip():
        return
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]
    except ValueError as e:
        raise StopCommandError(f"the stop command has a stray brace: {e}") from None
    unknown = sorted({f for f in fields if f not in PLACEHOLDERS})
    if unknown:
        raise StopCommandError(f"the stop command uses {', '.join('{' + f + '}' for f in unknown)}; only "
                               f"{', '.join('{' + f + '}' for f in PLACEHOLDERS)} are known")
    if "id" not in fields and "name" not in fields:
        raise StopCommandError("the stop command must name the OSD: {id} (e.g. systemctl stop ceph-osd@{id}) "
                               "or {name} (osd.N)")
    if not shell:
        found = [c for c in SHELL_CHARS if c in template]
        if found:
            raise StopCommandError(f"the stop command contains shell syntax ({' '.join(found)}) but runs without a "
                                   "shell: ask for one (--shell, or 'through /bin/sh' in the form), or drop it")
        try:
            shlex.split(template)
        except ValueError as e:
            raise StopCommandError(f"the stop command does not parse: {e}") from None


def stop_argv(template: str, shell: bool, osd: int, host: str = "") -> list[str] | None:
    """The argv that stops one OSD daemon: the admin's template ({id}, {host}, {name}), systemd when the OSD
    runs on this very host, or None (the operator stops it; the workflow waits until it is down)."""
    if template.strip():
        check_stop_template(template, shell)
        if "{host}" in template and not host:
            raise StopCommandError(f"the stop command needs {{host}}, but osd.{osd}'s host is unknown "
                                   "(no `osd metadata`): give the host name in the command instead")
        values = {"id": str(osd), "host": host, "name": f"osd.{osd}"}
        if shell:  # values quoted for the shell; the operator's own syntax stays as typed
            return ["/bin/sh", "-c", template.format_map({k: shlex.quote(v) for k, v in values.items()})]
        return [part.format_map(values) for part in shlex.split(template)]
    local = not host or host in (socket.gethostname(), socket.getfqdn())
    if local and shutil.which("systemctl") and unit_exists(f"ceph-osd@{osd}"):
        return ["systemctl", "stop", f"ceph-osd@{osd}"]
    return None


def stop_command(template: str, osd: int, host: str = "", shell: bool = False) -> str | None:
    """The stop command as a line to show (the plan, the log); None when the operator stops the OSD."""
    try:
        argv = stop_argv(template, shell, osd, host or "{host}")
    except StopCommandError as e:
        return f"(cannot run: {e})"
    if argv is None:
        return None
    return argv[-1] if shell and template.strip() else shlex.join(argv)


def describe_stop(template: str, shell: bool) -> str:
    if not template.strip():
        return "systemd here / the orchestrator / you"
    return f"`{template}`" + (" through /bin/sh" if shell else "")


def unit_exists(unit: str) -> bool:
    try:
        out = subprocess.run(["systemctl", "list-units", "--all", "--no-legend", unit], capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return unit in out.stdout


def run_argv(argv: list[str]) -> tuple[int, str]:
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired as e:
        return 124, f"no exit within 120 s: {e}"
    except (OSError, subprocess.SubprocessError) as e:
        return 127, str(e)
    return p.returncode, (p.stdout + p.stderr)
