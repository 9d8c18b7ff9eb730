// coursegen's page script: theme menu, sidebar toggle on phones (and the current entry
// scrolled into the sidebar's view), arrow keys for previous/next, scroll cues on wide
// tables, the diagram full size in an overlay, term previews placed and dismissable, a
// formula copied as its TeX, the section being read marked in "On this page", and search over the Pagefind index.
// Every page works without it; it only adds to what the HTML already offers.
(function () {
  "use strict";
  var root = document.documentElement;
  var KEY = "coursegen-theme";

  // Theme: "system" follows prefers-color-scheme; light and dark are remembered.
  function setupTheme() {
    var label = document.querySelector(".theme-choice");
    var select = document.getElementById("theme-select");
    if (!label || !select) return;
    var saved = root.getAttribute("data-theme") || "system";
    select.value = saved;
    label.hidden = false;
    select.addEventListener("change", function () {
      var v = select.value;
      if (v === "light" || v === "dark") {
        root.setAttribute("data-theme", v);
        try { localStorage.setItem(KEY, v); } catch (e) { /* private mode: not remembered */ }
      } else {
        root.removeAttribute("data-theme");
        try { localStorage.removeItem(KEY); } catch (e) { /* nothing to forget */ }
      }
    });
  }

  // Sidebar on phones: a Menu button opens and closes it.
  function setupNav() {
    var button = document.querySelector(".nav-toggle");
    var nav = document.getElementById("site-nav");
    if (!button || !nav) return;
    // In a long sidebar the current entry may sit far below the fold: scroll the sidebar
    // (never the page) so that it shows in the middle.
    var here = nav.querySelector("[aria-current=page]");
    if (here && nav.scrollHeight > nav.clientHeight + 1) {
      var offset = here.getBoundingClientRect().top - nav.getBoundingClientRect().top;
      if (offset < 0 || offset > nav.clientHeight - here.offsetHeight) {
        nav.scrollTop += offset - nav.clientHeight / 2;
      }
    }
    button.hidden = false;
    button.addEventListener("click", function () {
      var open = nav.classList.toggle("open");
      button.setAttribute("aria-expanded", open ? "true" : "false");
      if (open) {
        var current = nav.querySelector("[aria-current=page]") || nav.querySelector("a");
        if (current) current.focus();
      }
    });
    // Escape closes the open menu and gives the focus back to its button.
    document.addEventListener("keydown", function (e) {
      if (e.key !== "Escape" || !nav.classList.contains("open")) return;
      nav.classList.remove("open");
      button.setAttribute("aria-expanded", "false");
      button.focus();
    });
  }

  // "1 page matches", "2 pages match".
  function matches(n) {
    return n === 1 ? "1 page matches" : n + " pages match";
  }

  function typing(el) {
    if (!el || !el.closest) return false;
    return !!el.closest("input, textarea, select, [contenteditable], [contenteditable=true]");
  }

  // Left and right arrows follow the page's previous/next links; "/" jumps to search.
  function setupKeys() {
    document.addEventListener("keydown", function (e) {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
      if (typing(e.target)) return;
      // A focused table, code block or formula scrolls sideways with the arrows instead.
      if (e.target.closest && e.target.closest("table, pre, math, .search-results")) return;
      var rel = e.key === "ArrowLeft" ? "prev" : e.key === "ArrowRight" ? "next" : null;
      if (rel) {
        var link = document.querySelector(".pager a[rel=" + rel + "]");
        if (link) {
          e.preventDefault();
          window.location.href = link.href;
        }
      } else if (e.key === "/") {
        var input = document.getElementById("search-input");
        if (input) {
          e.preventDefault();
          input.focus();
        }
      }
    });
  }

  // Wide tables, code blocks and display formulas: focusable (so a keyboard can scroll
  // them) and, for tables and formulas, a visible "scroll sideways" cue that also describes
  // them, only when they really overflow.
  function setupOverflow() {
    var blocks = document.querySelectorAll("main table, main pre, main math[display=block]");
    function check() {
      blocks.forEach(function (el) {
        var over = el.scrollWidth > el.clientWidth + 1;
        el.classList.toggle("overflows", over);
        if (over) {
          el.setAttribute("tabindex", "0");
          if (el.tagName !== "PRE") {
            el.setAttribute("aria-describedby", cue(el).id);
          }
        } else if (el.getAttribute("tabindex") === "0") {
          el.removeAttribute("tabindex");
        }
      });
    }
    var n = 0;
    function cue(el) {
      var next = el.nextElementSibling;
      if (next && next.classList.contains("scroll-cue")) return next;
      var table = el.tagName === "TABLE";
      // A formula stands inside a paragraph: its cue is a span, shown as a block.
      var p = document.createElement(table ? "p" : "span");
      p.className = "scroll-cue";
      p.id = "scroll-cue-" + (n += 1);
      p.textContent = table ? "Scroll sideways for more columns →" : "Scroll sideways for the whole formula →";
      el.insertAdjacentElement("afterend", p);
      return p;
    }
    check();
    window.addEventListener("resize", check);
  }

  // "Open full size": the drawing at its own width in an overlay that scrolls, in the
  // page's theme, with a Close button (and Escape, or a tap beside it). Without the script,
  // or when the inline drawing is already at full size, the link opens diagram.svg.
  function setupDiagram() {
    document.querySelectorAll("a.diagram-full").forEach(function (link) {
      var svg = link.querySelector("svg");
      if (!svg || typeof HTMLDialogElement !== "function") return;
      link.addEventListener("click", function (e) {
        var natural = parseFloat(svg.getAttribute("width")) || 0;
        if (natural <= svg.getBoundingClientRect().width + 1) return;
        e.preventDefault();
        var dialog = document.createElement("dialog");
        dialog.className = "diagram-dialog";
        dialog.setAttribute("aria-label", "Diagram, full size");
        var close = document.createElement("button");
        close.type = "button";
        close.className = "diagram-close";
        close.textContent = "Close ✕";
        var pane = document.createElement("div");
        pane.className = "diagram-pane";
        pane.setAttribute("tabindex", "0");
        var copy = svg.cloneNode(true);
        // Ids inside the drawing (its title, its description) must stay unique on the page.
        copy.querySelectorAll("[id]").forEach(function (el) { el.id = el.id + "-full"; });
        var label = copy.getAttribute("aria-labelledby");
        if (label) copy.setAttribute("aria-labelledby", label.split(" ").map(function (id) { return id + "-full"; }).join(" "));
        pane.appendChild(copy);
        dialog.appendChild(close);
        dialog.appendChild(pane);
        document.body.appendChild(dialog);
        function done() { dialog.close(); }
        close.addEventListener("click", done);
        dialog.addEventListener("click", function (ev) { if (ev.target === dialog) done(); });
        dialog.addEventListener("close", function () { dialog.remove(); link.focus(); });
        dialog.showModal();
        close.focus();
      });
    });
  }

  // Search: Pagefind's index, loaded on first use. A large course's index is cut into
  // shards (listed in shards.json beside the primary bundle) that are merged into one search.
  // Results are built as DOM nodes from text; only Pagefind's <mark> highlighting is kept
  // from its excerpts.
  var pagefind = null;
  function loadPagefind(bundle) {
    if (!pagefind) {
      pagefind = import(bundle + "pagefind.js").then(function (pf) {
        // The records' URLs carry the base path already (/course/glossary/warp/); left to
        // itself Pagefind would put the bundle's parent folder (/course/) before them again.
        return pf.options({ excerptLength: 24, baseUrl: "/" }).then(function () {
          return fetch(bundle + "shards.json");
        }).then(function (response) {
          if (!response.ok) throw new Error("search shards: HTTP " + response.status);
          return response.json();
        }).then(function (shards) {
          return Promise.all(shards.map(function (s) { return pf.mergeIndex(bundle + s); }));
        }).then(function () { return pf; });
      });
    }
    return pagefind;
  }

  // Pagefind escapes its excerpts' text (&amp; &lt; &gt; &quot; &#39;) and adds <mark>.
  // Decoded by hand: parsing each piece as an HTML document dropped the spaces at its ends,
  // which ran words together around the marks ("bank0" for "bank 0").
  var ENTITIES = { amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'", nbsp: "\u00a0" };
  function decode(text) {
    return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, function (all, name) {
      if (name[0] === "#") {
        var code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
        return code > 0 && code < 0x110000 ? String.fromCodePoint(code) : all;
      }
      return Object.prototype.hasOwnProperty.call(ENTITIES, name) ? ENTITIES[name] : all;
    });
  }

  function excerpt(html) {
    var span = document.createElement("span");
    span.className = "hit-excerpt";
    html.split(/(<mark>|<\/mark>)/).reduce(function (marked, part) {
      if (part === "<mark>") return true;
      if (part === "</mark>") return false;
      var text = decode(part);
      if (marked) {
        var m = document.createElement("mark");
        m.textContent = text;
        span.appendChild(m);
      } else {
        span.appendChild(document.createTextNode(text));
      }
      return marked;
    }, false);
    return span;
  }

  function hit(data) {
    var li = document.createElement("li");
    var a = document.createElement("a");
    a.href = data.url;
    var title = document.createElement("span");
    title.className = "hit-title";
    title.textContent = (data.meta && data.meta.title) || data.url;
    a.appendChild(title);
    if (data.meta && data.meta.section) {
      var section = document.createElement("span");
      section.className = "hit-section";
      section.textContent = data.meta.section;
      a.appendChild(section);
    }
    if (data.meta && data.meta.draft) {
      var tag = document.createElement("span");
      tag.className = "draft-tag";
      tag.textContent = "draft";
      a.appendChild(document.createTextNode(" "));
      a.appendChild(tag);
    }
    a.appendChild(excerpt(data.excerpt || ""));
    li.appendChild(a);
    return li;
  }

  function search(bundle, query, limit) {
    return loadPagefind(bundle).then(function (pf) {
      return pf.search(query).then(function (found) {
        if (!found) return { total: 0, hits: [] };
        var first = found.results.slice(0, limit);
        return Promise.all(first.map(function (r) { return r.data(); })).then(function (hits) {
          return { total: found.results.length, hits: hits };
        });
      });
    });
  }

  function setupSearch() {
    var form = document.querySelector("form.search");
    var input = document.getElementById("search-input");
    var box = document.getElementById("search-results");
    if (!form || !input || !box) return;
    var bundle = form.getAttribute("data-bundle");
    var latest = 0;
    // The index is fetched as soon as the reader turns to the box (focus, a touch, the
    // pointer over it), not once they have typed: on a slow connection its files take
    // seconds, which the reader spends typing. The list of terms and titles comes too, so
    // the first results show at once while Pagefind searches the full text.
    var titles = null;
    function prefetch() {
      if (!titles) {
        var list = form.getAttribute("data-titles");
        titles = !list ? Promise.resolve([]) : fetch(list).then(function (r) {
          if (!r.ok) throw new Error("titles: HTTP " + r.status);
          return r.json();
        }).catch(function () { return []; });
        titles.then(function (t) {
          titles.loaded = t;
          form.setAttribute("data-prefetched", "titles");
          // On a slow network the list may arrive after the last key: show its matches now,
          // unless the full-text results are already there.
          if (!box.querySelector("ol") || box.hasAttribute("data-quick")) showQuick();
        });
        loadPagefind(bundle).then(function () { form.setAttribute("data-index-loaded", ""); }, function () {});
      }
      return titles;
    }
    ["focus", "pointerenter", "touchstart"].forEach(function (ev) {
      input.addEventListener(ev, prefetch, { passive: true });
    });
    function quick(q) {
      var list = titles && titles.loaded;
      if (!list) return [];
      var words = q.toLowerCase().split(/\s+/).filter(Boolean);
      return list.filter(function (t) {
        var text = (t.term + " " + t.title).toLowerCase();
        return words.every(function (w) { return text.indexOf(w) >= 0; });
      }).slice(0, 8).map(function (t) {
        return {
          url: t.href || t.url,
          meta: { title: t.term || t.title, section: t.section || "", draft: t.draft ? "draft" : "" },
          excerpt: (t.summary || "").replace(/&/g, "&amp;").replace(/</g, "&lt;")
        };
      });
    }
    function show(nodes) {
      box.removeAttribute("data-quick");
      box.replaceChildren.apply(box, nodes);
      box.hidden = nodes.length === 0;
    }
    function note(text) {
      var p = document.createElement("p");
      p.textContent = text;
      return p;
    }
    function run() {
      var q = input.value.trim();
      var ticket = (latest += 1);
      if (!q) return show([]);
      search(bundle, q, 8).then(function (res) {
        if (ticket !== latest) return;
        if (!res.hits.length) return show([note("No page matches “" + q + "”.")]);
        var ol = document.createElement("ol");
        res.hits.forEach(function (d) { ol.appendChild(hit(d)); });
        var nodes = [ol];
        if (res.total > res.hits.length) nodes.push(note(matches(res.total) + "; press Enter to see them all."));
        show(nodes);
      }, function () {
        if (ticket === latest) show([note("Search is not available: the index did not load.")]);
      });
    }
    // Terms and titles match at once; the full-text search replaces them when it answers.
    function showQuick() {
      var q = input.value.trim();
      var first = q ? quick(q) : [];
      if (!first.length) return;
      var ol = document.createElement("ol");
      first.forEach(function (d) { ol.appendChild(hit(d)); });
      show([ol, note("Searching the full text…")]);
      box.setAttribute("data-quick", "");
    }
    var timer = null;
    input.addEventListener("input", function () {
      clearTimeout(timer);
      prefetch();
      showQuick();
      // The full-text search waits for a pause in typing.
      timer = setTimeout(run, 120);
    });
    input.addEventListener("keydown", function (e) {
      if (e.key === "Escape") {
        input.value = "";
        show([]);
      } else if (e.key === "ArrowDown") {
        var first = box.querySelector("a");
        if (first) { e.preventDefault(); first.focus(); }
      }
    });
    box.addEventListener("keydown", function (e) {
      var links = Array.prototype.slice.call(box.querySelectorAll("a"));
      var i = links.indexOf(document.activeElement);
      if (i < 0) return;
      if (e.key === "ArrowDown" && i + 1 < links.length) { e.preventDefault(); links[i + 1].focus(); }
      if (e.key === "ArrowUp") { e.preventDefault(); (i > 0 ? links[i - 1] : input).focus(); }
      if (e.key === "Escape") { input.focus(); show([]); }
    });
    document.addEventListener("click", function (e) {
      if (!form.contains(e.target)) box.hidden = true;
    });

    // The search page lists every hit for ?q=.
    var list = document.getElementById("search-page-results");
    var status = document.getElementById("search-page-status");
    if (list && status) {
      var q = new URLSearchParams(window.location.search).get("q") || "";
      input.value = q;
      if (q.trim()) {
        status.textContent = "Searching…";
        search(bundle, q.trim(), 50).then(function (res) {
          status.textContent = res.total ? matches(res.total) + " “" + q + "”" + (res.total > 50 ? "; the first 50:" : ":") : "No page matches “" + q + "”.";
          res.hits.forEach(function (d) { list.appendChild(hit(d)); });
        }, function () {
          status.textContent = "Search is not available: the index did not load.";
        });
      } else {
        status.textContent = "Type a word into the search box above.";
      }
    }
  }

  // Term previews (WCAG 1.4.13, content on hover or focus). The stylesheet shows a preview
  // while its word is pointed at or focused from the keyboard, and while the pointer is on
  // the preview; this places it under the word (above it when it would not fit below), lets
  // Esc hide it without moving the focus, and on a touch screen makes a first tap on a
  // word show its preview and a second tap (on the word or the preview) follow the link.
  function setupTerms() {
    var links = document.querySelectorAll("main a.term");
    if (!links.length) return;
    var shown = null; // the link whose preview was last placed
    var tapped = null; // the link whose preview a tap opened
    var touch = false; // whether the last pointer down was a finger or a pen
    function tipOf(a) {
      var t = a.nextElementSibling;
      return t && t.classList.contains("tip") ? t : null;
    }
    // The preview at the line box of the word (a term may wrap; `y`: the pointer's line).
    function place(a, y) {
      var tip = tipOf(a);
      if (!tip) return;
      var rects = a.getClientRects();
      if (!rects.length) return;
      var r = rects[0];
      for (var i = 0; i < rects.length; i++) {
        if (y !== undefined && y >= rects[i].top && y <= rects[i].bottom) r = rects[i];
      }
      tip.classList.add("placed");
      var display = tip.style.display;
      tip.style.display = "block"; // measured before it shows: no paint happens in between
      var w = tip.offsetWidth, h = tip.offsetHeight, gap = 4, edge = 8;
      tip.style.display = display;
      var above = r.bottom + gap + h > window.innerHeight - edge && r.top - gap - h >= edge;
      tip.classList.toggle("above", above);
      tip.style.left = Math.max(edge, Math.min(r.left, window.innerWidth - w - edge)) + "px";
      tip.style.top = (above ? r.top - gap - h : r.bottom + gap) + "px";
      shown = a;
    }
    function close(a) {
      if (!a) return;
      a.classList.remove("tip-open");
      var on = tipOf(a) && tipOf(a).querySelector(".tip-on");
      if (on) on.remove();
      if (tapped === a) tapped = null;
    }
    links.forEach(function (a) {
      var tip = tipOf(a);
      if (!tip) return;
      a.addEventListener("pointerenter", function (e) {
        if (e.pointerType === "mouse") a.classList.remove("tip-off");
        place(a, e.clientY);
      });
      a.addEventListener("focus", function () {
        a.classList.remove("tip-off");
        place(a);
      });
      a.addEventListener("blur", function () { a.classList.remove("tip-off"); });
      a.addEventListener("click", function (e) {
        if (!touch || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey || tapped === a) return;
        e.preventDefault();
        close(tapped);
        tapped = a;
        a.classList.remove("tip-off");
        a.classList.add("tip-open");
        if (!tip.querySelector(".tip-on")) {
          var on = document.createElement("span");
          on.className = "tip-on";
          on.textContent = "Tap again to open the entry.";
          tip.appendChild(on);
        }
        place(a);
      });
      tip.addEventListener("click", function () {
        if (tapped === a) window.location.href = a.href;
      });
    });
    document.addEventListener("pointerdown", function (e) {
      touch = e.pointerType === "touch" || e.pointerType === "pen";
      if (tapped && !tapped.contains(e.target) && !tipOf(tapped).contains(e.target)) close(tapped);
    }, true);
    document.addEventListener("keydown", function (e) {
      if (e.key !== "Escape" || !shown) return;
      var tip = tipOf(shown);
      if (!tip || getComputedStyle(tip).display === "none") return;
      close(shown);
      shown.classList.add("tip-off");
    });
    // A placed preview is fixed to the window: it moves with its word.
    function follow() {
      if (!shown) return;
      var tip = tipOf(shown);
      if (tip && getComputedStyle(tip).display !== "none") place(shown);
    }
    window.addEventListener("scroll", follow, { passive: true, capture: true });
    window.addEventListener("resize", follow);
  }

  // Copying a formula copies its TeX (kept in the MathML's annotation), as `$…$` in running
  // text or `$$…$$` for a display, instead of one symbol a line; a selection inside one
  // formula copies all of it.
  function setupMathCopy() {
    if (!document.querySelector("main math")) return;
    function tex(m) {
      var a = m.querySelector("annotation[encoding='application/x-tex']");
      if (!a) return null;
      var d = m.getAttribute("display") === "block" ? "$$" : "$";
      return d + a.textContent + d;
    }
    document.addEventListener("copy", function (e) {
      var sel = window.getSelection();
      if (!sel || sel.isCollapsed || !sel.rangeCount || !e.clipboardData) return;
      var range = sel.getRangeAt(0);
      var node = range.commonAncestorContainer;
      var inside = (node.nodeType === 1 ? node : node.parentElement).closest("math");
      var text;
      if (inside) {
        text = tex(inside);
      } else {
        var box = document.createElement("div");
        box.appendChild(range.cloneContents());
        var maths = box.querySelectorAll("math");
        if (!maths.length) return;
        // Each formula the selection reaches, whole, by the one in the page it came from.
        var whole = [].filter.call(document.querySelectorAll("main math"), function (m) {
          return range.intersectsNode(m);
        });
        if (whole.length !== maths.length) return;
        maths.forEach(function (m, i) {
          m.replaceWith(document.createTextNode(tex(whole[i]) || m.textContent));
        });
        // innerText needs the copy laid out: off screen, for the moment of the copy.
        box.className = "visually-hidden";
        document.body.appendChild(box);
        text = box.innerText;
        box.remove();
      }
      if (!text) return;
      e.clipboardData.setData("text/plain", text);
      e.preventDefault();
    });
  }

  // "On this page" beside the text marks the section being read: the last heading whose
  // top has passed the upper third of the window (the first before any has).
  function setupContents() {
    var links = document.querySelectorAll(".toc-wide a[href^='#']");
    if (!links.length) return;
    var marks = [];
    links.forEach(function (a) {
      var h = document.getElementById(decodeURIComponent(a.getAttribute("href").slice(1)));
      if (h) marks.push({ link: a, heading: h });
    });
    var current = null, queued = false;
    function mark() {
      queued = false;
      var line = window.innerHeight / 3, here = marks[0];
      for (var i = 0; i < marks.length; i++) {
        if (marks[i].heading.getBoundingClientRect().top <= line) here = marks[i];
      }
      if (!here || here === current) return;
      if (current) current.link.removeAttribute("aria-current");
      here.link.setAttribute("aria-current", "location");
      current = here;
    }
    function queue() {
      if (!queued) { queued = true; window.requestAnimationFrame(mark); }
    }
    window.addEventListener("scroll", queue, { passive: true });
    window.addEventListener("resize", queue);
    queue(); // in the next frame: reading positions now would force a layout mid-load
  }

  // A folded category of a large index opens when a link (the table of contents) leads to it.
  function setupFolds() {
    function open() {
      var id = decodeURIComponent(window.location.hash.slice(1));
      var target = id && document.getElementById(id);
      if (target && target.tagName === "DETAILS" && !target.open) {
        target.open = true;
        target.scrollIntoView();
      }
    }
    window.addEventListener("hashchange", open);
    open();
  }

  function start() {
    setupTheme();
    setupNav();
    setupKeys();
    setupOverflow();
    setupDiagram();
    setupFolds();
    setupTerms();
    setupMathCopy();
    setupContents();
    setupSearch();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
