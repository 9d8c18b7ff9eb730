//! What the config says that is checked as content is: the sections it lists must be
//! sections of the site, and its home and footer text is Markdown whose links and raw HTML
//! are held to an entry body's rules.
use std::collections::BTreeSet;

use super::links::Targets;
use crate::content::{self, Diagnostic};
use crate::markdown::{Link, RenderOptions};

/// The config's `sections` that name no section of the site (a typo, or a folder renamed).
pub(super) fn unlisted_sections(
    config: &crate::config::Config,
    site: &content::Site,
) -> Vec<Diagnostic> {
    let present: BTreeSet<&str> = (site.entries.iter())
        .map(|e| e.section.as_str())
        .filter(|s| !s.is_empty())
        .collect();
    let mut problems = Vec::new();
    for s in config
        .sections
        .iter()
        .filter(|s| !present.contains(s.name.as_str()))
    {
        let closest = content::diagnostic::closest(&s.name, present.iter().copied());
        let help = match (closest, present.is_empty()) {
            (Some(p), _) => format!("did you mean `{p}`?"),
            (None, true) => "content/ has no sections yet: a section is a folder of entries".into(),
            (None, false) => format!(
                "the sections under content/ are {}",
                present.iter().copied().collect::<Vec<_>>().join(", ")
            ),
        };
        let message = format!("no section `{}` under content/", s.name);
        problems.push(
            Diagnostic::new(&config.file, s.line, message)
                .field("sections")
                .help(help),
        );
    }
    problems
}

/// The config's `key` text (`home`, `footer`) rendered (sanitised), and what is checked
/// of it as of an entry's body: its links must reach pages or files of this build, and its
/// raw HTML must stay within what the cleaner takes.
pub(super) struct Prose {
    pub(super) key: &'static str,
    pub(super) html: String,
    links: Vec<Link>,
    too_much_html: Option<usize>,
}

impl Prose {
    /// The text rendered; `None` when the config has none.
    pub(super) fn render(config: &crate::config::Config, key: &'static str) -> Option<Prose> {
        let text = text_of(config, key)?;
        let opts = RenderOptions { highlight: false };
        // (It links no terms: it is the course's own words, around every list.)
        let rendered = crate::markdown::render(&text.text, opts, &mut Default::default());
        Some(Prose {
            key,
            html: rendered.html,
            links: rendered.links,
            too_much_html: rendered.too_much_html,
        })
    }

    /// Its problems against what the build contains.
    pub(super) fn problems(
        &self,
        config: &crate::config::Config,
        targets: &Targets,
    ) -> Vec<Diagnostic> {
        let key = self.key;
        let Some(text) = text_of(config, key) else {
            return Vec::new();
        };
        let mut found = targets.problems_at("/", &config.file, text.line, &self.links);
        if let Some(line) = self.too_much_html {
            let message = format!(
                "the {key} text has more than {} HTML tags, or a tag with more than {} attributes",
                crate::markdown::MAX_HTML_TAGS,
                crate::sanitize::MAX_ATTRIBUTES
            );
            found.push(
                Diagnostic::new(&config.file, text.line + line - 1, message)
                    .help("write it in Markdown; raw HTML is for a few tags"),
            );
        }
        for p in &mut found {
            p.field = Some(key.into());
            if text.lines_moved {
                p.line = text.line;
            }
        }
        found
    }
}

/// The config's `key` text (`home`, `footer`), as written.
fn text_of<'c>(config: &'c crate::config::Config, key: &str) -> Option<&'c crate::config::Prose> {
    match key {
        "home" => config.home.as_ref(),
        _ => config.footer.as_ref(),
    }
}
