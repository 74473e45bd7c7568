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


def test_tab_completes_as_a_shell_does() -> None:
    from cephtui.ui.jump import complete

    words = suggestions(["rbd", "rbd-ssd", "images"], [0, 1, 10], users=["client.admin"], buckets=["node1", "default"])
    assert complete("poo", words) == ("pools", ["pools"])
    assert complete("IMA", words) == ("images", ["images"])  # case-insensitive, the name's own case back
    assert complete("rb", words) == ("rbd", ["rbd", "rbd-ssd"])  # the common prefix, both listed
    assert complete("rbd", words) == ("rbd", ["rbd", "rbd-ssd"])  # nothing longer in common: caller cycles
    assert complete("osd.1", words) == ("osd.1", ["osd.1", "osd.10"])
    assert complete("client.a", words)[0] == "client.admin"
    assert complete("node", words)[0] == "node1"
    assert complete("zzz", words) == ("zzz", [])
    assert len(words) == len(set(words))  # "osds" the tab and a pool called osds are one entry


def test_names_are_kept_from_the_snapshot_that_had_them() -> None:
    from types import SimpleNamespace as NS

    from cephtui.ui.jump import Names, names_from

    def snap(**kw: object) -> NS:
        base = dict(capacity=NS(pools=(NS(name="rbd"),)), osd_table=None, crush=None, users=None)
        return NS(**{**base, **kw})

    crush = NS(devices=(NS(id=1), NS(id=0)), buckets=(NS(name="default"), NS(name="node1"), NS(name="default~hdd")))
    n = names_from(snap(crush=crush, users=(NS(name="client.admin"),)), Names())
    assert n == Names(("rbd",), (0, 1), ("client.admin",), ("default", "node1"))
    again = names_from(snap(), n)  # a snapshot of another tab: no tree, no users; the names stay
    assert again is n
    assert names_from(snap(capacity=NS(pools=())), n).pools == ()
    assert resolve("node1", buckets=["node1"]).note == ""  # a known host: no "no tab is called" note
