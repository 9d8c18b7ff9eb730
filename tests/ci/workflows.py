#!/usr/bin/env python3
"""What the workflows must keep, beyond what actionlint checks (tests/ci/run runs this):

- every step that runs something runs one script of .ci/, and every such script is run by
  a test under tests/ci/ (so the step was run locally);
- actions are on their current major versions (no Node 20 ones left);
- no two jobs save the same cache key, and every job that builds Rust caches ~/.rustup;
- the preview workflow builds with a read-only token and no secrets (forks alike); the
  deploy workflow runs on workflow_run only and checks out nothing but the default branch,
  without keeping the token in git;
- only measure.yml runs on self-hosted runners, and it starts by hand only
  (workflow_dispatch: never on a pull request or a push); no workflow uses
  pull_request_target;
- ci.yml runs .ci/run on every push and pull request, and checks the tool on macOS and
  Windows (.ci/check-platform) on every pull request;
- every job runs on a runner image GitHub lists today; the release builds every target to the
  end (fail-fast off) and publishes only when all built; no release or deploy is cancelled
  while it runs;
- the workflows `coursegen init` writes (init/.github/workflows/) run nothing but actions —
  coursegen's in its `site:` modes, nothing copied into the course — build with a read-only
  token, deploy from workflow_run alone, take the address from actions/configure-pages, and
  never cancel a run of the default branch.
- the measure workflow `coursegen init --gpu` writes (init-gpu/.github/workflows/) starts by
  hand only, runs nothing but actions (coursegen's in its `measure:` modes), measures on
  self-hosted runners with a read-only token and no secret, opens the pull request from a
  hosted runner with contents and pull-requests write alone, and pins a timeout on every job;
- every job that can write (a `write` permission) has a timeout-minutes.

    python3 tests/ci/workflows.py

Exits 1 listing every failure. Needs PyYAML.
"""
import re
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = REPO / ".github/workflows"
# The current major of each action (their repositories' newest release tags, 2026-07): a
# workflow on an older major fails here. Raise these when a new major comes out.
CURRENT = {
    "actions/checkout": 7,
    "actions/cache": 5,
    "actions/upload-artifact": 7,
    "actions/download-artifact": 8,
    "actions/configure-pages": 6,
    "actions/upload-pages-artifact": 5,
    "actions/deploy-pages": 5,
    "actions/attest-build-provenance": 3,
}
# The hosted runner images actions/runner-images lists (2026-08), deprecated ones left out
# (macOS 14) and those retired next (Ubuntu 22.04); macOS 13 and Windows 2019 are retired.
IMAGES = {
    "ubuntu-latest", "ubuntu-24.04", "ubuntu-24.04-arm", "ubuntu-slim",
    "macos-latest", "macos-26", "macos-15", "macos-15-intel", "macos-26-intel",
    "windows-latest", "windows-2025", "windows-2022", "windows-11-arm",
}
INIT = REPO / "init/.github/workflows"
INIT_GPU = REPO / "init-gpu/.github/workflows"
RUN = re.compile(r"^\.ci/[A-Za-z0-9._-]+( [^\n;&|`$()<>]*)?$")

failures = []


def check(ok, message):
    if not ok:
        failures.append(message)


def triggers(wf):
    on = wf.get("on", wf.get(True))  # YAML 1.1 reads a bare `on` as true
    return {on: None} if isinstance(on, str) else {t: None for t in on} if isinstance(on, list) else on


def images(job):
    """The runner images a job asks for: its runs-on, or each matrix value it names."""
    runs_on = job.get("runs-on", "")
    m = re.fullmatch(r"\$\{\{\s*matrix\.(\w+)\s*\}\}", runs_on) if isinstance(runs_on, str) else None
    if not m:
        return [runs_on] if isinstance(runs_on, str) else []
    matrix = job.get("strategy", {}).get("matrix", {})
    return [row[m.group(1)] for row in matrix.get("include", [])] + list(matrix.get(m.group(1), []))


def never_cancelled(name, wf, job_id=None):
    """A deploy or release: its concurrency never cancels a running one."""
    group = (wf["jobs"][job_id] if job_id else wf).get("concurrency")
    check(isinstance(group, dict) and group.get("cancel-in-progress") is False,
          f"{name}{' job ' + job_id if job_id else ''}: a running deploy or release must not be cancelled ({group})")


