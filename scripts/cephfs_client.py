#!/usr/bin/python3
"""A real CephFS client for tests and captures: a libcephfs process that mounts and does what it is told.

    cephfs_client.py CONF hold PATH [--id ID] [--root ROOT]      write 64 KiB to PATH and keep it open
    cephfs_client.py CONF io PATH [--id ID] [--root ROOT] [--size BYTES]
                                                                 write and read PATH in a loop
    cephfs_client.py CONF try PATH [--id ID] [--root ROOT]      write PATH once; print "wrote" or the error

It prints "ready" once mounted and done with its first write (a test waits for that line), then runs until it is
killed (`try` exits). Runs with Debian's /usr/bin/python3, which has python3-cephfs; SIGSTOP it to make a client
that stops answering its MDS while it holds caps.
"""
from __future__ import annotations

import argparse
import sys
import time

import cephfs


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("conf")
    p.add_argument("mode", choices=["hold", "io", "try"])
    p.add_argument("path")
    p.add_argument("--id", default="admin", help="the client's key id (client.ID)")
    p.add_argument("--root", default="/", help="mount this directory of the file system")
    p.add_argument("--size", type=int, default=1 << 20)
    p.add_argument("--fs", default="", help="the file system's name (default: the default one)")
    args = p.parse_args()
    conf = {"log_to_stderr": "false", "err_to_stderr": "false", "client_mount_timeout": "30"}
    fs = cephfs.LibCephFS(conffile=args.conf, auth_id=args.id, conf=conf)
    fs.mount(mount_root=args.root.encode(), filesystem_name=args.fs.encode() if args.fs else None)
    path = args.path.encode()
    if args.mode == "try":
        try:
            fd = fs.open(path, "w", 0o644)
            fs.write(fd, b"x" * 4096, 0)
            fs.close(fd)
            print("wrote", flush=True)
            return 0
        except cephfs.Error as e:
            print(f"refused: {e}", flush=True)
            return 1
        finally:
            fs.shutdown()
    fd = fs.open(path, "w+", 0o644)  # read and write: `io` reads back what it wrote
    fs.write(fd, b"x" * 65536, 0)
    fs.fsync(fd, 0)
    print("ready", flush=True)
    block = b"y" * min(args.size, 1 << 20)
    while True:
        if args.mode == "hold":
            time.sleep(1)
            continue
        for off in range(0, args.size, len(block)):
            fs.write(fd, block, off)
        fs.fsync(fd, 0)
        for off in range(0, args.size, len(block)):
            fs.read(fd, off, len(block))


if __name__ == "__main__":
    sys.exit(main())
