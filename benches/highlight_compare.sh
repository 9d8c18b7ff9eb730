#!/usr/bin/env bash
# Highlighting build time against a base revision (issue 15): is a highlighted build of
# the 10,000-entry corpus within 10 % of what it was before the change?
#
#   BASE=8ef3998 bash benches/highlight_compare.sh     # 8ef3998: main before issue 15
#   BASE=8ef3998 SIZE=10000 RUNS=7 bash benches/highlight_compare.sh
#
# It exports BASE's tree with `git archive` (no worktree, nothing in .git changes), builds
# both release binaries into this checkout's target/ (the dependencies are shared, only
# coursegen itself is compiled twice), generates one corpus (benches/gen_corpus.rs, seeded),
# then times clean `coursegen build` runs with highlighting on, alternating base and head so
# that drift in the machine hits both alike, after one untimed warm-up each. It prints the
# medians, the ratio head/base and whether it is within LIMIT (default 1.10), and the same
# for `--no-highlight` builds as a control (where both binaries have the flag).
#
# Knobs: BASE (git revision), SIZE=10000, RUNS=7, SEED=1, LIMIT=1.10,
#   WORK=DIR (default /dev/shm/coursegen-hl-compare, tmpfs: see benches/build.sh for why).
set -euo pipefail

cd "$(dirname "$0")/.."
BASE=${BASE:?set BASE to the revision to compare against, e.g. BASE=8ef3998 (main before issue 15)}
SIZE=${SIZE:-10000}
RUNS=${RUNS:-7}
SEED=${SEED:-1}
LIMIT=${LIMIT:-1.10}
if [ -z "${WORK:-}" ]; then
    WORK=/tmp/coursegen-hl-compare
    [ -d /dev/shm ] && [ -w /dev/shm ] && WORK=/dev/shm/coursegen-hl-compare
fi
mkdir -p "$WORK"
TARGET=$PWD/target

echo "base $(git rev-parse --short "$BASE"), head $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (with uncommitted changes)'), $SIZE entries, $RUNS runs" >&2

rm -rf "$WORK/base-src" && mkdir -p "$WORK/base-src"
git archive "$BASE" | tar -x -C "$WORK/base-src"
CARGO_TARGET_DIR=$TARGET cargo build --release --quiet --locked --bin coursegen --manifest-path "$WORK/base-src/Cargo.toml"
cp "$TARGET/release/coursegen" "$WORK/coursegen-base"
cargo build --release --quiet --locked --bin coursegen --example gen_corpus
cp "$TARGET/release/coursegen" "$WORK/coursegen-head"

CORPUS=$WORK/corpus-$SIZE-$SEED
if [ ! -d "$CORPUS" ]; then
    "$TARGET/release/examples/gen_corpus" --n "$SIZE" --seed "$SEED" --out "$CORPUS" >/dev/null
fi

# Seconds of one clean build: run BINARY [FLAGS…].
run() {
    local bin=$1; shift
    rm -rf "$CORPUS/public"
    local start end
    start=$(date +%s.%N)
    "$bin" build "$@" --root "$CORPUS" >/dev/null 2>&1
    end=$(date +%s.%N)
    echo "$end - $start" | bc -l
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# compare LABEL [FLAGS…]: alternating runs of base and head, medians and ratio.
compare() {
    local label=$1; shift
    local base_t=() head_t=()
    run "$WORK/coursegen-base" "$@" >/dev/null
    run "$WORK/coursegen-head" "$@" >/dev/null
    for _ in $(seq "$RUNS"); do
        base_t+=("$(run "$WORK/coursegen-base" "$@")")
        head_t+=("$(run "$WORK/coursegen-head" "$@")")
    done
    local b h ratio within
    b=$(printf '%s\n' "${base_t[@]}" | median)
    h=$(printf '%s\n' "${head_t[@]}" | median)
    ratio=$(echo "$h / $b" | bc -l)
    within=$(echo "$ratio <= $LIMIT" | bc -l)
    printf '| %s | %.3f s | %.3f s | %.3f | %s |\n' "$label" "$b" "$h" "$ratio" \
        "$([ "$within" = 1 ] && echo "within $LIMIT" || echo "over $LIMIT")"
    echo "  $label, base runs (s): ${base_t[*]}" >&2
    echo "  $label, head runs (s): ${head_t[*]}" >&2
}

command -v bc >/dev/null || { echo "needs bc (apt-get install bc)" >&2; exit 2; }
echo "| $SIZE entries | base median | head median | head / base | verdict |"
echo "| --- | ---: | ---: | ---: | --- |"
compare "highlighting on"
if "$WORK/coursegen-base" build --help 2>&1 | grep -q -- --no-highlight; then
    compare "highlighting off (control)" --no-highlight
fi
