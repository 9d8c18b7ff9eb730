#!/usr/bin/env python3
"""Pagefind on a built site: bundle size, and per query the time and bytes a reader's browser
spends (headless Chromium, loopback server, cold first query then warm ones).

    python3 benches/search/pagefind.py PUBLIC_DIR word...
"""
import sys
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "browser"))
from run import CHROMIUM, Server  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

site, words = Path(sys.argv[1]), sys.argv[2:]
bundle = site / "pagefind"
files = [p for p in bundle.rglob("*") if p.is_file()]
def size(kind):
    return sum(p.stat().st_size for p in bundle.rglob("*") if p.is_file() and p.parent.name == kind) / 1048576


shards = bundle / "shards.json"
count = len(__import__("json").loads(shards.read_text())) + 1 if shards.exists() else 1
print(f"pagefind: {len(files)} files, {sum(p.stat().st_size for p in files) / 1048576:.1f} MiB in pagefind/ "
      f"in {count} shard(s) (fragments {size('fragment'):.1f} MiB, index chunks {size('index'):.1f} MiB)")
server = Server(site)
with sync_playwright() as pw:
    browser = pw.chromium.launch(executable_path=CHROMIUM)
    page = browser.new_page()
    # Pagefind fetches from a web worker, which the page's resource timing does not see; the
    # browser's own network events do. Bytes are the fetched files' sizes on disk (the server
    # sends them as they are): Playwright's per-request body sizes varied up to 2x between
    # identical runs.
    fetched = {"bytes": 0, "files": 0}

    def count(request):
        path = site / urllib.parse.urlsplit(request.url).path.lstrip("/")
        fetched["bytes"] += path.stat().st_size if path.is_file() else 0
        fetched["files"] += 1

    page.on("requestfinished", count)
    page.goto(server.url + "/404.html")
    page.evaluate("performance.setResourceTimingBufferSize(100000)")
    for w in words:
        fetched.update(bytes=0, files=0)
        result = page.evaluate("""async (w) => {
            const before = performance.getEntriesByType('resource').reduce((s, e) => s + e.encodedBodySize, 0);
            const t = performance.now();
            // As the site's script does: the primary bundle, then every shard merged into it.
            const pf = await import('/pagefind/pagefind.js');
            if (!window.merged) {
                const r = await fetch('/pagefind/shards.json');
                const shards = r.ok ? await r.json() : [];
                await Promise.all(shards.map(s => pf.mergeIndex('/pagefind/' + s)));
                window.merged = true;
            }
            const found = await pf.search(w);
            const first = await Promise.all(found.results.slice(0, 8).map(r => r.data()));
            const ms = performance.now() - t;
            const after = performance.getEntriesByType('resource').reduce((s, e) => s + e.encodedBodySize, 0);
            return [found.results.length, ms, after - before, first.length];
        }""", w)
        hits, ms, _, shown = result
        page.wait_for_timeout(200)  # let the last responses' events arrive
        print(f"  query {w!r}: {hits} hits, first {shown} loaded in {ms:.0f} ms, "
              f"{fetched['bytes'] / 1024:.0f} KiB in {fetched['files']} files fetched")
    browser.close()
server.close()
