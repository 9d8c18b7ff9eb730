//! `coursegen verify URL` (issue 53): a published build served over HTTP by a small server
//! in the test (127.0.0.1, the one plain-HTTP host coursegen fetches from) verifies as its
//! folder does; an edited page, a 404, an answer over the size limit and a plain-HTTP
//! remote URL are refused, each with the URL and what failed.
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};

use crate::util::*;
use crate::verify::{PROVENANCE, WARP_PAGE, built, provenance, refused, verify};

/// How the test server answers.
#[derive(Clone, Copy)]
enum Length {
    /// With `Content-Length`.
    Said,
    /// Without: the body runs until the connection closes (HTTP/1.0).
    Unsaid,
}

/// Serves the files of `folder` under the URL path `prefix` (`/`, `/course/`) on
/// 127.0.0.1 until the test ends: `…/` is `…/index.html`, a folder without its slash is
/// redirected to it (as GitHub Pages does), anything else is 404. One request a connection.
/// Returns the server's address, `http://127.0.0.1:PORT`.
fn serve(folder: &Path, prefix: &'static str, length: Length) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    let folder = folder.to_path_buf();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let folder = folder.clone();
            std::thread::spawn(move || answer(stream, &folder, prefix, length));
        }
    });
    address
}

fn answer(mut stream: TcpStream, folder: &Path, prefix: &str, length: Length) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request = String::new();
    if reader.read_line(&mut request).is_err() {
        return;
    }
    // The headers, unread.
    let mut line = String::new();
    while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
        line.clear();
    }
    let path = request.split(' ').nth(1).unwrap_or("/").to_string();
    let file: Option<PathBuf> = path.strip_prefix(prefix).map(|rel| {
        let rel = rel.trim_start_matches('/');
        match rel.is_empty() || rel.ends_with('/') {
            true => folder.join(rel).join("index.html"),
            false => folder.join(rel),
        }
    });
    let (status, extra, body) = match file {
        Some(f) if f.is_dir() => (
            "301 Moved Permanently",
            format!("Location: {path}/\r\n"),
            vec![],
        ),
        Some(f) if f.is_file() => ("200 OK", String::new(), std::fs::read(f).unwrap()),
        _ => ("404 Not Found", String::new(), b"not found".to_vec()),
    };
    let head = match length {
        Length::Said => format!(
            "HTTP/1.1 {status}\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        ),
        Length::Unsaid => format!("HTTP/1.0 {status}\r\n{extra}Connection: close\r\n\r\n"),
    };
    // The client may hang up on an answer too large for it: not the test's failure.
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&body);
    let _ = stream.flush();
}

fn public(site: &Site) -> PathBuf {
    site.root().join("public")
}

#[test]
fn a_page_and_the_whole_site_verify_over_http_as_from_the_folder() {
    let site = built(&team());
    let at = serve(&public(&site), "/", Length::Said);
    let o = verify(&site, &[&format!("{at}/glossary/warp/")]);
    assert_code(&o, 0);
    let out = stdout(&o);
    assert!(
        out.contains("/glossary/warp/: signed by Ada Lovelace (author, SHA256:")
            && out.contains("; bytes match")
            && out.lines().count() == 1,
        "{out}"
    );
    // The page by its file, and the same page without its slash (redirected).
    assert_code(
        &verify(&site, &[&format!("{at}/glossary/warp/index.html")]),
        0,
    );
    assert_code(&verify(&site, &[&format!("{at}/glossary/warp")]), 0);
    // The site's root: every page the provenance lists, one line each, as from the folder.
    let o = verify(&site, &[&format!("{at}/")]);
    assert_code(&o, 0);
    let pages = provenance(&site)["pages"].as_array().unwrap().len();
    assert_eq!(stdout(&o).lines().count(), pages, "{}", stdout(&o));
    let folder = verify(&site, &[&public(&site).to_string_lossy()]);
    assert_eq!(stdout(&o), stdout(&folder));
    // The server's answers carry no length: read to the end, as well.
    let at = serve(&public(&site), "/", Length::Unsaid);
    assert_code(&verify(&site, &[&format!("{at}/")]), 0);
}

