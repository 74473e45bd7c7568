"""Checks the monitors raise about themselves, about auth and versions, and about stretch mode."""
from __future__ import annotations

from cephtui.ceph.doctor.model import Explanation

ENTRIES: tuple[Explanation, ...] = (
    Explanation(
        code="DAEMON_OLD_VERSION",
        title="Daemons run an older Ceph version",
        meaning="Some daemons still run an older build than the rest, and have done so for longer than the "
                "grace period. Several different old versions at once turn this into an error.",
        why="A half-finished upgrade keeps new features switched off, and the next upgrade may not support "
            "jumping from the oldest version still running.",
        causes=("An upgrade stopped part way (a host was skipped or failed).",
                "A daemon was installed from an old package and never restarted after the upgrade.",
                "A host was offline during the upgrade and came back with the old packages."),
        actions=("See which daemons run which build: `ceph versions`.",
                 "Upgrade the packages on the hosts named in the detail, then restart those daemons.",
                 "With cephadm, check the upgrade state: `ceph orch upgrade status`.",
                 "While a planned upgrade is under way: `ceph health mute DAEMON_OLD_VERSION 1w`."),
        options=("mon_warn_on_older_version", "mon_warn_older_version_delay"),
        raised_by="mon",
    ),
    Explanation(
        code="MON_DOWN",
        title="A monitor is out of quorum",
        meaning="A monitor listed in the monmap is not taking part in quorum. The others still form a quorum "
                "as long as a majority of them is up.",
        why="Quorum survives, but with less margin: losing one more monitor may leave no majority, and then "
            "no client can connect and no map can change.",
        causes=("The ceph-mon process stopped or crashed on its host.",
                "The monitor's host is down or cut off from the others on the network.",
                "Its store is damaged or its disk is full (see MON_DISK_CRIT).",
                "Clock skew large enough that it cannot hold a lease."),
        actions=("Find the monitor and its address: `ceph mon dump`.",
                 "Check who is in quorum right now: `ceph quorum_status`.",
                 "Start or restart ceph-mon on that host and read its log if it will not stay up.",
                 "A crashed monitor leaves a report: `ceph crash ls-new`."),
        options=("mon_down_mkfs_grace", "mon_down_uptime_grace", "mon_down_added_grace"),
        raised_by="mon",
    ),
    Explanation(
        code="MON_CLOCK_SKEW",
        title="Monitor clocks disagree",
        meaning="The clocks of the monitor hosts differ by more than the allowed drift.",
        why="Monitors rely on time-limited leases; with skewed clocks leases expire early or late and quorum "
            "starts to flap, which stalls map updates for the whole cluster.",
        causes=("NTP or chrony is not running on a monitor host.",
                "A time server is unreachable, so one host drifts on its own.",
                "A virtual machine was paused or migrated and its clock jumped."),
        actions=("Read the measured skew per monitor: `ceph time-sync-status`.",
                 "Fix time synchronisation on the hosts named in the detail (chrony or NTP); the warning "
                 "clears on the next time check.",
                 "Only as a last resort widen the tolerance: `ceph config set mon mon_clock_drift_allowed "
                 "<seconds>`."),
        options=("mon_clock_drift_allowed", "mon_clock_drift_warn_backoff", "mon_timecheck_interval",
                 "mon_timecheck_skew_interval"),
        raised_by="mon",
    ),
    Explanation(
        code="MON_MSGR2_NOT_ENABLED",
        title="A monitor has no msgr2 address",
        meaning="At least one monitor is only reachable over the old v1 protocol; the monmap has no v2 "
                "address for it.",
        why="Clients and daemons cannot use the newer protocol with that monitor, so encrypted connections "
            "to it are impossible.",
        causes=("The cluster was upgraded from before Nautilus and msgr2 was never switched on.",
                "The monitor listens on a non-default port, which the automatic switch does not handle."),
        actions=("See each monitor's addresses: `ceph mon dump`.",
                 "Add v2 addresses for monitors on the default port: `ceph mon enable-msgr2`.",
                 "A monitor on a custom port needs its v2 address set by hand in the monmap."),
        options=("mon_warn_on_msgr2_not_enabled", "ms_bind_msgr2"),
        raised_by="mon",
    ),
    Explanation(
        code="MON_DISK_LOW",
        title="A monitor's disk is getting full",
        meaning="The filesystem that holds a monitor's store has less free space left than the warning "
                "percentage.",
        why="A monitor that runs out of disk shuts itself down; if that happens to several at once, quorum "
            "is lost.",
        causes=("Logs or other data on the same filesystem keep growing.",
                "The monitor store grew during a long period of unclean PGs.",
                "The filesystem was sized too small for the monitor."),
        actions=("Find the host of the monitor named in the detail: `ceph mon dump`.",
                 "On that host, check the filesystem holding the mon store and remove logs or other files "
                 "you do not need (cephtui cannot see host disks).",
                 "If the store itself is large, compact it: `ceph tell mon.<id> compact` (heavy disk I/O "
                 "for a while)."),
        options=("mon_data_avail_warn",),
        raised_by="mon",
    ),
    Explanation(
        code="MON_DISK_CRIT",
        title="A monitor's disk is almost full",
        meaning="The monitor's filesystem is below the critical free-space percentage.",
        why="The monitor is close to stopping. Once it stops it drops out of quorum, and it cannot rejoin "
            "until space is freed.",
        causes=("The same causes as a low disk, left unattended.",
                "A sudden burst of logging, for example debug levels left high."),
        actions=("Free space on that monitor's host now; old logs and core dumps are the usual quick wins.",
                 "Check whether debug logging was left on: `ceph config dump`.",
                 "Then compact the store if it is big: `ceph tell mon.<id> compact`."),
        options=("mon_data_avail_crit",),
        raised_by="mon",
    ),
    Explanation(
        code="MON_DISK_BIG",
        title="A monitor store is very large",
        meaning="The monitor's own database is bigger than the configured size limit.",
        why="A huge store slows monitor startup, sync to a new monitor and every compaction, and it fills the "
            "disk sooner.",
        causes=("PGs stayed unclean for a long time, so old maps could not be trimmed.",
                "Compaction has not caught up after a big change.",
                "The limit is small for a cluster of this size."),
        actions=("Make sure PGs are active+clean first: the monitors only trim old maps then.",
                 "Compact the store: `ceph tell mon.<id> compact`.",
                 "If the size is expected, raise the limit: `ceph config set mon mon_data_size_warn <bytes>`."),
        options=("mon_data_size_warn",),
        raised_by="mon",
    ),
    Explanation(
        code="MON_NETSPLIT",
        title="Monitors cannot reach each other",
        meaning="Monitors that are up cannot talk to one another: the elector's connection scores show the "
                "network split in two or more parts, between single monitors or whole locations.",
        why="A partitioned cluster may lose quorum or keep flapping between leaders, and clients on the "
            "wrong side lose access.",
        causes=("A switch, router or firewall change cut the path between sites or hosts.",
                "A stretch cluster (known to raise this wrongly there on some releases).",
                "Overloaded links dropping monitor traffic."),
        actions=("See where each monitor sits: `ceph mon dump`.",
                 "See which monitors form the quorum now: `ceph quorum_status`.",
                 "Repair the network between the locations named in the detail; Ceph itself cannot fix it."),
        options=("mon_netsplit_grace_period",),
        raised_by="mon",
        releases="Tentacle 20 (and late Squid 19.2 point releases); not raised by Pacific or Reef. Needs "
                 "three or more monitors and the connectivity election strategy.",
    ),
    Explanation(
        code="AUTH_INSECURE_GLOBAL_ID_RECLAIM",
        title="Clients reconnect the insecure way",
        meaning="Connected clients are reclaiming their global_id with the old method that CVE-2021-20288 "
                "made unsafe. They are let in only because insecure reclaim is still allowed.",
        why="These clients will be refused as soon as insecure reclaim is turned off, so they must be "
            "upgraded before the cluster can be made secure.",
        causes=("Old client libraries (librados, kernel client or QEMU) that predate the fix.",
                "Long-running processes that still have the old library loaded after a package upgrade."),
        actions=("Each monitor lists only its own sessions: look at all of them with `ceph tell mon.<id> "
                 "sessions` and find global_id_status reclaim_insecure.",
                 "Upgrade or restart the clients named in the detail.",
                 "Until they are fixed: `ceph health mute AUTH_INSECURE_GLOBAL_ID_RECLAIM 1w`."),
        options=("mon_warn_on_insecure_global_id_reclaim", "auth_allow_insecure_global_id_reclaim",
                 "auth_expose_insecure_global_id_reclaim"),
        raised_by="mon",
    ),
    Explanation(
        code="AUTH_INSECURE_GLOBAL_ID_RECLAIM_ALLOWED",
        title="Insecure global_id reclaim is allowed",
        meaning="The monitors still accept the unsafe global_id reclaim path. When no connected client "
                "needs it, it can be switched off.",
        why="While it is allowed, an attacker with a valid ticket can impersonate another client's session "
            "(CVE-2021-20288).",
        causes=("The safe default after the CVE fix keeps it on so that old clients keep working.",
                "It was left on after all clients were upgraded."),
        actions=("First make sure AUTH_INSECURE_GLOBAL_ID_RECLAIM is not raised: every client that still "
                 "needs the old path would be refused.",
                 "Turn it off: `ceph config set mon auth_allow_insecure_global_id_reclaim false`.",
                 "Confirm every monitor took the value: `ceph config show mon.<id> "
                 "auth_allow_insecure_global_id_reclaim` (a value from ceph.conf overrides the database)."),
        options=("mon_warn_on_insecure_global_id_reclaim_allowed", "auth_allow_insecure_global_id_reclaim"),
        fix="insecure_reclaim_off",
        raised_by="mon",
    ),
    Explanation(
        code="OSD_NO_DOWN_OUT_INTERVAL",
        title="Down OSDs are never marked out",
        meaning="mon_osd_down_out_interval is 0 on some monitors, so a down OSD stays in forever.",
        why="After a disk or host failure nothing re-replicates its data; the cluster stays degraded until "
            "someone marks the OSD out by hand, as if noout were set permanently.",
        causes=("Someone set it to 0 during maintenance and forgot it.",
                "A ceph.conf on the monitor hosts sets it to 0."),
        actions=("Restore the default: `ceph config rm mon mon_osd_down_out_interval`, or set a value with "
                 "`ceph config set mon mon_osd_down_out_interval 600`.",
                 "Check each monitor's effective value and its source: `ceph config show mon.<id> "
                 "mon_osd_down_out_interval`.",
                 "If manual out is really wanted, silence it: `ceph config set mon "
                 "mon_warn_on_osd_down_out_interval_zero false`."),
        options=("mon_osd_down_out_interval", "mon_warn_on_osd_down_out_interval_zero"),
        fix="config",
        raised_by="mon",
    ),
    Explanation(
        code="AUTH_BAD_CAPS",
        title="Users with capabilities the monitors cannot parse",
        meaning="Some auth entities have capability strings that the monitors reject as invalid.",
        why="Such a user may be unable to do anything at all, and daemons using it can fail to start.",
        causes=("An upgrade made the capability grammar stricter.",
                "Capabilities were typed by hand with a mistake."),
        actions=("Show the entity's current capabilities: `ceph auth get <entity>`.",
                 "Rewrite them in a valid form: `ceph auth caps <entity> mon '<caps>' osd '<caps>'` (this "
                 "replaces all of its capabilities).",
                 "If the entity is no longer used, `ceph auth rm <entity>` deletes its key for good."),
        raised_by="mon",
    ),
    Explanation(
        code="DEGRADED_STRETCH_MODE",
        title="A stretch cluster lost a site",
        meaning="The cluster runs in stretch mode and one of its two data sites is unavailable, so it now "
                "works from one site only.",
        why="Pools drop to their degraded size and minimum; a further failure at the surviving site can stop "
            "I/O or lose data.",
        causes=("A whole site lost power or network.",
                "The link between the sites failed."),
        actions=("See which OSDs and hosts are down: `ceph osd tree down`.",
                 "Restore the lost site or the inter-site link; recovery starts by itself when it returns."),
        options=("mon_warn_on_degraded_stretch_mode",),
        raised_by="mon",
        releases="Stretch mode exists from Pacific 16.",
    ),
    Explanation(
        code="RECOVERING_STRETCH_MODE",
        title="A stretch cluster is recovering",
        meaning="The lost site is back and the cluster is copying data to it before it leaves degraded "
                "stretch mode.",
        why="Until recovery reaches the required ratio, data is not yet fully protected across both sites.",
        causes=("A site came back after an outage.",),
        actions=("Watch recovery progress: `ceph status`.",
                 "Leave it alone unless recovery stalls; if it does, look at PG_DEGRADED and "
                 "PG_AVAILABILITY."),
        options=("mon_stretch_cluster_recovery_ratio",),
        raised_by="mon",
        releases="Stretch mode exists from Pacific 16.",
    ),
    Explanation(
        code="INCORRECT_NUM_BUCKETS_STRETCH_MODE",
        title="Stretch mode needs exactly two sites",
        meaning="The CRUSH map has a number of site buckets other than the two that stretch mode supports.",
        why="Placement rules for stretch mode assume two sites; other layouts give placement the design "
            "does not protect.",
        causes=("A site bucket was added or removed in CRUSH after stretch mode was enabled.",),
        actions=("Look at the CRUSH hierarchy: `ceph osd tree`.",
                 "Move hosts so there are exactly two data-site buckets (this moves data)."),
        raised_by="mon",
        releases="Stretch mode exists from Pacific 16.",
    ),
    Explanation(
        code="UNEVEN_WEIGHTS_STRETCH_MODE",
        title="Stretch sites have different weights",
        meaning="The two data sites of a stretch cluster do not have equal CRUSH weight.",
        why="With unequal sites one fills first, and after losing the bigger site the smaller one may not "
            "hold all the data.",
        causes=("OSDs were added at one site only.",
                "A host was moved between sites."),
        actions=("Compare the weights of the two site buckets: `ceph osd tree`.",
                 "Add or move capacity until the two weights match."),
        raised_by="mon",
        releases="Stretch mode exists from Pacific 16.",
    ),
    Explanation(
        code="NONEXISTENT_MON_CRUSH_LOC_STRETCH_MODE",
        title="A monitor's CRUSH location does not exist",
        meaning="A monitor is placed at a CRUSH location that is not in the CRUSH map.",
        why="Stretch mode decides which site a monitor belongs to from that location, so the tiebreaker logic "
            "can pick the wrong side.",
        causes=("A typo in the location given to the monitor.",
                "The CRUSH bucket was renamed or removed later."),
        actions=("See each monitor's crush location: `ceph mon dump`.",
                 "Correct it: `ceph mon set_location <mon> datacenter=<site>`."),
        raised_by="mon",
        releases="Newer releases only (not raised by Pacific 16 or Reef 18).",
    ),
)
