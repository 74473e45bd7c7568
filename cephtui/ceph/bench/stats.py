"""Statistics as obj_bencher computes them, plus the percentiles it lacks."""
from __future__ import annotations

import math
from collections.abc import Sequence


def stddev(values: Sequence[float]) -> float:
    """Sample standard deviation, as obj_bencher's vec_stddev (0 below two values)."""
    n = len(values)
    if n < 2:
        return 0.0
    mean = sum(values) / n
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of an already sorted sequence (0 when empty)."""
    if not sorted_values:
        return 0.0
    k = max(0, min(len(sorted_values) - 1, math.ceil(q / 100 * len(sorted_values)) - 1))
    return sorted_values[k]
