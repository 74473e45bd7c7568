"""replace_text: whole files, 0600, and two threads saving one file at once both succeed (quitting paused a
removal while its tick saved it: they shared one temporary file, and one of them failed)."""
from __future__ import annotations

import json
import stat
import threading
from pathlib import Path

from cephtui.ceph.owner_only import replace_text


def test_two_threads_saving_one_file_both_succeed(tmp_path: Path) -> None:
    path = tmp_path / "state" / "removal-x.json"
    errors: list[BaseException] = []
    start = threading.Barrier(2)

    def save(who: str) -> None:
        start.wait()
        try:
            for i in range(300):
                replace_text(path, json.dumps({"who": who, "i": i}))
        except BaseException as e:  # collected: the assertion below names it
            errors.append(e)
    threads = [threading.Thread(target=save, args=(w,)) for w in ("tick", "pause")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors[:1]
    assert json.loads(path.read_text())["i"] == 299  # whole, never half
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left behind
