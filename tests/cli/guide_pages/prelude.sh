# Sourced first by every page's script (tests/cli/guide_pages.rs): the checks run after each
# command, and the helpers a page's hidden setup may call. Each page runs in its own temp
# folder; GUIDE_HOMES holds one home per person, GUIDE_TMP is the page's scratch folder.
export GIT_AUTHOR_NAME='Guide Test' GIT_AUTHOR_EMAIL=guide@example.org
export GIT_COMMITTER_NAME='Guide Test' GIT_COMMITTER_EMAIL=guide@example.org
# The stand-ins' state: gh (tests/ci/gh-stub) and srun (tests/ci/srun-stub).
export GH_STUB_DIR="$GUIDE_TMP/gh" SRUN_LOG="$GUIDE_TMP/srun.log"
mkdir -p "$GH_STUB_DIR"
# A page's `mktemp -d` makes its folder in the page's scratch folder, removed with it.
export TMPDIR="$GUIDE_TMP"
# The servers a page's setup started (guide_web_serve) stop with its script.
trap 'for p in $(cat "$GUIDE_TMP/servers" 2>/dev/null); do kill "$p" 2>/dev/null; done' EXIT

# guide_step TEXT: the command about to run, for the log a failure shows.
guide_step() { printf '+ %s\n' "$1"; }

# guide_check STATUS WANT WHERE: the command at WHERE exited as the page says, or the page fails.
guide_check() {
    [ "$1" = "$2" ] && return 0
    echo "guide-test: $3: exited $1, the page says $2" >&2
    exit 1
}

# guide_as PERSON: what follows runs in PERSON's home (~/.ssh/ made).
guide_as() { export HOME="$GUIDE_HOMES/$1"; mkdir -p "$HOME/.ssh"; }

# guide_check_output STATUS WANT WHERE EXPECTED: the command at WHERE exited as the page says
# and printed ($GUIDE_TMP/out) what the page shows after it: line for line, but that a
# duration (`296 ms`, `1.2 s`) matches any and a line `...` any lines, or none.
guide_check_output() {
    cat "$GUIDE_TMP/out"
    guide_check "$1" "$2" "$3"
    python3 - "$GUIDE_TMP/out" "$4" "$3" <<'PY' || exit 1
import re, sys
got, want, where = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
duration = r"[0-9]+(?:\.[0-9]+)? m?s\b"
def line(text):
    if text == "...":
        return r"(?:[^\n]*\n)*?"
    return duration.join(re.escape(part) for part in re.split(duration, text)) + r"\n"
got += "" if got.endswith("\n") or not got else "\n"
if not re.fullmatch("".join(line(l) for l in want.split("\n") if want), got):
    sys.exit(f"guide-test: {where}: printed what is above; the page shows:\n{want}")
PY
}

# guide_stop_when_served PORT NAME (in the background): once 127.0.0.1:PORT answers, Ctrl-C
# the server (a child of the page's shell named NAME), as a reader stops it; after 20 s,
# anyway.
guide_stop_when_served() {
    for _ in $(seq 100); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then
            touch "$GUIDE_TMP/served-$1"
            break
        fi
        sleep 0.2
    done
    pkill -INT -P $$ -x "$2"
}

# guide_check_served STATUS PORT WANT WHERE: the server answered and, stopped with Ctrl-C,
# exited WANT.
guide_check_served() {
    wait
    if [ ! -e "$GUIDE_TMP/served-$2" ]; then
        echo "guide-test: $4: nothing answered at http://127.0.0.1:$2 (exit $1)" >&2
        exit 1
    fi
    rm -f "$GUIDE_TMP/served-$2"
    guide_check "$1" "$3" "$4 (stopped with Ctrl-C)"
}

# guide_course [DIR]: a course `coursegen init` made in DIR (default: course), committed
# to a git repository of its own; the shell is left in it.
guide_course() {
    coursegen init "${1:-course}" >/dev/null && cd "${1:-course}" &&
        git init -q && git add -A && git commit -qm 'coursegen init'
}

# guide_checkout: a checkout of this repository (its course and `.ci/` scripts, as the
# working tree has them) in ./coursegen, whose scripts use the coursegen under test
# (COURSEGEN); the shell is left in it.
guide_checkout() {
    mkdir coursegen &&
        (cd "$GUIDE_REPO" && git ls-files -z -- .ci content kernels measurements templates static \
            assets coursegen.toml | tar --null -T - -cf -) | tar -xf - -C coursegen &&
        cd coursegen && export COURSEGEN="$GUIDE_COURSEGEN"
}

