//! A fence's info string read into options: the language, an include (`file=`, `lines=`,
//! `region=`), and line numbers and highlighted lines (`{linenos hl_lines=3-5}`, the forms
//! Zola and Hugo accept). Uses no other module of ours.

/// What a fence's info string asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FenceInfo {
    /// The language word (`cuda`), empty when none.
    pub(crate) lang: String,
    /// `file=PATH`: include part of a file under the site root instead of the fence's body.
    pub(crate) file: Option<String>,
    /// `lines=A-B` (1-based, inclusive; `A` alone or `A-` to the end).
    pub(crate) lines: Option<(usize, Option<usize>)>,
    /// `region=NAME`: the lines between `[region NAME]` and `[end NAME]` markers.
    pub(crate) region: Option<String>,
    /// `linenos`: number the lines.
    pub(crate) linenos: bool,
    /// `hl_lines=3-5 8`: lines to mark, by the numbers shown (file lines for an include).
    pub(crate) hl_lines: Vec<(usize, usize)>,
}

/// The option names a fence takes, for "did you mean" and the error's list.
const KEYS: [&str; 5] = ["file", "lines", "region", "linenos", "hl_lines"];

/// Why an info string cannot be read; `Display` is the message the check stage reports,
/// which says how to write the option.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum FenceError {
    /// A `key=value` option the fence does not take, with the option it is a typo of.
    #[error(
        "unknown code-block option `{key}`{}; the options are {}",
        did_you_mean(.suggestion),
        KEYS.join(", ")
    )]
    UnknownOption {
        /// As written.
        key: String,
        /// The option one edit away, if any.
        suggestion: Option<&'static str>,
    },
    /// `file=` or `region=` without a value.
    #[error("`{key}=` needs a value")]
    NoValue {
        /// The option.
        key: String,
    },
    /// `lines=` that is not a range of 1-based line numbers.
    #[error("`lines={value}` is not a line range: write `lines=40-62`, `lines=40` or `lines=40-`")]
    NotARange {
        /// The value as written.
        value: String,
    },
    /// `lines=B-A` with `A` before `B`.
    #[error("`lines={value}` ends before it starts")]
    Backwards {
        /// The value as written.
        value: String,
    },
    /// An `hl_lines` entry that is not a line number or a closed range.
    #[error("`hl_lines` takes line numbers and ranges such as `hl_lines=3-5 8`, not `{value}`")]
    NotHlLines {
        /// The entry as written.
        value: String,
    },
    /// Both `lines=` and `region=`.
    #[error("`lines=` and `region=` both pick the lines to show: keep one")]
    LinesAndRegion,
    /// `lines=` or `region=` without `file=`.
    #[error("`lines=` and `region=` need `file=PATH` to say which file")]
    NoFile,
}

fn did_you_mean(suggestion: &Option<&str>) -> String {
    suggestion.map_or_else(String::new, |k| format!(" (did you mean `{k}`?)"))
}

impl FenceInfo {
    /// Reads an info string; the error says which option is wrong and how to write it.
    pub(crate) fn parse(info: &str) -> Result<FenceInfo, FenceError> {
        let mut out = FenceInfo::default();
        // Zola writes `rust,linenos,hl_lines=1 3-5`; Hugo `go {linenos=true,hl_lines=[2,"4-6"]}`.
        let cleaned: String = info
            .chars()
            .map(|c| match c {
                '{' | '}' | ',' | '[' | ']' | '"' => ' ',
                c => c,
            })
            .collect();
        let mut words = cleaned.split_whitespace().peekable();
        let first_braced = info.trim_start().starts_with('{');
        if !first_braced && let Some(&w) = words.peek().filter(|w| !w.contains('=')) {
            out.lang = w.to_string();
            words.next();
        }
        let mut last_key = "";
        while let Some(word) = words.next() {
            let (key, value) = word.split_once('=').unwrap_or((word, ""));
            match key {
                "file" => out.file = Some(nonempty(key, value)?.to_string()),
                "lines" => out.lines = Some(line_range(value)?),
                "region" => out.region = Some(nonempty(key, value)?.to_string()),
                "linenos" => {
                    out.linenos = !matches!(value, "false" | "no");
                }
                "hl_lines" => {
                    if !value.is_empty() || words.peek().is_none_or(|w| !is_range(w)) {
                        out.hl_lines.push(closed_range(value)?);
                    }
                    // Zola separates ranges with spaces: `hl_lines=1 3-5 9`.
                    while let Some(more) = words.next_if(|w| !w.contains('=') && is_range(w)) {
                        out.hl_lines.push(closed_range(more)?);
                    }
                }
                _ if value.is_empty() && last_key == "hl_lines" && is_range(key) => {
                    out.hl_lines.push(closed_range(key)?)
                }
                // Bare words (`ignore`, `.class`) are other tools' flags: let them be.
                _ if value.is_empty() => {}
                _ => {
                    return Err(FenceError::UnknownOption {
                        key: key.to_string(),
                        suggestion: KEYS.iter().find(|k| close(k, key)).copied(),
                    });
                }
            }
            last_key = key;
        }
        if out.lines.is_some() && out.region.is_some() {
            return Err(FenceError::LinesAndRegion);
        }
        if out.file.is_none() && (out.lines.is_some() || out.region.is_some()) {
            return Err(FenceError::NoFile);
        }
        Ok(out)
    }
}

fn nonempty<'a>(key: &str, value: &'a str) -> Result<&'a str, FenceError> {
    if value.is_empty() {
        Err(FenceError::NoValue {
            key: key.to_string(),
        })
    } else {
        Ok(value)
    }
}

