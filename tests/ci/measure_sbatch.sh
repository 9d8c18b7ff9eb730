#!/usr/bin/env bash
# .ci/measure.sbatch and .ci/records-pr as a cluster runs them, with stand-ins: `sbatch`
# runs the array's tasks at once on this machine (as Slurm does, from a copy of the script,
# in the submit folder), `srun` runs its step, a stub `coursegen` writes a record the way
# `measure --gpu` does (naming the commit and whether the tree it sees is dirty), and a
# stub `gh` takes the pull request. No GPU, no network. Checks:
#
# - the shared checkout is left clean (`git status --porcelain` empty), on its branch, with
#   its .git/config byte for byte and no worktree left behind, and no ~/.gitconfig written;
# - every task ran its kernel through srun, in a tree of its own, with the login node's
#   NVRTC on LD_LIBRARY_PATH, and its record says the tree was clean at the checkout's HEAD;
# - the records and the task logs are in RECORDS_DIR, outside the checkout (one inside is
#   refused);
# - .ci/records-pr (on the "login node") pushes a branch whose commit holds the records
#   alone and opens the pull request against the checkout's branch, leaving the checkout
#   as it was;
# - .ci/measure passes --device all and --counters through, refuses a bad DEVICE, and on a
#   host without NVRTC sources .ci/nvrtc.sh (whose install is already there);
# - .ci/measure writes each record's `measure --compare` with the committed one beside it,
#   and .ci/records-pr puts that comparison into the pull request's description.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # check MESSAGE COMMAND...: runs COMMAND; a failure is reported and counted
    local message="$1"
    shift
    if "$@"; then echo "ok: $message"; else echo "FAIL: $message"; fail=$((fail + 1)); fi
}
unset GITHUB_ACTIONS GITHUB_RUN_ID GITHUB_STEP_SUMMARY RECORDS_DIR COURSEGEN KERNEL DEVICE COUNTERS OUT CARGO_TARGET_DIR
export HOME="$tmp/home" GIT_AUTHOR_NAME=Tester GIT_AUTHOR_EMAIL=tester@example.org
export GIT_COMMITTER_NAME=Tester GIT_COMMITTER_EMAIL=tester@example.org
mkdir -p "$HOME" "$tmp/bin" "$tmp/gh"

# The shared checkout: this repository's scripts, kernels and records, committed, with an
# origin to push to.
co="$tmp/checkout"
mkdir -p "$co"
(cd "$repo" && tar --exclude=.ci/.nvrtc --exclude=node_modules --exclude=__pycache__ -cf - .ci kernels measurements .gitignore) | tar -xf - -C "$co"
git -C "$co" init -q -b main
git -C "$co" add -A
git -C "$co" commit -q -m "the course"
git init -q --bare "$tmp/origin.git"
git -C "$co" remote add origin "$tmp/origin.git"
git -C "$co" push -q origin main
head="$(git -C "$co" rev-parse HEAD)"
cp "$co/.git/config" "$tmp/config.before"
# NVRTC as `. .ci/nvrtc.sh` leaves it on the login node (the stub only looks for the folder).
nvrtc="$co/.ci/.nvrtc/nvidia/cu13/lib"
mkdir -p "$nvrtc" "$co/target/release"
touch "$nvrtc/libnvrtc.so.13" "$nvrtc/libnvrtc-builtins.so.13.0"

cat >"$co/target/release/coursegen" <<'EOF'
#!/usr/bin/env bash
# Stub of `coursegen measure --gpu`: one record per kernel asked for, as the real one writes.
set -euo pipefail
echo "$PWD|$*|${LD_LIBRARY_PATH:-}" >>"$STUB_LOG"
if [ "${1:-} ${2:-}" = "measure --compare" ]; then
    printf 'stub compare\nold: %s\nnew: %s\n' "$(cat "$3")" "$(cat "$4")"
    exit 0
fi
[ "${1:-} ${2:-}" = "measure --gpu" ] || { echo "stub coursegen: unexpected $*" >&2; exit 9; }
shift 2
kernel='' device='' counters=false
while [ $# -gt 0 ]; do
    case "$1" in
        --kernel) kernel="$2"; shift ;;
        --device) device="$2"; shift ;;
        --counters) counters=true ;;
        *) echo "stub coursegen: unknown flag $1" >&2; exit 9 ;;
    esac
    shift
