//! The preview's HTTP/1.1 side: reads one request within hard limits (request line,
//! headers, idle time), answers only local `Host`s, maps paths into the output folder
//! (never outside it) and writes the response; `HEAD` gets GET's headers without the body.
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

/// Longest request line accepted (method, target, version).
pub(super) const MAX_REQUEST_LINE: usize = 8 * 1024;
/// Most bytes of headers accepted after the request line.
pub(super) const MAX_HEADERS: usize = 16 * 1024;
/// Most header lines accepted.
const MAX_HEADER_COUNT: usize = 100;
/// A connection that sends nothing for this long is closed.
pub(super) const IDLE: Duration = Duration::from_secs(5);

/// A request that passed the limits.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Request {
    /// `GET`, `HEAD`, …
    pub(super) method: String,
    /// The request target as sent (`/glossary/warp/?x=1`).
    pub(super) target: String,
    /// The `Host` header, when there was one.
    pub(super) host: Option<String>,
}

/// Why a request was not read; each maps to one status line.
#[derive(Debug, thiserror::Error)]
pub(super) enum RequestError {
    /// Request line over [`MAX_REQUEST_LINE`].
    #[error("414 URI Too Long")]
    LineTooLong,
    /// Headers over [`MAX_HEADERS`] bytes or [`MAX_HEADER_COUNT`] lines.
    #[error("431 Request Header Fields Too Large")]
    HeadersTooLarge,
    /// Not `METHOD TARGET HTTP/x.y`, or not UTF-8.
    #[error("400 Bad Request")]
    Malformed,
    /// Timed out, closed early or failed: nothing is answered.
    #[error("connection: {0}")]
    Io(#[from] std::io::Error),
}

/// Reads one line of at most `max` bytes (CRLF or LF stripped); `None` when over the limit.
fn read_line(reader: &mut impl BufRead, max: usize) -> Result<Option<String>, RequestError> {
    let mut buf = Vec::new();
    let n = reader.take(max as u64 + 1).read_until(b'\n', &mut buf)?;
    if n == 0 {
        return Err(std::io::Error::from(std::io::ErrorKind::UnexpectedEof).into());
    }
    if !buf.ends_with(b"\n") {
        return if n > max {
            Ok(None)
        } else {
            Err(std::io::Error::from(std::io::ErrorKind::UnexpectedEof).into())
        };
    }
    buf.pop();
    if buf.ends_with(b"\r") {
        buf.pop();
    }
    String::from_utf8(buf)
        .map(Some)
        .map_err(|_| RequestError::Malformed)
}

/// Reads the request line and headers, enforcing every limit.
pub(super) fn read_request(reader: &mut impl BufRead) -> Result<Request, RequestError> {
    let line = read_line(reader, MAX_REQUEST_LINE)?.ok_or(RequestError::LineTooLong)?;
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(RequestError::Malformed);
    };
    if method.is_empty() || !target.starts_with('/') || !version.starts_with("HTTP/1.") {
        return Err(RequestError::Malformed);
    }
    let (mut host, mut left, mut count) = (None, MAX_HEADERS, 0);
    loop {
        let header = read_line(reader, left)?.ok_or(RequestError::HeadersTooLarge)?;
        if header.is_empty() {
            break;
        }
        count += 1;
        left = left.saturating_sub(header.len() + 2);
        if count > MAX_HEADER_COUNT || left == 0 {
            return Err(RequestError::HeadersTooLarge);
        }
        let (name, value) = header.split_once(':').ok_or(RequestError::Malformed)?;
        if name.eq_ignore_ascii_case("host") {
            if host.is_some() {
                return Err(RequestError::Malformed);
            }
            host = Some(value.trim().to_string());
        }
    }
    Ok(Request {
        method: method.into(),
        target: target.into(),
        host,
    })
}

/// True when the `Host` header names this machine by address (`127.0.0.1`, `[::1]`,
/// `192.168.1.20`, with or without a port), as `localhost`, or as one of the names in
/// `allowed` (`serve --allow-host`; compared ignoring case). A page on another site that
/// reaches us through DNS rebinding comes under a name of its own (`evil.example`), never
/// as a bare address, so any other name is refused: it must not read the preview.
pub(super) fn allowed_host(host: Option<&str>, allowed: &[String]) -> bool {
    let Some(host) = host else { return false };
    let digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    if let Some(rest) = host.strip_prefix('[') {
        let Some((addr, after)) = rest.split_once(']') else {
            return false;
        };
        let port_ok = after.is_empty() || after.strip_prefix(':').is_some_and(digits);
        return port_ok && addr.parse::<std::net::Ipv6Addr>().is_ok();
    }
    let name = match host.rsplit_once(':') {
        Some((name, port)) if digits(port) => name,
        Some(_) => return false,
        None => host,
    };
    // `localhost.` is `localhost` written in full (a name's root is the empty label).
    let name = name.strip_suffix('.').unwrap_or(name);
    name.parse::<std::net::Ipv4Addr>().is_ok()
        || name.eq_ignore_ascii_case("localhost")
        || allowed.iter().any(|a| name.eq_ignore_ascii_case(a))
}

