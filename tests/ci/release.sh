#!/usr/bin/env bash
# The release workflow's and the action's steps, run locally (tests/ci/run runs this) on the
# debug binary in $1 standing in for a release build:
#
#   .ci/release-package   packs an archive and its .sha256 (BIN= the binary given); with
#                         GLIBC_FLOOR, builds a Linux target with `cargo zigbuild` for that
#                         glibc (through a `cargo` stand-in), without it `cargo build`
#   .ci/release-checksums joins them into SHA256SUMS, refusing a corrupted archive
#   .ci/release-smoke     the Linux archive links no CUDA library, needs no glibc newer than
#                         GLIBC_FLOOR (a floor below the binary's refused) and builds this course
#   .ci/release-publish   (.ci/release-publish-tag) creates, then updates, the release
#                         through a `gh` stand-in; refuses a tag that is no version, or
#                         not Cargo.toml's (the version `init` pins courses to)
#   .ci/release-move-tag  moves `v1` forward to the release in a bare repository: made by
#                         the first, moved by the next, kept by an older line's, `v2` for 2.x
#   .ci/action-install    (.ci/install-coursegen) from a file:// folder of release assets:
#                         installed, on GITHUB_PATH, `path` output; a wrong checksum, a
#                         tampered archive or an unlisted one refused with nothing installed
#   .ci/action-run        runs coursegen with the `args` input
#   action.yml            composite, its steps exactly those scripts, inputs via env only
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="$(cd "$(dirname "${1:?usage: tests/ci/release.sh COURSEGEN}")" && pwd)/$(basename "$1")"
t="$(mktemp -d)"
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL release: $*" >&2; exit 1; }
linux=x86_64-unknown-linux-gnu

