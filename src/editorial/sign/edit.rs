//! Minimal edits to the YAML text of a front matter: set one top-level or one `byline:`
//! key, keeping every other line, comment and the column of a trailing comment as they
//! were. Pure text in, text out; depends on nothing else of ours.

/// Why a front matter could not be edited in place.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum EditError {
    /// `byline:` is written on one line (`byline: {written_by: Ada}`), which the edit cannot
    /// change without rewriting it.
    #[error(
        "`byline:` is written on one line (line {line} of the front matter); write it as an \
         indented block, one field per line, to sign"
    )]
    InlineByline {
        /// 1-based line within the YAML.
        line: usize,
    },
}

/// Sets top-level `key` to `value` (already YAML), replacing its old value or adding the
/// line before `byline:` (else at the end).
pub(crate) fn set_top(yaml: &str, key: &str, value: &str) -> String {
    let mut lines: Vec<String> = yaml.split_inclusive('\n').map(str::to_string).collect();
    ensure_newline(&mut lines);
    if let Some(i) = find_key(&lines, 0, lines.len(), 0, key) {
        let end = continuation_end(&lines, i, 0);
        let new = replace_value(&lines[i], key, value, end == i + 1);
        lines.splice(i..end, [new]);
    } else {
        let at = find_key(&lines, 0, lines.len(), 0, "byline").unwrap_or(lines.len());
        lines.insert(at, format!("{key}: {value}\n"));
    }
    lines.concat()
}

/// Sets `byline.<key>` to `value` (already YAML), replacing its old value or adding the
/// line at the end of the byline block; adds a `byline:` block when there is none.
pub(crate) fn set_byline(yaml: &str, key: &str, value: &str) -> Result<String, EditError> {
    let mut lines: Vec<String> = yaml.split_inclusive('\n').map(str::to_string).collect();
    ensure_newline(&mut lines);
    let Some(b) = find_key(&lines, 0, lines.len(), 0, "byline") else {
        lines.push(format!("byline:\n  {key}: {value}\n"));
        return Ok(lines.concat());
    };
    let rest = lines[b]["byline:".len()..].trim();
    if !rest.is_empty() && !rest.starts_with('#') {
        return Err(EditError::InlineByline { line: b + 1 });
    }
    let (end, indent) = byline_block(&lines, b);
    if let Some(i) = find_key(&lines, b + 1, end, indent, key) {
        let stop = continuation_end(&lines, i, indent);
        let new = replace_value(&lines[i], key, value, stop == i + 1);
        lines.splice(i..stop, [new]);
    } else {
        lines.insert(end, format!("{}{key}: {value}\n", " ".repeat(indent)));
    }
    Ok(lines.concat())
}

/// Removes `byline.<key>` (its line and any continuation) when it is there.
pub(crate) fn remove_byline(yaml: &str, key: &str) -> String {
    let mut lines: Vec<String> = yaml.split_inclusive('\n').map(str::to_string).collect();
    ensure_newline(&mut lines);
    let Some(b) = find_key(&lines, 0, lines.len(), 0, "byline") else {
        return lines.concat();
    };
    let (end, indent) = byline_block(&lines, b);
    if let Some(i) = find_key(&lines, b + 1, end, indent, key) {
        let stop = continuation_end(&lines, i, indent);
        lines.drain(i..stop);
    }
    lines.concat()
}

