"""THE list of headless commands: the parser (`cephtui COMMAND --help`), the dispatch and the launcher all read
it. Adding a command is one module here and one line in COMMANDS.

A command's module offers (HELP, DESCRIPTION, add_arguments and run are required; the rest when it needs them):

- `HELP`, `DESCRIPTION`: its line in `cephtui --help`, and the text of `cephtui COMMAND --help`;
- `add_arguments(parser)`: its own options, which go after the command on the command line;
- `adjust(args)`: right after parsing, to reconcile its options (raise cli.args.UsageError: one line, status 2);
- `early(args) -> int or None`: before the config file is read; a status ends the command there
  (`config --example` works with a broken config file);
- `settings(parser, args, settings) -> Settings`: its flags over the config file's values (bench's [bench]);
- `check(invocation)`: before connecting, refuse what cannot work with `invocation.parser.error(...)`;
- `CONNECTS`: False for a command that never connects (`config`); True when absent;
- `run(invocation) -> int`: the command, its exit status; `invocation.client` is connected when it CONNECTS.

Keep a module's top-level imports light: every start of cephtui (the TUI too) builds every command's parser,
so what only `run` needs is imported inside it.
"""
from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cephtui.ceph.connection import ConnectionSpec
    from cephtui.config.model import Settings


@dataclass(frozen=True)
class Command:
    name: str  # as typed: `cephtui NAME`
    module: str  # cephtui.cli.MODULE holds its options, checks and run

    def load(self) -> ModuleType:
        return importlib.import_module(f"cephtui.cli.{self.module}")


COMMANDS = (  # in `cephtui --help`'s order
    Command("snapshot", "snapshot"),
    Command("bench", "bench"),  # and `bench rbd`, its block mode (cephtui/cli/bench_rbd.py)
    Command("config", "config"),
    Command("doctor", "doctor"),
    Command("record", "record"),
    Command("remove", "remove"),
    Command("rbd", "rbd_ls"),  # `rbd ls`
    Command("fs", "fs"),  # `fs status`, `fs clients`
)
NAMES = tuple(c.name for c in COMMANDS)
BY_NAME = {c.name: c for c in COMMANDS}


@dataclass
class Invocation:
    """One run of a command: what was typed, what the config file and the flags make of it, the connection."""

    parser: argparse.ArgumentParser  # the top parser: .error() says a one-line usage error, exit status 2
    args: argparse.Namespace
    settings: Settings
    spec: ConnectionSpec
    extra: Sequence[str]  # librados options given on the command line
    client: Any = None  # a connected cluster.Cluster for a command that CONNECTS, else None
