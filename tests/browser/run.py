#!/usr/bin/env python3
"""Browser tests: the built site as a reader meets it, in headless Chromium (Playwright).

    python3 tests/browser/run.py --coursegen target/release/coursegen \
        --gen-corpus target/release/examples/gen_corpus --axe PATH/axe.min.js [--screenshots DIR]

Builds two sites — this repository's content (the course preview) and a generated
1,000-entry corpus with 12 day pages — serves each on 127.0.0.1, and checks: search finds
an entry by a word of its body; previous/next links and the arrow keys move between days
and within a glossary category; the theme menu is remembered without a flash; no page logs a
console error or a failed request; axe-core reports no serious or critical accessibility
violation, in light and dark themes; and the checks of tests/browser/reader.py (issue 28):
themes on code in all four theme × system combinations, print, layout shift, the measured
table on a phone, the Markdown copy, search excerpts and speed on Fast 3G, the diagram full
size on a phone, and a 1,000-entry course's navigation.
Prints one line per check and ends with "N passed, N failed"; exits 1 on any failure.
"""
import argparse
import collections
import functools
import hashlib
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.parse
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reader  # noqa: E402 (the checks of issue 28)
import readers  # noqa: E402 (the checks of issue 39)
import previews  # noqa: E402 (the checks of issue 51)

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def build(coursegen, root, out, *flags):
    subprocess.run([coursegen, "build", "--root", str(root), "--out", str(out), *flags],
                   check=True, stdout=subprocess.DEVNULL)


class Server:
    """A static server for one output folder, on a free loopback port, 404.html for misses."""

    def __init__(self, folder, script_delay=0.0, slow=None):
        folder = str(folder)

        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *a, **kw):
                super().__init__(*a, directory=folder, **kw)

            def do_GET(self):
                # A phone on a slow network: the page paints before its scripts arrive.
                if script_delay and self.path.split("?")[0].endswith(".js"):
                    time.sleep(script_delay)
                # A file that arrives late (a phone on a slow network), by name.
                for name, delay in (slow or {}).items():
                    if self.path.split("?")[0].endswith(name):
                        time.sleep(delay)
                super().do_GET()

            def log_message(self, *a):
                pass

            def send_error(self, code, message=None, explain=None):
                page = Path(folder, "404.html")
                if code == 404 and page.exists():
                    body = page.read_bytes()
                    self.send_response(404)
                    self.send_header("Content-Type", "text/html; charset=utf-8")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    if self.command != "HEAD":
                        self.wfile.write(body)
                else:
                    super().send_error(code, message, explain)

        Handler.extensions_map = {**Handler.extensions_map, ".js": "text/javascript",
                                  ".md": "text/markdown; charset=utf-8",
                                  ".wasm": "application/wasm", ".pagefind": "application/octet-stream"}
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()


class Checks:
    def __init__(self, only=None):
        self.passed, self.failed = 0, 0
        self.only = only

    def run(self, name, fn):
        if self.only and self.only not in name:
            return
        try:
            fn()
            self.passed += 1
            print(f"ok   {name}", flush=True)
        except Exception:  # a failed check is reported and the others still run
            self.failed += 1
            print(f"FAIL {name}", flush=True)
            traceback.print_exc(file=sys.stdout)


class Page:
    """A browser page that records console errors, uncaught exceptions and failed requests."""

    def __init__(self, browser, base, **context):
        self.context = browser.new_context(**context)
        self.page = self.context.new_page()
        self.base = base
        self.problems = []
        # "Failed to load resource" repeats a bad response, which is recorded with its URL.
        self.page.on("console", lambda m: m.type == "error" and "Failed to load resource" not in m.text
                     and self.problems.append(f"console: {m.text}"))
        self.page.on("pageerror", lambda e: self.problems.append(f"exception: {e}"))
        # A request cut short because the test moved on to the next page is not a failure.
        self.page.on("requestfailed", lambda r: r.failure != "net::ERR_ABORTED"
                     and self.problems.append(f"request failed: {r.url} ({r.failure})"))
        self.page.on("response", lambda r: r.status >= 400 and self.problems.append(f"HTTP {r.status}: {r.url}"))

    def goto(self, path):
        self.page.goto(self.base + path)
        self.page.wait_for_load_state("load")
        return self.page

    def clean(self, allow=()):
        bad = [p for p in self.problems if not any(a in p for a in allow)]
        assert not bad, "\n".join(bad)

    def close(self):
        self.context.close()


