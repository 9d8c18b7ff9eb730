#!/usr/bin/env bash
# Issue 37: tests/kernels_compile.rs (NVRTC, sm_75 and sm_90, both entries unmangled) on the
# device machine's NVRTC, the test binary built here; its compiled-in kernels/ path is
# pointed at a copy of the branch.
set -u
H=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}:/usr/local/cuda/lib64
mkdir -p /tmp/course /work && tar xzf $H/course.tgz -C /tmp/course && ln -sfn /tmp/course /work/wt-h37
$H/kernels-compile --include-ignored --nocapture 2>&1 | tee $OUT/kernels-compile.log
