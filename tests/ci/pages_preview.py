#!/usr/bin/env python3
"""The course preview's deployment, as a dry run: git only, no network, no GitHub.

    python3 tests/ci/pages_preview.py --coursegen target/release/coursegen

A copy of this repository's course (one entry signed, so the publish build has a page) is
built by .ci/preview and handed to .ci/preview-deploy as the preview workflow's artifacts
would be, with a stand-in `gh` (tests/ci/gh-stub) and a local bare repository standing in
for the gh-pages branch: main (publish build at the root, preview under preview/), then pull
request 3 (an edited draft) and pull request 4, from a fork (a new draft, and a comment line
in a kernel that makes its records stale). Then it checks:

- the root is the publish build, byte for byte: no draft page, no link to a draft, and no
  noindex added; every page under preview/ and pr-preview/ carries noindex; robots.txt
  disallows both under the base path; .nojekyll is there;
- stale records cost pull request 4 no preview (its page says they are stale), while its
  publish build fails as before;
- each site, served under its own sub-path of /course/ as Pages serves the branch, loads in
  headless Chromium with no failed request, its styles applied, every same-site link inside
  its own folder answering 200, and search finding its own pages (and not the other's);
- each pull request got one comment with its live address and its drafts;
- closing pull request 3 removes pr-preview/pr-3/ and nothing else, and updates its comment;
- the deploy refuses an artifact that names another pull request, a fork run posing as
  this repository, a dispatch from a feature branch, a main run that is no longer main's
  head, and a site holding a symbolic link; three deploys pushed at once all land.

Exits 1 listing every failure. Needs git, jq, Playwright (PyPI) and Chromium.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests/browser"))
import subpath  # noqa: E402  (serve, CHECK_PAGE: the sub-path browser check's helpers)

BASE = "https://example.org/course/"
PREFIX = "/course/"
OWNER_REPO = "example/course"
FORK_REPO = "someone/course"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
QUOKKA = """---
title: What is a quokka tile?
term: Quokka tile
category: Memory
cc: "8.0"
summary: A made-up term that only one pull request's preview has.
sources:
  - title: CUDA C++ Programming Guide
    url: https://docs.nvidia.com/cuda/cuda-c-programming-guide/
status: draft
byline:
  written_by: pending
  reviewed_by: pending
  written_on: pending
  last_checked_on: pending
---