done
if [ -n "${EXPECT_NVRTC:-}" ]; then
    case ":${LD_LIBRARY_PATH:-}:" in *":$EXPECT_NVRTC:"*) ;; *) echo "stub coursegen: NVRTC not on LD_LIBRARY_PATH" >&2; exit 8 ;; esac
fi
dirty=false
[ -z "$(git status --porcelain)" ] || dirty=true
commit="$(git rev-parse HEAD)"
sleep 0.3 # the array's tasks overlap
for k in ${kernel:-$(cd kernels && ls -- *.cu | sed 's/\.cu$//')}; do
    mkdir -p "measurements/$k"
    printf '{"kernel": "%s", "device": "%s", "counters": %s, "git_commit": "%s", "git_dirty": %s}\n' \
        "$k" "$device" "$counters" "$commit" "$dirty" >"measurements/$k/stub-gpu-0123abcd.json.tmp"
    mv "measurements/$k/stub-gpu-0123abcd.json.tmp" "measurements/$k/stub-gpu-0123abcd.json"
done
EOF
chmod +x "$co/target/release/coursegen"

cp "$repo/tests/ci/sbatch-stub" "$tmp/bin/sbatch"
cp "$repo/tests/ci/srun-stub" "$tmp/bin/srun"
cp "$repo/tests/ci/gh-stub" "$tmp/bin/gh"
chmod +x "$tmp/bin/"*
export PATH="$tmp/bin:$PATH" STUB_LOG="$tmp/coursegen.log" SRUN_LOG="$tmp/srun.log" GH_STUB_DIR="$tmp/gh"
export EXPECT_NVRTC="$nvrtc"

clean() { [ -z "$(git -C "$co" status --porcelain --ignored=no)" ]; }
same_config() { cmp -s "$tmp/config.before" "$co/.git/config"; }
one_worktree() { [ "$(git -C "$co" worktree list | wc -l)" -eq 1 ]; }
on_main() { [ "$(git -C "$co" symbolic-ref --short HEAD)" = main ] && [ "$(git -C "$co" rev-parse HEAD)" = "$head" ]; }

echo "-- the array, one task per kernel"
mapfile -t kernels < <(find "$co/kernels" -maxdepth 1 -name '*.cu' -printf '%f\n' | sed 's/\.cu$//' | sort)
n="${#kernels[@]}"
results="$tmp/results"
if ! (cd "$co" && sbatch --wait --array=0-$((n - 1)) --gres=gpu:h200:1 --export=ALL,RECORDS_DIR="$results" .ci/measure.sbatch >/dev/null); then
    echo "FAIL: a task of the array failed; its log:"
    cat "$results"/task-*.log 2>/dev/null || true
    fail=$((fail + 1))
fi
check "the checkout is clean after the array" clean
git -C "$co" status --porcelain
check "its .git/config is untouched" same_config
check "no worktree is left" one_worktree
check "it is still on main at its commit" on_main
check "no ~/.gitconfig was written" test ! -e "$HOME/.gitconfig"
check "every task ran through srun" test "$(sort -n "$SRUN_LOG" | tr '\n' ' ')" = "$(seq -s ' ' 0 $((n - 1))) "
for k in "${kernels[@]}"; do
    rec="$results/$k/stub-gpu-0123abcd.json"
    check "$k: its record is in RECORDS_DIR" test -f "$rec"
    check "$k: the record says the tree was clean at HEAD" \
        grep -q "\"git_commit\": \"$head\", \"git_dirty\": false" "$rec"
    check "$k: measured on device 0" grep -q '"device": "0"' "$rec"
done
check "each task's log is beside the records" test "$(find "$results" -name 'task-*.log' | wc -l)" -eq "$n"
not_in_checkout() { ! grep -q "^$co|" "$STUB_LOG"; }
check "no task measured in the shared checkout itself" not_in_checkout
check "the tasks found the login node's NVRTC" test "$(grep -c "|$nvrtc" "$STUB_LOG")" -eq "$n"

echo "-- RECORDS_DIR inside the checkout is refused"
status=0
(cd "$co" && RECORDS_DIR="$co/records" SLURM_SUBMIT_DIR="$co" bash .ci/measure.sbatch >/dev/null 2>&1) || status=$?
check "refused with exit 2" test "$status" -eq 2
rmdir "$co/records" 2>/dev/null || true
check "the checkout is still clean" clean

