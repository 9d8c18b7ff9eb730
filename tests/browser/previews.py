"""Browser checks of issue 51: term previews that follow WCAG 1.4.13 (dismissable,
hoverable, persistent; anchored to the word and flipped near the window's bottom; hidden
in the HTML itself; a first tap on a phone shows them), terms written as authors write
them, and math set as math (aligned `=` signs on one line).

Run from run.py on the course `readers.course` makes; each check was seen to fail on the
site built before the change.
"""

TERM = ".body a.term[href$='/glossary/warp/']"


def _open(browser, base, path="/glossary/bank/", **ctx_args):
    ctx = browser.new_context(**{"viewport": {"width": 1280, "height": 900}, **ctx_args})
    page = ctx.new_page()
    page.goto(base + path)
    link = page.locator(TERM).first
    assert link.count() == 1, "the first mention of “warp” is not linked"
    tip = page.locator("#" + link.get_attribute("aria-describedby"))
    return ctx, page, link, tip


def _box(locator):
    b = locator.bounding_box()
    assert b, "not laid out"
    return b


def check_escape(browser, base):
    """Esc hides an open preview, by hover or by keyboard focus, without moving the focus;
    the preview comes back the next time it is asked for."""
    ctx, page, link, tip = _open(browser, base)
    link.hover()
    assert tip.is_visible(), "the preview does not show on hover"
    page.keyboard.press("Escape")
    assert not tip.is_visible(), "Esc leaves the preview (opened by hover) open"
    page.mouse.move(0, 0)
    link.hover()
    assert tip.is_visible(), "after Esc, the preview never shows again on hover"
    page.mouse.move(0, 0)
    # Keyboard: Tab onto the link, Esc, and the focus stays on the link.
    page.evaluate("document.querySelector('.body p').setAttribute('tabindex', '-1')")
    page.focus(".body p")
    page.keyboard.press("Tab")
    assert tip.is_visible(), "the preview does not show on keyboard focus"
    page.keyboard.press("Escape")
    assert not tip.is_visible(), "Esc leaves the preview (opened by focus) open"
    assert page.evaluate("document.activeElement.classList.contains('term')"), \
        "Esc moved the focus off the link"
    ctx.close()


def check_hoverable(browser, base):
    """The pointer can move from the word onto its preview, in small steps, and the
    preview stays open all the way and while the pointer rests on it."""
    ctx, page, link, tip = _open(browser, base)
    b = _box(link)
    page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2)
    assert tip.is_visible()
    t = _box(tip)
    start = (b["x"] + b["width"] / 2, b["y"] + b["height"] / 2)
    end = (t["x"] + min(t["width"] / 2, 20), t["y"] + t["height"] / 2)
    for i in range(1, 21):
        x = start[0] + (end[0] - start[0]) * i / 20
        y = start[1] + (end[1] - start[1]) * i / 20
        page.mouse.move(x, y)
        assert tip.is_visible(), f"the preview closed on the way to it, at ({x:.0f}, {y:.0f})"
    page.wait_for_timeout(300)
    assert tip.is_visible(), "the preview closed with the pointer resting on it"
    page.mouse.move(0, 0)
    page.wait_for_timeout(300)
    assert not tip.is_visible(), "the preview stays open after the pointer left both"
    ctx.close()


def check_ctrl_click(browser, base):
    """A Ctrl-click (open in a new tab) leaves no preview open once the pointer moves
    away: a mouse click focuses the link, and the preview follows keyboard focus only."""
    ctx, page, link, tip = _open(browser, base)
    with ctx.expect_page(timeout=5000) as opened:
        link.click(modifiers=["Control"])
    opened.value.close()
    page.bring_to_front()
    page.mouse.move(5, 5)
    page.wait_for_timeout(200)
    assert not tip.is_visible(), "after a Ctrl-click the preview stays open over the text"
    ctx.close()


