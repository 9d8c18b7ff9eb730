//! Tera templates: loaded once from the built-in theme and the site's `templates/`
//! (autoescaped), rendered with page contexts that are plain serialisable data; every page
//! gets the site's Content-Security-Policy here, the one place it is written.
use std::cell::RefCell;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// Why templates could not be loaded or a page not rendered.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TemplateError {
    /// The templates folder is missing or unreadable.
    #[error("cannot read templates in {path}: {error}")]
    Io {
        /// The folder or file.
        path: PathBuf,
        /// The I/O error.
        error: std::io::Error,
    },
    /// A template does not parse.
    #[error("template error in {path}: {message}")]
    Parse {
        /// The templates folder.
        path: PathBuf,
        /// Tera's message (it names the template and line).
        message: String,
    },
    /// A page failed to render.
    #[error("rendering {template} failed: {message}")]
    Render {
        /// The template used.
        template: String,
        /// Tera's message chain.
        message: String,
    },
    /// A template the build needs is missing.
    #[error("templates/{0} is missing")]
    Missing(String),
    /// A site template that cannot be used (a link out of the site root, a hidden file…).
    #[error("{0}")]
    Theme(String),
    /// A page template renders no `<head>` where a browser opens the head element: the
    /// Content-Security-Policy goes first in it.
    #[error(
        "templates/{0} renders a page with no <head> where a browser opens the head element: \
         only white space, comments, a doctype and <html> may come before it, and coursegen \
         adds its Content-Security-Policy first in it"
    )]
    NoHead(String),
    /// An inline script whose code holds template syntax.
    #[error(
        "templates/{0} has an inline <script> with template syntax (`{{{{`, `{{%` or `{{#`) in its \
         code: the page's Content-Security-Policy allows inline scripts by the hash of their \
         code as written, so move the script to a file under static/ and load it with src"
    )]
    TemplatedScript(String),
}

/// The Content-Security-Policy of every page, as defence in depth behind the sanitiser:
/// scripts only from the site's own files (`static/`: never content, whose scripts the
/// sanitiser removes and whose SVGs must merely draw), styles and fonts from the site only,
/// images from the site or https. Our own pages need no inline style (table alignment is a
/// class, diagrams use presentation attributes); `coursegen serve` allows its reload script
/// by hash ([`allow_inline_script`]).
///
/// `{inline}` becomes the SHA-256 of each inline `<script>` of the templates, computed when
/// they are loaded ([`Templates::csp`]): the theme snippet in `templates/base.html` must run
/// before the first paint, so there is no flash of the wrong theme, and editing it must not
/// silently block it. `'wasm-unsafe-eval'`, `connect-src` and `worker-src` are for
/// Pagefind's search.
const CSP_TEMPLATE: &str = "default-src 'none'; \
                            script-src 'self'{inline} 'wasm-unsafe-eval'; connect-src 'self'; \
                            worker-src 'self'; style-src 'self'; img-src 'self' https:; \
                            media-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'";

/// The policy for templates whose inline scripts are `scripts` (their code, between the
/// tags).
fn policy(scripts: &[&str]) -> String {
    let inline: String = scripts
        .iter()
        .map(|code| format!(" 'sha256-{}'", sha256_base64(code)))
        .collect();
    CSP_TEMPLATE.replace("{inline}", &inline)
}

fn sha256_base64(code: &str) -> String {
    use base64::Engine as _;
    use sha2::Digest as _;
    base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(code))
}

/// The code of every inline `<script>…</script>` (one without `src`) in a template's source.
/// One whose code holds template syntax is refused: its hash would not be the hash of what
/// the page carries.
fn inline_scripts<'a>(name: &str, source: &'a str) -> Result<Vec<&'a str>, TemplateError> {
    let lower = source.to_ascii_lowercase();
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(i) = lower[from..].find("<script").map(|i| i + from) {
        let Some(open_end) = lower[i..].find('>').map(|j| i + j + 1) else {
            break;
        };
        let Some(close) = lower[open_end..].find("</script").map(|j| open_end + j) else {
            break;
        };
        from = close;
        if lower[i..open_end].contains("src") {
            continue;
        }
        let code = &source[open_end..close];
        if ["{{", "{%", "{#"].iter().any(|t| code.contains(t)) {
            return Err(TemplateError::TemplatedScript(name.into()));
        }
        found.push(code);
    }
    Ok(found)
}

fn csp_meta(policy: &str) -> String {
    format!("<meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\">")
}

/// Puts `policy` first in `<head>`, before anything it governs. The place is where a
/// browser's parser opens the head element: the page is read as the HTML tokenizer reads
/// it (comments and quoted attribute values included), and only what the parser lets stand
/// before the head — white space, comments, a doctype and the `<html>` tag — may come
/// first. Anything else (text, another tag) would make the parser open a head of its own
/// earlier, or none where the policy counts, so such a page is refused.
fn add_csp(template: &str, mut html: String, policy: &str) -> Result<String, TemplateError> {
    let at = head_opened_at(&html).ok_or_else(|| TemplateError::NoHead(template.into()))?;
    html.insert_str(at, &csp_meta(policy));
    Ok(html)
}

