//! SVG files under `content/` are checked, not rewritten: an SVG opened on its own is a
//! document that runs its scripts, so one is published only when every element and
//! attribute is on an allowlist of drawing features. Refusing (with the line) rather than
//! silently rewriting means the published file is byte for byte the one the reviewer saw.
use super::urls::url_allowed;

/// One reason an SVG is refused, at a 1-based line of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SvgProblem {
    /// Line in the file.
    pub(crate) line: u32,
    /// What is not allowed, and what to do instead.
    pub(crate) message: String,
}

const SVG_NS: &str = "http://www.w3.org/2000/svg";
const XLINK_NS: &str = "http://www.w3.org/1999/xlink";
const XML_NS: &str = "http://www.w3.org/XML/1998/namespace";

/// Namespaces drawing editors write metadata in; browsers neither render nor run them.
const EDITOR_NS: &[&str] = &[
    "http://www.inkscape.org/namespaces/inkscape",
    "http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd",
    "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "http://purl.org/dc/elements/1.1/",
    "http://creativecommons.org/ns#",
    "http://web.resource.org/cc/",
];

/// SVG elements that draw, group, describe or animate; `script`, `foreignObject` (which
/// embeds HTML) and anything unknown are refused.
const ELEMENTS: &[&str] = &[
    "a",
    "animate",
    "animateMotion",
    "animateTransform",
    "circle",
    "clipPath",
    "defs",
    "desc",
    "ellipse",
    "feBlend",
    "feColorMatrix",
    "feComponentTransfer",
    "feComposite",
    "feConvolveMatrix",
    "feDiffuseLighting",
    "feDisplacementMap",
    "feDistantLight",
    "feDropShadow",
    "feFlood",
    "feFuncA",
    "feFuncB",
    "feFuncG",
    "feFuncR",
    "feGaussianBlur",
    "feImage",
    "feMerge",
    "feMergeNode",
    "feMorphology",
    "feOffset",
    "fePointLight",
    "feSpecularLighting",
    "feSpotLight",
    "feTile",
    "feTurbulence",
    "filter",
    "g",
    "image",
    "line",
    "linearGradient",
    "marker",
    "mask",
    "metadata",
    "mpath",
    "path",
    "pattern",
    "polygon",
    "polyline",
    "radialGradient",
    "rect",
    "set",
    "stop",
    "style",
    "svg",
    "switch",
    "symbol",
    "text",
    "textPath",
    "title",
    "tspan",
    "use",
    "view",
];

/// Checks one SVG file's text; an empty list means it may be published as it is.
pub(crate) fn check_svg(text: &str) -> Vec<SvgProblem> {
    let mut problems = Vec::new();
    if let Some(at) = text.find("<!ENTITY") {
        problems.push(SvgProblem {
            line: line_of(text, at),
            message: "entity declarations are not allowed in SVG files: export the drawing \
                      again as plain SVG"
                .into(),
        });
        return problems;
    }
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        nodes_limit: 1_000_000,
        ..Default::default()
    };
    let doc = match roxmltree::Document::parse_with_options(text, options) {
        Ok(doc) => doc,
        Err(e) => {
            problems.push(SvgProblem {
                line: e.pos().row,
                message: format!("not well-formed XML: {e}"),
            });
            return problems;
        }
    };
    for node in doc.descendants() {
        let line = doc.text_pos_at(node.range().start).row;
        let mut refuse = |message: String| problems.push(SvgProblem { line, message });
        if node.is_pi() {
            refuse(
                "processing instructions (`<?xml-stylesheet …?>`) are not allowed: they load \
                 style sheets and transforms from elsewhere"
                    .into(),
            );
        }
        if node.is_element() {
            check_element(node, &mut refuse);
        }
    }
    problems
}

