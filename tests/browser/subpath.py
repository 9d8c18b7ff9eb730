#!/usr/bin/env python3
"""Sub-path hosting in a real browser: serve a coursegen build under /course/ (as a GitHub
Pages project site is served) and load every page in headless Chromium. A page passes when
no request it makes fails (styles, scripts, images, search index...), every same-site link
on it answers 200, every image has pixels and its stylesheets applied.

    python3 tests/browser/subpath.py --coursegen target/release/coursegen [--site DIR:/course/]

Without --site it builds a fixture course (the repository's content plus pages with images,
raw HTML links, a section intro and a day page) for https://example.org/course/, preview and
publish builds both. --site DIR:PATH checks a build made elsewhere (e.g. by .ci/preview),
served under PATH. Exits 1 listing every failure. Needs Playwright (PyPI) and Chromium
(/usr/bin/chromium when present, else Playwright's own).
"""
import argparse
import functools
import http.server
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import urllib.parse
from pathlib import Path

from playwright.sync_api import sync_playwright

REPO = Path(__file__).resolve().parents[2]
BASE_URL = "https://example.org/course/"
SIGNED = (
    "status: published\nbyline:\n  written_by: Ada Lovelace\n  reviewed_by: Grace Hopper\n"
    "  written_on: 2026-11-01\n  last_checked_on: 2026-11-20\n"
)
# A 4x4 red PNG.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000040000000408020000002693092900000010494441"
    "54789c63f8cfc000470cc47100ae930ff1d05f239e0000000049454e44ae426082"
)


def entry(title, extra, body):
    return (
        f"---\ntitle: {title}\nterm: {title}\ncategory: Memory\ncc: \"8.0\"\nsummary: A term.\n"
        f"sources:\n  - title: Guide\n    url: https://docs.nvidia.com/\n{extra}{SIGNED}---\n\n{body}\n"
    )


def fixture(root: Path):
    """The repository's course plus pages that use every kind of link and image."""
    for part in ["content", "templates", "static", "kernels", "measurements"]:
        if (REPO / part).exists():
            shutil.copytree(REPO / part, root / part)
    (root / "coursegen.toml").write_text(
        f'title = "Sub-path course"\nbase_url = "{BASE_URL}"\n'
        'repository = "https://github.com/example/course"\n'
        '[links]\nexternal_prefixes = ["/docs/"]\n'
    )
    g = root / "content/glossary"
    (g / "lane-map.png").write_bytes(PNG)
    (g / "lane.md").write_text(entry(
        "Lane",
        "related: [thread-block]\nappears_in: [day-1]\ndiagram:\n  preset: lane-banks\n  stride: 2\n  alt: Lanes at stride 2.\n",
        "One of 32 threads. See [the block](/glossary/thread-block/), [its page](../thread-block/),"
        " [home](/), [day one](/days/day-1/), [docs](/docs/) and ![a map](/glossary/lane-map.png)"
        " and ![again](../lane-map.png).\n\n"
        '<p><a href="/glossary/">index</a> <img src="/glossary/lane-map.png" alt="map"></p>',
    ))
    (g / "thread-block.md").write_text(entry(
        "Thread block", "related: [lane]\n", "Groups lanes. Back to [lanes](/glossary/lane/#byline)."
    ))
    (root / "content/about.md").write_text(entry(
        "About", "", "The [glossary](/glossary/), the [search index](/search-index.json)."
    ))
    (root / "content/days/day-1.md").write_text(
        f"---\ntitle: Day 1\n{SIGNED}---\n\nRead about [lanes](/glossary/lane/).\n"
    )


class Handler(http.server.SimpleHTTPRequestHandler):
    """Serves `directory` under `prefix` only; anything else is a 404, as on Pages."""

    prefix = "/course/"

    def send_head(self):
        if not urllib.parse.urlsplit(self.path).path.startswith(self.prefix):
            self.send_error(404, "outside the site's base path")
            return None
        return super().send_head()

    def translate_path(self, path):
        path = urllib.parse.urlsplit(path).path
        return super().translate_path("/" + path[len(self.prefix):])

    def log_message(self, *args):
        pass


def serve(directory: Path, prefix: str):
    handler = type("H", (Handler,), {"prefix": prefix})
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(directory))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}"


def pages_of(directory: Path, prefix: str):
    for f in sorted(directory.rglob("*.html")):
        rel = f.relative_to(directory).as_posix()
        yield prefix + (rel[: -len("index.html")] if rel.endswith("index.html") else rel)


