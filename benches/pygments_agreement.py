#!/usr/bin/env python3
"""How often coursegen's highlighter and Pygments put a character in the same coarse class,
per corpus file (tests/corpus/). A reference, not a verdict: the two disagree by design in
places (coursegen colours calls and command options; Pygments colours operators).

Usage: python3 benches/pygments_agreement.py target/debug/coursegen
Needs Pygments (pip install pygments). Prints a Markdown table.
"""
import html.parser
import pathlib
import subprocess
import sys
import tempfile

from pygments import lex
from pygments.lexers import get_lexer_by_name
from pygments.token import Comment, Generic, Keyword, Name, Number, String

REPO = pathlib.Path(__file__).resolve().parents[1]
# corpus file suffix -> (coursegen fence, Pygments lexer)
LANGS = {
    ".cu": ("cuda", "cuda"),
    ".ptx": ("ptx", None),
    ".sass": ("sass", None),
    ".sh": ("bash", "bash"),
    ".py": ("python", "python"),
    ".cmake": ("cmake", "cmake"),
    ".json": ("json", "json"),
    ".yaml": ("yaml", "yaml"),
    ".console": ("console", "console"),
}
OURS = {
    "hl-kw": "kw", "hl-qual": "kw", "hl-ty": "ty", "hl-bi": "bi", "hl-fn": "fn",
    "hl-str": "str", "hl-num": "num", "hl-lit": "lit", "hl-com": "com", "hl-pp": "pp",
    "hl-var": "var", "hl-dec": "dec", "hl-prompt": "prompt", "hl-out": "out",
    "hl-key": "key", "hl-reg": "var", "hl-label": "label",
}


def theirs(tok):
    for t, c in [
        (Comment.Preproc, "pp"), (Comment.PreprocFile, "str"), (Comment, "com"),
        (Keyword.Type, "ty"), (Keyword.Constant, "lit"), (Keyword, "kw"),
        (Name.Builtin, "bi"), (Name.Function, "fn"), (Name.Class, "ty"),
        (Name.Decorator, "dec"), (Name.Variable, "var"), (Name.Label, "label"),
        (Name.Tag, "key"), (String, "str"), (Number, "num"),
        (Generic.Prompt, "prompt"), (Generic.Output, "out"),
    ]:
        if tok in t:
            return c
    return ""


class Code(html.parser.HTMLParser):
    """Per-character class of the text inside <pre><code>."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.chars, self.inside = [], [], False

    def handle_starttag(self, tag, attrs):
        if tag == "code":
            self.inside = True
        elif tag == "span" and self.inside:
            self.stack.append(OURS.get(dict(attrs).get("class", ""), ""))

    def handle_endtag(self, tag):
        if tag == "code":
            self.inside = False
        elif tag == "span" and self.inside and self.stack:
            self.stack.pop()

    def handle_data(self, data):
        if self.inside:
            cls = next((c for c in reversed(self.stack) if c), "")
            self.chars.extend(cls for _ in data)


def main():
    binary = pathlib.Path(sys.argv[1]).resolve()
    corpus = sorted(p for p in (REPO / "tests/corpus").iterdir() if p.suffix in LANGS)
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        for d in ["templates", "static"]:
            subprocess.run(["cp", "-r", REPO / d, root / d], check=True)
        (root / "content/glossary").mkdir(parents=True)
        for p in corpus:
            fence = "`" * 6
            text = p.read_text()
            (root / f"content/glossary/{p.name.replace('.', '-')}.md").write_text(
                f"---\ntitle: x\n---\n\n{fence}{LANGS[p.suffix][0]}\n{text}\n{fence}\n"
            )
        subprocess.run([binary, "build", "--drafts", "--root", root], check=True, capture_output=True)
        print("| file | lexer | characters (non-blank) | same class as Pygments |")
        print("| --- | --- | ---: | ---: |")
        for p in corpus:
            fence, pyg = LANGS[p.suffix]
            if pyg is None:
                print(f"| `{p.name}` | {fence} | | no Pygments lexer |")
                continue
            page = (root / f"public/glossary/{p.name.replace('.', '-')}/index.html").read_text()
            parser = Code()
            parser.feed(page[page.index("<pre"):])
            text = p.read_text()
            ref = []
            for tok, value in lex(text, get_lexer_by_name(pyg)):
                ref.extend(theirs(tok) for _ in value)
            ours = parser.chars
            n = min(len(ours), len(ref), len(text))
            idx = [i for i in range(n) if not text[i].isspace()]
            same = sum(ours[i] == ref[i] for i in idx)
            print(f"| `{p.name}` | {fence} | {len(idx)} | {100 * same / max(1, len(idx)):.1f} % |")


if __name__ == "__main__":
    main()
