"""Browser checks of issue 28 (what a reader meets): themes on code, print, layout shift,
the measured table on a phone, the Markdown copy, search excerpts and speed, and a large
course's navigation. Each function raises AssertionError with what it saw; run.py runs them."""
import json
import re
import shutil
import subprocess
import urllib.request
from pathlib import Path

# Chrome DevTools' "Fast 3G" profile (as Puppeteer's PredefinedNetworkConditions writes it):
# 1.6 Mbit/s down and 750 kbit/s up at 90%, 150 ms latency × 3.75 for request-level throttling.
FAST_3G = {"offline": False, "latency": 562.5,
           "downloadThroughput": 1.6 * 1000 * 1000 / 8 * 0.9,
           "uploadThroughput": 750 * 1000 / 8 * 0.9}

THEMES = [(system, chosen) for system in ("light", "dark") for chosen in ("light", "dark")]


def themed(browser, base, system, chosen, **context):
    """A context whose system scheme is `system` and whose theme menu chose `chosen`."""
    from run import Page  # noqa: E402 (run.py imports this module)
    p = Page(browser, base, color_scheme=system, **context)
    p.context.add_init_script(f"try {{ localStorage.setItem('coursegen-theme', '{chosen}'); }} catch (e) {{}}")
    return p


def axe_serious(page, source):
    page.add_script_tag(content=source)
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    found = []
    for v in result["violations"]:
        if v["impact"] in ("serious", "critical"):
            for n in v["nodes"]:
                found.append(f"{v['id']}: {n['target']} {n.get('failureSummary', '')[:160]}")
    return found


def check_axe_themes(browser, base, paths, axe):
    """No serious axe violation in any of the four theme × system combinations, on pages
    with highlighted code; prints the count per combination."""
    source = Path(axe).read_text(encoding="utf-8")
    problems, counts = [], []
    for system, chosen in THEMES:
        p = themed(browser, base, system, chosen, viewport={"width": 1280, "height": 900}, bypass_csp=True)
        n = 0
        for path in paths:
            page = p.goto(path)
            assert page.locator("pre code [class^=hl-]").count() > 0, f"{path} has no highlighted code"
            found = axe_serious(page, source)
            n += len(found)
            problems += [f"system {system}, chosen {chosen}, {path}: {f}" for f in found[:5]]
        counts.append(f"{system}/{chosen}: {n}")
        p.clean()
        p.close()
    print("     serious axe violations (system/chosen): " + ", ".join(counts))
    assert not problems, "\n".join(problems)


def check_excerpt(browser, base):
    """The excerpt of a known entry reads with its words apart, without "?." or ".."."""
    from run import Page
    p = Page(browser, base, viewport={"width": 1280, "height": 900})
    page = p.goto("/")
    page.fill("#search-input", "bank conflict")
    page.wait_for_selector("#search-results a[href$='/glossary/bank-conflict/'] .hit-excerpt")
    page.wait_for_function("() => !document.querySelector('#search-results').textContent.includes('Searching the full text')")
    text = page.inner_text("#search-results a[href$='/glossary/bank-conflict/'] .hit-excerpt")
    marks = page.eval_on_selector_all("#search-results a[href$='/glossary/bank-conflict/'] mark",
                                      "els => els.length")
    assert marks > 0, f"no highlighted word in {text!r}"
    low = text.lower()
    assert "bank conflict" in low, f"words run together: {text!r}"
    assert "bankconflict" not in low and "?." not in text and ".." not in text, text
    assert not re.search(r"bank\d", low), f"a word ran into a number: {text!r}"
    p.clean()
    p.close()


