"""History: what the cluster did while nobody looked (a local SQLite recorder, or the cluster's Prometheus)."""
