//! The one shape every content problem is reported in: file, whole-file line, field,
//! message and a suggested fix, printed compiler style. Depends on nothing else of ours.
use std::fmt;
use std::path::PathBuf;

/// A problem found in one input file; a build collects all of them before it stops.
/// Serialised as `check --format json` prints it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize)]
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
        // Messages quote content (values, names, paths): printed so that no quoted text can
        // start a line of its own (`::error::` is a GitHub workflow command) or drive the
        // terminal.
        write!(f, "{}", printable(&self.file.to_string_lossy()))?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
        }
        write!(f, ": ")?;
        if let Some(field) = &self.field {
            write!(f, "field `{}`: ", printable(field))?;
        }
        write!(f, "{}", printable(&self.message))?;
        if let Some(help) = &self.help {
            write!(f, "\n  help: {}", printable(help))?;
        }
        Ok(())
    }
}

/// Whether `c` is one a terminal, a log or a CI runner acts on rather than shows: a control
/// character (newline, carriage return, escape, bell, C1 controls) or a bidirectional
/// override or isolate, which reorders the text around it.
pub(crate) fn hidden(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every [`hidden`] character (newlines among them) written as a Rust escape
/// (`\n`, `\u{1b}`): what content may put in a line of a terminal, a log or a CI
/// annotation.
pub(crate) fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    escaped(text, hidden)
}

/// A whole output of coursegen's, lines and all, as it may reach a terminal or a CI log:
/// [`printable`] but for line breaks and tabs, and no line can be a GitHub workflow command
/// (`::error …` at a line's start, or `##[…` anywhere, which the runner also obeys), which
/// only [`Diagnostics::github_annotations`] writes. Every command writes its output through
/// this (`cmd::emit`), so a name quoted without [`printable`] still prints inert.
pub(crate) fn printable_lines(text: &str) -> std::borrow::Cow<'_, str> {
    let kept = escaped(text, |c| hidden(c) && c != '\n' && c != '\t');
    let command = |line: &str| line.trim_start().starts_with("::") || line.contains("##[");
    if !kept.lines().any(command) {
        return kept;
    }
    let mut out = String::with_capacity(kept.len() + 16);
    for line in kept.split_inclusive('\n') {
        if line.trim_start().starts_with("::") {
            out.push('\\');
        }
        out.push_str(&line.replace("##[", "#\\#["));
    }
    std::borrow::Cow::Owned(out)
}

fn escaped(text: &str, hide: impl Fn(char) -> bool) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(&hide) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if hide(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The candidate `name` is most likely a typo of, for "did you mean": the nearest by edit
/// distance, if within a third of `name`'s length (one to three edits). Short names are
/// close to everything: `theme` is not a typo of `title`.
pub(crate) fn closest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let distance = |c: &str| strsim::levenshtein(name, c);
    (candidates.into_iter())
        .min_by_key(|c| distance(c))
        .filter(|c| distance(c) <= (name.len() / 3).clamp(1, 3))
}

/// Several diagnostics, shown one after another with a count, like a compiler's output.
/// The same problem in the same file on many lines is shown once, with the other lines
/// listed, so that one pasted mistake cannot bury the rest (or the terminal).
#[derive(Debug, thiserror::Error)]
pub struct Diagnostics(pub Vec<Diagnostic>);

/// How many further line numbers a folded problem lists.
const LINES_SHOWN: usize = 10;

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        type Key<'a> = (&'a PathBuf, &'a Option<String>, &'a str, &'a Option<String>);
        let mut groups: Vec<(&Diagnostic, Vec<usize>)> = Vec::new();
        let mut index: std::collections::HashMap<Key<'_>, usize> = Default::default();
        for d in &self.0 {
            let key = (&d.file, &d.field, d.message.as_str(), &d.help);
            match index.get(&key) {
                Some(&i) => groups[i].1.push(d.line),
                None => {
                    index.insert(key, groups.len());
                    groups.push((d, Vec::new()));
                }
            }
        }
        for (d, more) in &groups {
            writeln!(f, "error: {d}")?;
            if !more.is_empty() {
                let mut lines: Vec<String> = more
                    .iter()
                    .take(LINES_SHOWN)
                    .map(ToString::to_string)
                    .collect();
                if more.len() > LINES_SHOWN {
                    lines.push("…".into());
                }
                writeln!(
                    f,
                    "  note: the same problem {} more time{} in this file (line {})",
                    more.len(),
                    if more.len() == 1 { "" } else { "s" },
                    lines.join(", ")
                )?;
            }
        }
        let n = self.0.len();
        write!(f, "{n} problem{} found", if n == 1 { "" } else { "s" })?;
        if groups.len() < n {
            write!(f, " ({} distinct)", groups.len())?;
        }
        Ok(())
    }
}

