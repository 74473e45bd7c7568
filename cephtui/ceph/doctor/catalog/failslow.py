"""cephtui's own findings, not Ceph health checks: the fail-slow ranking (cephtui/ceph/history/failslow_judge.py)
of `osd perf` latency against peers of the same device class, and a mgr that does not answer before the
monitors say so (doctor/mgrgone.py). Codes start with CEPHTUI_ so they are never
taken for a check Ceph raised."""
from __future__ import annotations

from cephtui.ceph.doctor.model import Explanation

ENTRIES: tuple[Explanation, ...] = (
    Explanation(
        code="CEPHTUI_SLOW_OSD",
        title="OSDs far slower than their peers",
        meaning="cephtui compared each OSD's commit and apply latency with the other OSDs of its device class "
                "over a window, and these stayed well above them for most of it.",
        why="A write waits for its slowest replica, so one slow disk slows every client whose data it holds, "
            "long before Ceph marks anything down or raises a health check.",
        causes=("A disk that is failing slowly: retries, remapped sectors, a worn-out SSD.",
                "A disk or its controller queue saturated by something else on the host.",
                "A throttled or starved ceph-osd process (cgroup limits, CPU pinning, swapping).",
                "Background work on that OSD only: a deep scrub, a compaction, a large snap trim."),
        actions=("Measure the suspects against their peers, one OSD at a time: `ceph tell osd.<id> bench` "
                 "(the Bench tab's per-OSD bench does this and ranks them).",
                 "Watch whether it persists: `ceph osd perf`, or the OSD latency history in cephtui.",
                 "Look at the disk itself on its host: kernel log, SMART (`ceph device ls-by-daemon osd.<id>`).",
                 "Only when the bench confirms it, take the disk out of service: `ceph osd out <id>` "
                 "(data moves off it, which loads its peers)."),
        options=("mgr_stats_period",),
        raised_by="cephtui",
    ),
    Explanation(
        code="CEPHTUI_SLOW_HOST",
        title="Every OSD of a host is slow",
        meaning="All OSDs of one CRUSH host stayed far slower than their peers of the same device class over "
                "the window.",
        why="When every disk of a host is slow at once, the cause is rarely the disks: marking them out moves "
            "the whole host's data and leaves the real fault in place.",
        causes=("The host's network: a bad NIC, cable or switch port, an MTU mismatch, a congested link.",
                "The storage controller or HBA: a degraded battery, a firmware fault, write cache off.",
                "The host's CPU or memory: other work, thermal throttling, swapping, a power-saving governor."),
        actions=("Check the host's links and heartbeats first: `ceph tell osd.<id> dump_osd_network 0`.",
                 "Then its controller and CPU: its kernel log, `top`, the controller's own tool.",
                 "Compare one of its OSDs with an OSD elsewhere: `ceph tell osd.<id> bench`.",
                 "Keep the OSDs in while you look: `ceph osd out` of a whole host moves all of its data."),
        options=("mon_warn_on_slow_ping_time",),
        raised_by="cephtui",
    ),
    Explanation(
        code="CEPHTUI_MGR_UNREACHABLE",
        title="The manager does not answer",
        meaning="cephtui could not reach an active ceph-mgr: no mgr is active in the mgr map, or the active one "
                "did not answer. The monitors raise MGR_DOWN only once the mgr has missed its beacons for "
                "mon_mgr_beacon_grace (30 s by default), so until then `ceph health` still says what it said "
                "before.",
        why="Everything the manager serves is stale or missing meanwhile: PG states, osd df, osd perf (so the "
            "fail-slow ranking), pool IO, crash reports and every mgr module. A health answer given now from "
            "the monitors alone would read as healthy.",
        causes=("The active ceph-mgr stopped or crashed a moment ago (MGR_DOWN follows within the grace).",
                "A failover to a standby manager is under way.",
                "The active manager hangs, or its host cannot be reached from here."),
        actions=("Ask the mgr map which manager is active and which stand by (`ceph mgr dump`): a standby "
                 "normally takes over within the grace.",
                 "If none is left, start ceph-mgr on one of the manager hosts; MGR_DOWN explains the rest."),
        options=("mon_mgr_beacon_grace",),
        raised_by="cephtui",
    ),
)
