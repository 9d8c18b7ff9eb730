//! `coursegen serve`: checks the config once, then hands over to `serve`.
use std::net::IpAddr;
use std::path::{Path, PathBuf};

use clap::Args;

use super::{CacheArgs, Failure, load_config, override_base_url};

/// Flags of `coursegen serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Port to listen on (0: any free port; the address is printed).
    #[arg(short, long, default_value_t = 1111)]
    pub port: u16,
    /// Address to listen on. The default answers this machine only; `0.0.0.0` (or `::`)
    /// shows the preview, drafts included, to every machine that can reach this one, by
    /// its address (a phone on the same network, say).
    #[arg(short, long, default_value = "127.0.0.1", value_name = "ADDRESS")]
    pub interface: IpAddr,
    /// Also answer requests that name this machine as NAME (`my-laptop.local`): by default
    /// only an address or `localhost` is answered, which keeps other sites' pages from
    /// reading the preview through DNS rebinding. Repeat for several names.
    #[arg(long = "allow-host", value_name = "NAME", value_parser = host_name)]
    pub allow_hosts: Vec<String>,
    /// Open the preview in the browser once it is served ($BROWSER, if set, is the
    /// browser).
    #[arg(long)]
    pub open: bool,
    /// Serve the publish build instead of the preview with drafts.
    #[arg(long)]
    pub no_drafts: bool,
    /// Serve under the path of this public address, as the site will be published there
    /// (https://user.github.io/course/: the preview is then at
    /// http://127.0.0.1:1111/course/, and `/` redirects there). Without it the preview is
    /// served at `/`, whatever `base_url` coursegen.toml names.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    #[command(flatten)]
    pub cache: CacheArgs,
}

/// A host name as `--allow-host` takes it: letters, digits, `-` and `.`, no port; a final
/// `.` is dropped.
fn host_name(s: &str) -> Result<String, String> {
    // The name in full (`my-laptop.local.`) is the same name.
    let s = s.strip_suffix('.').unwrap_or(s);
    let ok = !s.is_empty()
        && s.len() <= 253
        && s.split('.')
            .all(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'));
    if ok {
        Ok(s.to_string())
    } else {
        Err(format!(
            "`{s}` is not a host name (letters, digits, `-` and `.`, without a port or scheme)"
        ))
    }
}

/// Runs `coursegen serve` until Ctrl-C.
pub(crate) fn run_serve(
    root: &Path,
    config_file: Option<PathBuf>,
    args: ServeArgs,
) -> Result<(), Failure> {
    let mut config = load_config(root, config_file.as_deref())?;
    override_base_url(&mut config, args.base_url.as_deref())?;
    let listen = crate::serve::Listen {
        interface: args.interface,
        port: args.port,
        allow_hosts: args.allow_hosts,
        open: args.open,
        base_url: args
            .base_url
            .is_some()
            .then(|| config.base_url.clone())
            .flatten(),
    };
    crate::serve::serve(
        root,
        listen,
        !args.no_drafts,
        config_file,
        args.cache.dir(root)?,
    )
    .map_err(|e| Failure::Usage(e.into()))
}
