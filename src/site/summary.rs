//! The build summary as Markdown, for a pull-request comment or a CI job summary
//! (`build --summary FILE`): pages, published entries, and what keeps each draft back.
//! Names and reasons come from contributors' files, so every one is escaped.
use crate::site::options::Report;

impl Report {
    /// The summary of this build; `preview` says whether drafts were rendered.
    pub(crate) fn markdown(&self, preview: bool) -> String {
        let mut md = format!(
            "**{}** page{} · **{}** published entr{} · **{}** draft{} {}\n",
            self.pages,
            plural(self.pages, "", "s"),
            self.published,
            plural(self.published, "y", "ies"),
            self.drafts.len(),
            plural(self.drafts.len(), "", "s"),
            if preview {
                "shown with a draft banner"
            } else {
                "left out"
            },
        );
        if !self.drafts.is_empty() {
            md.push_str("\n| Draft | What keeps it from publishing |\n| --- | --- |\n");
            for (file, reason) in &self.drafts {
                let file = escape(&file.to_string_lossy());
                md.push_str(&format!("| {file} | {} |\n", escape(reason)));
            }
        }
        if !self.warnings.is_empty() {
            md.push_str(&format!(
                "\n<details><summary>{} warning{}</summary>\n\n",
                self.warnings.len(),
                plural(self.warnings.len(), "", "s")
            ));
            for w in &self.warnings {
                md.push_str(&format!("- {}\n", escape(&w.to_string())));
            }
            md.push_str("\n</details>\n");
        }
        md
    }
}

fn plural(n: usize, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}

/// Plain text in Markdown: every ASCII punctuation mark backslash-escaped (so no link,
/// image, HTML or table cell can be written), line breaks as spaces.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '\n' | '\r' => out.push(' '),
            c if c.is_ascii_punctuation() => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::Diagnostic;

    #[test]
    fn lists_each_draft_with_its_reason_escaped() {
        let report = Report {
            pages: 3,
            published: 1,
            drafts: vec![
                ("content/glossary/warp.md".into(), "status is draft".into()),
                (
                    "content/x|y.md".into(),
                    "see [here](https://evil.example) <img src=x>\nnext".into(),
                ),
            ],
            warnings: vec![Diagnostic::new("measurements", 0, "stale record")],
            ..Report::default()
        };
        let md = report.markdown(true);
        assert!(
            md.starts_with(
                "**3** pages · **1** published entry · **2** drafts shown with a draft banner\n"
            ),
            "{md}"
        );
        assert!(
            md.contains("| content\\/glossary\\/warp\\.md | status is draft |\n"),
            "{md}"
        );
        assert!(md.contains("| content\\/x\\|y\\.md | see \\[here\\]\\(https\\:\\/\\/evil\\.example\\) \\<img src\\=x\\> next |\n"), "{md}");
        assert!(md.contains("<summary>1 warning</summary>"), "{md}");
        let none = Report::default().markdown(false);
        assert_eq!(
            none,
            "**0** pages · **0** published entries · **0** drafts left out\n"
        );
    }
}
