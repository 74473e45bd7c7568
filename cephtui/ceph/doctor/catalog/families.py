"""Explanations whose code is a pattern: a whole family of codes that share one meaning, or areas outside
cephtui's scope that deserve a pointer rather than silence. Most specific first: the first match wins."""
from __future__ import annotations

from dataclasses import replace

from cephtui.ceph.doctor.model import Explanation

# The fallback for CephFS codes catalog/cephfs.py has no entry for (a newer release's, or a rare one).
_CEPHFS = Explanation(
    code="MDS_*",
    title="CephFS metadata server problem",
    meaning="A CephFS check from the MDS daemons or the file system map that cephtui has no text of its own "
            "for; the detail lines say what Ceph found.",
    why="Depending on the check, file system clients may be slow, stuck or cut off.",
    causes=("An MDS daemon is down, lagging or short of memory.",
            "Clients that do not release capabilities or trim their caches."),
    actions=("Open the File systems tab (:fs): ranks, standbys, pools, flags and the clients, with any client "
             "a check names marked and listed first.",
             "The same map from the command line: `ceph fs status`.",
             "Read the full check text: `ceph health detail`."),
    raised_by="mon",
)

ENTRIES: tuple[Explanation, ...] = (
    Explanation(
        code="OSD_*_DOWN",
        title="A whole CRUSH bucket is down",
        meaning="Every OSD below one CRUSH bucket (a host, rack, row, room or data center) is down; the code "
                "names the bucket type, for example OSD_HOST_DOWN.",
        why="All copies that CRUSH placed in that bucket are unavailable at once, so PGs may lose more than "
            "one copy together. Whole racks or larger are not marked out automatically.",
        causes=("The host lost power, crashed or is being rebooted.",
                "A top-of-rack switch or the host's network failed.",
                "A shared component such as a disk controller failed."),
        actions=("See which buckets and OSDs are down: `ceph osd tree down`.",
                 "Bring the host or rack back; its OSDs rejoin by themselves once they can reach the "
                 "monitors.",
                 "For planned work on a host: `ceph osd set-group noout <host>` beforehand."),
        options=("mon_osd_down_out_subtree_limit", "mon_osd_down_out_interval"),
        raised_by="mon",
    ),
    Explanation(
        code="BLUESTORE_*",
        title="A BlueStore alert cephtui has no text for",
        meaning="An alert from an OSD's BlueStore back end that this version of cephtui does not describe.",
        why="BlueStore alerts usually point at a device or space problem on the OSDs named in the detail.",
        causes=("A release newer than cephtui's catalog added the alert.",),
        actions=("Read the detail lines, which name the OSDs, then check their devices: `ceph device "
                 "ls-by-daemon osd.<id>`.",),
        raised_by="osd",
    ),
    Explanation(
        code="CEPHADM_*",
        title="cephadm orchestrator problem",
        meaning="A check from the cephadm orchestrator: for example a host it cannot reach, a daemon it "
                "did not deploy, a failed daemon, or the orchestrator being paused.",
        why="cephadm may be unable to deploy, upgrade or restart daemons until it is resolved.",
        causes=("SSH from the manager to a host fails.",
                "Daemons running that cephadm does not know about.",
                "A daemon that failed to start."),
        actions=("Read the detail: `ceph health detail`.",
                 "See the daemons cephadm manages and their state: `ceph orch ps`.",
                 "See the hosts: `ceph orch host ls`.",
                 "If the orchestrator was paused: `ceph orch resume`."),
        raised_by="mgr module cephadm",
    ),
    _CEPHFS,
    replace(_CEPHFS, code="FS_*", title="CephFS file system problem"),
    Explanation(
        code="NVMEOF_*",
        title="NVMe-oF gateway problem",
        meaning="A check about the NVMe over Fabrics gateways: a single gateway without a peer, a gateway "
                "down, or one being deleted.",
        why="Hosts using block devices through those gateways can lose paths or access.",
        causes=("A gateway daemon stopped.",
                "Only one gateway deployed, so there is no failover."),
        actions=("See the gateway daemons: `ceph orch ps`.",
                 "Read the check's detail: `ceph health detail`."),
        raised_by="mgr",
        releases="Newest releases only (documented from Tentacle 20); not on Pacific 16.",
    ),
    Explanation(
        code="MGR_INFLUX_*",
        title="InfluxDB module problem",
        meaning="The influx manager module cannot send statistics to its InfluxDB server.",
        why="Graphs fed from InfluxDB show gaps; the cluster itself is not affected.",
        causes=("Wrong server address or credentials.",
                "The InfluxDB server is down."),
        actions=("Show the module's settings: `ceph influx config-show`.",
                 "If it is not needed: `ceph mgr module disable influx`."),
        raised_by="mgr module influx",
    ),
    Explanation(
        code="MGR_ZABBIX_*",
        title="Zabbix module problem",
        meaning="The zabbix manager module failed to send data to the Zabbix server.",
        why="Monitoring in Zabbix goes stale; Ceph keeps working.",
        causes=("zabbix_sender missing or failing on the manager host.",
                "Wrong Zabbix host setting."),
        actions=("Show its configuration: `ceph zabbix config-show`.",
                 "Disable it if unused: `ceph mgr module disable zabbix`."),
        raised_by="mgr module zabbix",
    ),
)
