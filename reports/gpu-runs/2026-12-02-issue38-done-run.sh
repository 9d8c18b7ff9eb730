#!/usr/bin/env bash
# Issue 38, call 2: three fresh `coursegen measure --gpu` runs of the whole course on a quiet
# Run from a copy of the branch issue-38 at bab70e6 (git archive) with ./bin/coursegen built
# from it (cargo build --release --locked) and nvml_trace.py (2026-12-02-issue38-nvml_trace.py).
# H200, then one beside benches/competing_load.py, whose records must stay byte-identical.
set -u
export PATH=$PATH:/usr/local/cuda/bin LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}:/usr/local/cuda/lib64
D=/tmp/f; mkdir -p $D
{ date -u; nvidia-smi; nvidia-smi -q -d CLOCK,POWER; command -v ncu; ncu --version | tail -n 1; ./bin/coursegen --version; } >$D/env.txt 2>&1
sums() { find measurements -name '*.json' | sort | xargs sha256sum; }
run() { # name, timeout
    python3 nvml_trace.py $D/nvml-$1.csv $2 & local p=$!
    local t0=$(date +%s)
    timeout $2 ./bin/coursegen measure --gpu >$D/$1.log 2>&1
    echo "exit $? after $(( $(date +%s) - t0 )) s" >>$D/$1.log
    kill $p 2>/dev/null; wait $p
    echo "== $1"; tail -n 7 $D/$1.log
    tar czf $OUT/final.tgz -C /tmp f
}
for i in 1 2 3; do run quiet$i 110; done
sums >$D/sums-before-load.txt
python3 benches/competing_load.py --seconds 330 >$D/load.txt 2>&1 & L=$!
for i in $(seq 60); do grep -q ready $D/load.txt && break; sleep 1; done
run loaded 230
kill $L 2>/dev/null; wait $L
sums >$D/sums-after-load.txt
if cmp -s $D/sums-before-load.txt $D/sums-after-load.txt; then r=yes; else r=NO; fi
echo "records byte-identical after the loaded run: $r" | tee -a $D/loaded.log
cp -r measurements $D/records-after
tar czf $OUT/final.tgz -C /tmp f
