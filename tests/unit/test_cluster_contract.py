"""One contract to the cluster (cephtui/ceph/cluster.py): CephClient and every replay offer all of it, and no
code probes a client for what it offers."""
from __future__ import annotations

import ast
import errno
import inspect
import sys
from pathlib import Path
from typing import Any

import pytest

from cephtui.ceph.client import CephClient
from cephtui.ceph.cluster import Cluster, Commands, Tells
from cephtui.ceph.connection import ConnectionSpec
from cephtui.ceph.errors import CephError
from cephtui.ceph.recording import RecordingClient, ReplayClient, ReplaySurface
from tests.lookapp import SentReplay

ROOT = Path(__file__).resolve().parents[2]


def members(proto: type) -> set[str]:
    """A Protocol's members: its annotated attributes and its methods and properties, bases included."""
    names: set[str] = set()
    for cls in proto.__mro__:
        if cls in (object,) or cls.__name__ in ("Protocol", "Generic"):
            continue
        names |= set(getattr(cls, "__annotations__", {}))
        names |= {n for n, v in vars(cls).items() if not n.startswith("_") and (callable(v) or isinstance(v, property))}
    return names


def test_the_views_are_parts_of_the_contract() -> None:
    assert members(Commands) == {"mon", "mgr", "mon_raw", "mgr_raw"}
    assert members(Tells) == {"osd_tell", "mon_tell", "tell_mgr", "mds_tell"}
    assert members(Commands) | members(Tells) < members(Cluster)
    assert {"spec", "read_only", "live", "waiting", "required_cap", "is_mgr_command", "mgr_refusal"} <= members(Cluster)


@pytest.mark.parametrize("cls", [CephClient, ReplayClient, SentReplay])
def test_every_client_offers_the_whole_contract(cls: type) -> None:
    """Looked up on an instance without calling anything (a CephClient's handle raises until it connects)."""
    client: Any = CephClient(ConnectionSpec()) if cls is CephClient else cls({})
    missing = []
    for name in sorted(members(Cluster)):
        try:
            inspect.getattr_static(client, name)
        except AttributeError:
            missing.append(name)
    assert not missing, f"{cls.__name__} lacks {missing}"


def test_a_replay_answers_the_contract_as_a_recording_can() -> None:
    replay = ReplayClient({})
    assert replay.live is False and CephClient().live is True
    assert replay.read_only is False and replay.spec.name == "client.replay"
    assert replay.waiting() is None and replay.mgr_refusal() is None
    assert replay.is_mgr_command("pg dump") and not replay.is_mgr_command("osd dump")
    assert replay.required_cap("osd out") == "more mon caps"
    assert replay.mon_releases() == [] and replay.release_skew() is None
    for call in (lambda: replay.osd_tell(1, "perf dump"), lambda: replay.mon_tell("a", "sessions"),
                 lambda: replay.tell_mgr("dump_osd_network"), replay.commands, lambda: replay.handle):
        with pytest.raises(CephError) as e:
            call()
        assert e.value.errno == errno.ENOTSUP


def test_the_look_capture_recorder_is_a_replay_surface_over_a_live_client() -> None:
    """scripts/capture_look.py's recorder: recorded like a RecordingClient, offered like a replay."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("capture_look", ROOT / "scripts" / "capture_look.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["capture_look"] = mod  # dataclasses look their module up there
    try:
        spec.loader.exec_module(mod)
    finally:
        del sys.modules["capture_look"]
    assert issubclass(mod.AppRecorder, RecordingClient) and issubclass(mod.AppRecorder, ReplaySurface)


def _reached(node: ast.expr) -> str:
    """What a getattr reaches into, through nested getattrs: `client` of getattr(getattr(client, "spec"), "name")."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" and node.args:
        node = node.args[0]
    return ast.unparse(node)


def _probes(path: Path) -> list[str]:
    """`getattr(x, ...)` / `hasattr(x, ...)` where x names a client (client, self.client, self.workflows.client)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr") \
                and node.args and _reached(node.args[0]).split(".")[-1] in ("client", "_client", "c"):
            where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_code_probes_a_client_for_what_it_offers() -> None:
    probes = [p for f in sorted((ROOT / "cephtui").rglob("*.py")) for p in _probes(f)]
    # hoststats' `c` is psutil's cpu times (fields differ by platform), not a client.
    probes = [p for p in probes if not p.startswith("cephtui/ceph/bench/hoststats.py")]
    assert not probes, "\n".join(probes)


def test_the_probe_finder_finds_one(tmp_path: Path) -> None:
    """The check above can fail: the probes the old code had are found."""
    old = tmp_path / "old.py"
    old.write_text('def f(self, client, c):\n'
                   '    a = getattr(self.client, "read_only", False)\n'
                   '    b = getattr(getattr(client, "spec", None), "name", "")\n'
                   '    return getattr(c, "mgr_gate", None)\n')
    assert len(_probes(old)) == 4  # the nested getattr counts twice: both reach for the client
