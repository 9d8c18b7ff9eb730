//! The checks of each value of `coursegen.toml`: what a title, an address, a language tag,
//! a section or a path must be, each returning the value the build trusts or why not.
use std::path::Path;

use toml::Spanned;

use super::raw::line_of;
use crate::editorial::policy::Required;

/// Longest site title: it heads every page, `<title>` and social card.
pub(super) const MAX_TITLE_CHARS: usize = 200;

/// Longest address: past this, an address is no address but a way to make every page big.
const MAX_URL_BYTES: usize = 2048;

pub(super) fn title(s: &str) -> Result<String, String> {
    one_line(s, "title", MAX_TITLE_CHARS)
}

/// Longest description: one sentence, in a meta tag and at the top of llms.txt.
const MAX_DESCRIPTION_CHARS: usize = 1000;

pub(super) fn description(s: &str) -> Result<String, String> {
    one_line(s, "description", MAX_DESCRIPTION_CHARS)
}

/// `s` trimmed, when it is one line of text of at most `max` characters; `what` names it.
pub(super) fn one_line(s: &str, what: &str, max: usize) -> Result<String, String> {
    let t = s.trim();
    if t.is_empty() || t.chars().any(char::is_control) {
        Err(format!("the {what} must be one line of text"))
    } else if t.chars().count() > max {
        Err(format!("the {what} is longer than {max} characters"))
    } else {
        Ok(t.into())
    }
}

/// A `sections` item: a folder name, or `{ name = "…", title = "…" }`.
pub(super) fn section(v: &toml::Value) -> Result<(String, Option<String>), String> {
    let (name, title) = match v {
        toml::Value::String(name) => (name, None),
        toml::Value::Table(t) => {
            if let Some(k) = t.keys().find(|k| !matches!(k.as_str(), "name" | "title")) {
                return Err(format!(
                    "unknown key `{k}` in a section (its keys are name, title)"
                ));
            }
            let Some(toml::Value::String(name)) = t.get("name") else {
                return Err("a section needs a `name`, its folder under content/".into());
            };
            let title = match t.get("title") {
                None => None,
                Some(toml::Value::String(t)) => Some(title(t)?),
                Some(_) => return Err("a section's `title` is text".into()),
            };
            (name, title)
        }
        _ => return Err("a section is its folder's name, or a table with `name`".into()),
    };
    let folder = !name.is_empty()
        && !name.starts_with('.')
        && !name.contains(['/', '\\'])
        && !name.chars().any(char::is_control);
    if !folder {
        return Err(format!(
            "`{}` is not a folder name under content/ (one name, no `/`)",
            name.escape_debug()
        ));
    }
    Ok((name.clone(), title))
}

/// `[glossary] folder`: one folder name under content/, which is also the glossary's URL
/// segment (`/terms/`); not `days`, whose pages `appears_in:` names.
pub(super) fn glossary_folder(s: &str) -> Result<String, String> {
    let bad = |why: String| {
        Err(format!(
            "`{}` is not a folder name under content/: {why}; write one name, e.g. `folder = \"terms\"`",
            s.escape_debug()
        ))
    };
    if let Err(why) = crate::content::load::check_slug(s) {
        return bad(why.to_string());
    }
    if s == crate::content::load::DAYS {
        return bad("`days` holds the day pages".into());
    }
    Ok(s.to_string())
}

/// Markdown text (`home`, `footer`): any length the file allows, no control characters but
/// line ends.
pub(super) fn markdown_text(s: &str) -> Result<String, String> {
    if s.chars()
        .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
    {
        Err("the text must be Markdown, with no control characters".into())
    } else {
        Ok(s.trim().to_string())
    }
}

/// A Markdown value of the file (`home`, `footer`) and where its lines are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Prose {
    /// The text, trimmed.
    pub(crate) text: String,
    /// The file's line where the text begins (its links' lines count from it).
    pub(crate) line: usize,
    /// The text's lines are not the file's (a basic string with escapes such as `\n` or
    /// line-ending backslashes): its problems are reported at `line`, the key's.
    pub(crate) lines_moved: bool,
}

/// `value`'s checked text, with the line its text starts on in `file`.
pub(super) fn prose(file: &str, value: &Spanned<String>, text: String) -> Prose {
    let literal = &file[value.span()];
    if literal.starts_with('"') && literal.contains('\\') {
        // Escapes and line continuations change the lines: name the key's line.
        return Prose {
            text,
            line: line_of(file, value.span().start),
            lines_moved: true,
        };
    }
    // A multi-line string's text starts on the line after its opening quotes, and the
    // text is trimmed: blank lines at its start are not its first line.
    let opening = ["\"\"\"", "'''"].iter().any(|q| {
        literal
            .strip_prefix(q)
            .is_some_and(|r| r.starts_with(['\n', '\r']))
    });
    let raw = value.get_ref();
    let blank = raw[..raw.len() - raw.trim_start().len()]
        .matches('\n')
        .count();
    Prose {
        text,
        line: line_of(file, value.span().start) + usize::from(opening) + blank,
        lines_moved: false,
    }
}

