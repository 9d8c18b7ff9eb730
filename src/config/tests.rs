//! Tests of the site config: defaults, every key, sub-paths, and errors with their lines.
use super::raw::KEYS;
use super::*;

fn parse(text: &str) -> Result<Config, Vec<Diagnostic>> {
    Config::parse(text, Path::new("coursegen.toml"))
}

/// The problems of `text`, each as `line field: message | help`.
#[track_caller]
fn problems(text: &str) -> Vec<String> {
    parse(text)
        .expect_err("expected the config to be refused")
        .iter()
        .map(|d| {
            format!(
                "{} {}: {} | {}",
                d.line,
                d.field.as_deref().unwrap_or("-"),
                d.message,
                d.help.as_deref().unwrap_or("")
            )
        })
        .collect()
}

#[test]
fn an_empty_file_means_the_defaults() {
    assert_eq!(parse("").unwrap(), Config::default());
    assert_eq!(Config::default().root, "/");
    assert_eq!(Config::default().title, DEFAULT_TITLE);
}

#[test]
fn a_missing_default_file_means_the_defaults_but_a_named_one_must_exist() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(Config::load(dir.path(), None).unwrap(), Config::default());
    let named = dir.path().join("other.toml");
    assert!(matches!(
        Config::load(dir.path(), Some(&named)),
        Err(ConfigError::Io { .. })
    ));
}

#[test]
fn every_key_is_read() {
    let c = parse(
        r#"
title = "  GPU course  "
base_url = "https://example.org/course"
repository = "https://github.com/org/course"
language = "pt-BR"
review_max_age_days = 180

[links]
external_prefixes = ["/docs/", "/api"]
"#,
    )
    .unwrap();
    assert_eq!(c.title, "GPU course");
    assert_eq!(c.base_url.as_deref(), Some("https://example.org/course/"));
    assert_eq!(c.root, "/course/");
    assert_eq!(
        c.repository.as_deref(),
        Some("https://github.com/org/course")
    );
    assert_eq!(
        c.edit_url.as_deref(),
        Some("https://github.com/org/course/edit/main/")
    );
    assert_eq!(c.language, "pt-BR");
    assert_eq!(c.review_max_age_days, Some(180));
    assert_eq!(c.external_prefixes, ["/docs", "/api"]);
}

#[test]
fn the_root_is_the_path_of_the_base_url() {
    let cases = [
        ("https://example.org", "/", "https://example.org/"),
        ("https://example.org/", "/", "https://example.org/"),
        (
            "https://example.org/course/",
            "/course/",
            "https://example.org/course/",
        ),
        (
            "https://user.github.io/course",
            "/course/",
            "https://user.github.io/course/",
        ),
        (
            "http://127.0.0.1:8000/a/b",
            "/a/b/",
            "http://127.0.0.1:8000/a/b/",
        ),
    ];
    for (url, root, base) in cases {
        let c = parse(&format!("base_url = \"{url}\"")).unwrap();
        assert_eq!(
            (c.root.as_str(), c.base_url.as_deref()),
            (root, Some(base)),
            "{url}"
        );
        let mut flag = Config::default();
        flag.override_base_url(url).unwrap();
        assert_eq!(flag, c, "--base-url {url}");
    }
}

/// A path with an empty segment would start site-absolute URLs with `//host/`: a link
/// to another site. Refused in the file and in the flag.
#[test]
fn a_base_url_whose_path_names_another_host_is_refused() {
    for url in [
        "https://example.org//evil.example/",
        "https://example.org//evil.example",
        "https://example.org/course//evil.example/",
    ] {
        let found = problems(&format!("base_url = \"{url}\""));
        assert_eq!(found.len(), 1, "{url}: {found:?}");
        assert!(
            found[0].starts_with("1 base_url: ") && found[0].contains("empty segment"),
            "{url}: {found:?}"
        );
        let mut c = Config::default();
        assert!(c.override_base_url(url).is_err(), "--base-url {url}");
    }
}

#[test]
fn the_flag_overrides_the_file_and_serve_builds_at_the_domain_root() {
    let mut c = parse("base_url = \"https://example.org/course/\"").unwrap();
    c.override_base_url("https://other.example/x").unwrap();
    assert_eq!(c.root, "/x/");
    assert!(c.override_base_url("ftp://x").is_err());
    assert_eq!(c.root, "/x/", "a refused flag changes nothing");
    let c = c.at_domain_root();
    assert_eq!((c.root.as_str(), c.base_url), ("/", None));
}