def check_init():
    """The workflows `coursegen init` writes into a new course."""
    flows = {p.name: yaml.safe_load(p.read_text()) for p in sorted(INIT.glob("*.yml"))}
    check(set(flows) == {"site.yml", "site-deploy.yml"}, f"init's workflows: {sorted(flows)}")
    if set(flows) != {"site.yml", "site-deploy.yml"}:
        return
    modes = {}
    for name, wf in flows.items():
        check("secrets." not in (INIT / name).read_text(), f"init {name} uses a secret")
        for job_id, job in wf["jobs"].items():
            # A course's draft is content: without a timeout a slow one holds a runner for
            # GitHub's six hours.
            check(isinstance(job.get("timeout-minutes"), int), f"init {name} job {job_id} has no timeout-minutes")
            for image in images(job):
                check(image in IMAGES, f"init {name} job {job_id} runs on {image}")
            for step in job["steps"]:
                check("run" not in step, f"init {name} job {job_id}: a `run:` step ({step.get('run')!r}); a course runs nothing of its own")
                uses = step.get("uses", "")
                action, _, ref = uses.partition("@")
                if action == "coursegen/coursegen":
                    modes[name] = step.get("with", {}).get("site")
                    check(ref == "v1", f"init {name}: {uses} is not the action's v1")
                else:
                    m = re.fullmatch(r"v(\d+)", ref)
                    check(action in CURRENT and m is not None and int(m.group(1)) >= CURRENT[action],
                          f"init {name}: {uses} is not a current action this test knows")
                if action == "actions/configure-pages":
                    check(step.get("id") == "pages", f"init {name}: configure-pages needs id `pages` (its base_url is used)")
            for step in job["steps"]:
                if step.get("uses", "").startswith("coursegen/coursegen@"):
                    check(step["with"].get("base-url") == "${{ steps.pages.outputs.base_url }}",
                          f"init {name}: the action does not get configure-pages' base_url")
    check(modes == {"site.yml": "build", "site-deploy.yml": "deploy"}, f"init's workflows use the action as {modes}")
    site, deploy = flows["site.yml"], flows["site-deploy.yml"]
    check(site.get("permissions") == {"contents": "read", "pages": "read"}, f"init site.yml: its token must be read-only: {site.get('permissions')}")
    check(all("permissions" not in j for j in site["jobs"].values()), "init site.yml: a job asks for more permissions")
    on = triggers(site)
    check(set(on) == {"pull_request", "push", "workflow_dispatch"}, f"init site.yml triggers: {sorted(on)}")
    check("closed" in on["pull_request"]["types"], "init site.yml: a closed pull request must run (to remove its preview)")
    check(site["concurrency"].get("cancel-in-progress") == "${{ github.event_name == 'pull_request' }}",
          "init site.yml: only a pull request's run may be cancelled, never the default branch's")
    don = triggers(deploy)
    check(set(don) == {"workflow_run"} and don["workflow_run"]["workflows"] == [site["name"]],
          "init site-deploy.yml must run on workflow_run of the site workflow alone")
    check(deploy.get("permissions") == {}, "init site-deploy.yml: the default token must have no permissions")
    never_cancelled("init site-deploy.yml", deploy, "record")
    never_cancelled("init site-deploy.yml", deploy, "pages")
    for job_id, job in deploy["jobs"].items():
        for step in job["steps"]:
            if step.get("uses", "").startswith("actions/checkout@"):
                w = step.get("with", {})
                check(w.get("ref") == "coursegen-pages" and w.get("persist-credentials") is False,
                      f"init site-deploy.yml {job_id}: checks out {w}: only the Pages branch, without keeping the token")
    return len(flows)


