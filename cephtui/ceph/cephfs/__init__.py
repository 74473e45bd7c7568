"""CephFS: the file systems, their MDS ranks and standbys (`fs dump`, the mgr's `fs status`) and the clients of
each rank (`session ls`, told to the MDS through libcephfs, as `ceph tell mds.X` does). docs/cephfs-notes.md has
the facts per release and where each comes from."""