#[test]
fn edit_links_follow_the_host() {
    let cases = [
        (
            "repository = \"https://github.com/o/c\"",
            "https://github.com/o/c/edit/main/content/glossary/warp.md",
        ),
        (
            "repository = \"https://github.com/o/c.git/\"",
            "https://github.com/o/c/edit/main/content/glossary/warp.md",
        ),
        (
            "repository = \"https://gitlab.com/o/c\"",
            "https://gitlab.com/o/c/-/edit/main/content/glossary/warp.md",
        ),
        (
            "repository = \"https://github.com/o/c\"\nedit_url = \"https://github.com/o/c/edit/trunk\"",
            "https://github.com/o/c/edit/trunk/content/glossary/warp.md",
        ),
    ];
    for (text, want) in cases {
        let c = parse(text).unwrap();
        assert_eq!(
            c.edit_link(Path::new("content/glossary/warp.md"))
                .as_deref(),
            Some(want),
            "{text}"
        );
    }
    let c = parse("repository = \"https://github.com/o/c\"").unwrap();
    assert_eq!(
        c.edit_link(Path::new("content/days/day 1 & more.md"))
            .as_deref(),
        Some("https://github.com/o/c/edit/main/content/days/day%201%20%26%20more.md")
    );
    assert_eq!(Config::default().edit_link(Path::new("content/x.md")), None);
}

#[test]
fn external_prefixes_match_whole_segments() {
    let c = parse("[links]\nexternal_prefixes = [\"/docs/\"]").unwrap();
    let cases = [
        ("/docs", true),
        ("/docs/", true),
        ("/docs/api/x.html", true),
        ("/docs#top", true),
        ("/docsets/", false),
        ("/glossary/docs/", false),
    ];
    for (path, want) in cases {
        assert_eq!(c.is_external(path), want, "{path}");
    }
}

#[test]
fn unknown_keys_are_all_reported_with_their_line_and_a_suggestion() {
    let text = "title = \"x\"\ntittle = \"y\"\nbase-url = \"https://e.org\"\n\n[links]\nexternal_prefix = []\n\n[theme]\n";
    assert_eq!(
        problems(text),
        [
            "2 tittle: unknown key | did you mean `title`?",
            "3 base-url: unknown key | did you mean `base_url`?",
            "6 links.external_prefix: unknown key | did you mean `external_prefixes`?",
            "8 theme: unknown key | the keys allowed here are title, description, home, base_url, repository, edit_url, language, review_max_age_days, sections, footer, links, review, glossary, new",
        ]
    );
}

#[test]
fn bad_values_are_all_reported_with_their_line() {
    let text = "title = \"\"\nbase_url = \"example.org/course\"\nrepository = \"ftp://x.org/r\"\nlanguage = \"english!\"\nreview_max_age_days = 0\n[links]\nexternal_prefixes = [\"/\", \"docs\", \"/ok/\", \"//cdn\"]\n";
    let got = problems(text);
    let lines: Vec<&str> = got.iter().map(|p| p.split(':').next().unwrap()).collect();
    assert_eq!(
        lines,
        [
            "1 title",
            "2 base_url",
            "3 repository",
            "4 language",
            "7 links.external_prefixes",
            "7 links.external_prefixes",
            "7 links.external_prefixes",
            "5 review_max_age_days",
        ]
    );
    assert!(got[1].contains("is not an address"), "{}", got[1]);
    assert!(
        got[1].contains("https://your-org.github.io/course/"),
        "{}",
        got[1]
    );
}

#[test]
fn a_review_must_expire_and_values_are_bounded() {
    for (text, want) in [
        (
            "review_max_age_days = 4000000000\n",
            "is not a number of days from 1 to 1830",
        ),
        ("review_max_age_days = 1831\n", "from 1 to 1830"),
        (
            &format!("title = \"{}\"\n", "t".repeat(201)),
            "longer than 200 characters",
        ),
        (
            &format!("base_url = \"https://e.org/{}\"\n", "a".repeat(3000)),
            "longer than 2048 bytes",
        ),
    ] {
        let got = problems(text);
        assert!(got.iter().any(|p| p.contains(want)), "{text:.60}: {got:?}");
    }
    let five_years = Config::parse("review_max_age_days = 1830\n", Path::new("coursegen.toml"));
    assert_eq!(five_years.unwrap().review_max_age_days, Some(1830));
}

#[test]
fn type_errors_and_broken_toml_name_their_line_and_key() {
    let cases = [
        ("title = \"x\"\nbase_url = 3\n", 2, Some("base_url")),
        (
            "title = \"x\"\nreview_max_age_days = \"a year\"\n",
            2,
            Some("review_max_age_days"),
        ),
        (
            "[links]\nexternal_prefixes = \"/docs/\"\n",
            2,
            Some("links.external_prefixes"),
        ),
        ("title = \"x\nlanguage = \"en\"\n", 1, None),
    ];
    for (text, line, field) in cases {
        let d = parse(text).expect_err(text);
        assert_eq!(d.len(), 1, "{text}");
        assert_eq!(
            (d[0].line, d[0].field.as_deref()),
            (line, field),
            "{text}: {}",
            d[0]
        );
        if field.is_some() {
            assert!(d[0].message.contains("invalid type"), "{text}: {}", d[0]);
        }
    }
}

