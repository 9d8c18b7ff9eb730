"""Browser checks of issue 39: terms that link themselves with a preview, math as MathML,
"On this page" and heading anchors, and the reader slips (slow-network title results, the
measured table's header when scrolled, Esc on the phone menu, "1 page matches").

Run from run.py; each check was seen to fail on the site built before the change.
"""
import time
from pathlib import Path

ENTRY = """---
title: {title}
term: {term}
{extra}summary: {summary}
status: draft
byline:
  written_by: pending
  reviewed_by: pending
  written_on: pending
  last_checked_on: pending
---

{body}
"""


def course(root):
    """A small course with a term (and an alias), a page that mentions it, a formula and
    four headings."""
    root = Path(root)
    g = root / "content" / "glossary"
    g.mkdir(parents=True)
    (g / "warp.md").write_text(ENTRY.format(
        title="What is a warp?", term="Warp", extra="cc: \"7.5\"\n",
        summary="A group of 32 threads scheduled together.",
        body="A warp is 32 threads. Its lanes share one block's shared\nmemory.\n"))
    # A summary with code in it; a plural of a term no entry declares; an aligned formula.
    (g / "shared-memory.md").write_text(ENTRY.format(
        title="What is shared memory?", term="Shared memory", extra="",
        summary="On-chip memory a block declares with `__shared__`.",
        body=("All warps of a block see it.\n\n"
              "$$\\begin{aligned} t &= 2 + 3 \\\\ u + v + w &= 4 \\\\ x &= y + z + 1 \\end{aligned}$$\n\n"
              "A long one: $$" + " + ".join(f"a_{{{i}}} b_{{{i}}}" for i in range(40)) + "$$\n\n"
              "Copied, $x^2$ stays TeX.\n")))
    body = ("Each warp of a block reads shared memory; later warps do too.\n\n"
            "## The address\n\nThe bank of word $w$ is $$b = w \\bmod 32$$ and a row takes "
            "$\\frac{32}{32} = 1$ pass.\n\n## A column\n\nText.\n\n### Padding\n\nText.\n\n"
            "## Try it\n\nText.\n")
    (g / "bank.md").write_text(ENTRY.format(
        title="What is a bank?", term="Bank", extra="",
        summary="One of 32 slices of shared memory.", body=body))
    return root


def check_term_preview(browser, base, path="/glossary/bank/"):
    """A linked term shows its preview on hover and on keyboard focus, and the link is
    described by it (what a screen reader announces after the name)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    page.goto(base + path)
    link = page.locator(".body a[href$='/glossary/warp/']").first
    assert link.count() == 1, "the first mention of “warp” is not linked"
    preview = page.locator("#" + link.get_attribute("aria-describedby"))
    assert not preview.is_visible(), "the preview shows before it is asked for"
    link.hover()
    assert preview.is_visible(), "the preview does not show on hover"
    assert "32 threads" in preview.inner_text() and "CC 7.5" in preview.inner_text()
    page.mouse.move(0, 0)
    assert not preview.is_visible()
    # Keyboard: the focus moves to the link (Tab from the element before it).
    page.evaluate("document.querySelector('.body p').setAttribute('tabindex', '-1')")
    page.focus(".body p")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.getAttribute('href')").endswith("/glossary/warp/")
    assert preview.is_visible(), "the preview does not show on keyboard focus"
    cdp = ctx.new_cdp_session(page)
    tree = cdp.send("Accessibility.getFullAXTree")["nodes"]
    described = [n for n in tree if n.get("role", {}).get("value") == "link"
                 and n.get("name", {}).get("value") == "warp"]
    assert described, "no link named “warp” in the accessibility tree"
    desc = described[0].get("description", {}).get("value", "")
    assert "32 threads" in desc, f"the link's description is {desc!r}"
    # Only the first mention is linked; the page's own term is not.
    assert page.locator(".body a[href$='/glossary/warp/']").count() == 1
    assert page.locator(".body a[href$='/glossary/bank/']").count() == 0
    ctx.close()


def check_math(browser, base, path="/glossary/bank/"):
    """Formulas are MathML that Chromium lays out as math (no script), inline and display."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, java_script_enabled=False)
    page = ctx.new_page()
    page.goto(base + path)
    found = page.evaluate("""() => [...document.querySelectorAll('.body math')].map(m => ({
        ns: m.namespaceURI, display: getComputedStyle(m).display,
        block: m.getAttribute('display'), h: m.getBoundingClientRect().height,
        frac: !!m.querySelector('mfrac')}))""")
    assert len(found) == 3, f"expected 3 formulas as MathML, found {found}"
    for m in found:
        assert m["ns"] == "http://www.w3.org/1998/Math/MathML", m
        assert "math" in m["display"], f"not laid out as math: {m}"
        assert m["h"] > 0, m
    assert [m["block"] for m in found].count("block") == 1, found
    assert any(m["frac"] for m in found)
    assert "$" not in page.inner_text(".body"), "TeX printed literally"
    ctx.close()


