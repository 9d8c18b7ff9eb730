//! The grammar of a prose binding, `{{% NAME [ROW…] [digits=N] [device=SLUG] %}}`: its names,
//! how many row labels each takes, and the parse of one binding's inside into a [`Binding`].

/// Why a binding could not be expanded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BindingErrorKind {
    /// Malformed: unclosed, unknown name or option, wrong number of rows, unknown row.
    Syntax,
    /// The kernel has no record yet, or its record lacks what the binding reads (hardware
    /// counters); the preview prints `NOT_MEASURED` instead.
    NotMeasured,
    /// Several GPUs have records and the binding does not say which, or names another.
    Device,
    /// The entry names no kernel (`measure:` missing from its front matter).
    NoKernel,
}

/// A binding's name, how many row labels it takes, and its default digits (`None`: not a
/// decimal number, so `digits=` is refused).
pub(super) struct Spec {
    pub(super) name: &'static str,
    pub(super) rows: usize,
    pub(super) digits: Option<usize>,
}

const fn spec(name: &'static str, rows: usize, digits: Option<usize>) -> Spec {
    Spec { name, rows, digits }
}

/// Every binding, in the order error messages list them.
pub(super) const SPECS: [Spec; 20] = [
    spec("ratio", 2, Some(2)),
    spec("time", 1, Some(3)),
    spec("bandwidth", 1, Some(1)),
    spec("limit", 1, Some(0)),
    spec("banks", 1, None),
    spec("degree", 1, None),
    spec("samples", 1, None),
    spec("spread", 1, Some(2)),
    spec("model", 1, None),
    spec("active", 1, None),
    spec("counter", 1, Some(2)),
    spec("gpu_spread", 1, Some(2)),
    spec("gpus", 0, None),
    spec("device", 0, None),
    spec("driver", 0, None),
    spec("cuda", 0, None),
    spec("nvrtc", 0, None),
    spec("clock", 0, Some(0)),
    spec("sms", 0, None),
    spec("date", 0, None),
];

/// A parsed binding.
pub(super) struct Binding<'a> {
    pub(super) spec: &'static Spec,
    pub(super) rows: Vec<&'a str>,
    pub(super) digits: Option<usize>,
    pub(super) device: Option<&'a str>,
}

/// An error's kind and message, before the line is known.
pub(super) type Failure = (BindingErrorKind, String);

/// A malformed-binding failure.
pub(super) fn syntax(message: String) -> Failure {
    (BindingErrorKind::Syntax, message)
}

/// Parses the inside of `{{% … %}}`, checking name, options and row count (not labels).
pub(super) fn parse(inner: &str) -> Result<Binding<'_>, Failure> {
    let mut words = inner.split_whitespace();
    let name = words.next().unwrap_or("");
    let Some(spec) = SPECS.iter().find(|s| s.name == name) else {
        let names: Vec<&str> = SPECS.iter().map(|s| s.name).collect();
        let hint = SPECS
            .iter()
            .map(|s| (strsim::levenshtein(s.name, name), s.name))
            .min()
            .filter(|(d, _)| *d <= 2)
            .map_or(String::new(), |(_, n)| format!("did you mean `{n}`? "));
        return Err(syntax(format!(
            "unknown binding `{name}`: {hint}bindings are {} (the guide's Bindings page lists them)",
            names.join(", ")
        )));
    };
    let mut binding = Binding {
        spec,
        rows: Vec::new(),
        digits: None,
        device: None,
    };
    for word in words {
        match word.split_once('=') {
            None => binding.rows.push(word),
            Some(("digits", n)) if spec.digits.is_some() => match n.parse::<usize>() {
                Ok(d) if d <= 6 => binding.digits = Some(d),
                _ => {
                    return Err(syntax(format!(
                        "digits must be a whole number 0 to 6, not `{n}`"
                    )));
                }
            },
            Some(("digits", _)) => {
                return Err(syntax(format!(
                    "`{name}` is not a decimal number, so it takes no digits="
                )));
            }
            Some(("device", slug)) => binding.device = Some(slug),
            Some((key, _)) => {
                return Err(syntax(format!(
                    "unknown option `{key}`: options are digits=N and device=SLUG"
                )));
            }
        }
    }
    if binding.rows.len() != spec.rows {
        let example = [
            "{{% device %}}",
            "{{% time 32L %}}",
            "{{% ratio 32L L digits=0 %}}",
        ][spec.rows];
        return Err(syntax(format!(
            "`{name}` takes {} row label(s), not {} (like `{example}`)",
            spec.rows,
            binding.rows.len()
        )));
    }
    Ok(binding)
}
