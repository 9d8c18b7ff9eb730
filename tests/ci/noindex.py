#!/usr/bin/env python3
""".ci/noindex on the pages a fork's pull request can write (tests/ci/run runs this):

- a page keeps its robots meta when it says noindex (any case, quoted or not, the attributes
  in any order), and gets ours when it does not (another robot's tag, `index`, `noindex`
  only inside another attribute's value, a value left open);
- the tag goes right after <head ...>, else <html ...>, else the doctype, else first;
- every hostile page (one meta tag of 16,000 words, thousands of unclosed tags) is
  checked and fixed in well under a second each: the deploy job runs this with write access.

    python3 tests/ci/noindex.py

Exits 1 listing every failure.
"""
import subprocess
import sys
import tempfile
import resource
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TAG = '<meta name="robots" content="noindex">'

KEEPS = {
    "upper.html": "<html><head><META NAME='robots' content=\"nofollow, NOINDEX\"></head></html>",
    "unquoted.html": "<head><meta content=noindex name=robots></head>",
    "spaced.html": "<head><meta\tname = \"robots\"\ncontent = 'noindex'/></head>",
}
GETS = {
    "plain.html": ("<!doctype html><html lang=en><head id=h><title>t</title></head></html>",
                   "<!doctype html><html lang=en><head id=h>" + TAG + "<title>"),
    "others.html": ("<head><meta name=googlebot content=noindex><meta name=robots content=index></head>",
                    "<head>" + TAG + "<meta name=googlebot"),
    "inside.html": ("<head><meta content=\"name=robots noindex\"></head>", "<head>" + TAG),
    "open.html": ("<head><meta name=robots content='noindex></head>", "<head>" + TAG),
    "header.html": ("<html><header>x", "<html>" + TAG + "<header>"),
    "doctype.html": ("<!DOCTYPE html><p>x", "<!DOCTYPE html>" + TAG + "<p>"),
    "bare.html": ("<p>x</p>", TAG + "<p>x</p>"),
}
WORDS = 16_000
HOSTILE = {
    "words.html": "<head><meta name=robots content='" + "noindex " * WORDS + "></head>",
    "closed.html": "<head><meta name=robots content=\"" + "index " * WORDS + "\"></head>",
    "metas.html": "<meta content='noindex" * WORDS,
    "heads.html": "<head" * WORDS + "<html" * WORDS + "<!doctype" * WORDS,
    "names.html": "<meta " + "name=robots " * WORDS + ">",
}

failures = []


def check(ok, message):
    if not ok:
        failures.append(message)


def noindex(*args):
    return subprocess.run([sys.executable, str(REPO / ".ci/noindex"), *args], capture_output=True, text=True)


def cpu_of_children():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main():
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        site.mkdir()
        for name, text in {**KEEPS, **{n: t for n, (t, _) in GETS.items()}}.items():
            (site / name).write_text(text)
        done = noindex("--check", str(site))
        check(done.returncode == 1, f"--check passed a site with pages lacking noindex: {done.stdout}")
        for name in GETS:
            check(f"no noindex: {site / name}" in done.stderr, f"--check did not list {name}: {done.stderr}")
        for name in KEEPS:
            check(f"{site / name}" not in done.stderr, f"--check listed {name}, which has noindex")
        done = noindex(str(site))
        check(done.returncode == 0, f"adding failed: {done.stderr}")
        for name, text in KEEPS.items():
            check((site / name).read_text() == text, f"{name} changed though it has noindex")
        for name, (_, starts) in GETS.items():
            got = (site / name).read_text()
            check(got.startswith(starts), f"{name}: {got[:120]!r} does not start {starts!r}")
        check(noindex("--check", str(site)).returncode == 0, "a second --check still finds pages without it")

        for name, text in HOSTILE.items():
            one = Path(tmp) / name.removesuffix(".html")
            one.mkdir()
            (one / name).write_text(text)
            for args in (["--check", str(one)], [str(one)]):
                # CPU time, not wall time: the bound must hold on a busy machine too.
                before = cpu_of_children()
                noindex(*args)
                took = cpu_of_children() - before
                check(took < 1.0, f"{' '.join(args[:-1]) or 'adding'} on {name} took {took:.1f} s of CPU")
    for f in failures:
        print(f"FAIL {f}")
    print(f"tests/ci/noindex.py: {'ok' if not failures else f'{len(failures)} failures'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
