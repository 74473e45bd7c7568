"""Operations: the CLI equivalent matches the command sent, bad values never become commands."""
from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from cephtui.ceph import ops
from cephtui.ceph.errors import CephError, CephStillWaiting, CephTimeout


def test_cli_equivalents_are_what_an_admin_types() -> None:
    assert ops.osd_out([2, 1]).cli == "ceph osd out 1 2"
    assert ops.osd_out([2, 1]).command == {"prefix": "osd out", "ids": ["1", "2"]}
    assert ops.osd_in([3]).cli == "ceph osd in 3"
    assert ops.osd_down([0]).command == {"prefix": "osd down", "ids": ["0"]}
    assert ops.osd_noout([1], True).cli == "ceph osd add-noout 1"
    assert ops.osd_noout([1], False).cli == "ceph osd rm-noout 1"
    rw = ops.osd_reweight(1, "0.85")
    assert rw.cli == "ceph osd reweight 1 0.85" and rw.command == {"prefix": "osd reweight", "id": 1, "weight": 0.85}
    cw = ops.crush_reweight("osd.4", "1.8")
    assert cw.cli == "ceph osd crush reweight osd.4 1.8" and cw.crush_edit == ("--reweight-item", "osd.4", "1.8")
    mv = ops.crush_move("osd.2", [("host", "node2")])
    assert mv.cli == "ceph osd crush move osd.2 host=node2"
    assert mv.command == {"prefix": "osd crush move", "name": "osd.2", "args": ["host=node2"]}
    add = ops.crush_add_bucket("rack1", "rack", [("root", "default")])
    assert add.cli == "ceph osd crush add-bucket rack1 rack root=default"
    assert add.crush_edit == ("--add-bucket", "rack1", "rack", "--loc", "root", "default")
    rule = ops.rule_create_replicated("fast", "default", "host", "ssd")
    assert rule.cli == "ceph osd crush rule create-replicated fast default host ssd"
    ec = ops.ec_profile_set("ec21", "2", "1", "osd")
    assert ec.cli == ("ceph osd erasure-code-profile set ec21 k=2 m=1 plugin=jerasure crush-failure-domain=osd "
                      "crush-root=default")
    setmap = ops.set_crush_map(b"\x01", prior_version=7)
    assert setmap.cli == "ceph osd setcrushmap -i crushmap.bin 7" and setmap.inbuf == b"\x01"


def test_every_cli_parses_back_to_its_own_arguments() -> None:
    """The words after the prefix are the values sent, in order: what you see is what runs."""
    for op in (ops.osd_out([1, 2]), ops.crush_move("host2", [("root", "default")]),
               ops.rule_create_replicated("r", "default", "osd"), ops.crush_rename_bucket("a", "b")):
        words = shlex.split(op.cli)[1:]
        assert words[:len(op.prefix.split())] == op.prefix.split()
        flat: list[str] = []
        for _, v in op.args:
            flat += [str(x) for x in v] if isinstance(v, list) else [str(v)]
        assert words[len(op.prefix.split()):] == flat


