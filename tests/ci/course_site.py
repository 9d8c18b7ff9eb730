#!/usr/bin/env python3
"""A new course's first weeks on GitHub, played with the workflows `coursegen init` writes and
this repository's action, as written: no network, no GitHub.

    python3 tests/ci/course_site.py --coursegen target/release/coursegen [--no-browser]

A small runner reads init's .github/workflows/site.yml and site-deploy.yml and action.yml,
evaluates their `if:`s and step environments (the few expression forms they use), and runs
their `run:` steps — the .ci/ scripts of this checkout, as $GITHUB_ACTION_PATH — for real.
The `uses:` of other actions are stand-ins: checkout (the course's commit, or a clone of the
Pages branch), configure-pages (the base_url GitHub gives: https://ORG.github.io/REPO, no
slash), upload/download-artifact (folders, hidden files left out), upload-pages-artifact and
deploy-pages (a folder served by a local HTTP server under /REPO/, as Pages serves it). The
action installs the release archive of the given binary from a file:// folder through its
own install step; `gh` is tests/ci/gh-stub; the Pages branch lives in a bare repository.

The weeks:

1. `coursegen init`, first push: the public site at /REPO/, every page loading in headless
   Chromium with no failed request, search working; the drafts under preview/.
2. Pull request 1 adds an entry: its branch's push builds nothing; its preview is at
   pr-preview/pr-1/ (search finds the new entry there, not at the root), a comment gives
   its address, the public root is unchanged.
3. The author and reviewer list their keys and sign the entry in pull request 1.
4. Pull request 2, from a fork, removes the author's signature: the check fails, with an
   annotation naming the entry's file and line; its comment says the publish build failed.
5. Pull request 1 is merged: the signed entry is on the public site, and search finds it.
6. Both pull requests close: their previews are removed, the root is unchanged.
7. A custom domain: the next push builds for it, and the site loads at its root.

Exits 1 listing every failure. Needs git, jq, ssh-keygen, PyYAML, Playwright and Chromium.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests/browser"))

ORG, NAME, FORK = "ocean-org", "ocean-course", "someone/ocean-course"
BASE = f"https://{ORG}.github.io/{NAME}"  # actions/configure-pages' base_url: no trailing slash
PREFIX = f"/{NAME}/"
CUSTOM = "https://ocean.example.org"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
TARGET = "x86_64-unknown-linux-gnu"
ENTRY = "content/glossary/occupancy.md"
OCCUPANCY = """---
title: What is occupancy?
term: occupancy
category: Execution
cc: "8.0"
summary: The share of a multiprocessor's warp slots that resident warps fill.
related: [warp]
sources:
  - title: CUDA C++ Best Practices Guide
    url: https://docs.nvidia.com/cuda/cuda-c-best-practices-guide/
status: in-review
byline:
  written_by: Ada Lovelace
  reviewed_by: pending
  written_on: 2026-11-02
  last_checked_on: pending
---

Occupancy is how many warps a multiprocessor keeps resident, over the most it could hold.
A narwhal-sized register budget per thread lowers it.
"""

failures = []


def check(ok, message):
    if not ok:
        failures.append(message)
    return ok


def run(cmd, cwd, env=None, ok=(0,)):
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode not in ok:
        sys.exit(f"{' '.join(map(str, cmd))} exited {done.returncode} in {cwd}:\n{done.stdout}\n{done.stderr}")
    return done


def git(*args, cwd, env=None):
    return run(["git", *args], cwd, env).stdout.strip()


class Ctx(dict):
    """An expression context: a missing property is null (''), as in GitHub's expressions."""

    def get_path(self, parts):
        value = self
        for p in parts:
            value = value.get(p, "") if isinstance(value, dict) else ""
        return value


TOKEN = re.compile(r"'(?:[^']|'')*'|!=|==|&&|\|\||!|\(|\)|[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*|\s+")