def published_copy(repo, coursegen, work, slug="warp-divergence"):
    """A copy of the repository's course with the glossary entry `slug` signed and published,
    built as the preview: its page has a Markdown copy. Returns the output folder."""
    root = work / "published"
    for d in ("content", "templates", "static", "kernels", "measurements", "assets"):
        if (repo / d).exists():
            shutil.copytree(repo / d, root / d)
    entry = root / "content" / "glossary" / f"{slug}.md"
    text = entry.read_text(encoding="utf-8")
    for old, new in [("status: draft", "status: published"), ("written_by: pending", "written_by: Ada Lovelace"),
                     ("reviewed_by: pending", "reviewed_by: Grace Hopper"),
                     ("written_on: pending", "written_on: 2026-11-01"),
                     ("last_checked_on: pending", "last_checked_on: 2026-11-20")]:
        assert old in text, f"{entry}: no {old!r}"
        text = text.replace(old, new)
    entry.write_text(text, encoding="utf-8")
    out = work / "published-site"
    subprocess.run([coursegen, "build", "--root", str(root), "--out", str(out), "--drafts"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return out


def check_markdown_copy(browser, base, path):
    """The page's Markdown copy holds what the page shows: every measured row (label and
    time), the diagram's alt text and the code included with file=."""
    from run import Page
    p = Page(browser, base, viewport={"width": 1280, "height": 900})
    page = p.goto(path)
    href = page.get_attribute("link[rel=alternate][type='text/markdown']", "href")
    assert href, "no Markdown copy linked"
    rows = page.eval_on_selector_all(".measured-table tbody tr",
                                     "trs => trs.map(tr => [tr.querySelector('th').textContent, tr.querySelector('td[data-label=Time]').textContent])")
    alt = page.eval_on_selector("section.diagram figcaption", "e => e.textContent")
    code = page.eval_on_selector("figure.code-file pre code", "e => e.textContent")
    with urllib.request.urlopen(urllib.parse.urljoin(base + path, href)) as r:
        md = r.read().decode("utf-8")
    assert rows, "the page shows no measured rows"
    for label, time in rows:
        assert re.search(rf"^\| {re.escape(label)} \|.*\| {re.escape(time)} \|", md, re.M), \
            f"row {label} ({time}) missing from the copy:\n{md}"
    alt_text = alt.split("“", 1)[1].rsplit("”", 1)[0]
    assert alt_text in md, f"alt text {alt_text!r} missing"
    first = next(line for line in code.splitlines() if line.strip())
    assert first in md, f"included code {first!r} missing"
    p.clean()
    p.close()


import urllib.parse  # noqa: E402


def check_measured_phone(browser, base, path):
    """At 390 px the measured table's time and ratio are on screen without scrolling (the
    rows reflow into cards), and nothing on the page scrolls sideways."""
    from run import Page
    p = Page(browser, base, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = p.goto(path)
    for label in ("Time", "vs the best row"):
        cells = page.locator(f".measured-table td[data-label='{label}']")
        assert cells.count() > 0, f"no {label} column"
        box = cells.first.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, f"{label} cell at {box}"
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways: {width}px"
    p.clean()
    p.close()


def check_wide_image_phone(browser, base, path):
    """Issue 51, slips: an image wider than the column (a 2000 px screenshot in an entry's
    body) shrinks to the column at 390 px; the page does not scroll sideways."""
    from run import Page  # noqa: E402 (run.py imports this module)
    p = Page(browser, base, viewport={"width": 390, "height": 844})
    page = p.goto(path)
    page.evaluate("""() => { const img = document.createElement('img');
        img.src = document.querySelector('link[rel=icon]').href; img.alt = 'wide';
        img.width = 2000; img.height = 400; document.querySelector('main .body').append(img); }""")
    box = page.locator("main .body img[alt=wide]").bounding_box()
    assert box and box["x"] + box["width"] <= 390, f"the wide image spans {box}"
    width = page.evaluate("document.documentElement.scrollWidth")
    wide = page.evaluate("""() => [...document.querySelectorAll('body *')].filter(e =>
        e.getBoundingClientRect().right > 391).slice(0, 5).map(e => e.tagName + '.' + e.className)""")
    assert width <= 390, f"the page scrolls sideways: {width}px ({wide})"
    p.clean()
    p.close()


def check_measured_scroll(browser, base, path):
    """Where the table still scrolls (700 px), its row labels stay in view as it scrolls, and
    the scroll cue's edge shadow shows in dark as well as light."""
    from run import Page
    shadows = {}
    for scheme in ("light", "dark"):
        p = Page(browser, base, viewport={"width": 700, "height": 900}, color_scheme=scheme)
        page = p.goto(path)
        table = page.locator(".measured-table").first
        over = table.evaluate("t => t.scrollWidth > t.clientWidth + 1")
        assert over, "at 700 px the measured table should overflow (the test needs a scrolling table)"
        table.evaluate("t => { t.scrollLeft = t.scrollWidth; }")
        label = table.evaluate("""t => { const th = t.querySelector('tbody th'); const a = th.getBoundingClientRect(),
                                  b = t.getBoundingClientRect(); return [a.left, b.left]; }""")
        assert abs(label[0] - label[1]) < 2, f"the row label scrolled away: {label}"
        shadows[scheme] = table.evaluate("t => getComputedStyle(t).backgroundImage")
        p.clean()
        p.close()
    assert "rgba(0, 0, 0, 0.28)" in shadows["light"], shadows["light"]
    assert "rgba(255, 255, 255, 0.35)" in shadows["dark"], f"no light shadow on dark: {shadows['dark']}"


def check_table_headers(browser, base, path):
    """At 1280 px no heading of the measured table wraps into more than three lines (four,
    a word a line, before issue 28)."""
    from run import Page
    p = Page(browser, base, viewport={"width": 1280, "height": 900})
    page = p.goto(path)
    lines = page.eval_on_selector_all(".measured-table thead th", """ths => ths.map(th => {
        const r = document.createRange(); r.selectNodeContents(th);
        return [th.textContent, new Set([...r.getClientRects()].map(x => Math.round(x.top))).size]; })""")
    assert lines, "no headings"
    assert all(n <= 3 for _, n in lines), f"headings in more than three lines: {lines}"
    p.clean()
    p.close()


def luminance(rgb):
    r, g, b = [int(x) / 255 for x in re.findall(r"\d+", rgb)[:3]]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


# The computed fill and text colour of every part of the page's diagram.
FILLS = """() => [...document.querySelectorAll('section.diagram svg *')]
             .map(e => getComputedStyle(e).fill + '/' + getComputedStyle(e).color)"""


def check_print_dark(browser, base, path):
    """Printed from the dark theme: a light page and diagram, no Copy button, a draft notice
    in black on white."""
    p = themed(browser, base, "dark", "dark", viewport={"width": 1280, "height": 900})
    page = p.goto(path)
    assert page.locator(".copy-code").count() > 0, "the page should have Copy buttons on screen"
    page.emulate_media(media="print")
    bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert luminance(bg) > 0.9, f"printed background {bg}"
    fills = page.evaluate(FILLS)
    assert fills, "no diagram fills"
    light = themed(browser, base, "light", "light", viewport={"width": 1280, "height": 900})
    lpage = light.goto(path)
    lpage.emulate_media(media="print")
    printed_light = lpage.evaluate(FILLS)
    light.close()
    assert fills == printed_light, \
        f"printed from dark, the diagram differs from the light one: {fills[:4]} vs {printed_light[:4]}"
    bg = page.eval_on_selector("section.diagram svg rect", "e => getComputedStyle(e).fill")
    assert luminance(bg) > 0.9, f"printed diagram background {bg}"
    shown = page.eval_on_selector_all(".copy-code", "bs => bs.filter(b => getComputedStyle(b).display !== 'none').length")
    assert shown == 0, f"{shown} Copy buttons print"
    notice = page.locator(".draft-notice")
    if notice.count():
        color = notice.first.evaluate("e => getComputedStyle(e).color")
        assert luminance(color) < 0.05, f"draft notice prints in {color}"
    p.clean()
    p.close()


def check_cls(browser, base, path):
    """Cumulative layout shift of a 390 px load, from a PerformanceObserver, below 0.02."""
    from run import Page
    p = Page(browser, base, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
             device_scale_factor=2)
    p.context.add_init_script("""
      window.__cls = 0;
      new PerformanceObserver(list => { for (const e of list.getEntries()) if (!e.hadRecentInput) window.__cls += e.value; })
        .observe({type: 'layout-shift', buffered: true});""")
    page = p.goto(path)
    # Until the deferred scripts have run (the server delays them) and a moment after.
    page.wait_for_function("() => document.querySelector('.theme-choice:not([hidden])')", timeout=10000)
    page.wait_for_timeout(500)
    cls = page.evaluate("window.__cls")
    print(f"     CLS at 390 px on {path}: {cls:.4f}")
    assert cls < 0.02, f"CLS {cls}"
    p.clean()
    p.close()


def check_copy_button_phone(browser, base, path):
    """At 390 px the Copy button sits above the code's first line, and a command's flag
    ("--gpu" in inline code) is never split across lines."""
    from run import Page
    p = Page(browser, base, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = p.goto(path)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    overlaps = page.evaluate("""() => [...document.querySelectorAll('.code-wrap')].map(w => {
        const b = w.querySelector('.copy-code').getBoundingClientRect();
        const code = w.querySelector('pre code');
        const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
        let n; while ((n = walker.nextNode()) && !n.textContent.trim()) {}
        const r = document.createRange(); r.selectNodeContents(n);
        const t = r.getClientRects()[0];
        return t.top < b.bottom && t.right > b.left ? [b.bottom, t.top, t.right, b.left] : null;
      }).filter(Boolean)""")
    assert page.locator(".copy-code").count() > 0, "no Copy button"
    assert not overlaps, f"a Copy button covers code: {overlaps}"
    flags = page.eval_on_selector_all(":not(pre) > code .nobr", "els => els.map(e => [e.textContent, e.getClientRects().length])")
    assert any(t.startswith("--") for t, _ in flags), f"no flag in inline code on {path}: {flags}"
    assert all(n == 1 for _, n in flags), f"a flag broke across lines: {flags}"
    p.clean()
    p.close()


def check_diagram_phone(browser, base, path):
    """On a phone "Open full size" shows the drawing at its own width (wider than inline,
    scrolling), in the page's theme, and a Close button brings the reader back."""
    from run import Page
    for scheme in ("light", "dark"):
        p = Page(browser, base, viewport={"width": 390, "height": 844}, device_scale_factor=2,
                 is_mobile=True, has_touch=True, color_scheme=scheme)
        page = p.goto(path)
        inline = page.eval_on_selector(".diagram-full svg", "e => e.getBoundingClientRect().width")
        assert inline <= 390, f"inline diagram is {inline}px on a 390px screen"
        page.tap(".diagram-full")
        page.wait_for_selector("dialog.diagram-dialog[open] svg")
        assert page.url.endswith(path), f"left the page: {page.url}"
        natural = float(page.eval_on_selector(".diagram-full svg", "e => e.getAttribute('width')"))
        shown = page.eval_on_selector("dialog.diagram-dialog svg", "e => e.getBoundingClientRect().width")
        assert shown >= natural > inline, f"full size {shown}px, natural {natural}px, inline {inline}px"
        fill = page.eval_on_selector("dialog.diagram-dialog svg rect", "e => getComputedStyle(e).fill")
        if scheme == "dark":
            assert luminance(fill) < 0.1, f"full-size diagram is light in dark mode: {fill}"
        else:
            assert luminance(fill) > 0.8, f"full-size diagram is dark in light mode: {fill}"
        page.tap("dialog.diagram-dialog .diagram-close")
        page.wait_for_selector("dialog.diagram-dialog", state="detached")
        focused = page.evaluate("document.activeElement.className")
        assert focused == "diagram-full", f"focus went to {focused!r}"
        p.clean()
        p.close()
    # Without the script the link still opens the drawing alone.
    p = Page(browser, base, viewport={"width": 390, "height": 844}, java_script_enabled=False)
    page = p.goto(path)
    page.click(".diagram-full")
    page.wait_for_url("**/diagram.svg")
    p.close()


def check_pager_draft(browser, base, path):
    """A draft tag in the pager is as wide as its word, not the whole link."""
    from run import Page
    p = Page(browser, base, viewport={"width": 1280, "height": 900})
    page = p.goto(path)
    tags = page.eval_on_selector_all(".pager .draft-tag", """ts => ts.map(t => [t.getBoundingClientRect().width,
                                     t.closest('a').getBoundingClientRect().width])""")
    assert tags, f"no draft tag in the pager of {path}"
    for tag, link in tags:
        assert tag < 80 and tag < link / 2, f"draft tag {tag}px in a {link}px link"
    p.clean()
    p.close()


def check_robots(base):
    """The preview tells crawlers to stay out; every page of it is noindex."""
    with urllib.request.urlopen(base + "/robots.txt") as r:
        text = r.read().decode()
    assert "Disallow: /" in text, text
    for path in ("/", "/glossary/", "/days/"):
        with urllib.request.urlopen(base + path) as r:
            assert '<meta name="robots" content="noindex">' in r.read().decode(), path
    with urllib.request.urlopen(base + "/feed.xml") as r:
        assert "1970" not in r.read().decode(), "the preview feed is dated 1970"


def corpus_entry(site):
    """A glossary page of the corpus far down its category list, with its index's details."""
    index = (Path(site) / "glossary" / "index.html").read_text(encoding="utf-8")
    cats = re.findall(r'<details class="group-fold" id="([^"]+)">.*?</details>', index, re.S)
    blocks = re.findall(r'<details class="group-fold" id="[^"]+">(.*?)</details>', index, re.S)
    assert len(blocks) > 1, "the corpus index should fold its categories"
    hrefs = [re.findall(r'<dt><a href="([^"]+)"', b) for b in blocks]
    return cats, hrefs


def check_large_nav(browser, base, site):
    """1,000 entries: the current entry shows in the sidebar; the Days list is closed on a
    glossary page; previous/next cross from one category into the next; the glossary index
    is its categories, each opening from the table of contents."""
    from run import Page
    cats, hrefs = corpus_entry(site)
    last = hrefs[-1][len(hrefs[-1]) // 2]
    p = Page(browser, base, viewport={"width": 1280, "height": 900})
    page = p.goto(last)
    box = page.evaluate("""() => { const a = document.querySelector('.site-nav [aria-current=page]').getBoundingClientRect(),
                               n = document.querySelector('.site-nav').getBoundingClientRect();
                               return [a.top, a.bottom, n.top, n.bottom, scrollY]; }""")
    assert box[0] >= box[2] and box[1] <= box[3] and box[4] == 0, f"current entry outside the sidebar: {box}"
    days = page.evaluate("[...document.querySelectorAll('.site-nav > details')].map(d => [d.querySelector('summary').textContent, d.open])")
    assert ["Days", False] in days, f"the Days list is open on a glossary page: {days}"
    # The last entry of a category leads to the first of the next, and back.
    page = p.goto(hrefs[0][-1])
    nxt = page.get_attribute(".pager a[rel=next]", "href")
    assert nxt == hrefs[1][0], f"next of the category's last entry is {nxt}, not {hrefs[1][0]}"
    page = p.goto(hrefs[1][0])
    assert page.get_attribute(".pager a[rel=prev]", "href") == hrefs[0][-1]
    page = p.goto("/glossary/")
    height = page.evaluate("document.documentElement.scrollHeight")
    assert height < 5 * 900, f"the glossary index is {height}px tall"
    page.click(f".toc a[href='#{cats[-1]}']")
    page.wait_for_selector(f"details#{cats[-1]}[open]")
    assert page.locator(f"details#{cats[-1]} dt a").first.is_visible()
    p.clean()
    p.close()


def check_search_fast3g(browser, base, word, url):
    """On a throttled Fast 3G connection, focusing the box fetches the index; typing then
    shows first results within 500 ms. Prints both times."""
    from run import Page
    p = Page(browser, base, viewport={"width": 1280, "height": 900})
    page = p.goto("/days/day-1/")
    cdp = p.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    cdp.send("Network.emulateNetworkConditions", FAST_3G)
    t0 = page.evaluate("performance.now()")
    page.focus("#search-input")
    page.wait_for_selector("form.search[data-prefetched]", timeout=60000)
    t1 = page.evaluate("performance.now()")
    page.evaluate("""() => { window.__first = null; const box = document.getElementById('search-results');
        new MutationObserver(() => { if (window.__first === null && box.querySelector('a')) window.__first = performance.now(); })
          .observe(box, {childList: true, subtree: true}); }""")
    start = page.evaluate("performance.now()")
    page.keyboard.type(word, delay=0)
    page.wait_for_function("() => window.__first !== null", timeout=30000)
    first = page.evaluate("window.__first") - start
    hrefs = page.eval_on_selector_all("#search-results a", "els => els.map(e => new URL(e.href).pathname)")
    assert url in hrefs, f"{url} not among the first results {hrefs}"
    # The full-text results follow.
    page.wait_for_function("() => !document.querySelector('#search-results').textContent.includes('Searching the full text')",
                           timeout=60000)
    full = page.evaluate("performance.now()") - start
    print(f"     Fast 3G: focus to prefetched {t1 - t0:.0f} ms; typing to first results {first:.0f} ms, "
          f"to full-text results {full:.0f} ms")
    assert first < 500, f"first results after {first:.0f} ms"
    p.clean()
    p.close()


def corpus_term(site):
    """A term of the corpus and its page, from search-index.json."""
    entries = json.loads((Path(site) / "search-index.json").read_text())
    e = next(e for e in entries if e["url"].startswith("/glossary/") and len(e["term"].split()) > 1)
    return e["term"], e["url"]