def body_word(content, avoid):
    """A word of some entry's body that is rare in the corpus: (url, word). Rarity counts
    documents sharing the word's first five letters, since the index stems words."""
    docs = {}
    for md in sorted(Path(content).rglob("*.md")):
        text = md.read_text(encoding="utf-8")
        _, front, body = text.split("---", 2)
        body = re.sub(r"```.*?```", " ", body, flags=re.S)
        body = re.sub(r"\(/[^)]*\)|\{\{%.*?%\}\}|<[^>]+>", " ", body)
        words = {w.lower() for w in re.findall(r"[A-Za-z]{6,}", body)}
        head = {w.lower() for w in re.findall(r"[A-Za-z]+", front)}
        rel = md.relative_to(content).with_suffix("")
        docs[f"/{rel.as_posix()}/"] = (words, head)
    stems = collections.Counter(s for words, head in docs.values()
                                for s in {w[:5] for w in words | head})
    best = None
    for url, (words, head) in docs.items():
        if url in avoid:
            continue
        for w in sorted(words - head):
            if best is None or stems[w[:5]] < best[0]:
                best = (stems[w[:5]], url, w)
    assert best, "no body word found"
    return best[1], best[2]


def shard_count(site):
    """How many shards the site's search index has (the primary and those in shards.json)."""
    return len(json.loads((Path(site) / "pagefind" / "shards.json").read_text())) + 1


def primary_shard_urls(site, content):
    """The pages of `content` whose records sit in the primary search shard (the index is cut
    into shards by a hash of the URL, as `src/site/search.rs` does): a search that must
    prove the shards are merged looks for a page outside it."""
    count = shard_count(site)
    assert count > 1, "this corpus should be large enough to have merged shards"
    urls = {f"/{md.relative_to(content).with_suffix('').as_posix()}/" for md in Path(content).rglob("*.md")}
    return {u for u in urls if int(hashlib.sha256(u.encode()).hexdigest()[:16], 16) % count == 0}


def check_search(browser, base, content, avoid=(), shards=1):
    """Search finds the page of a rare body word. With `shards` > 1, the search box must also
    have loaded every merged shard of the index (the page's script reads shards.json)."""
    url, word = body_word(content, avoid)
    p = Page(browser, base, viewport={"width": 1280, "height": 900})
    page = p.goto("/")
    requested = []
    page.on("request", lambda r: requested.append(urllib.parse.urlparse(r.url).path))
    page.fill("#search-input", word)
    page.wait_for_selector("#search-results a", timeout=15000)
    for i in range(1, shards):
        entry = f"/pagefind/shard-{i}/pagefind-entry.json"
        assert entry in requested, f"the search box did not merge shard {i}: {sorted(set(requested))}"
    hrefs = page.eval_on_selector_all("#search-results a", "els => els.map(e => new URL(e.href).pathname)")
    if url not in hrefs:
        # A common word matches more pages than the box shows: ask the same index for all.
        hrefs = page.evaluate("""async (word) => {
            const pf = await import('/pagefind/pagefind.js');
            const shards = await (await fetch('/pagefind/shards.json')).json();
            await Promise.all(shards.map(s => pf.mergeIndex('/pagefind/' + s)));
            const found = await pf.search(word);
            const all = await Promise.all(found.results.map(r => r.data()));
            return all.map(d => d.url);
        }""", word)
    assert url in hrefs, f"searching {word!r}: {url} not among {hrefs}"
    p.clean()
    p.close()


def check_pager(browser, base, first, second):
    """On `first`, the next link and the right arrow lead to `second`; the left arrow back."""
    p = Page(browser, base, viewport={"width": 1280, "height": 900})
    page = p.goto(first)
    nxt = page.get_attribute(".pager a[rel=next]", "href")
    assert nxt and nxt.endswith(second), f"next of {first} is {nxt}, expected {second}"
    page.keyboard.press("ArrowRight")
    page.wait_for_url(f"**{second}")
    prev = page.get_attribute(".pager a[rel=prev]", "href")
    assert prev and prev.endswith(first), f"prev of {second} is {prev}"
    page.keyboard.press("ArrowLeft")
    page.wait_for_url(f"**{first}")
    page.click(".pager a[rel=next]")
    page.wait_for_url(f"**{second}")
    # Arrows typed into the search box stay there.
    page.focus("#search-input")
    page.keyboard.press("ArrowLeft")
    assert page.url.endswith(second), page.url
    p.clean()
    p.close()


