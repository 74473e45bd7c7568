"""The config file: `$XDG_CONFIG_HOME/cephtui/config.toml` (TOML), defaults for every cluster and per-cluster profiles.

    refresh = 2                 # seconds between refreshes, at least 0.2
    theme = "cephtui"
    read_only = false
    osd_stop_cmd = "ssh {host} systemctl stop ceph-osd@{id}"
    profile = "lab"             # the profile used without --profile

    [bench]                     # the Bench tab's new-run form and `cephtui bench`
    pool = "rbd"
    threads = 16
    block_size = "4M"

    [profiles.lab]              # connection settings, and any key above overriding it
    conf = "/etc/ceph/lab.conf"
    id = "admin"
    options = { rados_osd_op_timeout = 30 }

Precedence, lowest to highest: built-in defaults < top level < the profile < command-line flags
(CEPH_ARGS included). Every value is checked with the same rules as the flag or form it stands for
(bench values by the engine's own BenchParams), and a problem is reported as a ConfigError naming the
file, the line and the key. tomllib gives no positions for keys, so `locate_keys` finds them in the
text.

Modules: model (Settings and its parts), schema (the keys and each value's check), locate (key lines in
the text), load (load_config, parse_config), example (`cephtui config --example`); where the file is:
cephtui.paths. Never imports textual or cephtui.ui: the caller passes the known theme names as a callable.
"""
from __future__ import annotations
