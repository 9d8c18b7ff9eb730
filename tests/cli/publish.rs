//! Site config and sub-path hosting: `coursegen.toml` and its errors, the title on every
//! page, edit links, and a site built for `https://example.org/course/` whose every URL
//! stays under `/course/` and reaches a file of the build.
use std::collections::BTreeSet;
use std::path::Path;

use crate::util::*;

const BASE: &str = "https://example.org/course/";

/// A 1×1 PNG, so that browsers can load the image too.
const PNG: &[u8] = &[
    137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0,
    0, 0, 144, 119, 83, 222, 0, 0, 0, 12, 73, 68, 65, 84, 120, 156, 99, 248, 223, 192, 0, 0, 4, 1,
    1, 128, 197, 42, 24, 93, 0, 0, 0, 0, 73, 69, 78, 68, 174, 66, 96, 130,
];

/// A small course that uses every kind of URL a page can emit: pages of three sections, a
/// section intro, a top-level page, a diagram (PNG and og:image), content images linked
/// site-absolute, relative and from raw HTML, a draft, and a path outside the site.
fn course() -> Site {
    let site = Site::new();
    site.write(
        "coursegen.toml",
        "title = \"GPU Course & Co\"\nbase_url = \"https://example.org/course\"\nlanguage = \"en-GB\"\n\
         repository = \"https://github.com/example/course\"\n\n[links]\nexternal_prefixes = [\"/docs/\"]\n",
    );
    let diagram = "diagram:\n  preset: bank-map\n  alt: Words shaded by bank.\nappears_in: [day-1]\nrelated: [lane]\n";
    site.write(
        "content/glossary/warp.md",
        format!(
            "{}\nSee [the lane](/glossary/lane/), [its neighbour](../lane/#top), [home](/), \
             [day one](/days/day-1/), the [API docs](/docs/api/) and ![a tile](/glossary/tile.png).\n\n\
             <p><a href=\"/glossary/\">index</a> <img src=\"/glossary/tile.png\" alt=\"tile\"> \
             <img src=\"../tile.png\" alt=\"tile again\"></p>\n",
            published("Warp", diagram)
        ),
    );
    site.write(
        "content/glossary/lane.md",
        published("Lane", "related: [warp]\n"),
    );
    site.write("content/glossary/tile.png", PNG);
    site.write(
        "content/glossary.md",
        format!(
            "{}\nStart at [the warp](/glossary/warp/).\n",
            published("Glossary", "")
        ),
    );
    site.write(
        "content/about.md",
        format!(
            "{}\nThe [glossary](/glossary/) and [search index](/search-index.json).\n",
            published("About", "")
        ),
    );
    site.write(
        "content/days/day-1.md",
        format!(
            "---\ntitle: Day 1\nstatus: published\n{SIGNED}---\n\nRead [the warp](/glossary/warp/).\n\n\
             ```cuda file=kernels/k.cu lines=1-2\n```\n"
        ),
    );
    site.write("content/glossary/unsigned.md", draft("Unsigned"));
    site.write("kernels/k.cu", "__global__ void k() {}\n// two\n");
    site
}

/// Every URL in the files of `out` that a browser or crawler would follow: attribute
/// values, sitemap and feed locations, JSON strings under keys ending in `url`, CSS
/// `url()`s, and Markdown links in text files.
fn emitted_urls(out: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for item in walkdir::WalkDir::new(out) {
        let item = item.unwrap();
        let rel = item
            .path()
            .strip_prefix(out)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let Some(ext) = item.path().extension().and_then(|e| e.to_str()) else {
            continue;
        };
        let text = match ext {
            "html" | "xml" | "json" | "txt" | "md" | "css" | "js" => {
                std::fs::read_to_string(item.path()).unwrap()
            }
            _ => continue,
        };
        let mut push = |url: &str| found.push((rel.clone(), url.replace("&amp;", "&")));
        for attr in [
            " href=\"",
            " src=\"",
            "property=\"og:image\" content=\"",
            "property=\"og:url\" content=\"",
        ] {
            for part in text.split(attr).skip(1) {
                push(part.split('"').next().unwrap());
            }
        }
        for tag in ["<loc>", "<link>", "<id>"] {
            for part in text.split(tag).skip(1) {
                push(part.split('<').next().unwrap());
            }
        }
        if ext == "json" {
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            json_urls(&v, &mut push);
        }
        if ext == "txt" || ext == "md" {
            // Markdown links: llms.txt and Markdown copies of pages.
            for part in text.split("](").skip(1) {
                push(part.split([')', ' ']).next().unwrap());
            }
        }
        if ext == "css" {
            for part in text.split("url(").skip(1) {
                push(part.split(')').next().unwrap().trim_matches(['"', '\'']));
            }
        }
    }
    found
}