def check_anchored_and_flipped(browser, base):
    """The preview opens right under the word it explains, starting where the word starts;
    when the word is near the window's bottom, it opens above the word instead, whole."""
    ctx, page, link, tip = _open(browser, base, viewport={"width": 1280, "height": 700})
    link.hover()
    b, t = _box(link), _box(tip)
    assert abs(t["x"] - b["x"]) <= 24, f"the preview starts at x={t['x']:.0f}, the word at {b['x']:.0f}"
    assert 0 <= t["y"] - (b["y"] + b["height"]) <= 12, \
        f"the preview opens {t['y'] - (b['y'] + b['height']):.0f} px below the word"
    page.mouse.move(0, 0)
    # Put the word 20 px above the window's bottom edge.
    page.evaluate("""sel => { const a = document.querySelector(sel);
        const pad = document.createElement('div'); pad.style.height = '2000px';
        document.body.prepend(pad);
        window.scrollBy(0, a.getBoundingClientRect().bottom - (innerHeight - 20)); }""", TERM)
    b = _box(link)
    assert 640 <= b["y"] + b["height"] <= 690, f"the word is not near the bottom: {b}"
    link.hover()
    b, t = _box(link), _box(tip)
    assert t["y"] + t["height"] <= b["y"] + 1, \
        f"near the bottom the preview opens below the word (preview {t['y']:.0f}–{t['y'] + t['height']:.0f}, word at {b['y']:.0f})"
    assert t["y"] >= 0, "the flipped preview runs off the window's top"
    ctx.close()


def check_no_summary_in_text(browser, base):
    """Without the stylesheet (reader modes, text browsers, a page read as text) a linked
    term is a link and nothing more: its summary is not printed in the sentence."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    page.goto(base + "/glossary/bank/")
    page.evaluate("document.querySelectorAll('link[rel=stylesheet], style').forEach(s => s.remove())")
    text = page.inner_text(".body")
    assert "32 threads" not in text, f"the summary is read inside the sentence: {text[:200]!r}"
    ctx.close()


def check_touch(browser, base):
    """On a phone, a first tap on a term shows its preview (and stays on the page); a
    second tap on the word follows the link."""
    ctx, page, link, tip = _open(browser, base, viewport={"width": 390, "height": 800},
                                 has_touch=True, is_mobile=True)
    link.tap()
    page.wait_for_timeout(200)
    assert page.url.endswith("/glossary/bank/"), "the first tap left the page"
    assert tip.is_visible(), "the first tap shows no preview"
    link.tap()
    page.wait_for_url("**/glossary/warp/", timeout=5000)
    ctx.close()


def check_preview_markdown(browser, base):
    """The preview is the summary as the inline Markdown it is: code is code."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    page.goto(base + "/glossary/bank/")
    link = page.locator(".body a.term[href$='/glossary/shared-memory/']").first
    assert link.count() == 1, "the first mention of “shared memory” is not linked"
    tip = page.locator("#" + link.get_attribute("aria-describedby"))
    assert tip.locator("code").count() == 1, f"no code in the preview: {tip.inner_html()!r}"
    assert "_" not in tip.inner_text().replace("__shared__", ""), tip.inner_text()
    ctx.close()


def check_terms_as_written(browser, base):
    """A term split over a source line links, and a regular plural links to its entry."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    page.goto(base + "/glossary/warp/")
    links = page.evaluate("[...document.querySelectorAll('.body a.term')].map(a => [a.innerText, a.getAttribute('href')])")
    assert any(t.replace("\n", " ") == "shared memory" for t, _ in links), \
        f"“shared\\nmemory” is not linked: {links}"
    page.goto(base + "/glossary/shared-memory/")
    links = page.evaluate("[...document.querySelectorAll('.body a.term')].map(a => [a.innerText, a.getAttribute('href')])")
    assert any(t == "warps" and h.endswith("/glossary/warp/") for t, h in links), \
        f"“warps” does not link to the warp entry: {links}"
    ctx.close()


def check_aligned(browser, base):
    """In an `aligned` formula the `=` signs of its rows share one x-coordinate (±1 px)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    page.goto(base + "/glossary/shared-memory/")
    xs = page.evaluate("""() => [...document.querySelectorAll('.body math[display=block] mo')]
        .filter(m => m.textContent.trim() === '=').map(m => m.getBoundingClientRect().left)""")
    assert len(xs) == 3, f"expected three = signs, found {xs}"
    assert max(xs) - min(xs) <= 1, f"the = signs stand at x = {[round(x, 1) for x in xs]}"
    ctx.close()


