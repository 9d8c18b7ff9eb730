//! Code blocks (issue 15): parts of files included with `file=`/`lines=`/`region=`, their
//! captions and published copies, errors naming the line, and staleness shared with the
//! kernel's measurement record.
use crate::util::*;

/// The repository's own course: content, kernels and records.
fn course() -> Site {
    let site = Site::new();
    copy_dir(&repo().join("content"), &site.root().join("content"));
    copy_dir(&repo().join("kernels"), &site.root().join("kernels"));
    copy_dir(
        &repo().join("measurements"),
        &site.root().join("measurements"),
    );
    site
}

/// The 1-based line of the first line of `page` containing `needle`.
fn line_of(page: &str, needle: &str) -> usize {
    1 + page.lines().position(|l| l.contains(needle)).expect(needle)
}

#[test]
fn day_15_shows_the_timed_loop_of_the_measured_kernel() {
    let site = course();
    let o = site.run(&["build", "--drafts", "--strict"]);
    assert_code(&o, 0);
    let html = site.read("public/days/day-15/index.html");
    let kernel = site.read("kernels/bank_conflicts.cu");
    let first = line_of(&kernel, "[region timed-loop]") + 1;
    let last = line_of(&kernel, "[end timed-loop]") - 1;
    assert!(
        html.contains(&format!("<a href=\"/source/kernels/bank_conflicts.cu\"><code>kernels/bank_conflicts.cu</code></a>, lines {first}–{last}</figcaption>")),
        "{html}"
    );
    // The caption's link resolves: the kernel is published beside the pages, byte for byte.
    assert_eq!(site.read("public/source/kernels/bank_conflicts.cu"), kernel);
    assert!(
        html.contains("<span class=\"hl-bi\">threadIdx</span>"),
        "highlighted"
    );
    assert!(html.contains("lane_base"), "{html}");
    assert!(!html.contains("[region"), "markers are not shown");
    assert!(!html.contains("code-stale"), "the record is fresh");
}

#[test]
fn editing_the_kernel_makes_the_page_stale() {
    let site = course();
    let kernel = site.read("kernels/bank_conflicts.cu");
    site.write(
        "kernels/bank_conflicts.cu",
        kernel.replace("a0 += p[k];", "a0 += p[k] * 2u;"),
    );
    let o = site.run(&["build", "--drafts"]);
    assert_code(&o, 0);
    let html = site.read("public/days/day-15/index.html");
    assert!(html.contains("class=\"code-stale\""), "{html}");
    assert!(html.contains("changed after it was measured"), "{html}");
    assert!(
        html.contains("a0 += p[k] * <span class=\"hl-num\">2u</span>;"),
        "the page shows today's code"
    );
    let day = site.read("content/days/day-15.md");
    let fence = line_of(&day, "file=kernels/bank_conflicts.cu");
    assert_stderr_has(
        &o,
        &[&format!(
            "content/days/day-15.md:{fence}: the code block shows `kernels/bank_conflicts.cu`, which changed"
        )],
    );
    let o = site.run(&["build", "--drafts", "--strict"]);
    assert_code(&o, 1);
    assert_stderr_has(&o, &[&format!("content/days/day-15.md:{fence}:")]);
}

#[test]
fn bad_includes_are_errors_naming_the_line() {
    let site = Site::new();
    site.write(
        "kernels/k.cu",
        "int a;\nint b;\n// [region r]\nint c;\n// [end r]\n",
    );
    let body = "\nIntro.\n\n```cuda file=kernels/k.cu lines=4-9\n```\n\n```cuda file=kernels/k.cu region=loop\n```\n\n```cuda file=../outside.cu\n```\n\n```cuda file=kernels/none.cu\n```\n";
    site.write(
        "content/glossary/x.md",
        format!("---\ntitle: x\n---\n{body}"),
    );
    let o = site.run(&["build", "--drafts"]);
    assert_fails_at(
        &o,
        "x.md:7",
        "`lines=4-9` is outside `kernels/k.cu`, which has 5 lines",
    );
    assert_fails_at(
        &o,
        "x.md:10",
        "`kernels/k.cu` has no region `loop` (it has: r)",
    );
    assert_fails_at(&o, "x.md:13", "`file=../outside.cu` leaves the site root");
    assert_fails_at(
        &o,
        "x.md:16",
        "cannot include `kernels/none.cu`: no such file",
    );
    assert_stderr_has(&o, &["4 problems found"]);
    assert!(!site.exists("public"), "nothing is written");
}

#[test]
fn numbered_and_marked_lines_on_request() {
    let site = Site::new();
    site.write(
        "content/glossary/x.md",
        "---\ntitle: x\n---\n\n```python {linenos hl_lines=2}\na = 1\nb = 2\n```\n",
    );
    assert_code(&site.run(&["build", "--drafts"]), 0);
    let html = site.read("public/glossary/x/index.html");
    assert!(html.contains("<pre class=\"numbered\"><code class=\"language-python\"><span class=\"line\"><span class=\"ln\" aria-hidden=\"true\">1</span>a = <span class=\"hl-num\">1</span>\n</span><span class=\"line hl\"><span class=\"ln\" aria-hidden=\"true\">2</span>b"), "{html}");
}

#[test]
fn section_intros_include_files_too() {
    let site = Site::new();
    site.write("kernels/k.cu", "// [region r]\nint a;\n// [end r]\n");
    site.write("content/glossary/warp.md", draft("Warp"));
    site.write(
        "content/glossary.md",
        "---\ntitle: Glossary\n---\n\n```cuda file=kernels/k.cu region=r\n```\n",
    );
    assert_code(&site.run(&["build", "--drafts"]), 0);
    let html = site.read("public/glossary/index.html");
    assert!(html.contains("<a href=\"/source/kernels/k.cu\">"), "{html}");
    assert!(site.exists("public/source/kernels/k.cu"));
    site.write(
        "content/glossary.md",
        "---\ntitle: Glossary\n---\n\n```cuda file=kernels/k.cu region=nope\n```\n",
    );
    let o = site.run(&["build", "--drafts"]);
    assert_fails_at(
        &o,
        "content/glossary.md:5",
        "`kernels/k.cu` has no region `nope`",
    );
}
