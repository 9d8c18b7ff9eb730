//! The rebuilder against the build: after every edit of a sequence (entries, intros,
//! assets, static files, templates, records, config; edits that break the site and edits
//! that fix it), the folder serve serves must hold exactly what a fresh full `build` of
//! the same files writes (`--no-search`, less its `.coursegen-output` marker), byte for
//! byte; and a failed rebuild must report the same problems as the failed build and leave
//! the last good output as it was. Driven without the watcher: each step names the paths
//! it touched, as the watcher would.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::rebuild::{Done, Rebuilder};
use crate::config::Config;
use crate::site::layout::MARKER;
use crate::site::options::BuildOptions;
use crate::site::{SiteError, build};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn copy_dir(from: &Path, to: &Path) {
    for item in walkdir::WalkDir::new(from) {
        let item = item.unwrap();
        let dest = to.join(item.path().strip_prefix(from).unwrap());
        if item.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::copy(item.path(), &dest).unwrap();
        }
    }
}

const SIGNED: &str = "byline:\n  written_by: Ada Lovelace\n  reviewed_by: Grace Hopper\n  written_on: 2026-11-01\n  last_checked_on: 2026-11-20\n";

/// A complete, published glossary entry with `extra` front-matter lines.
fn published(title: &str, extra: &str, body: &str) -> String {
    format!(
        "---\ntitle: {title}\nterm: {title}\ncategory: Memory\ncc: \"8.0\"\nsummary: A term.\nsources:\n  - title: Guide\n    url: https://docs.nvidia.com/\nstatus: published\n{extra}{SIGNED}---\n\n{body}\n"
    )
}

/// Every file under `dir` by its path inside it, but the provenance file a publish build
/// writes: serve is a local preview, which no reader verifies, and writes none.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(Result::unwrap)
        .filter(|i| i.file_type().is_file())
        .filter(|i| i.path() != dir.join(crate::editorial::provenance::FILE))
        .map(|i| {
            let rel = i.path().strip_prefix(dir).unwrap().to_path_buf();
            (rel, std::fs::read(i.path()).unwrap())
        })
        .collect()
}

/// Names what differs between two trees (empty when they are equal).
fn differences(served: &BTreeMap<PathBuf, Vec<u8>>, built: &BTreeMap<PathBuf, Vec<u8>>) -> String {
    let mut out = String::new();
    for (path, bytes) in served {
        match built.get(path) {
            None => out.push_str(&format!("only served: {}\n", path.display())),
            Some(b) if b != bytes => {
                let (s, b) = (String::from_utf8_lossy(bytes), String::from_utf8_lossy(b));
                let cut = |l: &str| l.chars().take(160).collect::<String>();
                let line = (s.lines().zip(b.lines()))
                    .find(|(x, y)| x != y)
                    .map(|(x, y)| (cut(x), cut(y)));
                out.push_str(&format!("differs: {}: {line:?}\n", path.display()));
            }
            Some(_) => {}
        }
    }
    for path in built.keys().filter(|p| !served.contains_key(*p)) {
        out.push_str(&format!("only built: {}\n", path.display()));
    }
    out
}

/// A site (the repository's content, templates, static files, kernels and records, plus
/// two published entries) and a rebuilder serving it.
pub(super) struct Fixture {
    site: tempfile::TempDir,
    served: tempfile::TempDir,
    cache: tempfile::TempDir,
    drafts: bool,
    rebuilder: Rebuilder,
    /// The output of the last good rebuild.
    good: BTreeMap<PathBuf, Vec<u8>>,
}

impl Fixture {
    pub(super) fn new(drafts: bool, setup: impl FnOnce(&Path)) -> Fixture {
        let site = tempfile::tempdir().unwrap();
        for dir in ["templates", "static", "content", "kernels", "measurements"] {
            copy_dir(&repo().join(dir), &site.path().join(dir));
        }
        setup(site.path());
        let served = tempfile::tempdir().unwrap();
        let cache = tempfile::tempdir().unwrap();
        let out = served.path().join("site");
        let opts = options(drafts, Some(out.clone()), cache.path());
        let rebuilder = Rebuilder::new(site.path(), opts, None, None, &out);
        Fixture {
            site,
            served,
            cache,
            drafts,
            rebuilder,
            good: BTreeMap::new(),
        }
    }

    pub(super) fn root(&self) -> &Path {
        self.site.path()
    }

