"""A recording keeps a binary answer (an osdmap, a compiled CRUSH map) byte for byte, and a replay gives it back.

The look capture records what the CRUSH editor reads (`osd getcrushmap`) and what its preview reads (`osd getmap`):
both are binary, and a UTF-8 decode with replacement characters would hand crushtool and osdmaptool a broken map.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cephtui.ceph.recording import RecordingClient, ReplayClient

CRUSHMAP = Path(__file__).resolve().parents[1] / "fixtures" / "crush" / "crushmap.bin"


@dataclass
class FakeInner:
    """A client that answers mon_raw: the compiled map for getcrushmap, JSON for the rest."""

    def mon_raw(self, prefix: str, inbuf: bytes = b"", **args: Any) -> tuple[bytes, str]:
        if prefix == "osd getcrushmap":
            return CRUSHMAP.read_bytes(), "got crush map from osdmap epoch 7"
        return b'{"epoch": 7}', ""


def test_a_binary_answer_is_replayed_byte_for_byte(tmp_path: Path) -> None:
    binary = CRUSHMAP.read_bytes()
    try:
        binary.decode("utf-8")
        raise AssertionError("the fixture is valid UTF-8: it proves nothing about binary answers")
    except UnicodeDecodeError:
        pass
    rec = RecordingClient(FakeInner())  # type: ignore[arg-type]
    assert rec.mon_raw("osd getcrushmap")[0] == binary
    assert rec.mon("osd dump") == {"epoch": 7}
    rec.save(tmp_path / "rec.json", meta={})
    commands = json.loads((tmp_path / "rec.json").read_text())["commands"]
    assert any("out_b64" in r for r in commands.values()) and any("out" in r for r in commands.values())
    replay = ReplayClient.load(tmp_path / "rec.json")
    assert replay.mon_raw("osd getcrushmap")[0] == binary
    assert replay.mon("osd dump") == {"epoch": 7}
