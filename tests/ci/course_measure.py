#!/usr/bin/env python3
"""The measure workflow `coursegen init --gpu` writes, run as written with this repository's
action (`measure: run` on the "GPU runner", `measure: pr` after it): no network, no GitHub,
no GPU.

    python3 tests/ci/course_measure.py --coursegen target/release/coursegen

The runner of tests/ci/course_site.py, given a matrix (`fromJSON(inputs.gpus)`), workflow
dispatch inputs and artifacts downloaded by pattern, runs the workflow's jobs, and the
action's steps — the .ci/ scripts of this checkout, as $GITHUB_ACTION_PATH — for real. A
self-hosted runner is this machine. The action installs, from a file:// release, a
coursegen whose `measure --gpu` is tests/ci/fake-gpu-coursegen (it writes this repository's
committed record of each kernel with its first row 10 % slower); everything else, `measure
--compare` above all, is the real binary given. `origin` is a bare repository; `gh` is
tests/ci/gh-stub.

The course: `coursegen init --gpu`, with a second kernel (bank_conflicts) and the records of
an earlier run (this repository's) committed. Then:

1. every kernel on `["gpu-h200"]`: the GPU job runs on [self-hosted, linux, gpu-h200] in a
   checkout of main; one pull request against main whose commit holds the two records alone
   and whose description holds both comparisons (row P1 slower);
2. `kernels: changed` with every record fresh: nothing measured, no pull request;
3. bank_conflicts.cu edited on main, `kernels: changed`: bank_conflicts alone measured, a
   second pull request with its record alone;
4. `kernels` carrying a shell command: refused by .ci/measure (the input reaches it through
   the environment, never the script's text), nothing run, no pull request.

Exits 1 listing every failure. Needs git, jq and PyYAML.
"""
import argparse
import fnmatch
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import course_site  # noqa: E402  (the runner stand-in)
from course_site import NAME, ORG, REPO, Ctx, GitHub, copy_site, evaluate, git, interpolate, run  # noqa: E402

failures = course_site.failures
check = course_site.check
STATUS = re.compile(r"\b(success|failure|always|cancelled)\(\)")


