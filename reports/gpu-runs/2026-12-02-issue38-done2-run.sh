#!/usr/bin/env bash
# Issue 38, call 3: the refusal beside benches/competing_load.py run to its end (call 2's
# Run from a copy of the branch issue-38 at bab70e6 (git archive) with ./bin/coursegen built
# from it (cargo build --release --locked) and nvml_trace.py (2026-12-02-issue38-nvml_trace.py).
# whole-course loaded run was stopped by its time limit during the last kernel's retry):
# coalescing once on the quiet GPU (its record written), then beside the load.
set -u
export PATH=$PATH:/usr/local/cuda/bin LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}:/usr/local/cuda/lib64
D=/tmp/g; mkdir -p $D
{ date -u; nvidia-smi; } >$D/env.txt 2>&1
sums() { find measurements -name '*.json' | sort | xargs sha256sum; }
./bin/coursegen measure --gpu --kernel coalescing >$D/quiet.log 2>&1; echo "exit $?" >>$D/quiet.log
tail -n 4 $D/quiet.log
sums >$D/sums-before-load.txt
python3 benches/competing_load.py --seconds 200 >$D/load.txt 2>&1 & L=$!
for i in $(seq 60); do grep -q ready $D/load.txt && break; sleep 1; done
./bin/coursegen measure --gpu --kernel coalescing >$D/loaded.log 2>&1; echo "exit $?" >>$D/loaded.log
kill $L 2>/dev/null; wait $L
sums >$D/sums-after-load.txt
if cmp -s $D/sums-before-load.txt $D/sums-after-load.txt; then r=yes; else r=NO; fi
echo "records byte-identical after the loaded run: $r" | tee -a $D/loaded.log
tail -n 12 $D/loaded.log
tar czf $OUT/final2.tgz -C /tmp g
