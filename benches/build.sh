#!/usr/bin/env bash
# Build-speed benchmark (see BENCHMARKS.md). One command, from anywhere in the repository:
#
#   bash benches/build.sh
#
# It builds the release binary and the corpus generator, writes synthetic sites of N = 1,000
# and 10,000 published glossary entries (benches/gen_corpus.rs; seeded, so every run builds
# the same input), then times clean `coursegen build --root <corpus>` runs — public/ removed
# before each — with highlighting on and, where the build has the flag, off
# (`--no-highlight`). Each configuration gets one untimed warm-up run (page cache, binary
# loading), then RUNS timed ones. It prints a Markdown table — median wall time, pages per
# second, peak resident memory — and writes it to $WORK/results.md for BENCHMARKS.md.
#
# Knobs (environment): SIZES="1000 10000"  RUNS=5  SEED=1
#   WORK=DIR  where corpora and results go; default /dev/shm/coursegen-bench (tmpfs, in
#     memory) where it exists, else /tmp/coursegen-bench. On our VMs the disk is no baseline:
#     even a plain Python loop creating 10,000 files slows from 2 s to 6.5 s over three
#     create/delete cycles (BENCHMARKS.md), so disk timings measure the disk's state, not
#     the build. Set WORK=/tmp/coursegen-bench to time on disk anyway.
#   COURSEGEN=/path/to/coursegen  times that binary instead of building this checkout's.
# Side by side with Hugo, on the same corpora: benches/compare.sh.
# Needs GNU time (/usr/bin/time); installs the Debian package `time` when it is missing.
set -euo pipefail
# The corpus's reviews are dated 2025; builds take 2025-12-31 as today so none has expired
# (an expired review is a warning per entry, which would time stderr, not the build).
export SOURCE_DATE_EPOCH=1767139200

SIZES=${SIZES:-"1000 10000"}
RUNS=${RUNS:-5}
SEED=${SEED:-1}
# shellcheck source=benches/lib.sh
. "$(dirname "$0")/lib.sh"
bench_setup coursegen-bench
need_gnu_time
build_binaries

# The pipeline may not have --no-highlight yet: then only the highlighted build is timed.
MODES="on"
if "$BIN" build --help 2>&1 | grep -q -- '--no-highlight'; then
    MODES="on off"
else
    echo "note: 'coursegen build' has no --no-highlight flag; timing with highlighting only" >&2
fi
# Search (issue 12) is on by default; "nosearch" times the same build with --no-search, the
# build as it was before the search index, so the rows give search's cost. Where the build
# keeps a cache (diagrams, search shards), "on" and "off" run with --no-cache (cold), and
# two more rows time the search index from the cache: "warm" (content unchanged since the
# last build) and "edit" (one entry's body changed before each run, as in a CI preview of a
# one-entry pull request).
CACHE_FLAG=()
if "$BIN" build --help 2>&1 | grep -q -- '--no-cache'; then
    CACHE_FLAG=(--no-cache)
fi
if "$BIN" build --help 2>&1 | grep -q -- '--no-search'; then
    MODES="$MODES nosearch"
    [ ${#CACHE_FLAG[@]} -gt 0 ] && MODES="$MODES warm edit"
fi

# Appends a sentence with a word no other entry has to the $2-th glossary entry of $1.
edit_one() {
    local file
    file=$(find "$1/content/glossary" -name '*.md' | sort | sed -n "$(($2 * 37 + 1))p")
    printf '\nEdited for the benchmark: zqedit%s.\n' "$2" >>"$file"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
max() { sort -g | tail -n 1; }

# One clean build of $1 with flags $2..; prints "seconds max_rss_kib". Exits on failure.
timed_build() {
    local root=$1
    shift
    rm -rf "$root/public"
    # Start each run with no writeback pending from the last one (its deleted and written
    # files), or a disk-backed run is charged for its predecessor's I/O.
    sync
    # Wall time from the clock in ns (time's %e has only 10 ms resolution); peak RSS from time.
    local start end
    start=$(date +%s%N)
    if ! /usr/bin/time -f '%M' -o "$WORK/time.txt" "$BIN" build --root "$root" "$@" \
        >"$WORK/build.log" 2>&1; then
        echo "error: 'coursegen build --root $root $*' failed; its output:" >&2
        tail -n 20 "$WORK/build.log" >&2
        exit 1
    fi
    end=$(date +%s%N)
    echo "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", (b - a) / 1e9 }') $(tail -n 1 "$WORK/time.txt")"
}

{
    echo "| entries | mode (on, off: highlighting; nosearch; warm, edit: search from the cache) | median wall (s) | runs (s) | HTML pages | pages/s | peak RSS (MiB) |"
    echo "| ---: | --- | ---: | --- | ---: | ---: | ---: |"
} >"$WORK/results.md"

for n in $SIZES; do
    root=$WORK/corpus-$n
    "$GEN" --n "$n" --seed "$SEED" --out "$root" >/dev/null
    # The build cache lives outside the site (under $XDG_CACHE_HOME): start each size cold.
    export XDG_CACHE_HOME=$WORK/cache-home
    rm -rf "$XDG_CACHE_HOME" "$root/.coursegen-cache"
    for mode in $MODES; do
        flags=()
        case $mode in
            on) flags=("${CACHE_FLAG[@]}") ;;
            off) flags=(--no-highlight "${CACHE_FLAG[@]}") ;;
            nosearch) flags=(--no-search "${CACHE_FLAG[@]}") ;;
        esac
        timed_build "$root" "${flags[@]}" >/dev/null
        : >"$WORK/runs.txt"
        for i in $(seq "$RUNS"); do
            # A different entry each run gets a new sentence, so its search shard is stale.
            [ "$mode" = edit ] && edit_one "$root" "$i"
            timed_build "$root" "${flags[@]}" >>"$WORK/runs.txt"
        done
        pages=$(find "$root/public" -name '*.html' | wc -l)
        wall=$(cut -d' ' -f1 "$WORK/runs.txt" | median)
        runs=$(cut -d' ' -f1 "$WORK/runs.txt" | paste -sd' ')
        rss=$(cut -d' ' -f2 "$WORK/runs.txt" | max)
        awk -v n="$n" -v m="$mode" -v w="$wall" -v r="$runs" -v p="$pages" -v k="$rss" 'BEGIN {
            printf "| %d | %s | %.3f | %s | %d | %.0f | %.0f |\n", n, m, w, r, p, (w > 0 ? p / w : 0), k / 1024
        }' >>"$WORK/results.md"
        tail -n 1 "$WORK/results.md" >&2
    done
done

echo
echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'), $(free -g | awk '/^Mem:/ { print $2 }') GiB RAM"
echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown), seed $SEED, $RUNS runs each, in $WORK ($(df -T "$WORK" | awk 'NR == 2 { print $2 }'))"
echo
cat "$WORK/results.md"