fn is_range(w: &str) -> bool {
    !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit() || b == b'-')
}

/// `A`, `A-B` or `A-` (to the end), 1-based; `B` must not be before `A`.
fn line_range(value: &str) -> Result<(usize, Option<usize>), FenceError> {
    let bad = || FenceError::NotARange {
        value: value.to_string(),
    };
    let num = |s: &str| s.parse::<usize>().ok().filter(|&n| n > 0);
    let (a, b) = match value.split_once('-') {
        Some((a, "")) => (num(a).ok_or_else(bad)?, None),
        Some((a, b)) => (num(a).ok_or_else(bad)?, Some(num(b).ok_or_else(bad)?)),
        None => {
            let a = num(value).ok_or_else(bad)?;
            (a, Some(a))
        }
    };
    if b.is_some_and(|b| b < a) {
        return Err(FenceError::Backwards {
            value: value.to_string(),
        });
    }
    Ok((a, b))
}

fn closed_range(value: &str) -> Result<(usize, usize), FenceError> {
    match line_range(value) {
        Ok((a, Some(b))) => Ok((a, b)),
        _ => Err(FenceError::NotHlLines {
            value: value.to_string(),
        }),
    }
}

/// One edit apart (a typo), for "did you mean".
fn close(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len().abs_diff(b.len()) > 1 {
        return false;
    }
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let swapped = a.len() == b.len() && {
        let (mut x, mut y) = (a.to_vec(), b.to_vec());
        x.sort_unstable();
        y.sort_unstable();
        x == y
    };
    swapped || a.len().max(b.len()) - prefix - suffix.min(a.len().min(b.len()) - prefix) <= 1
}

#[cfg(test)]
mod tests {
    use super::FenceInfo;

    #[track_caller]
    fn case(info: &str, want: FenceInfo) {
        assert_eq!(FenceInfo::parse(info), Ok(want), "{info:?}");
    }

    #[track_caller]
    fn error(info: &str, want: &str) {
        let err = FenceInfo::parse(info).expect_err(info).to_string();
        assert!(err.contains(want), "{info:?}: {err}");
    }

    fn lang(l: &str) -> FenceInfo {
        FenceInfo {
            lang: l.into(),
            ..FenceInfo::default()
        }
    }

    #[test]
    fn info_strings() {
        case("", lang(""));
        case("cuda", lang("cuda"));
        case("py,ignore", lang("py"));
        case(
            "cuda file=kernels/k.cu lines=40-62",
            FenceInfo {
                file: Some("kernels/k.cu".into()),
                lines: Some((40, Some(62))),
                ..lang("cuda")
            },
        );
        case(
            "cuda file=k.cu region=timed-loop {linenos}",
            FenceInfo {
                file: Some("k.cu".into()),
                region: Some("timed-loop".into()),
                linenos: true,
                ..lang("cuda")
            },
        );
        case(
            "c file=k.c lines=7-",
            FenceInfo {
                file: Some("k.c".into()),
                lines: Some((7, None)),
                ..lang("c")
            },
        );
        // Zola's and Hugo's spellings.
        for info in [
            "rust {linenos hl_lines=3-5 8}",
            "rust,linenos,hl_lines=3-5 8",
            "rust {linenos=true,hl_lines=[\"3-5\",8]}",
        ] {
            case(
                info,
                FenceInfo {
                    linenos: true,
                    hl_lines: vec![(3, 5), (8, 8)],
                    ..lang("rust")
                },
            );
        }
        case(
            "{linenos=false}",
            FenceInfo {
                linenos: false,
                ..lang("")
            },
        );
    }

    #[test]
    fn bad_info_strings_say_what_to_write() {
        error("cuda lines=40-62", "need `file=PATH`");
        error("cuda file=k.cu lines=62-40", "ends before it starts");
        error("cuda file=k.cu lines=x", "write `lines=40-62`");
        error("cuda file=k.cu lines=0-3", "not a line range");
        error("cuda file=k.cu lines=1-3 region=a", "keep one");
        error("cuda file=", "`file=` needs a value");
        error("cuda fiel=k.cu", "did you mean `file`?");
        error("cuda hl_line=3", "did you mean `hl_lines`?");
        error("cuda hl_lines=a", "hl_lines=3-5 8");
    }

    /// The whole message of each error, word for word: the check stage shows it to authors.
    #[test]
    fn each_error_reads_as_it_always_has() {
        for (info, message) in [
            (
                "cuda fiel=k.cu",
                "unknown code-block option `fiel` (did you mean `file`?); the options are file, lines, region, linenos, hl_lines",
            ),
            (
                "cuda colour=red",
                "unknown code-block option `colour`; the options are file, lines, region, linenos, hl_lines",
            ),
            ("cuda region=", "`region=` needs a value"),
            (
                "cuda file=k.cu lines=x-3",
                "`lines=x-3` is not a line range: write `lines=40-62`, `lines=40` or `lines=40-`",
            ),
            (
                "cuda file=k.cu lines=9-2",
                "`lines=9-2` ends before it starts",
            ),
            (
                "cuda hl_lines=4-",
                "`hl_lines` takes line numbers and ranges such as `hl_lines=3-5 8`, not `4-`",
            ),
            (
                "cuda file=k.cu lines=1 region=a",
                "`lines=` and `region=` both pick the lines to show: keep one",
            ),
            (
                "cuda region=a",
                "`lines=` and `region=` need `file=PATH` to say which file",
            ),
        ] {
            let err = FenceInfo::parse(info).expect_err(info);
            assert_eq!(err.to_string(), message, "{info:?}");
        }
    }
}