def evaluate(expr: str, ctx: Ctx):
    """The subset of GitHub's expression syntax these workflows use: property paths, string
    literals, == and !=, && and || (returning an operand), !, and cancelled()/success()."""
    out, pos = [], 0
    while pos < len(expr):
        m = TOKEN.match(expr, pos)
        if not m:
            raise ValueError(f"cannot evaluate `{expr}` at {pos}")
        t, pos = m.group(0), m.end()
        if t.isspace():
            continue
        if t.startswith("'"):
            out.append(repr(t[1:-1].replace("''", "'")))
        elif t in ("==", "!="):
            out.append(f" {t} ")
        elif t == "&&":
            out.append(" and ")
        elif t == "||":
            out.append(" or ")
        elif t == "!":
            out.append(" not ")
        elif t in ("(", ")"):
            out.append(t)
        elif t in ("true", "false"):
            out.append(str(t == "true"))
        elif t in ("cancelled", "success", "always", "failure"):
            out.append(f"_fn_{t}")
        else:
            out.append(f"_get({t.split('.')!r})")
    fns = {"_fn_cancelled": lambda: False, "_fn_always": lambda: True,
           "_fn_success": lambda: not ctx.get("_failed"), "_fn_failure": lambda: bool(ctx.get("_failed"))}
    return eval("".join(out), {"__builtins__": {}}, {"_get": ctx.get_path, **fns})  # noqa: S307 (our own files)


def interpolate(text, ctx: Ctx):
    if not isinstance(text, str):
        return text
    return re.sub(r"\$\{\{(.*?)\}\}", lambda m: str(evaluate(m.group(1), ctx) or ""), text)


def copy_site(src: Path, dst: Path, hidden=False, skip=()):
    """A copy of `src` as an artifact keeps it: hidden files left out unless `hidden`."""
    def ignore(_d, names):
        return [n for n in names if n in skip or (not hidden and n.startswith("."))]
    shutil.copytree(src, dst, ignore=ignore, dirs_exist_ok=True)


