#!/usr/bin/env bash
# Issue 38, call 1: what NVML and the in-kernel clock say during each row of the course, on
# a quiet H200 (two full runs) and beside a competing load (coalescing only).
# Run from a copy of the tree at 7a99141 (git archive) with ./bin/coursegen built from it plus
# a few lines that append each timed sample to $COURSEGEN_SAMPLE_TRACE, and
# nvml_trace.py (2026-12-02-issue38-nvml_trace.py) beside it. Analysis: *-diag-analysis.py.
set -u
D=/tmp/d; mkdir -p $D
export PATH=$PATH:/usr/local/cuda/bin LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}:/usr/local/cuda/lib64
{ date -u; nvidia-smi; nvidia-smi -q -d CLOCK,PERFORMANCE,POWER,TEMPERATURE; command -v ncu; ncu --version; ldconfig -p | grep nvrtc; } >$D/env.txt 2>&1
run() { # name, extra args...
    local name=$1; shift
    python3 nvml_trace.py $D/nvml-$name.csv 400 & local p=$!
    sleep 0.5
    local t0=$(date +%s.%N)
    COURSEGEN_SAMPLE_TRACE=$D/samples-$name.csv ./bin/coursegen measure --gpu "$@" >$D/$name.log 2>&1
    echo "exit $? after $(echo "$(date +%s.%N) - $t0" | bc) s" >>$D/$name.log
    kill $p; wait $p
    tail -n 8 $D/$name.log
}
run quiet1
run quiet2
python3 benches/competing_load.py --seconds 60 >$D/load.txt 2>&1 & L=$!
for i in $(seq 60); do grep -q ready $D/load.txt && break; sleep 1; done
run loaded --kernel coalescing
kill $L; wait $L
cp -r measurements $D/records-after
tar czf $OUT/diag.tgz -C /tmp d
ls -la $D