The quokka tile exists in the preview of one pull request only.
"""

failures = []


def check(ok, message):
    if not ok:
        failures.append(message)
    return ok


def run(cmd, cwd, env=None, ok=(0,), quiet=False):
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode not in ok:
        sys.exit(f"{' '.join(map(str, cmd))} exited {done.returncode} in {cwd}:\n{done.stdout}\n{done.stderr}")
    if not quiet and done.stdout.strip():
        print("   ", done.stdout.strip().replace("\n", "\n    "))
    return done


def git(*args, cwd):
    return run(["git", *args], cwd, quiet=True).stdout.strip()


class World:
    """The course checkout, the bare gh-pages remote, the gh stub's state, the environment."""

    def __init__(self, tmp: Path, coursegen: str):
        self.tmp, self.course, self.remote = tmp, tmp / "course", tmp / "pages.git"
        self.stub = tmp / "gh"
        bindir = tmp / "bin"
        for d in (self.stub / "pulls", self.stub / "commits", bindir):
            d.mkdir(parents=True)
        shutil.copy(REPO / "tests/ci/gh-stub", bindir / "gh")
        (bindir / "gh").chmod(0o755)
        ignore = shutil.ignore_patterns(".nvrtc", "node_modules", "__pycache__")
        for part in [".ci", "content", "templates", "static", "kernels", "measurements"]:
            shutil.copytree(REPO / part, self.course / part, ignore=ignore)
        shutil.copy(REPO / ".gitignore", self.course / ".gitignore")
        git("init", "-q", "-b", "main", ".", cwd=self.course)
        git("init", "-q", "--bare", str(self.remote), cwd=tmp)
        self.env = dict(
            os.environ, PATH=f"{bindir}:{os.environ['PATH']}", GH_STUB_DIR=str(self.stub),
            COURSEGEN=str(Path(coursegen).resolve()), COURSE_BASE_URL=BASE,
            GITHUB_REPOSITORY=OWNER_REPO, PAGES_REMOTE=str(self.remote), PAGES_RETRY_SECONDS="0",
            GIT_AUTHOR_NAME="Test", GIT_AUTHOR_EMAIL="test@example.org",
            GIT_COMMITTER_NAME="Test", GIT_COMMITTER_EMAIL="test@example.org",
        )
        for k in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "PREVIEW_PATH", "OUT", "PAGES_TOKEN", "PAGES_BRANCH", "GH_TOKEN"):
            self.env.pop(k, None)

    def commit(self, message):
        run(["git", "add", "-A"], self.course, self.env)
        run(["git", "commit", "-q", "-m", message], self.course, self.env)
        return git("rev-parse", "HEAD", cwd=self.course)

    def build(self, name, pr=None, action="deploy", publish_site=False, expect_publish=0):
        """What one run of preview.yml uploads: pages-meta, the sites, the summaries."""
        art = self.tmp / "artifacts" / name
        sha = git("rev-parse", "HEAD", cwd=self.course)
        env = dict(self.env, PR=str(pr or ""), ACTION=action, SHA=sha)
        run([".ci/preview-meta", str(art / "pages-meta/meta")], self.course, env)
        if action == "deploy":
            path = f"pr-preview/pr-{pr}/" if pr else "preview/"
            done = run([".ci/preview", "preview"], self.course, dict(env, PREVIEW_PATH=path), quiet=True)
            self.last_preview_stderr = done.stderr
            run([".ci/preview", "publish"], self.course, env, ok=(expect_publish,), quiet=True)
            # upload-artifact leaves hidden files out (include-hidden-files: false).
            copy = shutil.ignore_patterns(".*")
            shutil.copytree(self.course / "_site", art / "pages-site-preview", ignore=copy)
            if publish_site:
                shutil.copytree(self.course / "_publish", art / "pages-site-publish", ignore=copy)
            for kind, f in [("preview", "_site.summary.md"), ("publish", "_publish.summary.md")]:
                (art / f"pages-summary-{kind}").mkdir()
                shutil.copy(self.course / f, art / f"pages-summary-{kind}" / f)
        return art, sha

    def pull(self, number, sha, repo=OWNER_REPO, state="open"):
        (self.stub / "pulls" / f"{number}.json").write_text(json.dumps(
            {"number": number, "state": state, "head": {"sha": sha, "repo": {"full_name": repo}}}))

    def deploy(self, art, event, sha, repo=OWNER_REPO, branch="main", ok=(0,)):
        env = dict(self.env, RUN_EVENT=event, RUN_HEAD_SHA=sha, RUN_HEAD_REPO=repo,
                   RUN_HEAD_BRANCH=branch, DEFAULT_BRANCH="main",
                   RUN_URL="https://github.com/example/course/actions/runs/1")
        return run([".ci/preview-deploy", str(art)], self.course, env, ok=ok)

    def tip(self):
        return git("rev-parse", "--verify", "-q", "refs/heads/gh-pages", cwd=self.remote)

    def tree(self, path=""):
        return git("rev-parse", f"refs/heads/gh-pages:{path}", cwd=self.remote)

    def checkout_pages(self):
        pages = self.tmp / "pages"
        shutil.rmtree(pages, ignore_errors=True)
        git("clone", "-q", "-b", "gh-pages", str(self.remote), str(pages), cwd=self.tmp)
        return pages

    def comments(self, issue):
        path = self.stub / "comments.json"
        return [c for c in json.loads(path.read_text()) if c["issue"] == issue] if path.exists() else []


def draft_urls(summary: Path):
    """The site paths of the drafts a summary lists (| content\\/glossary\\/x\\.md | why |)."""
    urls = set()
    for line in summary.read_text().splitlines():
        m = re.match(r"\| (content\\/\S+?\\\.md) \|", line)
        if m:
            rel = re.sub(r"\\(.)", r"\1", m.group(1))[len("content/"):-len(".md")]
            urls.add("/" + rel + "/")
    return urls


def html_pages(site: Path, skip=()):
    for f in sorted(site.rglob("*.html")):
        rel = f.relative_to(site).as_posix()
        if not any(rel.startswith(s) for s in skip):
            yield f, rel


def hrefs(html: str):
    return re.findall(r"""<a\b[^>]*\bhref=["']([^"']*)["']""", html)


