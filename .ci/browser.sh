#!/usr/bin/env bash
# Browser tests (tests/browser/run.py): headless Chromium driven by Playwright from PyPI, with
# axe-core from npm injected into each page. Installs what is missing, builds the release
# binaries, and runs the checks; extra arguments go to run.py (e.g. --screenshots DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/chromium ]; then
    apt-get update >/dev/null && apt-get install -y chromium >/dev/null
fi
if ! python3 -c "import playwright" 2>/dev/null; then
    python3 -m pip install --quiet --break-system-packages playwright
fi
DEPS=target/browser-deps
if [ ! -f "$DEPS/node_modules/axe-core/axe.min.js" ]; then
    mkdir -p "$DEPS"
    npm install --silent --no-audit --no-fund --prefix "$DEPS" axe-core@4.14.1
fi
cargo build --release --quiet --locked --bin coursegen --example gen_corpus
python3 tests/browser/run.py --coursegen target/release/coursegen \
    --gen-corpus target/release/examples/gen_corpus \
    --axe "$DEPS/node_modules/axe-core/axe.min.js" "$@"