def check_theme(browser, base, path):
    p = Page(browser, base, viewport={"width": 1280, "height": 900}, color_scheme="light")
    page = p.goto(path)
    light = page.evaluate("getComputedStyle(document.body).backgroundColor")
    page.select_option("#theme-select", "dark")
    # The next page is dark from its first paint: the attribute is set before any CSS loads.
    page.add_init_script("""
      document.addEventListener('readystatechange', () => {
        if (!window.__firstTheme) window.__firstTheme = document.documentElement.getAttribute('data-theme') || 'none';
      });""")
    page = p.goto(path)
    assert page.evaluate("window.__firstTheme") == "dark"
    dark = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert dark != light, f"dark theme did not change the background ({dark})"
    fill = page.evaluate("""() => { const r = document.querySelector('figure svg path, figure svg rect');
                              return r ? getComputedStyle(r).fill : null; }""")
    if fill is not None:
        assert fill not in ("rgb(255, 255, 255)",), f"diagram stayed white in dark mode: {fill}"
    page.select_option("#theme-select", "system")
    page = p.goto(path)
    assert page.evaluate("document.documentElement.getAttribute('data-theme')") is None
    p.clean()
    p.close()


def check_axe(browser, base, paths, axe, scheme):
    source = Path(axe).read_text(encoding="utf-8")
    # axe is injected as an inline script, which the site's CSP rightly blocks: this context
    # alone bypasses the CSP (the other checks run under it and fail on any violation).
    p = Page(browser, base, viewport={"width": 1280, "height": 900}, color_scheme=scheme,
             bypass_csp=True)
    found = []
    for path in paths:
        page = p.goto(path)
        page.add_script_tag(content=source)
        result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
        for v in result["violations"]:
            if v["impact"] in ("serious", "critical"):
                nodes = "; ".join(n["target"][0] if isinstance(n["target"][0], str) else str(n["target"])
                                  for n in v["nodes"][:3])
                found.append(f"{path}: {v['id']} ({v['impact']}): {v['help']} — {nodes}")
    assert not found, "\n".join(found)
    p.clean()
    p.close()


def check_pages_clean(browser, base, paths, width):
    p = Page(browser, base, viewport={"width": width, "height": 900})
    for path in paths:
        p.goto(path)
    p.clean(allow=("/no-such-page/",))
    p.close()


def check_not_found(browser, base):
    p = Page(browser, base, viewport={"width": 1280, "height": 900})
    page = p.goto("/no-such-page/")
    assert "Page not found" in page.inner_text("h1")
    p.clean(allow=("/no-such-page/",))
    p.close()


