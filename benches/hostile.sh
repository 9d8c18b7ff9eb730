#!/usr/bin/env bash
# Hostile-input benchmark (issue 35, "Bounded cost"): for each shape of 1 MiB entry that was
# once superlinear somewhere, times one entry and then twenty of them, with the release
# binary under GNU time, and prints wall time and peak memory. The bound the project holds:
# each entry built or refused in under 1 s, twenty in under 10 s, peak memory under 1 GiB.
#
#   bash benches/hostile.sh            # builds the release binary first
#   COURSEGEN=path/to/coursegen bash benches/hostile.sh
#   SHAPES="tex-inline term-limit" bash benches/hostile.sh   # some shapes only
#
# Shapes (each entry is a draft, so `build --drafts` renders it):
#   attributes  one raw-HTML tag with 112,000 attributes (the HTML cleaner's duplicate check)
#   html-attrs  10,000 `<html>` tags with eleven attributes each (merged into one element)
#   yaml-flow   `[[[…` 30,000 deep in 59 KiB of front matter (the YAML scanner)
#   yaml-block  `- - - …` 30,000 deep in 59 KiB of front matter
#   tex-braces  one formula of braces 200,000 deep (pulldown-latex rescans each group)
#   tex-frac    one formula of `\frac{` 100,000 deep
#   tex-sqrt    one formula of `\sqrt{` 140,000 deep
#   tex-deep    240 formulas of 4 KiB, `\sqrt{` 600 deep each
#   tex-matrix  one 16-column matrix of 1 MiB
#   tex-matrices 130 matrices of 7 KiB each (the page's MathML)
#   tex-inline  175,000 inline formulas
#   term-long   as term-limit, with a term of 20,000 characters
#   term-limit  a term at the length limit (63 `a` and a `b`, with the alias `ab`) over 1 MB
#               of `a`: every position walks the whole term, the worst the limit allows
# Needs GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${COURSEGEN:-}"
if [ -z "$bin" ]; then
    cargo build --release --locked --quiet --bin coursegen
    bin="${CARGO_TARGET_DIR:-target}/release/coursegen"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export SOURCE_DATE_EPOCH=1796040000

# One entry of shape $1, written to $2.
entry() {
    python3 - "$1" "$2" <<'EOF'
import os, sys
shape, path = sys.argv[1], sys.argv[2]
head = "---\ntitle: Hostile\nstatus: draft\n---\n"
if shape == "attributes":
    body = "<div " + " ".join(f"a{i:x}" for i in range(112_000)) + ">x</div>\n"
elif shape == "html-attrs":
    body = "".join("<html " + " ".join(f"a{t:x}b{i}" for i in range(11)) + ">" for t in range(9_990)) + "\n"
elif shape == "yaml-flow":
    head = "---\ntitle: Hostile\nstatus: draft\nx: " + "[" * 30_000 + "]" * 30_000 + "\n---\n"
    body = "Body.\n"
elif shape == "yaml-block":
    head = "---\ntitle: Hostile\nstatus: draft\nx:\n" + "- " * 30_000 + "x\n---\n"
    body = "Body.\n"
elif shape == "tex-braces":
    body = "$$" + "{" * 200_000 + "x" + "}" * 200_000 + "$$\n"
elif shape == "tex-frac":
    body = "$$" + "\\frac{" * 100_000 + "x" + "}{y}" * 100_000 + "$$\n"
elif shape == "tex-sqrt":
    body = "$$" + "\\sqrt{" * 140_000 + "x" + "}" * 140_000 + "$$\n"
elif shape == "tex-deep":
    body = ("$$" + "\\sqrt{" * 600 + "x" + "}" * 600 + "$$\n\n") * 240
elif shape.startswith("tex-matri"):
    row = " & ".join(["a_{ij}"] * 16)
    matrix = lambda rows: "$$\\begin{pmatrix}" + " \\\\ ".join([row] * rows) + "\\end{pmatrix}$$"
    body = matrix(7_000) if shape == "tex-matrix" else "\n\n".join([matrix(50)] * 130)
    body += "\n"
elif shape == "tex-inline":
    body = "$x$\n" * 175_000
elif shape.startswith("term-"):
    # The term in an entry of its own, linked from every entry of the shape.
    n = 20_000 if shape == "term-long" else 64
    term = "a" * (n - 1) + "b\naliases: [ab]"
    with open(os.path.join(os.path.dirname(path), "term.md"), "w") as f:
        f.write(f"---\ntitle: Term\nterm: {term}\nstatus: draft\n---\nThe term.\n")
    body = "a" * 1_000_000 + " ab\n"
else:
    sys.exit(f"unknown shape {shape}")
text = head + body
assert len(text.encode()) <= 1 << 20, len(text.encode())
open(path, "w").write(text)
EOF
}

printf '| shape | entries | exit | wall (s) | peak memory (MiB) |\n| --- | --- | --- | --- | --- |\n'
for shape in ${SHAPES:-attributes html-attrs yaml-flow yaml-block tex-braces tex-frac tex-sqrt tex-deep tex-matrix tex-matrices tex-inline term-long term-limit}; do
    for n in 1 20; do
        site="$work/$shape-$n"
        mkdir -p "$site/content/glossary"
        entry "$shape" "$site/content/glossary/e0.md"
        for i in $(seq 1 $((n - 1))); do cp "$site/content/glossary/e0.md" "$site/content/glossary/e$i.md"; done
        status=0
        /usr/bin/time -v -o "$work/time" "$bin" build --drafts --no-search --no-cache \
            --root "$site" >/dev/null 2>"$work/err" || status=$?
        wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$work/time")
        peak=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$work/time")
        printf '| %s | %d | %d | %s | %s |\n' "$shape" "$n" "$status" "$wall" "$peak"
    done
done
