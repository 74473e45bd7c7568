"""`cephtui config`: the effective settings, each with where it came from (file, profile, flag, default); never
connects. `--example` prints a commented example config file, even when the config file is broken."""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from cephtui.ceph.connection import ConnectionSpec
from cephtui.ceph.errors import CephConnectError
from cephtui.cli.table import Invocation
from cephtui.config.model import Settings
from cephtui.paths import config_path

HELP = "print the effective settings and where each came from"
DESCRIPTION = "Print the effective settings and where each came from (file, profile, flag, default); never connects."
CONNECTS = False


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--example", action="store_true", help="print a commented example config file")
    p.add_argument("--json", action="store_true", help="print JSON")


def early(args: argparse.Namespace) -> int | None:
    """The example needs no config file: printed before one is read (a broken file cannot hide it)."""
    if not args.example:
        return None
    from cephtui.config.example import EXAMPLE

    sys.stdout.write(EXAMPLE)
    return 0


def run(inv: Invocation) -> int:
    return config_command(inv.settings, inv.spec, inv.extra, as_json=inv.args.json)


def config_command(settings: Settings, spec: ConnectionSpec, extra: Sequence[str], *, as_json: bool = False) -> int:
    """`cephtui config`: the effective settings, each with where it came from; never connects."""
    conf_source = settings.source("connection.conf")
    try:
        conffile: str | None = spec.conffile_to_read() or None
        no_file = "none: -m/--mon-host given and no config file" if conffile is None else ""
    except CephConnectError:
        conffile, no_file = spec.resolved_conffile(), ""
    effective = {  # what the connection will actually use where nothing set it
        "connection.conf": (conffile, no_file or (conf_source if settings.connection.conf or
                            conf_source.startswith("flag") else
                            ("default ($CEPH_CONF)" if os.environ.get("CEPH_CONF") else "default"))),
        "connection.name": (spec.name, settings.source("connection.name")
                            if settings.connection.name else settings.source("connection.id")),
        "connection.cluster": (spec.cluster, settings.source("connection.cluster")),
    }
    shown = {key: text for key, text, _ in settings.rows()}
    table: list[tuple[str, Any, str, str]] = []  # key, value, as shown, source
    for key, value, source in settings.items():
        if key == "connection.id":
            continue  # folded into connection.name: the entity actually used
        if key in effective:
            value, source = effective[key]
            shown[key] = json.dumps(value)
        table.append((key, value, shown[key], source))
    if extra:
        table.append(("librados arguments", list(extra), " ".join(extra), "flags (command line or CEPH_ARGS)"))
    if as_json:
        json.dump({"file": settings.path, "file_source": settings.path_source, "profiles": list(settings.profiles),
                   "settings": {k: {"value": v, "source": src} for k, v, _, src in table}}, sys.stdout, indent=2)
        print()
        return 0
    if settings.path:
        how = {"--config": "from --config", "$CEPHTUI_CONFIG": "from $CEPHTUI_CONFIG"}.get(settings.path_source,
                                                                                           "the default location")
        print(f"config file  {settings.path} ({how})")
        print(f"profiles     {', '.join(settings.profiles) or '(none)'}")
    else:
        print(f"config file  none ({config_path()[0]} does not exist): built-in defaults and flags")
    print()
    width = max(len(k) for k, _, _, _ in table)
    vwidth = min(40, max(len(text) for _, _, text, _ in table))
    for key, _, text, source in table:
        print(f"{key:<{width}}  {text:<{vwidth}}  {source}")
    return 0