impl Diagnostics {
    /// One GitHub workflow command per problem (`::error file=…,line=…,title=…::message`),
    /// so that a run in GitHub Actions shows each problem on the pull request's diff at its
    /// file and line. Quoted content cannot end the command or start another: control
    /// characters are escaped first ([`printable`]), then `%`, `:` and `,` as GitHub
    /// decodes them.
    pub fn github_annotations(&self) -> String {
        let data = |s: &str| printable(s).replace('%', "%25");
        let property = |s: &str| data(s).replace(':', "%3A").replace(',', "%2C");
        let mut out = String::new();
        for d in &self.0 {
            let file = property(&d.file.to_string_lossy());
            let mut message = match &d.field {
                Some(field) => format!("field `{field}`: {}", d.message),
                None => d.message.clone(),
            };
            if let Some(help) = &d.help {
                message.push_str(" (help: ");
                message.push_str(help);
                message.push(')');
            }
            let line = if d.line > 0 {
                format!(",line={}", d.line)
            } else {
                String::new()
            };
            out.push_str(&format!(
                "::error file={file}{line},title=coursegen::{}\n",
                data(&message)
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every problem is one command at its file and line; quoted content cannot break out.
    #[test]
    fn github_annotations_name_file_and_line_and_escape_content() {
        let all = Diagnostics(vec![
            Diagnostic::new("content/glossary/a,b.md", 7, "bad value 100%")
                .field("status")
                .help("write draft"),
            Diagnostic::new("coursegen.toml", 0, "x\n::error::forged\r"),
        ]);
        let text = all.github_annotations();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                "::error file=content/glossary/a%2Cb.md,line=7,title=coursegen::field `status`: bad value 100%25 (help: write draft)",
                "::error file=coursegen.toml,title=coursegen::x\\n::error::forged\\r",
            ]
        );
    }

    #[test]
    fn repeated_problems_are_shown_once_with_a_count() {
        let mut all: Vec<Diagnostic> = (1..=5000)
            .map(|line| Diagnostic::new("content/a.md", line, "`x` is not a glossary entry"))
            .collect();
        all.push(Diagnostic::new(
            "content/b.md",
            3,
            "`x` is not a glossary entry",
        ));
        all.push(Diagnostic::new("content/a.md", 9, "another problem"));
        let text = Diagnostics(all).to_string();
        assert_eq!(text.matches("error:").count(), 3, "{text}");
        assert!(
            text.contains("error: content/a.md:1: `x` is not a glossary entry\n  note: the same problem 4999 more times in this file (line 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, …)"),
            "{text}"
        );
        assert!(text.ends_with("5002 problems found (3 distinct)"), "{text}");
        let one = Diagnostics(vec![Diagnostic::new("a.md", 1, "m")]).to_string();
        assert_eq!(one, "error: a.md:1: m\n1 problem found");
    }

    #[test]
    fn quoted_content_cannot_start_a_line_or_drive_the_terminal() {
        let d = Diagnostic::new(
            "content/a\nb.md",
            2,
            "`draft\n::error::pwned` is not a status; \u{1b}[2J\u{202e}",
        )
        .field("status")
        .help("one of\r\ndraft");
        let text = d.to_string();
        assert_eq!(
            text,
            "content/a\\nb.md:2: field `status`: `draft\\n::error::pwned` is not a status; \\u{1b}[2J\\u{202e}\n  help: one of\\r\\ndraft"
        );
        assert_eq!(text.lines().count(), 2, "{text}");
        assert!(text.lines().all(|l| !l.starts_with("::")), "{text}");
    }

    #[test]
    fn whole_outputs_keep_their_lines_and_carry_no_command() {
        let forged = "draft content/x\n::error file=README.md,line=1::FORGED.md: status is draft\n  \
                      ::add-mask::x\r\u{7}\u{1b}[31m \u{2066}a\u{2069} ok ##[error]no\n\tnext\n";
        assert_eq!(
            printable_lines(forged),
            "draft content/x\n\\::error file=README.md,line=1::FORGED.md: status is draft\n\\  \
             ::add-mask::x\\r\\u{7}\\u{1b}[31m \\u{2066}a\\u{2069} ok #\\#[error]no\n\tnext\n"
        );
        let plain = "error: content/a.md:2: m\n  help: h\n1 problem found\n";
        assert!(matches!(
            printable_lines(plain),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