class Measure(GitHub):
    """GitHub with workflow_dispatch, a matrix and artifacts by pattern; checkouts come from
    the bare `origin`, where the records branch is pushed."""

    def __init__(self, tmp: Path, real: str):
        self.fake_log = tmp / "coursegen.log"
        nvrtc = tmp / "cuda/lib64"  # NVRTC as a CUDA toolkit leaves it: .ci/measure installs none
        nvrtc.mkdir(parents=True)
        (nvrtc / "libnvrtc.so.13").touch()
        fake = dict(REAL_COURSEGEN=real, FAKE_RECORDS=str(REPO / "measurements"), FAKE_LOG=str(self.fake_log),
                    LD_LIBRARY_PATH=str(nvrtc))
        os.environ.update(fake)  # the release is packed with the stand-in, which runs `man`
        super().__init__(tmp, str(REPO / "tests/ci/fake-gpu-coursegen"))
        self.env.update(fake, HOME=str(tmp / "home"))
        (tmp / "home").mkdir()
        self.runs_on = []

    def dispatch(self, inputs):
        """Runs the measure workflow from main with these inputs; returns (conclusion, log)."""
        wf = self.workflows["Measure kernels"]
        sha = git("rev-parse", "main", cwd=self.course)
        run_id = len(self.runs) + 1
        self.env["GITHUB_RUN_ID"] = str(run_id)
        self.runs[run_id] = {"artifacts": {}, "log": ""}
        ctx = Ctx(github=Ctx(
            event_name="workflow_dispatch", event=Ctx(inputs=inputs), sha=sha, ref_name="main", ref="refs/heads/main",
            ref_type="branch", repository=f"{ORG}/{NAME}", server_url=str(self.server), token="ghs_workflow",
            action_repository="coursegen/coursegen", run_id=run_id,
        ), inputs=Ctx(inputs), secrets=Ctx(), needs=Ctx())
        conclusion = "success"
        for job_id, job in wf["jobs"].items():
            needs = job.get("needs", [])
            needs = [needs] if isinstance(needs, str) else needs
            cond = str(job.get("if", "success()")).replace("${{", "").replace("}}", "")
            if not STATUS.search(cond):
                cond = f"success() && ({cond})"
            jctx = Ctx(ctx, steps=Ctx(), needs=ctx["needs"],
                       _failed=any(ctx["needs"][n]["result"] != "success" for n in needs))
            if not evaluate(cond, jctx):
                ctx["needs"][job_id] = Ctx(result="skipped")
                continue
            matrix = job.get("strategy", {}).get("matrix")
            combos = [Ctx()]
            if matrix:
                m = re.fullmatch(r"\$\{\{\s*fromJSON\(inputs\.(\w+)\)\s*\}\}", matrix["gpu"])
                combos = [Ctx(gpu=g) for g in json.loads(inputs[m.group(1)])]
            ok = True
            for combo in combos:
                jc = Ctx(jctx, matrix=combo, steps=Ctx(), _failed=False)
                runs_on = job["runs-on"]
                self.runs_on.append([interpolate(r, jc) for r in runs_on] if isinstance(runs_on, list) else runs_on)
                ok = self.job(job, jc, run_id) and ok
            ctx["needs"][job_id] = Ctx(result="success" if ok else "failure")
            if not ok:
                conclusion = "failure"
        return conclusion, self.runs[run_id]["log"]

    def job(self, job, ctx, run_id):
        ctx["runner"] = Ctx(temp=tempfile.mkdtemp(dir=self.tmp, prefix="runner-temp-"))
        ctx["_workspace"] = Path(tempfile.mkdtemp(dir=self.tmp, prefix="workspace-"))
        ctx["github"] = Ctx(ctx["github"], workspace=str(ctx["_workspace"]))
        ctx["_path"] = []
        for step in job["steps"]:
            self.step(step, ctx, run_id, REPO)
        return not ctx["_failed"]

    def uses(self, uses, with_, ctx, run_id):
        action = uses.partition("@")[0]
        arts = self.runs[run_id]["artifacts"]
        if action == "actions/checkout":
            ws = ctx["_workspace"]
            shutil.rmtree(ws)
            git("clone", "-q", str(self.remote), str(ws), cwd=self.tmp)
            git("checkout", "-q", ctx["github"]["sha"], cwd=ws)
            return True, Ctx()
        if action == "actions/upload-artifact":
            src = Path(with_["path"])
            if not any(p.is_file() for p in src.rglob("*")):
                return True, Ctx()  # if-no-files-found: warn
            dst = self.tmp / "artifacts" / str(run_id) / with_["name"]
            copy_site(src, dst)
            arts[with_["name"]] = dst
            return True, Ctx()
        if action == "actions/download-artifact" and "pattern" in with_:
            for name, src in arts.items():
                if fnmatch.fnmatch(name, with_["pattern"]):
                    copy_site(src, Path(with_["path"]) / ("" if with_.get("merge-multiple") else name), hidden=True)
            return True, Ctx()
        return super().uses(uses, with_, ctx, run_id)

    def prs(self):
        path = self.stub / "prs.json"
        return json.loads(path.read_text()) if path.exists() else []

    def push_main(self, message):
        self.commit(message)
        git("push", "-q", str(self.remote), "main", cwd=self.course)