# guide_key PERSON: an unencrypted ~/.ssh/id_ed25519 in PERSON's home.
guide_key() {
    mkdir -p "$GUIDE_HOMES/$1/.ssh" &&
        ssh-keygen -q -t ed25519 -N '' -C "$1" -f "$GUIDE_HOMES/$1/.ssh/id_ed25519"
}

# guide_team: Ada Lovelace (home ada) and Grace Hopper (home grace), each with a key of
# their own, listed in the course's allowed-signers file.
guide_team() {
    guide_key ada && guide_key grace &&
        coursegen signers add "Ada Lovelace" --key "$GUIDE_HOMES/ada/.ssh/id_ed25519.pub" >/dev/null &&
        coursegen signers add "Grace Hopper" --key "$GUIDE_HOMES/grace/.ssh/id_ed25519.pub" >/dev/null
}

# guide_entry: content/glossary/warp.md as Your first course writes it (its first yaml
# block), ready to sign.
guide_entry() {
    awk '/^```yaml$/ { n++; on = (n == 1); next } /^```$/ { on = 0 } on' \
        "$GUIDE_REPO/guide/src/getting-started/first-course.md" >content/glossary/warp.md
}

# guide_signed: the entry written, signed by Grace (reviewer, --publish) and Ada (author).
guide_signed() {
    guide_entry &&
        HOME="$GUIDE_HOMES/grace" coursegen sign content/glossary/warp.md --author "Ada Lovelace" \
            --reviewer "Grace Hopper" --publish --key "$GUIDE_HOMES/grace/.ssh/id_ed25519" >/dev/null &&
        HOME="$GUIDE_HOMES/ada" coursegen sign content/glossary/warp.md --role author \
            --key "$GUIDE_HOMES/ada/.ssh/id_ed25519" >/dev/null
}

# guide_web_serve HOST: $GUIDE_TMP/web/HOST/ served on 127.0.0.1 (a free port, written to
# $GUIDE_TMP/web/HOST.port), for the stand-in coursegen's `verify https://HOST/…`.
guide_web_serve() {
    python3 - "$GUIDE_TMP/web/$1" "$GUIDE_TMP/web/$1.port" <<'PY' &
import functools, http.server, os, sys
class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args): pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=sys.argv[1]))
with open(sys.argv[2] + ".tmp", "w") as f: f.write(str(server.server_address[1]))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
server.serve_forever()
PY
    echo $! >>"$GUIDE_TMP/servers"
    for _ in $(seq 100); do [ -e "$GUIDE_TMP/web/$1.port" ] && return 0; sleep 0.1; done
    return 1
}

# guide_attested FILE REPO: GitHub's attestation service holds an attestation of FILE by a
# workflow of REPO, as the deploy's attestation step makes (for the stand-in `gh`).
guide_attested() {
    jq -n --arg r "$2" --arg d "$(sha256sum "$1" | cut -d' ' -f1)" '[{repo: $r, sha256: $d}]' \
        >"$GH_STUB_DIR/attestations.json"
}

# guide_cluster PERSON: a Slurm login node for PERSON: ~/my-course, a course `coursegen init
# --gpu` made, on main, pushed to `origin` (a bare repository); sbatch, srun and gh are
# stand-ins (tests/ci/), NVRTC is a toolkit's folder, and a GPU run writes this repository's
# committed records (FAKE_RECORDS, through the stand-in coursegen).
guide_cluster() {
    guide_as "$1" &&
        coursegen init --gpu "$HOME/my-course" >/dev/null && cd "$HOME/my-course" &&
        git init -q -b main && git add -A && git commit -qm 'coursegen init --gpu' &&
        git init -q --bare "$GUIDE_TMP/origin.git" && git remote add origin "$GUIDE_TMP/origin.git" &&
        git push -q -u origin main && cd "$HOME" &&
        mkdir -p "$GUIDE_TMP/cuda/lib64" && touch "$GUIDE_TMP/cuda/lib64/libnvrtc.so.13" &&
        export LD_LIBRARY_PATH="$GUIDE_TMP/cuda/lib64" FAKE_RECORDS="$GUIDE_REPO/measurements"
}
