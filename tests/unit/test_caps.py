"""cephx caps: the validator answers exactly as each release's monitor does, and templates are valid."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cephtui.ceph.ops import caps
from cephtui.ceph.ops.caps import CapsError, cli_caps, parse_caps_list, validate

# The corpus (tests/fixtures/caps/corpus.json) was sent to a real monitor of each release (a sandbox
# cluster) as `auth caps client.probe SERVICE TEXT` by scripts/capture_caps_verdicts.py; each
# tests/fixtures/<release>/caps_verdicts.json holds that monitor's verdict per case: None when it
# accepted the caps, else its refusal text. validate(strict=False, release=...) must agree on
# accept/refuse and on the exact text.
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CORPUS = [tuple(c) for c in json.loads((FIXTURES / "caps" / "corpus.json").read_text())]
VERDICT_FILES = sorted(FIXTURES.glob("*/caps_verdicts.json"))
# Pacific's verdicts as (service, text, what the mon said): tests/cluster/test_caps_monitor.py sends
# the same cases to whichever release the sandbox runs.
MON_VERIFIED: list[tuple[str, str, str | None]] = [
    (v[0], v[1], v[2]) for v in json.loads((FIXTURES / "pacific" / "caps_verdicts.json").read_text())["verdicts"]]


def _verdicts() -> list[Any]:
    out = []
    for path in VERDICT_FILES:
        doc = json.loads(path.read_text())
        release = path.parent.name
        for i, (service, text, said) in enumerate(doc["verdicts"]):
            out.append(pytest.param(release, doc["ceph_version"], service, text, said, id=f"{release}-{i}"))
    return out


def test_every_release_answered_the_whole_corpus() -> None:
    assert {p.parent.name for p in VERDICT_FILES} >= {"pacific", "reef"}
    for path in VERDICT_FILES:
        doc = json.loads(path.read_text())
        assert [tuple(v[:2]) for v in doc["verdicts"]] == CORPUS, path
        assert caps.release_number(doc["ceph_version"]) == caps.release_number(path.parent.name), path


@pytest.mark.parametrize("release,version,service,text,mon_says", _verdicts())
def test_agrees_with_each_releases_monitor(release: str, version: str, service: str, text: str,
                                          mon_says: str | None) -> None:
    if mon_says is None:
        validate(service, text, strict=False, release=version)
        return
    with pytest.raises(CapsError) as info:
        validate(service, text, strict=False, release=release)
    # mgr's profile-evaluation refusals add the list of known profiles after the mon's own words
    assert str(info.value) == mon_says or str(info.value).startswith(mon_says + " (known")


def test_without_a_release_the_checker_is_the_strictest() -> None:
    """No release given: Pacific's answer, and whatever it accepts every captured release cephtui supports
    (Pacific on) accepts. Nautilus (only the Python 3.9 client's library) lacks Pacific's fsname caps."""
    accepted = [(s, t) for s, t in CORPUS if caps.is_valid(s, t, strict=False)]
    for path in VERDICT_FILES:
        if caps.release_number(path.parent.name) < 16:
            continue
        said = {(s, t): v for s, t, v in json.loads(path.read_text())["verdicts"]}
        assert [c for c in accepted if said[c] is not None] == [], path


def test_release_names_and_versions() -> None:
    assert caps.release_number("reef") == caps.release_number("18.2.7") == 18
    assert caps.release_number("ceph version 20.2.4 (abc) tentacle (stable)") == 20
    assert caps.release_number(None) == 16 and caps.release_number(17) == 17
    with pytest.raises(ValueError):
        caps.release_number("bobtail-ish")


def test_mds_match_order_is_free_since_reef() -> None:
    for text in ("allow rw fsname=a uid=1", "allow rw gids=1", "allow rw path=/a root_squash uid=1"):
        assert not caps.is_valid("mds", text, release="pacific")
        validate("mds", text, release="reef")
    with pytest.raises(CapsError, match="must start with 'r' or 'rw'") as info:
        validate("mds", "allow r, allow w", release="reef")
    assert info.value.position == len("allow r")
    with pytest.raises(CapsError, match="stopped at 'x'"):
        validate("mds", "allow r, allow rwx", release="reef")  # the unparsed rest holds no `allow`


def test_error_carries_service_text_position_and_pointer() -> None:
    with pytest.raises(CapsError) as info:
        validate("osd", "allow rwz")
    e = info.value
    assert (e.service, e.text, e.position) == ("osd", "allow rwz", 8)
    assert str(e) == "osd capability parse failed, stopped at 'z' of 'allow rwz'"
    assert e.pointer() == "allow rwz\n        ^"
    assert isinstance(e, ValueError)


@pytest.mark.parametrize("service,text,position", [
    ("mon", "allow rwz", 8),
    ("mgr", "allow rwz", 8),
    ("mds", "allow rwz", 8),
    ("osd", "allow rw pool=", 9),  # the value is missing: the grant ends before " pool="
    ("osd", "allow rw pool=a, allow rw pool=", 26),
    ("mon", "allow command osd tree", 18),  # a command with a space must be quoted
    ("mds", "allow rw path=/p fsname=a", 17),  # fsname must come first
    ("osd", "  bogus", 2),  # osd/mds skip leading whitespace before failing
    ("mon", "", 0),
])
def test_stop_positions(service: str, text: str, position: int) -> None:
    with pytest.raises(CapsError) as info:
        validate(service, text)
    assert info.value.position == position


def test_empty_caps_are_refused_like_the_mon_does() -> None:
    with pytest.raises(CapsError, match="stopped at end of ''"):
        validate("mon", "")
    with pytest.raises(CapsError, match="stopped at '' of ''"):
        validate("osd", "")


def test_unknown_service() -> None:
    with pytest.raises(CapsError, match="unknown cap type 'client'"):
        validate("client", "allow r")


def test_strict_refuses_profiles_that_grant_nothing_naming_the_known_ones() -> None:
    # The mon and OSD grammars accept any profile name (verified above: 'profile nosuch' is accepted).
    validate("mon", "profile nosuch", strict=False)
    with pytest.raises(CapsError) as info:
        validate("mon", "profile nosuch")
    assert "unknown mon profile 'nosuch'" in str(info.value) and "bootstrap-osd" in str(info.value)
    assert info.value.position == len("profile ")
    with pytest.raises(CapsError, match="known: read-only, read-write, rbd, rbd-read-only"):
        validate("osd", "allow rw pool=a, profile rdb pool=b")
    # mgr refuses unknown profiles itself; we add the list
    with pytest.raises(CapsError, match=r"unrecognized profile 'nosuch' \(known: read-only"):
        validate("mgr", "profile nosuch", strict=False)
    for name in caps.MON_PROFILES:
        validate("mon", f"profile {name}")
    for name in caps.OSD_PROFILES:
        validate("osd", f"profile {name} pool=x")
    for name in caps.MGR_PROFILES:
        validate("mgr", f"profile {name}")
    validate("mon", "profile 'rbd'")  # quoted names are compared unquoted


def test_mgr_rbd_profile_keys() -> None:
    validate("mgr", "profile rbd pool=a namespace=b")
    with pytest.raises(CapsError, match="profile 'rbd' does not recognize key 'foo'"):
        validate("mgr", "profile rbd pool=a foo=b")


def test_quoted_strings() -> None:
    validate("mon", 'allow command "osd pool get" with pool="my pool" var=size')
    validate("mon", "allow command 'osd tree'")
    validate("osd", 'allow rw pool="my pool" namespace=""')
    validate("mds", "allow rw path='/home/a b'")
    with pytest.raises(CapsError):
        validate("mon", 'allow command ""')  # empty quoted strings are not a str


def test_is_valid_and_parse_caps_list() -> None:
    assert caps.is_valid("osd", "allow rw pool=a") and not caps.is_valid("osd", "allow rw pool=")
    parse_caps_list({"mon": "allow r", "osd": "allow rw pool=x"})
    with pytest.raises(CapsError) as info:
        parse_caps_list({"mon": "allow r", "mds": "allow w"})
    assert info.value.service == "mds"


def test_cli_caps_order() -> None:
    assert cli_caps({"osd": "allow rw pool=x", "mds": "allow", "mon": "allow r", "mgr": "allow r"}) == [
        "mon", "allow r", "mgr", "allow r", "osd", "allow rw pool=x", "mds", "allow"]
    assert cli_caps({"osd": "allow rw pool=x", "mon": "allow r"}) == ["mon", "allow r", "osd", "allow rw pool=x"]


# Templates: each output was also sent to the Pacific mon with `auth caps` and read back unchanged,
# and the CephFS one matches what `ceph fs authorize cfs client.x /p rw` granted there.

def test_rbd_client() -> None:
    assert caps.rbd_client(["a", "b"]) == {
        "mon": "profile rbd", "osd": "profile rbd pool=a, profile rbd pool=b",
        "mgr": "profile rbd pool=a, profile rbd pool=b"}
    assert caps.rbd_client() == {"mon": "profile rbd", "osd": "profile rbd", "mgr": "profile rbd"}
    ro = caps.rbd_client(["vms"], ["images"])
    assert ro["osd"] == "profile rbd pool=vms, profile rbd-read-only pool=images"
    assert caps.rbd_client(["we ird"])["osd"] == 'profile rbd pool="we ird"'


def test_cephfs_client_matches_fs_authorize() -> None:
    assert caps.cephfs_client("cfs", "/p") == {
        "mon": "allow r fsname=cfs", "osd": "allow rw tag cephfs data=cfs", "mds": "allow rw fsname=cfs path=/p"}
    assert caps.cephfs_client("cfs")["mds"] == "allow rw fsname=cfs"  # "/" adds no path
    assert caps.cephfs_client("cfs", "/", write=False, root_squash=True) == {
        "mon": "allow r fsname=cfs", "osd": "allow r tag cephfs data=cfs", "mds": "allow r fsname=cfs root_squash"}
    assert caps.cephfs_client("cfs", "/a b")["mds"] == 'allow rw fsname=cfs path="/a b"'
    with pytest.raises(ValueError):
        caps.cephfs_client("bad/name")
    with pytest.raises(ValueError):
        caps.cephfs_client("cfs", "relative")


@pytest.mark.parametrize("template", [
    caps.rbd_client(["a", "b"]), caps.rbd_client(), caps.cephfs_client("fs1", "/x"),
    caps.rgw_gateway(), caps.read_only_monitoring(),
])
def test_every_template_validates(template: dict[str, str]) -> None:
    parse_caps_list(template)


def test_read_only_monitoring() -> None:
    assert caps.read_only_monitoring() == {"mon": "allow r", "mgr": "allow r"}


def test_pure_module() -> None:
    import ast
    from pathlib import Path
    tree = ast.parse(Path(caps.__file__).read_text())
    names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {(n.module or "").split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not names & {"textual", "rich"}


def test_the_users_wizard_checks_as_the_clusters_release() -> None:
    from types import SimpleNamespace

    from cephtui.ui.screens.wizards.user import mon_release, validated_caps

    text = {"mds": "allow rw fsname=a uid=1"}
    with pytest.raises(ValueError, match="mds cap refused"):
        validated_caps(text)  # no snapshot yet: Pacific's rules, the strictest
    reef = SimpleNamespace(snapshot=SimpleNamespace(mons=SimpleNamespace(release=18)))
    assert mon_release(reef) == 18 and validated_caps(text, mon_release(reef)) == text
    unknown = SimpleNamespace(snapshot=SimpleNamespace(mons=SimpleNamespace(release=0)))
    assert mon_release(unknown) == caps.PACIFIC and mon_release(SimpleNamespace(snapshot=None)) == caps.PACIFIC


# The MDS cases where Reef's (18.2.7) and Tentacle's (20.2.4) monitors answer differently from Pacific's,
# as they answered (tests/cluster/test_caps_monitor.py sends the whole corpus to whichever release runs).
REEF_MDS: list[tuple[str, str | None]] = [
    ("allow rw gids=1", None),
    ("allow rw fsname=a uid=1", None),
    ("allow rw path=/a root_squash uid=1", None),
    ("allow w", caps.MDS_PERM_FLAGS),
    ("allow r, allow w", caps.MDS_PERM_FLAGS),
    ("allow profile rbd", caps.MDS_PERM_FLAGS),
    ("allow ", caps.MDS_PERM_FLAGS),
    ("allow rwz", "mds capability parse failed, stopped at 'z' of 'allow rwz'"),
]


@pytest.mark.parametrize("text,mon_says", REEF_MDS)
def test_mds_grammar_of_reef_and_tentacle(text: str, mon_says: str | None) -> None:
    for release in (caps.REEF, caps.TENTACLE):
        expected = mon_says
        if release == caps.TENTACLE and mon_says == caps.MDS_PERM_FLAGS:
            expected = caps.MDS_PERM_FLAGS_TENTACLE
        if expected is None:
            validate("mds", text, strict=False, release=release)
            continue
        with pytest.raises(CapsError) as info:
            validate("mds", text, strict=False, release=release)
        assert str(info.value) == expected
    if mon_says is None:  # Pacific refuses what Reef added
        with pytest.raises(CapsError):
            validate("mds", text, strict=False)
