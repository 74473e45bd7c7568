"""Pool checks: full and quota states, pg_num shape, redundancy, scrub flags, application tags, cache tiers
and erasure-code profiles."""
from __future__ import annotations

from cephtui.ceph.doctor.model import Explanation

ENTRIES: tuple[Explanation, ...] = (
    Explanation(
        code="POOL_FULL",
        title="Pools are full",
        meaning="Writes to a pool are refused: either it reached its quota, or OSDs under it are full. The "
                "detail says which (\"running out of quota\", \"no space\", or usage against a max).",
        why="Applications writing to the pool get errors or hang until space or quota is freed.",
        causes=("The pool's byte or object quota is reached.",
                "OSDs used by the pool are full (see OSD_FULL)."),
        actions=("Two sources raise it, with different texts: the monitors for a pool flagged full, the "
                 "manager for its quota check. Compare usage with the quota: `ceph df detail`.",
                 "Read the pool's quota: `ceph osd pool get-quota <pool>`.",
                 "Raise or remove it: `ceph osd pool set-quota <pool> max_bytes <bytes>` (0 removes the "
                 "limit), or the same with max_objects.",
                 "If OSDs are full rather than the quota, follow OSD_FULL."),
        options=("mon_pool_quota_warn_threshold", "mon_pool_quota_crit_threshold"),
        raised_by="mon",
    ),
    Explanation(
        code="POOL_NEARFULL",
        title="Pools sit on nearly full OSDs",
        meaning="A pool carries the nearfull flag because OSDs that its CRUSH rule uses are past the "
                "nearfull ratio.",
        why="The pool will stop taking writes when those OSDs become full.",
        causes=("The OSDs under the pool's rule are nearfull (see OSD_NEARFULL).",),
        actions=("See which OSDs are nearfull: `ceph osd df`.",
                 "Rebalance or add capacity as for OSD_NEARFULL: `ceph osd test-reweight-by-utilization`."),
        raised_by="mon",
    ),
    Explanation(
        code="POOL_BACKFILLFULL",
        title="Pools sit on backfillfull OSDs",
        meaning="A pool carries the backfillfull flag: OSDs its rule uses are too full to accept backfill.",
        why="Recovery and rebalancing of the pool's PGs onto those OSDs stall.",
        causes=("OSDs under the pool's rule are past the backfillfull ratio.",),
        actions=("Find the OSDs concerned: `ceph osd df`.",
                 "Free or add space, or rebalance, as for OSD_BACKFILLFULL."),
        raised_by="mon",
    ),
    Explanation(
        code="POOL_NEAR_FULL",
        title="Pools are close to their quota",
        meaning="A pool's usage is close to its byte or object quota (a different code from POOL_NEARFULL, "
                "which is about OSD space).",
        why="Once the quota is reached, writes to the pool are refused.",
        causes=("The pool grew as expected and the quota was set long ago.",
                "Objects that should have been deleted were not."),
        actions=("See usage against quota: `ceph df detail`.",
                 "Raise the quota: `ceph osd pool set-quota <pool> max_bytes <bytes>`.",
                 "Or clean up data in the pool."),
        options=("mon_pool_quota_warn_threshold",),
        raised_by="mgr",
    ),
    Explanation(
        code="POOL_PG_NUM_NOT_POWER_OF_TWO",
        title="A pool's pg_num is not a power of two",
        meaning="A pool's pg_num is not 2, 4, 8, 16 and so on.",
        why="With such a pg_num, some PGs hold twice as much data as others, so OSD usage is uneven.",
        causes=("pg_num chosen by hand (for example 100 or 48).",),
        actions=("Set the nearest power of two: `ceph osd pool set <pool> pg_num <n>` (PGs split or merge and "
                 "data moves).",
                 "Or let the autoscaler manage it: `ceph osd pool set <pool> pg_autoscale_mode on`.",
                 "To keep the value on purpose: `ceph config set global "
                 "mon_warn_on_pool_pg_num_not_power_of_two false`."),
        options=("mon_warn_on_pool_pg_num_not_power_of_two",),
        raised_by="mon",
    ),
    Explanation(
        code="POOL_NO_REDUNDANCY",
        title="A pool keeps a single copy",
        meaning="A replicated pool has size 1: each object exists only once.",
        why="Losing any one disk loses the data on it for good.",
        causes=("A test or scratch pool made with size 1.",
                "size lowered to save space."),
        actions=("Give it more copies: `ceph osd pool set <pool> size 3` (data is copied, space use "
                 "triples).",
                 "If single copies are intended: `ceph config set global mon_warn_on_pool_no_redundancy "
                 "false`."),
        options=("mon_warn_on_pool_no_redundancy",),
        raised_by="mon",
    ),
    Explanation(
        code="POOL_SCRUB_FLAGS",
        title="Pools have scrubbing switched off",
        meaning="Some pools have their own noscrub or nodeep-scrub flag set. This note does not change the "
                "health status.",
        why="It often explains why PGs of those pools are overdue for scrubbing (PG_NOT_SCRUBBED, "
            "PG_NOT_DEEP_SCRUBBED).",
        causes=("Scrubs paused on a busy pool and never re-enabled.",),
        actions=("Turn light scrubs back on: `ceph osd pool set <pool> noscrub false`.",
                 "Turn deep scrubs back on: `ceph osd pool set <pool> nodeep-scrub false`."),
        raised_by="mon",
    ),
    Explanation(
        code="POOL_APP_NOT_ENABLED",
        title="Pools have no application tag",
        meaning="A pool has no application declared (rbd, cephfs, rgw or a custom name).",
        why="Tools use the tag to refuse the wrong kind of access, so an untagged pool loses that safety "
            "check. It is usually an oversight right after creating the pool.",
        causes=("The pool was made with osd pool create and never initialised by its user.",
                "A custom application that does not tag its pools."),
        actions=("Tag it: `ceph osd pool application enable <pool> <app>`, where app is rbd, cephfs, rgw or "
                 "your own name.",
                 "For an RBD pool, initialising it also sets the tag: `rbd pool init <pool>`.",
                 "The warning is decided by the manager: to silence it everywhere, `ceph config set global "
                 "mon_warn_on_pool_no_app false` (a setting on mon alone does not reach it)."),
        options=("mon_warn_on_pool_no_app",),
        fix="pool_app_enable",
        raised_by="mgr",
        releases="Pacific 16 warns only once the pool holds an object; Reef 18.2.1+ and Tentacle 20 warn "
                 "for empty pools too.",
    ),
    Explanation(
        code="CACHE_POOL_NO_HIT_SET",
        title="A cache pool has no hit set",
        meaning="A writeback cache tier pool has no hit_set_type, so it cannot track which objects are hot.",
        why="The tiering agent cannot decide what to flush or evict, so the cache works badly or fills up.",
        causes=("The cache tier was set up without its hit set settings.",),
        actions=("Set a hit set: `ceph osd pool set <pool> hit_set_type bloom`.",
                 "Also choose `ceph osd pool set <pool> hit_set_period <seconds>` and `ceph osd pool set "
                 "<pool> hit_set_count <n>`."),
        options=("mon_warn_on_cache_pools_without_hit_sets",),
        raised_by="mon",
        releases="Cache tiering is deprecated from Reef 18.",
    ),
    Explanation(
        code="CACHE_POOL_NEAR_FULL",
        title="A cache pool is near its target size",
        meaning="A cache tier pool is close to its target_max_bytes or target_max_objects.",
        why="When the cache is full, writes wait for flushes to the base pool and latency jumps.",
        causes=("The target is too small for the working set.",
                "Flushing to the base pool cannot keep up."),
        actions=("Raise the target: `ceph osd pool set <pool> target_max_bytes <bytes>` (or "
                 "target_max_objects).",
                 "Check the base pool has room: `ceph df detail`."),
        options=("mon_cache_target_full_warn_ratio",),
        raised_by="mgr",
    ),
    Explanation(
        code="BLAUM_ROTH_W_IS_NOT_PRIME",
        title="Unsafe erasure-code profile",
        meaning="An erasure-code profile uses the blaum_roth technique with a w value for which w+1 is not "
                "prime.",
        why="With such a w the code may not be able to rebuild data after failures, so the pool can lose "
            "data it seems to protect.",
        causes=("A profile created before Ceph checked this value.",),
        actions=("List and inspect profiles: `ceph osd erasure-code-profile get <profile>`.",
                 "Create a new pool with a correct profile and migrate the data; an existing pool's profile "
                 "cannot be changed."),
        raised_by="mon",
        releases="Newest releases only; Pacific 16 and Reef 18 do not check this.",
    ),
)
