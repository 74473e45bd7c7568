"""`:` jump lines: what an admin types and where it goes."""
from __future__ import annotations

import pytest

from cephtui.ui.jump import TAB_NAMES, resolve, row_names, suggestions


@pytest.mark.parametrize("text, tab, reveal, filter_", [
    ("osds", "osds", "", ""),
    ("  OSD  ", "osds", "", ""),
    ("4", "crush", "", ""),  # a digit is the tab of that key
    ("osd.3", "osds", "osd.3", ""),
    ("osd 12", "osds", "osd.12", ""),
    ("osd node1", "osds", "node1", "node1"),  # a host through the OSD tab's filter
    ("1.2f", "pgs", "1.2f", "1.2f"),
    ("1.2F", "pgs", "1.2f", "1.2f"),
    ("pg degraded", "pgs", "degraded", "degraded"),
    ("client.admin", "users", "client.admin", ""),
    ("bootstrap-osd.x", "users", "bootstrap-osd.x", ""),
    ("rbd", "pools", "rbd", ""),
    ("pool rbd", "pools", "rbd", ""),
    ("crush default", "crush", "default", ""),
    ("maint", "maintenance", "", ""),
    ("audit", "activity", "", ""),
])
def test_resolve_goes_where_an_admin_means(text: str, tab: str, reveal: str, filter_: str) -> None:
    j = resolve(text, pools=["rbd", "cephfs_data"])
    assert (j.tab, j.reveal, j.filter, j.error) == (tab, reveal, filter_, "")


def test_unknown_word_filters_the_osd_tree_and_says_so() -> None:
    j = resolve("rack7", pools=["rbd"])
    assert (j.tab, j.filter) == ("osds", "rack7") and "rack7" in j.note


def test_commands_and_errors() -> None:
    assert resolve("q").command == "quit" and resolve("quit").command == "quit"
    assert resolve("help").command == "help"
    assert (resolve("theme cephtui-light").command, resolve("theme cephtui-light").arg) == ("theme", "cephtui-light")
    assert resolve("   ").error
    assert resolve("10").tab == "osds" and resolve("10").filter == "10"  # not a tab: no tab 10


def test_every_tab_has_a_name_and_suggestions_include_them() -> None:
    s = suggestions(["rbd"], [0, 1], ["cephtui-light"])
    assert all(names[0] in s for names in TAB_NAMES.values())
    assert {"rbd", "osd.0", "osd.1", "theme cephtui-light"} <= set(s)
    assert len({n for names in TAB_NAMES.values() for n in names}) == sum(len(v) for v in TAB_NAMES.values())


def test_row_names_are_the_words_of_the_first_two_cells() -> None:
    assert "osd.3" in row_names(["    ● osd.3", "hdd", "up in"])
    assert "node1" in row_names(["  ▾ host node1", ""])
    assert "rbd" in row_names(["2", "rbd", "replicated"])
    assert "up" not in row_names(["osd.1", "hdd", "up"])
