//! Tera templates: loaded once from `templates/` (autoescaped), rendered with page contexts
//! that are plain serialisable data. Depends on no other module of ours.
use std::path::{Path, PathBuf};

use serde::Serialize;

/// Why templates could not be loaded or a page not rendered.
#[derive(Debug, thiserror::Error)]
pub enum TemplateError {
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
}

/// The templates a site must provide.
pub const REQUIRED: &[&str] = &["entry.html", "section.html", "index.html"];

/// Compiled templates, shared by every page of a build.
pub struct Templates {
    tera: tera::Tera,
    root: String,
}

impl Templates {
    /// Loads every `*.html` template in `dir` (sub-folders included) and compiles them once.
    pub fn load(dir: &Path) -> Result<Self, TemplateError> {
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
        let mut tera = tera::Tera::new();
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
        Ok(Templates {
            tera,
            root: "/".into(),
        })
    }

    /// Sets `root`, the site's base path with a trailing slash (`/`, or `/course/` under a
    /// sub-path), which every template sees and writes site-absolute URLs with:
    /// `{{ root }}style.css`. URLs that come in a page's context already carry it.
    pub fn with_root(mut self, root: &str) -> Self {
        self.root = root.into();
        self
    }

    /// Renders `template` with `context` (any serialisable value whose top level is a map),
    /// plus `root`.
    pub fn render(
        &self,
        template: &str,
        context: &impl Serialize,
    ) -> Result<String, TemplateError> {
        let err = |e: tera::Error| TemplateError::Render {
            template: template.into(),
            message: chain(&e),
        };
        let mut ctx = tera::Context::from_serialize(context).map_err(err)?;
        ctx.insert("root", &self.root);
        self.tera.render(template, &ctx).map_err(err)
    }
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
