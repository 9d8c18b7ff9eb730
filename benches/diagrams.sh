#!/usr/bin/env bash
# Diagram-cost benchmark (issue 14). One command, from anywhere in the repository:
#
#   bash benches/diagrams.sh
#
# It builds the release binary and the corpus generator, writes a synthetic site of N
# published glossary entries (benches/gen_corpus.rs, seeded) and a copy of it in which every
# entry has a distinct `bank-map` diagram (row, column and width vary with the entry), then
# times three builds, interleaved, RUNS times each after one untimed warm-up:
#
#   plain  the site without diagrams                            (--no-cache)
#   cold   the site with diagrams, raster cache emptied first   (--cache-dir $WORK/cache)
#   warm   the same again, the cache left full by the last run  (--cache-dir $WORK/cache)
#
# and reports median CPU time (user + system, GNU time) and wall time of each, the CPU each
# diagram adds (cold − plain and warm − plain, divided by N), and the sizes of what a page
# carries: the social card PNG (diagram.png) and the inline SVG. Results go to stdout and to
# $WORK/diagrams.md, for BENCHMARKS.md.
#
# Knobs (environment): N=300  RUNS=5  SEED=1
#   WORK=DIR  default /dev/shm/coursegen-diagrams (tmpfs) where it exists, else /tmp/…
#   COURSEGEN=/path/to/coursegen  times that binary instead of building this checkout's.
# Quick check that the script works: N=20 RUNS=1 bash benches/diagrams.sh
set -euo pipefail

N=${N:-300}
RUNS=${RUNS:-5}
SEED=${SEED:-1}
# shellcheck source=benches/lib.sh
. "$(dirname "$0")/lib.sh"
bench_setup coursegen-diagrams
need_gnu_time
build_binaries

PLAIN=$WORK/plain-$N
DIAGRAMS=$WORK/diagrams-$N
CACHE=$WORK/cache
"$GEN" --n "$N" --seed "$SEED" --out "$PLAIN" >/dev/null
rm -rf "$DIAGRAMS"
cp -r "$PLAIN" "$DIAGRAMS"
# Entry i gets bank-map with highlight (i mod 32, ⌊i/32⌋ mod 32), width 32 or 33: distinct
# for the first 2,048 entries, and each SVG also carries its entry's own title.
python3 - "$DIAGRAMS/content/glossary" <<'EOF'
import pathlib, sys
files = sorted(pathlib.Path(sys.argv[1]).glob("*.md"))
for i, path in enumerate(files):
    text = path.read_text()
    width = 32 + (i // 1024) % 2
    block = (
        "diagram:\n  preset: bank-map\n"
        f"  highlight: {{ row: {i % 32}, column: {(i // 32) % 32} }}\n"
        f"  width: {width}\n"
        "  alt: Words of a shared tile shaded by bank, one row and one column picked out.\n"
    )
    head, sep, rest = text.partition("\nstatus: ")
    assert sep, f"{path}: no status line"
    path.write_text(head + "\n" + block.rstrip("\n") + sep + rest)
EOF

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# One build of $1 with flags $2..; prints "cpu_seconds wall_seconds". Exits on failure.
timed_build() {
    local root=$1
    shift
    rm -rf "$root/public"
    if ! /usr/bin/time -f '%U %S %e' -o "$WORK/time.txt" "$BIN" build --root "$root" "$@" \
        >"$WORK/build.log" 2>&1; then
        echo "error: 'coursegen build --root $root $*' failed; its output:" >&2
        tail -n 20 "$WORK/build.log" >&2
        exit 1
    fi
    awk '{ printf "%.3f %.3f\n", $1 + $2, $3 }' "$WORK/time.txt"
}

# The search index (timed by build.sh) is left out of all three: it, too, is kept in the
# cache, so a warm build would otherwise subtract its cost from the diagrams'.
NO_SEARCH=()
if "$BIN" build --help 2>&1 | grep -q -- '--no-search'; then
    NO_SEARCH=(--no-search)
fi
plain() { timed_build "$PLAIN" --no-cache "${NO_SEARCH[@]}"; }
cold() { rm -rf "$CACHE"; timed_build "$DIAGRAMS" --cache-dir "$CACHE" "${NO_SEARCH[@]}"; }
warm() { timed_build "$DIAGRAMS" --cache-dir "$CACHE" "${NO_SEARCH[@]}"; }

echo "warming up (N=$N)" >&2
plain >/dev/null
cold >/dev/null
warm >/dev/null
: >"$WORK/plain.txt"
: >"$WORK/cold.txt"
: >"$WORK/warm.txt"
for run in $(seq "$RUNS"); do
    echo "run $run of $RUNS" >&2
    plain >>"$WORK/plain.txt"
    cold >>"$WORK/cold.txt"
    warm >>"$WORK/warm.txt"
done

cpu() { cut -d' ' -f1 "$WORK/$1.txt" | median; }
wall() { cut -d' ' -f2 "$WORK/$1.txt" | median; }
per_diagram() { awk -v a="$1" -v b="$2" -v n="$N" 'BEGIN { printf "%.2f", (a - b) * 1000 / n }'; }

# Sizes of what the pages carry, from the last (warm) build's output.
SIZES=$(python3 - "$DIAGRAMS/public/glossary" <<'EOF'
import pathlib, statistics, sys
root = pathlib.Path(sys.argv[1])
pngs = [p.stat().st_size for p in root.glob("*/diagram.png")]
svgs = []
for page in root.glob("*/index.html"):
    html = page.read_text()
    start = html.find("<svg")
    if start >= 0:
        svgs.append(html.find("</svg>", start) + len("</svg>") - start)
def kb(v): return f"{v / 1024:.1f} KB"
print(f"{len(pngs)} {kb(statistics.median(pngs))} {kb(max(pngs))} {kb(statistics.median(svgs))} {kb(max(svgs))}")
EOF
)
read -r COUNT PNG_MED PNG_MED_U PNG_MAX PNG_MAX_U SVG_MED SVG_MED_U SVG_MAX SVG_MAX_U <<<"$SIZES"

{
    echo "Diagram cost, N = $N entries, $RUNS runs, medians ($(nproc) CPUs, $(date -u +%Y-%m-%d), $("$BIN" --version))"
    echo
    echo "| build | CPU s | wall s | CPU per diagram over plain |"
    echo "| --- | ---: | ---: | ---: |"
    echo "| plain (no diagrams) | $(cpu plain) | $(wall plain) | |"
    echo "| cold (empty raster cache) | $(cpu cold) | $(wall cold) | $(per_diagram "$(cpu cold)" "$(cpu plain)") ms |"
    echo "| warm (cache from the last build) | $(cpu warm) | $(wall warm) | $(per_diagram "$(cpu warm)" "$(cpu plain)") ms |"
    echo
    echo "$COUNT social cards (diagram.png, 1200 × 630): median $PNG_MED $PNG_MED_U, largest $PNG_MAX $PNG_MAX_U."
    echo "Inline SVG per page: median $SVG_MED $SVG_MED_U, largest $SVG_MAX $SVG_MAX_U."
} | tee "$WORK/diagrams.md"
