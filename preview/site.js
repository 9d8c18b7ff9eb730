// coursegen's page script: theme menu, sidebar toggle on phones, arrow keys for
// previous/next, scroll cues on wide tables, and search over the Pagefind index.
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
    button.hidden = false;
    button.addEventListener("click", function () {
      var open = nav.classList.toggle("open");
      button.setAttribute("aria-expanded", open ? "true" : "false");
      if (open) {
        var current = nav.querySelector("[aria-current=page]") || nav.querySelector("a");
        if (current) current.focus();
      }
    });
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
      // A focused table or code block scrolls sideways with the arrows instead.
      if (e.target.closest && e.target.closest("table, pre, .search-results")) return;
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

  // Wide tables and code blocks: focusable (so a keyboard can scroll them) and, for tables,
  // a visible "scroll sideways" cue, only when they really overflow.
  function setupOverflow() {
    var blocks = document.querySelectorAll("main table, main pre");
    function check() {
      blocks.forEach(function (el) {
        var over = el.scrollWidth > el.clientWidth + 1;
        el.classList.toggle("overflows", over);
        if (over) {
          el.setAttribute("tabindex", "0");
          if (el.tagName === "TABLE") {
            el.setAttribute("aria-describedby", cue(el).id);
          }
        } else if (el.getAttribute("tabindex") === "0") {
          el.removeAttribute("tabindex");
        }
      });
    }
    var n = 0;
    function cue(table) {
      var next = table.nextElementSibling;
      if (next && next.classList.contains("scroll-cue")) return next;
      var p = document.createElement("p");
      p.className = "scroll-cue";
      p.id = "scroll-cue-" + (n += 1);
      p.textContent = "Scroll sideways for more columns →";
      table.insertAdjacentElement("afterend", p);
      return p;
    }
    check();
    window.addEventListener("resize", check);
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

  function excerpt(html) {
    var span = document.createElement("span");
    span.className = "hit-excerpt";
    html.split(/(<mark>|<\/mark>)/).reduce(function (marked, part) {
      if (part === "<mark>") return true;
      if (part === "</mark>") return false;
      var text = new DOMParser().parseFromString(part, "text/html").documentElement.textContent;
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
    function show(nodes) {
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
        if (res.total > res.hits.length) nodes.push(note(res.total + " pages match; press Enter to see them all."));
        show(nodes);
      }, function () {
        if (ticket === latest) show([note("Search is not available: the index did not load.")]);
      });
    }
    var timer = null;
    input.addEventListener("input", function () {
      clearTimeout(timer);
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
          status.textContent = res.total ? res.total + " pages match “" + q + "”" + (res.total > 50 ? "; the first 50:" : ":") : "No page matches “" + q + "”.";
          res.hits.forEach(function (d) { list.appendChild(hit(d)); });
        }, function () {
          status.textContent = "Search is not available: the index did not load.";
        });
      } else {
        status.textContent = "Type a word into the search box above.";
      }
    }
  }

  function start() {
    setupTheme();
    setupNav();
    setupKeys();
    setupOverflow();
    setupSearch();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
