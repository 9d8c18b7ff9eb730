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
# then times clean `coursegen build` runs (CPU: user + system) with highlighting on,
# alternating base and head so that drift in the machine hits both alike, after one
# untimed warm-up each; base builds the same content with its own templates. It prints the
# medians, the ratio head/base and whether it is within LIMIT (default 1.10), and the same
# for `--no-highlight` builds as a control (where both binaries have the flag). Since the
# whole build changes for other reasons too (navigation, Markdown copies), the last line
# is the one that isolates the highlighter: its cost, on − off, in each binary, and the
# difference as a share of base's highlighted build. A binary with `--no-search` builds
# without the search index (base revisions before issue 12 have none).
#
# Knobs: BASE (git revision), SIZE=10000, RUNS=7, SEED=1, LIMIT=1.10,
#   BASE_BIN=path  use that binary for BASE instead of building it,
#   WORK=DIR (default /dev/shm/coursegen-hl-compare, tmpfs: see benches/build.sh for why).
set -euo pipefail

# shellcheck source=benches/lib.sh
. "$(dirname "$0")/lib.sh"
BASE=${BASE:?set BASE to the revision to compare against, e.g. BASE=8ef3998 (main before issue 15)}
SIZE=${SIZE:-10000}
RUNS=${RUNS:-7}
SEED=${SEED:-1}
LIMIT=${LIMIT:-1.10}
bench_setup coursegen-hl-compare
need_gnu_time
TARGET=$PWD/target

echo "base $(git rev-parse --short "$BASE"), head $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (with uncommitted changes)'), $SIZE entries, $RUNS runs" >&2

if [ -n "${BASE_BIN:-}" ]; then
    [ "$BASE_BIN" -ef "$WORK/coursegen-base" ] || cp "$BASE_BIN" "$WORK/coursegen-base"
else
    rm -rf "$WORK/base-src" && mkdir -p "$WORK/base-src"
    git archive "$BASE" | tar -x -C "$WORK/base-src"
    CARGO_TARGET_DIR=$TARGET cargo build --release --quiet --locked --bin coursegen --manifest-path "$WORK/base-src/Cargo.toml"
    cp "$TARGET/release/coursegen" "$WORK/coursegen-base"
fi
cargo build --release --quiet --locked --bin coursegen --example gen_corpus
cp "$TARGET/release/coursegen" "$WORK/coursegen-head"

CORPUS=$WORK/corpus-$SIZE-$SEED
if [ ! -d "$CORPUS" ]; then
    "$TARGET/release/examples/gen_corpus" --n "$SIZE" --seed "$SEED" --out "$CORPUS" >/dev/null
fi
# The same content with BASE's own templates and static files, which BASE's binary expects
# (the generator copies this checkout's).
BASE_CORPUS=$WORK/corpus-$SIZE-$SEED-base-$(git rev-parse --short "$BASE")
if [ ! -d "$BASE_CORPUS" ]; then
    mkdir -p "$BASE_CORPUS.tmp"
    cp -r "$CORPUS/content" "$BASE_CORPUS.tmp/"
    git archive "$BASE" templates static | tar -x -C "$BASE_CORPUS.tmp"
    mv "$BASE_CORPUS.tmp" "$BASE_CORPUS"
fi

# Flags every build of BINARY gets: --no-search where it has it.
flags_of() {
    if "$1" build --help 2>&1 | grep -q -- --no-search; then echo --no-search; fi
}

# CPU seconds (user + system, GNU time) of one clean build: run BINARY [FLAGS…], on the
# corpus with that binary's templates. CPU, not wall: on this 2-core VM wall times of the
# same build spread by ±20 %, more than the highlighter's whole share.
run() {
    local bin=$1; shift
    local root=$CORPUS
    [ "$bin" = "$WORK/coursegen-base" ] && root=$BASE_CORPUS
    rm -rf "$root/public"
    # shellcheck disable=SC2046
    if ! /usr/bin/time -f '%U %S' -o "$WORK/time.txt" "$bin" build $(flags_of "$bin") "$@" --root "$root" >"$WORK/build.log" 2>&1; then
        echo "error: $bin build $* --root $root failed:" >&2
        tail -n 5 "$WORK/build.log" >&2
        exit 1
    fi
    awk '{ printf "%.2f\n", $1 + $2 }' "$WORK/time.txt"
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
    MEDIANS+=("$b" "$h")
    printf '| %s | %.3f s | %.3f s | %.3f | %s |\n' "$label" "$b" "$h" "$ratio" \
        "$([ "$within" = 1 ] && echo "within $LIMIT" || echo "over $LIMIT")"
    echo "  $label, base runs (s): ${base_t[*]}" >&2
    echo "  $label, head runs (s): ${head_t[*]}" >&2
}

command -v bc >/dev/null || { echo "needs bc (apt-get install bc)" >&2; exit 2; }
echo "| $SIZE entries, CPU | base median | head median | head / base | verdict |"
echo "| --- | ---: | ---: | ---: | --- |"
MEDIANS=()
compare "highlighting on"
if "$WORK/coursegen-base" build --help 2>&1 | grep -q -- --no-highlight; then
    compare "highlighting off (control)" --no-highlight
    # MEDIANS: base on, head on, base off, head off.
    base_cost=$(echo "${MEDIANS[0]} - ${MEDIANS[2]}" | bc -l)
    head_cost=$(echo "${MEDIANS[1]} - ${MEDIANS[3]}" | bc -l)
    share=$(echo "100 * ($head_cost - $base_cost) / ${MEDIANS[0]}" | bc -l)
    printf '\nHighlighting costs (on − off): base %.3f s, head %.3f s; the difference is %+.1f %% of base'"'"'s highlighted build (limit %+.0f %%).\n' \
        "$base_cost" "$head_cost" "$share" "$(echo "100 * ($LIMIT - 1)" | bc -l)"
fi
