//! Tests of includes: ranges, regions, refused paths, and what the check of a body's code
//! blocks reports.
use std::collections::HashMap;

use super::*;

const KERNEL: &str = "// k\n__global__ void k(int* a)\n{\n    // [region body]\n    for (int i = 0; i < 4; ++i)\n        a[i] = i;\n    // [end body]\n}\n";

fn sources() -> (tempfile::TempDir, Sources) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("kernels")).unwrap();
    std::fs::create_dir_all(dir.path().join("content/days")).unwrap();
    std::fs::write(dir.path().join("kernels/k.cu"), KERNEL).unwrap();
    std::fs::write(dir.path().join("content/days/d.md"), "---\n").unwrap();
    std::fs::write(dir.path().join(".env"), "SECRET=1\n").unwrap();
    std::fs::write(
        dir.path().join("kernels/notes.html"),
        "<script>x</script>\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("kernels/art.svg"), "<svg/>\n").unwrap();
    std::fs::write(dir.path().join("content/days/UPPER.MD"), "---\n").unwrap();
    let stale = HashMap::from([("kernels/k.cu".to_string(), "changed".to_string())]);
    let s = Sources::new(dir.path(), stale);
    (dir, s)
}

/// What the one parse of a page's Markdown finds in its code blocks.
fn check_includes(body: &str, s: &Sources) -> IncludeCheck {
    let opts = crate::markdown::RenderOptions { highlight: false };
    crate::markdown::render_with(body, opts, &mut Default::default(), Some(s)).includes
}

#[track_caller]
fn resolve(s: &Sources, info: &str) -> Result<Included, IncludeError> {
    s.resolve(&FenceInfo::parse(info).expect("valid info"))
}

#[test]
fn ranges_and_regions() {
    let (_d, s) = sources();
    let inc = resolve(&s, "cuda file=kernels/k.cu lines=2-3").unwrap();
    assert_eq!(inc.text, "__global__ void k(int* a)\n{\n");
    assert_eq!(inc.numbers, [2, 3]);
    assert_eq!(inc.lines_label(), "lines 2–3");
    assert_eq!(inc.stale.as_deref(), Some("changed"));
    // A region: marker lines left out, common indentation removed, file numbers kept.
    let inc = resolve(&s, "cuda file=./kernels/k.cu region=body").unwrap();
    assert_eq!(inc.text, "for (int i = 0; i < 4; ++i)\n    a[i] = i;\n");
    assert_eq!(inc.numbers, [5, 6]);
    let inc = resolve(&s, "cuda file=kernels/k.cu lines=8-").unwrap();
    assert_eq!(
        (inc.text.as_str(), inc.lines_label()),
        ("}\n", "line 8".into())
    );
    assert_eq!(resolve(&s, "cuda file=kernels/k.cu").unwrap().text, KERNEL);
}

#[test]
fn bad_includes_say_why() {
    let (_d, s) = sources();
    for (info, want) in [
        (
            "cuda file=kernels/k.cu lines=7-9",
            "`lines=7-9` is outside `kernels/k.cu`, which has 8 lines",
        ),
        ("cuda file=kernels/k.cu lines=9", "outside"),
        (
            "cuda file=kernels/k.cu region=loop",
            "`kernels/k.cu` has no region `loop` (it has: body)",
        ),
        (
            "cuda file=kernels/nope.cu",
            "cannot include `kernels/nope.cu`: no such file",
        ),
        ("cuda file=../etc/passwd", "leaves the site root"),
        ("cuda file=/etc/passwd", "is absolute"),
        ("sh file=.env", "hidden"),
        ("md file=content/days/d.md", "is an entry"),
        ("cuda file=kernels", "not a regular file"),
        ("html file=kernels/notes.html", "is a `.html` file"),
        ("svg file=kernels/art.svg", "is a `.svg` file"),
        ("md file=content/days/UPPER.MD", "is an entry"),
    ] {
        let err = resolve(&s, info).expect_err(info).to_string();
        assert!(err.contains(want), "{info}: {err}");
    }
}