class GitHub:
    """The repository on "GitHub": the course's clone, the bare remote holding the Pages
    branch, the gh stand-in's state, the artifacts of each run, and what Pages serves."""

    def __init__(self, tmp: Path, coursegen: str):
        self.tmp = tmp
        self.course = tmp / "course"
        self.server = tmp / "server"  # github.server_url: <server>/<owner>/<repo>.git is the remote
        self.remote = self.server / ORG / f"{NAME}.git"
        self.stub = tmp / "gh"
        self.served = tmp / "pages-served"
        self.runs = {}  # run id -> {artifacts: {name: Path}, conclusion, event payload}
        self.base_url = BASE
        bindir = tmp / "bin"
        for d in (self.stub / "pulls", self.stub / "commits", bindir, self.remote.parent):
            d.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / "tests/ci/gh-stub", bindir / "gh")
        (bindir / "gh").chmod(0o755)
        git("init", "-q", "--bare", str(self.remote), cwd=tmp)
        # The release the action installs: the given binary, packed as the release job packs it.
        dist = tmp / "release"
        env = dict(os.environ, BIN=str(Path(coursegen).resolve()), TARGET=TARGET)
        run([str(REPO / ".ci/release-package"), str(dist)], REPO, env)
        run([str(REPO / ".ci/release-checksums"), str(dist)], REPO)
        self.env = {
            k: v for k, v in os.environ.items()
            if not k.startswith(("GITHUB_", "RUNNER_", "PAGES_", "COURSE_", "GH_", "PREVIEW_", "RUN_"))
            and k not in ("CI", "OUT", "COURSEGEN", "PR", "ACTION", "SHA", "EVENT")
        }
        self.env.update(
            PATH=f"{bindir}:{os.environ['PATH']}", GH_STUB_DIR=str(self.stub), GITHUB_ACTIONS="true",
            GITHUB_REPOSITORY=f"{ORG}/{NAME}", COURSEGEN_RELEASE_URL=f"file://{dist}",
            COURSEGEN_TARGET=TARGET, PAGES_RETRY_SECONDS="0", XDG_CACHE_HOME=str(tmp / "cache"),
            GIT_AUTHOR_NAME="Test", GIT_AUTHOR_EMAIL="test@example.org",
            GIT_COMMITTER_NAME="Test", GIT_COMMITTER_EMAIL="test@example.org",
        )
        self.workflows = {}
        self.action = yaml.safe_load((REPO / "action.yml").read_text())

    # -- the course repository
    def commit(self, message):
        git("add", "-A", cwd=self.course, env=self.env)
        git("commit", "-q", "--allow-empty", "-m", message, cwd=self.course, env=self.env)
        return git("rev-parse", "HEAD", cwd=self.course)

    def load_workflows(self):
        for f in sorted((self.course / ".github/workflows").glob("*.yml")):
            wf = yaml.safe_load(f.read_text())
            self.workflows[wf["name"]] = wf

    def pull(self, number, sha, state="open", repo=f"{ORG}/{NAME}"):
        (self.stub / "pulls" / f"{number}.json").write_text(json.dumps(
            {"number": number, "state": state, "head": {"sha": sha, "repo": {"full_name": repo}}}))

    def comments(self, issue):
        path = self.stub / "comments.json"
        return [c for c in json.loads(path.read_text()) if c["issue"] == issue] if path.exists() else []

    def branch_tip(self, branch="coursegen-pages"):
        return git("rev-parse", "--verify", "-q", f"refs/heads/{branch}", cwd=self.remote)

    # -- the runner stand-in
    def trigger(self, workflow_name, event_name, event, sha, ref_name):
        """Runs every job of the workflow for one event; returns (run id, conclusion, log)."""
        wf = self.workflows[workflow_name]
        run_id = len(self.runs) + 1
        record = self.runs[run_id] = {"artifacts": {}, "log": ""}
        ctx = Ctx(github=Ctx(
            event_name=event_name, event=event, sha=sha, ref_name=ref_name, token="",
            ref=f"refs/pull/{ref_name}" if event_name == "pull_request" else f"refs/heads/{ref_name}",
            repository=f"{ORG}/{NAME}", server_url=str(self.server), action_repository="coursegen/coursegen",
            run_id=run_id,
        ), needs=Ctx())
        conclusion = "success"
        ran = False
        for job_id, job in wf["jobs"].items():
            jctx = Ctx(ctx, steps=Ctx(), runner=Ctx(temp=""), needs=ctx["needs"])
            needs = job.get("needs", [])
            needs = [needs] if isinstance(needs, str) else needs
            if any(ctx["needs"].get(n, {}).get("result") != "success" for n in needs):
                ctx["needs"][job_id] = Ctx(result="skipped", outputs=Ctx())
                continue
            if "if" in job and not evaluate(str(job["if"]).replace("${{", "").replace("}}", ""), jctx):
                ctx["needs"][job_id] = Ctx(result="skipped", outputs=Ctx())
                continue
            ran = True
            ok = self.job(job, jctx, run_id)
            outputs = Ctx({k: interpolate(v, jctx) for k, v in job.get("outputs", {}).items()})
            ctx["needs"][job_id] = Ctx(result="success" if ok else "failure", outputs=outputs)
            if not ok:
                conclusion = "failure"
        record["conclusion"] = conclusion if ran else "skipped"
        return run_id, record["conclusion"], record["log"]

    def job(self, job, ctx, run_id):
        temp = Path(tempfile.mkdtemp(dir=self.tmp, prefix="runner-temp-"))
        workspace = Path(tempfile.mkdtemp(dir=self.tmp, prefix="workspace-"))
        ctx["runner"] = Ctx(temp=str(temp))
        ctx["_workspace"] = workspace
        ctx["_failed"] = False
        ctx["_path"] = []  # what steps added to $GITHUB_PATH, ahead of PATH for later steps
        for step in job["steps"]:
            self.step(step, ctx, run_id, REPO)
        return not ctx["_failed"]

    def step(self, step, ctx, run_id, action_path):
        """Runs one step unless its `if:` says no; a failure marks the job (or the composite
        action) failed unless the step may continue on error."""
        cond = str(step.get("if", "success()")).replace("${{", "").replace("}}", "")
        if not re.search(r"\b(success|failure|always|cancelled)\(\)", cond):
            cond = f"success() && ({cond})"  # GitHub's implied status check
        if not evaluate(cond, ctx):
            return
        outputs = Ctx()
        if "run" in step:
            ok, outputs = self.run_step(step, ctx, run_id, action_path)
        else:
            ok, outputs = self.uses(step["uses"], {k: interpolate(v, ctx) for k, v in step.get("with", {}).items()}, ctx, run_id)
        if "id" in step:
            ctx["steps"][step["id"]] = Ctx(outputs=outputs, outcome="success" if ok else "failure")
        if not ok and not step.get("continue-on-error"):
            ctx["_failed"] = True

    def run_step(self, step, ctx, run_id, action_path):
        out_file = Path(ctx["runner"]["temp"]) / f"output-{len(ctx['steps'])}-{os.urandom(4).hex()}"
        out_file.touch()
        env = dict(self.env, GITHUB_ACTION_PATH=str(action_path), RUNNER_TEMP=ctx["runner"]["temp"],
                   GITHUB_OUTPUT=str(out_file), GITHUB_STEP_SUMMARY=str(Path(ctx["runner"]["temp"]) / "summary.md"),
                   GITHUB_PATH=str(Path(ctx["runner"]["temp"]) / "path"),
                   COURSEGEN_INSTALL_DIR=str(Path(ctx["runner"]["temp"]) / "tool"))
        env.update({k: str(interpolate(v, ctx)) for k, v in step.get("env", {}).items()})
        env["PATH"] = ":".join([*ctx["_path"], env["PATH"]])
        done = subprocess.run(["bash", "-c", step["run"]], cwd=ctx["_workspace"], env=env, capture_output=True, text=True)
        self.runs[run_id]["log"] += done.stdout + done.stderr
        added = Path(env["GITHUB_PATH"])
        if added.exists():
            ctx["_path"][:] = reversed(added.read_text().split())
        outputs = Ctx(line.split("=", 1) for line in out_file.read_text().splitlines() if "=" in line)
        return done.returncode == 0, outputs

    def uses(self, uses, with_, ctx, run_id):
        action, _, _ref = uses.partition("@")
        arts = self.runs[run_id]["artifacts"]
        if action == "actions/checkout":
            ws = ctx["_workspace"]
            shutil.rmtree(ws)
            if with_.get("ref"):
                git("clone", "-q", "-b", with_["ref"], str(self.remote), str(ws), cwd=self.tmp)
            else:
                git("clone", "-q", str(self.course), str(ws), cwd=self.tmp)
                git("checkout", "-q", ctx["github"]["sha"], cwd=ws)
            return True, Ctx()
        if action == "actions/configure-pages":
            return True, Ctx(base_url=self.base_url)
        if action == "coursegen/coursegen":
            inputs = Ctx({k: v.get("default", "") for k, v in self.action["inputs"].items()})
            inputs.update(with_)
            actx = Ctx(ctx, inputs=inputs, steps=Ctx(), _failed=False)
            for step in self.action["runs"]["steps"]:
                self.step(step, actx, run_id, REPO)
            outputs = Ctx({k: interpolate(v["value"], actx) for k, v in self.action["outputs"].items()})
            return not actx["_failed"], outputs
        if action == "actions/upload-artifact":
            dst = self.tmp / "artifacts" / str(run_id) / with_["name"]
            copy_site(ctx["_workspace"] / with_["path"], dst, hidden=str(with_.get("include-hidden-files", "false")) == "true")
            arts[with_["name"]] = dst
            return True, Ctx()
        if action == "actions/download-artifact":
            src = self.runs.get(int(with_["run-id"]), {}).get("artifacts", {}).get(with_["name"])
            if src is None:
                return False, Ctx()
            copy_site(src, ctx["_workspace"] / with_["path"], hidden=True)
            return True, Ctx()
        if action == "actions/upload-pages-artifact":
            dst = self.tmp / "artifacts" / str(run_id) / "github-pages"
            shutil.rmtree(dst, ignore_errors=True)
            copy_site(ctx["_workspace"] / with_["path"], dst, skip=(".git", ".github"))
            arts["github-pages"] = dst
            return True, Ctx()
        if action == "actions/deploy-pages":
            shutil.rmtree(self.served, ignore_errors=True)
            shutil.copytree(arts["github-pages"], self.served)
            return True, Ctx(page_url=self.base_url + "/")
        if action == "actions/attest-build-provenance":
            # GitHub signs the subjects; the stand-in holds that each one exists: the Pages
            # artifact, and the provenance file the publish build wrote at the site's root.
            for subject in filter(None, (line.strip() for line in str(with_["subject-path"]).splitlines())):
                if subject.endswith("artifact.tar"):
                    found = "github-pages" in arts
                else:
                    found = (ctx["_workspace"] / subject).is_file()
                self.runs[run_id]["log"] += f"attest {subject}: {'found' if found else 'MISSING'}\n"
                if not found:
                    return False, Ctx()
            return True, Ctx()
        raise SystemExit(f"no stand-in for `uses: {uses}`")

    # -- the two workflows, one event each
    def site_run(self, event_name, sha, ref_name, pr=None, action="opened", head_repo=f"{ORG}/{NAME}"):
        event = {"repository": {"default_branch": "main", "full_name": f"{ORG}/{NAME}"}}
        if pr:
            event.update(action=action, pull_request={"number": pr, "head": {"sha": sha, "repo": {"full_name": head_repo}}})
        return self.trigger("Course site", event_name, event, sha, ref_name)

    def deploy_run(self, run_id, event_name, sha, head_branch, head_repo=f"{ORG}/{NAME}"):
        wr = {"id": run_id, "conclusion": self.runs[run_id]["conclusion"], "event": event_name, "head_sha": sha,
              "head_branch": head_branch, "head_repository": {"full_name": head_repo},
              "html_url": f"https://github.com/{ORG}/{NAME}/actions/runs/{run_id}"}
        event = {"workflow_run": wr, "repository": {"default_branch": "main", "full_name": f"{ORG}/{NAME}"}}
        deploy_id, conclusion, log = self.trigger("Course site deploy", "workflow_run", event, git(
            "rev-parse", "main", cwd=self.course), "main")
        check(conclusion == "success", f"the deploy of run {run_id} ({event_name}) concluded {conclusion}:\n{log}")
        return deploy_id, log

    def push_main(self, message):
        sha = self.commit(message) if message else git("rev-parse", "HEAD", cwd=self.course)
        (self.stub / "commits/main.json").write_text(json.dumps({"sha": sha}))
        run_id, conclusion, log = self.site_run("push", sha, "main")
        check(conclusion == "success", f"the push of {message!r} to main concluded {conclusion}:\n{log}")
        self.deploy_run(run_id, "push", sha, "main")
        return sha

    def pr_event(self, number, branch, sha, action="synchronize", head_repo=f"{ORG}/{NAME}"):
        """pull_request `action` on pull request `number`; then its deploy. Returns the build's (conclusion, log)."""
        self.pull(number, sha, state="closed" if action == "closed" else "open", repo=head_repo)
        run_id, conclusion, log = self.site_run("pull_request", sha, f"{number}/merge", pr=number, action=action, head_repo=head_repo)
        self.deploy_run(run_id, "pull_request", sha, branch, head_repo=head_repo)
        return conclusion, log


