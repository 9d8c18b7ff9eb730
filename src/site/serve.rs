//! `coursegen serve`: builds the preview into a private folder, serves it on 127.0.0.1 and
//! rebuilds when content, templates, static files or records change; open pages reload
//! themselves. Never serves a file outside the output folder.
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use crate::config::Config;
use crate::site::{BuildOptions, build};

/// The script added to HTML responses: polls the build number and reloads when it moves.
const RELOAD: &str = "<script>(()=>{let v=null;setInterval(async()=>{try{const r=await fetch('/__coursegen/version');const t=await r.text();if(v!==null&&t!==v)location.reload();v=t}catch(e){}},1000)})()</script>";

/// Why the preview server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// No temporary folder for the preview build.
    #[error("cannot create a folder for the preview build: {0}")]
    TempDir(std::io::Error),
    /// The port is taken or not allowed.
    #[error("cannot listen on 127.0.0.1:{port}: {error}; pick another with --port")]
    Listen {
        /// The port asked for.
        port: u16,
        /// Why.
        error: std::io::Error,
    },
}

/// Builds the preview into a private folder and serves it on 127.0.0.1:`port` until killed.
/// The site is served at `/` whatever the configured base path; the config (`config_file`,
/// or the root's coursegen.toml) is read again on every rebuild.
/// Diagrams are rasterised through the cache in `cache_dir`, if any.
pub fn serve(
    root: &Path,
    port: u16,
    drafts: bool,
    config_file: Option<PathBuf>,
    cache_dir: Option<PathBuf>,
) -> Result<(), ServeError> {
    let dir = tempfile::Builder::new()
        .prefix("coursegen-serve-")
        .tempdir()
        .map_err(ServeError::TempDir)?;
    let out = dir.path().join("site");
    let opts = BuildOptions {
        drafts,
        strict: false,
        highlight: true,
        search: true,
        out: Some(out.clone()),
        config: Config::default(),
        review_max_age_days: crate::policy::DEFAULT_REVIEW_MAX_AGE_DAYS,
        today: crate::policy::today().ok(),
        cache_dir,
    };
    let opts = Watched { opts, config_file };
    let version = Arc::new(AtomicU64::new(0));
    // Taken before the first build, so that an edit made while it runs is not missed.
    let snapshot = newest(root);
    rebuild(root, &opts, &version);
    let listen = |error| ServeError::Listen { port, error };
    let listener = TcpListener::bind(("127.0.0.1", port)).map_err(listen)?;
    let addr = listener.local_addr().map_err(listen)?;
    println!(
        "serving http://{addr}/ (preview{}); Ctrl-C to stop",
        if opts.opts.drafts { " with drafts" } else { "" }
    );
    let _ = std::io::stdout().flush();
    {
        let (root, opts, version) = (root.to_path_buf(), opts.clone(), version.clone());
        std::thread::spawn(move || watch(&root, &opts, &version, snapshot));
    }
    for stream in listener.incoming().flatten() {
        let (out, version) = (out.clone(), version.clone());
        std::thread::spawn(move || {
            let _ = respond(stream, &out, &version);
        });
    }
    Ok(())
}

/// The build options, with the config read again before each build.
#[derive(Clone)]
struct Watched {
    opts: BuildOptions,
    config_file: Option<PathBuf>,
}

fn rebuild(root: &Path, watched: &Watched, version: &AtomicU64) {
    let config = match Config::load(root, watched.config_file.as_deref()) {
        Ok(c) => c.at_domain_root(),
        Err(e) => {
            eprintln!("error: {e}\n(still serving the last good build)");
            return;
        }
    };
    let opts = BuildOptions {
        review_max_age_days: config
            .review_max_age_days
            .unwrap_or(crate::policy::DEFAULT_REVIEW_MAX_AGE_DAYS),
        config,
        ..watched.opts.clone()
    };
    match build(root, &opts) {
        Ok(r) => println!("rebuilt: {} pages", r.pages),
        Err(e) => eprintln!("error: {e}\n(still serving the last good build)"),
    }
    version.fetch_add(1, Ordering::SeqCst);
}

/// Polls modification times (cheap for a course-sized tree; no platform watcher needed).
fn watch(root: &Path, opts: &Watched, version: &AtomicU64, mut last: (SystemTime, usize)) {
    loop {
        std::thread::sleep(Duration::from_millis(500));
        let now = newest(root);
        if now != last {
            last = now;
            rebuild(root, opts, version);
        }
    }
}

fn newest(root: &Path) -> (SystemTime, usize) {
    let mut newest = SystemTime::UNIX_EPOCH;
    let mut count = 0;
    if let Ok(m) = std::fs::metadata(root.join(crate::config::FILE)).and_then(|m| m.modified()) {
        newest = m;
        count += 1;
    }
    for dir in ["content", "templates", "static", "measurements", "kernels"] {
        for item in walkdir::WalkDir::new(root.join(dir)).into_iter().flatten() {
            count += 1;
            if let Some(m) = item.metadata().ok().and_then(|m| m.modified().ok()) {
                newest = newest.max(m);
            }
        }
    }
    (newest, count)
}

/// Maps a request path to a file inside `out`, or `None` when it would leave it.
pub(crate) fn resolve(out: &Path, request_path: &str) -> Option<PathBuf> {
    let path = request_path.split(['?', '#']).next().unwrap_or("/");
    let decoded = percent_decode(path)?;
    let mut file = out.to_path_buf();
    for part in Path::new(&decoded).components() {
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

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    let s = String::from_utf8(out).ok()?;
    (!s.contains('\0') && !s.contains('\\')).then_some(s)
}

fn respond(stream: TcpStream, out: &Path, version: &AtomicU64) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    let mut stream = stream;
    if method != "GET" && method != "HEAD" {
        return send(
            &mut stream,
            "405 Method Not Allowed",
            "text/plain",
            b"GET only\n",
        );
    }
    if path == "/__coursegen/version" {
        let v = version.load(Ordering::SeqCst).to_string();
        return send(&mut stream, "200 OK", "text/plain", v.as_bytes());
    }
    let Some(file) = resolve(out, path) else {
        return send(&mut stream, "404 Not Found", "text/plain", b"not found\n");
    };
    let Ok(mut body) = std::fs::read(&file) else {
        return send(&mut stream, "404 Not Found", "text/plain", b"not found\n");
    };
    let kind = content_type(&file);
    if kind.starts_with("text/html") {
        body = crate::templates::allow_inline_script(&body, RELOAD);
    }
    send(
        &mut stream,
        "200 OK",
        kind,
        if method == "HEAD" { &[] } else { &body },
    )
}

fn send(stream: &mut TcpStream, status: &str, kind: &str, body: &[u8]) -> std::io::Result<()> {
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    stream.write_all(body)
}

fn content_type(file: &Path) -> &'static str {
    match file.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "xml" => "application/xml",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_resolves_outside_the_output() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("site");
        std::fs::create_dir_all(out.join("glossary/warp")).unwrap();
        std::fs::write(out.join("glossary/warp/index.html"), "x").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "s").unwrap();
        assert!(resolve(&out, "/glossary/warp/").is_some());
        assert!(resolve(&out, "/glossary/warp/index.html?x=1").is_some());
        for bad in [
            "/../secret.txt",
            "/%2e%2e/secret.txt",
            "/glossary/../../secret.txt",
            "/%2E%2E%2Fsecret.txt",
            "/..%5csecret.txt",
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