#[cfg(unix)]
#[test]
fn symlinks_out_of_the_root_are_refused() {
    let (d, s) = sources();
    let outside = tempfile::NamedTempFile::new().unwrap();
    std::os::unix::fs::symlink(outside.path(), d.path().join("kernels/out.cu")).unwrap();
    let err = resolve(&s, "cuda file=kernels/out.cu")
        .unwrap_err()
        .to_string();
    assert!(err.contains("outside the site root"), "{err}");
    // A link inside the root is judged by what it points at: here, a draft's source.
    std::os::unix::fs::symlink(
        d.path().join("content/days/d.md"),
        d.path().join("kernels/d.cu"),
    )
    .unwrap();
    let err = resolve(&s, "cuda file=kernels/d.cu")
        .unwrap_err()
        .to_string();
    assert!(err.contains("an entry's source"), "{err}");
}

#[test]
fn check_reports_lines_stale_includes_and_files() {
    let (_d, s) = sources();
    let body = "Intro.\n\n```cuda file=kernels/k.cu region=body\n```\n\n```cuda file=kernels/k.cu region=nope\n```\n\n```cuda file=kernels/k.cu lines=1\nint x;\n```\n\n```cuda fiel=x\n```\n\n```cuda\nplain\n```\n";
    let c = check_includes(body, &s);
    let errors: Vec<(usize, String)> = c.errors.iter().map(|(l, e)| (*l, e.to_string())).collect();
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert_eq!(errors[0].0, 6);
    assert!(errors[0].1.contains("no region `nope`"));
    assert_eq!(errors[1].0, 9);
    assert!(errors[1].1.contains("its own body would be dropped"));
    assert_eq!(errors[2].0, 13);
    assert!(errors[2].1.contains("did you mean `file`?"));
    assert_eq!(
        c.stale,
        [(3, "kernels/k.cu".to_string(), "changed".to_string())]
    );
    assert_eq!(c.files, ["kernels/k.cu"]);
    assert!(
        check_includes("no includes\n```cuda\nx\n```\n", &s)
            .files
            .is_empty()
    );
    // Marked lines must be lines the block shows: file numbers for an include.
    let body = "```py {hl_lines=2}\na\nb\n```\n\n```py hl_lines=3\na\nb\n```\n\n```cuda file=kernels/k.cu region=body hl_lines=5-6\n```\n\n```cuda file=kernels/k.cu region=body hl_lines=2\n```\n";
    let errors: Vec<(usize, String)> = check_includes(body, &s)
        .errors
        .iter()
        .map(|(l, e)| (*l, e.to_string()))
        .collect();
    assert_eq!(
        errors,
        [
            (
                6,
                "`hl_lines` marks line 3, but the block shows lines 1-2".to_string()
            ),
            (
                14,
                "`hl_lines` marks line 2, but the block shows lines 5-6".to_string()
            ),
        ]
    );
}

#[test]
fn marker_lines() {
    for (line, is) in [
        ("    // [region timed-loop]\n", true),
        ("# [end a]", true),
        ("/* [region a] */", true),
        ("x = 1; // [region a]", false),
        ("// region a", false),
        ("// [regions a]", false),
    ] {
        assert_eq!(is_marker_line(line), is, "{line:?}");
    }
}

#[test]
fn preprocessor_lines_do_not_stop_the_dedent() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("k.cu"),
        "    for (;;) {\n#pragma unroll\n        x;\n\n    }\n",
    )
    .unwrap();
    let s = Sources::new(dir.path(), HashMap::new());
    let inc = s
        .resolve(&FenceInfo::parse("cuda file=k.cu").unwrap())
        .unwrap();
    assert_eq!(inc.text, "for (;;) {\n#pragma unroll\n    x;\n\n}\n");
}

#[test]
fn includes_written_with_escapes_or_inside_footnotes_are_checked_too() {
    // The check sees what the page shows: the info string decoded, footnotes parsed.
    let (_d, s) = sources();
    for body in [
        "```text file&#61;content/days/d.md\n```\n",
        "```text file\\=content/days/d.md\n```\n",
        "Text.[^1]\n\n[^1]: A note.\n\n    ```text file=content/days/d.md\n    ```\n",
    ] {
        let c = check_includes(body, &s);
        let errors: Vec<String> = c.errors.iter().map(|(_, e)| e.to_string()).collect();
        assert!(
            errors.iter().any(|e| e.contains("is an entry")),
            "{body:?}: {errors:?}"
        );
        assert!(c.files.is_empty(), "{body:?}");
    }
}
