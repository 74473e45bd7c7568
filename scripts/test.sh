#!/usr/bin/env bash
# Set everything up, then lint (ruff), type-check (mypy) and run the whole test suite against a real
# sandbox cluster (started by the tests).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$ROOT/scripts/setup.sh"
VENV=${CEPHTUI_VENV:-$ROOT/.venv}
cd "$ROOT"
# Lint and types first: quick, and a red one needs no cluster to show.
echo "test.sh: ruff check" >&2
"$VENV/bin/ruff" check .
echo "test.sh: mypy cephtui" >&2
"$VENV/bin/python" -m mypy cephtui
set +e
"$VENV/bin/python" -m pytest "$@"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
    echo "test.sh: pytest collected no tests; that is a failure" >&2
    exit 1
fi
exit "$rc"
