//! `coursegen serve`: the local preview server — paths, limits, hosts, HEAD, rebuilds on
//! change (entries, templates, records), the last good build with the errors over it, and
//! its temporary folder removed on SIGTERM. Each test runs the real binary with TMPDIR set
//! to a folder of its own, so the test knows where serve builds and what it leaves.
use crate::util::*;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Server {
    child: Child,
    addr: String,
    tmp: tempfile::TempDir,
    /// What serve printed on stderr so far, line by line.
    errors: std::sync::mpsc::Receiver<String>,
}

impl Server {
    fn start(site: &Site) -> Server {
        Server::start_with(site, &[], &[])
    }

    /// Starts `serve --port 0` with more `args` and environment `vars`; waits for the line
    /// naming its address.
    fn start_with(site: &Site, args: &[&str], vars: &[(&str, &Path)]) -> Server {
        let tmp = tempfile::tempdir().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_coursegen"))
            .args(["serve", "--port", "0"])
            .args(args)
            .arg("--root")
            .arg(site.root())
            .env("TMPDIR", tmp.path())
            .env("SOURCE_DATE_EPOCH", TODAY_EPOCH)
            .env_remove("BROWSER")
            .envs(vars.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let lines = |from: Box<dyn Read + Send>| {
            let (tx, log) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                for line in BufReader::new(from).lines().map_while(Result::ok) {
                    let _ = tx.send(line);
                }
            });
            log
        };
        let log = lines(Box::new(child.stdout.take().unwrap()));
        let errors = lines(Box::new(child.stderr.take().unwrap()));
        let addr = loop {
            let line = log
                .recv_timeout(Duration::from_secs(60))
                .expect("serve printed its address");
            if let Some(rest) = line.strip_prefix("serving http://") {
                break rest.split('/').next().unwrap().to_string();
            }
        };
        assert!(addr.starts_with("127.0.0.1:"), "{addr}");
        Server {
            child,
            addr,
            tmp,
            errors,
        }
    }

    /// Waits up to 30 s for a line of stderr containing `needle`.
    fn stderr_line(&self, needle: &str) -> String {
        let start = Instant::now();
        while let Some(left) = Duration::from_secs(30).checked_sub(start.elapsed()) {
            match self.errors.recv_timeout(left) {
                Ok(line) if line.contains(needle) => return line,
                Ok(_) => {}
                Err(_) => break,
            }
        }
        panic!("serve never printed {needle:?} on stderr");
    }

    /// The port serve listens on.
    fn port(&self) -> &str {
        self.addr.rsplit_once(':').unwrap().1
    }

    /// Sends a GET of `path` naming `host`; returns the status line.
    fn status_for(&self, host: &str, path: &str) -> String {
        let answer = self.raw(format!("GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n").as_bytes());
        answer.lines().next().unwrap_or("").to_string()
    }

    /// Sends `raw` as it is and returns the whole answer.
    fn raw(&self, raw: &[u8]) -> String {
        let mut s = TcpStream::connect(&self.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let _ = s.write_all(raw);
        let mut r = Vec::new();
        let _ = s.read_to_end(&mut r);
        String::from_utf8_lossy(&r).into_owned()
    }

    fn request(&self, method: &str, path: &str) -> String {
        self.raw(format!("{method} {path} HTTP/1.1\r\nHost: localhost\r\n\r\n").as_bytes())
    }

    fn get(&self, path: &str) -> String {
        self.request("GET", path)
    }

    /// Polls `path` until its answer contains `needle` (the watcher rebuilt), or panics.
    fn wait_for(&self, path: &str, needle: &str) -> String {
        let start = Instant::now();
        loop {
            let page = self.get(path);
            if page.contains(needle) {
                return page;
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "{path} never showed {needle:?}: {page}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The folder serve builds in: `$TMPDIR/coursegen-serve-*`.
    fn build_dir(&self) -> PathBuf {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(self.tmp.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("coursegen-serve-")
            })
            .collect();
        assert_eq!(dirs.len(), 1, "{dirs:?}");
        dirs.pop().unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn body(answer: &str) -> &str {
    answer.split_once("\r\n\r\n").map_or("", |(_, b)| b)
}

#[test]
fn serve_refuses_traversal_to_files_beside_its_output() {
    let site = Site::new();
    site.write("content/glossary/lane.md", draft("Lane"));
    let server = Server::start(&site);
    // Serve reads from <build_dir>/site: the secrets sit exactly one and two levels up,
    // where a request that escapes the output folder would land.
    let build = server.build_dir();
    assert!(build.join("site/glossary/lane/index.html").is_file());
    std::fs::write(build.join("secret.txt"), "SECRET-ONE").unwrap();
    std::fs::write(server.tmp.path().join("secret.txt"), "SECRET-TWO").unwrap();
    let page = server.get("/glossary/lane/");
    assert!(
        page.starts_with("HTTP/1.1 200") && page.contains("<h1>Lane</h1>"),
        "{page}"
    );
    for path in [
        "/../secret.txt",
        "/../../secret.txt",
        "/%2e%2e/secret.txt",
        "/%2E%2E/%2e%2e/secret.txt",
        "/..%2fsecret.txt",
        "/glossary/../../secret.txt",
        "/glossary/%2e%2e/%2e%2e/secret.txt",
        "/..%5csecret.txt",
    ] {
        let answer = server.get(path);
        assert!(
            answer.starts_with("HTTP/1.1 404") && !answer.contains("SECRET"),
            "{path}: {answer}"
        );
    }
}

#[test]
fn serve_answers_head_with_get_headers_and_no_body() {
    let site = Site::new();
    site.write("content/glossary/lane.md", draft("Lane"));
    let server = Server::start(&site);
    let get = server.get("/glossary/lane/");
    let head = server.request("HEAD", "/glossary/lane/");
    let header = |answer: &str, name: &str| {
        answer
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .map(str::to_string)
    };
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(body(&head), "", "HEAD sent a body");
    let length = header(&head, "Content-Length: ").expect("HEAD names the length");
    assert_eq!(length.parse::<usize>().unwrap(), body(&get).len());
    assert_eq!(
        header(&head, "Content-Type: "),
        header(&get, "Content-Type: ")
    );
    let missing = server.request("HEAD", "/nope/");
    assert!(
        missing.starts_with("HTTP/1.1 404") && body(&missing).is_empty(),
        "{missing}"
    );
    let post = server.request("POST", "/glossary/lane/");
    assert!(post.starts_with("HTTP/1.1 405"), "{post}");
}

#[test]
fn serve_answers_only_local_hosts_and_caps_requests() {
    let site = Site::new();
    site.write("content/glossary/lane.md", draft("Lane"));
    let server = Server::start(&site);
    for host in ["Host: evil.example\r\n", "Host: evil.example:80\r\n", ""] {
        let answer = server.raw(format!("GET /glossary/lane/ HTTP/1.1\r\n{host}\r\n").as_bytes());
        assert!(
            answer.starts_with("HTTP/1.1 403") && !answer.contains("Lane"),
            "{host:?}: {answer}"
        );
    }
    let ok = server.raw(b"GET /glossary/lane/ HTTP/1.1\r\nHost: 127.0.0.1:9\r\n\r\n");
    assert!(ok.starts_with("HTTP/1.1 200"), "{ok}");
    // A name is answered only when --allow-host gives it (this server was given none).
    assert!(server.status_for("preview.lan", "/").contains("403"));
    let long = format!(
        "GET /{} HTTP/1.1\r\nHost: localhost\r\n\r\n",
        "a".repeat(20_000)
    );
    assert!(server.raw(long.as_bytes()).starts_with("HTTP/1.1 414"));
    let big = format!(
        "GET / HTTP/1.1\r\nHost: localhost\r\nX: {}\r\n\r\n",
        "a".repeat(40_000)
    );
    assert!(server.raw(big.as_bytes()).starts_with("HTTP/1.1 431"));
    // A connection that never sends its request is closed, not held forever.
    let start = Instant::now();
    assert_eq!(server.raw(b"GET / HTTP/1.1\r\n"), "");
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn serve_rebuilds_entries_templates_and_records_and_only_what_changed() {
    let site = measured_site(true);
    site.write(
        "content/glossary/warp.md",
        published("Warp", "related: [lane]\n"),
    );
    site.write("content/glossary/lane.md", published("Lane", ""));
    site.write("content/glossary/other.md", published("Other", ""));
    let server = Server::start(&site);
    let out = server.build_dir().join("site");
    let page = |slug: &str| out.join(format!("glossary/{slug}/index.html"));
    let modified = |p: &Path| std::fs::metadata(p).unwrap().modified().unwrap();
    let (other_before, warp_before) = (modified(&page("other")), modified(&page("warp")));
    std::thread::sleep(Duration::from_millis(50));
    // A body: that page alone (no list shows a body).
    site.write(
        "content/glossary/lane.md",
        published("Lane", "").replace("Body of Lane.", "Edited body."),
    );
    server.wait_for("/glossary/lane/", "Edited body.");
    assert_eq!(
        (modified(&page("other")), modified(&page("warp"))),
        (other_before, warp_before),
        "a page the edit does not reach was rendered again"
    );
    // A term: the page that names it in `related:`, and every sidebar that lists it (the
    // glossary is small enough to be listed whole on every page).
    site.write(
        "content/glossary/lane.md",
        published("Lane", "")
            .replace("term: Lane", "term: Renamed lane")
            .replace("Body of Lane.", "Edited body."),
    );
    server.wait_for("/glossary/warp/", "Renamed lane");
    server.wait_for("/glossary/other/", "Renamed lane");
    // A template: every page.
    let entry = site.read("templates/entry.html");
    site.write(
        "templates/entry.html",
        entry.replacen("<h1>", "<h1 class=\"retitled\">", 1),
    );
    server.wait_for("/glossary/other/", "<h1 class=\"retitled\">");
    // A record: the measured section follows it.
    // (every GPU's record of the kernel, so the page names one driver)
    let dir = site.root().join("measurements/bank_conflicts");
    for item in std::fs::read_dir(&dir).unwrap().flatten() {
        let name = item.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".json") {
            continue;
        }
        let rec = format!("measurements/bank_conflicts/{name}");
        let mut record: serde_json::Value = serde_json::from_str(&site.read(&rec)).unwrap();
        record["software"]["driver_version"] = "999.42".into();
        site.write(&rec, sealed(record));
    }
    server.wait_for("/glossary/bank/", "999.42");
}

#[test]
fn serve_keeps_the_last_good_build_and_pushes_its_errors() {
    let site = Site::new();
    site.write("content/glossary/lane.md", draft("Lane"));
    let server = Server::start(&site);
    let mut events = TcpStream::connect(&server.addr).unwrap();
    write!(
        events,
        "GET /__coursegen/events HTTP/1.1\r\nHost: localhost\r\n\r\n"
    )
    .unwrap();
    events
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut events = BufReader::new(events);
    let mut next_event = || loop {
        let mut line = String::new();
        assert!(
            events.read_line(&mut line).unwrap() > 0,
            "event stream closed"
        );
        if let Some(data) = line.strip_prefix("data: ") {
            return serde_json::from_str::<serde_json::Value>(data).unwrap();
        }
    };
    assert_eq!(next_event()["ok"], true);
    site.write(
        "content/glossary/lane.md",
        "---\ntitle: Lane\nstatus: draft\ncolour: red\n---\nBroken body.\n",
    );
    let failed = next_event();
    assert_eq!(failed["ok"], false, "{failed}");
    let errors = failed["errors"].to_string();
    assert!(
        errors.contains("content/glossary/lane.md:4") && errors.contains("colour"),
        "{errors}"
    );
    let page = server.get("/glossary/lane/");
    assert!(
        page.contains("Draft body.") && !page.contains("Broken body."),
        "{page}"
    );
    assert!(
        page.contains("<script src=\"/__coursegen/reload.js\"></script>"),
        "{page}"
    );
    let script = server.get("/__coursegen/reload.js");
    assert!(
        script.contains("EventSource") && script.contains("textContent"),
        "{script}"
    );
    site.write(
        "content/glossary/lane.md",
        draft("Lane").replace("Draft body.", "Fixed."),
    );
    assert_eq!(next_event()["ok"], true);
    assert!(server.get("/glossary/lane/").contains("Fixed."));
}

#[cfg(unix)]
#[test]
fn serve_removes_its_temporary_folder_on_sigterm() {
    let site = Site::new();
    site.write("content/glossary/lane.md", draft("Lane"));
    let mut server = Server::start(&site);
    let build = server.build_dir();
    assert!(build.join("site/index.html").is_file());
    let kill = Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let status = server.child.wait().unwrap();
    assert!(!status.success(), "{status:?}");
    assert!(!build.exists(), "{} left behind", build.display());
}

#[test]
fn slow_connections_and_many_event_streams_do_not_starve_other_readers() {
    let site = Site::new();
    site.write("content/glossary/warp.md", published("Warp", ""));
    let server = Server::start(&site);
    // 70 connections that never finish a request, then 64 event streams: more than the
    // 64 connections serve holds.
    let mut idle: Vec<TcpStream> = (0..70)
        .map(|_| {
            let mut s = TcpStream::connect(&server.addr).unwrap();
            let _ = s.write_all(b"GET / HTT");
            s
        })
        .collect();
    for _ in 0..64 {
        let mut s = TcpStream::connect(&server.addr).unwrap();
        s.write_all(b"GET /__coursegen/events HTTP/1.1\r\nHost: localhost\r\n\r\n")
            .unwrap();
        idle.push(s);
    }
    let start = Instant::now();
    let page = server.get("/glossary/warp/");
    assert!(page.starts_with("HTTP/1.1 200 OK"), "{page:.200}");
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    drop(idle);
}

#[test]
fn serve_listens_on_the_loopback_address_unless_told_another() {
    let site = Site::new();
    site.write("content/glossary/lane.md", draft("Lane"));
    let server = Server::start(&site);
    // 127.0.0.2 is this machine too, but not the address serve listens on by default.
    let other = format!("127.0.0.2:{}", server.port());
    assert!(
        TcpStream::connect(&other).is_err(),
        "the default listens on more than 127.0.0.1"
    );
}

#[test]
fn serve_on_every_interface_warns_answers_addresses_and_allowed_names_only() {
    let site = Site::new();
    site.write("content/glossary/lane.md", draft("Lane"));
    let args = ["--interface", "0.0.0.0", "--allow-host", "Preview.LAN"];
    let server = Server::start_with(&site, &args, &[]);
    let warning = server.stderr_line("warning: listening on every interface");
    assert!(warning.contains("drafts included"), "{warning}");
    // Reached through another of this machine's addresses, as a phone on the network
    // reaches it through the machine's own.
    let other = format!("127.0.0.2:{}", server.port());
    let mut s = TcpStream::connect(&other).expect("serve listens on every interface");
    s.write_all(format!("GET /glossary/lane/ HTTP/1.1\r\nHost: {other}\r\n\r\n").as_bytes())
        .unwrap();
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    assert!(
        answer.starts_with("HTTP/1.1 200") && answer.contains("Lane"),
        "{answer}"
    );
    for (host, status) in [
        ("192.168.1.20:1111", "200"),
        ("[fe80::1]:1111", "200"),
        ("preview.lan:1111", "200"),
        ("evil.example", "403"),
        ("preview.lan.evil.example", "403"),
    ] {
        let got = server.status_for(host, "/glossary/lane/");
        assert!(got.contains(status), "{host}: {got}");
    }
}

#[test]
fn serve_open_starts_the_browser_on_the_served_address() {
    let site = Site::new();
    site.write("content/glossary/lane.md", draft("Lane"));
    let dir = tempfile::tempdir().unwrap();
    let opened = dir.path().join("opened");
    let browser = dir.path().join("browser");
    std::fs::write(
        &browser,
        format!("#!/bin/sh\nprintf '%s' \"$1\" > '{}'\n", opened.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
    let server = Server::start_with(&site, &["--open"], &[("BROWSER", &browser)]);
    let start = Instant::now();
    while !opened.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no browser started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(100));
    let url = std::fs::read_to_string(&opened).unwrap();
    assert_eq!(url, format!("http://{}/", server.addr));
    assert!(server.get("/glossary/lane/").starts_with("HTTP/1.1 200"));
}

#[test]
fn serve_open_with_no_browser_warns_and_keeps_serving() {
    let site = Site::new();
    site.write("content/glossary/lane.md", draft("Lane"));
    let missing = Path::new("/nonexistent/browser");
    let server = Server::start_with(&site, &["--open"], &[("BROWSER", missing)]);
    let line = server.stderr_line("cannot open");
    assert!(
        line.starts_with("warning: cannot open http://127.0.0.1:"),
        "{line}"
    );
    assert!(server.get("/glossary/lane/").starts_with("HTTP/1.1 200"));
}

#[test]
fn serve_refuses_a_bad_address_name_or_taken_port_with_usage_errors() {
    let site = Site::new();
    site.write("content/glossary/lane.md", draft("Lane"));
    for (args, want) in [
        (
            &["--interface", "localhost"][..],
            "invalid value 'localhost' for '--interface",
        ),
        (&["--allow-host", "http://evil/"][..], "is not a host name"),
        (&["--allow-host", "lan:80"][..], "is not a host name"),
    ] {
        let out = site.run(&[&["serve"][..], args].concat());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(want), "{args:?}: {}", stderr(&out));
    }
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let tmp = tempfile::tempdir().unwrap();
    let tmpdir = tmp.path().to_str().unwrap();
    let out = site.run_with(&["serve", "--port", &port], &[("TMPDIR", tmpdir)]);
    assert_eq!(out.status.code(), Some(2));
    let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
    assert!(left.is_empty(), "serve left {left:?} behind");
    assert_stderr_has(
        &out,
        &[&format!("cannot listen on 127.0.0.1:{port}"), "--port"],
    );
}

/// `serve --base-url` serves the site under the address's path, as it will be published:
/// its pages and their links under `/course/`, `/` redirected there, and a path outside it
/// answered with where the preview is.
#[test]
fn serve_with_a_base_url_serves_under_its_path_and_sends_the_root_there() {
    let site = Site::new();
    site.write("content/glossary/lane.md", draft("Lane"));
    let server = Server::start_with(&site, &["--base-url", "https://example.org/course/"], &[]);
    let page = server.get("/course/glossary/lane/");
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert!(
        page.contains("<h1>Lane</h1>") && page.contains("href=\"/course/style.css\""),
        "{page}"
    );
    assert!(server.get("/course/style.css").starts_with("HTTP/1.1 200"));
    for path in ["/", "/course"] {
        let answer = server.get(path);
        assert!(
            answer.starts_with("HTTP/1.1 302") && answer.contains("\r\nLocation: /course/\r\n"),
            "{path}: {answer}"
        );
    }
    let outside = server.get("/glossary/lane/");
    assert!(outside.starts_with("HTTP/1.1 404"), "{outside}");
    assert!(
        body(&outside).contains("<a href=\"/course/\">/course/</a>"),
        "{outside}"
    );
    assert!(server.get("/coursework/").starts_with("HTTP/1.1 404"));
    assert!(
        server
            .get("/course/../glossary/lane/")
            .starts_with("HTTP/1.1 404")
    );
    assert!(
        server
            .get("/__coursegen/reload.js")
            .starts_with("HTTP/1.1 200")
    );
}