def check_root(pages: Path, publish: Path, drafts):
    print("-- the root is the publish build")
    skip = ("preview/", "pr-preview/")
    expected = {p.relative_to(publish).as_posix() for p in publish.rglob("*") if p.is_file()}
    actual = {p.relative_to(pages).as_posix() for p in pages.rglob("*") if p.is_file()
              and not p.relative_to(pages).as_posix().startswith(skip + (".git/",))}
    # The deploy adds .nojekyll, and its block to the publish build's robots.txt (kept first).
    check(actual - {".nojekyll"} == expected | {"robots.txt"},
          f"root files differ from the publish build: extra {sorted(actual - expected - {'.nojekyll'})[:5]}, missing {sorted(expected - actual)[:5]}")
    for rel in sorted(expected & actual - {"robots.txt"}):
        check((pages / rel).read_bytes() == (publish / rel).read_bytes(), f"root {rel} differs from the publish build's")
    if (publish / "robots.txt").is_file():
        check((pages / "robots.txt").read_bytes().startswith((publish / "robots.txt").read_bytes()),
              "the root robots.txt does not keep the publish build's first")
    check(len(drafts) >= 5, f"expected the course's drafts in the summary, found {sorted(drafts)}")
    for url in drafts:
        check(not (pages / url.strip("/") / "index.html").exists(), f"a draft is published at the root: {url}")
    published = 0
    for f, rel in html_pages(pages, skip):
        html = f.read_text()
        published += rel == "glossary/warp/index.html"
        for href in hrefs(html):
            path = urllib.parse.urlsplit(urllib.parse.urljoin(PREFIX + rel, href)).path
            for url in drafts:
                check(path.rstrip("/") + "/" != PREFIX + url.lstrip("/") and not path.startswith(PREFIX + url.lstrip("/")),
                      f"root {rel} links to the draft {url}: {href}")
            check("preview/" not in path, f"root {rel} links into a preview: {href}")
    check(published == 1, "the signed entry /glossary/warp/ is not at the root")
    robots = (pages / "robots.txt").read_text()
    for line in ["User-agent: *", f"Disallow: {PREFIX}preview/", f"Disallow: {PREFIX}pr-preview/",
                 f"Sitemap: {BASE}sitemap.xml"]:
        check(line in robots.splitlines(), f"robots.txt lacks `{line}`:\n{robots}")
    check((pages / ".nojekyll").is_file(), "no .nojekyll at the root")


def check_noindex(pages: Path):
    print("-- every preview page carries noindex")
    for sub in ["preview", "pr-preview/pr-3", "pr-preview/pr-4"]:
        done = subprocess.run([sys.executable, str(REPO / ".ci/noindex"), "--check", str(pages / sub)],
                              capture_output=True, text=True)
        check(done.returncode == 0, f"{sub}: {done.stderr.strip() or done.stdout.strip()}")
        # Drafts carried it from the build; the rest got it from the deploy, once.
        for f, rel in html_pages(pages / sub):
            n = f.read_text().count('name="robots"')
            check(n == 1, f"{sub}/{rel} has {n} robots tags")


SEARCH_API = """async ([root, word]) => {
    const pf = await import(root + 'pagefind/pagefind.js');
    const shards = await (await fetch(root + 'pagefind/shards.json')).json();
    await Promise.all(shards.map(s => pf.mergeIndex(root + 'pagefind/' + s)));
    const found = await pf.search(word);
    return (await Promise.all(found.results.map(r => r.data()))).map(d => d.url);
}"""