    pub(super) fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.root().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }

    /// Replaces `from` with `to` in the file at `rel`, which must hold `from` (an edit that
    /// changed nothing would test nothing).
    #[track_caller]
    pub(super) fn edit(&self, rel: &str, from: &str, to: &str) -> PathBuf {
        let text = self.read(rel);
        assert!(text.contains(from), "{rel} does not contain {from:?}");
        self.write(rel, &text.replace(from, to))
    }

    pub(super) fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root().join(rel)).unwrap()
    }

    pub(super) fn remove(&self, rel: &str) -> PathBuf {
        let p = self.root().join(rel);
        std::fs::remove_file(&p).unwrap();
        p
    }

    /// The pages of the last good build, as the log counts them.
    fn rebuilder_pages(&self) -> usize {
        (self.good.keys())
            .filter(|p| p.ends_with("index.html") && !p.starts_with("search"))
            .count()
    }

    /// A file of the served output.
    pub(super) fn served(&self, rel: &str) -> String {
        std::fs::read_to_string(self.served.path().join("site").join(rel))
            .unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    /// Rebuilds after `changed` and holds the outcome to a full build of the same files.
    #[track_caller]
    pub(super) fn step(&mut self, what: &str, changed: Vec<PathBuf>) -> Result<Done, Vec<String>> {
        self.rebuilder.changed(changed);
        let served = self.rebuilder.rebuild();
        let full = tempfile::tempdir().unwrap();
        let out = full.path().join("site");
        let built = match Config::load(self.root(), None) {
            Ok(config) => {
                let mut opts = options(self.drafts, Some(out.clone()), self.cache.path());
                opts.review_max_age_days = config
                    .review_max_age_days
                    .unwrap_or(crate::editorial::policy::DEFAULT_REVIEW_MAX_AGE_DAYS);
                opts.config = config;
                build(self.root(), &opts).map_err(|e| match e {
                    SiteError::Content(d) => d.0.iter().map(ToString::to_string).collect(),
                    other => vec![other.to_string()],
                })
            }
            Err(e) => Err(vec![e.to_string()]),
        };
        let now = tree(&self.served.path().join("site"));
        match (&served, built) {
            (Ok(_), Ok(_)) => {
                let mut built = tree(&out);
                built.remove(Path::new(MARKER));
                let diff = differences(&now, &built);
                assert!(diff.is_empty(), "{what}: served ≠ built:\n{diff}");
                self.good = now;
            }
            (Err(served), Err(built)) => {
                assert_eq!(served, &built, "{what}: the problems differ");
                let diff = differences(&now, &self.good);
                assert!(
                    diff.is_empty(),
                    "{what}: a failed rebuild changed the output:\n{diff}"
                );
            }
            (served, built) => panic!("{what}: served {served:?}, built {built:?}"),
        }
        served
    }
}

fn options(drafts: bool, out: Option<PathBuf>, cache: &Path) -> BuildOptions {
    BuildOptions {
        drafts,
        strict: false,
        highlight: true,
        search: false,
        out,
        config: Config::default(),
        review_max_age_days: crate::editorial::policy::DEFAULT_REVIEW_MAX_AGE_DAYS,
        // 2026-11-30T12:00:00Z
        epoch: Some(1_796_040_000),
        trusted_ref: None,
        cache_dir: Some(cache.to_path_buf()),
        check_signatures: true,
    }
}

/// The site the sequence starts from: the repository's, with two published entries (one
/// naming a draft, one linking to the other) and an asset.
fn course(root: &Path) {
    let write = |rel: &str, text: String| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write(
        "content/glossary/lane.md",
        published(
            "Lane",
            "related: [warp]\n",
            "A lane. See [sector](/glossary/sector/).",
        ),
    );
    write(
        "content/glossary/sector.md",
        published("Sector", "", "A sector. ![figure](figure.png)"),
    );
    write(
        "content/glossary/sector/figure.png",
        "not really a png".into(),
    );
}

#[track_caller]
fn ok(r: Result<Done, Vec<String>>) -> Done {
    r.unwrap_or_else(|e| panic!("the rebuild failed: {e:#?}"))
}

#[track_caller]
fn failed(r: Result<Done, Vec<String>>, needle: &str) {
    match r {
        Ok(_) => panic!("the rebuild passed; expected {needle:?}"),
        Err(e) => assert!(
            e.iter().any(|l| l.contains(needle)),
            "{needle:?} not in {e:#?}"
        ),
    }
}

