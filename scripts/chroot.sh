#!/usr/bin/env bash
# Debian chroots for the release matrix: another Ceph release and another Python on this host.
#
#   scripts/chroot.sh build SUITE          # debootstrap + Ceph packages, cached; idempotent
#   scripts/chroot.sh run SUITE -- CMD...  # CMD inside it; this checkout and /tmp bind-mounted at the
#                                          # same paths
#   scripts/chroot.sh path SUITE           # where it lives
#   scripts/chroot.sh umount SUITE         # undo the mounts `run` left in place
#   scripts/chroot.sh rm SUITE             # unmount, then delete it (to start over)
#
# SUITE is a Debian suite: bullseye (Ceph 14.2, Python 3.9), trixie (18.2 Reef, 3.13) or
# forky (20.2 Tentacle, 3.14). The chroot is a cache: CEPHTUI_CHROOTS (default
# ~/.cache/cephtui/chroots) holds one directory per suite. Delete one only with `rm SUITE`: while
# mounted, a chroot holds this host's /tmp, /dev and the checkout, which a plain `rm -rf` would empty.
#
# Each distro quirk is handled here on purpose, and said on stderr when it is:
#  - apt: the Release files of a suite under development can be past their Valid-Until date
#    (forky here), so apt inside the chroot does not check dates;
#  - no systemd in a chroot: ceph-mon's postinst calls systemctl, which is diverted to /bin/true,
#    and policy-rc.d stops invoke-rc.d from starting daemons;
#  - pip needs this host's CA bundle and pip configuration (a proxy or mirror may sit in between);
#  - proc, sys and dev are mounted, and resolv.conf copied, for name resolution and Ceph's own use.
# Needs root (debootstrap, mount, chroot).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BASE=${CEPHTUI_CHROOTS:-${XDG_CACHE_HOME:-$HOME/.cache}/cephtui/chroots}
MIRROR=${CEPHTUI_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# What each suite needs beyond minbase: the cluster's daemons, the client bindings and what the
# suite needs to run (setup.sh installs the same list; having it here makes the chroot usable
# for a pyz smoke test without running setup.sh).
PKGS=(ceph-mon ceph-osd ceph-mgr ceph-mds ceph-common python3-rados python3-rbd python3-cephfs fio python3-venv tmux ca-certificates)

say() { echo "chroot.sh: $*" >&2; }
die() { say "$*"; exit 2; }

suite_ok() {
    case "$1" in
        bullseye|bookworm|trixie|forky) ;;
        *) die "unknown suite '$1' (bullseye, bookworm, trixie or forky)";;
    esac
}

mount_all() {  # idempotent: several runs may share one chroot, so mounts stay until `umount`
    local dir=$1
    # Runs started side by side (scripts/test.sh's matrix) would both see a mount missing and both mount it.
    exec 8>"$dir.mount-lock"
    flock 8
    mountpoint -q "$dir/proc" || mount -t proc proc "$dir/proc"
    mountpoint -q "$dir/sys" || { mount --rbind /sys "$dir/sys"; mount --make-rslave "$dir/sys"; }
    mountpoint -q "$dir/dev" || { mount --rbind /dev "$dir/dev"; mount --make-rslave "$dir/dev"; }
    # /tmp is shared so that a sandbox made inside (under /tmp) is reachable from the host and the
    # other way round: a client of one release against a cluster of another.
    mountpoint -q "$dir/tmp" || mount --bind /tmp "$dir/tmp"
    mkdir -p "$dir$ROOT"
    # A checkout deleted and cloned again at the same path (CI does this) leaves the old bind in place,
    # showing the deleted directory: mountpoint alone would call that mounted. Same device and inode
    # on both sides means the bind shows this checkout.
    if mountpoint -q "$dir$ROOT" && [ "$(stat -c %d:%i "$ROOT")" != "$(stat -c %d:%i "$dir$ROOT")" ]; then
        umount "$dir$ROOT" 2>/dev/null || umount -l "$dir$ROOT"
    fi
    mountpoint -q "$dir$ROOT" || mount --bind "$ROOT" "$dir$ROOT"
    cp -L /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
    exec 8>&-
}

mounts_under() {  # every mount point inside the chroot, deepest first
    awk -v d="$1/" 'index($2, d) == 1 {print $2}' /proc/self/mounts | sort -r
}

umount_all() {  # every mount under the chroot: other checkouts' binds too, not only this one's
    local dir=$1 m
    for m in $(mounts_under "$dir"); do
        umount "$m" 2>/dev/null || umount -l "$m"
    done
}

remove() {
    local dir=$1
    umount_all "$dir"
    # A bind mount is on the same filesystem as what it shows, so --one-file-system would not stop rm
    # from going through one: refuse while any remains.
    [ -z "$(mounts_under "$dir")" ] || die "still mounted under $dir: $(mounts_under "$dir" | tr '\n' ' ')"
    rm -rf --one-file-system "$dir"
}

