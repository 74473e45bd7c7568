#!/usr/bin/env bash
# Builds dist/cephtui.pyz: cephtui and its dependencies in one file, for CPython 3.9 to 3.14 on
# manylinux x86_64 and aarch64, run by the node's own python3 with the node's own `rados`.
#
#   scripts/build-pyz.sh            # builds, or says it is up to date (inputs unchanged)
#   scripts/build-pyz.sh --force    # builds even so
#
# Tool: pex (pinned below), installed from PyPI into a build venv of its own (.venv-pyzbuild). One
# PEX holds the wheels of every target (msgspec has one compiled wheel per Python version, psutil one
# abi3 wheel per architecture) and picks the right ones when it starts; shiv or zipapp hold one
# site-packages for one interpreter.
#
# How it runs (see docs/install-pyz.md):
#  - venv mode: the first run unpacks the wheels under PEX_ROOT (default ~/.cache/pex) and makes a
#    venv there for the Python that runs it; later runs re-exec straight into that venv.
#  - the venv has the system site-packages *after* its own: `rados` comes from the distribution
#    (python3-rados), everything else from the pyz even when the distribution has its own copy.
#  - an unwritable PEX_ROOT (read-only $HOME) falls back to a temporary one, with a warning.
#
# Inputs hashed for the up-to-date check: the files git knows under cephtui/ and themes/,
# pyproject.toml, README.md, this script. The wheels come from PyPI (or the pip configuration's
# mirror) on each build; pex caches the downloads (~/.cache/pex, or PEX_ROOT).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SELF=$ROOT/scripts/build-pyz.sh
PEX_VERSION=2.105.2
SETUPTOOLS_VERSION=84.2.1
# The pip pex resolves with (pex fetches it from PyPI): its default, a patched pip 20.3.4 with the
# legacy resolver, cannot be trusted with extras and markers.
PIP_VERSION=26.2.1
BUILD_VENV=${CEPHTUI_PYZ_BUILD_VENV:-$ROOT/.venv-pyzbuild}
OUT=${CEPHTUI_PYZ_OUT:-$ROOT/dist/cephtui.pyz}
PYTHONS=(39 310 311 312 313 314)
ARCHES=(${CEPHTUI_PYZ_ARCHES:-x86_64 aarch64})
# manylinux2014 = glibc 2.17: every supported distribution (EL8 has 2.28, bullseye 2.31).
GLIBC_TAG=manylinux2014

say() { echo "build-pyz: $*" >&2; }
force=0
for a in "$@"; do
    case "$a" in
        --force) force=1;;
        -h|--help) sed -n '2,22p' "$SELF" | sed 's/^# \{0,1\}//'; exit 0;;
        *) say "unknown argument '$a' (--force, --help)"; exit 2;;
    esac
done

cd "$ROOT"
# What goes in: tracked and untracked-but-not-ignored files, so a local edit is built too.
sources() {
    if git rev-parse --git-dir >/dev/null 2>&1; then
        git ls-files -z -co --exclude-standard -- cephtui themes pyproject.toml README.md
    else
        find cephtui themes pyproject.toml README.md -type f ! -path '*/__pycache__/*' -print0
    fi
}
inputs_hash() {
    {
        echo "pex=$PEX_VERSION pip=$PIP_VERSION setuptools=$SETUPTOOLS_VERSION pythons=${PYTHONS[*]} arches=${ARCHES[*]}"
        sha256sum < "$SELF"
        sources | sort -z | xargs -0 sha256sum
    } | sha256sum | cut -d' ' -f1
}
want=$(inputs_hash)
stamp="$OUT.inputs"
if [ "$force" -eq 0 ] && [ -f "$OUT" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    say "up to date: $OUT ($(du -h "$OUT" | cut -f1), inputs $want)"
    echo "$OUT"
    exit 0
fi

if [ ! -x "$BUILD_VENV/bin/pex" ] || [ "$("$BUILD_VENV/bin/pex" --version)" != "$PEX_VERSION" ]; then
    say "build venv $BUILD_VENV: pex==$PEX_VERSION setuptools==$SETUPTOOLS_VERSION from PyPI"
    [ -x "$BUILD_VENV/bin/python" ] || /usr/bin/python3 -m venv "$BUILD_VENV"
    "$BUILD_VENV/bin/pip" install -q --disable-pip-version-check "pex==$PEX_VERSION" \
        "setuptools==$SETUPTOOLS_VERSION" >&2
fi

work=$(mktemp -d /tmp/cephtui-pyz.XXXXXX)
trap 'rm -rf "$work"' EXIT
# The wheel is built from a copy: the checkout gets no build/ or egg-info. (pex can take the
# project directory itself, but then drops textual's markdown-it-py[linkify] extra: pex 2.105.2.)
mkdir -p "$work/src" "$work/wheel"
sources | tar --null -T - -cf - | tar -xf - -C "$work/src"
"$BUILD_VENV/bin/pip" wheel -q --disable-pip-version-check --no-deps --no-build-isolation --no-index \
    -w "$work/wheel" "$work/src" >&2
wheel=$(ls "$work"/wheel/cephtui-*.whl)

platforms=()
for arch in "${ARCHES[@]}"; do
    for v in "${PYTHONS[@]}"; do
        platforms+=(--platform "${GLIBC_TAG}_${arch}-cp-${v}-cp${v}")
    done
done
say "pex $PEX_VERSION: CPython ${PYTHONS[*]} on ${ARCHES[*]} (${GLIBC_TAG})"
mkdir -p "$(dirname "$OUT")"
# --venv + --venv-system-site-packages: see the header. --python-shebang: any python3 on PATH (the
# PEX picks its wheels at run time; pex cannot derive one shebang for several targets).
# --no-emit-warnings is not given: the read-only PEX_ROOT fallback warning must stay visible.
"$BUILD_VENV/bin/pex" "$wheel" \
    --pip-version "$PIP_VERSION" --no-allow-pip-version-fallback \
    --entry-point cephtui.launcher:main \
    "${platforms[@]}" \
    --venv --venv-system-site-packages \
    --python-shebang "/usr/bin/env python3" \
    --output-file "$work/cephtui.pyz" >&2
mv "$work/cephtui.pyz" "$OUT"
echo "$want" > "$stamp"
say "built $OUT ($(du -h "$OUT" | cut -f1))"
echo "$OUT"