def check_contents(browser, base, path="/glossary/bank/"):
    """"On this page" links to each heading; it stays beside the text on a wide screen and
    is folded on a phone; every heading has a visible anchor link."""
    ctx = browser.new_context(viewport={"width": 1600, "height": 900})
    page = ctx.new_page()
    page.goto(base + path)
    toc = page.locator("nav.toc-wide")
    assert toc.is_visible(), "no contents list beside the text at 1600 px"
    hrefs = toc.locator("a").evaluate_all("els => els.map(a => a.getAttribute('href'))")
    ids = page.evaluate("[...document.querySelectorAll('main h2[id], main h3[id]')].map(h => '#' + h.id)")
    assert hrefs[:4] == ["#the-address", "#a-column", "#padding", "#try-it"], hrefs
    assert all(h in ids for h in hrefs), (hrefs, ids)
    page.click("nav.toc-wide a[href='#try-it']")
    assert page.evaluate("location.hash") == "#try-it"
    top = page.evaluate("document.getElementById('try-it').getBoundingClientRect().top")
    assert 0 <= top < 860, f"the heading is not brought into view ({top})"
    box = toc.bounding_box()
    assert box and 0 <= box["y"] < 900, f"the contents list scrolled away: {box}"
    for h in page.locator("main h2[id], main h3[id]").all():
        hid = h.get_attribute("id")
        anchor = page.locator(f"a.anchor[href='#{hid}']")
        assert anchor.count() == 1 and anchor.is_visible(), f"no visible anchor for #{hid}"
    ctx.close()
    ctx = browser.new_context(viewport={"width": 390, "height": 844})
    page = ctx.new_page()
    page.goto(base + path)
    assert not page.locator("nav.toc-wide").is_visible()
    fold = page.locator("details.toc-fold")
    assert fold.is_visible() and not fold.evaluate("d => d.open"), "not folded on a phone"
    fold.locator("summary").click()
    assert fold.locator("a[href='#padding']").is_visible()
    ctx.close()


def check_slow_titles(browser, base):
    """The title list arriving after the last key (a phone on a slow network) still shows
    its results, within a second of arriving, before the full-text index loads."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    arrived = {}
    held = []
    # The full-text index never answers during the check; the title list comes late (the
    # server holds it 2 s, see run.py's `slow`).
    page.route("**/pagefind/**", lambda r: held.append(r))
    page.on("response", lambda r: "search-index.json" in r.url and arrived.setdefault("titles", time.monotonic()))
    page.goto(base + "/")
    page.focus("#search-input")
    page.keyboard.type("bank", delay=30)
    assert "titles" not in arrived, "the title list came before the last key: nothing to check"
    page.wait_for_selector("#search-results a", timeout=6000)
    shown = time.monotonic()
    assert "titles" in arrived, arrived
    assert shown - arrived["titles"] < 1.0, f"results {shown - arrived['titles']:.2f} s after the titles"
    ctx.close()


def check_table_header_scrolled(browser, base, path):
    """Between 40 and 64 rem, a measured table scrolled sideways keeps its corner heading
    over its row labels: no column heading slides over the labels."""
    for width in (730, 760, 800, 860, 960, 1100):
        ctx = browser.new_context(viewport={"width": width, "height": 900})
        page = ctx.new_page()
        page.goto(base + path)
        table = page.locator(".measured-table").first
        table.scroll_into_view_if_needed()
        if table.evaluate("t => t.scrollWidth > t.clientWidth + 20"):
            break
        ctx.close()
    else:
        raise AssertionError("the table overflows at no width between 40 and 64 rem: nothing to check")
    table.evaluate("t => { t.scrollLeft = 150; }")
    hit = table.evaluate("""t => {
        const corner = t.querySelector('thead th'), label = t.querySelector('tbody th[scope=row]');
        const c = corner.getBoundingClientRect(), l = label.getBoundingClientRect();
        const at = document.elementFromPoint(l.left + 5, c.top + c.height / 2);
        return {same: at === corner || corner.contains(at), text: at && at.textContent.trim(),
                cornerLeft: c.left, labelLeft: l.left};
    }""")
    assert hit["same"], f"over the row labels the header shows {hit['text']!r}: {hit}"
    assert abs(hit["cornerLeft"] - hit["labelLeft"]) < 2, hit
    ctx.close()


def check_menu_escape(browser, base, path):
    """On a phone, Esc closes the open menu and returns the focus to its button."""
    ctx = browser.new_context(viewport={"width": 390, "height": 844})
    page = ctx.new_page()
    page.goto(base + path)
    page.click(".nav-toggle")
    assert page.locator("#site-nav").is_visible()
    page.keyboard.press("Escape")
    assert not page.locator("#site-nav").is_visible(), "Esc did not close the menu"
    assert page.get_attribute(".nav-toggle", "aria-expanded") == "false"
    assert page.evaluate("document.activeElement.classList.contains('nav-toggle')")
    ctx.close()


def check_one_match(browser, base, word):
    """A search that finds one page says "1 page matches", not "1 pages match"."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    page.goto(base + "/search/?q=" + word)
    page.wait_for_function("document.querySelector('main').innerText.includes('match')", timeout=15000)
    text = page.inner_text("main")
    assert "1 pages" not in text, text
    assert "1 page matches" in text, text
    ctx.close()


