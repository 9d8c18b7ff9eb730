#!/usr/bin/env bash
# The Slurm script `coursegen init --gpu` writes (.coursegen/measure.sbatch), as a course's
# author runs it on a cluster's login node, with stand-ins: `sbatch` runs the array's tasks
# at once on this machine (tests/ci/sbatch-stub), `srun` runs its step (srun-stub), `gh`
# takes the pull request (gh-stub), `origin` is a bare repository, and the GPU's run is
# tests/ci/fake-gpu-coursegen: `measure --gpu` writes this repository's committed record of
# the kernel with its first row 10 % slower; everything else, `measure --compare` above all,
# is the real coursegen given. No GPU, no network, no Rust toolchain used.
#
#   bash tests/ci/course_measure_sbatch.sh target/release/coursegen
#
# Checks: `submit` measures every kernel (one task each, through srun, in a tree of its own,
# the record saying the tree was clean at HEAD), leaves the checkout as it was, puts the
# records, their comparisons and the logs in RECORDS_DIR, and opens one pull request against
# the checkout's branch whose commit holds the records alone and whose description holds
# each comparison (the real `measure --compare`: the first row slower); KERNELS=changed measures
# nothing when every record is fresh and only the kernel whose .cu changed otherwise; a
# RECORDS_DIR inside the checkout and an unknown kernel are refused.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
real="$(cd "$(dirname "${1:?usage: tests/ci/course_measure_sbatch.sh COURSEGEN}")" && pwd)/$(basename "$1")"
tmp="$(mktemp -d)"
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
fail=0
check() { # check MESSAGE COMMAND...: runs COMMAND; a failure is reported and counted
    local message="$1"
    shift
    if "$@"; then echo "ok: $message"; else echo "FAIL: $message"; fail=$((fail + 1)); fi
}
unset GITHUB_ACTIONS GITHUB_RUN_ID RECORDS_DIR COURSEGEN KERNELS COUNTERS BASE_BRANCH GPUS
export HOME="$tmp/home" GIT_AUTHOR_NAME=Tester GIT_AUTHOR_EMAIL=tester@example.org
export GIT_COMMITTER_NAME=Tester GIT_COMMITTER_EMAIL=tester@example.org
mkdir -p "$HOME" "$tmp/bin" "$tmp/gh"
cp "$repo/tests/ci/sbatch-stub" "$tmp/bin/sbatch"
cp "$repo/tests/ci/srun-stub" "$tmp/bin/srun"
cp "$repo/tests/ci/gh-stub" "$tmp/bin/gh"
cp "$repo/tests/ci/fake-gpu-coursegen" "$tmp/bin/coursegen"
chmod +x "$tmp/bin/"*
# NVRTC as a CUDA toolkit leaves it (the stand-in GPU run only needs the folder named).
nvrtc="$tmp/cuda/lib64"
mkdir -p "$nvrtc" && touch "$nvrtc/libnvrtc.so.13"
export PATH="$tmp/bin:$PATH" GH_STUB_DIR="$tmp/gh" SRUN_LOG="$tmp/srun.log" FAKE_LOG="$tmp/coursegen.log"
export REAL_COURSEGEN="$real" FAKE_RECORDS="$repo/measurements" LD_LIBRARY_PATH="$nvrtc"

echo "-- a course made by coursegen init --gpu, its records committed, on main with an origin"
co="$tmp/course"
"$real" init --gpu "$co" >/dev/null
check "init --gpu wrote the Slurm script" test -f "$co/.coursegen/measure.sbatch"
# A second kernel, and the records of an earlier run (this repository's), committed.
cp "$repo"/kernels/bank_conflicts.{cu,yaml} "$co/kernels/"
for k in warp_divergence bank_conflicts; do
    mkdir -p "$co/measurements/$k"
    cp "$repo/measurements/$k"/*.json "$co/measurements/$k/"
done
git -C "$co" init -q -b main
git -C "$co" add -A
git -C "$co" commit -q -m "the course"
git init -q --bare "$tmp/origin.git"
git -C "$co" remote add origin "$tmp/origin.git"
git -C "$co" push -q origin main
head="$(git -C "$co" rev-parse HEAD)"
cp "$co/.git/config" "$tmp/config.before"

clean() { [ -z "$(git -C "$co" status --porcelain --ignored=no)" ]; }
same_config() { cmp -s "$tmp/config.before" "$co/.git/config"; }
one_worktree() { [ "$(git -C "$co" worktree list | wc -l)" -eq 1 ]; }
on_main() { [ "$(git -C "$co" symbolic-ref --short HEAD)" = main ]; }
prs() { jq length "$GH_STUB_DIR/prs.json" 2>/dev/null || echo 0; }

echo "-- submit: every kernel, one task each, then the pull request"
results="$tmp/results"
if ! (cd "$co" && RECORDS_DIR="$results" bash .coursegen/measure.sbatch submit --gres=gpu:h200:1 >"$tmp/submit.log" 2>&1); then
    echo "FAIL: submit failed:"
    cat "$tmp/submit.log" "$results"/task-*.log 2>/dev/null || true
    fail=$((fail + 1))
fi
check "the checkout is clean" clean
check "its .git/config is untouched" same_config
check "no worktree is left" one_worktree
check "it is still on main" on_main
check "both tasks ran through srun" test "$(sort -n "$SRUN_LOG" | tr '\n' ' ')" = "0 1 "
not_in_checkout() { ! grep -q "^$co|measure --gpu" "$FAKE_LOG"; }
check "no task measured in the shared checkout itself" not_in_checkout
check "each task measured its kernel on device 0 with NVRTC on its library path" \
    test "$(grep -c "|measure --gpu --device 0 --kernel [a-z_]*|$nvrtc" "$FAKE_LOG")" -eq 2
for k in warp_divergence bank_conflicts; do
    rec="$results/$k/nvidia-h200-52952016.json"
    check "$k: its record is in RECORDS_DIR" test -f "$rec"
    at_head() { jq -e --arg c "$head" '.run.git_commit == $c and .run.git_dirty == false' "$rec" >/dev/null; }
    check "$k: the record says the tree was clean at HEAD" at_head
    first_row_slower() { grep -Eq '^1 slower, [0-9]+ same$' "$rec.compare.txt"; }
    check "$k: the real measure --compare found its first row slower, the others the same" first_row_slower
    check "$k: the comparison names the committed record" grep -q "^old: .*/HEAD/measurements/$k/nvidia-h200-52952016.json — " "$rec.compare.txt"
