#!/usr/bin/env python3
"""Loads `coursegen serve` pages in Chromium and checks the Content-Security-Policy does
what the README says: the preview's reload script runs (the page reloads after an edit),
the stylesheet applies, and the browser reports no CSP violation. Also checks that an
inline script a template might carry is blocked.

    python3 tests/browser/preview_csp.py [path/to/coursegen]

Needs Python playwright and a Chromium (`/usr/bin/chromium` by default, or $CHROMIUM).
"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.argv[1] if len(sys.argv) > 1 else REPO / "target/release/coursegen")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")

ENTRY = """---
title: Warp
status: draft
---
Version {n}. [bad](javascript:alert(1)) and <img src="https://127.0.0.1:9/x.png" onerror="window.pwned=1">

| a | b |
|:--|--:|
| 1 | 2 |
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    site = Path(tempfile.mkdtemp(prefix="coursegen-csp-"))
    shutil.copytree(REPO / "templates", site / "templates")
    shutil.copytree(REPO / "static", site / "static")
    entry = site / "content/glossary/warp.md"
    entry.parent.mkdir(parents=True)
    entry.write_text(ENTRY.format(n=1))
    port = free_port()
    server = subprocess.Popen(
        [BIN, "serve", "--root", site, "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    failures = []
    try:
        url = f"http://127.0.0.1:{port}/glossary/warp/"
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page()
            violations = []
            page.on("console", lambda m: "Content Security Policy" in m.text and violations.append(m.text))
            for _ in range(100):  # until the first build is served
                try:
                    if page.goto(url).ok:
                        break
                except Exception:
                    pass
                time.sleep(0.2)
            if "Version 1." not in page.content():
                server.terminate()
                sys.exit("FAIL: the page did not load; serve said:\n" + server.communicate()[0].decode())
            align = page.evaluate("getComputedStyle(document.querySelector('td.align-right')).textAlign")
            if align != "right":
                failures.append(f"style.css did not apply (td.align-right is {align!r})")
            if page.evaluate("window.pwned") is not None:
                failures.append("content script ran")
            # The reload script polls every second and compares with its first answer, so
            # let it take that first answer before editing.
            page.wait_for_timeout(2500)
            entry.write_text(ENTRY.format(n=2))
            # Polled from here: wait_for_function evaluates in the page, which the CSP forbids.
            for _ in range(60):
                page.wait_for_timeout(250)
                try:
                    if "Version 2." in page.content():
                        break
                except Exception:
                    pass  # mid-navigation
            else:
                failures.append("the page did not reload after an edit (reload script blocked?)")
            if violations:
                failures.append("CSP violations: " + "; ".join(violations))
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
        shutil.rmtree(site, ignore_errors=True)
    if failures:
        print("serve said:\n" + server.communicate()[0].decode())
        print("FAIL:\n  " + "\n  ".join(failures))
        sys.exit(1)
    print("ok: preview reloads under the CSP, styles apply, no violations, no content script")


if __name__ == "__main__":
    main()
