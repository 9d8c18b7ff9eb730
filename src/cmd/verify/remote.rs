//! `coursegen verify URL`: fetches the page named (for a site's root, every page the
//! provenance lists) and the site's provenance file, and nothing else. HTTPS only, plain
//! HTTP only to this machine (localhost, 127.0.0.1, ::1, for tests and local previews);
//! every answer bounded in size and time, every redirect checked as the URL given was.
//! What comes back is hostile: its bytes are only hashed and parsed, and no part of it
//! names a file here. May use `ureq` (the one module that does: `tests/architecture.rs`).
use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::anyhow;
use url::{Host, Url};

use super::published::Published;
use crate::cmd::Failure;
use crate::editorial::provenance::{self, Provenance};

/// How long a connection (DNS, TCP, TLS) may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the server may take to answer a request's headers.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);
/// How long one whole fetch may take, body and redirects included: the largest provenance
/// ([`provenance::MAX_BYTES`]) at about 1 MB/s.
const FETCH_TIMEOUT: Duration = Duration::from_secs(120);
/// Redirects followed for one fetch (GitHub Pages: `/course` → `/course/`, a custom domain).
const MAX_REDIRECTS: usize = 5;
/// Folders looked in for the provenance: the page's own and those above it.
const MAX_FOLDERS: usize = 16;
/// Pages a whole-site verify fetches at most (a 10,000-entry course has ~10,100).
const MAX_PAGES: usize = 20_000;
/// Pages fetched at once in whole-site mode: a few connections, not one per core.
pub(super) const FETCH_THREADS: usize = 4;

