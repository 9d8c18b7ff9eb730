//! What a reader finds around the pages: navigation (sidebar, breadcrumbs, previous/next),
//! the home page, search index, diagram full size, feed, llms.txt, Markdown copies, 404.
use crate::util::*;

fn day(n: u32, status: &str) -> String {
    let byline = if status == "published" { SIGNED } else { "" };
    format!(
        "---\ntitle: \"Day {n}: step {n}\"\nsummary: Day {n} of the course.\nstatus: {status}\n{byline}---\n\nOn day {n} we practise zanzibarite{n}.\n"
    )
}

fn course() -> Site {
    let site = Site::new();
    site.write("content/glossary/warp.md", published("Warp", ""));
    site.write("content/glossary/lane.md", published("Lane", ""));
    site.write("content/glossary/bank.md", published("Bank", ""));
    site.write(
        "content/glossary/block.md",
        published("Block", "").replace("category: Memory", "category: Execution"),
    );
    site.write("content/glossary/tile.md", draft("Tile"));
    for n in [1, 2, 10] {
        site.write(&format!("content/days/day-{n}.md"), day(n, "published"));
    }
    site.write("content/days/day-3.md", day(3, "draft"));
    site
}

#[test]
fn days_link_to_their_neighbours_in_numeric_order() {
    let site = course();
    assert_code(&site.run(&["build"]), 0);
    let two = site.read("public/days/day-2/index.html");
    assert!(two.contains(r#"rel="prev" href="/days/day-1/""#), "{two}");
    // Day 3 is a draft: the publish build skips it, and 10 follows 2 (not before it).
    assert!(two.contains(r#"rel="next" href="/days/day-10/""#), "{two}");
    let one = site.read("public/days/day-1/index.html");
    assert!(!one.contains(r#"rel="prev""#));
    let ten = site.read("public/days/day-10/index.html");
    assert!(!ten.contains(r#"rel="next""#));
}

#[test]
fn the_preview_puts_drafts_in_the_reading_order_marked() {
    let site = course();
    assert_code(&site.run(&["build", "--drafts"]), 0);
    let two = site.read("public/days/day-2/index.html");
    let next = two
        .split(r#"class="pager-next""#)
        .nth(1)
        .expect("a next link");
    assert!(next.contains(r#"href="/days/day-3/""#), "{two}");
    assert!(next[..next.find("</a>").unwrap()].contains("draft-tag"));
    let home = site.read("public/index.html");
    assert!(home.contains("/glossary/tile/") && home.contains("draft-tag"));
}

#[test]
fn glossary_pages_step_through_their_category_and_show_where_they_are() {
    let site = course();
    assert_code(&site.run(&["build"]), 0);
    let lane = site.read("public/glossary/lane/index.html");
    // Memory, by term: Bank, Lane, Warp; Block is in another category.
    assert!(
        lane.contains(r#"rel="prev" href="/glossary/bank/""#),
        "{lane}"
    );
    assert!(
        lane.contains(r#"rel="next" href="/glossary/warp/""#),
        "{lane}"
    );
    // Reading order runs on across categories (issue 28): Execution's Block, then Memory.
    let bank = site.read("public/glossary/bank/index.html");
    assert!(
        bank.contains(r#"rel="prev" href="/glossary/block/""#),
        "{bank}"
    );
    let block = site.read("public/glossary/block/index.html");
    assert!(block.contains(r#"rel="next" href="/glossary/bank/""#));
    assert!(!block.contains(r#"rel="prev""#), "the section's first page");
    let warp = site.read("public/glossary/warp/index.html");
    assert!(!warp.contains(r#"rel="next""#), "the section's last page");
    // Breadcrumbs: Home / Glossary / Memory / the page.
    let crumbs = lane.split(r#"aria-label="Breadcrumb""#).nth(1).unwrap();
    let crumbs = &crumbs[..crumbs.find("</nav>").unwrap()];
    for part in [
        r#"href="/">Home"#,
        r#"href="/glossary/">Glossary"#,
        r#"href="/glossary/#memory">Memory"#,
        r#"aria-current="page">Lane"#,
    ] {
        assert!(crumbs.contains(part), "{part} in {crumbs}");
    }
    // The sidebar marks the page and leaves drafts out of the publish build.
    assert!(lane.contains(r#"href="/glossary/lane/" aria-current="page""#));
    assert!(!lane.contains("/glossary/tile/"));
    assert!(lane.contains(r##"href="#content""##), "skip link");
    assert!(lane.contains(r#"<main id="content""#));
}

#[test]
fn the_home_page_lists_days_in_order_and_glossary_sections() {
    let site = course();
    assert_code(&site.run(&["build"]), 0);
    let home = site.read("public/index.html");
    let main = &home[home.find("<main").unwrap()..];
    let at = |s: &str| main.find(s).unwrap_or_else(|| panic!("{s} missing"));
    assert!(at("/days/day-1/") < at("/days/day-2/"));
    assert!(at("/days/day-2/") < at("/days/day-10/"));
    assert!(
        main.contains(r#"href="/glossary/#execution">Execution</a> <span class="count">(1 entry)"#)
    );
    assert!(
        main.contains(r#"href="/glossary/#memory">Memory</a> <span class="count">(3 entries)"#)
    );
    let index = site.read("public/glossary/index.html");
    assert!(index.contains(r#"<h2 id="memory">Memory</h2>"#));
}

#[test]
fn the_config_orders_and_names_the_sections_everywhere_they_are_listed() {
    let site = course();
    site.write("content/labs/first-lab.md", draft("First lab"));
    let order = |page: &str, marks: &[&str]| {
        let text = site.read(page);
        let at: Vec<usize> = (marks.iter())
            .map(|m| {
                text.find(m)
                    .unwrap_or_else(|| panic!("{m} missing from {page}"))
            })
            .collect();
        assert!(at.is_sorted(), "{page}: {marks:?} at {at:?}");
    };
    // By default: days, the glossary, then any other section by name.
    assert_code(&site.run(&["build", "--drafts"]), 0);
    let sidebar = [
        "<summary>Days</summary>",
        "<summary>Glossary</summary>",
        "<summary>Labs</summary>",
    ];
    order("public/glossary/lane/index.html", &sidebar);
    site.write(
        "coursegen.toml",
        "sections = [\n  { name = \"glossary\", title = \"Terms\" },\n  \"labs\",\n]\n",
    );
    assert_code(&site.run(&["build", "--drafts"]), 0);
    // Listed ones first, in the config's order and under its titles; days follow.
    let sidebar = [
        "<summary>Terms</summary>",
        "<summary>Labs</summary>",
        "<summary>Days</summary>",
    ];
    order("public/glossary/lane/index.html", &sidebar);
    order("public/days/day-1/index.html", &sidebar);
    let lane = site.read("public/glossary/lane/index.html");
    assert!(
        lane.contains(r#"href="/glossary/">Terms</a>"#),
        "breadcrumb"
    );
    let main = |page: &str| {
        let text = site.read(page);
        text[text.find("<main").unwrap()..].to_string()
    };
    order(
        "public/index.html",
        &[
            r#"id="home-glossary"><a href="/glossary/">Terms</a>"#,
            r#"id="home-labs""#,
            r#"id="home-days""#,
        ],
    );
    // A section with no introduction is headed by its configured title.
    assert!(main("public/glossary/index.html").contains("<h1>Terms</h1>"));
}

#[test]
fn a_listed_section_that_is_not_there_is_refused_with_its_line_and_a_suggestion() {
    let site = course();
    site.write(
        "coursegen.toml",
        "title = \"C\"\nsections = [\"days\", \"glosary\", \"labs\"]\n",
    );
    let out = site.run(&["check"]);
    assert_code(&out, 1);
    assert_stderr_has(
        &out,
        &[
            "coursegen.toml:2: field `sections`: no section `glosary` under content/\n  help: did you mean `glossary`?",
            "coursegen.toml:2: field `sections`: no section `labs` under content/\n  help: the sections under content/ are days, glossary",
        ],
    );
}

#[test]
fn search_index_holds_published_pages_and_can_be_left_out() {
    let site = course();
    assert_code(&site.run(&["build"]), 0);
    assert!(site.exists("public/pagefind/pagefind.js"));
    assert!(site.exists("public/pagefind/pagefind-entry.json"));
    let entry = site.read("public/pagefind/pagefind-entry.json");
    assert!(entry.contains("\"page_count\":7"), "{entry}");
    assert!(
        site.read("public/index.html")
            .contains(r#"data-bundle="/pagefind/""#)
    );
    assert_code(&site.run(&["build", "--no-search"]), 0);
    assert!(!site.exists("public/pagefind"));
}

#[test]
fn feed_and_llms_txt_list_published_pages_only() {
    let site = course();
    assert_code(
        &site.run(&["build", "--drafts", "--base-url", "https://example.org/"]),
        0,
    );
    let feed = site.read("public/feed.xml");
    assert!(feed.starts_with("<?xml"));
    assert!(feed.contains(r#"<feed xmlns="http://www.w3.org/2005/Atom">"#));
    assert!(
        feed.contains("<id>https://example.org/glossary/warp/</id>"),
        "{feed}"
    );
    assert!(feed.contains("<updated>2026-11-20T00:00:00Z</updated>"));
    assert!(feed.contains("<author><name>Ada Lovelace</name></author>"));
    assert!(
        !feed.contains("tile") && !feed.contains("day-3"),
        "drafts stay out"
    );
    let llms = site.read("public/llms.txt");
    assert!(llms.starts_with("# Untitled course\n"));
    assert!(llms.contains("- [Warp](https://example.org/glossary/warp/index.md): A term."));
    assert!(llms.find("## Days").unwrap() < llms.find("## Glossary").unwrap());
    assert!(!llms.contains("tile") && !llms.contains("day-3"));
    // The Markdown copy sits beside each published page, not beside drafts.
    let md = site.read("public/glossary/warp/index.md");
    assert!(
        md.starts_with("# Warp\n\n> A term.\n\nBody of Warp."),
        "{md}"
    );
    assert!(md.contains("Reviewed by: Grace Hopper"));
    assert!(!site.exists("public/glossary/tile/index.md"));
    assert!(site.exists("public/glossary/tile/index.html"));
}

#[test]
fn a_404_page_and_a_favicon_are_written() {
    let site = course();
    assert_code(&site.run(&["build"]), 0);
    let page = site.read("public/404.html");
    assert!(page.contains("Page not found") && page.contains("noindex"));
    // Absolute URLs: the page is served for any missing path.
    assert!(page.contains(r#"href="/style.css""#));
    assert!(site.exists("public/favicon.svg"));
    assert!(
        site.read("public/index.html")
            .contains(r#"rel="icon" href="/favicon.svg""#)
    );
    assert!(site.exists("public/search/index.html"));
}

#[test]
fn a_diagram_opens_full_size_and_follows_the_theme() {
    let site = Site::new();
    site.write(
        "content/glossary/bank.md",
        published(
            "Bank",
            "diagram:\n  preset: bank-map\n  alt: Words shaded by bank.\n",
        ),
    );
    assert_code(&site.run(&["build"]), 0);
    let html = site.read("public/glossary/bank/index.html");
    assert!(html.contains(r#"<a class="diagram-full" href="diagram.svg""#));
    // Inline, each colour comes from a custom property the dark theme redefines…
    assert!(
        html.contains("fill=\"var(--bank-0, #"),
        "no themed bank fill"
    );
    assert!(html.contains("var(--diagram-bg, #ffffff)"));
    let css = site.read("public/style.css");
    assert!(css.contains("--bank-31:") && css.contains("--diagram-bg:"));
    // …while the file on its own keeps plain light colours.
    let svg = site.read("public/glossary/bank/diagram.svg");
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(!svg.contains("var(--"));
}

/// The no-flash theme script is the page's only inline script, and the page's
/// Content-Security-Policy allows it by the hash of its code, also after it is edited.
#[test]
fn the_inline_theme_script_is_allowed_by_its_hash_also_after_an_edit() {
    use sha2::Digest;
    let site = course();
    assert_code(&site.run(&["build"]), 0);
    let page = site.read("public/glossary/warp/index.html");
    assert_eq!(page.matches("<script>").count(), 1, "one inline script");
    let script = page
        .split("<script>")
        .nth(1)
        .unwrap()
        .split("</script>")
        .next()
        .unwrap();
    let hash = base64(&sha2::Sha256::digest(script.as_bytes()));
    let allowed = |page: &str, hash: &str| {
        let csp = page
            .split("http-equiv=\"Content-Security-Policy\" content=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap_or_default()
            .to_string();
        csp.contains(&format!("script-src 'self' 'sha256-{hash}'"))
    };
    assert!(
        allowed(&page, &hash),
        "the policy should allow sha256 {hash}: {page}"
    );
    // A course that edits the snippet: the new code's hash, and not the old one.
    let base = site
        .read("templates/base.html")
        .replace(script, &format!("{script};var edited=1"));
    site.write("templates/base.html", &base);
    assert_code(&site.run(&["build"]), 0);
    let page = site.read("public/glossary/warp/index.html");
    let edited = base64(&sha2::Sha256::digest(
        format!("{script};var edited=1").as_bytes(),
    ));
    assert!(
        allowed(&page, &edited),
        "the edited snippet's sha256 {edited}: {page}"
    );
    assert!(!allowed(&page, &hash));
}

fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ABC[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Regression (issue 28, item 4): the copy lacked the measured table, the diagram's alt
/// text and the code a `file=` block includes (an empty block).
#[test]
fn the_markdown_copy_holds_the_measured_rows_the_alt_text_and_included_code() {
    let site = measured_site(true);
    let body = "\nThe loop:\n\n```cuda file=kernels/bank_conflicts.cu region=timed-loop\n```\n\n\
                ## Measured\n\nA factor of {{% ratio 32L L digits=0 %}} between the rows.\n";
    let diagram = "diagram:\n  preset: bank-map\n  alt: A 32-wide tile shaded by bank.\n";
    site.write(
        "content/glossary/bank.md",
        format!(
            "{}{body}",
            published("Bank", &format!("measure: bank_conflicts\n{diagram}"))
                .trim_end_matches("Body of Bank.\n")
        ),
    );
    assert_code(&site.run(&["build"]), 0);
    let md = site.read("public/glossary/bank/index.md");
    let html = site.read("public/glossary/bank/index.html");
    // Every row label of the page's table is a row of the copy's, time included.
    let rows: Vec<&str> = html
        .split("<th scope=\"row\">")
        .skip(1)
        .map(|r| &r[..r.find('<').unwrap()])
        .collect();
    assert!(rows.len() >= 3, "{html}");
    for label in rows {
        let line = md
            .lines()
            .find(|l| l.starts_with(&format!("| {label} |")))
            .unwrap_or_else(|| panic!("row {label} missing:\n{md}"));
        assert!(line.contains(" ms |"), "{line}");
    }
    let measured = md.find("## Measured").unwrap();
    assert!(md.find("| 32L |").unwrap() > measured);
    assert!(md.contains("A factor of 32 between the rows."), "{md}");
    assert!(
        md.contains("![A 32-wide tile shaded by bank.](diagram.svg)"),
        "{md}"
    );
    let kernel = std::fs::read_to_string(site.root().join("kernels/bank_conflicts.cu")).unwrap();
    assert!(kernel.contains("lane_base"));
    let block = md
        .split("```cuda file=kernels/bank_conflicts.cu region=timed-loop\n")
        .nth(1)
        .unwrap();
    let block = &block[..block.find("```").unwrap()];
    assert!(block.contains("const unsigned int* lane_base"), "{md}");
}

/// Issue 28, item 11: the preview keeps crawlers out and dates an empty feed by the build.
#[test]
fn robots_txt_and_an_empty_preview_feed() {
    let site = Site::new();
    site.write("content/glossary/tile.md", draft("Tile"));
    assert_code(&site.run(&["build", "--drafts"]), 0);
    assert_eq!(
        site.read("public/robots.txt"),
        "User-agent: *\nDisallow: /\n"
    );
    let feed = site.read("public/feed.xml");
    assert!(!feed.contains("1970"), "{feed}");
    assert!(
        feed.contains("<updated>2026-11-30T00:00:00Z</updated>"),
        "{feed}"
    );
    for page in [
        "index.html",
        "glossary/index.html",
        "glossary/tile/index.html",
    ] {
        let html = site.read(&format!("public/{page}"));
        assert!(
            html.contains(r#"<meta name="robots" content="noindex">"#),
            "{page}"
        );
    }
    let site = course();
    assert_code(
        &site.run(&["build", "--base-url", "https://example.org/course/"]),
        0,
    );
    assert_eq!(
        site.read("public/robots.txt"),
        "User-agent: *\nAllow: /\n\nSitemap: https://example.org/course/sitemap.xml\n"
    );
}

/// Issue 28, item 12: a canonical address on every page, an og:image on every entry, dates
/// in the sitemap.
#[test]
fn pages_name_their_canonical_address_and_the_sitemap_dates_them() {
    let site = course();
    assert_code(
        &site.run(&["build", "--base-url", "https://example.org/course/"]),
        0,
    );
    let warp = site.read("public/glossary/warp/index.html");
    assert!(
        warp.contains(r#"<link rel="canonical" href="https://example.org/course/glossary/warp/">"#)
    );
    assert!(warp.contains(
        r#"<meta property="og:url" content="https://example.org/course/glossary/warp/">"#
    ));
    assert!(
        site.read("public/index.html")
            .contains(r#"<link rel="canonical" href="https://example.org/course/">"#)
    );
    assert!(!site.read("public/404.html").contains("canonical"));
    // A page without a diagram shows the site's card in link previews.
    assert!(
        warp.contains(
            r#"<meta property="og:image" content="https://example.org/course/card.png">"#
        )
    );
    assert!(warp.contains(r#"<meta property="og:image:alt" content="Untitled course">"#));
    let png = std::fs::read(site.root().join("public/card.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG"), "card.png is a PNG");
    let xml = site.read("public/sitemap.xml");
    assert!(
        xml.contains("<url><loc>https://example.org/course/glossary/warp/</loc><lastmod>2026-11-20</lastmod></url>"),
        "{xml}"
    );
    assert!(
        xml.contains(
            "<url><loc>https://example.org/course/</loc><lastmod>2026-11-20</lastmod></url>"
        ),
        "{xml}"
    );
    // Without an address there is nothing to name.
    assert_code(&site.run(&["build"]), 0);
    assert!(
        !site
            .read("public/glossary/warp/index.html")
            .contains("canonical")
    );
}

#[test]
fn the_home_text_is_link_checked_and_its_links_move_under_the_base_path() {
    let site = course();
    let config = |links: &str| {
        format!(
            "title = \"C\"\nhome = \"\"\"\n\nStart with [the warp](/glossary/warp/).\n{links}\"\"\"\n"
        )
    };
    site.write(
        "coursegen.toml",
        config("Then [gone](/glossary/gone/) and [tile](/glossary/tile/).\n"),
    );
    let out = site.run(&["build"]);
    assert_fails_at(
        &out,
        "coursegen.toml:5",
        "field `home`: broken link: `/glossary/gone/` is not a page or file of this site",
    );
    assert_fails_at(
        &out,
        "coursegen.toml:5",
        "field `home`: link to `/glossary/tile/` points at a draft (content/glossary/tile.md) that this build leaves out",
    );
    assert_stderr_lacks(&out, &["/glossary/warp/"]);
    // The preview has the draft: only the missing page is still wrong.
    let preview = site.run(&["build", "--drafts"]);
    assert_stderr_has(&preview, &["`/glossary/gone/`"]);
    assert_stderr_lacks(&preview, &["`/glossary/tile/`"]);
    // Escapes change the lines: the problem is named at the key's line.
    site.write(
        "coursegen.toml",
        "title = \"C\"\nhome = \"One.\\n\\nSee [gone](/glossary/gone/).\"\n",
    );
    let escaped = site.run(&["build"]);
    assert_stderr_has(
        &escaped,
        &["coursegen.toml:2: field `home`: broken link: `/glossary/gone/`"],
    );
    site.write("coursegen.toml", config(""));
    assert_code(
        &site.run(&["build", "--base-url", "https://example.org/course/"]),
        0,
    );
    let home = site.read("public/index.html");
    assert!(
        home.contains(r#"<a href="/course/glossary/warp/">the warp</a>"#),
        "{home}"
    );
}

/// A glossary entry (a draft) with a term, aliases and a body.
fn term_entry(term: &str, aliases: &str, body: &str) -> String {
    format!(
        "---\ntitle: What is {term}?\nterm: {term}\naliases: [{aliases}]\nsummary: About {term}.\nstatus: draft\n---\n{body}\n"
    )
}

#[test]
fn two_entries_claiming_one_alias_are_refused_at_the_second_ones_field() {
    let site = Site::new();
    site.write(
        "content/glossary/bank.md",
        term_entry("Bank", "banks", "Text."),
    );
    site.write(
        "content/glossary/shared-memory-bank.md",
        term_entry("Shared memory bank", "Banks, smem bank", "Text."),
    );
    assert_fails_at(
        &site.run(&["check", "--drafts"]),
        "content/glossary/shared-memory-bank.md:4",
        "field `aliases`: `Banks` already names `Bank` (content/glossary/bank.md:4, `aliases`)",
    );
}

#[test]
fn a_formula_that_does_not_parse_is_refused_with_its_line() {
    let site = Site::new();
    let body = "Fine: $x^2$.\n\nBroken:\n\n$$\\nosuchcommand{x}$$\n";
    site.write(
        "content/glossary/bank.md",
        term_entry("Bank", "banks", body),
    );
    // Front matter is lines 1-7, the body starts on line 8; the formula is on line 12.
    assert_fails_at(
        &site.run(&["check", "--drafts"]),
        "content/glossary/bank.md:12",
        "the formula `\\nosuchcommand{x}` does not parse",
    );
}

/// Issue 51, item 3: a formula whose braces do not balance is not read as math by
/// Markdown, and shipped as raw TeX; it is an error at its line, inline and displayed, and
/// a dollar sign in prose or an escaped one is not.
#[test]
fn a_formula_with_unbalanced_braces_is_refused_with_its_line() {
    let site = Site::new();
    let body = "Costs $5 and $10; \\$\\frac{a\\$ is escaped, `$\\frac{a$` is code.\n\n\
                Inline: $\\frac{a$ here.\n\nAnd $\\sqrt{x\ny$ across a line.\n\n\
                $$\\frac{a}{b$$\n";
    site.write(
        "content/glossary/bank.md",
        term_entry("Bank", "banks", body),
    );
    assert_fails_at(
        &site.run(&["check", "--drafts"]),
        "content/glossary/bank.md:10",
        "a formula's braces do not balance",
    );
    assert_stderr_has(
        &site.run(&["check", "--drafts"]),
        &[
            "the same problem 2 more times in this file (line 12, 15)\n3 problems found (1 distinct)",
        ],
    );
}

#[test]
fn terms_link_to_shown_pages_only_and_a_page_can_turn_linking_off() {
    let site = Site::new();
    site.write(
        "content/glossary/warp.md",
        published("Warp", "aliases: [warps]\n"),
    );
    site.write(
        "content/glossary/bank.md",
        term_entry("Bank", "banks", "Not linked."),
    );
    site.write(
        "content/glossary/lane.md",
        published("Lane", "related: [bank]\n")
            .replace("Body of Lane.", "Warps and banks: a warp of lanes."),
    );
    site.write(
        "content/glossary/block.md",
        published("Block", "link_terms: false\n").replace("Body of Block.", "A warp."),
    );
    assert_code(&site.run(&["build"]), 0);
    let lane = site.read("public/glossary/lane/index.html");
    // The first mention, spelled as written, linked; the draft `bank` is not a page here.
    assert!(
        lane.contains(
            r#"<a class="term" href="/glossary/warp/" aria-describedby="term-1">Warps</a>"#
        ),
        "{lane}"
    );
    assert_eq!(
        lane.matches(r#"href="/glossary/warp/" aria-describedby"#)
            .count(),
        1
    );
    assert!(!lane.contains("/glossary/bank/"), "{lane}");
    // The related draft is not a link, and says why.
    assert!(
        lane.contains("<li>Bank <span class=\"not-published\">(not published yet)</span></li>"),
        "{lane}"
    );
    let block = site.read("public/glossary/block/index.html");
    assert!(!block.contains("class=\"term\""), "{block}");
    // In the preview the draft is shown, so it is linked.
    assert_code(&site.run(&["build", "--drafts"]), 0);
    let lane = site.read("public/glossary/lane/index.html");
    assert!(
        lane.contains(r#"href="/glossary/bank/" aria-describedby="term-2">banks</a>"#),
        "{lane}"
    );
}

/// Issue 51, item 2: terms link as authors write them — a regular plural without an alias
/// (`warps`, `memories`), a possessive, and a multi-word term split over a source line or
/// spaced twice — and a plural two entries would make, or another entry names, is said.
#[test]
fn plurals_possessives_and_terms_across_line_breaks_link() {
    let site = Site::new();
    site.write("content/glossary/warp.md", term_entry("Warp", "", "Text."));
    site.write(
        "content/glossary/memory.md",
        term_entry("Memory", "", "Text."),
    );
    site.write(
        "content/glossary/shared-memory-bank.md",
        term_entry("Shared memory bank", "", "Text."),
    );
    site.write(
        "content/glossary/lane.md",
        term_entry(
            "Lane",
            "",
            "Two warps share memories through a shared\nmemory   bank; the warp's lanes.",
        ),
    );
    let o = site.run(&["build", "--drafts"]);
    assert_code(&o, 0);
    let lane = site.read("public/glossary/lane/index.html");
    for (url, shown) in [
        ("/glossary/warp/", "warps"),
        ("/glossary/memory/", "memories"),
        ("/glossary/shared-memory-bank/", "shared\nmemory   bank"),
    ] {
        assert!(
            lane.contains(&format!("href=\"{url}\" aria-describedby=\"term-")),
            "{url}: {lane}"
        );
        assert!(lane.contains(&format!("\">{shown}</a>")), "{shown}: {lane}");
    }
    // A hyphenated form links (the spaced form was linked first: a page of its own).
    site.write(
        "content/glossary/lane.md",
        term_entry(
            "Lane",
            "",
            "A shared-memory-bank conflict; Shared-Memory-Banks.",
        ),
    );
    assert_code(&site.run(&["build", "--drafts"]), 0);
    let lane = site.read("public/glossary/lane/index.html");
    assert!(
        lane.contains("href=\"/glossary/shared-memory-bank/\" aria-describedby=\"term-1\">shared-memory-bank</a>"),
        "{lane}"
    );
    // A plural that is another entry's word links there, and check says so once.
    site.write(
        "content/glossary/warps.md",
        term_entry("Warps", "", "Text."),
    );
    let o = site.run(&["build", "--drafts"]);
    assert_code(&o, 0);
    assert_stderr_has(
        &o,
        &[
            "field `term`: `Warps`, the plural of `Warp`, is also `term` of `Warps` (content/glossary/warps.md): a mention of `Warps` links there, where it is named",
        ],
    );
    let lane = site.read("public/glossary/lane/index.html");
    assert!(lane.contains("href=\"/glossary/warps/\""), "{lane}");
}

#[test]
fn two_entries_with_one_term_are_a_warning_and_the_word_links_to_neither() {
    let site = Site::new();
    site.write("content/glossary/bank.md", term_entry("Bank", "", "Text."));
    site.write(
        "content/glossary/bank-2.md",
        term_entry("bank", "", "Text."),
    );
    site.write(
        "content/glossary/lane.md",
        term_entry("Lane", "", "A bank."),
    );
    let o = site.run(&["build", "--drafts"]);
    assert_code(&o, 0);
    assert_stderr_has(
        &o,
        &["content/glossary/bank.md:3: field `term`: `Bank` already names `bank`"],
    );
    let lane = site.read("public/glossary/lane/index.html");
    assert!(!lane.contains("class=\"term\""), "{lane}");
}

/// Issue 51, slips: a heading `## 1` and a footnote `[^1]` no longer share `id="1"`, and a
/// section index has a meta description (its introduction's summary, else what it lists).
#[test]
fn footnotes_and_headings_keep_apart_and_section_indexes_describe_themselves() {
    let site = Site::new();
    site.write(
        "content/glossary/warp.md",
        term_entry("Warp", "", "## 1\n\nA claim.[^1]\n\n[^1]: The source.\n"),
    );
    site.write("content/glossary/bank.md", term_entry("Bank", "", "Text."));
    assert_code(&site.run(&["build", "--drafts"]), 0);
    let warp = site.read("public/glossary/warp/index.html");
    assert_eq!(warp.matches("id=\"1\"").count(), 1, "{warp}");
    assert!(
        warp.contains("href=\"#1\""),
        "the footnote's reference: {warp}"
    );
    let index = site.read("public/glossary/index.html");
    assert!(
        index.contains("<meta name=\"description\" content=\"Glossary of "),
        "{index}"
    );
    assert!(
        index.contains(": 2 entries, from Bank, Warp.\">"),
        "{index}"
    );
}