CHECK_PAGE = """() => ({
  links: [...document.querySelectorAll('a[href]')].map(a => a.href),
  brokenImages: [...document.images].filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src),
  sheets: [...document.querySelectorAll('link[rel=stylesheet]')].map(l => [l.href, !!l.sheet]),
  styled: getComputedStyle(document.body).fontFamily,
})"""


def check_site(browser, directory: Path, prefix: str, label: str, external=()):
    """Loads every page of the build in `directory` served under `prefix`; returns failures."""
    server, origin = serve(directory, prefix)
    failures, seen_links, pages = [], set(), 0
    context = browser.new_context()
    # Nothing outside the local server is fetched (no network in CI, and none is needed).
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(origin) else route.abort())
    page = context.new_page()
    current = {}
    page.on("requestfailed", lambda r: r.url.startswith(origin) and failures.append(
        f"{label} {current['url']}: request failed: {r.url} ({r.failure})"))
    page.on("response", lambda r: r.status >= 400 and failures.append(
        f"{label} {current['url']}: HTTP {r.status} for {r.url}"))
    page.on("console", lambda m: m.type == "error" and failures.append(
        f"{label} {current['url']}: console error: {m.text}"))
    try:
        for path in pages_of(directory, prefix):
            if path.endswith("404.html"):
                continue  # served by the host for missing pages, not linked
            pages += 1
            current["url"] = path
            page.goto(origin + path, wait_until="load")
            facts = page.evaluate(CHECK_PAGE)
            for src in facts["brokenImages"]:
                failures.append(f"{label} {path}: image did not load: {src}")
            for href, loaded in facts["sheets"]:
                if not loaded:
                    failures.append(f"{label} {path}: stylesheet not applied: {href}")
            if not facts["sheets"]:
                failures.append(f"{label} {path}: no stylesheet")
            for link in facts["links"]:
                url = link.split("#")[0]
                if not url.startswith(origin) or url in seen_links:
                    continue
                seen_links.add(url)
                link_path = urllib.parse.urlsplit(url).path
                if any(link_path.startswith(e) for e in external):
                    continue  # links.external_prefixes: same domain, outside the site
                if not link_path.startswith(prefix):
                    failures.append(f"{label} {path}: link leaves {prefix}: {link}")
                    continue
                status = context.request.get(url).status
                if status != 200:
                    failures.append(f"{label} {path}: link answers {status}: {link}")
    finally:
        context.close()
        server.shutdown()
    print(f"{label}: {pages} pages and {len(seen_links)} same-site links checked under {prefix}")
    if pages == 0:
        failures.append(f"{label}: no pages in {directory}")
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--coursegen", help="the coursegen binary (builds the fixture course)")
    ap.add_argument("--site", action="append", default=[], metavar="DIR:PATH",
                    help="check a build made elsewhere, served under PATH (e.g. _site:/course/)")
    args = ap.parse_args()
    sites, tmp = [], tempfile.mkdtemp(prefix="coursegen-subpath-")
    try:
        if args.coursegen:
            root = Path(tmp) / "site"
            fixture(root)
            for mode, flags in [("preview", ["--drafts"]), ("publish", [])]:
                out = Path(tmp) / mode
                cmd = [args.coursegen, "build", *flags, "--root", str(root), "--out", str(out)]
                done = subprocess.run(cmd, capture_output=True, text=True)
                if done.returncode != 0:
                    sys.exit(f"{' '.join(cmd)} failed:\n{done.stderr}")
                sites.append((out, "/course/", f"fixture {mode}", ["/docs/"]))
        for spec in args.site:
            directory, _, prefix = spec.rpartition(":")
            prefix = "/" + prefix.strip("/") + "/" if prefix.strip("/") else "/"
            sites.append((Path(directory), prefix, directory, []))
        if not sites:
            ap.error("give --coursegen, --site or both")
        failures = []
        with sync_playwright() as p:
            chromium = "/usr/bin/chromium"
            browser = p.chromium.launch(executable_path=chromium if os.path.exists(chromium) else None)
            for directory, prefix, label, external in sites:
                failures += check_site(browser, directory, prefix, label, external)
            browser.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print("FAIL", f)
    if failures:
        sys.exit(1)
    print("sub-path browser check: no failed request on any page")


if __name__ == "__main__":
    main()