/// The edit sequence, in the preview (drafts shown) or the publish build.
fn sequence(drafts: bool) {
    let mut f = Fixture::new(drafts, course);
    ok(f.step("first build", vec![]));
    let lane = "content/glossary/lane.md";
    let sector = "content/glossary/sector.md";
    let warp = "content/glossary/warp.md";
    let p = f.edit(lane, "A lane.", "A lane, edited.");
    ok(f.step("a body", vec![p]));
    let p = f.edit(sector, "term: Sector", "term: Sector, renamed");
    ok(f.step("a term others list", vec![p]));
    let p = f.edit(warp, "term: Warp", "term: Warp, renamed");
    ok(f.step("a draft's term, named in related:", vec![p]));
    let p = f.write(
        "content/glossary/line.md",
        &published(
            "Line",
            "related: [sector]\n",
            "A line of [lane](/glossary/lane/).",
        ),
    );
    ok(f.step("an entry added", vec![p]));
    let p = f.remove(sector);
    failed(
        f.step("an entry linked to, removed", vec![p]),
        "broken link",
    );
    let p = f.edit(lane, " See [sector](/glossary/sector/).", "");
    failed(
        f.step("one of two problems fixed", vec![p]),
        "`sector` is not a glossary entry",
    );
    let p = f.write(
        "content/glossary/line.md",
        &published("Line", "", "A line of [lane](/glossary/lane/)."),
    );
    let figure = f.remove("content/glossary/sector/figure.png");
    ok(f.step("both fixed, the asset gone", vec![p, figure]));
    let p = f.write(
        "content/glossary.md",
        "---\ntitle: The glossary\nstatus: draft\n---\nAn intro with [lane](/glossary/lane/).\n",
    );
    ok(f.step("an intro added", vec![p]));
    let p = f.write(
        "content/glossary.md",
        "---\ntitle: The glossary\nstatus: draft\n---\nAn intro, edited.\n",
    );
    ok(f.step("the intro edited", vec![p]));
    let p = f.edit(lane, "status: published", "status: draft");
    let r = f.step("a published entry made a draft", vec![p]);
    if drafts {
        ok(r);
    } else {
        failed(r, "points at a draft");
    }
    let p = f.edit(lane, "status: draft", "status: published");
    ok(f.step("and published again", vec![p]));
    let p = f.edit(lane, "byline:\n", "colour: red\nbyline:\n");
    failed(f.step("front matter broken", vec![p]), "colour");
    let p = f.edit(lane, "colour: red\n", "");
    ok(f.step("front matter fixed", vec![p]));
    let moved = f.remove("content/glossary/line.md");
    let p = f.write(
        "content/glossary/memory/line.md",
        &published("Line", "", "A moved line."),
    );
    ok(f.step("an entry moved", vec![moved, p]));
    let p = f.write(
        "content/glossary/twin.md",
        &published("Twin", "slug: LANE\n", "Twin."),
    );
    failed(f.step("a duplicate slug", vec![p]), "already used");
    let p = f.remove("content/glossary/twin.md");
    ok(f.step("the duplicate gone", vec![p]));
    let p = f.write("static/extra.css", "body { color: red }\n");
    ok(f.step("a static file added", vec![p]));
    let p = f.write("static/extra.css", "body { color: blue }\n");
    ok(f.step("a static file edited", vec![p]));
    // A code block showing a file outside the watched folders: the page is checked again
    // on every rebuild, and the copy beside it read again.
    f.write("notes/snippet.cu", "int x = 1;\n");
    let block = "\n```cuda file=notes/snippet.cu\n```\n";
    let p = f.write(lane, &(f.read(lane) + block));
    ok(f.step("a block including a file", vec![p]));
    f.write("notes/snippet.cu", "int x = 2;\n");
    let p = f.write("static/extra.css", "body { color: green }\n");
    ok(f.step(
        "the included file changed unseen, something else seen",
        vec![p],
    ));
    assert_eq!(f.served("source/notes/snippet.cu"), "int x = 2;\n");
    let entry = f.read("templates/entry.html");
    let p = f.write(
        "templates/entry.html",
        &entry.replacen("<h1>", "<h1 class=\"retitled\">", 1),
    );
    ok(f.step("a template", vec![p]));
    let mut changed = Vec::new();
    for item in std::fs::read_dir(f.root().join("measurements/coalescing")).unwrap() {
        let path = item.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let mut record: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            record["software"]["driver_version"] = "999.42".into();
            std::fs::write(&path, serde_json::to_string_pretty(&record).unwrap()).unwrap();
            changed.push(path);
        }
    }
    ok(f.step("a record", changed));
    let p = f.write("coursegen.toml", "title = \"Another course\"\n");
    ok(f.step("the config", vec![p]));
    let p = f.write("coursegen.toml", "title = 3\n");
    failed(f.step("the config broken", vec![p]), "title");
    let p = f.remove("coursegen.toml");
    ok(f.step("the config gone", vec![p]));
    ok(f.step("lost events", vec![PathBuf::new()]));
}

