#!/usr/bin/env python3
"""Turn a gen_corpus site into a Zola site with the same pages, for benches/anchors.sh.

    python3 benches/zola/convert.py [--cuda-as LANG] CORPUS OUT

CORPUS is a folder written by `cargo run --release --example gen_corpus -- --out CORPUS`.
OUT receives:

  content/glossary/<slug>.md   every entry, its Markdown body byte for byte but for the code
                               fences (--cuda-as). Zola checks its front matter against its
                               own schema, so coursegen's YAML front matter (between `---`
                               lines, which Zola reads as YAML) keeps `title` and moves every
                               other field under `extra:` (term, category, cc, summary,
                               related, sources, byline, ... become page.extra.*)
  content/glossary/_index.md   the section: title "Glossary" (coursegen's section title)
  content/search.md            the search page (coursegen writes /search/index.html)
  static/                      CORPUS/static, copied (style.css, highlight.css, ...)
  config.toml                  highlighting (CSS classes) and Zola's search index on
  config-plain.toml            both off; see the comments inside
  config-0.21.toml             config.toml for Zola 0.21 (syntect's settings instead of Giallo's)
  templates/                   the counterparts of coursegen's templates: entry page
                               (page.html), glossary index grouped by category (section.html),
                               home page (index.html), search.html, 404.html

`zola build` then writes the same HTML pages as `coursegen build`: /glossary/<slug>/index.html
for each entry, /glossary/index.html, /index.html, /search/index.html, /404.html, and the
static files; with config.toml also search_index.en.js (+ elasticlunr.min.js).

Why --cuda-as: Giallo, Zola's highlighter, has no CUDA grammar, and config.toml sets
error_on_missing_language, so a ```cuda fence would fail the build (without that setting it
would come out escaped but uncoloured, and "highlighting on" would highlight nothing). The
default, cpp, has Giallo colour each block with its C++ grammar, the nearest it has: the work
a highlighted build is meant to measure. The Hugo twin (benches/hugo/convert.py) does the same.

Standard library only. OUT must be empty, missing, or an earlier output of this script.
"""
import argparse
import re
import shutil
import sys
from pathlib import Path

MARKER = ".zola_site"
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
    (out / MARKER).write_text("written by benches/zola/convert.py; safe to delete\n")


def zola_front_matter(entry, front):
    """Coursegen's YAML front matter as Zola's: `title` stays, the rest goes under `extra:`.

    Every top-level key of the block starts a line at column 0; its value and any nested
    lines follow. Indenting each line that is not part of `title` by two spaces makes it a
    key of `extra` with the same value (gen_corpus writes no block scalars, whose content
    would be indented too and stay valid all the same)."""
    title, extra, in_title = [], [], False
    for line in front.splitlines(keepends=True):
        if line[:1] not in (" ", "\t", "\n", "") and not line.startswith("#"):
            in_title = line.startswith("title:")
        if in_title:
            title.append(line)
        elif line.strip():
            extra.append("  " + line)
    if not title:
        fail(f"{entry} has no `title` in its front matter")
    return "".join(title) + "extra:\n" + "".join(extra)


def main(argv):
    parser = argparse.ArgumentParser(
        description="Turn a gen_corpus site into a Zola site with the same pages."
    )
    parser.add_argument("corpus", type=Path, help="a gen_corpus --out folder")
    parser.add_argument("out", type=Path, help="the Zola site to write")
    parser.add_argument(
        "--cuda-as",
        default="cpp",
        metavar="LANG",
        help="language the ```cuda fences open with in Zola's copy (default: cpp, since "
        "Giallo has no CUDA grammar; 'cuda' keeps the bodies verbatim)",
    )
    args = parser.parse_args(argv[1:])
    corpus, out = args.corpus, args.out
    fence = re.compile(r"^```cuda[ \t]*$", re.MULTILINE)
    replacement = "```" + args.cuda_as
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
        text = entry.read_text(encoding="utf-8")
        if not text.startswith("---\n"):
            fail(f"{entry} does not start with YAML front matter ('---')")
        end = text.find("\n---\n", 3)
        if end < 0:
            fail(f"{entry}: its front matter has no closing '---' line")
        front, body = text[4 : end + 1], text[end + 5 :]
        if args.cuda_as != "cuda":
            body = fence.sub(replacement, body)
        page = "---\n" + zola_front_matter(entry, front) + "---\n" + body
        (dest / entry.name).write_text(page, encoding="utf-8")
    (dest / "_index.md").write_text('+++\ntitle = "Glossary"\n+++\n')
    (out / "content" / "search.md").write_text(
        '+++\ntitle = "Search"\ntemplate = "search.html"\n+++\n'
    )

    if (corpus / "static").is_dir():
        shutil.copytree(corpus / "static", out / "static")
    for name in ("config.toml", "config-plain.toml", "config-0.21.toml"):
        shutil.copy(SKELETON / name, out / name)
    shutil.copytree(SKELETON / "templates", out / "templates")
    print(f"wrote {len(entries)} entries to {dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
