//! `coursegen serve`: builds the preview into a private folder, serves it (on 127.0.0.1
//! unless told another address), rebuilds what a change affects as soon as the file watcher reports it, and pushes the
//! outcome to open pages (reload, or the errors over the last good page). Split by job:
//! `http` (requests, limits, paths), `watch` (file events), `rebuild` (incremental stages),
//! `reload` (the push channel and its script). Never serves a file outside the output.
use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::site::options::BuildOptions;

mod http;
mod memo;
mod rebuild;
mod reload;
mod slots;
#[cfg(test)]
mod tests;
mod watch;

pub(crate) use watch::WatchError;

/// Connections held at once (each holds a thread, event streams too); past it, one still
/// reading its request or the oldest event stream gives way (`slots`).
const MAX_CONNECTIONS: usize = 64;

/// Why the preview server could not start.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ServeError {
    /// No temporary folder for the preview build.
    #[error("cannot create a folder for the preview build: {0}")]
    TempDir(std::io::Error),
    /// The port is taken or not allowed, or the address is not this machine's.
    #[error(
        "cannot listen on {addr}: {error}; pick another port with --port, or another address with --interface"
    )]
    Listen {
        /// The address and port asked for.
        addr: SocketAddr,
        /// Why.
        error: std::io::Error,
    },
    /// The file watcher could not start.
    #[error(transparent)]
    Watch(#[from] WatchError),
    /// Ctrl-C and SIGTERM could not be caught (the temporary folder would be left behind).
    #[error("cannot install the Ctrl-C handler: {0}")]
    Signal(#[from] ctrlc::Error),
}

/// Where `serve` listens and whom it answers.
#[derive(Debug, Clone)]
pub(crate) struct Listen {
    /// The address to listen on: `127.0.0.1` by default; `0.0.0.0` or `::` for every
    /// interface.
    pub(crate) interface: IpAddr,
    /// The port (0: any free one).
    pub(crate) port: u16,
    /// Host names answered besides addresses and `localhost` (`--allow-host`).
    pub(crate) allow_hosts: Vec<String>,
    /// Open the served address in the browser once listening.
    pub(crate) open: bool,
    /// `--base-url`, checked: the site is built for this address and served under its
    /// path (`None`: built and served at `/`, whatever the config says).
    pub(crate) base_url: Option<String>,
}

impl Listen {
    /// The address a browser on this machine opens for `bound`: the loopback address of
    /// the same family when it listens on every interface, and the base path.
    fn local_url(bound: SocketAddr, base: &str) -> String {
        let ip = match bound.ip() {
            IpAddr::V4(a) if a.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V6(a) if a.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
            ip => ip,
        };
        format!("http://{}{base}", SocketAddr::new(ip, bound.port()))
    }

    /// The path the site is served under: `/`, or `--base-url`'s (`/course/`), as the
    /// config says a base path is (`Config::root`).
    fn base_path(&self) -> String {
        let mut config = crate::config::Config::default();
        match &self.base_url {
            Some(url) if config.override_base_url(url).is_ok() => config.root,
            _ => "/".into(),
        }
    }
}

/// Builds the preview into a private folder and serves it on `listen`'s address until
/// Ctrl-C or SIGTERM, which remove the folder before exiting. The site is served at `/`
/// whatever the configured base path, or under `listen.base_url`'s path; the config
/// (`config_file`, or the root's coursegen.toml) is read again on every rebuild. Diagrams are rasterised through the
/// cache in `cache_dir`, if any.
pub(crate) fn serve(
    root: &Path,
    listen: Listen,
    drafts: bool,
    config_file: Option<PathBuf>,
    cache_dir: Option<PathBuf>,
) -> Result<(), ServeError> {
    // Listening comes first: a port taken fails at once, before any folder is made.
    let asked = SocketAddr::new(listen.interface, listen.port);
    let failed = |error| ServeError::Listen { addr: asked, error };
    let listener = TcpListener::bind(asked).map_err(failed)?;
    let bound = listener.local_addr().map_err(failed)?;
    let root = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
    let dir = tempfile::Builder::new()
        .prefix("coursegen-serve-")
        .tempdir()
        .map_err(ServeError::TempDir)?;
    let out = dir.path().join("site");
    let base: Arc<str> = listen.base_path().into();
    let opts = BuildOptions {
        drafts,
        strict: false,
        highlight: true,
        out: Some(out.clone()),
        config: crate::config::Config::default(),
        review_max_age_days: crate::editorial::policy::DEFAULT_REVIEW_MAX_AGE_DAYS,
        // A bad SOURCE_DATE_EPOCH reads the clock: the preview still serves.
        epoch: crate::editorial::policy::source_date_epoch().ok().flatten(),
        trusted_ref: None,
        check_signatures: true,
        cache_dir,
        // Indexing for search is the dearest part of a build (BENCHMARKS.md, Search): too
        // slow to redo on every save.
        search: false,
    };
    let rebuilder = Arc::new(Mutex::new(rebuild::Rebuilder::new(
        &root,
        opts,
        config_file.map(|f| std::path::absolute(&f).unwrap_or(f)),
        listen.base_url.clone(),
        &out,
    )));
    // Watching starts before the first build, so an edit made while it runs is not missed.
    let config_path = lock(&rebuilder).config_path();
    let changes = watch::Changes::watch(&root, &config_path)?;
    // The handler owns the folder from here: any error before it drops (removes) it.
    {
        // Holding the rebuilder's lock means no rebuild is writing while the folder goes.
        let (rebuilder, dir) = (rebuilder.clone(), Mutex::new(Some(dir)));
        ctrlc::set_handler(move || {
            let _busy = rebuilder.lock();
            if let Some(d) = dir.lock().ok().and_then(|mut d| d.take()) {
                let _ = d.close();
            }
            std::process::exit(130);
        })?;
    }
    let hub = reload::Hub::default();
    run_rebuild(&rebuilder, &hub);
    let url = Listen::local_url(bound, &base);
    announce(&url, bound, drafts, listen.open);
    let allow_hosts: Arc<[String]> = listen.allow_hosts.into();
    {
        let (rebuilder, hub) = (rebuilder.clone(), hub.clone());
        std::thread::spawn(move || {
            while let Some(batch) = changes.next_batch() {
                lock(&rebuilder).changed(batch);
                run_rebuild(&rebuilder, &hub);
            }
        });
    }
    let slots = slots::Slots::new(MAX_CONNECTIONS);
    for stream in listener.incoming().flatten() {
        let Some(slot) = slots.take(&stream) else {
            // Every connection is being answered: this one waits for nothing.
            let _ = http::send(
                &mut &stream,
                "503 Service Unavailable",
                "text/plain",
                b"busy\n",
                false,
            );
            continue;
        };
        let (out, hub, hosts) = (out.clone(), hub.clone(), allow_hosts.clone());
        let base = Arc::clone(&base);
        std::thread::spawn(move || {
            let served = Served {
                out: &out,
                base: &base,
                hub: &hub,
                allow_hosts: &hosts,
            };
            let _ = respond(stream, &served, &slot);
        });
    }
    Ok(())
}

/// Says where the preview is served, warns when other machines can read it, and opens it
/// in a browser when asked (`open`).
fn announce(url: &str, bound: SocketAddr, drafts: bool, open: bool) {
    println!(
        "serving {url} (preview{}); Ctrl-C to stop",
        if drafts { " with drafts" } else { "" }
    );
    // `::ffff:127.0.0.1` is the loopback address too.
    if !bound.ip().to_canonical().is_loopback() {
        let whom = if bound.ip().is_unspecified() {
            format!("every interface, port {}", bound.port())
        } else {
            bound.to_string()
        };
        eprintln!(
            "warning: listening on {whom}: any machine that can reach this one can read the \
             preview{}",
            if drafts { ", drafts included" } else { "" }
        );
    }
    let _ = std::io::stdout().flush();
    if open {
        // A browser that fails to start is worth a line, not the server.
        let url = url.to_owned();
        std::thread::spawn(move || {
            if let Err(e) = opener::open_browser(&url) {
                eprintln!("warning: cannot open {url} in a browser: {e}");
            }
        });
    }
}

fn lock(r: &Mutex<rebuild::Rebuilder>) -> std::sync::MutexGuard<'_, rebuild::Rebuilder> {
    r.lock().unwrap_or_else(|p| p.into_inner())
}