fn json_urls(v: &serde_json::Value, push: &mut impl FnMut(&str)) {
    match v {
        serde_json::Value::Array(a) => a.iter().for_each(|x| json_urls(x, push)),
        serde_json::Value::Object(o) => {
            for (k, x) in o {
                match x.as_str() {
                    Some(s) if k.ends_with("url") => push(s),
                    _ => json_urls(x, push),
                }
            }
        }
        _ => {}
    }
}

/// The output file a site path names (`/course/glossary/` → `glossary/index.html`).
fn file_of(out: &Path, path: &str) -> std::path::PathBuf {
    let path = path.split(['#', '?']).next().unwrap();
    let file = out.join(path.trim_start_matches('/'));
    if path.ends_with('/') || path.is_empty() {
        file.join("index.html")
    } else {
        file
    }
}

/// Checks every emitted URL of the build in `out`; returns how many it followed.
#[track_caller]
fn assert_all_under_course(out: &Path) -> usize {
    let mut followed = 0;
    let mut bad = BTreeSet::new();
    for (file, url) in emitted_urls(out) {
        let page = format!("/course/{}", file.trim_end_matches("index.html"));
        let site_path = if let Some(rest) = url.strip_prefix("https://example.org") {
            rest.to_string()
        } else if url.starts_with("/docs/")
            || url.starts_with('#')
            || url.contains("://")
            || url.starts_with("//")
        {
            continue; // outside the site: an external prefix, an anchor, another host
        } else if url.starts_with('/') {
            url.clone()
        } else {
            // Relative: resolve against the page, as a browser does.
            let mut parts: Vec<&str> = page.trim_end_matches('/').split('/').collect();
            if !page.ends_with('/') {
                parts.pop();
            }
            for seg in url.split(['#', '?']).next().unwrap().split('/') {
                match seg {
                    ".." => drop(parts.pop()),
                    "." | "" => {}
                    s => parts.push(s),
                }
            }
            let mut p = parts.join("/");
            if url.split(['#', '?']).next().unwrap().ends_with('/') {
                p.push('/');
            }
            p
        };
        followed += 1;
        match site_path.strip_prefix("/course/") {
            Some(inner) if file_of(out, inner).is_file() => {}
            Some(_) => drop(bad.insert(format!("{file}: {url} names no file of the build"))),
            None => drop(bad.insert(format!("{file}: {url} is outside /course/"))),
        }
    }
    assert!(
        bad.is_empty(),
        "{} bad URLs:\n{}",
        bad.len(),
        bad.into_iter().collect::<Vec<_>>().join("\n")
    );
    followed
}

#[test]
fn a_sub_path_build_emits_only_urls_under_the_base_path_that_reach_files() {
    let site = course();
    let preview = site.root().join("preview");
    let preview = preview.to_str().unwrap();
    for (args, out) in [
        (&["build"][..], "public"),
        (&["build", "--drafts", "--out", preview][..], "preview"),
    ] {
        let o = site.run(args);
        assert_code(&o, 0);
        let followed = assert_all_under_course(&site.root().join(out));
        assert!(followed > 40, "{args:?}: only {followed} URLs followed");
    }
    let warp = site.read("public/glossary/warp/index.html");
    for want in [
        "href=\"/course/style.css\"",
        "href=\"/course/glossary/lane/\"",
        "href=\"../lane/#top\"",
        "href=\"/docs/api/\"",
        "src=\"/course/glossary/tile.png\"",
        "<meta property=\"og:image\" content=\"https://example.org/course/glossary/warp/diagram.png\">",
    ] {
        assert!(warp.contains(want), "{want} missing from the warp page");
    }
    let sitemap = site.read("public/sitemap.xml");
    assert!(
        sitemap.contains("<loc>https://example.org/course/glossary/warp/</loc>"),
        "{sitemap}"
    );
    let day = site.read("public/days/day-1/index.html");
    assert!(
        day.contains("<a href=\"/course/source/kernels/k.cu\">"),
        "{day}"
    );
    let search = site.read("public/search-index.json");
    assert!(search.contains("\"/course/glossary/warp/\""), "{search}");
    assert!(
        site.read("preview/glossary/index.html")
            .contains("href=\"/course/glossary/unsigned/\"")
    );
}