@pytest.mark.parametrize("value, message", [
    ("2", "between 0 and 1"), ("-0.1", "between 0 and 1"), ("abc", "must be a number"), ("", "must be a number"),
    ("nan", "finite"),
])
def test_bad_reweight_is_refused(value: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ops.osd_reweight(1, value)


@pytest.mark.parametrize("half_typed", ["0.", ".", "1.", "-", "+", "1e", "1e-", "2.5E+", "-.", " 0. "])
@pytest.mark.parametrize("parse", [ops.parse_fraction, ops.parse_weight], ids=["fraction", "weight"])
def test_a_half_typed_number_is_refused_as_incomplete(parse: Any, half_typed: str) -> None:
    """`0.` is a number still being typed (keys lost in a burst left one in the reweight field, and Python
    reads it as 0: a full drain): refused, and said so, never read as 0."""
    with pytest.raises(ValueError, match=r"'.*' is an incomplete number: finish typing it"):
        parse(half_typed)
    with pytest.raises(ValueError, match="incomplete number"):
        ops.osd_reweight(1, half_typed)


@pytest.mark.parametrize("typed, value", [("0.5", 0.5), (".5", 0.5), ("1", 1.0), ("0", 0.0), (" 0.25 ", 0.25),
                                          ("+0.5", 0.5), ("5e-1", 0.5), ("1.0E0", 1.0), ("-0", 0.0)])
def test_a_complete_number_is_read(typed: str, value: float) -> None:
    assert ops.parse_fraction(typed) == value
    assert ops.osd_reweight(1, typed).args[-1][1] == value


@pytest.mark.parametrize("typed", ["e", "1_0", "\uff11", "0x1", "1..2", "1e5e", "0.5.", "½", "abc"])
def test_what_is_no_number_at_all_is_not_called_incomplete(typed: str) -> None:
    """Python's float() takes "1_0" and other scripts' digits ("１"); a form takes digits as typed."""
    with pytest.raises(ValueError, match="must be a number"):
        ops.parse_fraction(typed.encode().decode("unicode_escape"))


@pytest.mark.parametrize("value, message", [("-1", "cannot be negative"), ("x", "must be a number"),
                                            ("70000", "too large")])
def test_bad_crush_weight_is_refused(value: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ops.crush_reweight("osd.1", value)


def test_bad_names_and_ec_values_are_refused() -> None:
    with pytest.raises(ValueError, match="may only contain"):
        ops.crush_add_bucket("rack 1", "rack")
    with pytest.raises(ValueError, match="empty"):
        ops.crush_move("", [("host", "a")])
    with pytest.raises(ValueError, match="choose where"):
        ops.crush_move("osd.1", [])
    with pytest.raises(ValueError, match="k must be at least 2"):
        ops.ec_profile_set("p", "1", "1")
    with pytest.raises(ValueError, match="whole numbers"):
        ops.ec_profile_set("p", "two", "1")
    with pytest.raises(ValueError, match="no OSD selected"):
        ops.osd_out([])


def test_set_device_class_removes_the_old_class_first() -> None:
    steps = ops.set_device_class([1, 2], "ssd", {1: "hdd", 2: ""})
    assert [s.cli for s in steps] == ["ceph osd crush rm-device-class osd.1",
                                      "ceph osd crush set-device-class ssd osd.1 osd.2"]
    with pytest.raises(ValueError, match="already has class ssd"):
        ops.set_device_class([1], "ssd", {1: "ssd"})


def test_destroying_operations_need_the_typed_name() -> None:
    assert ops.crush_remove_bucket("rack9").confirm_text == "rack9"
    assert ops.rule_remove("old").confirm_text == "old"
    assert ops.osd_out([1]).confirm_text is None


class _Refusing:
    def mon_raw(self, prefix: str, inbuf: bytes = b"", **args: object) -> tuple[bytes, str]:
        raise CephError(16, "osd.1 has already bound to class 'hdd'", prefix)


class _Accepting:
    def mon_raw(self, prefix: str, inbuf: bytes = b"", **args: object) -> tuple[bytes, str]:
        return b"", "marked out osd.1. "


def test_run_audits_success_and_refusal(tmp_path: Path) -> None:
    audit = ops.AuditLog(tmp_path / "a" / "audit.log", cluster="fsid", entity="client.admin")
    assert ops.run(_Accepting(), ops.osd_out([1]), audit) == "marked out osd.1."
    with pytest.raises(CephError):
        ops.run(_Refusing(), ops.set_device_class([1], "ssd", {})[0], audit)
    lines = [json.loads(x) for x in (tmp_path / "a" / "audit.log").read_text().splitlines()]
    assert [(e["cli"], e["ok"]) for e in lines] == [("ceph osd out 1", True),
                                                    ("ceph osd crush set-device-class ssd osd.1", False)]
    assert "already bound" in lines[1]["message"] and lines[0]["fsid"] == "fsid"
    assert [(e["rc"], e["identity"]) for e in lines] == [(0, "client.admin"), (-16, "client.admin")]
    assert lines[1]["command"] == {"prefix": "osd crush set-device-class", "class": "ssd", "ids": ["1"]}
    assert audit.tail(1)[0]["ok"] is False and audit.session == lines
    # Owner-only, like a keyring: it names the cluster and what was done to it.
    assert (tmp_path / "a" / "audit.log").stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "a").stat().st_mode & 0o777 == 0o700


def test_audit_log_masks_secrets(tmp_path: Path) -> None:
    key = "AQBnP1RlAAAAABAAsE3l3Jc0vHwz8y1Wq0mD4g=="
    audit = ops.AuditLog(tmp_path / "audit.log", entity="client.admin")
    op = ops.Operation("Import", "auth import", (("note", f"key = {key}"),), f"ceph auth import # {key}")
    audit.record(op, False, f"bad key {key} [errno 22]")
    text = (tmp_path / "audit.log").read_text()
    assert key not in text and "[secret redacted]" in text and audit.session[0]["rc"] == -22


def test_refusal_hints_never_flip_switches() -> None:
    refused = CephError(1, "pool deletion is disabled; you must first set the mon_allow_pool_delete config option "
                           "to true before you can destroy a pool", "osd pool delete")
    hint = ops.explain_refusal(ops.pool_delete("p"), refused)
    assert hint is not None and "ceph config set mon mon_allow_pool_delete true" in hint and "never" in hint
    assert ops.explain_refusal(ops.osd_out([1]), refused) is None


def test_a_command_without_an_answer_is_not_called_refused() -> None:
    """librados gave up waiting (the op timeout; a CI run's loaded mon took longer than 5 s to commit): the command
    may still be applied, so the hint says to look before running it again. One never sent says nothing of it."""
    op = ops.crush_add_bucket("h2", "host", [("root", "default")])
    unanswered = CephTimeout(110, "timed out", op.prefix)
    assert ops.is_unanswered(unanswered)
    hint = ops.explain_refusal(op, unanswered)
    assert hint is not None and "not a refusal" in hint and "before running it again" in hint
    never_sent = CephStillWaiting(110, "an earlier `osd crush add-bucket` is still waiting; not sent again", op.prefix)
    assert not ops.is_unanswered(never_sent) and ops.explain_refusal(op, never_sent) is None
    assert not ops.is_unanswered(CephError(22, "refused", op.prefix))


def test_the_confirmation_says_no_answer_not_refused() -> None:
    from cephtui.ui.screens.confirm import NO_ANSWER, ConfirmScreen

    op = ops.osd_out([1])
    shown = ConfirmScreen._report([(op, False, NO_ANSWER + "timed out [errno 110]")], [op]).plain
    assert shown.startswith("✖ no answer: ceph osd out 1") and "refused" not in shown, shown
    assert "  timed out [errno 110]" in shown and NO_ANSWER + "timed" not in shown, shown
    refused = ConfirmScreen._report([(op, False, "osd.1 does not exist [errno 2]")], [op]).plain
    assert refused.startswith("✖ refused: ceph osd out 1"), refused


def test_pool_and_auth_operations() -> None:
    assert ops.pool_set_quota("p", "max_bytes", 1024).cli == "ceph osd pool set-quota p max_bytes 1024"
    assert ops.pool_rename("a", "b").command == {"prefix": "osd pool rename", "srcpool": "a", "destpool": "b"}
    d = ops.pool_delete("p")
    assert d.confirm_text == "p" and d.command["yes_i_really_really_mean_it"] is True
    made = ops.auth_get_or_create("client.rbd", {"osd": "profile rbd pool=a", "mon": "profile rbd"})
    assert made.cli == "ceph auth get-or-create client.rbd mon 'profile rbd' osd 'profile rbd pool=a'"
    assert made.command["caps"] == ["mon", "profile rbd", "osd", "profile rbd pool=a"]
    assert ops.auth_del("client.x").confirm_text == "client.x"
    with pytest.raises(ValueError, match="not an entity name"):
        ops.auth_get_or_create("bob", {"mon": "allow r"})
    with pytest.raises(ValueError, match="at least one capability"):
        ops.auth_caps("client.x", {"mon": " "})


def test_tentacle_keys_are_masked_whole() -> None:
    """Tentacle's 60-character type-2 keys (this one from its `ceph-authtool --gen-print-key`), bare in
    a message as well as assigned: none of it may be left."""
    from cephtui.ceph.secrets import MASK, redact

    key = "AgAlewRrJf4pECAAwD3AzvaUcbNFZ1xCuA7q8phYUeuetJ6f36WSFp1wILE="
    for text in (f"bad {key} here", f"key = {key}", f'{{"key": "{key}"}}'):
        out = redact(text)
        assert MASK in out and not any(key[i:i + 12] in out for i in range(0, len(key) - 12)), out


def test_the_bench_form_refuses_a_half_typed_number_as_incomplete() -> None:
    from cephtui.ui.screens.bench_forms import float_field as _float

    with pytest.raises(ops.IncompleteNumber, match="seconds '10.' is an incomplete number"):
        _float("10.", "seconds")
    with pytest.raises(ValueError, match="seconds: 'abc' is not a number"):
        _float("abc", "seconds")
    assert _float("2.5", "seconds") == 2.5


def test_a_bucket_rename_moves_nothing_now_and_says_what_a_restart_would_do() -> None:
    """OSDs place themselves at their crush location on start (osd_crush_update_on_start): root=default
    host=<hostname>. Renaming `default` or a host is typed, and says so; a rack is a plain rename."""
    rack = ops.crush_rename_bucket("rack1", "rackA", "rack")
    assert rack.effect == "no data moves now: CRUSH places by bucket ids, not names" and not rack.confirm_text
    root = ops.crush_rename_bucket("default", "main", "root")
    assert root.confirm_text == "default" and "creates a new root `default` and moves there, out of main" in \
        root.effect and "crush_location (root=main host=…)" in root.effect
    host = ops.crush_rename_bucket("vm", "node1", "host")
    assert host.confirm_text == "vm" and "creates a new host vm under root default" in host.effect
