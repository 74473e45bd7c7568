#!/usr/bin/env bash
# Idempotent set-up on Debian: Ceph packages, tmux, the venv (with Debian's rados bindings), cephtui editable.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# CEPHTUI_VENV: scripts/chroot.sh points it at .venv-SUITE, so a chroot's venv (its own Python)
# never replaces the host's.
VENV=${CEPHTUI_VENV:-$ROOT/.venv}
PKGS=(ceph-mon ceph-osd ceph-mgr ceph-mds ceph-common python3-rados python3-rbd python3-cephfs fio python3-venv tmux prometheus)

missing=()
for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    echo "setup: installing ${missing[*]} with apt (a few minutes the first time)" >&2
    $SUDO apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}" >&2
fi

# One set-up of a venv at a time: scripts/test.sh's matrix starts several runs that share a chroot's venv.
exec 9>"$VENV.setup-lock"
flock 9
# rados is not on PyPI: the venv sees Debian's python3-rados through --system-site-packages.
if [ ! -x "$VENV/bin/python" ]; then
    echo "setup: making $VENV (/usr/bin/python3 -m venv --system-site-packages)" >&2
    /usr/bin/python3 -m venv --system-site-packages "$VENV"
fi
# An editable install of a pyproject-only project needs pip 21.3 (PEP 660): bullseye's is 20.3.
if ! "$VENV/bin/python" -c 'import sys, pip; sys.exit(tuple(map(int, pip.__version__.split(".")[:2])) < (21, 3))'; then
    echo "setup: upgrading the venv's pip (older than 21.3)" >&2
    "$VENV/bin/pip" install -q --disable-pip-version-check --upgrade pip >&2
fi
stamp="$VENV/.cephtui-installed"
want=$(sha256sum "$ROOT/pyproject.toml" | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    # pip's own lines (Collecting…, Installing…) are the progress: about a minute the first time.
    echo "setup: installing cephtui and its test tools into $VENV with pip" >&2
    "$VENV/bin/pip" install --disable-pip-version-check --progress-bar off -e "$ROOT[test]" >&2
    echo "setup: done" >&2
    echo "$want" > "$stamp"
fi
"$VENV/bin/python" -c "import rados, textual, cephtui" || {
    echo "setup: the venv cannot import rados/textual/cephtui" >&2; exit 1; }
