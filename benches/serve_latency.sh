#!/usr/bin/env bash
# Edit-to-served latency of `coursegen serve` (see BENCHMARKS.md). From anywhere in the repo:
#
#   bash benches/serve_latency.sh
#
# Builds the release binary and the corpus generator, writes the build benchmark's corpora
# (benches/gen_corpus.rs: N published glossary entries, seeded), starts `coursegen serve` on
# each and times RUNS one-entry edits from the file's write to the served page (through the
# reload event stream, as a browser tab follows it; benches/serve_latency.py). Prints a
# Markdown table and writes it to $WORK/serve-results.md.
#
# Knobs (environment): SIZES="1000 10000"  RUNS=11  SEED=1
#   WORK=DIR  default /dev/shm/coursegen-bench (tmpfs) where it exists, else /tmp/coursegen-bench
#   COURSEGEN=/path/to/coursegen  times that binary instead of building this checkout's;
#   with GEN=/path/to/gen_corpus as well, nothing is built (a quick check with debug builds).
# Zola's `serve` is timed beside it only where a `zola` binary is on PATH (ZOLA=path).
set -euo pipefail
export SOURCE_DATE_EPOCH=1767139200

SIZES=${SIZES:-"1000 10000"}
RUNS=${RUNS:-11}
SEED=${SEED:-1}
# shellcheck source=benches/lib.sh
. "$(dirname "$0")/lib.sh"
bench_setup coursegen-bench
build_binaries
if command -v "${ZOLA:-zola}" >/dev/null 2>&1; then
    echo "note: a zola binary was found, but this script times coursegen only" >&2
else
    echo "note: no zola binary on PATH; Zola's serve is not timed" >&2
fi

{
    echo "| entries | median edit → served (ms) | runs (ms) |"
    echo "| ---: | ---: | --- |"
} >"$WORK/serve-results.md"
for n in $SIZES; do
    root=$WORK/corpus-$n
    "$GEN" --n "$n" --seed "$SEED" --out "$root" >/dev/null
    python3 benches/serve_latency.py "$BIN" "$root" "$RUNS" >>"$WORK/serve-results.md"
done
cat "$WORK/serve-results.md"
