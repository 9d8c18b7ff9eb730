//! The options field of an allowed-signers line, read as `ssh-keygen -Y verify` reads it
//! (OpenSSH's `sshsigopt_parse`, `opt_dequote`, `parse_absolute_time` and
//! `match_pattern_list`), so that a line means in coursegen what it means to git and
//! OpenSSH: names in any case, every value in double quotes, each option at most once,
//! `valid-before` after `valid-after`, and `namespaces` a pattern list in which a negated
//! match refuses. The differential test runs ssh-keygen on the same lines.

/// What a line's options say.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Options {
    pub(super) valid_after: Option<i64>,
    pub(super) valid_before: Option<i64>,
    pub(super) namespaces: Option<Vec<String>>,
}

/// Reads an options field as written (quotes included), e.g.
/// `valid-after="20260101Z",namespaces="git,coursegen-review"`.
pub(super) fn parse(text: &str) -> Result<Options, String> {
    let mut found = Options::default();
    let mut rest = text;
    loop {
        let lower = rest.to_ascii_lowercase();
        if lower.starts_with("cert-authority")
            && matches!(
                rest.as_bytes().get("cert-authority".len()),
                None | Some(b',')
            )
        {
            return Err(
                "`cert-authority` lines are not supported: list each person's own key".into(),
            );
        }
        let Some(name) = ["namespaces", "valid-after", "valid-before"]
            .into_iter()
            .find(|n| lower.starts_with(n) && rest.as_bytes().get(n.len()) == Some(&b'='))
        else {
            let shown = rest.split([',', '=']).next().unwrap_or("");
            return Err(format!("unknown option `{}`", shown.escape_debug()));
        };
        let (value, after) = dequote(&rest[name.len() + 1..]).ok_or_else(|| {
            format!("the value of `{name}` must be in double quotes (`{name}=\"…\"`), as ssh-keygen reads it")
        })?;
        let twice = || format!("`{name}` is given twice; ssh-keygen refuses such a line");
        match name {
            "namespaces" if found.namespaces.is_some() => return Err(twice()),
            "namespaces" => found.namespaces = Some(value.split(',').map(str::to_string).collect()),
            "valid-after" if found.valid_after.is_some() => return Err(twice()),
            "valid-after" => found.valid_after = Some(timestamp(&value)?),
            _ if found.valid_before.is_some() => return Err(twice()),
            _ => found.valid_before = Some(timestamp(&value)?),
        }
        match after.strip_prefix(',') {
            Some(next) => rest = next,
            None if after.is_empty() => break,
            None => {
                return Err(format!(
                    "`{}` after an option: options are separated by commas",
                    after.escape_debug()
                ));
            }
        }
    }
    if let (Some(after), Some(before)) = (found.valid_after, found.valid_before)
        && before <= after
    {
        return Err("`valid-before` is not later than `valid-after`".into());
    }
    Ok(found)
}

/// A double-quoted value at the start of `text` (`\"` stands for a quote) and what follows.
fn dequote(text: &str) -> Option<(String, &str)> {
    let inner = text.strip_prefix('"')?;
    let mut value = String::new();
    let mut chars = inner.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((value, &inner[i + 1..])),
            '\\' if inner[i + 1..].starts_with('"') => {
                chars.next();
                value.push('"');
            }
            c => value.push(c),
        }
    }
    None
}

/// `YYYYMMDD[HHMM[SS]]` with an optional `Z`, read as UTC (ssh-keygen reads a time without
/// `Z` in the local time zone; coursegen's builds run anywhere, so every time is UTC).
/// Every year up to 9999 is a time; 1970-01-01T00:00Z is not (ssh-keygen takes 0 for "none").
/// Fields are checked and carried as ssh-keygen's `strptime` and `mktime` do.
pub(super) fn timestamp(value: &str) -> Result<i64, String> {
    let bad = || {
        format!(
            "`{}` is not a time: write YYYYMMDD or YYYYMMDDHHMM[SS], ending in Z (UTC)",
            value.escape_debug()
        )
    };
    let digits = value.strip_suffix(['Z', 'z']).unwrap_or(value);
    if !digits.chars().all(|c| c.is_ascii_digit()) || ![8, 12, 14].contains(&digits.len()) {
        return Err(bad());
    }
    let n = |r: std::ops::Range<usize>| digits.get(r).map_or(0, |s| s.parse::<i64>().unwrap_or(0));
    let (year, month, day) = (n(0..4), n(4..6), n(6..8));
    let (hour, minute, second) = (n(8..10), n(10..12), n(12..14));
    // The fields' ranges as strptime reads them; a day past its month's end (Feb 30) is
    // carried into the next month, as ssh-keygen's mktime does.
    let in_range = (1..=12).contains(&month)
        && (1..=31).contains(&day)
        && hour <= 23
        && minute <= 59
        && second <= 61;
    if !in_range {
        return Err(bad());
    }
    // Days since 1970-01-01 (Howard Hinnant's days_from_civil), for every year jiff's
    // timestamps stop short of (9999-12-31 among them).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let t = days * 86_400 + hour * 3_600 + minute * 60 + second;
    if t == 0 {
        return Err(bad());
    }
    Ok(t)
}

/// Whether `namespace` is allowed by a `namespaces` list: some pattern matches and no
/// negated one (`!pattern`) does; `*` and `?` are wildcards.
pub(super) fn namespace_allowed(namespace: &str, patterns: &[String]) -> bool {
    let mut allowed = false;
    for pattern in patterns {
        match pattern.strip_prefix('!') {
            Some(negated) if glob(namespace.as_bytes(), negated.as_bytes()) => return false,
            Some(_) => {}
            None => allowed |= glob(namespace.as_bytes(), pattern.as_bytes()),
        }
    }
    allowed
}

/// `*` and `?` wildcard matching, in time linear in the product of the lengths (no
/// backtracking blow-up on a hostile pattern).
fn glob(text: &[u8], pattern: &[u8]) -> bool {
    let (mut t, mut p) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && (pattern[p] == b'?' || pattern[p] == text[t]) {
            (t, p) = (t + 1, p + 1);
        } else if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, t));
            p += 1;
        } else if let Some((sp, st)) = star {
            (p, t) = (sp + 1, st + 1);
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespace_patterns_match_as_openssh_matches_them() {
        let list = |s: &str| s.split(',').map(str::to_string).collect::<Vec<_>>();
        for (patterns, allowed) in [
            ("coursegen-review", true),
            ("git,coursegen-review", true),
            ("coursegen-*", true),
            ("*", true),
            ("coursegen-revie?", true),
            ("coursegen-review,!coursegen-review", false),
            ("*,!coursegen-*", false),
            (" coursegen-review", false),
            ("coursegen-review ", false),
            ("git", false),
            ("!git", false),
        ] {
            assert_eq!(
                namespace_allowed("coursegen-review", &list(patterns)),
                allowed,
                "{patterns}"
            );
        }
    }

    #[test]
    fn times_reach_the_year_9999() {
        assert_eq!(timestamp("20260101Z"), Ok(1_767_225_600));
        assert_eq!(timestamp("20260101120030"), Ok(1_767_225_600 + 43_230));
        assert_eq!(timestamp("99991231Z"), Ok(253_402_214_400));
        assert!(timestamp("19700101Z").is_err());
        assert_eq!(timestamp("20260229Z"), timestamp("20260301Z"));
        for bad in ["20261301Z", "20260132Z", "202601012400Z", "2026-01-01"] {
            assert!(timestamp(bad).is_err(), "{bad}");
        }
        assert!(timestamp("2026010112").is_err());
    }
}
