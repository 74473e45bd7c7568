"""What the poller reads: `ceph` JSON parsed into frozen models, and the snapshot built from it."""