/// The URL `target` names, when it is one (`http://` or `https://`).
pub(super) fn url_of(target: &str) -> Option<&str> {
    let scheme = target.split_once("://")?.0;
    (scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")).then_some(target)
}

/// Why a fetch gave nothing to verify.
enum FetchError {
    /// Not fetched: a URL coursegen does not fetch, no connection, a timeout (exit 2).
    Unreachable(String),
    /// The server answered with a status other than 200 (exit 1).
    Status(u16, String),
    /// The server answered with more than the size limit, or no usable redirect (exit 1).
    Answered(String),
}

impl FetchError {
    fn message(self) -> String {
        match self {
            FetchError::Unreachable(m) | FetchError::Status(_, m) | FetchError::Answered(m) => m,
        }
    }

    fn failure(self) -> Failure {
        match self {
            FetchError::Unreachable(m) => Failure::Usage(anyhow!(m)),
            FetchError::Status(_, m) | FetchError::Answered(m) => Failure::Content(anyhow!(m)),
        }
    }
}

/// The site at `target` (a page's URL, or the site's root): its provenance, found in the
/// page's folder or one above it, and a reader that fetches its pages.
pub(super) fn open(target: &str) -> Result<Published, Failure> {
    let mut url = Url::parse(target)
        .map_err(|e| Failure::Usage(anyhow!("{target} is not a URL coursegen can read: {e}")))?;
    url.set_fragment(None);
    url.set_query(None);
    allowed(&url).map_err(|m| Failure::Usage(anyhow!(m)))?;
    let fetcher = Fetcher::new(is_loopback(&url));
    let (page_url, page) = fetcher
        .get(&url, provenance::MAX_PAGE_BYTES)
        .map_err(FetchError::failure)?;
    let (prov_url, prov) = find_provenance(&fetcher, &page_url)?;
    let (base, path) = (&prov.settings.base_path, page_url.path());
    // The site's root names the whole site; any other URL one page, by its URL or its file.
    let whole = path == base;
    let record = (prov.pages.iter())
        .find(|p| p.url == path || path.strip_prefix(base.as_str()) == Some(&p.file));
    let file = match (record, whole) {
        (Some(r), _) => Some(r.file.clone()),
        (None, true) => None,
        (None, false) => {
            return Err(Failure::Content(anyhow!(
                "{page_url} is not listed in {prov_url}: not a page this build published"
            )));
        }
    };
    if whole && prov.pages.len() > MAX_PAGES {
        return Err(Failure::Content(anyhow!(
            "{prov_url} lists {} pages; coursegen fetches at most {MAX_PAGES} (verify a downloaded copy of the site instead)",
            prov.pages.len()
        )));
    }
    // Each page at the URL its record gives, on the provenance's own host: the file it was
    // written to is only a key here.
    let urls: BTreeMap<String, String> = (prov.pages.iter())
        .map(|p| (p.file.clone(), p.url.clone()))
        .collect();
    let only = file.clone().filter(|_| !whole);
    // The page named is verified as it was fetched, not fetched again.
    let named = file.map(|file| (file, page));
    let prov_at = prov_url.to_string();
    let read = move |file: &str| -> Result<Vec<u8>, String> {
        if let Some((named, bytes)) = &named
            && named == file
        {
            return Ok(bytes.clone());
        }
        let path = urls.get(file).ok_or("not listed in the provenance")?;
        let mut page = prov_url.clone();
        page.set_path(path);
        page.set_query(None);
        (fetcher.get(&page, provenance::MAX_PAGE_BYTES))
            .map(|(_, bytes)| bytes)
            .map_err(FetchError::message)
    };
    Ok(Published {
        prov_at,
        prov,
        only,
        read: Box::new(read),
        threads: Some(FETCH_THREADS),
    })
}

/// The provenance in the folder of `page` or the nearest folder above it that has one: its
/// URL and its contents. The folder it is found in must be the base path it records.
fn find_provenance(fetcher: &Fetcher, page: &Url) -> Result<(Url, Provenance), Failure> {
    let mut folder = match page.path().rfind('/') {
        Some(i) => page.path()[..=i].to_string(),
        None => "/".to_string(),
    };
    for _ in 0..MAX_FOLDERS {
        let mut at = page.clone();
        at.set_path(&format!("{folder}{}", provenance::FILE));
        match fetcher.get(&at, provenance::MAX_BYTES) {
            Ok((at, bytes)) => {
                let prov = Provenance::parse(&bytes)
                    .map_err(|e| Failure::Content(anyhow!("{at}: {e}")))?;
                if prov.settings.base_path != folder {
                    return Err(Failure::Content(anyhow!(
                        "{at} records the base path `{}`, but it is served at `{folder}`: not this site's provenance",
                        prov.settings.base_path.escape_debug()
                    )));
                }
                return Ok((at, prov));
            }
            // Not here: look in the folder above, as for a downloaded page.
            Err(FetchError::Status(404 | 410, _)) => {}
            Err(e) => return Err(e.failure()),
        }
        if folder == "/" {
            break;
        }
        let up = folder[..folder.len() - 1].rfind('/').unwrap_or(0);
        folder.truncate(up + 1);
    }
    Err(Failure::Content(anyhow!(
        "no {} in the folder of {page} or above it (404 at each): the site carries no provenance (removed, or not a coursegen publish build)",
        provenance::FILE
    )))
}

/// Whether coursegen fetches `url`: https, or http to this machine; no credentials in it.
fn allowed(url: &Url) -> Result<(), String> {
    match url.scheme() {
        "https" => {}
        "http" if is_loopback(url) => {}
        "http" => {
            return Err(format!(
                "{url}: refused: plain http:// is fetched only from this machine (localhost, 127.0.0.1, [::1]); use https://"
            ));
        }
        other => {
            return Err(format!(
                "{url}: refused: coursegen fetches https:// URLs, not {other}:"
            ));
        }
    }
    if url.host().is_none() {
        return Err(format!("{url}: refused: no host"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(format!(
            "{url}: refused: a URL with a user name or password (a published site is public)"
        ));
    }
    Ok(())
}

/// `url`'s host is this machine.
fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(Host::Ipv4(a)) => a.is_loopback(),
        Some(Host::Ipv6(a)) => a.is_loopback(),
        None => false,
    }
}

/// GET with the limits above; redirects are followed here, not by ureq, so that each
/// target is checked by [`allowed`].
struct Fetcher {
    agent: ureq::Agent,
}

impl Fetcher {
    fn new(loopback: bool) -> Self {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_connect(Some(CONNECT_TIMEOUT))
            .timeout_recv_response(Some(ANSWER_TIMEOUT))
            .timeout_global(Some(FETCH_TIMEOUT))
            .user_agent(concat!("coursegen/", env!("CARGO_PKG_VERSION"), " verify"))
            // A proxy from the environment (HTTPS_PROXY, NO_PROXY) for the web; never for
            // this machine.
            .proxy(match loopback {
                true => None,
                false => ureq::Proxy::try_from_env(),
            })
            .build();
        Fetcher {
            agent: config.into(),
        }
    }

    /// The bytes at `url`, at most `max`, and the URL they came from (after redirects).
    fn get(&self, url: &Url, max: u64) -> Result<(Url, Vec<u8>), FetchError> {
        let mut at = url.clone();
        for _ in 0..=MAX_REDIRECTS {
            allowed(&at).map_err(FetchError::Unreachable)?;
            let mut answer =
                (self.agent.get(at.as_str()).call()).map_err(|e| transport(&at, max, e))?;
            let status = answer.status();
            if status.is_redirection() {
                let next = (answer.headers().get("location"))
                    .and_then(|l| l.to_str().ok())
                    .and_then(|l| at.join(l).ok());
                let Some(mut next) = next else {
                    return Err(FetchError::Answered(format!(
                        "{at}: answered {} with no usable Location",
                        status_text(status)
                    )));
                };
                next.set_fragment(None);
                at = next;
                continue;
            }
            if status != ureq::http::StatusCode::OK {
                return Err(FetchError::Status(
                    status.as_u16(),
                    format!("{at}: answered {}", status_text(status)),
                ));
            }
            if let Some(n) = answer.body().content_length()
                && n > max
            {
                return Err(too_large(&at, max, Some(n)));
            }
            let bytes = (answer.body_mut().with_config().limit(max).read_to_vec())
                .map_err(|e| transport(&at, max, e))?;
            return Ok((at, bytes));
        }
        Err(FetchError::Unreachable(format!(
            "{url}: more than {MAX_REDIRECTS} redirects"
        )))
    }
}

/// `404 Not Found`.
fn status_text(status: ureq::http::StatusCode) -> String {
    match status.canonical_reason() {
        Some(reason) => format!("{} {reason}", status.as_u16()),
        None => status.as_u16().to_string(),
    }
}

fn too_large(url: &Url, max: u64, said: Option<u64>) -> FetchError {
    let said = said.map_or(String::new(), |n| format!(" ({n} bytes)"));
    FetchError::Answered(format!(
        "{url}: too large{said}: at most {max} bytes are read"
    ))
}

/// A failed request or body read, named.
fn transport(url: &Url, max: u64, e: ureq::Error) -> FetchError {
    match e {
        ureq::Error::BodyExceedsLimit(_) => too_large(url, max, None),
        ureq::Error::Timeout(t) => FetchError::Unreachable(format!("{url}: timed out ({t})")),
        e => FetchError::Unreachable(format!("{url}: cannot fetch: {e}")),
    }
}