def check_init_gpu():
    """The measure workflow `coursegen init --gpu` writes into a course."""
    flows = {p.name: yaml.safe_load(p.read_text()) for p in sorted(INIT_GPU.glob("*.yml"))}
    check(set(flows) == {"measure.yml"}, f"init --gpu's workflows: {sorted(flows)}")
    if "measure.yml" not in flows:
        return 0
    wf, text = flows["measure.yml"], (INIT_GPU / "measure.yml").read_text()
    on = triggers(wf)
    check(set(on) == {"workflow_dispatch"}, f"init --gpu measure.yml must start by hand only: {sorted(on)}")
    inputs = (on.get("workflow_dispatch") or {}).get("inputs", {})
    check({"gpus", "kernels", "device", "counters"} <= set(inputs), f"init --gpu measure.yml inputs: {sorted(inputs)}")
    check(wf.get("permissions") == {"contents": "read"}, f"init --gpu measure.yml: its default token must be read-only: {wf.get('permissions')}")
    check(set(re.findall(r"secrets\.(\w+)", text)) <= {"RECORDS_PR_TOKEN"}, "init --gpu measure.yml uses a secret other than RECORDS_PR_TOKEN")
    modes = {}
    for job_id, job in wf["jobs"].items():
        where = f"init --gpu measure.yml job {job_id}"
        check(isinstance(job.get("timeout-minutes"), int), f"{where} has no timeout-minutes")
        runs_on = job.get("runs-on", "")
        self_hosted = isinstance(runs_on, list) and "self-hosted" in runs_on
        if not self_hosted:
            for image in images(job):
                check(image in IMAGES, f"{where} runs on {image}")
        for step in job["steps"]:
            check("run" not in step, f"{where}: a `run:` step ({step.get('run')!r}); a course runs nothing of its own")
            action, _, ref = step.get("uses", "").partition("@")
            if action == "coursegen/coursegen":
                check(ref == "v1", f"{where}: {step['uses']} is not the action's v1")
                modes[job_id] = (step.get("with", {}).get("measure"), self_hosted)
            else:
                m = re.fullmatch(r"v(\d+)", ref)
                check(action in CURRENT and m is not None and int(m.group(1)) >= CURRENT[action],
                      f"{where}: {step.get('uses')} is not a current action this test knows")
            if action == "actions/checkout" and self_hosted:
                check(step.get("with", {}).get("persist-credentials") is False, f"{where}: the GPU runner's checkout keeps the token")
        if self_hosted:
            check("permissions" not in job and "secrets." not in yaml.safe_dump(job),
                  f"{where}: the GPU job must run with the read-only token and no secret")
        else:
            check(job.get("permissions") == {"contents": "write", "pull-requests": "write"},
                  f"{where}: the pull request job asks for {job.get('permissions')}")
    check(sorted(modes.values()) == [("pr", False), ("run", True)],
          f"init --gpu measure.yml must measure (`measure: run`) on self-hosted runners and open the pull request (`measure: pr`) on a hosted one: {modes}")
    return len(flows)


