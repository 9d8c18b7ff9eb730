//! The one shape every content problem is reported in: file, whole-file line, field,
//! message and a suggested fix, printed compiler style. Depends on nothing else of ours.
use std::fmt;
use std::path::PathBuf;

/// A problem found in one input file; a build collects all of them before it stops.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct Diagnostic {
    /// The file, relative to the site root where possible.
    pub file: PathBuf,
    /// 1-based line in the whole file (front matter included); 0 when it is about the file as a whole.
    pub line: usize,
    /// The front-matter field concerned, dotted for nested ones (`byline.reviewed_by`).
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
    /// How to fix it, when we can say.
    pub help: Option<String>,
}

impl Diagnostic {
    /// A diagnostic about `file` at `line`, with no field and no help yet.
    pub fn new(file: impl Into<PathBuf>, line: usize, message: impl Into<String>) -> Self {
        Diagnostic {
            file: file.into(),
            line,
            field: None,
            message: message.into(),
            help: None,
        }
    }

    /// Names the front-matter field the problem is in.
    pub fn field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }

    /// Adds a suggested fix.
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
        }
        write!(f, ": ")?;
        if let Some(field) = &self.field {
            write!(f, "field `{field}`: ")?;
        }
        write!(f, "{}", self.message)?;
        if let Some(help) = &self.help {
            write!(f, "\n  help: {help}")?;
        }
        Ok(())
    }
}

/// Several diagnostics, shown one after another with a count, like a compiler's output.
#[derive(Debug, thiserror::Error)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.0 {
            writeln!(f, "error: {d}")?;
        }
        let n = self.0.len();
        write!(f, "{n} problem{} found", if n == 1 { "" } else { "s" })
    }
}
