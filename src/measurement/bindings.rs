//! Prose bindings: `{{% ratio 32L L digits=0 %}}` in an entry's Markdown becomes a number
//! read from the measurement record, so text cannot drift from data. Bindings inside fenced
//! code blocks and inline code spans are left alone; `{{\%` writes a literal `{{%`.
//! A value never enters the Markdown: the binding becomes a placeholder, and [`Expanded::fill`]
//! puts the value, HTML-escaped, where the placeholder landed in the rendered and sanitised
//! HTML, so no record string (a device name, a driver version) can create markup.
//! Syntax and names are documented in the guide's Bindings page (`guide/src/reference/bindings.md`).
mod syntax;

pub(crate) use syntax::BindingErrorKind;
use syntax::{Binding, Failure, parse, syntax};

use super::view::{DeviceView, MeasuredView, RowView, fraction_of_limit};
use crate::bank::access::AccessKind;

/// What a preview prints where a binding has no record to read.
pub(crate) const NOT_MEASURED: &str = "(not measured yet)";

const OPEN: &str = "{{%";
const CLOSE: &str = "%}}";

/// A binding that could not be expanded: where, why, and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub(crate) struct BindingError {
    /// 1-based line within the body given to the expander.
    pub(crate) line: usize,
    /// What kind of problem.
    pub(crate) kind: BindingErrorKind,
    /// The message, with the fix.
    pub(crate) message: String,
}

/// Opens and closes a placeholder: private-use characters, which Markdown and the sanitiser
/// pass through as text and which content may not contain.
const MARK: (char, char) = ('\u{E000}', '\u{E001}');

/// A body whose bindings were resolved: Markdown with a placeholder per binding, and the
/// values to put in their place once the Markdown is rendered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Expanded {
    /// The body with each binding replaced by its placeholder; what the Markdown renderer gets.
    pub(crate) markdown: String,
    /// Each binding's value and 1-based body line, in placeholder order.
    values: Vec<(String, usize)>,
}

impl Expanded {
    /// A body without bindings to fill (an entry that measures no kernel).
    pub(crate) fn plain(body: &str) -> Self {
        Expanded {
            markdown: body.to_owned(),
            values: Vec::new(),
        }
    }

    /// The body with values written in as plain text, for tests and messages.
    #[cfg(test)]
    pub(crate) fn text(&self) -> String {
        self.text_of(&self.markdown)
    }

    /// `markdown` — [`Expanded::markdown`] with text added outside the placeholders — with
    /// the values written in as plain text: a page's Markdown copy.
    pub(crate) fn text_of(&self, markdown: &str) -> String {
        self.fill_with(markdown, |v| v.to_owned(), &mut Vec::new())
    }

    /// Whether the body has bindings (else [`Expanded::markdown`] is the body as written).
    pub(crate) fn has_bindings(&self) -> bool {
        !self.values.is_empty()
    }