/// A compute capability as an entry's `cc` writes it (`9.0`); which ones the bank model
/// knows is the check stage's to say, for the entries that use it.
pub(super) fn compute_capability(s: &str) -> Result<String, String> {
    let t = s.trim();
    let ok = t.split_once('.').is_some_and(|(a, b)| {
        (1..=2).contains(&a.len())
            && (1..=2).contains(&b.len())
            && (a.chars().chain(b.chars())).all(|c| c.is_ascii_digit())
    });
    if ok {
        Ok(t.into())
    } else {
        Err(format!(
            "`{}` is not a compute capability; write it like \"9.0\", or \"\" for none",
            s.escape_debug()
        ))
    }
}

/// Why `s` is not one of [`Required::FIELDS`].
pub(super) fn not_a_field(s: &str) -> String {
    let hint = match crate::content::diagnostic::closest(s, Required::FIELDS.iter().copied()) {
        Some(k) => format!(" (did you mean `{k}`?)"),
        None => String::new(),
    };
    format!(
        "`{}` is not a field a glossary entry can be required to fill{hint}; the fields are {}",
        s.escape_debug(),
        Required::FIELDS.join(", ")
    )
}

/// An absolute http(s) address with a host and no query, fragment or credentials.
pub(super) fn web_url(s: &str) -> Result<String, String> {
    if s.len() > MAX_URL_BYTES {
        return Err(format!("the address is longer than {MAX_URL_BYTES} bytes"));
    }
    let bad = |why: &str| format!("`{s}` {why}; write it like https://github.com/your-org/course");
    let url = url::Url::parse(s.trim()).map_err(|e| bad(&format!("is not an address ({e})")))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none_or(str::is_empty) {
        return Err(bad("is not an http(s) address"));
    }
    if url.query().is_some() || url.fragment().is_some() || !url.username().is_empty() {
        return Err(bad("must not carry a query, a #fragment or a user name"));
    }
    Ok(url.to_string())
}

/// A web address, ending in `/`: the site's root. Its path becomes the start of every
/// site-absolute URL the site writes, so it may not hold an empty segment: `//evil.org/`
/// at the start of a URL's path names another host.
pub(super) fn base_url(s: &str) -> Result<String, String> {
    let url = web_url(s)
        .map_err(|m| m.replace("github.com/your-org/course", "your-org.github.io/course/"))?;
    let url = format!("{}/", url.trim_end_matches('/'));
    let path_start = url.find("://").map_or(0, |i| i + 3);
    let path = url[path_start..]
        .find('/')
        .map_or("/", |i| &url[path_start + i..]);
    if path.contains("//") {
        return Err(format!(
            "`{s}` has an empty segment (`//`) in its path, which would make the site's links \
             name another host; write it like https://your-org.github.io/course/"
        ));
    }
    Ok(url)
}

/// GitHub, Gitea and Forgejo edit at `<repo>/edit/main/`, GitLab at `<repo>/-/edit/main/`.
pub(super) fn default_edit_url(repository: &str) -> String {
    let repo = repository.trim_end_matches('/').trim_end_matches(".git");
    if repo.contains("://gitlab.") {
        format!("{repo}/-/edit/main/")
    } else {
        format!("{repo}/edit/main/")
    }
}

pub(super) fn language(s: &str) -> Result<String, String> {
    let mut parts = s.split('-');
    let primary = parts.next().unwrap_or("");
    let ok = (2..=3).contains(&primary.len())
        && primary.chars().all(|c| c.is_ascii_alphabetic())
        && parts
            .all(|p| (1..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()));
    if ok {
        Ok(s.into())
    } else {
        Err(format!(
            "`{s}` is not a language tag; write it like `en` or `pt-BR`"
        ))
    }
}

/// `/docs/` → `/docs`: a site-absolute path, compared segment by segment.
pub(super) fn external_prefix(s: &str) -> Result<String, String> {
    let p = s.trim_end_matches('/');
    let ok = s.starts_with('/')
        && !s.starts_with("//")
        && !p.is_empty()
        && !p.split('/').any(|seg| seg == ".." || seg == ".")
        && !p.contains(['?', '#', '\\'])
        && !p.chars().any(|c| c.is_whitespace() || c.is_control());
    if ok {
        Ok(p.into())
    } else {
        Err(format!(
            "`{s}` is not a site-absolute path prefix; write it like \"/docs/\" (not \"/\", which is the whole domain)"
        ))
    }
}

pub(super) fn percent_encode(segment: &str) -> String {
    url::form_urlencoded::byte_serialize(segment.as_bytes())
        .collect::<String>()
        .replace('+', "%20")
}

/// A path relative to the site root with no `..` (what it resolves to is judged when read).
pub(super) fn signers_path(p: &str) -> Result<String, String> {
    let path = Path::new(p);
    let up = path.components().any(|c| {
        !matches!(
            c,
            std::path::Component::Normal(_) | std::path::Component::CurDir
        )
    });
    if p.trim().is_empty() || up || p.chars().any(char::is_control) {
        return Err(format!(
            "`{}` is not a path inside the site: write it relative to the site root, without `..`",
            p.escape_debug()
        ));
    }
    Ok(p.to_string())
}