def root_files(site: Path):
    """The public site's files on the Pages branch (its folders of previews left out, and the
    provenance file, which names the commit each publish build was made from)."""
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in site.rglob("*")
            if p.is_file() and not p.relative_to(site).as_posix().startswith(("preview/", "pr-preview/", ".git/"))
            and p.relative_to(site).as_posix() != "coursegen-provenance.json"}


def search(context, origin, prefix, word):
    """What the site's search box lists for `word`, as paths."""
    page = context.new_page()
    try:
        page.goto(origin + prefix, wait_until="load")
        page.fill("#search-input", word)
        try:
            page.wait_for_selector("#search-results a", timeout=15000)
        except Exception:  # noqa: BLE001 (playwright's TimeoutError)
            return []
        return page.eval_on_selector_all("#search-results a", "els => els.map(e => new URL(e.href).pathname)")
    finally:
        page.close()


def browse(gh: GitHub, prefix, searches, label):
    """Every page Pages serves, loaded under `prefix`: no failed request; then the searches."""
    # Imported here, so tests/ci/course_measure.py can use the runner without a browser.
    import subpath  # (serve, check_site: the sub-path browser check)
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM if os.path.exists(CHROMIUM) else None)
        found = subpath.check_site(browser, gh.served, prefix, label)
        failures.extend(found)
        server, origin = subpath.serve(gh.served, prefix)
        try:
            context = browser.new_context()
            context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(origin) else route.abort())
            for where, word, expect, present in searches:
                shown = search(context, origin, prefix + where, word)
                target = prefix + where + expect
                if present:
                    check(target in shown, f"{label}: searching {word!r} at {prefix + where} shows {shown}, not {target}")
                else:
                    check(target not in shown and not any(s.startswith(prefix + where) and expect in s for s in shown),
                          f"{label}: searching {word!r} at {prefix + where} shows {shown}, which should not list {expect}")
            context.close()
        finally:
            server.shutdown()
        browser.close()


