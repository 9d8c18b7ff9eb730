//! TeX math (`$…$`, `$$…$$`: pulldown-cmark's math events) written as MathML at build
//! time with pulldown-latex, so a page needs no script to show a formula. The TeX stays
//! in an `<annotation>`, which search text and copy-paste read. Each formula's cost is
//! bounded before the parser sees it, and each page's ([`MathBudget`]). Used by `markdown`
//! only.
use pulldown_cmark::{CowStr, Event};
use pulldown_latex::config::DisplayMode;
use pulldown_latex::{Parser, RenderConfig, Storage};

/// Longest formula: 8 KiB, some ten times a long display formula or a 16 × 16 matrix.
/// pulldown-latex's time and memory grow faster than a formula's length (a 1 MiB matrix
/// took 3 s and 353 MiB).
pub(crate) const MAX_FORMULA_BYTES: usize = 8 * 1024;

/// Deepest nesting of groups in a formula (`{`, `[`, `\left`, `\begin`). pulldown-latex
/// scans each group's text again when it parses it, so a formula costs its length times
/// its depth (braces 200,000 deep took minutes); real formulas nest a handful deep.
pub(crate) const MAX_FORMULA_DEPTH: usize = 32;

/// Most formulas one page may hold: some five times a page dense with inline math. Each
/// costs a parser and its MathML goes through the HTML cleaner (175,000 `$x$` took 2 s).
pub(crate) const MAX_FORMULAS: usize = 2_000;

/// Most MathML one page's formulas may make: 1 MiB, some five times a page of 2,000 inline
/// formulas or of thirty 16 × 16 matrices. MathML is some ten times its TeX, and the HTML
/// cleaner reads all of it (130 matrices of 7 KiB, 4 MiB of MathML, took half a second).
pub(crate) const MAX_MATHML_BYTES: usize = 1024 * 1024;

/// Commands that define a macro: each use of one expands into text that is parsed again
/// (pulldown-latex allows a formula up to 1 MiB of expansion), so a short formula could
/// cost far more than its length. A formula's macros would live in that formula only.
const DEFINING: &[&str] = &["def", "newcommand", "renewcommand", "providecommand"];

/// A formula that does not parse or is refused: its line in the fragment and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MathError {
    /// 1-based line within the rendered fragment.
    pub(crate) line: usize,
    /// The parser's message (its first line) and the formula, or the limit it passed.
    pub(crate) message: String,
    /// How to fix it.
    pub(crate) help: &'static str,
}

/// The help for a formula that does not parse.
const PARSE_HELP: &str = "write the formula in LaTeX math (`$x^2$`, `$$\\frac{a}{b}$$`); a dollar \
                          sign that is not math is written `\\$`";

/// What one page's formulas have used of its limits, across its fragments.
#[derive(Debug, Default)]
pub(crate) struct MathBudget {
    formulas: usize,
    mathml_bytes: usize,
    /// Set once a page limit is passed: the page is refused, and its later formulas are
    /// shown as code without parsing (one error says why).
    spent: bool,
}

/// The stack a page's formulas are parsed on. pulldown-latex parses an argument written
/// without braces (`\sqrt\sqrt x`, `\frac1\frac1 x`) by recursion, so a formula within
/// [`MAX_FORMULA_BYTES`] may recurse some thousands deep (1,600 `\sqrt` overflowed a 1 MiB
/// stack, a page's thread may have 2 MiB): the stack is reserved, and only what a formula
/// uses of it is touched.
const MATH_STACK_BYTES: usize = 256 << 20;

