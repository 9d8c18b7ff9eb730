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
- ci.yml runs .ci/run on every push and pull request;
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
}
RUN = re.compile(r"^\.ci/[A-Za-z0-9._-]+( [^\n;&|`$()<>]*)?$")

failures = []


def check(ok, message):
    if not ok:
        failures.append(message)


def triggers(wf):
    on = wf.get("on", wf.get(True))  # YAML 1.1 reads a bare `on` as true
    return {on: None} if isinstance(on, str) else {t: None for t in on} if isinstance(on, list) else on


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

    for f in failures:
        print("FAIL", f)
    if failures:
        sys.exit(1)
    print(f"workflows: {len(flows)} files keep their rules ({len(cache_keys)} cache keys, one per job)")


if __name__ == "__main__":
    main()
