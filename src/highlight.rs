//! Code highlighting (placeholder until the highlighting work lands: no highlighting).

/// Highlighted inner HTML of a code block, or `None` when the language is not known.
pub fn highlight(_code: &str, _lang: &str) -> Option<String> {
    None
}