#[test]
fn the_preview_equals_a_full_build_after_every_edit() {
    sequence(true);
}

#[test]
fn the_publish_preview_equals_a_full_build_after_every_edit() {
    sequence(false);
}

const DIAGRAM: &str =
    "diagram:\n  preset: lane-banks\n  stride: 32\n  alt: Every lane in bank 0.\n";

/// Edits that change only what one site-wide step of the check stage reads (serve keeps a
/// step's result while every entry it reads is the same in what it reads, `memo::SiteMemo`):
/// each reaches the output, or the problems, as a full build has them.
#[test]
fn an_edit_reaches_each_site_wide_step_that_reads_what_it_changed() {
    let mut f = Fixture::new(true, |root| {
        course(root);
        let write = |rel: &str, text: &str| {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        write("coursegen.toml", "sections = [\"glossary\", \"notes\"]\n");
        // Where sector's diagram image would go: a file of its own while it draws none.
        write("content/glossary/sector/diagram.png", "png");
        write(
            "content/about.md",
            "---\ntitle: About\nstatus: draft\n---\nAbout.\n",
        );
        // A term without a summary: its preview is its title.
        write(
            "content/glossary/bucket.md",
            "---\ntitle: Bucket\nterm: Bucket\nstatus: draft\n---\nA bucket.\n",
        );
        write(
            "content/notes/first.md",
            "---\ntitle: First\nstatus: draft\n---\nA note.\n",
        );
    });
    ok(f.step("first build", vec![]));
    let (lane, sector) = ("content/glossary/lane.md", "content/glossary/sector.md");
    // The clash of words: an alias claims another entry's term, then its line moves.
    let p = f.edit(
        lane,
        "related: [warp]\n",
        "related: [warp]\naliases: [Sector]\n",
    );
    failed(f.step("an alias claims a term", vec![p]), "already names");
    let p = f.write(lane, &f.read(lane).replacen("---\n", "---\n# Moved.\n", 1));
    failed(f.step("the alias's line moves", vec![p]), "already names");
    let p = f.edit(lane, "aliases: [Sector]\n", "");
    ok(f.step("the alias gone", vec![p]));
    // The terms: lane's page mentions a word that becomes sector's alias (first: the
    // mention linked), sector (its summary and compute capability), and bucket (its title).
    let p = f.edit(
        lane,
        "A lane.",
        "A lane in a Pail, of a Sector, by a Bucket.",
    );
    ok(f.step("mentions", vec![p]));
    let p = f.edit(sector, "term: Sector\n", "term: Sector\naliases: [Pail]\n");
    ok(f.step("an alias", vec![p]));
    let bucket = "content/glossary/bucket.md";
    let p = f.edit(bucket, "title: Bucket", "title: A tub");
    ok(f.step("the title of a term without a summary", vec![p]));
    assert!(f.served("glossary/lane/index.html").contains("A tub"));
    // A page without a term claims bucket's word too: a mention links to neither.
    let about = "content/about.md";
    let p = f.edit(about, "status:", "aliases: [Bucket]\nstatus:");
    ok(f.step("an alias without a term", vec![p]));
    assert!(!f.served("glossary/lane/index.html").contains("A tub"));
    let p = f.edit(about, "aliases: [Bucket]\n", "");
    ok(f.step("that alias gone", vec![p]));
    // A term, an alias and a URL changed in place (no field's line moves): the mention
    // of bucket unlinked; bucket's term, then sector's alias, claiming the other's word.
    let p = f.edit(bucket, "term: Bucket", "term: Pot");
    ok(f.step("a term renamed", vec![p]));
    let p = f.edit(bucket, "term: Pot", "term: Pail");
    failed(
        f.step("a term that an alias claims", vec![p]),
        "already names",
    );
    let p = f.edit(bucket, "term: Pail", "term: Bucket");
    ok(f.step("the term back", vec![p]));
    let p = f.edit(sector, "aliases: [Pail]", "aliases: [Bucket]");
    failed(
        f.step("an alias that claims a term", vec![p]),
        "already names",
    );
    let p = f.edit(sector, "aliases: [Bucket]", "aliases: [Pail]");
    ok(f.step("the alias back", vec![p]));
    let p = f.edit(bucket, "status:", "slug: bucket\nstatus:");
    ok(f.step("bucket's slug of its own", vec![p]));
    let p = f.edit(bucket, "slug: bucket", "slug: pot");
    ok(f.step("bucket's URL changed", vec![p]));
    let p = f.edit(sector, "summary: A term.", "summary: Part of a line.");
    ok(f.step("the term's summary", vec![p]));
    assert!(
        f.served("glossary/lane/index.html")
            .contains("Part of a line.")
    );
    let p = f.edit(sector, "cc: \"8.0\"", "cc: \"9.0\"");
    ok(f.step("the term's compute capability", vec![p]));
    // The link targets: a link to lane's diagram, drawn, then not.
    let p = f.edit(
        sector,
        "A sector.",
        "A sector ([lanes](/glossary/lane/diagram.svg)).",
    );
    failed(
        f.step("a link to a diagram not drawn", vec![p]),
        "broken link",
    );
    let p = f.edit(lane, "status:", &format!("{DIAGRAM}status:"));
    ok(f.step("the diagram drawn", vec![p]));
    let p = f.edit(lane, DIAGRAM, "");
    failed(f.step("the diagram gone", vec![p]), "broken link");
    let p = f.edit(sector, " ([lanes](/glossary/lane/diagram.svg))", "");
    ok(f.step("the link gone", vec![p]));
    // A page's URL changes (lane links to it).
    let p = f.edit(sector, "status:", "slug: sector\nstatus:");
    ok(f.step("a slug of its own", vec![p]));
    let p = f.edit(sector, "slug: sector\n", "slug: sector-2\n");
    failed(f.step("its URL changed", vec![p]), "broken link");
    let p = f.edit(sector, "slug: sector-2\n", "slug: sector\n");
    ok(f.step("its URL back", vec![p]));
    // The output plan: sector's diagram image where a file is (its field on one line, so
    // that no field's line moves), then a page where the build writes its search page,
    // its line moved.
    let p = f.edit(sector, "status:", "diagram: null\nstatus:");
    ok(f.step("no diagram yet", vec![p]));
    let drawn = "diagram: {preset: lane-banks, stride: 32, alt: Every lane in bank 0.}";
    let p = f.edit(sector, "diagram: null", drawn);
    failed(f.step("a diagram over a file", vec![p]), "written twice");
    let p = f.edit(sector, drawn, "diagram: null");
    ok(f.step("no diagram", vec![p]));
    let about = "content/about.md";
    let p = f.edit(about, "status:", "slug: search\nstatus:");
    failed(f.step("a page at /search/", vec![p]), "writes it itself");
    let p = f.write(
        about,
        &f.read(about).replacen("---\n", "---\n# Moved.\n", 1),
    );
    failed(f.step("its slug's line moves", vec![p]), "writes it itself");
    let p = f.edit(about, "slug: search\n", "");
    ok(f.step("the slug gone", vec![p]));
    // The config's sections: the one note moves to another section.
    let gone = f.remove("content/notes/first.md");
    let p = f.write(
        "content/zz/first.md",
        "---\ntitle: First\nstatus: draft\n---\nA note.\n",
    );
    failed(
        f.step("a listed section emptied", vec![gone, p]),
        "no section `notes`",
    );
}

/// A body edit makes none of the check stage's site-wide steps afresh; an edit of what
/// one of them reads makes that one.
#[test]
fn a_body_edit_makes_no_site_wide_step_afresh() {
    let mut f = Fixture::new(true, course);
    ok(f.step("first build", vec![]));
    let first = f.rebuilder.site_steps_made();
    assert!(
        first.contains(&"terms") && first.contains(&"targets"),
        "{first:?}"
    );
    let (lane, sector) = ("content/glossary/lane.md", "content/glossary/sector.md");
    let p = f.edit(lane, "A lane.", "A lane, edited.");
    ok(f.step("a body", vec![p]));
    assert_eq!(f.rebuilder.site_steps_made(), Vec::<&str>::new());
    let p = f.edit(sector, "summary: A term.", "summary: Part of a line.");
    ok(f.step("a summary", vec![p]));
    assert_eq!(f.rebuilder.site_steps_made(), ["terms"]);
    // Its title: shown in lists, but not in its term's preview (the summary is).
    let p = f.edit(sector, "title: Sector", "title: Sectors");
    ok(f.step("a title", vec![p]));
    assert_eq!(f.rebuilder.site_steps_made(), Vec::<&str>::new());
}

/// More entries in a section than its sidebar lists whole (windows round each page): a
/// retitled entry moves in the order, and every page whose window shows it, or whose
/// window shifted, shows the new order — without rendering every page.
#[test]
fn a_retitle_reaches_every_sidebar_that_shows_it() {
    let n = crate::site::render::nav::FULL_TREE + 20;
    let mut f = Fixture::new(true, |root| {
        std::fs::remove_dir_all(root.join("content")).unwrap();
        for i in 0..n {
            let p = root.join(format!("content/glossary/t{i:03}.md"));
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            // The first names T100 in `related:`, far from its place in the sidebar.
            let related = if i == 0 { "related: [t100]\n" } else { "" };
            let text = format!("---\ntitle: T{i:03}\n{related}status: draft\n---\nBody {i}.\n");
            std::fs::write(p, text).unwrap();
        }
    });
    let first = ok(f.step("first build", vec![]));
    assert!(first.rendered > n, "rendered {} of {n}", first.rendered);
    // A body edit renders that page alone.
    let p = f.write(
        "content/glossary/t100.md",
        "---\ntitle: T100\nstatus: draft\n---\nNew.\n",
    );
    let body = ok(f.step("a body", vec![p]));
    assert_eq!(body.rendered, 1);
    // T100 becomes the last in order: the pages round its old place and round its new
    // one list other neighbours now; the pages in between list the same ones.
    let near = |f: &Fixture, slug: &str, title: &str| {
        f.served(&format!("glossary/{slug}/index.html"))
            .contains(&format!(">{title}<"))
    };
    assert!(near(&f, "t095", "T100") && !near(&f, "t099", "T112"));
    assert!(!near(&f, "t315", "Z100"));
    let p = f.write(
        "content/glossary/t100.md",
        "---\ntitle: Z100\nstatus: draft\n---\nNew.\n",
    );
    let retitled = ok(f.step("a title", vec![p]));
    assert!(
        retitled.rendered < n / 4,
        "rendered {} of {n}",
        retitled.rendered
    );
    assert!(!near(&f, "t095", "T100") && !near(&f, "t095", "Z100"));
    assert!(near(&f, "t099", "T112"));
    assert!(near(&f, "t315", "Z100"));
    assert!(near(&f, "t000", "Z100"), "the related link");
}

/// A small xorshift generator: the random sequences are the same on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    fn pick<'a>(&mut self, of: &[&'a str]) -> &'a str {
        of[self.below(of.len())]
    }
}