def play(gh: Measure, real: str):
    print("-- the course: init --gpu, a second kernel, an earlier run's records, on main")
    run([real, "init", "--gpu", str(gh.course)], gh.tmp, gh.env)
    for ext in ("cu", "yaml"):
        shutil.copy(REPO / f"kernels/bank_conflicts.{ext}", gh.course / "kernels")
    for k in ("warp_divergence", "bank_conflicts"):
        shutil.copytree(REPO / "measurements" / k, gh.course / "measurements" / k)
    git("init", "-q", "-b", "main", ".", cwd=gh.course)
    gh.push_main("the course")
    head = git("rev-parse", "HEAD", cwd=gh.course)
    gh.load_workflows()
    if not check("Measure kernels" in gh.workflows, f"init --gpu wrote no measure workflow: {sorted(gh.workflows)}"):
        return
    record = "nvidia-h200-52952016.json"

    print("-- 1. every kernel on gpu-h200")
    conclusion, log = gh.dispatch({"gpus": '["gpu-h200"]', "kernels": "", "device": "0", "counters": "false"})
    check(conclusion == "success", f"the measure run concluded {conclusion}:\n{log}")
    check(gh.runs_on[0] == ["self-hosted", "linux", "gpu-h200"], f"the GPU job ran on {gh.runs_on}")
    calls = gh.fake_log.read_text().splitlines() if gh.fake_log.exists() else []
    gpu_calls = [c for c in calls if "|measure --gpu" in c]
    check(len(gpu_calls) == 1 and "|measure --gpu --device 0|" in gpu_calls[0] and "workspace-" in gpu_calls[0],
          f"the GPU job did not run `measure --gpu --device 0` once in its checkout: {gpu_calls}")
    check(any("|measure --compare" in c for c in calls), f"nothing was compared: {calls}")
    prs = gh.prs()
    if check(len(prs) == 1, f"pull requests after the first run: {prs}\n{log}"):
        pr = prs[0]
        check(pr["base"] == "main" and pr["head"] == "measurements/run-1", f"the pull request goes {pr['head']} -> {pr['base']}")
        for k in ("warp_divergence", "bank_conflicts"):
            check(f"#### {k}/{record}.compare.txt" in pr["body"], f"the description lacks {k}'s comparison:\n{pr['body']}")
        check(re.search(r"P1[^\n]*slower", pr["body"]) is not None, f"the description does not say row P1 is slower:\n{pr['body']}")
        check(f"/HEAD/measurements/warp_divergence/{record} — NVIDIA H200" in pr["body"],
              f"the comparison does not name the committed record:\n{pr['body']}")
        check("gpu-h200" in pr["title"], f"the title does not name the GPU: {pr['title']}")
        files = git("diff", "--name-only", "main", pr["head"], cwd=gh.remote).split()
        check(files == [f"measurements/bank_conflicts/{record}", f"measurements/warp_divergence/{record}"],
              f"the records branch changes {files}")
        check(git("rev-parse", f"{pr['head']}~1", cwd=gh.remote) == head, "the records commit is not on main's tip")

    print("-- 2. kernels: changed, every record fresh")
    gh.fake_log.write_text("")
    conclusion, log = gh.dispatch({"gpus": '["gpu-h200"]', "kernels": "changed", "device": "0", "counters": "false"})
    check(conclusion == "success", f"a run with nothing to measure concluded {conclusion}:\n{log}")
    check("nothing to measure" in log, f"the run does not say there was nothing to measure:\n{log}")
    check("|measure --gpu" not in gh.fake_log.read_text(), "a fresh kernel was measured")
    check(len(gh.prs()) == 1, "a run with nothing measured opened a pull request")

    print("-- 3. bank_conflicts.cu edited; kernels: changed")
    with open(gh.course / "kernels/bank_conflicts.cu", "a") as f:
        f.write("// a comment\n")
    gh.push_main("edit bank_conflicts")
    conclusion, log = gh.dispatch({"gpus": '["gpu-h200"]', "kernels": "changed", "device": "0", "counters": "true"})
    check(conclusion == "success", f"the changed run concluded {conclusion}:\n{log}")
    gpu_calls = [c for c in gh.fake_log.read_text().splitlines() if "|measure --gpu" in c]
    check(len(gpu_calls) == 1 and "--kernel bank_conflicts --counters|" in gpu_calls[0],
          f"the changed run did not measure bank_conflicts alone, with counters: {gpu_calls}")
    prs = gh.prs()
    if check(len(prs) == 2, f"pull requests after the changed run: {len(prs)}"):
        check("bank_conflicts/" in prs[1]["body"] and "warp_divergence/" not in prs[1]["body"],
              f"the second pull request is not bank_conflicts's alone:\n{prs[1]['body']}")

    print("-- 4. an input that carries a command")
    gh.fake_log.write_text("")
    conclusion, log = gh.dispatch({"gpus": '["gpu-h200"]', "kernels": "warp_divergence;touch ${HOME}/pwned",
                                   "device": "0", "counters": "false"})
    check(conclusion == "failure", f"a kernels input with a command concluded {conclusion}")
    check("is not a kernel name" in log, f"the refusal does not say why:\n{log}")
    check("|measure --gpu" not in gh.fake_log.read_text(), "a refused input still measured")
    check(not (Path(gh.env.get("HOME", "/nonexistent")) / "pwned").exists(), "the input ran as a command")
    check(len(gh.prs()) == 2, "a refused run opened a pull request")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--coursegen", required=True, help="the release binary (target/release/coursegen)")
    args = ap.parse_args()
    real = str(Path(args.coursegen).resolve())
    tmp = Path(tempfile.mkdtemp(prefix="coursegen-course-measure-"))
    try:
        play(Measure(tmp, real), real)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print("FAIL", f)
    if failures:
        sys.exit(1)
    print("course measure: every kernel, changed ones, nothing changed and a hostile input all pass")


if __name__ == "__main__":
    main()
