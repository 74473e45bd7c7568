"""Benchmarks: the rados-bench engine, its history, the temporary pool, per-OSD bench, host load."""