done
check "each task's log is beside the records" test "$(find "$results" -name 'task-*.log' | wc -l)" -eq 2
check "one pull request" test "$(prs)" -eq 1
branch="$(jq -r '.[0].head' "$GH_STUB_DIR/prs.json" 2>/dev/null)"
records_only() {
    [ "$(git -C "$tmp/origin.git" rev-parse "$branch~1")" = "$head" ] &&
        [ "$(git -C "$tmp/origin.git" diff --name-only main "$branch")" = "$(printf 'measurements/%s/nvidia-h200-52952016.json\n' bank_conflicts warp_divergence)" ]
}
check "its branch's one commit on main holds the records alone" records_only
pr_body() {
    jq -e '.[0].base == "main" and (.[0].body | contains("#### warp_divergence/nvidia-h200-52952016.json.compare.txt")
        and contains("#### bank_conflicts/nvidia-h200-52952016.json.compare.txt") and contains("\n1 slower, "))' \
        "$GH_STUB_DIR/prs.json" >/dev/null
}
check "it goes to main and its description holds both comparisons" pr_body

echo "-- KERNELS=changed: nothing when every record is fresh"
: >"$SRUN_LOG"
(cd "$co" && KERNELS=changed RECORDS_DIR="$tmp/r2" bash .coursegen/measure.sbatch submit --gres=gpu:h200:1 >"$tmp/changed.log" 2>&1)
check "it says there is nothing to measure" grep -q "no kernel to measure: every kernel's records are up to date" "$tmp/changed.log"
check "it leaves no records folder" test ! -e "$tmp/r2"
check "no task ran" test ! -s "$SRUN_LOG"
check "no pull request" test "$(prs)" -eq 1

echo "-- KERNELS=changed: the kernel whose .cu changed"
echo "// a comment" >>"$co/kernels/bank_conflicts.cu"
git -C "$co" commit -q -am "edit bank_conflicts"
(cd "$co" && KERNELS=changed RECORDS_DIR="$tmp/r3" bash .coursegen/measure.sbatch submit --gres=gpu:h200:1 >"$tmp/changed.log" 2>&1) ||
    { echo "FAIL: submit with KERNELS=changed failed:"; cat "$tmp/changed.log"; fail=$((fail + 1)); }
check "one task ran" test "$(wc -l <"$SRUN_LOG")" -eq 1
check "it measured bank_conflicts alone" test "$(ls "$tmp/r3")" = "$(printf 'bank_conflicts\ncommit\nkernels.txt\ntask-0.log')"
only_bank() { jq -e '.[1].body | contains("bank_conflicts/") and (contains("warp_divergence/") | not)' "$GH_STUB_DIR/prs.json" >/dev/null; }
check "a second pull request, with bank_conflicts's record alone" only_bank

echo "-- refusals"
status=0
(cd "$co" && RECORDS_DIR="$co/records" bash .coursegen/measure.sbatch submit >/dev/null 2>&1) || status=$?
check "RECORDS_DIR inside the checkout: exit 2" test "$status" -eq 2
check "and it leaves no folder there" test ! -e "$co/records"
status=0
(cd "$co" && KERNELS="warp_divergence nope" RECORDS_DIR="$tmp/r4" bash .coursegen/measure.sbatch submit >/dev/null 2>&1) || status=$?
check "an unknown kernel: exit 2" test "$status" -eq 2
check "the checkout is clean at the end" clean

if [ "$fail" -gt 0 ]; then
    echo "course_measure_sbatch: $fail check(s) failed"
    exit 1
fi
echo "course_measure_sbatch: all checks pass"