/// A YAML scalar for `text`: plain when that reads back as the same string, else quoted.
pub(crate) fn scalar(text: &str) -> String {
    // Starting with a letter also keeps numbers (`42`) and dates from reading back as such.
    let plain = text.chars().next().is_some_and(char::is_alphabetic)
        && text
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '.' | '-' | '\'' | ':'))
        && !text.ends_with(' ')
        && !text.contains(": ")
        && !text.ends_with(':')
        // YAML 1.1 reads these as booleans or null.
        && !["yes", "no", "on", "off", "y", "n", "true", "false", "null", "nan"]
            .contains(&text.to_lowercase().as_str());
    if plain {
        return text.to_string();
    }
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// One name as a scalar, several as a flow list: `Ada`, `[Ada, "Grace O'Hara"]`.
pub(crate) fn names(list: &[String]) -> String {
    match list {
        [one] => scalar(one),
        many => format!(
            "[{}]",
            many.iter()
                .map(|n| scalar(n))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn ensure_newline(lines: &mut [String]) {
    if let Some(last) = lines.last_mut().filter(|l| !l.ends_with('\n')) {
        last.push('\n');
    }
}

/// Where the block of the `byline:` key on line `b` ends, and the indent of its keys (2 when
/// it holds none yet).
fn byline_block(lines: &[String], b: usize) -> (usize, usize) {
    let end = continuation_end(lines, b, 0);
    let indent = lines[b + 1..end]
        .iter()
        .find(|l| !is_blank_or_comment(l))
        .map_or(2, |l| indent_of(l));
    (end, indent)
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn is_blank_or_comment(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

/// The line in `lines[from..to]` holding `key:` at exactly `indent` spaces.
fn find_key(lines: &[String], from: usize, to: usize, indent: usize, key: &str) -> Option<usize> {
    (from..to).find(|&i| {
        let l = &lines[i];
        indent_of(l) == indent
            && l[indent..]
                .strip_prefix(key)
                .is_some_and(|r| r.starts_with(':'))
    })
}

/// The line after the value of the key on line `i` (indent `indent`): deeper lines, and
/// `- item` lines at the same indent (a YAML compact list), belong to it.
fn continuation_end(lines: &[String], i: usize, indent: usize) -> usize {
    let mut end = i + 1;
    for (j, l) in lines.iter().enumerate().skip(i + 1) {
        if l.trim().is_empty() {
            continue;
        }
        let deeper = indent_of(l) > indent;
        let item = indent_of(l) == indent && l.trim_start().starts_with('-');
        let comment = l.trim_start().starts_with('#') && indent_of(l) > indent;
        if deeper || item || comment {
            end = j + 1;
        } else {
            break;
        }
    }
    end
}

/// `key: value`, keeping the old line's indent and — when the old value was on this one
/// line — its trailing comment at the same column.
fn replace_value(line: &str, key: &str, value: &str, single_line: bool) -> String {
    let indent = indent_of(line);
    let head = format!("{}{key}: {value}", " ".repeat(indent));
    let after = &line[indent + key.len() + 1..];
    let comment =
        comment_start(after).filter(|_| single_line || after.trim_start().starts_with('#'));
    match comment {
        Some(at) => {
            let column = indent + key.len() + 1 + at;
            let pad = column.saturating_sub(head.chars().count()).max(1);
            format!("{head}{}{}\n", " ".repeat(pad), after[at..].trim_end())
        }
        None => format!("{head}\n"),
    }
}

/// Byte offset of a `#` comment in the value text `after` (which follows `key:`), skipping
/// quoted strings.
fn comment_start(after: &str) -> Option<usize> {
    let mut quote: Option<char> = None;
    let mut prev = ' ';
    let mut chars = after.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match quote {
            Some('"') if c == '\\' => {
                chars.next();
            }
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if (c == '"' || c == '\'') && prev.is_whitespace() => quote = Some(c),
            None if c == '#' && prev.is_whitespace() => return Some(i),
            None => {}
        }
        prev = c;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remove_byline_takes_out_one_key_and_nothing_else() {
        let yaml = "title: T\nbyline:\n  written_by: A\n  author_signature: \"U1N\"\n  reviewed_by: B # r\n";
        assert_eq!(
            remove_byline(yaml, "author_signature"),
            "title: T\nbyline:\n  written_by: A\n  reviewed_by: B # r\n"
        );
        assert_eq!(remove_byline(yaml, "reviewer_signature"), yaml);
        assert_eq!(
            remove_byline("title: T\n", "author_signature"),
            "title: T\n"
        );
    }

    const SCAFFOLD: &str = "title: T\nstatus: draft                     # draft | published\nbyline:\n  written_by: pending             # a name\n  reviewed_by: pending            # a reviewer\n  written_on: pending\n# diagram:\n";

    #[track_caller]
    fn byline_case(yaml: &str, key: &str, value: &str, want: &str) {
        assert_eq!(set_byline(yaml, key, value).unwrap(), want);
    }

    #[test]
    fn byline_edits_touch_one_line() {
        byline_case(
            SCAFFOLD,
            "reviewed_by",
            "Grace Hopper",
            &SCAFFOLD.replace(
                "  reviewed_by: pending            # a reviewer",
                "  reviewed_by: Grace Hopper       # a reviewer",
            ),
        );
        // A new key goes at the end of the block, before what follows it.
        byline_case(
            SCAFFOLD,
            "reviewed_hash",
            "sha256:ab",
            &SCAFFOLD.replace(
                "  written_on: pending\n",
                "  written_on: pending\n  reviewed_hash: sha256:ab\n",
            ),
        );
        // Block lists, compact or indented, are replaced whole.
        byline_case(
            "byline:\n  reviewed_by:\n  - Ada\n  - Grace\n  written_on: x\n",
            "reviewed_by",
            "Grace",
            "byline:\n  reviewed_by: Grace\n  written_on: x\n",
        );
        byline_case(
            "byline:\n    reviewed_by:\n      - Ada\n\n      - Grace\nstatus: draft\n",
            "reviewed_by",
            "Grace",
            "byline:\n    reviewed_by: Grace\nstatus: draft\n",
        );
        // No byline: one is added at the end.
        byline_case(
            "title: T",
            "reviewed_by",
            "Grace",
            "title: T\nbyline:\n  reviewed_by: Grace\n",
        );
        // A `#` inside quotes is not a comment.
        byline_case(
            "byline:\n  reviewed_by: \"A # B\" # note\n",
            "reviewed_by",
            "C",
            "byline:\n  reviewed_by: C       # note\n",
        );
        assert_eq!(
            set_byline("byline: {reviewed_by: Ada}\n", "reviewed_by", "G"),
            Err(EditError::InlineByline { line: 1 })
        );
    }

    #[test]
    fn top_level_edits() {
        assert_eq!(
            set_top(SCAFFOLD, "status", "published"),
            SCAFFOLD.replace(
                "status: draft                     #",
                "status: published                 #"
            )
        );
        assert_eq!(
            set_top(
                "title: T\nbyline:\n  written_by: A\n",
                "status",
                "published"
            ),
            "title: T\nstatus: published\nbyline:\n  written_by: A\n"
        );
    }

    #[test]
    fn scalars_read_back_as_written() {
        for (text, want) in [
            ("Grace Hopper", "Grace Hopper"),
            ("Séan O'Brien", "Séan O'Brien"),
            ("no", "\"no\""),
            ("Ada: the first", "\"Ada: the first\""),
            ("[Ada]", "\"[Ada]\""),
            ("-x", "\"-x\""),
            ("a\"b", "\"a\\\"b\""),
            ("sha256:00ff", "sha256:00ff"),
            ("42", "\"42\""),
            ("2026-11-30", "\"2026-11-30\""),
        ] {
            assert_eq!(scalar(text), want);
            let back: String = serde_norway::from_str(&scalar(text)).unwrap();
            assert_eq!(back, text);
        }
        assert_eq!(names(&["Ada".into(), "no".into()]), "[Ada, \"no\"]");
    }
}