def check_site(context, origin, pages: Path, sub: str, found, absent):
    """Every page of the site in `pages/sub` served at /course/sub; search for words."""
    prefix = PREFIX + sub
    label = sub or "(root)"
    skip = ("preview/", "pr-preview/") if not sub else ()
    page = context.new_page()
    current = {}
    page.on("requestfailed", lambda r: r.url.startswith(origin) and r.failure != "net::ERR_ABORTED" and failures.append(
        f"{label} {current.get('url')}: request failed: {r.url} ({r.failure})"))
    page.on("response", lambda r: r.status >= 400 and failures.append(
        f"{label} {current.get('url')}: HTTP {r.status} for {r.url}"))
    page.on("console", lambda m: m.type == "error" and failures.append(
        f"{label} {current.get('url')}: console error: {m.text}"))
    seen, count = set(), 0
    for _, rel in html_pages(pages / sub, skip):
        if rel == "404.html":
            continue
        url = prefix + (rel[: -len("index.html")] if rel.endswith("index.html") else rel)
        current["url"] = url
        count += 1
        page.goto(origin + url, wait_until="load")
        facts = page.evaluate(subpath.CHECK_PAGE)
        check(facts["sheets"] and all(ok for _, ok in facts["sheets"]), f"{label} {url}: stylesheets not applied: {facts['sheets']}")
        for src in facts["brokenImages"]:
            failures.append(f"{label} {url}: image did not load: {src}")
        for link in facts["links"]:
            target = link.split("#")[0]
            if not target.startswith(origin) or target in seen:
                continue
            seen.add(target)
            path = urllib.parse.urlsplit(target).path
            if not check(path.startswith(prefix), f"{label} {url}: link leaves {prefix}: {link}"):
                continue
            if not sub and path.startswith((PREFIX + "preview/", PREFIX + "pr-preview/")):
                failures.append(f"{label} {url}: the public site links into a preview: {link}")
            status = context.request.get(target).status
            check(status == 200, f"{label} {url}: link answers {status}: {link}")
    current["url"] = prefix + " (search)"
    page.goto(origin + prefix, wait_until="load")
    for word, expect in found.items():
        page.fill("#search-input", "")
        page.fill("#search-input", word)
        try:
            page.wait_for_selector("#search-results a", timeout=15000)
        except Exception:  # noqa: BLE001 (playwright's TimeoutError)
            failures.append(f"{label}: the search box found nothing for {word!r}")
            continue
        shown = page.eval_on_selector_all("#search-results a", "els => els.map(e => new URL(e.href).pathname)")
        check(all(h.startswith(prefix) for h in shown), f"{label}: search results leave {prefix}: {shown}")
        check(prefix + expect.lstrip("/") in shown, f"{label}: searching {word!r} shows {shown}, not {prefix + expect.lstrip('/')}")
        if shown:
            check(context.request.get(origin + shown[0]).status == 200, f"{label}: search result {shown[0]} does not load")
    for word in absent:
        urls = page.evaluate(SEARCH_API, [prefix, word])
        check(not urls, f"{label}: searching {word!r} finds {urls}, which belong to another preview")
    page.close()
    print(f"   {label}: {count} pages, {len(seen)} same-site links, search for {sorted(found)} under {prefix}")
    check(count > 3, f"{label}: only {count} pages")