#[test]
fn the_base_url_flag_overrides_the_config_and_serves_at_the_root_by_default() {
    let site = course();
    let o = site.run(&["build", "--base-url", "https://user.github.io/gpu"]);
    assert_code(&o, 0);
    let warp = site.read("public/glossary/warp/index.html");
    assert!(warp.contains("href=\"/gpu/glossary/lane/\""), "{warp}");
    assert!(warp.contains("content=\"https://user.github.io/gpu/glossary/warp/diagram.png\""));
    site.write(
        "coursegen.toml",
        "title = \"T\"\n[links]\nexternal_prefixes = [\"/docs/\"]\n",
    );
    assert_code(&site.run(&["build"]), 0);
    let warp = site.read("public/glossary/warp/index.html");
    assert!(warp.contains("href=\"/glossary/lane/\"") && warp.contains("href=\"/style.css\""));
    assert!(
        warp.contains("content=\"/glossary/warp/diagram.png\""),
        "og:image without an address"
    );
}

#[test]
fn the_title_and_language_from_the_config_are_on_every_page() {
    let site = course();
    assert_code(&site.run(&["build", "--drafts"]), 0);
    let mut pages = 0;
    for item in walkdir::WalkDir::new(site.root().join("public")) {
        let item = item.unwrap();
        if item.path().extension().is_none_or(|e| e != "html") {
            continue;
        }
        pages += 1;
        let html = std::fs::read_to_string(item.path()).unwrap();
        let title = html
            .split("<title>")
            .nth(1)
            .and_then(|t| t.split("</title>").next())
            .unwrap();
        assert!(
            title.ends_with("GPU Course &amp; Co"),
            "{}: <title>{title}",
            item.path().display()
        );
        assert!(
            html.contains(">GPU Course &amp; Co</a>"),
            "{}: header",
            item.path().display()
        );
        assert!(
            html.contains("<html lang=\"en-GB\">"),
            "{}",
            item.path().display()
        );
        assert!(
            !html.contains("100 Days of GPU"),
            "{}",
            item.path().display()
        );
    }
    // Entries, section indexes, the home page, the search page and 404.html.
    assert_eq!(pages, 10);
}

#[test]
fn edit_links_name_the_source_file() {
    let site = course();
    assert_code(&site.run(&["build"]), 0);
    let warp = site.read("public/glossary/warp/index.html");
    assert!(
        warp.contains("<a href=\"https://github.com/example/course/edit/main/content/glossary/warp.md\" rel=\"noopener\">Edit this page</a>"),
        "{warp}"
    );
    assert!(warp.contains("<a href=\"https://github.com/example/course\">course repository</a>"));
    site.write(
        "coursegen.toml",
        "[links]\nexternal_prefixes = [\"/docs/\"]\n",
    );
    assert_code(&site.run(&["build"]), 0);
    assert!(
        !site
            .read("public/glossary/warp/index.html")
            .contains("Edit this page")
    );
}

#[test]
fn config_errors_name_the_file_line_and_key_and_write_nothing() {
    let site = course();
    site.write(
        "coursegen.toml",
        "title = \"T\"\ntittle = \"x\"\nbase_url = \"example.org/course\"\n[links]\nexternal_prefixes = [\"docs\"]\n",
    );
    for args in [&["build"][..], &["check"][..]] {
        let o = site.run(args);
        assert_fails_at(&o, "coursegen.toml:2", "field `tittle`: unknown key");
        assert_stderr_has(&o, &["unknown key\n  help: did you mean `title`?"]);
        assert!(!site.exists("public"), "nothing written");
    }
    site.write(
        "coursegen.toml",
        "title = \"T\"\n\nbase_url = \"example.org/course\"\nlanguage = \"en\"\n[links]\nexternal_prefixes = [\"docs\"]\n",
    );
    let o = site.run(&["build"]);
    assert_stderr_has(
        &o,
        &[
            "coursegen.toml:3: field `base_url`: `example.org/course` is not an address",
            "coursegen.toml:6: field `links.external_prefixes`:",
            "2 problems found",
        ],
    );
    site.write(
        "coursegen.toml",
        "title = \"T\"\nreview_max_age_days = \"a year\"\n",
    );
    let o = site.run(&["build"]);
    assert_stderr_has(
        &o,
        &["coursegen.toml:2: field `review_max_age_days`: invalid type: string \"a year\""],
    );
}