def check_slips_text(browser, base):
    """The home page lists days without numbers before "Day 15"; the footer names no
    repository it does not link; the diagram's alt text is the name of nothing but its
    caption. (A related draft's note in the published build: tests/cli/reader.rs.)"""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    page.goto(base + "/")
    assert page.evaluate("document.querySelector('.home-days').tagName") == "UL"
    footer = page.inner_text(".site-footer")
    linked = page.locator(".site-footer a", has_text="repository").count()
    assert "repository" not in footer or linked, f"the footer names an unlinked repository: {footer}"
    page.goto(base + "/glossary/shared-memory-bank/")
    alt = page.evaluate("document.querySelector('.diagram figcaption').innerText")
    alt = alt.split("“", 1)[1].rstrip("”").strip()[:40]
    cdp = ctx.new_cdp_session(page)
    tree = cdp.send("Accessibility.getFullAXTree")["nodes"]
    named = [n.get("role", {}).get("value") for n in tree
             if alt in n.get("name", {}).get("value", "") and n.get("role", {}).get("value") in ("image", "link", "img")]
    assert not named, f"the alt text is also the name of: {named}"
    ctx.close()


def check_axe_every(browser, sites, axe):
    """axe-core finds no violation of any impact on every page, at 1280 and 390 px, in all
    four theme × system combinations, in each state a reader puts it in: the folded contents
    open and a term's preview by focus, a preview by hover, the phone menu open, search
    results open (so their colours are checked too). `sites`: (base, paths) pairs. Prints
    the number of page states checked."""
    import reader
    source = Path(axe).read_text(encoding="utf-8")
    problems, states = [], 0
    for base, paths in sites:
        for width in (1280, 390):
            for system, chosen in reader.THEMES:
                p = reader.themed(browser, base, system, chosen, bypass_csp=True,
                                  viewport={"width": width, "height": 900})
                for path in paths:
                    page = p.goto(path)
                    page.add_script_tag(content=source)

                    def audit(state):
                        nonlocal states
                        result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
                        states += 1
                        for v in result["violations"]:
                            for n in v["nodes"][:3]:
                                problems.append(f"{width}px {system}/{chosen} {path} ({state}): "
                                                f"{v['id']} ({v['impact']}) {n['target']}")

                    # The folded contents open and a term's preview by keyboard focus.
                    if page.locator("details.toc-fold").is_visible():
                        page.locator("details.toc-fold summary").click()
                    term = page.locator(".body a.term").first
                    if term.count():
                        term.focus()
                    audit("contents open, a preview by focus")
                    # A preview by hover, placed by the script.
                    if term.count():
                        page.evaluate("document.activeElement.blur()")
                        term.hover()
                        audit("a preview by hover")
                        page.mouse.move(0, 0)
                    # The phone menu open.
                    toggle = page.locator(".nav-toggle")
                    if toggle.is_visible():
                        toggle.click()
                        audit("menu open")
                        page.keyboard.press("Escape")
                    # Search results open.
                    box = page.locator("#search-input")
                    if box.is_visible() and not path.startswith("/search/"):
                        box.fill("memory")
                        try:
                            page.wait_for_selector("#search-results:not([hidden]) li", timeout=5000)
                            audit("search results")
                        except Exception:  # no index in this site (a preview without search)
                            pass
                        box.fill("")
                p.clean()
                p.close()
    print(f"     axe: {states} page states, {len(problems)} violations")
    assert not problems, "\n".join(problems[:40])