/// Rebuilds, logs the outcome and tells open pages.
fn run_rebuild(rebuilder: &Mutex<rebuild::Rebuilder>, hub: &reload::Hub) {
    let result = lock(rebuilder).rebuild();
    match result {
        Ok(d) => {
            let [load, check, render, write] = d.stages;
            println!(
                "rebuilt in {} ms: rendered {} of {} pages, {} files changed \
                 (load {load}, check {check}, render {render}, write {write} ms)",
                d.millis, d.rendered, d.pages, d.written
            );
            hub.publish(true, Vec::new());
        }
        Err(errors) => {
            eprintln!("error: the rebuild failed; still serving the last good build:");
            for e in &errors {
                eprintln!("{e}");
            }
            hub.publish(false, errors);
        }
    }
    let _ = std::io::stdout().flush();
}

/// What a connection is answered from.
struct Served<'a> {
    /// The output folder.
    out: &'a Path,
    /// The path the site is served under (`/`, `/course/`).
    base: &'a str,
    hub: &'a reload::Hub,
    /// Host names answered besides addresses and `localhost`.
    allow_hosts: &'a [String],
}

/// Answers one connection: the reload channel, or a file of the preview.
fn respond(stream: TcpStream, served: &Served<'_>, slot: &slots::Slot) -> std::io::Result<()> {
    let Served {
        out,
        base,
        hub,
        allow_hosts,
    } = *served;
    let mut s = &stream;
    let read = http::read_from(&stream);
    slot.set(slots::Phase::Answering);
    let req = match read {
        Ok(r) => r,
        Err(http::RequestError::Io(e)) => return Err(e),
        Err(e) => {
            return http::send(
                &mut s,
                &e.to_string(),
                "text/plain",
                b"bad request\n",
                false,
            );
        }
    };
    if !http::allowed_host(req.host.as_deref(), allow_hosts) {
        let body = b"coursegen serve answers only a Host that is an address, localhost, or \
                     named by --allow-host\n";
        return http::send(&mut s, "403 Forbidden", "text/plain", body, false);
    }
    let head = match req.method.as_str() {
        "GET" => false,
        "HEAD" => true,
        _ => {
            return http::send(
                &mut s,
                "405 Method Not Allowed",
                "text/plain",
                b"GET or HEAD\n",
                false,
            );
        }
    };
    let path = req.target.split(['?', '#']).next().unwrap_or("/");
    match path {
        reload::EVENTS_PATH if !head => {
            slot.set(slots::Phase::Streaming);
            return reload::stream(stream, hub);
        }
        reload::SCRIPT_PATH => {
            let kind = "text/javascript; charset=utf-8";
            return http::send(&mut s, "200 OK", kind, reload::SCRIPT.as_bytes(), head);
        }
        reload::STATE_PATH => {
            let json = serde_json::to_vec(&hub.state()).expect("state serialises");
            return http::send(&mut s, "200 OK", "application/json", &json, head);
        }
        _ => {}
    }
    let Some(target) = http::under_base(&req.target, base) else {
        return outside_base(&mut s, path, base, head);
    };
    let found: Option<(PathBuf, Vec<u8>)> =
        http::resolve(out, target).and_then(|f| std::fs::read(&f).ok().map(|b| (f, b)));
    let Some((file, mut body)) = found else {
        // An HTML 404 that follows the reload channel: a page that failed its first build
        // shows the errors, and appears once fixed.
        let body = format!(
            "<!doctype html><title>Not found</title><p>Not found.</p>\n{}",
            reload::SCRIPT_TAG
        );
        return http::send(
            &mut s,
            "404 Not Found",
            "text/html; charset=utf-8",
            body.as_bytes(),
            head,
        );
    };
    let kind = http::content_type(&file);
    if kind.starts_with("text/html") {
        body.extend_from_slice(reload::SCRIPT_TAG.as_bytes());
    }
    http::send(&mut s, "200 OK", kind, &body, head)
}

/// Answers a path outside the base path: `/` (and the base path without its final `/`)
/// redirect to it; anything else is not found, and the page says where the site is.
fn outside_base(s: &mut &TcpStream, path: &str, base: &str, head: bool) -> std::io::Result<()> {
    if path == "/" || path == base.trim_end_matches('/') {
        return http::redirect(s, base, head);
    }
    let shown = crate::html::escape(base);
    let body = format!(
        "<!doctype html><title>Not found</title><p>Not found. The preview is served under \
         <a href=\"{shown}\">{shown}</a>, the path of <code>--base-url</code>.</p>\n{}",
        reload::SCRIPT_TAG
    );
    let kind = "text/html; charset=utf-8";
    http::send(s, "404 Not Found", kind, body.as_bytes(), head)
}
