"""mypy over the package: the type hints are checked, not decoration."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_mypy_is_clean() -> None:
    res = subprocess.run([sys.executable, "-m", "mypy", "cephtui"], cwd=ROOT, capture_output=True, text=True,
                         timeout=240)
    assert res.returncode == 0, res.stdout + res.stderr
