#!/bin/bash
# Issue 13, 2026-11-30 (branch gpu2): the #[ignore]d GPU tests with the power-cap rule, then
# fresh records of both kernels with counters from a clean clone, nvidia-smi sampled all along.
set -u
cd "$(dirname "$0")"
D=$PWD
export PATH="$PATH:/usr/local/cuda/bin"
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}:/usr/local/cuda/lib64"
{
  date -u; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,power.limit --format=csv
  nvidia-smi --query-compute-apps=pid,name --format=csv
  which ncu; ncu --version | tail -1
  python3 -c 'import torch; print("torch", torch.__version__)'
  git -C repo log --oneline -1; echo "dirty files: $(git -C repo status --porcelain | wc -l)"
} > $OUT/env.txt 2>&1
Q=timestamp,index,clocks.sm,clocks.mem,power.draw,power.limit,temperature.gpu,clocks_event_reasons.active,clocks_event_reasons.sw_power_cap,clocks_event_reasons.hw_slowdown
nvidia-smi --query-gpu=$Q --format=csv,noheader >/dev/null 2>&1 || Q=timestamp,index,clocks.sm,clocks.mem,power.draw,power.limit,temperature.gpu
nvidia-smi --query-gpu=$Q --format=csv -lms 200 > $OUT/smi.csv 2>&1 &
SMI=$!
echo "=== $(date -u +%T) GPU tests: gpu-tests --include-ignored --test-threads 1 --nocapture" > $OUT/gpu-tests.log
COURSEGEN_BIN=$D/coursegen COURSEGEN_KERNELS=$D/repo/kernels timeout 300 ./gpu-tests --include-ignored --test-threads 1 --nocapture >> $OUT/gpu-tests.log 2>&1
echo "exit $? at $(date -u +%T)" >> $OUT/gpu-tests.log
echo "=== $(date -u +%T) coursegen measure --gpu --device all --counters --retries 2 (in repo/)" > $OUT/measure.log
(cd repo && timeout 200 $D/coursegen measure --gpu --device all --counters --retries 2) >> $OUT/measure.log 2>&1
echo "exit $? at $(date -u +%T)" >> $OUT/measure.log
echo "=== coursegen build --drafts --strict (in repo/, with the new records)" >> $OUT/measure.log
(cd repo && $D/coursegen build --drafts --strict --out /tmp/site 2>&1 | grep -v '^  draft'; echo "exit ${PIPESTATUS[0]}") >> $OUT/measure.log 2>&1
git -C repo status --porcelain >> $OUT/measure.log
tar czf $OUT/records.tgz -C repo measurements
kill $SMI
tail -5 $OUT/gpu-tests.log; grep -E "^(kernel|bank|coal)|exit|passed|FAILED|tolerated|power cap" $OUT/measure.log | cut -c1-250