const GLOSSARY: [&str; 6] = ["g0", "g1", "g2", "g3", "g4", "g5"];
const DAYS: [&str; 3] = ["day-1", "day-2", "day-3"];

/// The slugs of `names` that have a file under `content/<section>/`.
fn present<'a>(root: &Path, section: &str, names: &[&'a str]) -> Vec<&'a str> {
    (names.iter().copied())
        .filter(|n| root.join(format!("content/{section}/{n}.md")).exists())
        .collect()
}

/// A random entry: published or draft, a term, alias, category, compute capability and
/// summary from short lists (so that terms tie, aliases clash, categories fill and empty,
/// and term previews change), references mostly to entries that exist, a body that may
/// mention a term, link to another entry, its diagram or to the asset, sometimes a
/// diagram, sometimes a comment first (every field's line moves), now and then (unless
/// `valid`) a slug of its own.
fn random_entry(rng: &mut Rng, root: &Path, title: &str, valid: bool) -> String {
    let glossary = present(root, "glossary", &GLOSSARY);
    let days = present(root, "days", &DAYS);
    let asset = root.join("content/glossary/fig.png").exists();
    // A name that exists, now and then (unless `valid`) one that may not.
    let name = |rng: &mut Rng, existing: &[&str], all: &[&'static str]| -> Option<String> {
        match !valid && rng.below(15) == 0 {
            true => Some(rng.pick(all).to_string()),
            false if existing.is_empty() => None,
            false => Some(existing[rng.below(existing.len())].to_string()),
        }
    };
    let mut fm = match rng.below(4) {
        0 => "# A comment: the fields below move down a line.\n".to_string(),
        _ => String::new(),
    };
    fm += &format!("title: {title}\n");
    fm += &format!("term: {}\n", rng.pick(&["Alpha", "Beta", "Gamma", "Delta"]));
    if rng.below(4) == 0 {
        fm += &format!("aliases: [{}]\n", rng.pick(&["Omega", "Sigma", "Alpha"]));
    }
    if !valid && rng.below(10) == 0 {
        fm += &format!("slug: {}\n", rng.pick(&GLOSSARY));
    }
    fm += &format!(
        "category: {}\n",
        rng.pick(&["Memory", "Execution", "Numerics"])
    );
    fm += &format!(
        "cc: \"{}\"\nsummary: {}\n",
        rng.pick(&["8.0", "9.0"]),
        rng.pick(&["A term.", "Another term."])
    );
    fm += "sources:\n  - title: Guide\n    url: https://docs.nvidia.com/\n";
    let related: Vec<String> = (0..rng.below(3))
        .filter_map(|_| name(rng, &glossary, &GLOSSARY))
        .collect();
    if !related.is_empty() {
        fm += &format!("related: [{}]\n", related.join(", "));
    }
    let appears: Vec<String> = (0..rng.below(2))
        .filter_map(|_| name(rng, &days, &DAYS))
        .collect();
    if !appears.is_empty() {
        fm += &format!("appears_in: [{}]\n", appears.join(", "));
    }
    if rng.below(4) == 0 {
        fm += "diagram:\n  preset: lane-banks\n  stride: 32\n  alt: Every lane in bank 0.\n";
    }
    // Drafts now and then (in the publish build, a link to one is a problem).
    fm += match !valid && rng.below(5) == 0 {
        true => "status: draft\n",
        false => "status: published\n",
    };
    fm += SIGNED;
    let mut body = format!("Body of {title}, version {}.", rng.below(1000));
    match rng.below(6) {
        0 => {
            if let Some(other) = name(rng, &glossary, &GLOSSARY) {
                body += &format!(" See [it](/glossary/{other}/).");
            }
        }
        1 if asset || !valid => body += " ![figure](/glossary/fig.png)",
        // Broken unless that entry draws a diagram.
        2 if !valid => {
            let other = rng.pick(&GLOSSARY);
            body += &format!(" See [its diagram](/glossary/{other}/diagram.svg).");
        }
        _ => {}
    }
    if rng.below(2) == 0 {
        let word = rng.pick(&["Alpha", "Beta", "Omega"]);
        body += &format!(" It mentions {word}.");
    }
    format!("---\n{fm}---\n\n{body}\n")
}

