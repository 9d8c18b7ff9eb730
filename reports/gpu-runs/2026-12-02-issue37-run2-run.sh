#!/usr/bin/env bash
# Issue 37: measure --gpu --counters of the whole course (five kernels) in one run, from a
# copy of branch wave4-h37 (course.tgz: its tracked and new files) with the release binary
# built from it (coursegen), then the GPU tests if their binary came along (gpu-tests).
# Run 2 (swizzled_tile with one LOP3 per load: the compiler merged four naive-row loads into
# an LDS.128, 69,206,016 loads of 32 wavefronts, 8.49 ms, 8x the padded row). Records replaced
# by run 3's; the GPU tests passed.
# Ran from the session checkout (/work/main) with .dev/h37 carried (course.tgz: this branch's
# files; coursegen and gpu-tests: release builds of it).
set -u
H=$(cd "$(dirname "$0")" && pwd)
export PATH=$PATH:/usr/local/cuda/bin LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}:/usr/local/cuda/lib64
C=/tmp/course; D=/tmp/g; mkdir -p $C $D
tar xzf $H/course.tgz -C $C
{ date -u; nvidia-smi; command -v ncu; ncu --version; } >$D/env.txt 2>&1
cd $C
find measurements -name '*.json' | sort | xargs sha256sum >$D/sums-before.txt
$H/coursegen measure --gpu --counters --retries 2 >$D/measure.log 2>&1; echo "exit $?" >>$D/measure.log
find measurements -name '*.json' | sort | xargs sha256sum >$D/sums-after.txt
tar czf $OUT/records.tgz measurements
cp $D/*.txt $D/measure.log $OUT/
tail -n 45 $D/measure.log
if [ -x $H/gpu-tests ]; then
  cd $H
  COURSEGEN_BIN=$H/coursegen COURSEGEN_KERNELS=$C/kernels timeout 420 ./gpu-tests --include-ignored --test-threads 1 --nocapture >$D/gpu-tests.log 2>&1
  echo "exit $?" >>$D/gpu-tests.log
  cp $D/gpu-tests.log $OUT/
  grep -E "^test |test result|exit" $D/gpu-tests.log
fi
