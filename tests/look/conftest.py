"""The look tier: the whole app on a replayed capture (tests/lookapp.py's `look_app`), no cluster, and its
screen snapshots. Tests here only look."""
from __future__ import annotations

import sys

import pytest

from tests.lookapp import LOOK, RELEASES, frozen_clock, look_app

__all__ = ["LOOK", "RELEASES", "SIZES", "frozen_clock", "look_app", "snapshots_here"]

# Screen snapshots are pinned to one Python, as Harlequin pins its baselines: fonts aside, a newer Textual
# or Rich on another Python may draw a box differently, which is not this project's regression.
SNAPSHOT_PYTHON = (3, 11)
snapshots_here = pytest.mark.skipif(
    sys.version_info[:2] != SNAPSHOT_PYTHON,
    reason=f"screen snapshots are taken on Python {'.'.join(map(str, SNAPSHOT_PYTHON))}")
SIZES = ((80, 24), (120, 36))