echo "-- .ci/records-pr on the login node"
(cd "$co" && RECORDS_DIR="$results" GITHUB_REPOSITORY=example/course GPUS='["gpu-h200"]' .ci/records-pr >/dev/null)
check "the checkout is clean after records-pr" clean
check "its .git/config is untouched" same_config
check "no worktree is left" one_worktree
check "it is still on main at its commit" on_main
branch="$(git -C "$tmp/origin.git" for-each-ref --format='%(refname:short)' 'refs/heads/measurements/*')"
check "one records branch was pushed" test "$(printf '%s\n' "$branch" | grep -c .)" -eq 1
records_only() {
    local files
    files="$(git -C "$tmp/origin.git" diff --name-only main "$branch")"
    [ "$(git -C "$tmp/origin.git" rev-parse "$branch~1")" = "$head" ] &&
        [ "$files" = "$(printf 'measurements/%s/stub-gpu-0123abcd.json\n' "${kernels[@]}")" ]
}
check "its one commit on main holds the records alone" records_only
pr_to_main() { jq -e --arg b "$branch" 'length == 1 and .[0].base == "main" and .[0].head == $b' "$GH_STUB_DIR/prs.json" >/dev/null; }
check "the pull request goes to main from that branch" pr_to_main

echo "-- .ci/measure's inputs"
: >"$STUB_LOG"
(cd "$co" && DEVICE=all COUNTERS=1 KERNEL="${kernels[0]}" COURSEGEN=target/release/coursegen OUT="$tmp/out" \
    LD_LIBRARY_PATH="$nvrtc" .ci/measure >/dev/null 2>&1)
check "--device all and --counters reach coursegen" grep -q "|measure --gpu --device all --kernel ${kernels[0]} --counters|" "$STUB_LOG"
check "the record went to OUT" test -f "$tmp/out/${kernels[0]}/stub-gpu-0123abcd.json"
git -C "$co" checkout -q -- measurements && git -C "$co" clean -q -fd -- measurements
status=0
(cd "$co" && DEVICE='0;rm' COURSEGEN=target/release/coursegen .ci/measure >/dev/null 2>&1) || status=$?
check "a DEVICE that is neither an ordinal nor all is refused" test "$status" -eq 2
if ldconfig -p 2>/dev/null | grep 'libnvrtc\.so\.13 ' >/dev/null; then
    echo "skip: this host has NVRTC, so .ci/measure does not source .ci/nvrtc.sh here"
else
    : >"$STUB_LOG"
    (cd "$co" && env -u LD_LIBRARY_PATH COURSEGEN=target/release/coursegen OUT="$tmp/out2" .ci/measure >/dev/null 2>&1)
    check "on a driver-only host .ci/measure gets NVRTC from .ci/nvrtc.sh" grep -q "|$nvrtc" "$STUB_LOG"
    git -C "$co" checkout -q -- measurements && git -C "$co" clean -q -fd -- measurements
fi
echo "-- .ci/measure compares a record with the committed one; the pull request says so"
k="${kernels[0]}"
mkdir -p "$co/measurements/$k"
echo '{"committed": true}' >"$co/measurements/$k/stub-gpu-0123abcd.json"
git -C "$co" add measurements && git -C "$co" commit -q -m "a committed record"
(cd "$co" && KERNEL="$k" COURSEGEN=target/release/coursegen OUT="$tmp/out3" \
    LD_LIBRARY_PATH="$nvrtc" .ci/measure >/dev/null 2>&1)
compared="$tmp/out3/$k/stub-gpu-0123abcd.json.compare.txt"
check "the comparison is beside the record in OUT" test -f "$compared"
committed_vs_new() { grep -q '^old: {"committed": true}$' "$compared" && grep -q '^new: {"kernel"' "$compared"; }
check "it compares the committed record with the new one" committed_vs_new
(cd "$co" && RECORDS_DIR="$tmp/out3" GITHUB_REPOSITORY=example/course GPUS='["gpu-h200"]' .ci/records-pr >/dev/null)
pr_compares() {
    jq -e --arg k "$k" '.[-1].body | contains("#### \($k)/stub-gpu-0123abcd.json.compare.txt") and contains("stub compare\nold: {\"committed\": true}")' \
        "$GH_STUB_DIR/prs.json" >/dev/null
}
check "the pull request's description carries the comparison" pr_compares
git -C "$co" checkout -q -- measurements && git -C "$co" clean -q -fd -- measurements
check "the checkout is clean at the end" clean

if [ "$fail" -gt 0 ]; then
    echo "measure_sbatch: $fail check(s) failed"
    exit 1
fi
echo "measure_sbatch: all checks pass"
