"""The cluster side of cephtui. Never imports textual (enforced by tests/unit/test_boundary.py)."""
