#!/usr/bin/env bash
# The release tier on another Ceph release: cluster and cephtui both inside that release's chroot.
#
#   scripts/test_release.sh reef|tentacle [PYTEST ARGS...]
#
# Builds the chroot if needed (scripts/chroot.sh: Debian trixie for Reef, forky for Tentacle; cached
# in CEPHTUI_CHROOTS), sets up its own venv (.venv-SUITE) inside, then runs `pytest -m tier` there:
# the sandbox the tests start is that release's. Prints how long each part took; exits non-zero when
# the tier fails.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
release=${1:-}
case "$release" in
    reef) suite=trixie;;
    tentacle) suite=forky;;
    *) echo "usage: test_release.sh reef|tentacle [PYTEST ARGS...]" >&2; exit 2;;
esac
shift
CHROOT=(bash "$ROOT/scripts/chroot.sh")
say() { echo "test_release.sh: $*" >&2; }

t0=$SECONDS
if [ -f "$("${CHROOT[@]}" path "$suite")/.cephtui-ready" ]; then
    say "$release: chroot $suite cached at $("${CHROOT[@]}" path "$suite")"
else
    say "$release: building the $suite chroot (debootstrap + Ceph packages: a few minutes)"
    "${CHROOT[@]}" build "$suite"
    say "$release: chroot built in $((SECONDS - t0)) s"
fi
t1=$SECONDS
say "$release: setting up its venv (.venv-$suite) inside"
"${CHROOT[@]}" run "$suite" -- bash scripts/setup.sh
say "$release: venv ready in $((SECONDS - t1)) s"
"${CHROOT[@]}" run "$suite" -- ceph --version >&2
t2=$SECONDS
say "$release: pytest -m tier inside the chroot"
set +e
"${CHROOT[@]}" run "$suite" -- "$ROOT/.venv-$suite/bin/python" -m pytest -m tier -p no:cacheprovider -q "$@"
rc=$?
set -e
say "$release: tier $( [ "$rc" -eq 0 ] && echo passed || echo "FAILED (exit $rc)" ) in $((SECONDS - t2)) s" \
    "(chroot $((t1 - t0)) s, venv $((t2 - t1)) s, total $((SECONDS - t0)) s)"
if [ "$rc" -eq 5 ]; then
    say "pytest collected no tests; that is a failure"
    exit 1
fi
exit "$rc"
