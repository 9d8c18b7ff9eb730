#!/usr/bin/env bash
# Issue 37: warp_divergence re-measured at 131,072 rounds (was 32,768), so that threads per
# executed instruction reads 32 / paths to three decimals. measure --gpu --counters of that
# kernel alone, in the session checkout, with the release binary carried in .dev/.
set -u
export PATH=$PATH:/usr/local/cuda/bin LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}:/usr/local/cuda/lib64
D=/tmp/g; mkdir -p $D
{ date -u; nvidia-smi; command -v ncu; ncu --version; } >$D/env.txt 2>&1
find measurements -name '*.json' | sort | xargs sha256sum >$D/sums-before.txt
./.dev/coursegen measure --gpu --counters --retries 2 --kernel warp_divergence >$D/measure.log 2>&1; echo "exit $?" >>$D/measure.log
find measurements -name '*.json' | sort | xargs sha256sum >$D/sums-after.txt
tar czf $OUT/records.tgz measurements/warp_divergence
cp $D/*.txt $D/measure.log $OUT/
tail -n 30 $D/measure.log
