//! Structure of a Markdown body that stages before rendering need (cutting sections,
//! expanding bindings): which lines belong to fenced code blocks, where nothing is touched.

/// Each line of `body` (newline included) and whether it is part of a fenced code block,
/// fence lines included.
pub(crate) fn fenced_lines(body: &str) -> impl Iterator<Item = (&str, bool)> {
    let mut fence: Option<&'static str> = None;
    body.split_inclusive('\n').map(move |line| {
        let marker = ["```", "~~~"]
            .into_iter()
            .find(|m| line.trim_start().starts_with(m));
        let in_code = fence.is_some() || marker.is_some();
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(f), Some(m)) if f == m => fence = None,
            _ => {}
        }
        (line, in_code)
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn fences_of_either_kind_close_only_on_their_own_marker() {
        let body = "a\n```\nb\n~~~\n```\nc\n~~~x\nd\n~~~\n";
        let code: Vec<bool> = super::fenced_lines(body).map(|(_, c)| c).collect();
        assert_eq!(
            code,
            [false, true, true, true, true, false, true, true, true]
        );
    }
}
