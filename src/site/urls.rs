//! Where the site lives, so that a site built for a sub-path (`https://user.github.io/course/`)
//! links only within it. [`Urls`] is the one place a page's URL is made from the base path:
//! the renderer makes it from the config and hands it on. Templates write every site-absolute
//! URL as `{{ root }}path` with its [`Urls::root`] (page contexts carry site paths and their
//! `href`s from [`Urls::page`]); navigation, the feed, `llms.txt`, the sitemap, the
//! provenance's page list and content links written site-absolute (`/glossary/warp/`,
//! moved by `content_html`) ask it too.
use std::borrow::Cow;

use crate::config::Config;

/// The site's base path and public address, as everything that writes a link uses them.
#[derive(Clone, Copy)]
pub(crate) struct Urls<'a> {
    config: &'a Config,
}

impl<'a> Urls<'a> {
    /// The URLs of a build with this config.
    pub(crate) fn new(config: &'a Config) -> Self {
        Urls { config }
    }

    /// The base path with a trailing slash (`/`, or `/course/` under a sub-path): what every
    /// template writes a site-absolute URL with (`{{ root }}style.css`).
    pub(crate) fn root(&self) -> &'a str {
        &self.config.root
    }

    /// A site path (`/glossary/warp/`) as a link writes it (`/course/glossary/warp/`): what
    /// templates get as `href` beside each `url`.
    pub(crate) fn page(&self, path: &str) -> String {
        format!("{}{}", self.config.root, path.trim_start_matches('/'))
    }

    /// A site path as an absolute address (sitemap, `og:image`, the feed's ids), when the
    /// address is known.
    pub(crate) fn absolute(&self, path: &str) -> Option<String> {
        let base = self.config.base_url.as_deref()?;
        Some(format!("{}{}", origin(base), self.page(path)))
    }

    /// A site path as feeds and `llms.txt` print it: absolute when the site has a public
    /// address, else as a link writes it.
    pub(crate) fn address(&self, path: &str) -> String {
        self.absolute(path).unwrap_or_else(|| self.page(path))
    }

    /// Moves the site-absolute `href` and `src` values of rendered content under the base
    /// path, leaving relative, external and `links.external_prefixes` URLs as written. The
    /// HTML is our renderer's (attribute values double-quoted, text escaped), so a `="/`
    /// can only start an attribute value.
    pub(crate) fn content_html<'h>(&self, html: &'h str) -> Cow<'h, str> {
        let root = self.config.root.trim_end_matches('/');
        if root.is_empty() || !html.contains("=\"/") {
            return Cow::Borrowed(html);
        }
        let mut out = String::with_capacity(html.len() + 256);
        let mut rest = html;
        while let Some(i) = rest.find("=\"/") {
            let value = i + 2;
            out.push_str(&rest[..value]);
            let url = &rest[value..rest[value..].find('"').map_or(rest.len(), |e| value + e)];
            if crate::markdown::is_link_attribute(&rest[..i])
                && !url.starts_with("//")
                && !self.config.is_external(url)
            {
                out.push_str(root);
            }
            rest = &rest[value..];
        }
        out.push_str(rest);
        Cow::Owned(out)
    }
}

impl Urls<'_> {
    /// [`Urls::content_html`] for a Markdown copy of a page (`index.md`): the site-absolute
    /// destinations of inline links, images and link definitions, and the `href`/`src`
    /// values of raw HTML — `site_paths`, found where the check stage parsed `md`
    /// ([`crate::markdown::Rendered::site_paths`]) — move under the base path. Code spans
    /// and blocks stay as written.
    pub(crate) fn content_markdown<'m>(
        &self,
        md: &'m str,
        site_paths: &[(usize, String)],
    ) -> Cow<'m, str> {
        let root = self.config.root.trim_end_matches('/');
        let moves = (site_paths.iter()).filter(|(_, url)| !self.config.is_external(url));
        if root.is_empty() || moves.clone().next().is_none() {
            return Cow::Borrowed(md);
        }
        let mut out = String::with_capacity(md.len() + site_paths.len() * root.len());
        let mut last = 0;
        for (i, _) in moves {
            out.push_str(&md[last..*i]);
            out.push_str(root);
            last = *i;
        }
        out.push_str(&md[last..]);
        Cow::Owned(out)
    }
}

