"""`cephtui config --example`: a commented config file that loads cleanly with every profile."""
from __future__ import annotations

EXAMPLE = '''\
# cephtui configuration: ~/.config/cephtui/config.toml ($XDG_CONFIG_HOME/cephtui/config.toml),
# or --config PATH, or $CEPHTUI_CONFIG. Precedence, lowest to highest: built-in defaults, the keys
# at the top level, the chosen profile, command-line flags. `cephtui config` shows the effective
# settings and where each one came from.

# Seconds between refreshes (at least 0.2), like --refresh.
refresh = 2

# A theme name (see the command palette's theme list). Uncomment to choose one:
# theme = "cephtui"

# Look, never touch: like --read-only. `cephtui --read-write` overrides it for one run.
read_only = false

# How the OSD removal wizard stops an OSD daemon, like --osd-stop-cmd; {id} is the OSD id, {host}
# its host. Empty: systemd when the OSD runs on this host, else cephtui waits until it is down.
osd_stop_cmd = ""
# The cluster's Prometheus, for weeks of history cephtui did not record ("": the one the dashboard is set to
# use, mgr/dashboard/PROMETHEUS_API_HOST, else cephtui's own recording).
prometheus = ""

# The profile used when --profile is not given. Uncomment to choose one:
# profile = "lab"

# Defaults of the Bench tab's new-run form and of `cephtui bench` (rados bench's own defaults).
[bench]
pool = ""                # "" = none (the form offers rbd when it exists)
mode = "write"           # write, seq or rand
seconds = 10
threads = 16             # concurrent ops, 1 to 1024
block_size = "4M"        # op size: bytes, or "4K", "4M"
object_size = 0          # 0 = the op size
op_timeout = 30          # an op without a reply for this long ends the run with an error
cleanup = true           # remove the written objects afterwards

# One table per cluster: `cephtui --profile lab`. Connection settings (conf, id or name, keyring,
# cluster, mon_host, options) and any of the keys above, which override the top level.
[profiles.lab]
conf = "/etc/ceph/ceph.conf"
id = "admin"                             # or name = "client.admin", not both
# keyring = "/etc/ceph/ceph.client.admin.keyring"
refresh = 1
options = { rados_osd_op_timeout = 30 }  # librados options, as `--rados-osd-op-timeout 30`

[profiles.lab.bench]
pool = "rbd"

[profiles.prod]
conf = "/etc/ceph/prod.conf"
name = "client.cephtui"                  # a key with mon 'allow r' mgr 'allow r' is enough to watch
cluster = "ceph"
# mon_host = "10.0.0.1,10.0.0.2,10.0.0.3"
read_only = true
osd_stop_cmd = "ssh {host} systemctl stop ceph-osd@{id}"
'''

