"""The headless commands' one table (cephtui/cli/table.py): every command a module of its own with what the
dispatch needs, the parser built from the table alone, and building it imports none of what only a run needs."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from cephtui import launcher
from cephtui.cli import dispatch, table

CLI = Path(table.__file__).parent
HOOKS = {"adjust", "early", "settings", "check", "run", "add_arguments"}
# What a run needs and the parser does not: none of it may load when cephtui starts (every start builds the
# parsers, the TUI's too).
RUN_ONLY = ("textual", "rbd", "cephtui.ui", "cephtui.ceph.bench.service", "cephtui.ceph.bench.probe",
            "cephtui.ceph.doctor.diagnose", "cephtui.ceph.history.recorder", "cephtui.ceph.history.store",
            "cephtui.ceph.snapshot.builder", "cephtui.ceph.images.reader")


@pytest.mark.parametrize("command", table.COMMANDS, ids=lambda c: c.name)
def test_each_command_is_a_module_with_its_help_options_and_run(command: table.Command) -> None:
    module = command.load()
    assert module.__name__ == f"cephtui.cli.{command.module}"
    assert isinstance(module.HELP, str) and module.HELP
    assert isinstance(module.DESCRIPTION, str) and module.DESCRIPTION
    assert callable(module.add_arguments) and callable(module.run)
    for hook in HOOKS - {"add_arguments", "run"}:
        assert not hasattr(module, hook) or callable(getattr(module, hook)), hook


def test_the_parser_the_dispatch_and_the_launcher_read_the_one_table() -> None:
    top, cmds = dispatch.build_parsers()
    assert tuple(cmds) == table.NAMES  # `cephtui --help` lists them in the table's order
    assert launcher.HEADLESS_COMMANDS == table.NAMES
    assert len(set(table.NAMES)) == len(table.NAMES) and set(table.BY_NAME) == set(table.NAMES)
    for name, parser in cmds.items():
        assert parser.description == table.BY_NAME[name].load().DESCRIPTION


def test_no_command_module_is_left_out_of_the_table() -> None:
    """A module under cephtui/cli that defines HELP and run is a command: it must be in the table."""
    listed = {c.module for c in table.COMMANDS}
    for path in sorted(CLI.glob("*.py")):
        names = {t.id for node in ast.parse(path.read_text()).body if isinstance(node, ast.Assign)
                 for t in node.targets if isinstance(t, ast.Name)}
        funcs = {node.name for node in ast.parse(path.read_text()).body if isinstance(node, ast.FunctionDef)}
        if "HELP" in names and "run" in funcs:
            assert path.stem in listed, f"{path.name} looks like a command but is not in cephtui/cli/table.py"


def test_building_the_parsers_loads_nothing_only_a_run_needs() -> None:
    code = ("import sys\nfrom cephtui.cli import dispatch\ndispatch.build_parsers()\n"
            f"print([m for m in {RUN_ONLY!r} if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "[]", out.stdout


def test_the_launcher_reads_the_table_without_importing_anything_heavy() -> None:
    """The launcher runs before librados is found: the table module imports the standard library only."""
    tree = ast.parse((CLI / "table.py").read_text())
    imported = {a.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names}
    imported |= {node.module.split(".")[0] for node in tree.body if isinstance(node, ast.ImportFrom) and node.module}
    stdlib = {"__future__", "argparse", "importlib", "collections", "dataclasses", "types", "typing"}
    assert imported <= stdlib, imported