def check_wide_formula(browser, base):
    """At 390 px a display formula wider than the column scrolls, takes the keyboard's
    focus, and says so (the tables' cue, which also describes it)."""
    ctx = browser.new_context(viewport={"width": 390, "height": 800})
    page = ctx.new_page()
    page.goto(base + "/glossary/shared-memory/")
    # (Playwright's locators never match a MathML element: a handle instead.)
    wide = page.evaluate_handle("[...document.querySelectorAll('.body math[display=block]')].pop()").as_element()
    assert wide.evaluate("m => m.scrollWidth > m.clientWidth + 1"), "the long formula does not overflow"
    assert wide.get_attribute("tabindex") == "0", "the wide formula cannot take the keyboard's focus"
    cue = page.locator("#" + (wide.get_attribute("aria-describedby") or "none"))
    assert cue.count() == 1 and cue.is_visible(), "no visible cue describes the wide formula"
    wide.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_timeout(100)
    assert wide.evaluate("m => m.scrollLeft") > 0, "the arrow key does not scroll the formula"
    ctx.close()


def check_copy_tex(browser, base):
    """Copying a sentence with a formula gives the formula's TeX, not one symbol a line;
    a selection inside a formula copies the whole formula."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    page.goto(base + "/glossary/shared-memory/")
    copy = """sel => { const el = document.querySelector(sel); const r = document.createRange();
        r.selectNodeContents(el); const s = getSelection(); s.removeAllRanges(); s.addRange(r);
        const dt = new DataTransfer();
        document.dispatchEvent(new ClipboardEvent('copy', {clipboardData: dt, bubbles: true, cancelable: true}));
        return dt.getData('text/plain'); }"""
    text = page.evaluate(copy, ".body p:last-of-type")
    assert text.strip() == "Copied, $x^2$ stays TeX.", f"copied {text!r}"
    text = page.evaluate(copy, ".body p:last-of-type msup")
    assert text.strip() == "$x^2$", f"copied from inside the formula: {text!r}"
    ctx.close()


def check_font_on_math_pages(browser, base):
    """The math font is fetched by a page with a formula, and by no other."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    fonts = []
    page.on("request", lambda r: fonts.append(r.url) if r.url.endswith(".woff2") else None)
    page.goto(base + "/glossary/warp/")
    page.wait_for_load_state("networkidle")
    assert not fonts, f"a page without math fetched {fonts}"
    page.goto(base + "/glossary/shared-memory/")
    page.wait_for_load_state("networkidle")
    assert any("stix-two-math" in f for f in fonts), f"the math font was not fetched: {fonts}"
    assert page.evaluate("document.fonts.check('16px \"STIX Two Math\"')"), "the math font did not load"
    ctx.close()


def check_contents_rail(browser, base):
    """At 1280 px "On this page" stands beside the text and marks the section being read."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 700})
    page = ctx.new_page()
    page.goto(base + "/glossary/bank/")
    rail = page.locator("nav.toc-wide")
    assert rail.is_visible(), "no contents beside the text at 1280 px"
    text = page.locator(".body").bounding_box()
    assert text["width"] >= 640, f"the text column is {text['width']:.0f} px wide"
    page.evaluate("""() => { const pad = document.createElement('div'); pad.style.height = '2000px';
        document.getElementById('try-it').before(pad);
        document.getElementById('padding').scrollIntoView(); }""")
    page.wait_for_timeout(200)
    marked = rail.locator("a[aria-current]")
    assert marked.count() == 1, f"{marked.count()} sections marked as being read"
    assert marked.get_attribute("href") == "#padding", marked.get_attribute("href")
    ctx.close()


def check_diagram_alt_once(browser, base, path="/glossary/shared-memory-bank/"):
    """The diagram's alt text is heard once: the caption prints it, so the picture is
    named by its title and described by nothing (not by its SVG `<desc>` either)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    page.goto(base + path)
    alt = page.evaluate("document.querySelector('.diagram figcaption').innerText")
    alt = alt.split("“", 1)[1].rstrip("”").strip()[:40]
    cdp = ctx.new_cdp_session(page)
    tree = cdp.send("Accessibility.getFullAXTree")["nodes"]
    said = [(n.get("role", {}).get("value"), field) for n in tree
            for field in ("name", "description")
            if alt in n.get(field, {}).get("value", "")
            and n.get("role", {}).get("value") not in ("StaticText", "InlineTextBox", "generic", "figure")]
    assert not said, f"the alt text is also said as: {said}"
    ctx.close()