def check_browser(pages: Path):
    print("-- each site in headless Chromium, under its own sub-path")
    from playwright.sync_api import sync_playwright
    server, origin = subpath.serve(pages, PREFIX)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM if os.path.exists(CHROMIUM) else None)
            context = browser.new_context()
            context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(origin) else route.abort())
            check_site(context, origin, pages, "", {"warp": "/glossary/warp/"}, ["okapi", "quokka"])
            check_site(context, origin, pages, "preview/", {"bank": "/glossary/bank-conflict/"}, ["okapi", "quokka"])
            check_site(context, origin, pages, "pr-preview/pr-3/", {"okapi": "/glossary/bank-conflict/"}, ["quokka"])
            check_site(context, origin, pages, "pr-preview/pr-4/", {"quokka": "/glossary/quokka-tile/"}, ["okapi"])
            browser.close()
    finally:
        server.shutdown()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--coursegen", required=True)
    ap.add_argument("--no-browser", action="store_true", help="skip the Chromium part")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="coursegen-pages-"))
    try:
        w = World(tmp, args.coursegen)
        print("-- main: one entry signed; publish build at the root, preview under preview/")
        run([w.env["COURSEGEN"], "sign", "content/glossary/warp.md", "--reviewer", "Grace Hopper",
             "--author", "Ada Lovelace", "--publish"], w.course, w.env)
        main_sha = w.commit("main")
        (w.stub / "commits/main.json").write_text(json.dumps({"sha": main_sha}))
        art_main, _ = w.build("main", publish_site=True)
        publish = art_main / "pages-site-publish"
        drafts = draft_urls(art_main / "pages-summary-preview/_site.summary.md")
        w.deploy(art_main, "push", main_sha)

        print("-- pull request 3 (this repository): an edited draft")
        git("switch", "-q", "-c", "pr-3", cwd=w.course)
        entry = w.course / "content/glossary/bank-conflict.md"
        entry.write_text(entry.read_text() + "\nAn okapi would make the same point.\n")
        sha3 = w.commit("pr 3")
        art3, _ = w.build("pr3", pr=3)
        w.pull(3, sha3)
        w.deploy(art3, "pull_request", sha3, branch="pr-3")

        print("-- pull request 4 (a fork): a new draft, and a comment line in a kernel")
        git("switch", "-q", "-c", "pr-4", "main", cwd=w.course)
        (w.course / "content/glossary/quokka-tile.md").write_text(QUOKKA)
        kernel = w.course / "kernels/bank_conflicts.cu"
        kernel.write_text(kernel.read_text() + "// one more comment line\n")
        sha4 = w.commit("pr 4")
        art4, _ = w.build("pr4", pr=4, expect_publish=1)
        check("is stale" in w.last_preview_stderr, "the preview did not warn about the stale records")
        check("failed" in (art4 / "pages-summary-publish/_publish.summary.md").read_text(),
              "the publish build of stale records did not fail")
        w.pull(4, sha4, repo=FORK_REPO)
        w.deploy(art4, "pull_request", sha4, repo=FORK_REPO, branch="main")

        pages = w.checkout_pages()
        check_root(pages, publish, drafts)
        check_noindex(pages)
        check("stale-record" in (pages / "pr-preview/pr-4/glossary/shared-memory-bank/index.html").read_text(),
              "pull request 4's preview does not say its records are stale")
        for n, word in [(3, "bank\\-conflict"), (4, "quokka")]:
            cs = w.comments(n)
            check(len(cs) == 1, f"pull request {n} has {len(cs)} preview comments")
            body = cs[0]["body"] if cs else ""
            check(f"{BASE}pr-preview/pr-{n}/" in body, f"the comment on {n} lacks its live address:\n{body}")
            check(word in body, f"the comment on {n} does not list its drafts ({word}):\n{body}")
        if not args.no_browser:
            check_browser(pages)

        print("-- closing pull request 3 removes its folder alone")
        before = {p: w.tree(p) for p in ["preview", "pr-preview/pr-4", "index.html", "glossary", "robots.txt"]}
        w.pull(3, sha3, state="closed")
        git("switch", "-q", "pr-3", cwd=w.course)
        art3c, _ = w.build("pr3-closed", pr=3, action="remove")
        w.deploy(art3c, "pull_request", sha3, branch="pr-3")
        check(git("ls-tree", "--name-only", "refs/heads/gh-pages:pr-preview", cwd=w.remote).split() == ["pr-4"],
              "pr-preview/ should hold pr-4 alone after closing 3")
        check(before == {p: w.tree(p) for p in before}, "closing pull request 3 changed other folders")
        cs = w.comments(3)
        check(len(cs) == 1 and "removed" in cs[0]["body"], f"the comment on 3 was not updated: {cs}")

        print("-- what the deploy refuses")
        tip = w.tip()
        # An artifact of pull request 4's run naming pull request 4, from a run of another commit.
        w.deploy(art4, "pull_request", sha3, repo=FORK_REPO, branch="main")
        # A fork's run claiming to be this repository's.
        w.deploy(art4, "pull_request", sha4, repo=OWNER_REPO, branch="pr-4", ok=(1,))
        # A dispatch from a feature branch, and a main run that main has moved past.
        w.deploy(art_main, "workflow_dispatch", sha3, branch="pr-3")
        w.deploy(art_main, "push", sha4, branch="main")
        check(w.tip() == tip, "a refused deploy changed gh-pages")
        bad = tmp / "bad-site"
        shutil.copytree(art4 / "pages-site-preview", bad)
        (bad / "secrets").symlink_to("/etc/passwd")
        done = subprocess.run([".ci/pages-deploy", "pr", "9", str(bad)], cwd=w.course, env=w.env, capture_output=True, text=True)
        check(done.returncode == 1 and "not a plain file" in done.stderr, f"a site with a symlink was not refused: {done.stderr}")
        check(w.tip() == tip, "the refused site changed gh-pages")

        print("-- three deploys pushed at once all land")
        procs = [subprocess.Popen([".ci/pages-deploy", "pr", str(n), str(art3 / "pages-site-preview")], cwd=w.course,
                                  env=w.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for n in (5, 6, 7)]
        outs = [p.communicate() for p in procs]
        check(all(p.returncode == 0 for p in procs), f"a concurrent deploy failed: {outs}")
        listed = git("ls-tree", "--name-only", "refs/heads/gh-pages:pr-preview", cwd=w.remote).split()
        check(listed == ["pr-4", "pr-5", "pr-6", "pr-7"], f"after three deploys at once pr-preview/ holds {listed}")
        check(before["preview"] == w.tree("preview"), "concurrent deploys changed preview/")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print("FAIL", f)
    if failures:
        sys.exit(1)
    print("pages preview dry run: publish at the root, previews side by side, all checks pass")


if __name__ == "__main__":
    main()