/// Maps a request target to a file inside `out`, or `None` when it would leave it (after
/// percent-decoding, `..`, backslashes, NULs and symlinks pointing out are all refused).
pub(super) fn resolve(out: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let decoded = percent_encoding::percent_decode_str(path)
        .decode_utf8()
        .ok()?;
    if decoded.contains(['\0', '\\']) || malformed_escape(path) {
        return None;
    }
    let mut file = out.to_path_buf();
    for part in Path::new(decoded.as_ref()).components() {
        match part {
            Component::Normal(p) => file.push(p),
            Component::RootDir | Component::CurDir => {}
            Component::ParentDir | Component::Prefix(_) => return None,
        }
    }
    if file.is_dir() {
        file.push("index.html");
    }
    let canon = file.canonicalize().ok()?;
    canon.starts_with(out.canonicalize().ok()?).then_some(canon)
}

/// `%` not followed by two hex digits: `percent-encoding` passes it through, we refuse it.
fn malformed_escape(path: &str) -> bool {
    let b = path.as_bytes();
    b.iter().enumerate().any(|(i, &c)| {
        c == b'%'
            && !(b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
    })
}

/// Longest a client may take to send its whole request, however it paces the bytes.
pub(super) const REQUEST_TIME: Duration = Duration::from_secs(10);

/// Reads a request from `stream`: each read within [`IDLE`], the whole within
/// [`REQUEST_TIME`].
pub(super) fn read_from(stream: &TcpStream) -> Result<Request, RequestError> {
    stream.set_write_timeout(Some(IDLE))?;
    let until = std::time::Instant::now() + REQUEST_TIME;
    read_request(&mut BufReader::new(Deadline { stream, until }))
}

/// A stream read against a deadline: a client sending one byte every few seconds is cut
/// off at the deadline, not kept for as long as it trickles.
struct Deadline<'a> {
    stream: &'a TcpStream,
    until: std::time::Instant,
}

impl std::io::Read for Deadline<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self
            .until
            .saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return Err(std::io::ErrorKind::TimedOut.into());
        }
        self.stream.set_read_timeout(Some(left.min(IDLE)))?;
        (&mut &*self.stream).read(buf)
    }
}

/// Writes a whole response; with `head` the headers name the body's length but it is not sent.
pub(super) fn send(
    stream: &mut impl Write,
    status: &str,
    kind: &str,
    body: &[u8],
    head: bool,
) -> std::io::Result<()> {
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\n\
         X-Content-Type-Options: nosniff\r\nAllow: GET, HEAD\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    if !head {
        stream.write_all(body)?;
    }
    stream.flush()
}

/// A `302 Found` to `location`, a path of this server (the base path, which the config's
/// address check leaves with no character a header line could break on).
pub(super) fn redirect(stream: &mut impl Write, location: &str, head: bool) -> std::io::Result<()> {
    let body = format!("the preview is at {location}\n");
    write!(
        stream,
        "HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Content-Length: {}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\
         Connection: close\r\n\r\n",
        body.len()
    )?;
    if !head {
        stream.write_all(body.as_bytes())?;
    }
    stream.flush()
}

/// `target` with the base path `base` (`/course/`) taken off (`/course/x/` is `/x/`), or
/// `None` when it is not under it; under `/`, every target is.
pub(super) fn under_base<'t>(target: &'t str, base: &str) -> Option<&'t str> {
    if base == "/" {
        return Some(target);
    }
    (target.strip_prefix(base.trim_end_matches('/'))).filter(|rest| rest.starts_with('/'))
}

