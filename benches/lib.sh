# shellcheck shell=bash
# What every benchmark script shares; sourced, not run: `. "$(dirname "$0")/lib.sh"`.
#
# bench_setup NAME   goes to the repository root, sets WORK (the caller's WORK if set, else
#                    /dev/shm/NAME on tmpfs where it exists, else /tmp/NAME: on our VMs the
#                    disk is no baseline, see BENCHMARKS.md) and creates it.
# need_gnu_time      installs the Debian package `time` when /usr/bin/time is missing.
# apt_install PKG..  apt-get install, updating the lists first only when that fails.
# build_binaries     builds the corpus generator and, unless COURSEGEN names a binary to
#                    time instead, this checkout's release coursegen; sets BIN and GEN.
#                    With both COURSEGEN and GEN set it builds nothing.

apt_install() {
    apt-get install -y "$@" >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y "$@" >/dev/null; }
}

bench_setup() {
    cd "$(dirname "${BASH_SOURCE[0]}")/.." || return 1
    if [ -z "${WORK:-}" ]; then
        WORK=/tmp/$1
        [ -d /dev/shm ] && [ -w /dev/shm ] && WORK=/dev/shm/$1
    fi
    mkdir -p "$WORK"
}

need_gnu_time() {
    if ! /usr/bin/time -f %e true >/dev/null 2>&1; then
        echo "installing GNU time (apt package 'time')" >&2
        apt_install time
    fi
}

# BIN and GEN are for the sourcing script.
# shellcheck disable=SC2034
build_binaries() {
    if [ -n "${COURSEGEN:-}" ] && [ -n "${GEN:-}" ]; then
        BIN=$COURSEGEN
        return
    elif [ -n "${COURSEGEN:-}" ]; then
        cargo build --release --quiet --example gen_corpus
        BIN=$COURSEGEN
    else
        cargo build --release --quiet --bin coursegen --example gen_corpus
        BIN=$PWD/target/release/coursegen
    fi
    GEN=${GEN:-$PWD/target/release/examples/gen_corpus}
}