fn check_element(node: roxmltree::Node<'_, '_>, refuse: &mut impl FnMut(String)) {
    let name = node.tag_name();
    let local = name.name();
    match name.namespace() {
        Some(SVG_NS) if ELEMENTS.contains(&local) => {}
        Some(ns) if EDITOR_NS.contains(&ns) => {}
        Some(SVG_NS) => refuse(format!(
            "<{local}> is not allowed in SVG files (only drawing elements are: no scripts, no \
             embedded HTML)"
        )),
        ns => refuse(format!(
            "<{local}> in namespace {} is not allowed: SVG files may hold SVG and editor \
             metadata only",
            ns.unwrap_or("(none)")
        )),
    }
    for attr in node.attributes() {
        let (attr_name, value) = (attr.name(), attr.value());
        match attr.namespace() {
            None | Some(XLINK_NS) | Some(XML_NS) => {}
            Some(ns) if EDITOR_NS.contains(&ns) => continue,
            Some(ns) => {
                refuse(format!(
                    "attribute `{attr_name}` in namespace {ns} is not allowed"
                ));
                continue;
            }
        }
        if attr_name.len() > 2 && attr_name[..2].eq_ignore_ascii_case("on") {
            refuse(format!(
                "event-handler attribute `{attr_name}` is not allowed: SVG files may not run \
                 code"
            ));
        } else if attr_name == "href" {
            if let Err(why) = check_href(local, value) {
                refuse(why);
            }
        } else if attr_name == "attributeName"
            && (value.to_ascii_lowercase().ends_with("href")
                || value.to_ascii_lowercase().starts_with("on"))
        {
            refuse(format!(
                "<{local}> may not animate `{value}`: animating links and handlers can make \
                 script"
            ));
        }
        if let Err(why) = check_css(value) {
            refuse(format!("attribute `{attr_name}`: {why}"));
        }
    }
    if local == "style" {
        let css: String = node.children().filter_map(|c| c.text()).collect();
        if let Err(why) = check_css(&css) {
            refuse(format!("<style>: {why}"));
        }
    }
}

/// `href` (or `xlink:href`): links may go where pages may link; everything else must point
/// inside the file, except images, which may also show a relative file or an inline bitmap.
fn check_href(element: &str, value: &str) -> Result<(), String> {
    let value = value.trim();
    if value.starts_with('#') {
        return Ok(());
    }
    if element == "a" {
        return if url_allowed(value) {
            Ok(())
        } else {
            Err(format!(
                "link `{value}` is not allowed: links may be http, https, mailto or relative"
            ))
        };
    }
    let lower = value.to_ascii_lowercase();
    let bitmap = ["png", "jpeg", "gif", "webp"]
        .iter()
        .any(|t| lower.starts_with(&format!("data:image/{t};base64,")));
    let relative = url_allowed(value) && !value.contains(':') && !value.starts_with("//");
    if matches!(element, "image" | "feImage") && (bitmap || relative) {
        return Ok(());
    }
    Err(format!(
        "<{element}> refers to `{}`: only references inside the file (`#id`) are allowed \
         (images may also use a relative file or a base64 PNG, JPEG, GIF or WebP)",
        value.chars().take(60).collect::<String>()
    ))
}

/// CSS (a `style` attribute, a `<style>` element, or any attribute that takes `url(…)`):
/// no imports, no escapes that could spell them, and `url()` only to `#id`s in the file.
fn check_css(css: &str) -> Result<(), String> {
    let lower: String = css
        .to_ascii_lowercase()
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    for bad in [
        "@import",
        "\\",
        "expression(",
        "javascript:",
        "-moz-binding",
        "behavior:",
    ] {
        if lower.contains(bad) {
            return Err(format!("CSS with `{bad}` is not allowed"));
        }
    }
    for (i, _) in lower.match_indices("url(") {
        let target = lower[i + 4..].trim_start_matches(['"', '\'']);
        if !target.starts_with('#') {
            return Err(
                "`url(…)` may only point inside the file (`url(#id)`), not load anything".into(),
            );
        }
    }
    Ok(())
}