copy_host_config() {  # CA bundle and pip configuration, so pip inside reaches PyPI as the host does
    local dir=$1
    if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
        mkdir -p "$dir/usr/local/share/ca-certificates"
        cp /etc/ssl/certs/ca-certificates.crt "$dir/usr/local/share/ca-certificates/host-bundle.crt"
        mkdir -p "$dir/etc/ssl/certs"
        cp /etc/ssl/certs/ca-certificates.crt "$dir/etc/ssl/certs/ca-certificates.crt"
    fi
    [ -f /etc/pip.conf ] && cp /etc/pip.conf "$dir/etc/pip.conf"
    return 0
}

build() {
    local suite=$1 dir=$BASE/$1
    if [ -f "$dir/.cephtui-ready" ]; then
        say "$suite: ready at $dir"
        return 0
    fi
    command -v debootstrap >/dev/null || {
        say "installing debootstrap"; apt-get install -y -q debootstrap >&2; }
    mkdir -p "$BASE"
    if [ ! -x "$dir/usr/bin/apt-get" ] || [ ! -f "$dir/.debootstrap-done" ]; then
        [ -e "$dir" ] && remove "$dir"
        local script=()
        if [ ! -e "/usr/share/debootstrap/scripts/$suite" ]; then
            # This host's debootstrap predates the suite (bookworm's knows no forky): sid's script
            # bootstraps any current suite.
            say "$suite: this debootstrap has no script for it; using sid's"
            script=(/usr/share/debootstrap/scripts/sid)
        fi
        say "$suite: debootstrap --variant=minbase from $MIRROR (a few minutes)"
        # debootstrap's own log is long; keep it in a file and show only its last lines on failure.
        if ! debootstrap --variant=minbase "$suite" "$dir" "$MIRROR" "${script[@]}" \
            >"$BASE/$suite.debootstrap.log" 2>&1; then
            tail -20 "$BASE/$suite.debootstrap.log" >&2
            die "$suite: debootstrap failed (log: $BASE/$suite.debootstrap.log)"
        fi
        touch "$dir/.debootstrap-done"
    fi
    say "$suite: apt does not check Release dates (a suite in development can be past Valid-Until)"
    cat >"$dir/etc/apt/apt.conf.d/99cephtui-chroot" <<'EOF'
Acquire::Check-Valid-Until "false";
Acquire::Check-Date "false";
Acquire::Languages "none";
APT::Install-Recommends "false";
EOF
    say "$suite: systemctl diverted to /bin/true and policy-rc.d set (no systemd in a chroot)"
    if ! chroot "$dir" dpkg-divert --list /usr/bin/systemctl | grep -q divert; then
        chroot "$dir" dpkg-divert --local --rename --add /usr/bin/systemctl >&2
    fi
    ln -sf /bin/true "$dir/usr/bin/systemctl"
    printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d"
    chmod +x "$dir/usr/sbin/policy-rc.d"
    say "$suite: host CA bundle and pip configuration copied in"
    copy_host_config "$dir"
    mount_all "$dir"
    say "$suite: apt-get install ${PKGS[*]}"
    if ! chroot "$dir" env DEBIAN_FRONTEND=noninteractive sh -c \
        "apt-get update -q && apt-get install -y -q ${PKGS[*]}" >"$BASE/$suite.apt.log" 2>&1; then
        tail -30 "$BASE/$suite.apt.log" >&2
        die "$suite: apt-get failed (log: $BASE/$suite.apt.log)"
    fi
    # ca-certificates rebuilt the bundle without the host's CAs: put them back.
    copy_host_config "$dir"
    chroot "$dir" ceph --version >&2
    chroot "$dir" python3 --version >&2
    touch "$dir/.cephtui-ready"
    say "$suite: ready at $dir"
}

run() {
    local suite=$1 dir=$BASE/$1
    shift
    [ "${1:-}" = "--" ] && shift
    [ "$#" -gt 0 ] || die "run $suite: no command given"
    [ -f "$dir/.cephtui-ready" ] || build "$suite"
    mount_all "$dir"
    # The checkout sits at the same path inside, so scripts that resolve ROOT keep working. The
    # suite's own venv (.venv-SUITE) keeps the host's .venv untouched.
    exec chroot "$dir" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root TERM="${TERM:-xterm-256color}" LANG=C.UTF-8 \
        CEPHTUI_VENV="$ROOT/.venv-$suite" CEPHTUI_RELEASE_SUITE="$suite" \
        sh -c 'cd "$0" && exec "$@"' "$ROOT" "$@"
}

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, mount, chroot)"
cmd=${1:-}
suite=${2:-}
[ -n "$cmd" ] && [ -n "$suite" ] || die "usage: chroot.sh build|run|path|umount|rm SUITE [-- CMD...]"
suite_ok "$suite"
shift 2
case "$cmd" in
    build) build "$suite";;
    run) run "$suite" "$@";;
    path) echo "$BASE/$suite";;
    umount) umount_all "$BASE/$suite";;
    rm) remove "${BASE:?}/$suite"; say "$suite: removed";;
    *) die "unknown command '$cmd' (build, run, path, umount or rm)";;
esac
