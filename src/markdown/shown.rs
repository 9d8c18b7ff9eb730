//! What a body shows from the repository, found without converting it: the files its code
//! blocks include (`file=`, the path as the include resolves it) and the images it embeds
//! (Markdown images and `<img src>` in raw HTML, as site paths resolved against the page's
//! URL). The review pin (`editorial::policy::pin`) hashes those files, so a signed page is
//! all of what was reviewed.
use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag};

use crate::highlight::fence::FenceInfo;
use crate::highlight::include;

/// One thing a body shows from the repository.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Reference {
    /// A code block's `file=`: a path from the site root, as the include reads it.
    Include(String),
    /// An image: the site path it resolves to (`/glossary/warp.svg`).
    Image(String),
}

/// Whether `body` may show anything from the repository: a fence, an image or raw HTML.
/// A body without any of the three is not parsed (most entries of a large course).
fn may_show(body: &str) -> bool {
    body.contains("```") || body.contains("~~~") || body.contains("![") || body.contains('<')
}

/// Everything `body`, shown at `page_url`, takes from the repository, sorted, each once.
/// Includes that the include check refuses, and images that leave the site, are left out:
/// the check stage reports the first, and the second are not the repository's.
pub(crate) fn references(body: &str, page_url: &str) -> Vec<Reference> {
    if !may_show(body) {
        return Vec::new();
    }
    let mut found = Vec::new();
    let mut html = String::new();
    for event in Parser::new_ext(body, super::options()) {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                let file = FenceInfo::parse(&info).ok().and_then(|i| i.file);
                if let Some(path) = file.and_then(|f| include::normalise(&f).ok()) {
                    found.push(Reference::Include(path));
                }
            }
            Event::Start(Tag::Image { dest_url, .. }) => {
                found.extend(super::site_path(page_url, &dest_url).map(Reference::Image));
            }
            Event::Html(h) | Event::InlineHtml(h) => html.push_str(&h),
            _ => {}
        }
    }
    if !html.is_empty() && crate::sanitize::too_many_attributes(&html).is_none() {
        let sources = crate::sanitize::image_sources(&html);
        found.extend(
            (sources.iter())
                .filter_map(|src| super::site_path(page_url, src))
                .map(Reference::Image),
        );
    }
    found.sort();
    found.dedup();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn includes_and_images_of_every_spelling_are_found() {
        let body = "Text ![warp](warp.svg) and ![up](../lane.png \"t\").\n\n\
            ```cuda file=kernels/k.cu lines=1-3\n```\n\n\
            ```py fil&#101;=kernels/h.py\n```\n\n\
            [^n]: note\n\n    ```c file=./kernels/k.cu\n    ```\n\n\
            <p><IMG/src=\"/static/a.png\"><img src='b&#46;png'></p>\n\n\
            ![out](https://example.org/x.png) ```\n";
        let got = references(body, "/glossary/warp/");
        assert_eq!(
            got,
            vec![
                Reference::Include("kernels/h.py".into()),
                Reference::Include("kernels/k.cu".into()),
                Reference::Image("/glossary/lane.png".into()),
                Reference::Image("/glossary/warp/b.png".into()),
                Reference::Image("/glossary/warp/warp.svg".into()),
                Reference::Image("/static/a.png".into()),
            ]
        );
    }

    #[test]
    fn refused_includes_and_plain_text_show_nothing() {
        let body = "```c file=../secret.c\n```\n\n```c file=.git/config\n```\n";
        assert!(references(body, "/a/").is_empty());
        assert!(references("Just prose about file=x.cu.", "/a/").is_empty());
    }
}
