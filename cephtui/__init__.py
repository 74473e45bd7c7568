"""cephtui: a terminal admin companion for Ceph."""

__version__ = "0.1.0"