    /// Replaces each placeholder in `fragments` (rendered, sanitised HTML) by its value,
    /// HTML-escaped. Bindings are text: one whose placeholder is not in a text node (it was
    /// written in a link destination or an HTML attribute) is an error.
    pub(crate) fn fill<'a>(
        &self,
        fragments: impl IntoIterator<Item = &'a mut String>,
    ) -> Result<(), Vec<BindingError>> {
        if self.values.is_empty() {
            return Ok(());
        }
        let mut placed = Vec::new();
        for html in fragments {
            *html = self.fill_with(html, crate::html::escape, &mut placed);
        }
        let errors: Vec<BindingError> = self
            .values
            .iter()
            .enumerate()
            .filter(|(i, _)| !placed.contains(i))
            .map(|(_, (_, line))| BindingError {
                line: *line,
                kind: BindingErrorKind::Syntax,
                message: "a binding expands to text, so it cannot stand in a link destination, \
                          an image source or an HTML attribute; move it into the text"
                    .into(),
            })
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    /// Writes `html` with the placeholders that stand in text replaced by `show(value)`;
    /// notes which ones were placed. Input is ammonia's or pulldown-cmark's serialisation
    /// (attribute values in double quotes, `"`, `<` and `>` inside them escaped; URLs
    /// percent-encoded), so a tag and its attributes are told from text by `<`, `>` and `"`
    /// alone.
    fn fill_with(
        &self,
        html: &str,
        show: impl Fn(&str) -> String,
        placed: &mut Vec<usize>,
    ) -> String {
        if self.values.is_empty() {
            // No placeholder to fill: content cannot hold the marks (`expand` refuses them).
            return html.to_owned();
        }
        let mut out = String::with_capacity(html.len() + 16 * self.values.len());
        let (mut in_tag, mut in_quote) = (false, false);
        let mut rest = html;
        while let Some(i) = rest.find(['<', '>', '"', MARK.0]) {
            let c = rest[i..].chars().next().unwrap_or(MARK.0);
            out.push_str(&rest[..i]);
            rest = &rest[i..];
            let value = (c == MARK.0 && !in_tag)
                .then(|| placeholder(rest))
                .flatten()
                .and_then(|(n, len)| Some((n, len, &self.values.get(n)?.0)));
            if let Some((n, len, value)) = value {
                out.push_str(&show(value));
                placed.push(n);
                rest = &rest[len..];
                continue;
            }
            match c {
                '<' if !in_tag => in_tag = true,
                '>' if in_tag && !in_quote => in_tag = false,
                '"' if in_tag => in_quote = !in_quote,
                _ => {}
            }
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
        out.push_str(rest);
        out
    }
}

/// The index and byte length of the placeholder `rest` starts with.
fn placeholder(rest: &str) -> Option<(usize, usize)> {
    let inner = rest.strip_prefix(MARK.0)?;
    let end = inner.find(MARK.1)?;
    let n = inner[..end].parse().ok()?;
    Some((n, MARK.0.len_utf8() + end + MARK.1.len_utf8()))
}

/// Expands every binding in `body`; any binding that cannot be expanded — no record, or a
/// record without what it reads, included — is an error. What `build --strict` uses.
pub(crate) fn expand_bindings(
    body: &str,
    view: &MeasuredView,
) -> Result<Expanded, Vec<BindingError>> {
    expand(body, Some(view), false)
}

/// Like [`expand_bindings`], but a binding whose data is missing (no record, or no hardware
/// counters in it) becomes [`NOT_MEASURED`] instead of an error (malformed bindings are still
/// errors); [`missing_data`] says which, for the build's warnings. What the preview and the
/// plain publish build use.
pub(crate) fn expand_bindings_preview(
    body: &str,
    view: &MeasuredView,
) -> Result<Expanded, Vec<BindingError>> {
    expand(body, Some(view), true)
}

/// The bindings of `body` that have no data in `view`'s records although the kernel has
/// records (a `counter` of a record measured without counters): what the preview warns
/// about where it prints [`NOT_MEASURED`]. Empty when there is no record at all (the page
/// says "not measured yet" then) or the body is malformed (expansion reports that).
pub(crate) fn missing_data(body: &str, view: &MeasuredView) -> Vec<BindingError> {
    if view.devices.is_empty() || plain(body) {
        return Vec::new();
    }
    match expand(body, Some(view), false) {
        Ok(_) => Vec::new(),
        Err(errors)
            if errors
                .iter()
                .all(|e| e.kind == BindingErrorKind::NotMeasured) =>
        {
            errors
        }
        Err(_) => Vec::new(),
    }
}

/// What the prose of one entry binds: every row label it quotes, and the rows whose hardware
/// counters it quotes (`counter ROW`). Malformed bindings bind nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Bound {
    /// Row labels quoted by any binding.
    pub(crate) rows: std::collections::BTreeSet<String>,
    /// Row labels whose counters are quoted.
    pub(crate) counters: std::collections::BTreeSet<String>,
}

/// What `body` binds (see [`Bound`]); `measure` keeps records that have it.
pub(crate) fn bound(body: &str) -> Bound {
    let mut out = Bound::default();
    if plain(body) {
        return out;
    }
    for (line, in_code) in crate::content::body::fenced_lines(body) {
        if in_code {
            continue;
        }
        for (is_code, part) in code_spans(line) {
            let mut rest = if is_code { "" } else { part };
            while let Some(open) = rest.find(OPEN) {
                let after = &rest[open + OPEN.len()..];
                let Some(close) = after.find(CLOSE) else {
                    break;
                };
                if let Ok(b) = parse(after[..close].trim()) {
                    out.rows.extend(b.rows.iter().map(|r| (*r).to_owned()));
                    if b.spec.name == "counter" {
                        out.counters.extend(b.rows.iter().map(|r| (*r).to_owned()));
                    }
                }
                rest = &after[close + CLOSE.len()..];
            }
        }
    }
    out
}

/// For an entry without `measure:`: every binding in `body` is an error saying so.
pub(crate) fn check_no_bindings(body: &str) -> Result<(), Vec<BindingError>> {
    if plain(body) {
        return Ok(());
    }
    expand(body, None, false).map(drop)
}

/// Whether `body` holds no binding and no placeholder character: two byte scans, where a
/// body that fails them is read line by line. Both marks start with the byte 0xEE in UTF-8.
fn plain(body: &str) -> bool {
    const MARK_LEAD: u8 = 0xEE;
    debug_assert!(
        [MARK.0, MARK.1]
            .iter()
            .all(|m| m.to_string().as_bytes()[0] == MARK_LEAD)
    );
    !body.contains(OPEN) && !body.as_bytes().contains(&MARK_LEAD)
}

