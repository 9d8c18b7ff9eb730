#!/usr/bin/env python3
"""Turn a gen_corpus site into a Hugo site with the same pages, for benches/compare.sh.

    python3 benches/hugo/convert.py [--cuda-as LANG] CORPUS OUT

CORPUS is a folder written by `cargo run --release --example gen_corpus -- --out CORPUS`.
OUT receives:

  content/glossary/<slug>.md   every entry, byte for byte but for one line: coursegen's
                               front matter is YAML between `---` lines, which Hugo reads as
                               is (`title` and `summary` are Hugo's own fields; term,
                               category, cc, related, sources, byline, ... become .Params),
                               and the Markdown body is the one coursegen renders, except
                               that each "```cuda" fence opens as "```cpp" (--cuda-as)
  content/glossary/_index.md   the section's title, "Glossary" (coursegen's section title)
  static/                      CORPUS/static, copied (style.css, highlight.css)
  hugo.toml, hugo-nohl.toml    highlighting on (CSS classes) / off; see the comments inside
  layouts/                     the counterparts of coursegen's templates: entry page, glossary
                               index grouped by category, home page, search-index.json

Hugo then writes the same pages as `coursegen build`: /glossary/<slug>/index.html for each
entry, /glossary/index.html, /index.html, /search-index.json and the static files.

Why --cuda-as: Chroma, Hugo's highlighter, has no CUDA lexer. A ```cuda block reaches it as an
unknown language and comes out escaped but uncoloured, so with `--cuda-as cuda` (the body
kept verbatim) Hugo's "highlighting on" build highlights nothing. The default, cpp, has
Chroma colour each block with its C++ lexer, the nearest it has: the work a highlighted
build is meant to measure. With highlighting off the fence's language only changes a class.

Standard library only. OUT must be empty, missing, or an earlier output of this script.
"""
import argparse
import re
import shutil
import sys
from pathlib import Path

MARKER = ".hugo_site"
SKELETON = Path(__file__).resolve().parent / "site"


def fail(message):
    print(f"error: {message}", file=sys.stderr)
    sys.exit(1)


def prepare_out(out):
    if out.exists():
        if any(out.iterdir()) and not (out / MARKER).exists():
            fail(f"{out} is not empty and was not written by convert.py; pick a new OUT")
        shutil.rmtree(out)
    out.mkdir(parents=True)
    (out / MARKER).write_text("written by benches/hugo/convert.py; safe to delete\n")


def main(argv):
    parser = argparse.ArgumentParser(
        description="Turn a gen_corpus site into a Hugo site with the same pages."
    )
    parser.add_argument("corpus", type=Path, help="a gen_corpus --out folder")
    parser.add_argument("out", type=Path, help="the Hugo site to write")
    parser.add_argument(
        "--cuda-as",
        default="cpp",
        metavar="LANG",
        help="language the ```cuda fences open with in Hugo's copy (default: cpp, since "
        "Chroma has no CUDA lexer; 'cuda' keeps the bodies verbatim)",
    )
    args = parser.parse_args(argv[1:])
    corpus, out = args.corpus, args.out
    fence = re.compile(rb"^```cuda[ \t]*$", re.MULTILINE)
    replacement = b"```" + args.cuda_as.encode()
    glossary = corpus / "content" / "glossary"
    if not glossary.is_dir():
        fail(f"{glossary} does not exist; is {corpus} a gen_corpus output?")
    entries = sorted(glossary.glob("*.md"))
    if not entries:
        fail(f"no entries in {glossary}")
    prepare_out(out)

    dest = out / "content" / "glossary"
    dest.mkdir(parents=True)
    for entry in entries:
        data = entry.read_bytes()
        if not data.startswith(b"---\n"):
            fail(f"{entry} does not start with YAML front matter ('---')")
        if args.cuda_as != "cuda":
            data = fence.sub(replacement, data)
        (dest / entry.name).write_bytes(data)
    (dest / "_index.md").write_text('---\ntitle: "Glossary"\n---\n')

    if (corpus / "static").is_dir():
        shutil.copytree(corpus / "static", out / "static")
    for name in ("hugo.toml", "hugo-nohl.toml"):
        shutil.copy(SKELETON / name, out / name)
    shutil.copytree(SKELETON / "layouts", out / "layouts")
    print(f"wrote {len(entries)} entries to {dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
