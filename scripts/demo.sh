#!/usr/bin/env bash
# Set everything up, start a fresh sandbox cluster, run cephtui on it, stop the cluster when cephtui exits.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$ROOT/scripts/setup.sh"
DIR=$(mktemp -d /tmp/cephtui-demo-XXXXXX)
cleanup() { trap "" HUP INT TERM; /usr/bin/python3 "$ROOT/scripts/sandbox.py" stop "$DIR" --purge >/dev/null 2>&1 || true; }
trap cleanup EXIT
trap "exit 129" HUP  # a closed terminal still stops the cluster
echo "starting a sandbox cluster in $DIR (about 15 s)..." >&2
CONF=$(/usr/bin/python3 "$ROOT/scripts/sandbox.py" start "$DIR" --pool rbd:32)
"$ROOT/.venv/bin/cephtui" -c "$CONF" "$@"