echo "-- release-package, release-checksums"
BIN="$bin" TARGET=$linux .ci/release-package "$t/dist" >/dev/null
BIN="$bin" TARGET=aarch64-apple-darwin .ci/release-package "$t/dist" >/dev/null
[ -f "$t/dist/coursegen-$linux.tar.gz" ] || fail "no archive"
[ -f "$t/dist/coursegen-$linux.tar.gz.sha256" ] || fail "no .sha256 beside the archive"
listing="$(tar -tzf "$t/dist/coursegen-$linux.tar.gz")"
grep -qx "coursegen-$linux/coursegen" <<<"$listing" || fail "archive lacks coursegen-$linux/coursegen"
grep -qx "coursegen-$linux/LICENSE-APACHE" <<<"$listing" || fail "archive lacks the licence"
grep -qx "coursegen-$linux/coursegen.1" <<<"$listing" || fail "archive lacks the man page"
grep -qx "coursegen-$linux/completions/coursegen.bash" <<<"$listing" || fail "archive lacks the bash completions"
cp -r "$t/dist" "$t/corrupt"
echo x >>"$t/corrupt/coursegen-aarch64-apple-darwin.tar.gz"
if .ci/release-checksums "$t/corrupt" >/dev/null 2>&1; then fail "release-checksums accepted a corrupted archive"; fi
.ci/release-checksums "$t/dist" >/dev/null
[ "$(wc -l <"$t/dist/SHA256SUMS")" = 2 ] || fail "SHA256SUMS should list 2 archives: $(cat "$t/dist/SHA256SUMS")"
(cd "$t/dist" && sha256sum -c --quiet SHA256SUMS) || fail "SHA256SUMS does not verify"
ls "$t/dist"/*.sha256 >/dev/null 2>&1 && fail "per-archive .sha256 files left behind"

echo "-- release-package: Linux linked for GLIBC_FLOOR's glibc with cargo zigbuild"
mkdir -p "$t/cargo"
cat >"$t/cargo/cargo" <<'STUB'
#!/usr/bin/env bash
# Stand-in cargo: logs its arguments and leaves the given binary where a build would.
echo "$*" >>"$CARGO_LOG"
mkdir -p "$CARGO_TARGET_DIR/$TARGET/release" && cp "$STUB_BIN" "$CARGO_TARGET_DIR/$TARGET/release/coursegen"
STUB
printf '#!/bin/sh\n' >"$t/cargo/cargo-zigbuild"
chmod +x "$t/cargo/cargo" "$t/cargo/cargo-zigbuild"
package() { # GLIBC_FLOOR: packs through the stand-in; prints the cargo command it ran
    : >"$t/cargo/log"
    PATH="$t/cargo:$PATH" CARGO_LOG="$t/cargo/log" CARGO_TARGET_DIR="$t/target" STUB_BIN="$bin" \
        GLIBC_FLOOR="$1" TARGET=$linux .ci/release-package "$t/built" >/dev/null
    cat "$t/cargo/log"
}
[ "$(package 2.17)" = "zigbuild --release --locked --bin coursegen --target $linux.2.17" ] ||
    fail "GLIBC_FLOOR=2.17 did not build with cargo zigbuild for glibc 2.17: $(cat "$t/cargo/log")"
[ "$(package '')" = "build --release --locked --bin coursegen --target $linux" ] ||
    fail "without GLIBC_FLOOR the build is not a plain cargo build: $(cat "$t/cargo/log")"
for tool in ziglang cargo-zigbuild; do
    grep -q "^$tool==.*\\\\\$" .ci/zigbuild-requirements.txt || fail ".ci/zigbuild-requirements.txt does not pin $tool"
done
[ "$(grep -c -- '--hash=sha256:' .ci/zigbuild-requirements.txt)" = 4 ] ||
    fail ".ci/zigbuild-requirements.txt lacks a hash of each wheel (x86_64, aarch64)"

echo "-- release-smoke"
.ci/release-smoke "$t/dist/coursegen-$linux.tar.gz" >/dev/null
mkdir "$t/one" && cp "$t/dist/coursegen-$linux.tar.gz" "$t/one/"
.ci/release-smoke "$t/one" >/dev/null || fail "release-smoke did not take the folder the smoke job downloads"
if GLIBC_FLOOR=2.2.5 .ci/release-smoke "$t/dist/coursegen-$linux.tar.gz" >/dev/null 2>"$t/err"; then
    fail "release-smoke passed a binary that needs a newer glibc than GLIBC_FLOOR"
fi
grep -q "newer than GLIBC_FLOOR 2.2.5" "$t/err" || fail "the glibc floor refused without saying why: $(cat "$t/err")"
python3 - <<'PY' || fail "release.yml does not build and smoke-test both Linux binaries for GLIBC_FLOOR"
import yaml
w = yaml.safe_load(open(".github/workflows/release.yml"))
assert w["env"]["GLIBC_FLOOR"] == "2.17", w["env"]
linux = lambda job: {m["target"] for m in w["jobs"][job]["strategy"]["matrix"]["include"] if "linux" in m["target"]}
assert linux("build") == linux("smoke") == {"x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu"}
PY

echo "-- release-publish through a gh stand-in"
mkdir -p "$t/gh"
cat >"$t/gh/gh" <<'STUB'
#!/usr/bin/env bash
echo "$*" >>"$GH_LOG"
if [ "$1 $2" = "release view" ]; then [ -f "$GH_EXISTS" ]; exit; fi
if [ "$1 $2" = "release create" ]; then touch "$GH_EXISTS"; fi
STUB
chmod +x "$t/gh/gh"
export GH_LOG="$t/gh/log" GH_EXISTS="$t/gh/exists"
v="v$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
PATH="$t/gh:$PATH" TAG="$v" .ci/release-publish-tag "$t/dist" >/dev/null
grep -q "^release create $v --verify-tag .*coursegen-$linux.tar.gz.*SHA256SUMS" "$GH_LOG" || fail "no release created: $(cat "$GH_LOG")"
PATH="$t/gh:$PATH" .ci/release-publish "$v" "$t/dist" >/dev/null
grep -q "^release upload $v --clobber .*SHA256SUMS" "$GH_LOG" || fail "an existing release is not updated: $(cat "$GH_LOG")"
if PATH="$t/gh:$PATH" .ci/release-publish main "$t/dist" >/dev/null 2>&1; then fail "published a tag that is no version"; fi
if PATH="$t/gh:$PATH" .ci/release-publish v99.0.0 "$t/dist" 2>"$t/err" >/dev/null; then fail "published a tag that is not Cargo.toml's version"; fi
grep -q "is not Cargo.toml's version" "$t/err" || fail "a tag other than Cargo.toml's version refused without saying why: $(cat "$t/err")"

echo "-- release-move-tag against a bare repository"
export GIT_AUTHOR_NAME=Tester GIT_AUTHOR_EMAIL=tester@example.org GIT_COMMITTER_NAME=Tester GIT_COMMITTER_EMAIL=tester@example.org
git init -q --bare "$t/origin.git"
git init -q -b main "$t/clone"
commit_tag() { git -C "$t/clone" commit -q --allow-empty -m "$1" && git -C "$t/clone" tag "$1"; }
commit_tag v0.1.0
git -C "$t/clone" push -q "$t/origin.git" main v0.1.0
at() { git -C "$t/origin.git" rev-parse --verify --quiet "refs/tags/$1^{commit}"; }
move() { (cd "$t/clone" && RELEASE_REMOTE="$t/origin.git" GH_TOKEN=unused TAG="$1" "$OLDPWD/.ci/release-move-tag"); }
move v0.1.0 >/dev/null || fail "release-move-tag failed on the first release"
[ "$(at v1)" = "$(at v0.1.0)" ] || fail "the first release (0.x) did not make v1"
move v0.1.0 | grep -q "already at" || fail "a second run of the same release moved v1 again"
commit_tag v0.2.0
move v0.2.0 >/dev/null || fail "release-move-tag failed on v0.2.0"
[ "$(at v1)" = "$(git -C "$t/clone" rev-parse v0.2.0)" ] || fail "v1 did not move to v0.2.0"
git -C "$t/clone" checkout -q -b old-line v0.1.0 && commit_tag v0.1.1
move v0.1.1 | grep -q "left where it is" || fail "a release of an older line did not say v1 stays"
[ "$(at v1)" = "$(git -C "$t/clone" rev-parse v0.2.0)" ] || fail "a release of an older line moved v1 back"
git -C "$t/clone" checkout -q main && commit_tag v2.0.0
move v2.0.0 >/dev/null || fail "release-move-tag failed on v2.0.0"
[ "$(at v2)" = "$(git -C "$t/clone" rev-parse v2.0.0)" ] || fail "v2.0.0 did not make v2"
[ "$(at v1)" = "$(git -C "$t/clone" rev-parse v0.2.0)" ] || fail "v2.0.0 moved v1"
if move main >/dev/null 2>&1; then fail "release-move-tag took a tag that is no version"; fi
if move v9.9.9 >/dev/null 2>&1; then fail "release-move-tag moved a tag to a release this checkout lacks"; fi
python3 - <<'PY' || fail "release.yml does not move the tag after publishing"
import yaml
steps = [s.get("run", "") for s in yaml.safe_load(open(".github/workflows/release.yml"))["jobs"]["publish"]["steps"]]
assert steps.index(".ci/release-move-tag") > steps.index(".ci/release-publish-tag dist"), steps
PY

echo "-- action-install from a folder of release assets"
install_from() { # DIST DIR: runs the action's install step; returns its status
    env COURSEGEN_RELEASE_URL="file://$1" COURSEGEN_INSTALL_DIR="$2" COURSEGEN_TARGET=$linux \
        GITHUB_PATH="$t/github_path" GITHUB_OUTPUT="$t/github_output" .ci/action-install
}
: >"$t/github_path"
install_from "$t/dist" "$t/installed" 2>"$t/err" || fail "install failed: $(cat "$t/err")"
[ -x "$t/installed/coursegen" ] || fail "nothing installed"
cmp -s "$t/installed/coursegen" "$bin" || fail "the installed binary is not the released one"
grep -qx "$t/installed" "$t/github_path" || fail "not added to GITHUB_PATH"
grep -qx "path=$t/installed" "$t/github_output" || fail "no path output"
refused() { # WHAT DIST NEEDLE
    if install_from "$2" "$t/refused" 2>"$t/err" >/dev/null; then fail "$1: installed"; fi
    grep -q "$3" "$t/err" || fail "$1: message lacks \`$3\`: $(cat "$t/err")"
    [ ! -e "$t/refused/coursegen" ] || fail "$1: a binary was installed"
}
cp -r "$t/dist" "$t/wrong"
sed -i "s/^[0-9a-f]\{8\}/00000000/" "$t/wrong/SHA256SUMS"
refused "a wrong checksum" "$t/wrong" "refused, nothing installed"
cp -r "$t/dist" "$t/tampered"
echo x >>"$t/tampered/coursegen-$linux.tar.gz"
refused "a tampered archive" "$t/tampered" "refused, nothing installed"
cp -r "$t/dist" "$t/unlisted"
grep -v "$linux" "$t/dist/SHA256SUMS" >"$t/unlisted/SHA256SUMS"
refused "an unlisted archive" "$t/unlisted" "lists no checksum"
if COURSEGEN_VERSION='1.0;rm' .ci/install-coursegen >/dev/null 2>&1; then fail "accepted a malformed version"; fi
if COURSEGEN_SITE=biuld install_from "$t/dist" "$t/typo" 2>"$t/err" >/dev/null; then fail "accepted site: biuld"; fi
grep -q "neither build nor deploy" "$t/err" || fail "site: biuld refused without saying why: $(cat "$t/err")"
[ ! -e "$t/typo" ] || fail "site: biuld installed something"
if COURSEGEN_MEASURE=prr install_from "$t/dist" "$t/typo" 2>"$t/err" >/dev/null; then fail "accepted measure: prr"; fi
grep -q "neither run nor pr" "$t/err" || fail "measure: prr refused without saying why: $(cat "$t/err")"
if COURSEGEN_SITE=build COURSEGEN_MEASURE=run install_from "$t/dist" "$t/typo" 2>"$t/err" >/dev/null; then fail "accepted site: and measure: together"; fi
[ ! -e "$t/typo" ] || fail "a refused mode installed something"

echo "-- action-run"
out="$(PATH="$t/installed:$PATH" COURSEGEN_ARGS="--version" .ci/action-run)"
[[ "$out" == coursegen* ]] || fail "action-run printed: $out"

echo "-- action.yml"
python3 - <<'PY'
import re, sys, yaml
a = yaml.safe_load(open("action.yml"))
assert a["runs"]["using"] == "composite", a["runs"]
assert set(a["inputs"]) == {"version", "args", "site", "base-url", "pages-branch", "measure", "gpu", "kernels",
                            "device", "counters", "gpus", "result", "token"}, a["inputs"]
runs = [s["run"] for s in a["runs"]["steps"] if "run" in s]
assert runs == ['"$GITHUB_ACTION_PATH/.ci/action-install"', '"$GITHUB_ACTION_PATH/.ci/action-run"',
                '"$GITHUB_ACTION_PATH/.ci/site-build" "$RUNNER_TEMP/coursegen-site"',
                '"$GITHUB_ACTION_PATH/.ci/preview-deploy" "$RUNNER_TEMP/coursegen-site"',
                '"$GITHUB_ACTION_PATH/.ci/measure"',
                'mkdir -p "$RECORDS_DIR" && "$GITHUB_ACTION_PATH/.ci/records-pr"'], runs
assert all("${{" not in r for r in runs), "an input expanded into a script"
uses = sorted(s["uses"] for s in a["runs"]["steps"] if "uses" in s)
assert uses == ["actions/download-artifact@v8"] * 2 + ["actions/upload-artifact@v7"] * 2, uses
print("action.yml: composite, six .ci/ scripts, inputs through the environment")
PY
echo "release: ok"
