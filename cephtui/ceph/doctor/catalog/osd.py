"""OSD checks: from the OSD map (down, full, flags, CRUSH tunables, release, addresses) and from the
heartbeat statistics the manager collects."""
from __future__ import annotations

from cephtui.ceph.doctor.model import Explanation

ENTRIES: tuple[Explanation, ...] = (
    Explanation(
        code="OSD_DOWN",
        title="OSDs are down",
        meaning="OSDs that are still in the cluster are not up: stopped, crashed, or reported unreachable by "
                "their peers.",
        why="Their PGs run with fewer copies. When the down-out interval passes they are marked out and "
            "their data is copied elsewhere, which costs I/O and space.",
        causes=("The ceph-osd process crashed or was stopped.",
                "The disk under it failed, so it will not start.",
                "The host is down or lost its network.",
                "Peers cannot reach it on the cluster network, so they report it down."),
        actions=("See which OSDs are down and where: `ceph osd tree down`.",
                 "Find the host and devices of one: `ceph osd metadata <id>`.",
                 "Look for a crash report from it: `ceph crash ls-new`.",
                 "Start or restart the OSD on its host and read its log if it stops again.",
                 "To start recovery now instead of waiting: `ceph osd out <id>` (data moves)."),
        options=("osd_heartbeat_grace", "mon_osd_min_down_reporters", "mon_osd_down_out_interval",
                 "mon_osd_down_out_subtree_limit"),
        raised_by="mon",
    ),
    Explanation(
        code="OSD_ORPHAN",
        title="CRUSH lists an OSD that no longer exists",
        meaning="The CRUSH map still has an osd item that is no longer in the OSD map, a leftover from an "
                "incomplete removal.",
        why="It is clutter that makes the tree misleading; if it still carries weight, CRUSH keeps trying "
            "to place data on it.",
        causes=("An OSD was removed with osd rm but never removed from CRUSH.",),
        actions=("Check the item and its weight: `ceph osd tree`.",
                 "Remove it from CRUSH: `ceph osd crush rm osd.<id>` (data moves if it still had weight)."),
        raised_by="mon",
    ),
    Explanation(
        code="OSD_OUT_OF_ORDER_FULL",
        title="Full thresholds are out of order",
        meaning="The capacity thresholds do not rise in the required order: nearfull, then backfillfull, then "
                "full, then the OSD failsafe.",
        why="Ceph quietly raises the higher ones, so the thresholds in effect are not the ones you set and "
            "warnings come later than you expect.",
        causes=("One ratio was changed without adjusting the others.",),
        actions=("Read the current ratios: `ceph osd dump`.",
                 "Set them in order, for example `ceph osd set-nearfull-ratio 0.85`, "
                 "`ceph osd set-backfillfull-ratio 0.90`, then `ceph osd set-full-ratio 0.95`."),
        options=("mon_osd_nearfull_ratio", "mon_osd_backfillfull_ratio", "mon_osd_full_ratio",
                 "osd_failsafe_full_ratio"),
        raised_by="mon",
    ),
    Explanation(
        code="OSD_FULL",
        title="OSDs are full",
        meaning="At least one OSD has passed the full ratio. Ceph stops writes to the pools that use it so "
                "the disk cannot run out completely.",
        why="Clients writing to those pools hang or get errors; deleting data can also be hard while the "
            "cluster is full.",
        causes=("The cluster as a whole is out of space.",
                "Data is unevenly spread and one OSD filled long before the rest.",
                "OSDs were lost and their data recovered onto the survivors."),
        actions=("Find the full OSDs and how far past the ratio they are: `ceph osd df`.",
                 "See which pools hold the data: `ceph df detail`.",
                 "Add capacity, or delete data you do not need.",
                 "As a short-term escape, raise the ratio a little: `ceph osd set-full-ratio <ratio>` "
                 "(risky: the disk can then really fill up).",
                 "Lower the weight of the fullest OSD: `ceph osd reweight <id> <weight>` (data moves)."),
        options=("mon_osd_full_ratio", "osd_failsafe_full_ratio"),
        raised_by="mon",
    ),
    Explanation(
        code="OSD_BACKFILLFULL",
        title="OSDs too full for backfill",
        meaning="Some OSDs are past the backfillfull ratio, or would be once planned backfill lands, so they "
                "refuse incoming backfill.",
        why="Rebalancing and recovery that need those OSDs stall, and PGs may stay degraded; it is the step "
            "just before full.",
        causes=("Uneven data spread across OSDs.",
                "Recovery after losing OSDs pushing data onto the survivors.",
                "Overall capacity running low."),
        actions=("See usage per OSD: `ceph osd df`.",
                 "Preview a rebalance by usage: `ceph osd test-reweight-by-utilization`.",
                 "Apply it: `ceph osd reweight-by-utilization` (data moves).",
                 "Add capacity if the whole cluster is filling."),
        options=("mon_osd_backfillfull_ratio", "mon_reweight_max_change", "mon_reweight_max_osds"),
        fix="reweight_by_utilization",
        raised_by="mon",
    ),
    Explanation(
        code="OSD_NEARFULL",
        title="OSDs are nearly full",
        meaning="Some OSDs have crossed the nearfull ratio, the first capacity warning.",
        why="If nothing changes they reach backfillfull and then full, when writes stop. Often a few OSDs are "
            "much fuller than the average, so the cluster is unbalanced rather than full.",
        causes=("Uneven distribution of PGs or data across OSDs.",
                "Steady growth towards the cluster's capacity.",
                "A failed OSD's data recovered onto the others."),
        actions=("Compare each OSD with the average (VAR column): `ceph osd df`.",
                 "Dry-run a rebalance by usage: `ceph osd test-reweight-by-utilization`.",
                 "Apply it when the preview looks right: `ceph osd reweight-by-utilization` (data moves).",
                 "Check the balancer: `ceph balancer status`.",
                 "Add capacity if the average itself is high."),
        options=("mon_osd_nearfull_ratio", "mon_reweight_min_bytes_per_osd", "mon_reweight_max_change",
                 "mon_reweight_max_osds"),
        fix="reweight_by_utilization",
        raised_by="mon",
    ),
    Explanation(
        code="OSDMAP_FLAGS",
        title="Cluster-wide OSD flags are set",
        meaning="One or more cluster flags that change normal behaviour are set, such as noout, norecover, "
                "nobackfill, norebalance, noscrub or pause.",
        why="Depending on the flag, failed OSDs are not replaced, recovery or scrubs do not run, or client "
            "I/O is paused. Flags left over from maintenance are a common cause of later trouble.",
        causes=("Maintenance that set noout or norebalance and never unset them.",
                "Scrubs paused for performance and forgotten.",
                "The full flag, which Ceph sets itself when OSDs are full."),
        actions=("See exactly which flags are set: `ceph osd dump`.",
                 "Unset one you no longer need: `ceph osd unset <flag>` (norecover, nobackfill or "
                 "norebalance: data starts to move).",
                 "The full flag clears by itself once OSDs drop below the full ratio."),
        fix="cluster_flags",
        raised_by="mon",
    ),
    Explanation(
        code="OSD_FLAGS",
        title="Flags set on single OSDs, hosts or classes",
        meaning="noup, nodown, noin or noout is set on particular OSDs, CRUSH buckets or device classes "
                "rather than cluster-wide.",
        why="Those OSDs are not treated normally: a failed one may never be marked out, or one that restarts "
            "may not come up.",
        causes=("Per-host noout set for a host's maintenance and left behind.",
                "A tool or script that sets per-OSD flags."),
        actions=("The detail names who carries which flags; `ceph osd dump` shows them too.",
                 "Clear them: `ceph osd unset-group <flags> <who>`, for example `ceph osd unset-group noout "
                 "osd.1`.",
                 "Older form for one OSD: `ceph osd rm-noout osd.<id>`."),
        fix="osd_flags",
        raised_by="mon",
    ),
    Explanation(
        code="OLD_CRUSH_TUNABLES",
        title="CRUSH uses legacy tunables",
        meaning="The CRUSH map still uses a tunables profile older than the minimum the monitors expect.",
        why="Old tunables place data less evenly and can leave PGs unable to map; newer clients may also "
            "assume newer behaviour.",
        causes=("The cluster was created long ago and upgraded without updating tunables.",
                "Tunables kept old on purpose for very old kernel clients."),
        actions=("See the current profile: `ceph osd crush show-tunables`.",
                 "Move to the current profile: `ceph osd crush tunables optimal`; this can move a large "
                 "part of all data, so plan it for a quiet period.",
                 "If old kernel clients need it, silence the warning: `ceph config set mon "
                 "mon_warn_on_legacy_crush_tunables false`."),
        options=("mon_warn_on_legacy_crush_tunables", "mon_crush_min_required_version"),
        raised_by="mon",
    ),
    Explanation(
        code="OLD_CRUSH_STRAW_CALC_VERSION",
        title="CRUSH uses the old straw calculation",
        meaning="The CRUSH map uses straw_calc_version 0, the old and buggy way to compute straw bucket "
                "weights.",
        why="Weights in straw buckets do not have the effect you expect, so data spreads unevenly.",
        causes=("A very old cluster never updated.",),
        actions=("Switch to the fixed calculation: `ceph osd crush set-tunable straw_calc_version 1` (some "
                 "data moves).",),
        options=("mon_warn_on_crush_straw_calc_version_zero",),
        raised_by="mon",
    ),
    Explanation(
        code="OSD_NO_SORTBITWISE",
        title="The sortbitwise flag is missing",
        meaning="The sortbitwise OSD map flag is not set; every release since Luminous requires it.",
        why="Newer OSDs will not start without it, so the next upgrade would fail.",
        causes=("A cluster upgraded from before Luminous where the flag was never set.",),
        actions=("Set it: `ceph osd set sortbitwise`.",),
        raised_by="mon",
    ),
    Explanation(
        code="OSD_UPGRADE_FINISHED",
        title="Upgrade done but not declared",
        meaning="Every up OSD runs the new release, yet require_osd_release still names an older one.",
        why="New OSD features stay off, and a later upgrade may refuse to start until this is set.",
        causes=("The last step of the upgrade, declaring the release, was skipped.",),
        actions=("Confirm all daemons run the new version: `ceph versions`.",
                 "Declare it: `ceph osd require-osd-release <release>`; there is no going back, so older "
                 "OSDs can never join afterwards."),
        raised_by="mon",
    ),
    Explanation(
        code="OSD_FILESTORE",
        title="OSDs still use FileStore",
        meaning="Some OSDs use the old FileStore back end, which is deprecated.",
        why="Releases after Reef cannot run FileStore OSDs, so they must be converted before that upgrade.",
        causes=("OSDs created before BlueStore became the default and never redeployed.",),
        actions=("Count OSDs per back end: `ceph osd count-metadata osd_objectstore`.",
                 "Redeploy them one at a time as BlueStore (each one is destroyed and refilled from its "
                 "copies).",
                 "While migrating: `ceph health mute OSD_FILESTORE 4w`."),
        options=("mon_warn_on_filestore_osds",),
        raised_by="mon",
        releases="Quincy 17 and Reef 18 raise it; Pacific 16 does not.",
    ),
    Explanation(
        code="OSD_UNREACHABLE",
        title="An OSD's address is outside the public network",
        meaning="An OSD registered a public address that is not inside public_network.",
        why="Clients may not be able to reach it even though it is up, and then hang until their connections "
            "time out.",
        causes=("The host has several interfaces and the OSD picked the wrong one.",
                "public_network is wrong or incomplete.",
                "A false alarm with IPv6 or with several networks listed, fixed in later point releases."),
        actions=("See the OSD's addresses: `ceph osd dump`.",
                 "Compare with the configured network: `ceph config get mon public_network`.",
                 "Correct public_network or the OSD's public_addr, then restart the OSD.",
                 "For a known false alarm: `ceph health mute OSD_UNREACHABLE`."),
        options=("public_network", "public_addr"),
        raised_by="mon",
        releases="Reef 18.2.4+ and Squid 19 onwards; not raised by Pacific 16. IPv6 false alarms fixed in "
                 "Squid 19.2.2.",
    ),
    Explanation(
        code="TOO_FEW_OSDS",
        title="Fewer OSDs than the default pool size",
        meaning="The cluster has fewer OSDs than osd_pool_default_size, the number of copies new pools get.",
        why="A new pool with the default size cannot place all its copies, so its PGs stay undersized.",
        causes=("A small or test cluster.",
                "OSDs were removed or are still being added."),
        actions=("Count OSDs: `ceph osd stat`.",
                 "Add OSDs.",
                 "For a test cluster only, lower the default for new pools: `ceph config set global "
                 "osd_pool_default_size <n>`."),
        options=("osd_pool_default_size", "mon_warn_on_too_few_osds"),
        raised_by="mgr",
    ),
    Explanation(
        code="OSD_SLOW_PING_TIME_BACK",
        title="Slow heartbeats on the cluster network",
        meaning="Heartbeat round trips between OSDs over the back (cluster) network take longer than the "
                "threshold.",
        why="Replication and recovery traffic uses this network; slow links lead to slow ops and OSDs being "
            "wrongly marked down.",
        causes=("A congested or faulty switch port, cable or NIC.",
                "MTU mismatch between hosts.",
                "An overloaded host that answers heartbeats late.",
                "A stall that is already over (a paused OSD, a host that froze for seconds): Ceph warns on the "
                "largest of its 1, 5 and 15-minute averages, so the warning stays for up to 15 minutes."),
        actions=("Note the OSD pairs in the detail and map them to hosts: `ceph osd find <id>`.",
                 "Get the full list of slow pairs: `ceph tell osd.<id> dump_osd_network`.",
                 "Check the network between the hosts that appear most often; Ceph cannot fix this itself.",
                 "`dump_osd_network` gives the 1, 5 and 15-minute averages: only the 15-minute one high means the "
                 "stall is over and the warning fades by itself (restarting the stalled OSD clears it at once)."),
        options=("mon_warn_on_slow_ping_time", "mon_warn_on_slow_ping_ratio", "osd_heartbeat_grace"),
        raised_by="mgr",
    ),
    Explanation(
        code="OSD_SLOW_PING_TIME_FRONT",
        title="Slow heartbeats on the public network",
        meaning="Heartbeats between OSDs over the front (public) network are slower than the threshold.",
        why="Clients talk to OSDs on this network, so client latency suffers along with the heartbeats.",
        causes=("Congestion or a fault on the public network.",
                "A host under heavy CPU or memory pressure.",
                "Firewall or bonding problems on one host.",
                "A past stall (a paused OSD, a frozen host) still in the 15-minute average, the largest of the "
                "three Ceph compares: the warning outlives the stall by up to 15 minutes."),
        actions=("Find the hosts of the OSDs named in the detail: `ceph osd find <id>`.",
                 "List every slow pair seen by one OSD: `ceph tell osd.<id> dump_osd_network`.",
                 "Look at the network and load of the host that recurs in the list.",
                 "If `dump_osd_network` shows only the 15-minute average high, the stall is over: wait, or restart "
                 "the stalled OSD, which starts the averages afresh."),
        options=("mon_warn_on_slow_ping_time", "mon_warn_on_slow_ping_ratio"),
        raised_by="mgr",
    ),
)
