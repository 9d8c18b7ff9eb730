#!/usr/bin/env bash
# Issue 37: measure --gpu --counters of the whole course (five kernels) in one run, from a
# copy of branch wave4-h37 (course.tgz: its tracked and new files) with the release binary
# built from it (coursegen).

# Run 1 (first kernel of swizzled_tile, whose index arithmetic held the padded and swizzled
# rows to 1.59 ms, 21x under the naive row instead of 32x: the build refused it). course.tgz:
# wave4-h37 at cbea81a plus the two concepts, not yet committed. Its records were replaced by run 3's.
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
tail -n 60 $D/measure.log
