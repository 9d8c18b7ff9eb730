#!/usr/bin/env bash
# Issue 37, run 5: the whole course (five kernels) in one measure --gpu --counters run, after
# warp_divergence went to 131,072 rounds (run 4 measured it alone), so that one run writes
# the records of all five concepts on one H200.
set -u
export PATH=$PATH:/usr/local/cuda/bin LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}:/usr/local/cuda/lib64
D=/tmp/g; mkdir -p $D
{ date -u; nvidia-smi; command -v ncu; ncu --version; } >$D/env.txt 2>&1
find measurements -name '*.json' | sort | xargs sha256sum >$D/sums-before.txt
./.dev/coursegen measure --gpu --counters --retries 2 >$D/measure.log 2>&1; echo "exit $?" >>$D/measure.log
find measurements -name '*.json' | sort | xargs sha256sum >$D/sums-after.txt
tar czf $OUT/records.tgz measurements
cp $D/*.txt $D/measure.log $OUT/
tail -n 30 $D/measure.log