/// Random edits (entries and days written, rewritten, broken and removed; an intro, an
/// asset and a static file coming and going; now and then a template or the config), each
/// followed by a rebuild held to a full build of the same files.
fn random_sequence(drafts: bool, seed: u64, steps: usize) {
    let mut f = Fixture::new(drafts, |_| {});
    let mut rng = Rng(seed);
    ok(f.step("first build", vec![]));
    let (mut good, mut rendered) = (0, 0);
    // The entry the last failed rebuild named first, to be written again (valid).
    let mut broken: Option<String> = None;
    for step in 0..steps {
        let repair = broken.take().filter(|_| rng.below(4) > 0);
        let (what, changed) = match repair {
            Some(rel) => {
                let title = format!("Entry {}", rng.below(100));
                let text = random_entry(&mut rng, f.root(), &title, true);
                ("a broken entry rewritten", vec![f.write(&rel, &text)])
            }
            None => random_edit(&mut f, &mut rng),
        };
        let r = f.step(&format!("step {step} (seed {seed}): {what}"), changed);
        match r {
            Ok(done) => {
                good += 1;
                rendered += done.rendered;
            }
            Err(e) => {
                // "content/glossary/g1.md:3: …": an entry of ours, or nothing to repair.
                let file = e.first().and_then(|l| l.split(':').next()).unwrap_or("");
                let ours = GLOSSARY
                    .iter()
                    .chain(&DAYS)
                    .any(|n| file.ends_with(&format!("/{n}.md")));
                broken = ours.then(|| file.to_string());
            }
        }
    }
    // The sequence must exercise both outcomes, and rebuilds that render less than all.
    assert!(
        good > steps / 4 && good < steps,
        "{good} of {steps} rebuilds passed"
    );
    let pages = f.rebuilder_pages();
    assert!(rendered < good * pages, "every rebuild rendered everything");
}

