"""Pure helpers of the images model: timestamps from every release's python3-rbd, what a shrink cuts off."""
from __future__ import annotations

import datetime as dt

from cephtui.ceph.images.model import ImageRef, naive_utc, utcnow
from cephtui.ceph.images.reader import bytes_past

MiB = 1024 * 1024


def test_timestamps_are_naive_utc_whatever_the_release_gives() -> None:
    naive = dt.datetime(2026, 11, 28, 22, 57, 46)  # Pacific's and Reef's python3-rbd: utcfromtimestamp
    aware = dt.datetime(2026, 11, 28, 23, 57, 46, tzinfo=dt.timezone(dt.timedelta(hours=1)))  # Tentacle's: aware
    assert naive_utc(naive) == naive == naive_utc(aware)
    assert naive_utc(None) is None and naive_utc("2026-11-28") is None
    assert utcnow().tzinfo is None and abs((utcnow() - naive_utc(dt.datetime.now(dt.timezone.utc))).total_seconds()) < 5


def test_bytes_past_a_new_end_counts_only_what_lies_beyond_it() -> None:
    extents = ((0, 4 * MiB), (40 * MiB, 4 * MiB))  # written at 0 and at 40 MiB
    assert bytes_past(extents, 32 * MiB) == 4 * MiB
    assert bytes_past(extents, 42 * MiB) == 2 * MiB  # an extent cut in the middle
    assert bytes_past(extents, 2 * MiB) == 6 * MiB
    assert bytes_past(extents, 64 * MiB) == 0 and bytes_past((), 0) == 0


def test_an_image_spec_is_rbds() -> None:
    assert ImageRef("rbd", "vm-100-disk-0").spec == "rbd/vm-100-disk-0"
    assert ImageRef("rbd", "a", "ns1").spec == "rbd/ns1/a" and ImageRef("rbd", "a", "ns1").place == "rbd/ns1"