fn line_of(text: &str, at: usize) -> u32 {
    let lines = text.as_bytes()[..at]
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    u32::try_from(lines + 1).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn svg(inner: &str) -> String {
        format!(
            "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" \
             xmlns:xlink=\"http://www.w3.org/1999/xlink\" viewBox=\"0 0 10 10\">\n{inner}\n</svg>\n"
        )
    }

    /// Asserts that `inner`, inside an SVG, is refused with a message containing `needle`.
    #[track_caller]
    fn refused(inner: &str, needle: &str) {
        let problems = check_svg(&svg(inner));
        assert!(
            problems.iter().any(|p| p.message.contains(needle)),
            "{inner:?}: {problems:?}"
        );
        assert!(problems.iter().all(|p| p.line == 3), "{problems:?}");
    }

    #[test]
    fn drawings_pass() {
        let ok = svg(concat!(
            "<defs><linearGradient id=\"g\"><stop offset=\"0\" stop-color=\"red\"/></linearGradient></defs>",
            "<style>.a { fill: url(#g); }</style>",
            "<rect class=\"a\" width=\"5\" height=\"5\" style=\"stroke: black; fill: url('#g')\"/>",
            "<use xlink:href=\"#g\"/><a href=\"https://e.org/\"><text>e</text></a>",
            "<image href=\"photo.png\"/><image href=\"data:image/png;base64,iVBOR\"/>",
            "<animateTransform attributeName=\"transform\" type=\"rotate\" from=\"0\" to=\"90\" dur=\"1s\"/>",
        ));
        assert_eq!(check_svg(&ok), []);
        let inkscape = "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:inkscape=\"http://www.inkscape.org/namespaces/inkscape\" xmlns:sodipodi=\"http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd\"><sodipodi:namedview inkscape:zoom=\"1\"/><g inkscape:label=\"Layer 1\"><path d=\"M0 0\"/></g></svg>";
        assert_eq!(check_svg(inkscape), []);
        let doctype = "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>";
        assert_eq!(check_svg(doctype), []);
    }

    #[test]
    fn active_content_is_refused() {
        refused("<script>alert(1)</script>", "<script> is not allowed");
        refused(
            "<rect onload=\"alert(1)\"/>",
            "event-handler attribute `onload`",
        );
        refused(
            "<rect ONCLICK=\"alert(1)\"/>",
            "event-handler attribute `ONCLICK`",
        );
        refused(
            "<a href=\"javascript:alert(1)\"><text>x</text></a>",
            "link `javascript:alert(1)`",
        );
        refused("<a xlink:href=\" JaVaScript:alert(1)\"/>", "link");
        refused("<foreignObject><p>x</p></foreignObject>", "<foreignObject>");
        refused(
            "<html:script xmlns:html=\"http://www.w3.org/1999/xhtml\">alert(1)</html:script>",
            "namespace http://www.w3.org/1999/xhtml",
        );
        refused(
            "<use href=\"https://evil.example/x.svg#a\"/>",
            "only references inside",
        );
        refused(
            "<image href=\"http://evil.example/t.png\"/>",
            "only references inside",
        );
        refused(
            "<image href=\"data:image/svg+xml;base64,PHN2Zz4=\"/>",
            "only references inside",
        );
        refused(
            "<set attributeName=\"href\" to=\"javascript:alert(1)\"/>",
            "may not animate",
        );
        refused(
            "<animate attributeName=\"xlink:href\" values=\"javascript:x\"/>",
            "may not animate",
        );
        refused(
            "<style>@import url(https://evil.example/x.css);</style>",
            "@import",
        );
        refused(
            "<rect style=\"fill: url(https://evil.example/p)\"/>",
            "url(",
        );
        refused("<rect fill=\"url(http://evil.example/#g)\"/>", "url(");
        refused("<style>rect { background: u\\72l(x) }</style>", "`\\`");
        refused("<rect xmlns:x=\"urn:x\" x:y=\"1\"/>", "namespace urn:x");
    }

    #[test]
    fn documents_that_hide_content_are_refused() {
        let entity = "<?xml version=\"1.0\"?>\n<!DOCTYPE svg [\n<!ENTITY a \"b\">\n]>\n<svg xmlns=\"http://www.w3.org/2000/svg\">&a;</svg>";
        assert_eq!(check_svg(entity)[0].line, 3);
        let pi = svg("<?xml-stylesheet href=\"x.xsl\" type=\"text/xsl\"?>");
        assert!(
            check_svg(&pi)[0]
                .message
                .contains("processing instructions")
        );
        let broken = check_svg("<svg xmlns=\"http://www.w3.org/2000/svg\">\n<rect>\n</svg>");
        assert_eq!(broken[0].line, 3, "{broken:?}");
        assert!(broken[0].message.contains("not well-formed"));
    }
}