/// One random edit: what it was, and the paths it touched.
fn random_edit(f: &mut Fixture, rng: &mut Rng) -> (&'static str, Vec<PathBuf>) {
    match rng.below(14) {
        0..=6 => {
            let slug = rng.pick(&GLOSSARY);
            let text = random_entry(rng, f.root(), &format!("Entry {slug}"), false);
            let p = f.write(&format!("content/glossary/{slug}.md"), &text);
            ("an entry written", vec![p])
        }
        7 => {
            let slug = rng.pick(&GLOSSARY);
            let rel = format!("content/glossary/{slug}.md");
            match f.root().join(&rel).exists() {
                true if rng.below(3) > 0 => ("an entry removed", vec![f.remove(&rel)]),
                _ => (
                    "an entry broken",
                    vec![f.write(&rel, "---\ntitle: [\n---\n")],
                ),
            }
        }
        8 => {
            let day = rng.pick(&DAYS);
            let rel = format!("content/days/{day}.md");
            match f.root().join(&rel).exists() && rng.below(3) == 0 {
                true => ("a day removed", vec![f.remove(&rel)]),
                false => {
                    let text = random_entry(rng, f.root(), &format!("Day {day}"), false);
                    ("a day written", vec![f.write(&rel, &text)])
                }
            }
        }
        9 => match f.root().join("content/glossary.md").exists() {
            true => ("the intro removed", vec![f.remove("content/glossary.md")]),
            false => {
                let text = "---\ntitle: The glossary\nstatus: draft\n---\nAll the terms.\n";
                ("an intro", vec![f.write("content/glossary.md", text)])
            }
        },
        10 => match f.root().join("content/glossary/fig.png").exists() {
            true => (
                "the asset removed",
                vec![f.remove("content/glossary/fig.png")],
            ),
            false => ("an asset", vec![f.write("content/glossary/fig.png", "png")]),
        },
        11 => match f.root().join("static/extra.css").exists() {
            true => ("a static file removed", vec![f.remove("static/extra.css")]),
            false => ("a static file", vec![f.write("static/extra.css", "p {}\n")]),
        },
        12 => {
            let entry = f.read("templates/entry.html");
            let text = match entry.contains("<h1 class=\"t\">") {
                true => entry.replacen("<h1 class=\"t\">", "<h1>", 1),
                false => entry.replacen("<h1>", "<h1 class=\"t\">", 1),
            };
            ("a template", vec![f.write("templates/entry.html", &text)])
        }
        _ => {
            let title = format!("title = \"Course {}\"\n", rng.below(3));
            ("the config", vec![f.write("coursegen.toml", &title)])
        }
    }
}