def main():
    flows = {p.name: yaml.safe_load(p.read_text()) for p in sorted(WORKFLOWS.glob("*.yml"))}
    check({"ci.yml", "preview.yml", "preview-deploy.yml", "measure.yml"} <= set(flows),
          f"workflows missing: {sorted(flows)}")
    tests = "\n".join(p.read_text() for p in sorted((REPO / "tests/ci").iterdir()) if p.is_file() and p.name != "workflows.py")
    cache_keys = {}
    for name, wf in flows.items():
        on = triggers(wf)
        check("pull_request_target" not in on, f"{name}: pull_request_target runs with a write token on fork code")
        for job_id, job in wf["jobs"].items():
            where = f"{name} job {job_id}"
            permissions = job.get("permissions", wf.get("permissions", {}))
            writes = (["all"] if permissions == "write-all" else
                      [k for k, v in permissions.items() if v == "write"] if isinstance(permissions, dict) else [])
            check(not writes or "timeout-minutes" in job,
                  f"{where} can write ({', '.join(writes)}) and has no timeout-minutes")
            runs_on = job.get("runs-on", "")
            if "self-hosted" in (runs_on if isinstance(runs_on, list) else [runs_on]):
                check(name == "measure.yml", f"{where} runs on a self-hosted runner; only measure.yml may")
            else:
                for image in images(job):
                    check(image in IMAGES, f"{where} runs on {image}, which is not a runner image GitHub lists today")
            steps = job.get("steps", [])
            builds_rust = any(s.get("run", "").startswith((".ci/toolchain", ".ci/run")) for s in steps)
            for step in steps:
                action = ""
                if "run" in step:
                    command = step["run"].strip()
                    check(RUN.match(command) is not None, f"{where}: step `{command}` is not one .ci/ script")
                    script = command.split()[0]
                    check((REPO / script).is_file(), f"{where}: {script} does not exist")
                    check(script == ".ci/run" or script in tests, f"{where}: no test under tests/ci/ runs {script}")
                uses = step.get("uses", "")
                if uses:
                    action, _, ref = uses.partition("@")
                    m = re.fullmatch(r"v(\d+)", ref)
                    if action in CURRENT:
                        check(m is not None and int(m.group(1)) >= CURRENT[action],
                              f"{where}: {uses} is older than {action}@v{CURRENT[action]}")
                    else:
                        check(False, f"{where}: {uses} is not one of the actions this test knows ({sorted(CURRENT)})")
                if action == "actions/cache":
                    key = step["with"]["key"]
                    literal = key.split("${{")[0]
                    check(literal not in cache_keys, f"{where} saves the cache key {literal}… as {cache_keys.get(literal)} does")
                    cache_keys[literal] = where
                    if builds_rust:
                        check("~/.rustup/" in step["with"]["path"], f"{where} builds Rust but does not cache ~/.rustup")

    preview = flows["preview.yml"]
    check(preview.get("permissions") == {"contents": "read"}, "preview.yml: its token must be read-only")
    check(all("permissions" not in j for j in preview["jobs"].values()), "preview.yml: a job asks for more permissions")
    check("secrets." not in (WORKFLOWS / "preview.yml").read_text(), "preview.yml uses a secret: forks have none")
    check(set(triggers(preview)) == {"pull_request", "push", "workflow_dispatch"}, "preview.yml: unexpected triggers")

    deploy = flows["preview-deploy.yml"]
    on = triggers(deploy)
    check(set(on) == {"workflow_run"}, f"preview-deploy.yml must run on workflow_run alone, not {sorted(on)}")
    check(on["workflow_run"]["workflows"] == [preview["name"]], "preview-deploy.yml does not follow the preview workflow by its name")
    check(deploy.get("permissions") == {}, "preview-deploy.yml: the workflow's default token must have no permissions")
    for job_id, job in deploy["jobs"].items():
        for step in job["steps"]:
            if step.get("uses", "").startswith("actions/checkout@"):
                w = step.get("with", {})
                check("ref" not in w and "repository" not in w,
                      f"preview-deploy.yml {job_id}: checks out {w}: only the default branch may be checked out")
                check(w.get("persist-credentials") is False, f"preview-deploy.yml {job_id}: checkout keeps the token in git")

    measure = flows["measure.yml"]
    check(set(triggers(measure)) == {"workflow_dispatch"}, "measure.yml must start by hand only (workflow_dispatch)")
    inputs = triggers(measure)["workflow_dispatch"]["inputs"]
    check({"gpus", "kernel", "device", "counters"} <= set(inputs), f"measure.yml inputs: {sorted(inputs)}")

    ci = flows["ci.yml"]
    check({"push", "pull_request"} <= set(triggers(ci)), "ci.yml must run on every push and pull request")
    ci_runs = [s.get("run", "") for j in ci["jobs"].values() for s in j["steps"]]
    check(".ci/run" in ci_runs, "ci.yml does not run .ci/run")
    platforms = {image for j in ci["jobs"].values() if any(s.get("run") == ".ci/check-platform" for s in j["steps"])
                 for image in images(j)}
    check(any(i.startswith("macos") for i in platforms) and any(i.startswith("windows") for i in platforms),
          f"ci.yml does not check the tool on macOS and Windows: {sorted(platforms)}")

    release = flows["release.yml"]
    check(release["jobs"]["build"]["strategy"].get("fail-fast") is False, "release.yml: fail-fast must be off")
    check("build" in release["jobs"]["publish"]["needs"], "release.yml: publish must need every build")
    never_cancelled("release.yml", release)
    never_cancelled("preview-deploy.yml", deploy, "deploy")
    n_init = check_init()
    n_init += check_init_gpu()

    for f in failures:
        print("FAIL", f)
    if failures:
        sys.exit(1)
    print(f"workflows: {len(flows)} files and init's {n_init} (--gpu's included) keep their rules ({len(cache_keys)} cache keys, one per job)")


if __name__ == "__main__":
    main()
