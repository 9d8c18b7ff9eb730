//! TeX math (`$…$`, `$$…$$`: pulldown-cmark's math events) written as MathML at build
//! time with pulldown-latex, so a page needs no script to show a formula. The TeX stays
//! in an `<annotation>`, which search text and copy-paste read. Used by `markdown` only.
use pulldown_cmark::{CowStr, Event};
use pulldown_latex::config::DisplayMode;
use pulldown_latex::{Parser, RenderConfig, Storage};

/// A formula that does not parse: its line in the fragment and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MathError {
    /// 1-based line within the rendered fragment.
    pub line: usize,
    /// The parser's message (its first line) and the formula.
    pub message: String,
}

/// Replaces each math event with its MathML (`lines`: the line of each math event, in
/// order) and returns the formulas that failed. A fragment with math goes through the HTML
/// cleaner: the MathML is another crate's writing (and may carry `style` attributes, which
/// the page's Content-Security-Policy blocks and the cleaner drops).
pub(super) fn to_mathml(events: &mut [Event<'_>], lines: &[usize]) -> Vec<MathError> {
    let mut errors = Vec::new();
    let mut lines = lines.iter();
    for event in events.iter_mut() {
        let (tex, display) = match event {
            Event::InlineMath(t) => (t.clone(), false),
            Event::DisplayMath(t) => (t.clone(), true),
            _ => continue,
        };
        let line = lines.next().copied().unwrap_or(1);
        match mathml(&tex, display) {
            Ok(html) => *event = Event::InlineHtml(CowStr::from(html)),
            Err(e) => {
                errors.push(MathError {
                    line,
                    message: format!("the formula `{}` does not parse: {e}", tex.trim()),
                });
                *event = Event::Code(tex);
            }
        }
    }
    errors
}

/// One formula as MathML, or the parser's first complaint.
pub fn mathml(tex: &str, display: bool) -> Result<String, String> {
    let storage = Storage::new();
    let mut parsed = Vec::new();
    for event in Parser::new(tex, &storage) {
        match event {
            Ok(e) => parsed.push(e),
            Err(e) => {
                let text = e.to_string();
                let first = text.lines().next().unwrap_or("");
                return Err(first.trim_start_matches("parsing error: ").to_string());
            }
        }
    }
    // pulldown-latex writes the annotation as it is given.
    let escaped = super::escape(tex.trim());
    let config = RenderConfig {
        display_mode: if display {
            DisplayMode::Block
        } else {
            DisplayMode::Inline
        },
        annotation: Some(&escaped),
        ..RenderConfig::default()
    };
    let mut out = String::with_capacity(tex.len() * 8);
    let events = parsed.into_iter().map(Ok::<_, std::convert::Infallible>);
    pulldown_latex::push_mathml(&mut out, events, config).map_err(|e| e.to_string())?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_become_mathml_and_keep_their_tex() {
        let html = mathml(r"\frac{a}{b}", false).unwrap();
        assert!(html.starts_with("<math"), "{html}");
        assert!(html.contains("<mfrac>"), "{html}");
        assert!(html.contains(r"\frac{a}{b}</annotation>"), "{html}");
        assert!(mathml("x", true).unwrap().contains("display=\"block\""));
        // The TeX is escaped where it is kept.
        assert!(
            mathml("a < b", false)
                .unwrap()
                .contains(">a &lt; b</annotation>")
        );
    }

    #[test]
    fn a_formula_that_does_not_parse_is_an_error() {
        for bad in [r"\frac{a}{", r"\nosuchcommand{x}", r"x^"] {
            assert!(mathml(bad, false).is_err(), "{bad}");
        }
    }
}