/// The `Content-Type` of an output file, by extension.
pub(super) fn content_type(file: &Path) -> &'static str {
    match file.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "pdf" => "application/pdf",
        "xml" => "application/xml",
        "txt" | "cu" | "py" | "csv" => "text/plain; charset=utf-8",
        // Included source is published as text, whatever its language.
        e if crate::content::admit::INCLUDE_EXTENSIONS.contains(&e) => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn req(raw: &str) -> Result<Request, RequestError> {
        read_request(&mut raw.as_bytes())
    }

    #[test]
    fn reads_requests_within_limits() {
        let ok = req("GET /a/?x HTTP/1.1\r\nHost: localhost:1111\r\nAccept: */*\r\n\r\n").unwrap();
        assert_eq!(ok.method, "GET");
        assert_eq!(ok.target, "/a/?x");
        assert_eq!(ok.host.as_deref(), Some("localhost:1111"));
        let long_line = format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(MAX_REQUEST_LINE));
        let big_header = format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(MAX_HEADERS));
        let many = format!("GET / HTTP/1.1\r\n{}\r\n", "X: y\r\n".repeat(101));
        for (raw, want) in [
            (long_line.as_str(), "414"),
            (big_header.as_str(), "431"),
            (many.as_str(), "431"),
            ("GET\r\n\r\n", "400"),
            ("GET nohost HTTP/1.1\r\n\r\n", "400"),
            ("GET / HTTP/1.1\r\nno colon\r\n\r\n", "400"),
            ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", "400"),
            ("GET / HTTP/1.1\r\nHost: a", "connection"),
        ] {
            let got = req(raw).unwrap_err().to_string();
            assert!(got.starts_with(want), "{raw:.40?}: {got}");
        }
    }

    #[test]
    fn only_targets_under_the_base_path_are_served_and_lose_it() {
        for (target, base, want) in [
            ("/glossary/warp/", "/", Some("/glossary/warp/")),
            ("/", "/", Some("/")),
            ("/course/", "/course/", Some("/")),
            (
                "/course/glossary/warp/?x=1",
                "/course/",
                Some("/glossary/warp/?x=1"),
            ),
            ("/course/../secret", "/course/", Some("/../secret")),
            ("/a/b/style.css", "/a/b/", Some("/style.css")),
            ("/course", "/course/", None),
            ("/course?x", "/course/", None),
            ("/coursework/", "/course/", None),
            ("/", "/course/", None),
            ("/glossary/warp/", "/course/", None),
            ("/a/style.css", "/a/b/", None),
        ] {
            assert_eq!(under_base(target, base), want, "{target} under {base}");
        }
        let mut answer = Vec::new();
        redirect(&mut answer, "/course/", true).unwrap();
        let answer = String::from_utf8(answer).unwrap();
        assert!(
            answer.starts_with("HTTP/1.1 302 Found\r\nLocation: /course/\r\n"),
            "{answer}"
        );
    }

    #[test]
    fn answers_only_hosts_named_by_address_localhost_or_allowed() {
        let allowed = ["Preview.Lan".to_string()];
        for (host, ok) in [
            (Some("127.0.0.1"), true),
            (Some("127.0.0.1:1111"), true),
            (Some("192.168.1.20:1111"), true),
            (Some("[::1]:1111"), true),
            (Some("[::1]"), true),
            (Some("[fe80::1]:80"), true),
            (Some("localhost"), true),
            (Some("LocalHost:80"), true),
            (Some("preview.lan:1111"), true),
            (Some("PREVIEW.LAN"), true),
            (Some("localhost.:1111"), true),
            (Some("preview.lan."), true),
            (Some("localhost.."), false),
            (Some("evil.example."), false),
            (Some("evil.example"), false),
            (Some("evil.example:1111"), false),
            (Some("localhost.evil.example"), false),
            (Some("preview.lan.evil.example"), false),
            (Some("127.0.0.1.nip.io"), false),
            (Some("127.1"), false),
            (Some("[::1"), false),
            (Some("[::1]x"), false),
            (Some("[evil.example]"), false),
            (Some("::1"), false),
            (Some("localhost:"), false),
            (Some("localhost:http"), false),
            (Some(""), false),
            (None, false),
        ] {
            assert_eq!(allowed_host(host, &allowed), ok, "{host:?}");
        }
        assert!(!allowed_host(Some("preview.lan"), &[]));
    }

    #[test]
    fn never_resolves_outside_the_output() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("site");
        std::fs::create_dir_all(out.join("glossary/warp")).unwrap();
        std::fs::write(out.join("glossary/warp/index.html"), "x").unwrap();
        std::fs::write(out.join("a b.txt"), "x").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "s").unwrap();
        for good in [
            "/glossary/warp/",
            "/glossary/warp/index.html?x=1",
            "/a%20b.txt",
        ] {
            assert!(resolve(&out, good).is_some(), "{good}");
        }
        for bad in [
            "/../secret.txt",
            "/%2e%2e/secret.txt",
            "/glossary/../../secret.txt",
            "/%2E%2E%2Fsecret.txt",
            "/..%5csecret.txt",
            "/a%00b",
            "/%ff",
            "/nope",
            "/%zz",
        ] {
            assert!(resolve(&out, bad).is_none(), "{bad}");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.path().join("secret.txt"), out.join("link.txt"))
                .unwrap();
            assert!(resolve(&out, "/link.txt").is_none());
        }
    }
}
