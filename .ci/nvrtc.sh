#!/usr/bin/env bash
# Installs NVRTC 13.0 from PyPI (wheel `nvidia-cuda-nvrtc`) into .ci/.nvrtc, so CI can
# compile-check kernels/*.cu with no GPU and no CUDA toolkit. libnvrtc loads
# libnvrtc-builtins at run time, so both must be on the library path.
#
# Source it to get the library path in this shell:   . .ci/nvrtc.sh
# Or run it and eval what it prints:                   eval "$(.ci/nvrtc.sh)"
# Then: cargo test --test kernels_compile -- --ignored
#
# NVRTC_VERSION pins the wheel (default: the 13.0 series, matching cudarc's cuda-13000).
_nvrtc_main() {
    local here prefix spec libdir
    here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)" || return 1
    prefix="$here/.nvrtc"
    spec="nvidia-cuda-nvrtc${NVRTC_VERSION:+==$NVRTC_VERSION}"
    [ -n "${NVRTC_VERSION:-}" ] || spec="nvidia-cuda-nvrtc>=13.0,<13.1"
    libdir="$prefix/nvidia/cu13/lib"
    if [ ! -e "$libdir/libnvrtc.so.13" ]; then
        # Debian's python3 may come without pip (python3-pip), and its pip refuses to touch
        # the system (PEP 668). Installing with --target into our own folder is allowed;
        # --break-system-packages keeps pips that still check it quiet.
        if ! python3 -m pip --version >/dev/null 2>&1; then
            if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
                apt-get update -qq >&2 && apt-get install -y -qq python3-pip >&2
            fi
        fi
        python3 -m pip --version >/dev/null 2>&1 || {
            echo "nvrtc.sh: python3 has no pip: install python3-pip (Debian: apt-get install python3-pip)" >&2
            return 1
        }
        python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps \
            --break-system-packages --only-binary=:all: --target "$prefix" "$spec" >&2 || {
            echo "nvrtc.sh: pip could not install $spec" >&2
            return 1
        }
    fi
    if [ ! -e "$libdir/libnvrtc.so.13" ] || [ ! -e "$libdir/libnvrtc-builtins.so.13.0" ]; then
        echo "nvrtc.sh: $libdir lacks libnvrtc.so.13 or libnvrtc-builtins.so.13.0" >&2
        return 1
    fi
    NVRTC_LIB_DIR="$libdir"
}

if [ "${BASH_SOURCE[0]}" != "$0" ]; then
    # sourced: export into the caller's shell
    _nvrtc_main && export LD_LIBRARY_PATH="$NVRTC_LIB_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
    set -euo pipefail
    _nvrtc_main
    printf 'export LD_LIBRARY_PATH=%q\n' "$NVRTC_LIB_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
