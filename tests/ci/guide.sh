#!/usr/bin/env bash
# .ci/guide as the workflows run it: the guide built, its links checked, copied beside a
# course with --into (and refused where the course has a /guide/ of its own); and
# .ci/guide-links failing on a missing page, a missing anchor and a missing image.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "tests/ci/guide.sh: $*" >&2; exit 1; }

COURSE_BASE_URL=https://example.org/course/ PREVIEW_PATH=pr-preview/pr-3/ \
    .ci/guide --into "$tmp/site/guide"
[ -f "$tmp/site/guide/index.html" ] || fail "--into wrote no index.html"
grep -q '<base href="/course/pr-preview/pr-3/guide/"' "$tmp/site/guide/404.html" \
    || fail "the 404 page is not based at the guide's address"
if .ci/guide --into "$tmp/site/guide" 2>/dev/null; then fail "--into an existing folder was not refused"; fi

mkdir -p "$tmp/bad"
cp -R guide/book/. "$tmp/bad"
printf '<a href="nope.html">a</a><a href="config.html#no-such-id">b</a><img src="x.png">\n' \
    >> "$tmp/bad/introduction.html"
if out="$(.ci/guide-links "$tmp/bad" 2>&1)"; then fail "broken links passed: $out"; fi
# shellcheck disable=SC2016 # the backquotes are the checker's, not an expansion
for want in 'nope.html: no such file' 'no element with id `no-such-id`' 'x.png: no such file'; do
    grep -qF "$want" <<<"$out" || fail "not reported: $want"
done
echo "tests/ci/guide.sh: ok"
