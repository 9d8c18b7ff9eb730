#!/usr/bin/env bash
# `coursegen verify` of a whole signed site (issue 53): a gen_corpus course of N entries
# (default 1,000), every entry reviewed and signed by Grace Hopper and Ada Lovelace with
# Ed25519 keys made here, built with --strict, then `verify public/` run RUNS times (default
# 5); prints each wall time and the median; then the same over HTTP (`verify
# http://127.0.0.1:PORT/`, the site served by `python3 -m http.server`, every page fetched),
# and of one page by its URL. Runs in tmpfs (/dev/shm); build the release
# binaries first (cargo build --release --locked --bin coursegen --example gen_corpus), and
# run it while nothing else compiles.
set -euo pipefail
N=${N:-1000}
RUNS=${RUNS:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
cg=$root/target/release/coursegen
work=$(mktemp -d /dev/shm/coursegen-verify.XXXXXX)
server=
trap '[ -n "$server" ] && kill "$server"; rm -rf "$work"' EXIT
"$root/target/release/examples/gen_corpus" --n "$N" --out "$work/site" >/dev/null
cd "$work/site"
for who in ada grace; do ssh-keygen -q -t ed25519 -N '' -C "$who" -f "$work/$who"; done
mkdir -p .coursegen
printf '"ada@example.org,Ada Lovelace" %s\n"grace@example.org,Grace Hopper" %s\n' \
    "$(cut -d' ' -f1,2 "$work/ada.pub")" "$(cut -d' ' -f1,2 "$work/grace.pub")" \
    >.coursegen/allowed_signers
printf '[review]\nrequire_signatures = true\n' >coursegen.toml
sed -i -E 's/^  written_by: .*/  written_by: "Ada Lovelace"/; s/^  reviewed_by: .*/  reviewed_by: "Grace Hopper"/' \
    content/glossary/*.md
for f in content/glossary/*.md; do
    "$cg" sign "$f" --reviewer "Grace Hopper" --key "$work/grace" >/dev/null
    "$cg" sign "$f" --role author --key "$work/ada" >/dev/null
done
"$cg" build --strict >/dev/null
pages=$(find public -name '*.html' | wc -l)
times=()
for _ in $(seq "$RUNS"); do
    start=$(date +%s.%N)
    "$cg" verify public/ >/dev/null
    end=$(date +%s.%N)
    t=$(echo "$end - $start" | bc)
    times+=("$t")
    echo "verify public/ ($pages pages, $N signed entries): ${t} s"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print "median: " a[int((NR+1)/2)] " s"}'; }
median "${times[@]}"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory public "$port" >/dev/null 2>&1 &
server=$!
until curl -s -o /dev/null "http://127.0.0.1:$port/"; do sleep 0.1; done
entry=$(python3 -c 'import json; print(next(p["url"] for p in json.load(open("public/coursegen-provenance.json"))["pages"] if p["status"] == "reviewed"))')
for url in "http://127.0.0.1:$port/" "http://127.0.0.1:$port$entry"; do
    times=()
    for _ in $(seq "$RUNS"); do
        start=$(date +%s.%N)
        "$cg" verify "$url" >/dev/null
        end=$(date +%s.%N)
        times+=("$(echo "$end - $start" | bc)")
    done
    echo "verify $url: ${times[*]} s"
    median "${times[@]}"
done