/// Replaces each math event with its MathML (`lines`: the line of each math event, in
/// order) and returns the formulas that failed. A fragment with math goes through the HTML
/// cleaner: the MathML is another crate's writing (and may carry `style` attributes, which
/// the page's Content-Security-Policy blocks and the cleaner drops).
pub(super) fn to_mathml(
    events: &mut [Event<'_>],
    lines: &[usize],
    budget: &mut MathBudget,
) -> Vec<MathError> {
    if lines.is_empty() {
        return Vec::new();
    }
    std::thread::scope(|scope| {
        let on_own_stack = std::thread::Builder::new()
            .name("math".into())
            .stack_size(MATH_STACK_BYTES)
            .spawn_scoped(scope, || convert(events, lines, budget));
        match on_own_stack {
            Ok(thread) => thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            // The machine is out of threads or memory: the page is refused (its formulas
            // stay TeX, which pulldown-cmark writes escaped).
            Err(e) => vec![MathError {
                line: lines[0],
                message: format!("no thread could be started to parse the page's formulas: {e}"),
                help: "build again when the machine has memory to spare",
            }],
        }
    })
}

/// [`to_mathml`] on the thread it starts.
fn convert(events: &mut [Event<'_>], lines: &[usize], budget: &mut MathBudget) -> Vec<MathError> {
    let mut errors = Vec::new();
    let mut lines = lines.iter();
    for event in events.iter_mut() {
        let (tex, display) = match event {
            Event::InlineMath(t) => (t.clone(), false),
            Event::DisplayMath(t) => (t.clone(), true),
            _ => continue,
        };
        let line = lines.next().copied().unwrap_or(1);
        let mut refuse = |message: String, help: &'static str| {
            errors.push(MathError {
                line,
                message,
                help,
            });
        };
        budget.formulas += 1;
        if budget.spent {
            // The page is refused already: its later formulas are dropped unparsed.
            *event = Event::Text(CowStr::Borrowed(""));
            continue;
        } else if budget.formulas > MAX_FORMULAS {
            budget.spent = true;
            refuse(
                format!("more than {MAX_FORMULAS} formulas on one page"),
                "split the page, or write what need not be a formula as text (`n = 32`)",
            );
        } else if let Err((message, help)) = check_cost(&tex) {
            refuse(message, help);
        } else {
            match mathml(&tex, display) {
                Ok(html) if budget.mathml_bytes + html.len() > MAX_MATHML_BYTES => {
                    budget.spent = true;
                    refuse(
                        format!(
                            "the page's formulas make more than {} MiB of MathML",
                            MAX_MATHML_BYTES >> 20
                        ),
                        "split the page, or show large matrices and tables as Markdown tables",
                    );
                }
                Ok(html) => {
                    budget.mathml_bytes += html.len();
                    *event = Event::InlineHtml(CowStr::from(html));
                    continue;
                }
                Err(e) => refuse(
                    format!("the formula `{}` does not parse: {e}", tex.trim()),
                    PARSE_HELP,
                ),
            }
        }
        // A refused page is never written, and its error names the formula's line: the TeX,
        // which the cleaner would read again, is left out (a 1 MiB matrix is 100,000 `&`).
        *event = Event::Code(CowStr::Borrowed(REFUSED));
    }
    errors
}

/// Where, in text that Markdown did not read as math, a formula with unbalanced braces
/// stands (`$\frac{a$`): pulldown-cmark takes `$…$` as math only when its braces balance,
/// so such a formula would show as raw TeX. A pair of dollar signs counts when the first
/// is followed and the second preceded by something other than a space (as a formula's
/// are, and `$5 and $10`'s are not) and the text between them has a brace (`\{` escaped
/// ones aside) that does not balance. One pass over the text.
pub(super) fn unread_formula(text: &str) -> Option<usize> {
    // Most prose has no dollar sign: one memchr instead of a walk of every byte (the walk
    // was 4.6 % of a 10,000-entry build's time, `benches/build.sh`).
    memchr::memchr(b'$', text.as_bytes())?;
    let bytes = text.as_bytes();
    let (mut open, mut i) = (None::<usize>, 0);
    let (mut depth, mut unbalanced) = (0i64, false);
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => {
                i += 2;
                continue;
            }
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                unbalanced |= depth < 0;
            }
            b'$' => {
                let display = bytes.get(i + 1) == Some(&b'$');
                let width = if display { 2 } else { 1 };
                let after = bytes
                    .get(i + width)
                    .is_some_and(|c| !c.is_ascii_whitespace());
                let before = i > 0 && !bytes[i - 1].is_ascii_whitespace();
                match open {
                    Some(at) if before || display => {
                        if unbalanced || depth != 0 {
                            return Some(at);
                        }
                        open = None;
                    }
                    _ if after || display => {
                        open = Some(i);
                        (depth, unbalanced) = (0, false);
                    }
                    _ => {}
                }
                i += width;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The error for [`unread_formula`], at its line.
pub(super) fn unread_error(line: usize) -> MathError {
    MathError {
        line,
        message: "a formula's braces do not balance (`{` without its `}`, or the reverse), so \
                  it is not read as math and would show as raw TeX"
            .into(),
        help: "close every `{` in the formula (`$\\frac{a}{b}$`); a brace shown in the \
               formula is written `\\{`, a dollar sign that is not math `\\$`",
    }
}

/// What a refused formula shows, in a page that is refused with it.
const REFUSED: &str = "(formula refused: see the build's errors)";

/// Whether a formula is short enough, shallow enough and defines no macro, judged from its
/// text in one pass before the parser sees it: its message and help if not.
fn check_cost(tex: &str) -> Result<(), (String, &'static str)> {
    let split = "split it into several formulas";
    if tex.len() > MAX_FORMULA_BYTES {
        return Err((
            format!(
                "the formula is longer than {} KiB ({MAX_FORMULA_BYTES} bytes)",
                MAX_FORMULA_BYTES / 1024
            ),
            "split it into several formulas, or show a large matrix as a Markdown table",
        ));
    }
    let bytes = tex.as_bytes();
    let (mut depth, mut i) = (0usize, 0);
    while let Some(&b) = bytes.get(i) {
        i += 1;
        match b {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'\\' => {
                let name_len = bytes[i..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphabetic())
                    .count();
                // A control symbol (`\{`, `\,`) is one character, and opens nothing.
                let name = &tex[i..i + name_len];
                i += name_len.max(1);
                match name {
                    "left" | "begin" => depth += 1,
                    "right" | "end" => depth = depth.saturating_sub(1),
                    _ if DEFINING.contains(&name) => {
                        return Err((
                            format!("the formula defines a macro (`\\{name}`)"),
                            "write the formula out: a macro would be known in this formula only",
                        ));
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        if depth > MAX_FORMULA_DEPTH {
            return Err((
                format!(
                    "the formula nests more than {MAX_FORMULA_DEPTH} deep (`{{`, `[`, \
                     `\\left`, `\\begin`)"
                ),
                split,
            ));
        }
    }
    Ok(())
}

/// One formula as MathML, or the parser's first complaint. The caller has bounded its cost
/// (`check_cost`).
pub(crate) fn mathml(tex: &str, display: bool) -> Result<String, String> {
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
    let escaped = crate::html::escape(tex.trim());
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

    /// Real formulas pass; a formula too long, too deep or defining a macro is refused
    /// before the parser sees it.
    #[test]
    fn a_formula_costs_what_its_text_bounds() {
        let row = vec!["a_{ij}"; 16].join(" & ");
        let matrix = format!(
            r"\begin{{pmatrix}}{}\end{{pmatrix}}",
            vec![row; 16].join(r" \\ ")
        );
        let nested = |n: usize| format!("{}x{}", "{".repeat(n), "}".repeat(n));
        for (tex, refused) in [
            (
                r"t_{\text{row}} = \frac{\text{bytes moved}}{\text{bandwidth}}",
                None,
            ),
            (
                r"\left( \sum_{i=0}^{n-1} x_i^{2} \right)^{1/2} \in [0, n)",
                None,
            ),
            (r"\sqrt[3]{\frac{a}{b}} \{ x \} \, \%", None),
            (&matrix, None),
            (&nested(MAX_FORMULA_DEPTH), None),
            (
                &nested(MAX_FORMULA_DEPTH + 1),
                Some("nests more than 32 deep"),
            ),
            (&"\\left(".repeat(40), Some("nests more than 32 deep")),
            (
                &"x".repeat(MAX_FORMULA_BYTES + 1),
                Some("longer than 8 KiB"),
            ),
            (r"\def\a{x}\a", Some(r"defines a macro (`\def`)")),
            (
                r"\newcommand{\b}{y}\b",
                Some(r"defines a macro (`\newcommand`)"),
            ),
            ("é\\é\\", None),
        ] {
            match (check_cost(tex), refused) {
                (Ok(()), None) => {}
                (Err((message, _)), Some(want)) if message.contains(want) => {}
                (got, want) => panic!("{tex:.60}: got {got:?}, want {want:?}"),
            }
        }
        assert!(matrix.len() < MAX_FORMULA_BYTES / 2, "{}", matrix.len());
        assert!(mathml(&matrix, true).is_ok());
    }

    /// Arguments without braces (`\sqrt\sqrt x`) nest through the parser's own recursion,
    /// as deep as the length limit allows (1,600 `\sqrt` overflowed a 1 MiB stack): the
    /// formulas are parsed on a stack of their own, whatever the caller's.
    #[test]
    fn unbraced_nesting_as_long_as_allowed_fits_a_small_stack() {
        let chains = [
            format!("{} x", r"\sqrt".repeat(MAX_FORMULA_BYTES / 5 - 1)),
            format!("{}x", r"\frac1".repeat(MAX_FORMULA_BYTES / 6 - 1)),
        ];
        for tex in chains {
            assert!(check_cost(&tex).is_ok());
            let errors = std::thread::Builder::new()
                .stack_size(256 << 10)
                .spawn(move || {
                    let mut events = [Event::DisplayMath(CowStr::from(tex))];
                    let errors = to_mathml(&mut events, &[1], &mut MathBudget::default());
                    let html = match &events[0] {
                        Event::InlineHtml(h) => h.to_string(),
                        other => format!("{other:.200?}"),
                    };
                    assert!(
                        html.contains("<msqrt>") || html.contains("<mfrac>"),
                        "{html:.200}"
                    );
                    errors
                })
                .unwrap()
                .join()
                .unwrap();
            assert_eq!(errors, []);
        }
    }

    #[test]
    fn formulas_markdown_did_not_read_for_their_braces_are_found() {
        for (text, at) in [
            (r"Inline: $\frac{a$ here.", Some(8)),
            ("$\\sqrt{x\ny$", Some(0)),
            (r"$$\frac{a}{b$$", Some(0)),
            (r"$a}$", Some(0)),
            (r"Costs $5 and $10, or $20.", None),
            (r"\$\frac{a\$ is escaped", None),
            (r"$\{x$ and $\}$", None),
            (r"$x$ $y", None),
        ] {
            assert_eq!(unread_formula(text), at, "{text}");
        }
    }

    #[test]
    fn a_formula_that_does_not_parse_is_an_error() {
        for bad in [r"\frac{a}{", r"\nosuchcommand{x}", r"x^"] {
            assert!(mathml(bad, false).is_err(), "{bad}");
        }
    }
}