def keygen(tmp: Path, who: str):
    key = tmp / f"{who}_ed25519"
    run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", who, "-f", str(key)], tmp)
    return key


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--coursegen", required=True, help="the release binary (target/release/coursegen)")
    ap.add_argument("--no-browser", action="store_true", help="skip the Chromium part")
    args = ap.parse_args()
    coursegen = str(Path(args.coursegen).resolve())
    tmp = Path(tempfile.mkdtemp(prefix="coursegen-course-site-"))
    try:
        play(GitHub(tmp, coursegen), tmp, coursegen, args.no_browser)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print("FAIL", f)
    if failures:
        sys.exit(1)
    print("course site: init, first push, previews, the two-person rule, merge, close and a custom domain all pass")


def play(gh: GitHub, tmp: Path, coursegen: str, no_browser: bool):
    """The weeks of the module docstring, in order."""
    cg = lambda *a: run([coursegen, *a], gh.course, gh.env)  # noqa: E731

    print("-- 1. init and the first push")
    run([coursegen, "init", str(gh.course)], tmp, gh.env)
    for f in [".github/workflows/site.yml", ".github/workflows/site-deploy.yml", ".coursegen/allowed_signers", ".github/CODEOWNERS"]:
        check((gh.course / f).is_file(), f"init wrote no {f}")
    git("init", "-q", "-b", "main", ".", cwd=gh.course)
    gh.load_workflows()
    if not check(set(gh.workflows) == {"Course site", "Course site deploy"}, f"init's workflows: {sorted(gh.workflows)}"):
        return
    gh.push_main("coursegen init")
    check(gh.branch_tip() != "", "the first push put nothing on coursegen-pages")
    check((gh.served / "index.html").is_file(), "the first push deployed nothing to Pages")
    home = (gh.served / "index.html").read_text() if (gh.served / "index.html").is_file() else ""
    check(re.search(rf"""href=["']{PREFIX}style\.css""", home) is not None, f"the home page does not load its style from {PREFIX}")
    check((gh.served / "preview/glossary/warp/index.html").is_file(), "main's preview has no draft entry under preview/")
    check(not (gh.served / "glossary/warp/index.html").exists(), "the draft is on the public site")
    if not no_browser:
        browse(gh, PREFIX, [("preview/", "warp", "glossary/warp/", True)], "first push")
    root_before = root_files(gh.served)

    print("-- 2. pull request 1 adds an entry")
    git("switch", "-q", "-c", "add-occupancy", cwd=gh.course)
    (gh.course / ENTRY).write_text(OCCUPANCY)
    sha1 = gh.commit("Add occupancy")
    # The branch's own push builds nothing: its pull request does.
    _, conclusion, _ = gh.site_run("push", sha1, "add-occupancy")
    check(conclusion == "skipped", f"a push to a feature branch built the site ({conclusion})")
    conclusion, log = gh.pr_event(1, "add-occupancy", sha1, action="opened")
    check(conclusion == "success", f"pull request 1 (a new draft) failed its check:\n{log}")
    check((gh.served / "pr-preview/pr-1/glossary/occupancy/index.html").is_file(), "no preview at pr-preview/pr-1/")
    check(root_files(gh.served) == root_before, "pull request 1 changed the public root")
    cs = gh.comments(1)
    check(len(cs) == 1 and f"{BASE}/pr-preview/pr-1/" in cs[0]["body"], f"pull request 1's comment lacks its address: {cs}")
    if not no_browser:
        browse(gh, PREFIX, [("pr-preview/pr-1/", "narwhal", "glossary/occupancy/", True),
                            ("", "narwhal", "glossary/occupancy/", False)], "pull request 1")

    print("-- 3. the author's and the reviewer's keys land on main in a change of their own; they sign pull request 1")
    # A pull request is judged by the allowed-signers file of the branch it merges into
    # (--trusted-ref): keys listed in the same pull request would not count.
    ada, grace = keygen(tmp, "ada"), keygen(tmp, "grace")
    git("switch", "-q", "main", cwd=gh.course)
    for who, name, key in [("ada@example.org", "Ada Lovelace", ada), ("grace@example.org", "Grace Hopper", grace)]:
        cg("signers", "add", name, "--email", who, "--key", f"{key}.pub")
    gh.push_main("List Ada's and Grace's keys")
    check(root_files(gh.served) == root_before, "listing keys changed the public root")
    git("switch", "-q", "add-occupancy", cwd=gh.course)
    git("merge", "-q", "--no-edit", "main", cwd=gh.course, env=gh.env)
    cg("sign", ENTRY, "--reviewer", "Grace Hopper", "--publish", "--key", str(grace))
    cg("sign", ENTRY, "--role", "author", "--key", str(ada))
    sha1 = gh.commit("Review and sign occupancy")
    conclusion, log = gh.pr_event(1, "add-occupancy", sha1)
    check(conclusion == "success", f"pull request 1, signed, failed its check:\n{log}")
    check("::error" not in log, f"the signed pull request has error annotations:\n{log}")

    print("-- 4. pull request 2, from a fork, removes the author's signature")
    git("switch", "-q", "-c", "fork-main", cwd=gh.course)
    text = (gh.course / ENTRY).read_text()
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "author_signature:" in ln)
    (gh.course / ENTRY).write_text("".join(ln for ln in text.splitlines(True) if "author_signature:" not in ln))
    sha2 = gh.commit("Tidy the byline")
    conclusion, log = gh.pr_event(2, "main", sha2, action="opened", head_repo=FORK)
    check(conclusion == "failure", f"pull request 2 (a signature removed) passed its check:\n{log}")
    notes = re.findall(r"^::error file=([^,]*),line=(\d+),title=coursegen::(.*)$", log, re.M)
    check(any(f == ENTRY and 0 < int(n) <= line + 1 for f, n, _ in notes),
          f"no annotation on {ENTRY} at its byline (the signature was line {line}): {notes}\n{log}")
    print(f"   annotations: {[(f, n, m[:80]) for f, n, m in notes]}")
    cs = gh.comments(2)
    check(len(cs) == 1 and "failed" in cs[0]["body"] and f"{BASE}/pr-preview/pr-2/" in cs[0]["body"],
          f"pull request 2's comment does not say the publish build failed: {cs}")
    check(root_files(gh.served) == root_before, "pull request 2 changed the public root")

    print("-- 4b. pull request 3, from a fork, lists two keys of its own and signs its own entry")
    git("switch", "-q", "-c", "fork-keys", "main", cwd=gh.course)
    eve, mal = keygen(tmp, "eve"), keygen(tmp, "mal")
    cg("signers", "add", "Eve Author", "--key", f"{eve}.pub")
    cg("signers", "add", "Mal Reviewer", "--key", f"{mal}.pub")
    own = "content/glossary/latency.md"
    (gh.course / own).write_text(OCCUPANCY.replace("occupancy", "latency").replace("Ada Lovelace", "Eve Author"))
    cg("sign", own, "--reviewer", "Mal Reviewer", "--publish", "--key", str(mal))
    cg("sign", own, "--role", "author", "--key", str(eve))
    sha3 = gh.commit("Add latency, signed")
    conclusion, log = gh.pr_event(3, "main", sha3, action="opened", head_repo=FORK)
    check(conclusion == "failure", f"pull request 3 (its own keys) passed its check:\n{log}")
    notes = re.findall(r"^::error file=([^,]*),line=(\d+),title=coursegen::(.*)$", log, re.M)
    check(any(f == own for f, _, _ in notes), f"no annotation on {own}: {notes}\n{log}")
    print(f"   annotations: {[(f, n, m[:100]) for f, n, m in notes]}")
    check(root_files(gh.served) == root_before, "pull request 3 changed the public root")
    gh.pr_event(3, "main", sha3, action="closed", head_repo=FORK)
    git("switch", "-q", "add-occupancy", cwd=gh.course)

    print("-- 5. pull request 1 is merged: the signed entry is published")
    git("switch", "-q", "main", cwd=gh.course)
    git("merge", "-q", "--ff-only", "add-occupancy", cwd=gh.course)
    gh.push_main(None)
    check((gh.served / "glossary/occupancy/index.html").is_file(), "the signed entry is not on the public site")
    check(not (gh.served / "glossary/warp/index.html").exists(), "the draft is on the public site")
    # The deployed site carries its provenance, which coursegen verify reads back.
    verified = subprocess.run([str(coursegen), "verify", str(gh.served)], capture_output=True, text=True)
    check(verified.returncode == 0 and "/glossary/occupancy/: signed by" in verified.stdout,
          f"coursegen verify of the deployed site: {verified.returncode}\n{verified.stdout}{verified.stderr}")
    root_merged = root_files(gh.served)
    if not no_browser:
        browse(gh, PREFIX, [("", "narwhal", "glossary/occupancy/", True)], "merged")

    print("-- 6. both pull requests close: their previews go")
    conclusion, log = gh.pr_event(1, "add-occupancy", sha1, action="closed")
    check(not (gh.served / "pr-preview/pr-1").exists(), "pull request 1's preview is still served")
    check((gh.served / "pr-preview/pr-2").exists(), "closing pull request 1 removed pull request 2's preview")
    cs = gh.comments(1)
    check(len(cs) == 1 and "removed" in cs[0]["body"], f"pull request 1's comment was not updated: {cs}")
    gh.pr_event(2, "main", sha2, action="closed", head_repo=FORK)
    check(not (gh.served / "pr-preview").exists(), "pr-preview/ is still served after both closed")
    check(root_files(gh.served) == root_merged, "closing the pull requests changed the public root")

    print("-- 7. a custom domain")
    gh.base_url = CUSTOM
    gh.push_main("Use the custom domain")
    home = (gh.served / "index.html").read_text()
    check(re.search(r"""href=["']/style\.css""", home) is not None, "the custom-domain build does not load /style.css")
    check(f"{CUSTOM}/" in home and BASE not in home, "the custom-domain build does not name its address")
    if not no_browser:
        browse(gh, "/", [("", "narwhal", "glossary/occupancy/", True)], "custom domain")


if __name__ == "__main__":
    main()
