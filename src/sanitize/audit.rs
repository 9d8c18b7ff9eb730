//! An auditor for rendered HTML, independent of ammonia: it reads tags the way a browser
//! tokenises them and lists anything that could run script. Tests use it to check that the
//! policy holds on whole pages, not only on the fragments ammonia saw.
use super::urls::decode_references;

/// `html` without what the site's own templates put on every page on purpose: the
/// Content-Security-Policy meta, the script files from `static/` (which content cannot
/// write), the inline theme snippet of `base_template` (`templates/base.html`, allowed by
/// its hash in the policy) and the search form. What remains is what content could have
/// placed, for [`active_content`] to audit.
pub fn without_site_chrome(html: &str, base_template: &str) -> String {
    let mut html = html
        .replace("<meta http-equiv=\"Content-Security-Policy\"", "<meta")
        .replace("<script src=\"/copy.js\" defer></script>", "")
        .replace("<script src=\"/site.js\" defer></script>", "")
        .replace("<form class=\"search\" role=\"search\"", "<div");
    if let Some(start) = base_template.find("<script>")
        && let Some(len) = base_template[start..].find("</script>")
    {
        html = html.replace(&base_template[start..start + len + "</script>".len()], "");
    }
    html
}

/// What in serialised HTML could run script or load and navigate on a reader's behalf:
/// script-like elements, event handlers and `style` attributes, executable URLs in any
/// attribute (character references decoded). Empty for every page coursegen writes (the
/// Content-Security-Policy meta aside); the hostile-corpus and fuzz tests audit with it.
pub fn active_content(html: &str) -> Vec<String> {
    let mut found = Vec::new();
    let lower = html.to_ascii_lowercase();
    let mut rest = lower.as_str();
    while let Some(start) = rest.find('<') {
        let tag_end = rest[start..]
            .find('>')
            .map_or(rest.len(), |e| start + e + 1);
        let tag = &rest[start..tag_end];
        rest = &rest[tag_end..];
        let name: String = tag[1..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        if [
            "script",
            "iframe",
            "object",
            "embed",
            "base",
            "form",
            "style",
            "foreignobject",
        ]
        .contains(&name.as_str())
        {
            found.push(tag.to_string());
        }
        if name == "meta" && tag.contains("refresh") {
            found.push(tag.to_string());
        }
        for attr in attributes(tag) {
            let (key, value) = attr;
            let value = decode_references(&value);
            let compact: String = value
                .chars()
                .filter(|c| !c.is_whitespace() && !c.is_control())
                .collect();
            if key.starts_with("on") || key == "style" || key == "formaction" {
                found.push(format!("{key}= in {tag}"));
            }
            for scheme in ["javascript:", "vbscript:", "data:text", "data:image/svg"] {
                if compact.starts_with(scheme) {
                    found.push(format!("{key}={value} in {tag}"));
                }
            }
        }
    }
    found
}

/// The attributes of one serialised tag: `name="value"`, `name='value'`, `name=value`, `name`.
fn attributes(tag: &str) -> Vec<(String, String)> {
    let inner = tag.trim_start_matches('<').trim_end_matches('>');
    let mut chars = inner.chars().peekable();
    while chars.peek().is_some_and(|c| !c.is_whitespace()) {
        chars.next(); // the tag name
    }
    let mut attrs = Vec::new();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace() || *c == '/') {
            chars.next();
        }
        let key: String =
            std::iter::from_fn(|| chars.next_if(|c| !c.is_whitespace() && *c != '=')).collect();
        if key.is_empty() {
            return attrs;
        }
        let mut value = String::new();
        if chars.next_if_eq(&'=').is_some() {
            match chars.peek().copied() {
                Some(q @ ('"' | '\'')) => {
                    chars.next();
                    value = std::iter::from_fn(|| chars.next_if(|c| *c != q)).collect();
                    chars.next();
                }
                _ => value = std::iter::from_fn(|| chars.next_if(|c| !c.is_whitespace())).collect(),
            }
        }
        attrs.push((key, value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_it_looks_for() {
        for bad in [
            "<script>x</script>",
            "<a href=\"javascript:x\">",
            "<a href=\"&#106;avascript&colon;x\">",
            "<a href=' java\tscript:x'>",
            "<img src=x onerror=alert(1)>",
            "<h2 ONFOCUS=\"x\">",
            "<div style=\"x\">",
            "<iframe src=\"/\">",
            "<img src=\"data:image/svg+xml;base64,AA\">",
        ] {
            assert!(!active_content(bad).is_empty(), "{bad}");
        }
        let fine = "<p>javascript:alert(1) &lt;script&gt; onclick=x</p><a href=\"/glossary/\" class=\"x\">";
        assert_eq!(active_content(fine), Vec::<String>::new());
    }
}