# Every computed property of every element and of its ::before and ::after, in document order:
# the element count and the SHA-256 of them all, or (full) one text an element, a line a property.
_STYLES = """async (full) => {
  const all = document.querySelectorAll("*");
  const line = (i) => {
    let text = all[i].tagName;
    for (const pseudo of [null, "::before", "::after"]) {
      const s = getComputedStyle(all[i], pseudo);
      // A ::before or ::after with no content is not drawn: its content says so.
      if (pseudo && (s.content === "none" || s.content === "normal")) {
        text += "\\n" + pseudo + " none";
        continue;
      }
      // Custom properties hold their tokens as written, spaces included; the properties
      // that use them are compared with them substituted.
      for (let j = 0; j < s.length; j++) {
        if (!s[j].startsWith("--")) text += "\\n" + (pseudo || "") + s[j] + ": " + s.getPropertyValue(s[j]);
      }
    }
    return text;
  };
  const lines = Array.from(all, (_, i) => line(i));
  if (full) return lines;
  const bytes = new TextEncoder().encode(lines.join("\\n\\n"));
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [all.length, Array.from(new Uint8Array(digest), (b) => b.toString(16)).join("")];
}"""


def check_shipped_as_source(browser, base, paths, static_dir):
    """The built-in scripts and stylesheets ship minified (build.rs), and the minified files
    lay a page out as their readable source does: each page is loaded as shipped and again
    with static/'s sources served in their place, and every element's computed style (and
    its ::before and ::after, custom properties substituted) compared, light and dark on
    screen, and in print."""
    sources = {p.name: p.read_bytes() for p in static_dir.iterdir() if p.suffix in (".js", ".css")}

    def styles(path, scheme, media, readable, full=False):
        ctx = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
        page = ctx.new_page()
        shipped = {}

        def serve(route):
            name = route.request.url.split("?")[0].rsplit("/", 1)[-1]
            if name not in sources:
                return route.continue_()
            if readable:
                return route.fulfill(body=sources[name], content_type=(
                    "text/css" if name.endswith(".css") else "text/javascript"))
            response = route.fetch()
            shipped[name] = response.body()
            return route.fulfill(response=response)

        page.route(f"{base}/*", serve)
        page.emulate_media(media=media)
        page.goto(base + path)
        page.wait_for_load_state("load")
        page.wait_for_timeout(100)
        out = page.evaluate(_STYLES, full)
        ctx.close()
        return out, shipped

    for path in paths:
        for scheme, media in (("light", "screen"), ("dark", "screen"), ("light", "print")):
            got, shipped = styles(path, scheme, media, readable=False)
            want, _ = styles(path, scheme, media, readable=True)
            for name in ("site.js", "style.css"):
                assert name in shipped, f"{path}: {name} was not loaded"
                assert len(shipped[name]) < len(sources[name]) * 0.8, \
                    f"{name} is shipped as written ({len(shipped[name])} bytes), not minified"
            if got == want:
                continue
            got = styles(path, scheme, media, readable=False, full=True)[0]
            want = styles(path, scheme, media, readable=True, full=True)[0]
            assert len(got) == len(want), f"{path} ({scheme}, {media}): another element count"
            i, a, b = next((i, a, b) for i, (a, b) in enumerate(zip(got, want)) if a != b)
            diff = [f"{x} (source: {y})" for x, y in zip(a.split("\n"), b.split("\n")) if x != y]
            raise AssertionError(f"{path} ({scheme}, {media}), element {i} <{a.split()[0]}>: "
                                 + "; ".join(diff[:3]))
