#!/usr/bin/env python3
"""The copy button in a real browser: builds a fixture site with the given coursegen binary,
serves it over HTTP, clicks each block's button in headless Chromium and checks that the
clipboard holds exactly the code (no line numbers, no prompts, no session output).

Usage: copy_button.py PATH/TO/coursegen   (exit 0: all good; 1: a mismatch; 2: set-up)
Chromium comes from the system (/usr/bin/chromium, or $CHROMIUM), Playwright from pip.
"""
import functools
import os
import http.server
import pathlib
import shutil
import subprocess
import sys
import tempfile
import threading

from playwright.sync_api import sync_playwright

REPO = pathlib.Path(__file__).resolve().parents[2]

BASH = 'cat <<EOF > run.sh\n$ not a prompt\nEOF\necho "a\\tb" 2>&1 | tee log\n'
PYTHON = "for i in range(3):\n    print(f'{i:>3}')\n"
SESSION = "$ nvcc -O3 -o k k.cu\n$ ./k --stride 32\nstride 32: 33.9 ms\n# apt install cmake\n"
# What each block's button must put on the clipboard, in page order.
EXPECTED = [
    BASH,
    PYTHON,
    "nvcc -O3 -o k k.cu\n./k --stride 32\napt install cmake\n",
    "int a;\nint b;\n",
]


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def page():
    fence = "```"
    return (
        "---\ntitle: Copy\n---\n\n"
        f"{fence}bash\n{BASH}{fence}\n\n"
        f"{fence}python {{linenos hl_lines=2}}\n{PYTHON}{fence}\n\n"
        f"{fence}console\n{SESSION}{fence}\n\n"
        f"{fence}cuda file=kernels/k.cu region=r linenos\n{fence}\n"
    )


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    binary = pathlib.Path(sys.argv[1]).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        shutil.copytree(REPO / "templates", root / "templates")
        shutil.copytree(REPO / "static", root / "static")
        (root / "content/glossary").mkdir(parents=True)
        (root / "kernels").mkdir()
        (root / "kernels/k.cu").write_text("// [region r]\n    int a;\n    int b;\n// [end r]\n")
        (root / "content/glossary/copy.md").write_text(page())
        subprocess.run([binary, "build", "--drafts", "--root", root], check=True)
        handler = functools.partial(Quiet, directory=str(root / "public"))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        origin = f"http://127.0.0.1:{server.server_address[1]}"
        try:
            return check(origin)
        finally:
            server.shutdown()


def check(origin):
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    failures = 0
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium)
        context = browser.new_context()
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=origin)
        tab = context.new_page()
        errors = []
        tab.on("pageerror", lambda e: errors.append(str(e)))
        tab.goto(f"{origin}/glossary/copy/")
        buttons = tab.locator("button.copy-code")
        count = buttons.count()
        if count != len(EXPECTED):
            print(f"expected {len(EXPECTED)} copy buttons, found {count}", file=sys.stderr)
            failures += 1
        for k in range(min(count, len(EXPECTED))):
            buttons.nth(k).click()
            got = tab.evaluate("navigator.clipboard.readText()")
            if got != EXPECTED[k]:
                print(f"block {k}: copied {got!r}, expected {EXPECTED[k]!r}", file=sys.stderr)
                failures += 1
        if errors:
            print(f"page errors: {errors}", file=sys.stderr)
            failures += 1
        browser.close()
    print(f"copy button: {failures} problem(s) in {len(EXPECTED)} blocks")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