def screenshots(browser, base, path, folder):
    """The seed page as a reader sees it: system light and dark, each theme chosen in the
    menu against the system, a phone (with the measured table as cards and the diagram full
    size), and a page with code in both chosen themes."""
    folder.mkdir(parents=True, exist_ok=True)
    shots = [("light", {"width": 1280, "height": 1000}, "light", None),
             ("dark", {"width": 1280, "height": 1000}, "dark", None),
             ("chosen-dark-on-light", {"width": 1280, "height": 1000}, "light", "dark"),
             ("chosen-light-on-dark", {"width": 1280, "height": 1000}, "dark", "light"),
             ("390px", {"width": 390, "height": 844}, "light", None),
             ("390px-dark", {"width": 390, "height": 844}, "dark", None)]
    for name, viewport, scheme, chosen in shots:
        ctx = browser.new_context(viewport=viewport, color_scheme=scheme, device_scale_factor=1)
        if chosen:
            ctx.add_init_script(f"localStorage.setItem('coursegen-theme', '{chosen}')")
        page = ctx.new_page()
        page.goto(base + path)
        page.wait_for_load_state("load")
        page.screenshot(path=str(folder / f"seed-{name}.png"))
        # The diagram section too: its colours follow the theme, and on a phone it is a
        # thumbnail with an "Open full size" link.
        page.locator("section.diagram figure").screenshot(path=str(folder / f"seed-{name}-diagram.png"))
        if name.startswith("390px"):
            page.locator("section.measured").screenshot(path=str(folder / f"seed-{name}-measured.png"))
            page.click(".diagram-full")
            page.wait_for_selector("dialog.diagram-dialog[open]")
            page.screenshot(path=str(folder / f"seed-{name}-full-size.png"))
        if chosen:
            code = ctx.new_page()
            code.goto(base + "/days/day-15/")
            code.wait_for_load_state("load")
            code.locator("figure.code-file").first.screenshot(path=str(folder / f"code-{name}.png"))
        ctx.close()
    print(f"screenshots written to {folder}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--coursegen", required=True)
    ap.add_argument("--gen-corpus", required=True)
    ap.add_argument("--axe", required=True, help="axe.min.js from the npm package axe-core")
    ap.add_argument("--screenshots", type=Path, help="also write the seed page's screenshots here")
    ap.add_argument("--entries", type=int, default=1000)
    ap.add_argument("--only", help="run only the checks whose name contains this")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="coursegen-browser-"))
    checks = Checks(args.only)
    try:
        repo_site = work / "repo"
        build(args.coursegen, REPO, repo_site, "--drafts")
        corpus = work / "corpus"
        subprocess.run([args.gen_corpus, "--n", str(args.entries), "--days", "12", "--seed", "7",
                        "--out", str(corpus)], check=True, stdout=subprocess.DEVNULL)
        corpus_site = work / "corpus-site"
        build(args.coursegen, corpus, corpus_site)
        small_site = work / "small-site"
        build(args.coursegen, readers.course(work / "small"), small_site, "--drafts")
        repo, gen, small = Server(repo_site), Server(corpus_site), Server(small_site)
        seed = "/glossary/shared-memory-bank/"
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM)
            c = functools.partial
            checks.run("repo: search finds an entry by a word of its body",
                       c(check_search, browser, repo.url, REPO / "content"))
            checks.run(f"corpus ({args.entries} entries): search finds an entry by a word of its body, "
                       "in a merged shard",
                       c(check_search, browser, gen.url, corpus / "content",
                         primary_shard_urls(corpus_site, corpus / "content"), shard_count(corpus_site)))
            checks.run("corpus: previous/next and arrow keys move between days",
                       c(check_pager, browser, gen.url, "/days/day-9/", "/days/day-10/"))
            checks.run("repo: previous/next and arrow keys move within a glossary category",
                       c(check_pager, browser, repo.url, "/glossary/bank-conflict/", "/glossary/memory-coalescing/"))
            checks.run("repo: the diagram opens full size on a 390 px screen, in its theme, and closes",
                       c(reader.check_diagram_phone, browser, repo.url, seed))
            code_pages = ["/glossary/bank-conflict/", "/days/day-15/", "/glossary/warp-divergence/"]
            checks.run("repo: no serious axe violation on pages with code, 4 theme × system combinations",
                       c(reader.check_axe_themes, browser, repo.url, code_pages, args.axe))
            checks.run("repo: a search excerpt of a known entry has its words apart",
                       c(reader.check_excerpt, browser, repo.url))
            published = Server(reader.published_copy(REPO, args.coursegen, work))
            checks.run("published copy: index.md holds the measured rows, alt text and included code",
                       c(reader.check_markdown_copy, browser, published.url, "/glossary/warp-divergence/"))
            checks.run("repo: at 390 px the measured table's time and ratio are on screen",
                       c(reader.check_measured_phone, browser, repo.url, seed))
            checks.run("repo: at 390 px an image wider than the column shrinks to it",
                       c(reader.check_wide_image_phone, browser, repo.url, "/glossary/warp/"))
            checks.run("repo: a scrolling measured table keeps its row labels; its cue shows in dark",
                       c(reader.check_measured_scroll, browser, repo.url, seed))
            checks.run("repo: the measured table's headings wrap in at most three lines at 1280 px",
                       c(reader.check_table_headers, browser, repo.url, seed))
            checks.run("repo: print from the dark theme is light, without Copy buttons",
                       c(reader.check_print_dark, browser, repo.url, "/glossary/warp-divergence/"))
            slow = Server(repo_site, script_delay=0.8)
            checks.run("repo: CLS below 0.02 on a 390 px load (scripts arriving after the first paint)",
                       c(reader.check_cls, browser, slow.url, seed))
            checks.run("repo: CLS below 0.02 on a 390 px load of a page with code",
                       c(reader.check_cls, browser, slow.url, "/days/day-15/"))
            checks.run("repo: at 390 px the Copy button leaves the code visible; flags stay whole",
                       c(reader.check_copy_button_phone, browser, repo.url, "/days/day-15/"))
            checks.run("repo: a draft tag in the pager is as wide as its word",
                       c(reader.check_pager_draft, browser, repo.url, "/glossary/bank-conflict/"))
            checks.run("repo: the preview has robots.txt, noindex indexes and a dated feed",
                       c(reader.check_robots, repo.url))
            checks.run(f"corpus ({args.entries} entries): sidebar, Days list, prev/next across "
                       "categories, a folding glossary index",
                       c(reader.check_large_nav, browser, gen.url, corpus_site))
            term, term_url = reader.corpus_term(corpus_site)
            checks.run(f"corpus ({args.entries} entries): first results within 500 ms on Fast 3G "
                       "after focusing the box",
                       c(reader.check_search_fast3g, browser, gen.url, term.lower(), term_url))
            checks.run("repo: the theme menu is remembered without a flash",
                       c(check_theme, browser, repo.url, seed))
            checks.run("repo: 404.html is served for a missing page",
                       c(check_not_found, browser, repo.url))
            repo_pages = ["/", "/glossary/", "/days/", seed, "/glossary/bank-conflict/",
                          "/days/day-15/", "/search/?q=bank", "/404.html"]
            gen_pages = ["/", "/glossary/", "/days/", "/days/day-1/", "/days/day-12/",
                         "/search/?q=memory"]
            for width in (1280, 390):
                checks.run(f"repo: no console errors or failed requests at {width} px",
                           c(check_pages_clean, browser, repo.url, repo_pages, width))
                checks.run(f"corpus: no console errors or failed requests at {width} px",
                           c(check_pages_clean, browser, gen.url, gen_pages, width))
            for scheme in ("light", "dark"):
                checks.run(f"repo: no serious axe violation ({scheme})",
                           c(check_axe, browser, repo.url, repo_pages, args.axe, scheme))
                checks.run(f"corpus: no serious axe violation ({scheme})",
                           c(check_axe, browser, gen.url, gen_pages[:5], args.axe, scheme))
            checks.run("small: a term's preview opens on hover and on focus and describes the link",
                       c(readers.check_term_preview, browser, small.url))
            for name, check in [
                ("Esc dismisses a preview, by hover or by focus, and the focus stays", previews.check_escape),
                ("the pointer moves from a term onto its preview and it stays", previews.check_hoverable),
                ("a Ctrl-click leaves no preview open", previews.check_ctrl_click),
                ("a preview opens under its word, and above it near the window's bottom",
                 previews.check_anchored_and_flipped),
                ("without styles, no summary is read inside a sentence", previews.check_no_summary_in_text),
                ("on a phone a first tap shows the preview, a second follows the link", previews.check_touch),
                ("a preview's code is code", previews.check_preview_markdown),
                ("a term across a line break links; “warps” links to the warp entry",
                 previews.check_terms_as_written),
                ("an aligned formula's = signs share one x-coordinate", previews.check_aligned),
                ("a wide formula at 390 px scrolls by keyboard, with a cue", previews.check_wide_formula),
                ("copying a formula copies its TeX", previews.check_copy_tex),
                ("the math font is fetched by pages with math only", previews.check_font_on_math_pages),
                ("at 1280 px 'On this page' is beside the text and marks the section read",
                 previews.check_contents_rail),
            ]:
                checks.run("small: " + name, c(check, browser, small.url))
            checks.run("small: $…$ and $$…$$ are MathML laid out by Chromium, without script",
                       c(readers.check_math, browser, small.url))
            checks.run("small: 'On this page' links each heading, beside the text wide, folded on a phone; "
                       "every heading has an anchor",
                       c(readers.check_contents, browser, small.url))
            late = Server(repo_site, slow={"search-index.json": 2.0})
            checks.run("repo: title results show within 1 s of a slow title list arriving after the last key",
                       c(readers.check_slow_titles, browser, late.url))
            checks.run("repo: at 860 px a sideways-scrolled measured table keeps its header over its columns",
                       c(readers.check_table_header_scrolled, browser, repo.url, seed))
            checks.run("repo: Esc closes the phone menu",
                       c(readers.check_menu_escape, browser, repo.url, seed))
            checks.run("repo: the minified scripts and stylesheets style every element as their source does",
                       c(previews.check_shipped_as_source, browser, repo.url,
                         ["/", seed, "/glossary/bank-conflict/"],
                         REPO / "static"))
            checks.run("repo: the diagram's alt text is heard once (its caption)",
                       c(previews.check_diagram_alt_once, browser, repo.url))
            checks.run("repo: days unnumbered on the home page, footer, related drafts, alt text read once",
                       c(readers.check_slips_text, browser, repo.url))
            small_pages = ["/glossary/bank/", "/glossary/warp/"]
            checks.run("axe: no violation of any impact on every page, 2 widths × 4 theme modes",
                       c(readers.check_axe_every, browser,
                         [(repo.url, repo_pages), (small.url, small_pages), (published.url, [seed, "/"])], args.axe))
            if args.screenshots:
                screenshots(browser, repo.url, seed, args.screenshots)
            browser.close()
        published.close()
        slow.close()
        repo.close()
        gen.close()
        small.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{checks.passed} passed, {checks.failed} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
