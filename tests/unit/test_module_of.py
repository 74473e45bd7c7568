"""Which mgr module serves a command: a refusal of a command missing from the cluster's table names the module
that is not running rather than calling it another release's command (seen on Debian's Reef)."""
from __future__ import annotations

from cephtui.ceph.commands import module_of


def test_the_longest_known_start_of_the_command_names_its_module() -> None:
    assert module_of("crash ls") == "crash"
    assert module_of("crash archive-all") == "crash"
    assert module_of("balancer optimize") == "balancer"
    assert module_of("osd pool autoscale-status") == "pg_autoscaler"
    assert module_of("fs subvolumegroup ls") == "volumes"
    assert module_of("fs status") == "status"


def test_commands_of_the_mons_and_the_mgr_itself_name_no_module() -> None:
    assert module_of("osd pool ls") == ""  # a mon command, not autoscale-status
    assert module_of("pg dump") == ""  # the mgr's own (MgrCommands.h), no module
    assert module_of("fs ls") == ""
    assert module_of("") == ""