#[test]
fn a_named_config_must_exist_and_a_bad_base_url_flag_is_a_usage_error() {
    let site = course();
    let o = site.run(&["build", "--config", "nope.toml"]);
    assert_code(&o, 2);
    assert_stderr_has(&o, &["cannot read the config nope.toml"]);
    site.write(
        "other.toml",
        "title = \"Other\"\n[links]\nexternal_prefixes = [\"/docs\"]\n",
    );
    let other = site.root().join("other.toml");
    assert_code(
        &site.run(&["build", "--config", other.to_str().unwrap()]),
        0,
    );
    assert!(
        site.read("public/index.html")
            .contains("<title>Other</title>")
    );
    let o = site.run(&["build", "--base-url", "course.example.org"]);
    assert_code(&o, 2);
    assert_stderr_has(&o, &["--base-url"]);
}

#[test]
fn a_link_written_with_the_base_path_is_refused_with_the_fix() {
    let site = course();
    site.write(
        "content/glossary/lane.md",
        format!(
            "{}\nSee [warp](/course/glossary/warp/) and [gone](/glossary/gone/).\n",
            published("Lane", "")
        ),
    );
    let o = site.run(&["build"]);
    assert_code(&o, 1);
    assert_stderr_has(
        &o,
        &[
            "write it as `/glossary/warp/`: the base path `/course/` is added",
            "broken link: `/glossary/gone/`",
            "links.external_prefixes",
        ],
    );
}

#[test]
fn a_link_to_the_sitemap_is_broken_where_no_sitemap_is_written() {
    let site = Site::new();
    let about = format!("{}\nThe [sitemap](/sitemap.xml).\n", published("About", ""));
    site.write("content/about.md", about);
    let o = site.run(&["build", "--drafts", "--base-url", BASE]);
    assert_code(&o, 1);
    assert_stderr_has(&o, &["broken link: `/sitemap.xml`"]);
    assert_code(&site.run(&["build", "--base-url", BASE]), 0);
    assert!(
        site.read("public/about/index.html")
            .contains("href=\"/course/sitemap.xml\"")
    );
}

/// `check --base-url` checks as the build for that address would: a link written with its
/// path is refused with the fix. Without it, the same link is checked for the domain root,
/// where it names no page.
#[test]
fn check_with_a_base_url_checks_the_links_as_the_sub_path_build_would() {
    let site = Site::new();
    site.write("content/glossary/warp.md", published("Warp", ""));
    let about = format!(
        "{}
See [warp](/glossary/warp/).
",
        published("About", "")
    );
    site.write("content/about.md", &about);
    assert_code(&site.run(&["check", "--no-kernels", "--base-url", BASE]), 0);
    site.write(
        "content/about.md",
        about.replace("(/glossary/warp/)", "(/course/glossary/warp/)"),
    );
    let at_root = site.run(&["check", "--no-kernels"]);
    assert_code(&at_root, 1);
    assert_stderr_has(&at_root, &["broken link: `/course/glossary/warp/`"]);
    let under = site.run(&["check", "--no-kernels", "--base-url", BASE]);
    assert_code(&under, 1);
    assert_stderr_has(
        &under,
        &["write it as `/glossary/warp/`: the base path `/course/` is added"],
    );
    let bad = site.run(&["check", "--base-url", "example.org/course"]);
    assert_code(&bad, 2);
    assert_stderr_has(&bad, &["--base-url"]);
}

