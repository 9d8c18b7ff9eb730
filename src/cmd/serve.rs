//! `coursegen serve`: checks the config once, then hands over to `serve`.
use std::net::IpAddr;
use std::path::{Path, PathBuf};

use clap::Args;

use super::{CacheArgs, Failure, load_config};

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
    load_config(root, config_file.as_deref())?;
    let listen = crate::serve::Listen {
        interface: args.interface,
        port: args.port,
        allow_hosts: args.allow_hosts,
        open: args.open,
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