/// The offset just after the `<head …>` tag that opens the page's head element, if the
/// page opens it before anything else does.
fn head_opened_at(html: &str) -> Option<usize> {
    let bytes = html.as_bytes();
    let mut i = usize::from(html.starts_with('\u{feff}')) * 3;
    let mut seen_html = false;
    loop {
        let rest = &bytes[i..];
        let starts = |prefix: &str| {
            rest.len() >= prefix.len()
                && rest[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
        };
        if rest.first().is_some_and(|b| is_space(*b)) {
            i += 1;
        } else if starts("<!-->") {
            i += 5;
        } else if starts("<!--->") {
            i += 6;
        } else if starts("<!--") {
            i += 4 + comment_end(&rest[4..])?;
        } else if starts("<!doctype") {
            i += 1 + rest.iter().position(|&b| b == b'>')?;
        } else if let Some(name_end) = tag_named(rest, "html").filter(|_| !seen_html) {
            seen_html = true;
            i += name_end + tag_end(&rest[name_end..])?;
        } else if let Some(name_end) = tag_named(rest, "head") {
            return Some(i + name_end + tag_end(&rest[name_end..])?);
        } else {
            return None;
        }
    }
}

fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

/// Where the start tag `<name` at the start of `rest` ends its name, if it is that tag.
fn tag_named(rest: &[u8], name: &str) -> Option<usize> {
    let end = 1 + name.len();
    let named = rest.len() > end
        && rest[0] == b'<'
        && rest[1..end].eq_ignore_ascii_case(name.as_bytes())
        && (is_space(rest[end]) || matches!(rest[end], b'/' | b'>'));
    named.then_some(end)
}

/// The length of a comment's text and its end (`-->` or `--!>`), after its `<!--`.
fn comment_end(text: &[u8]) -> Option<usize> {
    (0..text.len()).find_map(|i| {
        let rest = &text[i..];
        [&b"-->"[..], b"--!>"]
            .into_iter()
            .find(|end| rest.starts_with(end))
            .map(|end| i + end.len())
    })
}

/// The length of a start tag's attributes and its `>`, after its name, read as the HTML
/// tokenizer reads them (WHATWG, the attribute states): a `>` inside a quoted value does
/// not end the tag.
fn tag_end(attributes: &[u8]) -> Option<usize> {
    #[derive(Clone, Copy)]
    enum S {
        BeforeName,
        Name,
        AfterName,
        BeforeValue,
        Quoted(u8),
        Unquoted,
        AfterQuoted,
        SelfClosing,
    }
    let mut state = S::BeforeName;
    for (i, &b) in attributes.iter().enumerate() {
        state = match (state, b) {
            (S::Quoted(q), b) if b == q => S::AfterQuoted,
            (S::Quoted(q), _) => S::Quoted(q),
            (S::BeforeValue, b) if is_space(b) => S::BeforeValue,
            (S::BeforeValue, b'"' | b'\'') => S::Quoted(b),
            (S::BeforeValue | S::Unquoted, b'>') => return Some(i + 1),
            (S::BeforeValue, _) => S::Unquoted,
            (S::Unquoted, b) if is_space(b) => S::BeforeName,
            (S::Unquoted, _) => S::Unquoted,
            (_, b'>') => return Some(i + 1),
            (S::Name | S::AfterName, b'=') => S::BeforeValue,
            (S::Name | S::AfterName, b) if is_space(b) => S::AfterName,
            (_, b'/') => S::SelfClosing,
            (_, b) if is_space(b) => S::BeforeName,
            // A name goes on; elsewhere a new attribute starts (`=` may begin its name).
            _ => S::Name,
        };
    }
    None
}

/// The templates a site must provide.
pub(crate) const REQUIRED: &[&str] = &["entry.html", "section.html", "index.html"];

/// Part of a page's context turned into the templates' value beforehand, which a context
/// then takes whole, without serialising it again: what many pages show alike (their
/// navigation) is turned once per build, not once per page (`benches/build.sh`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Prepared(tera::Value);

impl Prepared {
    /// `value` as the templates see it when it is part of a context. For plain data
    /// (text, numbers, lists and structs of them), which always converts.
    pub(crate) fn new(value: &impl Serialize) -> Self {
        Prepared(tera::Value::from_serializable(value))
    }
}

impl Serialize for Prepared {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Inside a context, tera takes its own value as it is (a shared pointer's copy).
        self.0.serialize(serializer)
    }
}

/// Compiled templates, shared by every page of a build.
pub(crate) struct Templates {
    tera: tera::Tera,
    csp: String,
}

impl Templates {
    /// Loads the templates of the site under `root`: the built-in theme's, each replaced by
    /// the site's own `templates/` file of the same path, and the site's others
    /// (`theme::files`); compiles them once. A site with no `templates/` uses the built-in
    /// ones.
    pub(crate) fn load_site(root: &Path) -> Result<Self, TemplateError> {
        let dir = root.join("templates");
        let (files, refused) = crate::theme::files(root, "templates", Some("html"))
            .map_err(|e| TemplateError::Theme(e.to_string()))?;
        if let Some(e) = refused.into_iter().next() {
            return Err(TemplateError::Theme(e.to_string()));
        }
        let mut sources = Vec::with_capacity(files.len());
        for (name, source) in files {
            let bytes = source.read().map_err(|error| TemplateError::Io {
                path: source.shown(),
                error,
            })?;
            let text = String::from_utf8(bytes.into_owned()).map_err(|_| TemplateError::Io {
                path: source.shown(),
                error: std::io::Error::other("not UTF-8 text"),
            })?;
            sources.push((name, text));
        }
        Self::compile(&dir, sources)
    }

    /// Loads every `*.html` template in `dir` (sub-folders included) and compiles them once.
    #[cfg(test)]
    pub(crate) fn load(dir: &Path) -> Result<Self, TemplateError> {
        let mut sources = Vec::new();
        for item in walkdir::WalkDir::new(dir).sort_by_file_name() {
            let item = item.map_err(|e| TemplateError::Io {
                path: e.path().unwrap_or(dir).to_path_buf(),
                error: e
                    .into_io_error()
                    .unwrap_or_else(|| std::io::Error::other("loop in folder links")),
            })?;
            if !item.file_type().is_file() || item.path().extension().is_none_or(|e| e != "html") {
                continue;
            }
            let name = item
                .path()
                .strip_prefix(dir)
                .unwrap_or(item.path())
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(item.path()).map_err(|error| TemplateError::Io {
                path: item.path().into(),
                error,
            })?;
            sources.push((name, text));
        }
        Self::compile(dir, sources)
    }

    /// Compiles `sources` (name, text); `dir` names the folder in parse errors.
    fn compile(dir: &Path, sources: Vec<(String, String)>) -> Result<Self, TemplateError> {
        let mut scripts = Vec::new();
        for (name, text) in &sources {
            scripts.extend(inline_scripts(name, text)?);
        }
        let csp = policy(&scripts);
        let mut tera = tera::Tera::new();
        tera.set_escape_fn(escape);
        tera.add_raw_templates(sources)
            .map_err(|e| TemplateError::Parse {
                path: dir.into(),
                message: chain(&e),
            })?;
        for name in REQUIRED {
            if !tera.contains_template(name) {
                return Err(TemplateError::Missing((*name).into()));
            }
        }
        Ok(Templates { tera, csp })
    }

    /// The Content-Security-Policy every page carries: [`CSP_TEMPLATE`] with the hashes of
    /// the templates' inline scripts.
    #[cfg(test)]
    pub(crate) fn csp(&self) -> &str {
        &self.csp
    }

    /// True when the site provides `template` (optional pages such as `404.html`).
    pub(crate) fn has(&self, template: &str) -> bool {
        self.tera.contains_template(template)
    }

    /// Renders `template` with `context` (any serialisable value whose top level is a map),
    /// plus `root`: the site's base path with a trailing slash (`/`, or `/course/` under a
    /// sub-path), which every template writes site-absolute URLs with, `{{ root }}style.css`
    /// (URLs that come in a page's context already carry it).
    pub(crate) fn render(
        &self,
        template: &str,
        context: &impl Serialize,
        root: &str,
    ) -> Result<String, TemplateError> {
        let err = |e: tera::Error| TemplateError::Render {
            template: template.into(),
            message: chain(&e),
        };
        let mut ctx = tera::Context::from_serialize(context).map_err(err)?;
        // Every site-absolute URL a template writes is `{{ root }}path`, on every page.
        ctx.insert("root", root);
        // Sized for a typical page, so the output grows once or not at all.
        let mut out = Vec::with_capacity(RENDER_CAPACITY);
        self.tera.render_to(template, &ctx, &mut out).map_err(err)?;
        let html = String::from_utf8(out).map_err(|e| TemplateError::Render {
            template: template.into(),
            message: e.to_string(),
        })?;
        add_csp(template, html, &self.csp)
    }
}

/// The output buffer a render starts with: a glossary page with sidebar is 15–25 KB.
const RENDER_CAPACITY: usize = 32 * 1024;

/// How `{{ value }}` is escaped: by `html`'s rule, so a value is safe in text and in
/// attributes quoted either way, through a buffer each thread keeps (tera hands the escaper
/// a writer). Not tera's own escaper, which writes one byte at a time: `benches/build.sh`
/// measured the difference (BENCHMARKS.md, "Where the time goes").
fn escape(text: &str, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    thread_local! {
        static ESCAPED: RefCell<String> = const { RefCell::new(String::new()) };
    }
    ESCAPED.with_borrow_mut(|escaped| {
        escaped.clear();
        crate::html::escape_into(escaped, text);
        out.write_all(escaped.as_bytes())
    })
}

fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}

#[cfg(test)]
mod tests;
