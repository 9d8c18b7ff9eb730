//! `coursegen serve`: the local preview server.
use crate::util::*;
use std::process::Command;

#[test]
fn serve_previews_on_localhost_and_refuses_traversal() {
    use std::io::{BufRead, BufReader, Read, Write};
    let site = Site::new();
    site.write("content/glossary/lane.md", draft("Lane"));
    site.write("secret.txt", "do not serve");
    let mut child = Command::new(env!("CARGO_BIN_EXE_coursegen"))
        .args(["serve", "--port", "0", "--root"])
        .arg(site.root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let addr = loop {
        let line = lines.next().expect("serve printed its address").unwrap();
        if let Some(rest) = line.strip_prefix("serving http://") {
            break rest.split('/').next().unwrap().to_string();
        }
    };
    assert!(addr.starts_with("127.0.0.1:"), "{addr}");
    let get = |path: &str| {
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        write!(s, "GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        let mut r = String::new();
        s.read_to_string(&mut r).unwrap();
        r
    };
    let page = get("/glossary/lane/");
    let (ok, traversal, encoded) = (
        page.starts_with("HTTP/1.1 200"),
        get("/../secret.txt"),
        get("/%2e%2e/secret.txt"),
    );
    child.kill().unwrap();
    let _ = child.wait();
    assert!(ok && page.contains("<h1>Lane</h1>"), "{page}");
    assert!(traversal.starts_with("HTTP/1.1 404") && !traversal.contains("do not serve"));
    assert!(encoded.starts_with("HTTP/1.1 404") && !encoded.contains("do not serve"));
}
