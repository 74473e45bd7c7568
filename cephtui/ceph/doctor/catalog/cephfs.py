"""CephFS checks: those the monitors compute from the file system map (FS_DEGRADED, MDS_ALL_DOWN …, in Ceph's
src/mds/MDSMap.cc and FSMap.cc) and those each MDS daemon reports in its beacon (src/mds/Beacon.cc, named in
src/messages/MMDSBeacon.h's mds_metric_name), as doc/cephfs/health-messages.rst describes them.

The codes are what `ceph health` raises, not the MDS_HEALTH_* enum names the documentation's headings use:
the enum MDS_HEALTH_READ_ONLY is raised as MDS_READ_ONLY. session_timeout, max_mds, standby_count_wanted,
joinable and inline_data are settings of one file system (`ceph fs set <fs> …`), not config options, so they
are never in `options`. Where the File systems tab (:fs) is named, it marks and lists first the client a
check names by its `client_id`."""
from __future__ import annotations

from cephtui.ceph.doctor.model import Explanation

ENTRIES: tuple[Explanation, ...] = (
    # --- from the file system map (the monitors) ------------------------------------------------------------
    Explanation(
        code="FS_DEGRADED",
        title="A file system is degraded",
        meaning="At least one MDS rank of the file system is failed, damaged, or not active yet: replaying "
                "its journal, resolving, reconnecting to clients or rejoining after a failover.",
        why="Clients may pause metadata operations on that file system until every rank is active again.",
        causes=("An MDS daemon died and a standby is taking over its rank, replaying the journal first.",
                "No standby was free to take over a failed rank.",
                "A rank was marked damaged after its metadata could not be read.",
                "A long journal makes the replay after a failover slow."),
        actions=("See each rank's state and the standbys: `ceph fs status <fs>`, or the File systems tab (:fs).",
                 "A rank in replay, resolve, reconnect or rejoin normally reaches active by itself; watch it.",
                 "For a failed rank with no standby, start another ceph-mds daemon, or with cephadm "
                 "`ceph orch apply mds <fs> --placement=<count>`.",
                 "For a damaged rank, read the MDS_DAMAGE check: `ceph health detail`."),
        options=("mds_beacon_grace",),
        raised_by="mon",
    ),
    Explanation(
        code="FS_WITH_FAILED_MDS",
        title="A failed MDS rank has no standby to replace it",
        meaning="A rank of the file system is failed, and neither a standby-replay daemon for that rank nor "
                "an available standby can take it over.",
        why="The file system stays degraded, or offline if that was its only rank, until an MDS daemon "
            "becomes free for the rank.",
        causes=("The MDS holding the rank died while every other MDS daemon was already active or down.",
                "Standby daemons exist but are laggy or not compatible with this file system."),
        actions=("See the failed rank and which daemons are standby: `ceph fs status <fs>`.",
                 "Start a ceph-mds daemon on one of the hosts, or add one with cephadm: "
                 "`ceph orch apply mds <fs> --placement=<count>`.",
                 "Keep at least one standby MDS per file system so the next failure is taken over at once."),
        raised_by="mon",
    ),
    Explanation(
        code="MDS_ALL_DOWN",
        title="A file system is offline: no MDS is active",
        meaning="The file system wants ranks (max_mds is above 0) but no MDS daemon is up for any of them.",
        why="Every metadata operation on it blocks, so existing mounts hang and new mounts do not complete.",
        causes=("Every MDS daemon serving it stopped or crashed.",
                "It was taken down on purpose with `ceph fs fail`, which also sets joinable to false.",
                "The MDS hosts cannot reach the monitors."),
        actions=("See its ranks and whether it is joinable: `ceph fs status <fs>` and `ceph fs get <fs>`.",
                 "Start the ceph-mds daemons; with cephadm, see their state: `ceph orch ps --daemon_type mds`.",
                 "If it was failed on purpose, let MDS daemons take its ranks again: "
                 "`ceph fs set <fs> joinable true`."),
        raised_by="mon",
    ),
    Explanation(
        code="MDS_UP_LESS_THAN_MAX",
        title="Fewer MDS ranks than max_mds",
        meaning="The file system has fewer ranks than its max_mds setting asks for. The monitors add a rank "
                "only when a standby MDS is free to take it.",
        why="Metadata load is spread over fewer active MDS daemons than planned.",
        causes=("max_mds was raised without enough standby MDS daemons to fill the new ranks.",
                "MDS daemons were stopped or removed after max_mds was set."),
        actions=("Compare the ranks with max_mds: `ceph fs get <fs>`.",
                 "Run more MDS daemons, or with cephadm raise their count: "
                 "`ceph orch apply mds <fs> --placement=<count>`.",
                 "Or ask for what you run: `ceph fs set <fs> max_mds <n>`."),
        raised_by="mon",
    ),
    Explanation(
        code="MDS_INSUFFICIENT_STANDBY",
        title="Fewer standby MDS daemons than wanted",
        meaning="A file system's standby_count_wanted asks for more standby MDS daemons than are available; "
                "the detail says how many there are and how many more are wanted.",
        why="When an active MDS fails there may be no daemon to take over its rank, and the file system "
            "goes degraded or offline.",
        causes=("Only as many MDS daemons run as there are active ranks.",
                "A standby stopped, or was promoted to replace a failed rank.",
                "standby_count_wanted is higher than the number of standbys you run."),
        actions=("See the active daemons and the standbys: `ceph fs status`.",
                 "Start one more ceph-mds daemon than the active ranks, or with cephadm set the count: "
                 "`ceph orch apply mds <fs> --placement=<count>`.",
                 "Standby-replay daemons count as standbys and take over faster: "
                 "`ceph fs set <fs> allow_standby_replay true` lets a spare daemon follow an active rank.",
                 "If the file system needs no standby: `ceph fs set <fs> standby_count_wanted 0`."),
        raised_by="mon",
    ),
    Explanation(
        code="FS_INLINE_DATA_DEPRECATED",
        title="A file system uses the deprecated inline_data",
        meaning="The file system has inline_data enabled, which keeps the data of small files in their inodes "
                "in the metadata pool; the feature is deprecated.",
        why="A deprecated feature may be removed in a later release, so plan to turn it off before upgrading.",
        causes=("inline_data was enabled on this file system, possibly long ago.",),
        actions=("See the file system's settings: `ceph fs get <fs>`.",
                 "Turn it off: `ceph fs set <fs> inline_data false`."),
        raised_by="mon",
    ),
    # --- reported by the MDS daemons (Beacon.cc), or by both -----------------------------------------------
    Explanation(
        code="MDS_DAMAGE",
        title="CephFS metadata damage",
        meaning="An MDS found corrupt or missing metadata in the metadata pool and recorded it in its damage "
                "table, or the monitors marked a whole rank damaged.",
        why="Clients get I/O errors on the damaged part of the tree; a damaged rank cannot start at all, so "
            "its share of the file system is offline until it is repaired.",
        causes=("Lost or corrupt objects in the metadata pool, for example after unfound objects.",
                "A software bug that wrote inconsistent metadata.",
                "A rank whose journal or tables could not be read when it started."),
        actions=("List what the MDS recorded: `ceph tell mds.<fs>:<rank> damage ls`.",
                 "Check the metadata pool's PGs first: `ceph health detail` (PG_DAMAGED, OBJECT_UNFOUND).",
                 "Repair with Ceph's CephFS disaster-recovery procedure, backing up the journal first.",
                 "Only once repaired, let a damaged rank start again: `ceph mds repaired <fs>:<rank>`."),
        raised_by="mds",
    ),
    Explanation(
        code="MDS_READ_ONLY",
        title="An MDS is in read-only mode",
        meaning="The MDS refuses every metadata change with a read-only error (EROFS). It goes read-only "
                "when a write to RADOS fails, or when an operator forces it.",
        why="Clients can read, but cannot create, change or delete anything in the ranks that MDS serves.",
        causes=("A write to the metadata pool failed: the MDS log says with which error.",
                "The MDS key's OSD caps do not allow writing to the metadata pool.",
                "An operator ran the MDS's force_readonly command."),
        actions=("Find the failed write in the MDS's log on its host.",
                 "Check the metadata pool and its OSDs: `ceph df` and `ceph health detail`.",
                 "Once the cause is fixed, restart it so it comes back writable: `ceph mds fail <name>` hands "
                 "its rank to a standby."),
        options=("mds_action_on_write_error",),
        raised_by="mds",
    ),
    Explanation(
        code="MDS_SLOW_REQUEST",
        title="Client requests to an MDS are slow",
        meaning="Client requests have been in the MDS for longer than mds_op_complaint_time (30 seconds by "
                "default) without completing.",
        why="The applications behind those requests are stuck in file system calls such as open, stat or "
            "rename.",
        causes=("The MDS waits for a client to release capabilities (MDS_CLIENT_LATE_RELEASE).",
                "Journal or metadata I/O to RADOS is slow (MDS_SLOW_METADATA_IO).",
                "The MDS is overloaded or short of cache memory."),
        actions=("List the stuck requests and the step each waits at: `ceph tell mds.<name> dump_ops_in_flight`.",
                 "If they wait for caps, the File systems tab's requests (:fs, then s) name the client each waits "
                 "on (the caps the MDS is taking back from it) and E there evicts it.",
                 "If they wait for the journal or RADOS, look at the OSDs: `ceph health detail`."),
        options=("mds_op_complaint_time",),
        raised_by="mds",
    ),
    Explanation(
        code="MDS_SLOW_METADATA_IO",
        title="An MDS's I/O to the metadata pool is slow",
        meaning="Reads or writes the MDS sent to RADOS have waited longer than osd_op_complaint_time (30 "
                "seconds by default); the detail gives the oldest one's age.",
        why="Client requests that need the journal or that metadata wait as well, so MDS_SLOW_REQUEST often "
            "follows.",
        causes=("Slow or overloaded OSDs under the metadata pool.",
                "Metadata pool PGs that are inactive, peering or blocked.",
                "Network trouble between the MDS host and the OSDs."),
        actions=("Look for slow OSDs and inactive PGs: `ceph health detail`.",
                 "See the MDS's RADOS operations still in flight: `ceph tell mds.<name> objecter_requests`.",
                 "Check the latency of the OSDs they wait for: `ceph osd perf`."),
        options=("osd_op_complaint_time",),
        raised_by="mds",
    ),
    Explanation(
        code="MDS_TRIM",
        title="An MDS is behind on trimming its journal",
        meaning="The MDS journal has more segments than mds_log_max_segments times mds_log_warn_factor (2 by "
                "default); the detail gives the count and the limit.",
        why="A long journal takes space in the metadata pool and makes the replay after a failover longer.",
        causes=("Metadata writeback to RADOS is slow, so old segments cannot be trimmed yet.",
                "A very high rate of metadata changes.",
                "A software bug that stops trimming."),
        actions=("Check the metadata pool's OSDs for slowness: `ceph health detail`.",
                 "Watch whether the segment count falls: `ceph tell mds.<name> perf dump mds_log`.",
                 "Restarting the MDS does not shorten the journal: the next MDS must replay all of it."),
        options=("mds_log_max_segments", "mds_log_warn_factor"),
        raised_by="mds",
    ),
    Explanation(
        code="MDS_CACHE_OVERSIZED",
        title="An MDS cache is larger than its limit",
        meaning="The MDS cache has grown past mds_cache_memory_limit times mds_health_cache_threshold (1.5 by "
                "default), and the MDS cannot trim it back.",
        why="The MDS may run out of memory and crash, and its rank then fails over.",
        causes=("Clients hold caps on many inodes and do not release them when asked (MDS_CLIENT_RECALL).",
                "mds_cache_memory_limit is too small for the files clients keep in use.",
                "Many stray (deleted but still referenced) files waiting to be purged."),
        actions=("The File systems tab (:fs) lists the clients by caps held, largest first.",
                 "Compare the cache size with its limit: `ceph tell mds.<name> cache status`.",
                 "If the host has memory to spare, raise the limit: "
                 "`ceph config set mds mds_cache_memory_limit <bytes>`."),
        options=("mds_cache_memory_limit", "mds_health_cache_threshold"),
        raised_by="mds",
    ),
    Explanation(
        code="MDS_CLIENT_LATE_RELEASE",
        title="A client does not release capabilities",
        meaning="The MDS asked a client to give back capabilities (its locks on files) and the client has not "
                "done so within the file system's session_timeout (60 seconds by default).",
        why="Other clients that need those files, and the MDS requests waiting for them, stay blocked.",
        causes=("The client host is hung, overloaded or cut off from the network.",
                "A bug in the client's kernel or ceph-fuse version.",
                "An application on that client stuck in I/O while holding the files."),
        actions=("Open the File systems tab (:fs): the client this check names is marked and listed first, "
                 "with its host, caps held and requests in flight.",
                 "Or find the detail's client_id in the sessions: `ceph tell mds.<fs>:<rank> session ls`.",
                 "Fix the client host first: its kernel log, its network, a stuck process.",
                 "As a last resort evict it: `ceph tell mds.<name> client evict id=<id>`. With "
                 "mds_session_blocklist_on_evict true (the default) it is also blocklisted, and its mount "
                 "hangs or fails until it is remounted.",
                 "The timeout is a file system setting: `ceph fs set <fs> session_timeout <seconds>`."),
        raised_by="mds",
    ),
    Explanation(
        code="MDS_CLIENT_LATE_RELEASE_MANY",
        title="Many clients do not release capabilities",
        meaning="More clients than mds_health_summarize_threshold (10 by default) are late releasing "
                "capabilities, so the MDS reports their number instead of naming each.",
        why="Many blocked clients at once usually share a cause: the network, an overloaded MDS or one "
            "client version.",
        causes=("A network problem between the clients and the MDS.",
                "A client version with a capability release bug, installed on many hosts.",
                "The MDS itself is slow to process the releases."),
        actions=("This detail names no single client: sort them by caps held in the File systems tab (:fs).",
                 "Dump every session with its caps: `ceph tell mds.<fs>:<rank> session ls`.",
                 "Look for what the late clients share: network, kernel or ceph-fuse version."),
        options=("mds_health_summarize_threshold",),
        raised_by="mds",
    ),
    Explanation(
        code="MDS_CLIENT_RECALL",
        title="A client does not respond to cache pressure",
        meaning="The MDS keeps asking a client to release capabilities so it can shrink its cache, and the "
                "recent count of recalled caps (decaying over time) is above mds_recall_warning_threshold.",
        why="Every cap a client holds pins an inode in the MDS cache, so the MDS cannot stay within "
            "mds_cache_memory_limit and may run out of memory.",
        causes=("A program on that client keeps very many files open or in use.",
                "An old or buggy client that does not act on recall requests.",
                "The client is hung or overloaded."),
        actions=("In the File systems tab (:fs) the named client is marked and listed first; its recall "
                 "column shows the caps being recalled.",
                 "Look on that host for programs holding many files open, such as indexers or backups.",
                 "If it never gives them back, evict it: `ceph tell mds.<name> client evict id=<id>` "
                 "(blocklisted by default, so it must remount)."),
        options=("mds_recall_warning_threshold", "mds_recall_warning_decay_rate", "mds_min_caps_working_set"),
        raised_by="mds",
    ),
    Explanation(
        code="MDS_CLIENT_RECALL_MANY",
        title="Many clients do not respond to cache pressure",
        meaning="More clients than mds_health_summarize_threshold are failing to release the capabilities "
                "the MDS recalls, so it reports their number instead of their names.",
        why="The MDS cache cannot shrink, and the MDS's memory use grows with it.",
        causes=("mds_cache_memory_limit is small for the number of files the clients keep in use.",
                "The same workload on many clients keeps files open.",
                "A client version with a recall bug across many hosts."),
        actions=("Look at the clients with the most caps first: the File systems tab (:fs) sorts by them.",
                 "Check the cache against its limit: `ceph tell mds.<name> cache status`.",
                 "If memory allows, give the MDS a larger cache: "
                 "`ceph config set mds mds_cache_memory_limit <bytes>`."),
        options=("mds_health_summarize_threshold", "mds_recall_warning_threshold", "mds_cache_memory_limit"),
        raised_by="mds",
    ),
    Explanation(
        code="MDS_CLIENT_OLDEST_TID",
        title="A client does not advance its oldest request id",
        meaning="A client leaves more completed requests (or cap flushes) unacknowledged than "
                "mds_max_completed_requests (or mds_max_completed_flushes): its oldest tid does not move.",
        why="The MDS must keep every such completed request in the client's session, which costs it memory.",
        causes=("A client bug in tracking its oldest request id.",
                "A client stuck with one old request that never finishes on its side."),
        actions=("The File systems tab (:fs) marks the named client and lists it first; note its version "
                 "and host.",
                 "Its session, with the tid the MDS last trimmed to: `ceph tell mds.<fs>:<rank> session ls`.",
                 "Remount or upgrade the client; if you cannot, evict it: `ceph tell mds.<name> client evict "
                 "id=<id>` (blocklisted by default until it remounts)."),
        options=("mds_max_completed_requests", "mds_max_completed_flushes"),
        raised_by="mds",
    ),
    Explanation(
        code="MDS_CLIENT_OLDEST_TID_MANY",
        title="Many clients do not advance their oldest request id",
        meaning="More clients than mds_health_summarize_threshold are failing to advance their oldest "
                "request id, so the MDS reports their number.",
        why="The MDS keeps the completed requests of every one of those sessions.",
        causes=("A client version with this bug installed on many hosts.",),
        actions=("Compare the clients' versions in the File systems tab (:fs).",
                 "Or read them from the sessions: `ceph tell mds.<fs>:<rank> session ls`.",
                 "Upgrade the client version they share."),
        options=("mds_health_summarize_threshold", "mds_max_completed_requests"),
        raised_by="mds",
    ),
    Explanation(
        code="MDS_CLIENTS_LAGGY",
        title="Laggy clients kept because OSDs are laggy",
        meaning="Clients stopped responding, but the MDS does not evict them because some OSDs are laggy "
                "and may be the real cause.",
        why="Those clients keep their capabilities, so others needing the same files wait until the OSDs "
            "recover or the clients come back.",
        causes=("Laggy or flapping OSDs, for example after a network cut.",
                "Clients that lost their connection in the same network problem."),
        actions=("Fix the OSDs first: `ceph health detail` and `ceph osd tree down`.",
                 "See those clients' sessions in the File systems tab (:fs).",
                 "To evict laggy clients even while OSDs are laggy: "
                 "`ceph config set mds defer_client_eviction_on_laggy_osds false`."),
        options=("defer_client_eviction_on_laggy_osds",),
        raised_by="mds",
        releases="Recent point releases only; Pacific 16.2.15 has it.",
    ),
    Explanation(
        code="MDS_ESTIMATED_REPLAY_TIME",
        title="An MDS is replaying a long journal",
        meaning="An MDS has been replaying its journal for more than 30 seconds; the detail gives the "
                "percentage done and an estimate of the time left.",
        why="The rank is not active until replay ends, so the file system stays degraded and that rank's "
            "clients wait.",
        causes=("A failover or restart of an MDS whose journal was long.",
                "The MDS was behind on trimming before it failed (MDS_TRIM).",
                "Slow reads from the metadata pool."),
        actions=("Follow the replay: `ceph tell mds.<fs>:<rank> status` shows replay_status.",
                 "Let it finish: a restart makes the next MDS replay the same journal from the start.",
                 "To keep future replays short, act on MDS_TRIM warnings when they appear."),
        raised_by="mds",
        releases="Tentacle 20 and later; not in Squid 19 or Reef 18.",
    ),
)
