#!/usr/bin/env python3
"""Pagefind on a built site: bundle size, and per query the time and bytes a reader's browser
spends (headless Chromium, loopback server, cold first query then warm ones).

    python3 benches/search/pagefind.py PUBLIC_DIR word...
"""
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "browser"))
from run import CHROMIUM, Server  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

site, words = Path(sys.argv[1]), sys.argv[2:]
bundle = site / "pagefind"
files = [p for p in bundle.rglob("*") if p.is_file()]
print(f"pagefind: {len(files)} files, {sum(p.stat().st_size for p in files) / 1048576:.1f} MiB in pagefind/ "
      f"(fragments {sum(p.stat().st_size for p in (bundle / 'fragment').iterdir()) / 1048576:.1f} MiB, "
      f"index chunks {sum(p.stat().st_size for p in (bundle / 'index').iterdir()) / 1048576:.1f} MiB)")
server = Server(site)
with sync_playwright() as pw:
    browser = pw.chromium.launch(executable_path=CHROMIUM)
    page = browser.new_page()
    page.goto(server.url + "/404.html")
    page.evaluate("performance.setResourceTimingBufferSize(100000)")
    for w in words:
        result = page.evaluate("""async (w) => {
            const before = performance.getEntriesByType('resource').reduce((s, e) => s + e.encodedBodySize, 0);
            const t = performance.now();
            const pf = await import('/pagefind/pagefind.js');
            const found = await pf.search(w);
            const first = await Promise.all(found.results.slice(0, 8).map(r => r.data()));
            const ms = performance.now() - t;
            const after = performance.getEntriesByType('resource').reduce((s, e) => s + e.encodedBodySize, 0);
            return [found.results.length, ms, after - before, first.length];
        }""", w)
        hits, ms, fetched, shown = result
        print(f"  query {w!r}: {hits} hits, first {shown} loaded in {ms:.0f} ms, {fetched / 1024:.0f} KiB fetched")
    browser.close()
server.close()