#[test]
fn a_site_under_a_sub_path_is_found_above_the_page() {
    let site = built(&team());
    let out = site.root().join("out");
    let o = site.run(&[
        "build",
        "--base-url",
        "https://example.org/course/",
        "--out",
        &out.to_string_lossy(),
    ]);
    assert_code(&o, 0);
    let at = serve(&out, "/course/", Length::Said).replace("127.0.0.1", "localhost");
    let o = verify(&site, &[&format!("{at}/course/glossary/warp/")]);
    assert_code(&o, 0);
    assert!(
        stdout(&o).starts_with("/course/glossary/warp/: signed by Ada Lovelace"),
        "{}",
        stdout(&o)
    );
    let o = verify(&site, &["--json", &format!("{at}/course/")]);
    assert_code(&o, 0);
    // Outside the site: nothing there.
    refused(
        &verify(&site, &[&format!("{at}/elsewhere/page/")]),
        "answered 404 Not Found",
    );
}

#[test]
fn a_page_edited_on_the_server_is_refused_over_http() {
    let site = built(&team());
    let at = serve(&public(&site), "/", Length::Said);
    let html = site.read(WARP_PAGE).replace("Warp", "Wrap");
    site.write(WARP_PAGE, html);
    refused(
        &verify(&site, &[&format!("{at}/glossary/warp/")]),
        "/glossary/warp/: does not verify: page bytes differ from the provenance",
    );
    refused(
        &verify(&site, &[&format!("{at}/")]),
        "/glossary/warp/: does not verify: page bytes differ from the provenance",
    );
}

#[test]
fn a_missing_page_or_provenance_or_an_answer_too_large_is_refused_naming_the_url() {
    let site = built(&team());
    let at = serve(&public(&site), "/", Length::Said);
    refused(
        &verify(&site, &[&format!("{at}/glossary/nothing/")]),
        &format!("{at}/glossary/nothing/: answered 404 Not Found"),
    );
    // Larger than a page may be (32 MiB): refused by its length, or while it is read.
    let huge = vec![b' '; (32 << 20) + 1];
    site.write("public/glossary/bank/index.html", &huge);
    refused(
        &verify(&site, &[&format!("{at}/glossary/bank/")]),
        &format!("{at}/glossary/bank/: too large (33554433 bytes): at most 33554432 bytes"),
    );
    refused(
        &verify(&site, &[&format!("{at}/")]),
        "/glossary/bank/: does not verify: http://127.0.0.1:",
    );
    let unsaid = serve(&public(&site), "/", Length::Unsaid);
    refused(
        &verify(&site, &[&format!("{unsaid}/glossary/bank/")]),
        &format!("{unsaid}/glossary/bank/: too large: at most 33554432 bytes are read"),
    );
    std::fs::remove_file(site.root().join(PROVENANCE)).unwrap();
    refused(
        &verify(&site, &[&format!("{at}/glossary/warp/")]),
        "no coursegen-provenance.json in the folder of",
    );
}

#[test]
fn a_url_coursegen_does_not_fetch_or_cannot_reach_is_a_usage_error() {
    let site = built(&team());
    for (url, why) in [
        (
            "http://example.org/glossary/warp/",
            "http://example.org/glossary/warp/: refused: plain http:// is fetched only from this machine",
        ),
        (
            "https://ada:secret@example.org/",
            "refused: a URL with a user name or password",
        ),
    ] {
        let o = verify(&site, &[url]);
        assert_code(&o, 2);
        assert_stderr_has(&o, &[why]);
    }
    // Nothing listens there (the port was free a moment ago).
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let o = verify(&site, &[&format!("http://127.0.0.1:{port}/")]);
    assert_code(&o, 2);
    assert_stderr_has(&o, &[&format!("http://127.0.0.1:{port}/: cannot fetch")]);
}
