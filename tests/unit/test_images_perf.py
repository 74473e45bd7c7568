"""Per-image IO (cephtui/ceph/images/perf.py) against a real capture (scripts/capture_images_fixture.py): the
mgr's `rbd perf image stats` answer and `rbd perf image iostat` (--format json, and plain) computed from the
same report while two `rbd bench` runs wrote, one with 16 IOs in flight and one with 1."""
from __future__ import annotations

import json
import re
from typing import Any

import pytest

from cephtui.ceph.images import perf
from cephtui.cli.rbd_ls import rbd_bytes
from tests.conftest import FIXTURES

CAPTURE = json.loads((FIXTURES / "images" / "perf_stats.json").read_text())
KEYS = ("write_ops", "read_ops", "write_bytes", "read_bytes", "write_latency", "read_latency")
TITLES = ("WR", "RD", "WR_BYTES", "RD_BYTES", "WR_LAT", "RD_LAT")  # iostat's plain columns, in KEYS' order


def iostat_table() -> dict[str, dict[str, str]]:
    """`rbd perf image iostat`'s plain table by image: the name left-aligned, then right-aligned cells, each
    ending where its title ends."""
    header, *rows = CAPTURE["iostat_plain"]
    titles = [(m.group(), m.end()) for m in re.finditer(r"\S+", header)]
    assert [t for t, _ in titles] == ["NAME", *TITLES]
    out = {}
    for line in rows:
        name = line.split()[0]
        cells, start = {}, len(name)
        for title, end in titles[1:]:
            cells[title] = line[start:end].strip()
            start = end
        out[name] = cells
    return out


def test_the_same_images_and_numbers_as_iostat_json() -> None:
    report = perf.parse_stats(CAPTURE["mgr"])
    assert report.timestamp == CAPTURE["mgr"]["timestamp"] > 0
    assert [r.to_json() for r in report.images] == CAPTURE["iostat_json"]
    assert {r.image for r in report.images} == {b["image"] for b in CAPTURE["benches"]}
    assert all(r.pool == CAPTURE["pool_spec"] and r.spec == f"{r.pool}/{r.image}" for r in report.images)
    busy = next(r for r in report.images if r.image == max(CAPTURE["benches"], key=lambda b: b["io_threads"])["image"])
    assert busy.write_ops > 0 and busy.write_bytes > 0 and busy.write_latency > 0
    assert all(r.read_ops == r.read_bytes == r.read_latency == 0 for r in report.images)  # writes only


def test_ranked_is_iostats_order() -> None:
    report = perf.parse_stats(CAPTURE["mgr"])
    assert CAPTURE["sort_by"] == "write_ops"
    assert [r.image for r in perf.ranked(report, "write_ops")] == [i["image"] for i in CAPTURE["iostat_json"]]
    # the bench with more IOs in flight is the busier one
    by_threads = [b["image"] for b in sorted(CAPTURE["benches"], key=lambda b: -b["io_threads"])]
    assert [r.image for r in perf.ranked(report, "write_ops")] == by_threads
    for key in KEYS:
        values = [r.value(key) for r in perf.ranked(report, key)]
        assert values == sorted(values, reverse=True)


def test_latency_and_bytes_words_as_iostat_prints_them() -> None:
    table = iostat_table()
    report = perf.parse_stats(CAPTURE["mgr"])
    assert sorted(table) == sorted(r.image for r in report.images)
    for r in report.images:
        row = table[r.image]
        assert perf.latency_words(r.write_latency) == row["WR_LAT"]
        assert perf.latency_words(r.read_latency) == row["RD_LAT"]
        # bytes per second: Ceph's byte_u_t of the whole number, as `rbd ls -l` prints sizes
        assert f"{rbd_bytes(int(r.write_bytes))}/s" == row["WR_BYTES"]
        assert f"{rbd_bytes(int(r.read_bytes))}/s" == row["RD_BYTES"]
    assert any(row["WR"].endswith("k/s") for row in table.values())  # both forms of the rate were seen
    assert any(not row["WR"].endswith("k/s") for row in table.values())


def test_rate_words_as_iostat_prints_them() -> None:
    table = iostat_table()
    for r in perf.parse_stats(CAPTURE["mgr"]).images:
        assert perf.rate_words(r.write_ops) == table[r.image]["WR"]
        assert perf.rate_words(r.read_ops) == table[r.image]["RD"]


def test_before_the_first_numbers_the_answer_is_empty() -> None:
    first = perf.parse_stats(CAPTURE["mgr_first"])
    assert first.images == () and first.timestamp <= CAPTURE["mgr"]["timestamp"]


class Replay:
    """The mgr line, answering the captured query only."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, dict[str, Any]]] = []

    def mgr(self, prefix: str, **args: Any) -> Any:
        self.asked.append((prefix, args))
        assert (prefix, args) == ("rbd perf image stats", {"pool_spec": CAPTURE["pool_spec"],
                                                            "sort_by": CAPTURE["sort_by"]})
        return CAPTURE["mgr"]


def test_image_stats_asks_what_iostat_asks() -> None:
    client = Replay()
    report = perf.image_stats(client, CAPTURE["pool_spec"], "write_ops")
    assert [r.to_json() for r in report.images] == CAPTURE["iostat_json"] and len(client.asked) == 1
    with pytest.raises(ValueError, match="sort_by must be one of write_ops, read_ops"):
        perf.image_stats(client, sort_by="iops")
    assert len(client.asked) == 1  # refused before asking


@pytest.mark.parametrize("answer", [None, [], "Error EINVAL", 3])
def test_an_answer_that_is_not_a_report_is_refused(answer: Any) -> None:
    with pytest.raises(ValueError, match="unexpected answer from rbd perf image stats"):
        perf.parse_stats(answer)