/// `https://example.org/course/` → `https://example.org` (the path is the base path).
fn origin(base: &str) -> &str {
    let after_scheme = base.find("://").map_or(0, |i| i + 3);
    match base[after_scheme..].find('/') {
        Some(slash) => &base[..after_scheme + slash],
        None => base,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(root: &str) -> Config {
        let mut c = Config::default();
        if root != "/" {
            c.override_base_url(&format!("https://example.org{root}"))
                .unwrap();
        }
        c.external_prefixes = vec!["/docs".into()];
        c
    }

    #[test]
    fn content_links_move_under_the_base_path() {
        let cases = [
            (
                "<a href=\"/glossary/warp/\">w</a>",
                "<a href=\"/course/glossary/warp/\">w</a>",
            ),
            (
                "<img src=\"/img/a.png\" alt=\"a\">",
                "<img src=\"/course/img/a.png\" alt=\"a\">",
            ),
            ("<a href=\"/\">home</a>", "<a href=\"/course/\">home</a>"),
            (
                "<a href=\"../warp/\">w</a> <img src=\"a.png\">",
                "<a href=\"../warp/\">w</a> <img src=\"a.png\">",
            ),
            (
                "<a href=\"https://e.org/x\">x</a>",
                "<a href=\"https://e.org/x\">x</a>",
            ),
            (
                "<a href=\"//cdn.example/x\">x</a>",
                "<a href=\"//cdn.example/x\">x</a>",
            ),
            (
                "<a href=\"/docs/api/\">d</a>",
                "<a href=\"/docs/api/\">d</a>",
            ),
            (
                "<a href=\"/docsets/\">d</a>",
                "<a href=\"/course/docsets/\">d</a>",
            ),
            ("<a href=\"#fn1\">1</a>", "<a href=\"#fn1\">1</a>"),
            // Not an attribute: escaped text and other attributes stay as written.
            (
                "<code>href=&quot;/x&quot;</code>",
                "<code>href=&quot;/x&quot;</code>",
            ),
            (
                "<span title=\"/x\" data-href=\"/y\">t</span>",
                "<span title=\"/x\" data-href=\"/y\">t</span>",
            ),
            (
                "<p><a href=\"/a/\">a</a>\n<a class=\"x\" href=\"/b/#c\">b</a></p>",
                "<p><a href=\"/course/a/\">a</a>\n<a class=\"x\" href=\"/course/b/#c\">b</a></p>",
            ),
        ];
        let c = config("/course/");
        let urls = Urls::new(&c);
        for (html, want) in cases {
            assert_eq!(urls.content_html(html), want, "{html}");
        }
        let root = config("/");
        for (html, _) in cases {
            assert_eq!(
                Urls::new(&root).content_html(html),
                html,
                "at the domain root"
            );
        }
    }

    #[test]
    fn pages_and_absolute_addresses() {
        let c = config("/course/");
        let urls = Urls::new(&c);
        assert_eq!(urls.page("/glossary/warp/"), "/course/glossary/warp/");
        assert_eq!(urls.page("/"), "/course/");
        assert_eq!(
            urls.absolute("/glossary/warp/diagram.png").as_deref(),
            Some("https://example.org/course/glossary/warp/diagram.png")
        );
        assert_eq!(
            urls.address("/feed.xml"),
            "https://example.org/course/feed.xml"
        );
        let c = config("/");
        assert_eq!(Urls::new(&c).page("/glossary/"), "/glossary/");
        assert_eq!(Urls::new(&c).absolute("/x"), None);
        assert_eq!(Urls::new(&c).address("/glossary/warp/"), "/glossary/warp/");
        let mut c = Config::default();
        c.override_base_url("https://example.org").unwrap();
        assert_eq!(Urls::new(&c).address("/"), "https://example.org/");
        let mut c = Config::default();
        c.override_base_url("https://example.org:8080/a/b").unwrap();
        let urls = Urls::new(&c);
        assert_eq!(urls.root(), "/a/b/");
        assert_eq!(urls.address("/x/"), "https://example.org:8080/a/b/x/");
    }

    #[test]
    fn markdown_copies_link_under_the_base_path() {
        let cases = [
            ("[w](/glossary/warp/)", "[w](/course/glossary/warp/)"),
            ("![t](/img/t.png \"/x\")", "![t](/course/img/t.png \"/x\")"),
            ("[/a/](/a/)", "[/a/](/course/a/)"),
            ("[w](</a b/>)", "[w](</course/a b/>)"),
            (
                "[w][r]\n\n[r]: /glossary/",
                "[w][r]\n\n[r]: /course/glossary/",
            ),
            ("<a href=\"/g/\">g</a>", "<a href=\"/course/g/\">g</a>"),
            (
                "x <img src=\"/t.png\"> y",
                "x <img src=\"/course/t.png\"> y",
            ),
            // Left as written: relative, external prefixes, other hosts, code.
            (
                "[w](../warp/) [d](/docs/api/)",
                "[w](../warp/) [d](/docs/api/)",
            ),
            (
                "[c](//cdn.example/x) [h](https://e.org/)",
                "[c](//cdn.example/x) [h](https://e.org/)",
            ),
            (
                "`[w](/a/)`\n\n    <a href=\"/b/\">",
                "`[w](/a/)`\n\n    <a href=\"/b/\">",
            ),
        ];
        // Where the one parse of the page found its site paths, as the check stage does.
        let paths = |md: &str| {
            let opts = crate::markdown::RenderOptions { highlight: false };
            crate::markdown::render(md, opts, &mut Default::default()).site_paths
        };
        let c = config("/course/");
        for (md, want) in cases {
            assert_eq!(Urls::new(&c).content_markdown(md, &paths(md)), want, "{md}");
        }
        let root = config("/");
        for (md, _) in cases {
            assert_eq!(Urls::new(&root).content_markdown(md, &paths(md)), md);
        }
    }
}
