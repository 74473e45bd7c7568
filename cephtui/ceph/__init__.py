"""The cluster side of cephtui. Never imports textual, rich, cephtui.ui or cephtui.config (enforced by
tests/unit/test_boundary.py)."""