#[test]
fn serve_builds_for_the_domain_root_and_rereads_the_config() {
    use std::io::{BufRead, BufReader, Read, Write};
    let site = Site::new();
    site.write("content/glossary/lane.md", draft("Lane"));
    site.write(
        "coursegen.toml",
        format!("title = \"First\"\nbase_url = \"{BASE}\"\n"),
    );
    // Killed at the end (SIGKILL, which it cannot clean up after): its folder goes with this.
    let tmp = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_coursegen"))
        .args(["serve", "--port", "0", "--root"])
        .arg(site.root())
        .env("TMPDIR", tmp.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let addr = loop {
        let line = lines.next().expect("serve printed its address").unwrap();
        if let Some(rest) = line.strip_prefix("serving http://") {
            break rest.split('/').next().unwrap().to_string();
        }
    };
    let get = |path: &str| {
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        write!(s, "GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n").unwrap();
        let mut r = String::new();
        s.read_to_string(&mut r).unwrap();
        r
    };
    let first = get("/glossary/lane/");
    site.write("coursegen.toml", "title = \"Second\"\n");
    let mut second = String::new();
    for _ in 0..60 {
        std::thread::sleep(std::time::Duration::from_millis(250));
        second = get("/glossary/lane/");
        if second.contains("Second") {
            break;
        }
    }
    child.kill().unwrap();
    let _ = child.wait();
    assert!(first.starts_with("HTTP/1.1 200"), "{first}");
    assert!(
        first.contains("href=\"/style.css\"") && first.contains(">First</a>"),
        "{first}"
    );
    assert!(
        second.contains(">Second</a>"),
        "the edited config is read again: {second}"
    );
}

#[test]
fn the_review_expiry_comes_from_the_config_unless_the_flag_gives_one() {
    let site = Site::new();
    site.write("content/glossary/warp.md", published("Warp", ""));
    site.write("coursegen.toml", "review_max_age_days = 5\n");
    let o = site.run(&["build"]);
    assert_code(&o, 0);
    assert_stderr_has(&o, &["a review is valid for 5 days"]);
    let o = site.run(&["build", "--review-max-age", "30"]);
    assert_code(&o, 0);
    assert_stderr_lacks(&o, &["a review is valid for"]);
    site.write("coursegen.toml", "");
    assert_stderr_lacks(&site.run(&["build"]), &["a review is valid for"]);
}

/// A course on another subject: no compute capability on its entries, its own footer, and
/// `coursegen new` writing its own defaults (`[glossary]`, `footer`, `[new]`).
#[test]
fn a_course_on_another_subject_sets_its_required_fields_footer_and_new_entry_defaults() {
    let site = Site::new();
    site.write(
        "coursegen.toml",
        "footer = \"Made by the [tide team](/glossary/tide/).\"\n\
         [glossary]\nrequired = [\"term\", \"summary\"]\n\
         [new]\ncategory = \"Tides\"\nsources = [{ title = \"Ocean atlas\", url = \"https://example.org/atlas\" }]\n",
    );
    let entry = published("Tide", "")
        .replace("cc: \"8.0\"\n", "")
        .replace("category: Memory\n", "");
    site.write("content/glossary/tide.md", &entry);
    let o = site.run(&["build", "--base-url", BASE]);
    assert_code(&o, 0);
    let page = site.read("public/glossary/tide/index.html");
    assert!(
        page.contains("<p>Made by the <a href=\"/course/glossary/tide/\">tide team</a>.</p>"),
        "{page}"
    );
    assert!(!page.contains("bank model"), "the GPU sentence is gone");

    assert_code(&site.run(&["new", "glossary", "current"]), 0);
    let scaffold = site.read("content/glossary/current.md");
    assert!(!scaffold.contains("\ncc:"), "{scaffold}");
    assert!(scaffold.contains("\ncategory: Tides "), "{scaffold}");
    assert!(scaffold.contains("  - title: Ocean atlas\n    url: https://example.org/atlas\n"));

    // Without the setting, today's rule: a published glossary entry names its `cc`.
    site.write("coursegen.toml", "");
    let o = site.run(&["build"]);
    assert_fails_at(
        &o,
        "content/glossary/tide.md:1",
        "field `cc`: a published entry needs this field",
    );
}

#[test]
fn a_required_field_that_is_no_field_is_refused_with_its_line() {
    let site = Site::new();
    site.write(
        "coursegen.toml",
        "[glossary]\nrequired = [\"term\",\n  \"sumary\"]\n",
    );
    site.write("content/glossary/tide.md", published("Tide", ""));
    let o = site.run(&["build"]);
    assert_fails_at(
        &o,
        "coursegen.toml:3",
        "field `glossary.required`: `sumary` is not a field a glossary entry can be required to fill (did you mean `summary`?)",
    );
}
