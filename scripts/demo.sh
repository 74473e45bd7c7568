#!/usr/bin/env bash
# Set everything up, start a fresh sandbox cluster, run cephtui on it, stop the cluster when cephtui exits.
#
#   scripts/demo.sh [--release pacific|reef|tentacle] [CEPHTUI ARGS...]
#
# --release of another Ceph release than this host's runs the whole demo (cluster AND cephtui, with
# its own venv .venv-SUITE) inside that release's cached Debian chroot (scripts/chroot.sh; built on
# first use, several minutes).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ "${1:-}" = "--release" ]; then
    release=${2:-}
    shift 2 || { echo "demo.sh: --release needs pacific, reef or tentacle" >&2; exit 2; }
    case "$release" in
        pacific) suite=bookworm;; reef) suite=trixie;; tentacle) suite=forky;;
        *) echo "demo.sh: unknown release '$release' (pacific, reef or tentacle)" >&2; exit 2;;
    esac
    here=$(ceph-osd --version 2>/dev/null | sed -n 's/.*) \([a-z]*\) (.*/\1/p')
    if [ "$release" != "$here" ]; then
        echo "demo.sh: Ceph $release runs in the $suite chroot (cluster and cephtui both)" >&2
        exec bash "$ROOT/scripts/chroot.sh" run "$suite" -- bash "$ROOT/scripts/demo.sh" "$@"
    fi
fi
VENV=${CEPHTUI_VENV:-$ROOT/.venv}
echo "demo.sh: setting up (first run: apt and pip, a minute or two)..." >&2
"$ROOT/scripts/setup.sh"
DIR=$(mktemp -d /tmp/cephtui-demo-XXXXXX)
cleanup() { trap "" HUP INT TERM; /usr/bin/python3 "$ROOT/scripts/sandbox.py" stop "$DIR" --purge >/dev/null 2>&1 || true; }
trap cleanup EXIT
trap "exit 129" HUP  # a closed terminal still stops the cluster
echo "starting a sandbox cluster in $DIR (about 15 s)..." >&2
CONF=$(/usr/bin/python3 "$ROOT/scripts/sandbox.py" start "$DIR" --pool rbd:32)
"$VENV/bin/cephtui" -c "$CONF" "$@"