#[test]
fn random_edits_of_the_preview_equal_full_builds() {
    random_sequence(true, 0x9e37_79b9_7f4a_7c15, 40);
}

#[test]
fn random_edits_of_the_publish_preview_equal_full_builds() {
    random_sequence(false, 0x2545_f491_4f6c_dd1d, 40);
}

#[test]
fn theme_overrides_made_and_removed_while_serving_are_picked_up() {
    let mut f = Fixture::new(true, |root| {
        course(root);
        for d in ["templates", "static"] {
            std::fs::remove_dir_all(root.join(d)).unwrap();
        }
    });
    ok(f.step("first build, built-in theme only", vec![]));
    let builtin_css = f.served("print.css");
    // A templates/ made later, as the watcher reports it: the folder, then its file.
    let page =
        "{% extends \"base.html\" %}{% block content %}<p>Lost here.</p>{% endblock content %}";
    let file = f.write("templates/404.html", page);
    ok(f.step("templates/ made", vec![f.root().join("templates"), file]));
    assert!(f.served("404.html").contains("Lost here."));
    f.write("static/print.css", "body { color: black }\n");
    ok(f.step("static/ made", vec![f.root().join("static")]));
    assert_eq!(f.served("print.css"), "body { color: black }\n");
    let gone = f.remove("static/print.css");
    ok(f.step("override removed", vec![gone]));
    assert_eq!(f.served("print.css"), builtin_css);
    std::fs::remove_dir_all(f.root().join("templates")).unwrap();
    ok(f.step("templates/ removed", vec![f.root().join("templates")]));
    assert!(!f.served("404.html").contains("Lost here."));
}