fn expand(
    body: &str,
    view: Option<&MeasuredView>,
    preview: bool,
) -> Result<Expanded, Vec<BindingError>> {
    let mut out = Expanded {
        markdown: String::with_capacity(body.len()),
        values: Vec::new(),
    };
    if plain(body) {
        // Nothing to expand or refuse: the loop below would copy the body line by line.
        out.markdown.push_str(body);
        return Ok(out);
    }
    let mut errors = Vec::new();
    for (i, (line, in_code)) in crate::content::body::fenced_lines(body).enumerate() {
        if line.contains([MARK.0, MARK.1]) {
            errors.push(BindingError {
                line: i + 1,
                kind: BindingErrorKind::Syntax,
                message: "U+E000 and U+E001 are private-use characters coursegen reserves for \
                          bindings; remove them"
                    .into(),
            });
        }
        if in_code {
            out.markdown.push_str(line);
            continue;
        }
        for (is_code, part) in code_spans(line) {
            if is_code {
                out.markdown.push_str(part);
            } else {
                expand_text(part, i + 1, view, preview, &mut out, &mut errors);
            }
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// Splits a line into text and inline code spans (a run of n backticks up to the next run
/// of exactly n), so `{{%` inside code stays as written.
fn code_spans(line: &str) -> Vec<(bool, &str)> {
    let mut parts = Vec::new();
    let (bytes, mut start, mut i) = (line.as_bytes(), 0, 0);
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
        let mut j = i + run;
        let close = loop {
            match bytes[j..].iter().position(|&b| b == b'`') {
                None => break None,
                Some(k) => {
                    let at = j + k;
                    let n = bytes[at..].iter().take_while(|&&b| b == b'`').count();
                    if n == run {
                        break Some(at + n);
                    }
                    j = at + n;
                }
            }
        };
        match close {
            Some(end) => {
                parts.push((false, &line[start..i]));
                parts.push((true, &line[i..end]));
                (start, i) = (end, end);
            }
            None => i += run,
        }
    }
    parts.push((false, &line[start..]));
    parts
}

fn expand_text(
    text: &str,
    line: usize,
    view: Option<&MeasuredView>,
    preview: bool,
    out: &mut Expanded,
    errors: &mut Vec<BindingError>,
) {
    let mut rest = text;
    while let Some(open) = rest.find(OPEN) {
        out.markdown.push_str(&rest[..open]);
        let after = &rest[open + OPEN.len()..];
        let Some(close) = after.find(CLOSE) else {
            errors.push(BindingError {
                line,
                kind: BindingErrorKind::Syntax,
                message: format!(
                    "`{OPEN}` opens a binding that is not closed: end it with `{CLOSE}` on the same \
                     line (write `{{{{\\%` for a literal `{OPEN}`)"
                ),
            });
            out.markdown.push_str(&rest[open..]);
            return;
        };
        let whole = &rest[open..open + OPEN.len() + close + CLOSE.len()];
        match resolve(after[..close].trim(), view, preview) {
            Ok(value) => {
                let n = out.values.len();
                out.markdown.push_str(&format!("{}{n}{}", MARK.0, MARK.1));
                out.values.push((value, line));
            }
            Err((kind, message)) => {
                let message = format!("`{whole}`: {message}");
                errors.push(BindingError {
                    line,
                    kind,
                    message,
                });
                out.markdown.push_str(whole);
            }
        }
        rest = &after[close + CLOSE.len()..];
    }
    out.markdown.push_str(rest);
}

fn resolve(inner: &str, view: Option<&MeasuredView>, preview: bool) -> Result<String, Failure> {
    let binding = parse(inner)?;
    let Some(view) = view else {
        return Err((
            BindingErrorKind::NoKernel,
            "this entry measures no kernel: add `measure: <kernel>` to its front matter".into(),
        ));
    };
    if let Some(bad) = binding
        .rows
        .iter()
        .find(|r| !view.labels.iter().any(|l| l == *r))
    {
        return Err(syntax(format!(
            "no row `{bad}` in kernel {}: rows are {}",
            view.kernel,
            view.labels.join(", ")
        )));
    }
    let found = if binding.device.is_none() && view.devices.len() > 1 {
        agreed_value(&binding, view)
    } else {
        pick_device(&binding, view).and_then(|device| value(&binding, device))
    };
    match found {
        Err((BindingErrorKind::NotMeasured, _)) if preview => Ok(NOT_MEASURED.into()),
        other => other,
    }
}

/// With records from several GPUs and no `device=`, prose states something of all of them:
/// the binding stands when every GPU gives the same text, and otherwise asks which one.
fn agreed_value(b: &Binding<'_>, view: &MeasuredView) -> Result<String, Failure> {
    let values = view
        .devices
        .iter()
        .map(|d| value(b, d).map(|v| (d.slug.as_str(), v)))
        .collect::<Result<Vec<_>, _>>()?;
    if values.iter().all(|(_, v)| *v == values[0].1) {
        return Ok(values[0].1.clone());
    }
    let each: Vec<String> = values
        .iter()
        .map(|(slug, v)| format!("{slug}: {v}"))
        .collect();
    Err((
        BindingErrorKind::Device,
        format!(
            "kernel {} has records for several GPUs and they differ here ({}): say which with device=SLUG",
            view.kernel,
            each.join(", ")
        ),
    ))
}

fn pick_device<'v>(b: &Binding<'_>, view: &'v MeasuredView) -> Result<&'v DeviceView, Failure> {
    let slugs = || {
        view.devices
            .iter()
            .map(|d| d.slug.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if view.devices.is_empty() {
        return Err((
            BindingErrorKind::NotMeasured,
            format!(
                "kernel {0} has no measurement record yet: run `coursegen measure --gpu --kernel {0}` \
                 on a GPU and commit measurements/{0}/ (the preview shows “{NOT_MEASURED}”)",
                view.kernel
            ),
        ));
    }
    match (b.device, view.devices.as_slice()) {
        (None, [only]) => Ok(only),
        (None, _) => Err((
            BindingErrorKind::Device,
            format!(
                "kernel {} has records for {}: say which with device=SLUG",
                view.kernel,
                slugs()
            ),
        )),
        (Some(slug), devices) => devices.iter().find(|d| d.slug == slug).ok_or_else(|| {
            (
                BindingErrorKind::Device,
                format!(
                    "no record of kernel {} on `{slug}`: records are for {}",
                    view.kernel,
                    slugs()
                ),
            )
        }),
    }
}

fn value(b: &Binding<'_>, d: &DeviceView) -> Result<String, Failure> {
    let row = |i: usize| -> Result<&RowView, Failure> {
        let label = b.rows[i];
        d.sweep.iter().find(|r| r.label == label).ok_or_else(|| {
            let m = format!(
                "the record on {} has no row `{label}`: re-measure, the manifest changed",
                d.slug
            );
            (BindingErrorKind::Device, m)
        })
    };
    let r = &d.record;
    let number = |x: f64| format!("{x:.*}", b.digits.or(b.spec.digits).unwrap_or(0));
    if d.model == AccessKind::Branch && matches!(b.spec.name, "bandwidth" | "limit") {
        return Err(syntax(format!(
            "`{}` has no meaning for a divergence kernel, whose work is in registers: quote \
             `ratio`, `time`, `model`, `active` or `counter`",
            b.spec.name
        )));
    }
    Ok(match b.spec.name {
        "ratio" => number(row(0)?.median_ms / row(1)?.median_ms),
        "time" => format!("{} ms", number(row(0)?.median_ms)),
        "bandwidth" => format!("{} TB/s", number(row(0)?.bandwidth_gb_s / 1000.0)),
        "limit" => {
            let v = row(0)?;
            let x = r
                .row(&v.label)
                .map_or(0.0, |x| fraction_of_limit(d.model, r, x, v.efficiency));
            format!("{}%", number(100.0 * x))
        }
        "banks" => row(0)?.banks.to_string(),
        "degree" => row(0)?.degree.to_string(),
        "samples" => r
            .row(&row(0)?.label)
            .map_or(0, |x| x.samples_ms.len())
            .to_string(),
        "spread" => format!("{}%", number(100.0 * row(0)?.rel_stdev)),
        "model" => row(0)?.model_cost.to_string(),
        "active" => row(0)?.active.to_string(),
        "counter" => {
            let v = row(0)?;
            let n = v.counted.ok_or_else(|| {
                let m = format!(
                    "row `{}` on {} has no hardware counters: re-measure where ncu is on \
                     the PATH (`coursegen measure --gpu` counts by default; the preview shows \
                     “{NOT_MEASURED}”)",
                    v.label, d.name
                );
                (BindingErrorKind::NotMeasured, m)
            })?;
            number(n)
        }
        "gpu_spread" => format!("{}%", number(100.0 * row(0)?.gpu_spread)),
        "gpus" => d.gpus.to_string(),
        "device" => d.name.clone(),
        "driver" => r
            .software
            .driver_version
            .clone()
            .unwrap_or_else(|| "unknown".into()),
        "cuda" => r.software.cuda_driver_api.clone(),
        "nvrtc" => r.software.nvrtc_version.clone(),
        "clock" => format!("{} MHz", number(r.device.sm_clock_mhz)),
        "sms" => r.device.sm_count.to_string(),
        "date" => r.run.date.get(..10).unwrap_or(&r.run.date).to_owned(),
        other => {
            return Err(syntax(format!(
                "binding `{other}` has no value (a coursegen bug)"
            )));
        }
    })
}

#[cfg(test)]
mod tests;