#[test]
fn the_key_list_matches_what_serde_accepts() {
    // Every key the suggestions offer must parse (deny_unknown_fields would refuse a stale one).
    let mut text = String::new();
    for (table, keys) in KEYS {
        if !table.is_empty() {
            text.push_str(&format!("[{table}]\n"));
        }
        for k in keys.iter().filter(|k| !KEYS.iter().any(|(t, _)| t == *k)) {
            let value = match *k {
                "review_max_age_days" => "30",
                "external_prefixes" => "[\"/docs/\"]",
                "title" | "language" => "\"en\"",
                "require_signatures" => "true",
                "allowed_signers" => "\"keys/allowed_signers\"",
                "sections" => "[\"days\"]",
                "required" => "[\"term\"]",
                "folder" => "\"terms\"",
                "cc" => "\"9.0\"",
                "category" => "\"Memory\"",
                "sources" => "[{ title = \"A\", url = \"https://example.org/\" }]",
                _ => "\"https://example.org/\"",
            };
            text.push_str(&format!("{k} = {value}\n"));
        }
    }
    parse(&text).unwrap();
}

#[test]
fn the_course_words_are_one_line_of_description_and_markdown_home_text() {
    let c = parse("description = \" A course. \"\nhome = \"\"\"\nRead *this*.\n\"\"\"\n").unwrap();
    assert_eq!(c.description.as_deref(), Some("A course."));
    assert_eq!(c.home.map(|h| h.text).as_deref(), Some("Read *this*."));
    assert_eq!(
        problems("title = \"x\"\ndescription = \"two\\nlines\"\n"),
        ["2 description: the description must be one line of text | "]
    );
}

#[test]
fn review_keys_default_and_refuse_paths_out_of_the_site() {
    let config = parse("").unwrap();
    assert_eq!(
        config.allowed_signers,
        Path::new(".coursegen/allowed_signers")
    );
    assert!(!config.require_signatures);
    let config =
        parse("[review]\nallowed_signers = \"keys/signers\"\nrequire_signatures = true\n").unwrap();
    assert_eq!(config.allowed_signers, Path::new("keys/signers"));
    assert!(config.require_signatures);
    for bad in ["../outside", "/etc/ssh/allowed", ""] {
        let err = parse(&format!("[review]\nallowed_signers = \"{bad}\"\n")).unwrap_err();
        assert_eq!(
            err[0].field.as_deref(),
            Some("review.allowed_signers"),
            "{bad}"
        );
        assert_eq!(err[0].line, 2, "{bad}");
    }
}

#[test]
fn sections_are_listed_in_order_with_optional_titles() {
    let c =
        parse("sections = [\n  \"glossary\",\n  { name = \"days\", title = \" Lessons \" },\n]\n")
            .unwrap();
    let got: Vec<_> = (c.sections.iter())
        .map(|s| (s.name.as_str(), s.title.as_deref(), s.line))
        .collect();
    assert_eq!(got, [("glossary", None, 2), ("days", Some("Lessons"), 3)]);
    assert_eq!(parse("").unwrap().sections, []);
}

#[test]
fn bad_sections_are_all_reported_with_their_line() {
    let got = problems(
        "sections = [\n\"days\",\n\"days\",\n\"../etc\",\n\".hidden\",\n3,\n{ title = \"T\" },\n\
         { name = \"a\", weight = 1 },\n{ name = \"b\", title = \"two\\nlines\" },\n\"\",\n]\n",
    );
    let lines: Vec<&str> = got.iter().map(|p| p.split(':').next().unwrap()).collect();
    assert_eq!(
        lines,
        [
            "3 sections",
            "4 sections",
            "5 sections",
            "6 sections",
            "7 sections",
            "8 sections",
            "9 sections",
            "10 sections"
        ],
        "{got:#?}"
    );
    for (p, want) in got.iter().zip([
        "`days` is listed twice",
        "`../etc` is not a folder name",
        "`.hidden` is not a folder name",
        "a section is its folder's name",
        "a section needs a `name`",
        "unknown key `weight`",
        "the title must be one line",
        "`` is not a folder name",
    ]) {
        assert!(p.contains(want), "{p} lacks {want}");
    }
}

#[test]
fn the_glossary_folder_is_one_folder_name_under_content() {
    assert_eq!(parse("").unwrap().glossary_folder, "glossary");
    let c = parse("[glossary]\nfolder = \"terms\"\n").unwrap();
    assert_eq!(c.glossary_folder, "terms");
    let got = problems("[glossary]\nfolder = \"../terms\"\n[new]\ncc = \"x\"\n");
    assert_eq!(got.len(), 2, "every problem at once: {got:#?}");
    assert!(
        got[0].starts_with(
            "2 glossary.folder: `../terms` is not a folder name under content/: it contains `..`"
        ),
        "{got:#?}"
    );
    for (bad, why) in [
        ("content/terms", "path separator"),
        ("a\\\\b", "path separator"),
        ("", "it is empty"),
        (".terms", "starts with a dot"),
        ("my terms", "only ASCII letters"),
        ("days", "`days` holds the day pages"),
    ] {
        let got = problems(&format!("title = \"T\"\n[glossary]\nfolder = \"{bad}\"\n"));
        assert_eq!(got.len(), 1, "{bad}: {got:#?}");
        assert!(got[0].starts_with("3 glossary.folder: "), "{bad}: {got:#?}");
        assert!(got[0].contains(why), "{bad}: {got:#?}");
    }
}
