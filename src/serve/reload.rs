//! The push channel that reloads open pages: a Server-Sent Events stream that announces
//! each finished rebuild, the state it ended in (build number and errors, as JSON), and the
//! external script pages load to follow it — external, so a strict Content-Security-Policy
//! (`script-src 'self'`) allows it.
use std::io::Write;
use std::net::TcpStream;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;

/// Where pages load the script from.
pub(super) const SCRIPT_PATH: &str = "/__coursegen/reload.js";
/// The event stream.
pub(super) const EVENTS_PATH: &str = "/__coursegen/events";
/// The state as JSON (what the script shows when a rebuild failed).
pub(super) const STATE_PATH: &str = "/__coursegen/state";
/// Added to every HTML response, after the page.
pub(super) const SCRIPT_TAG: &str = "<script src=\"/__coursegen/reload.js\"></script>\n";

/// The script: follows the event stream, reloads when a build succeeded, and shows the
/// errors of a failed one over the last good page. Errors are content, hence untrusted:
/// they are set as text, never as HTML.
pub(super) const SCRIPT: &str = r#"(() => {
  let shown = null;
  function overlay(errors) {
    let box = document.getElementById('coursegen-errors');
    if (!errors.length) { if (box) box.remove(); return; }
    if (!box) {
      box = document.createElement('div');
      box.id = 'coursegen-errors';
      box.setAttribute('role', 'alert');
      box.style.cssText = 'position:fixed;inset:0;overflow:auto;z-index:2147483647;' +
        'background:rgba(20,20,20,.94);color:#fff;font:14px/1.5 monospace;padding:2em;';
      document.body.appendChild(box);
    }
    box.textContent = '';
    const h = document.createElement('h2');
    h.textContent = 'coursegen: the rebuild failed; this is the last good page';
    box.appendChild(h);
    for (const e of errors) {
      const p = document.createElement('pre');
      p.style.whiteSpace = 'pre-wrap';
      p.textContent = e;
      box.appendChild(p);
    }
  }
  function apply(state) {
    if (shown !== null && state.version !== shown && state.ok) { location.reload(); return; }
    shown = state.version;
    overlay(state.errors);
  }
  const events = new EventSource('/__coursegen/events');
  events.onmessage = (m) => apply(JSON.parse(m.data));
})();
"#;

/// What the last rebuild left: its number, and its errors when it failed.
#[derive(Debug, Clone, Default, Serialize)]
pub(super) struct State {
    /// Counts finished rebuilds, failed ones included.
    pub(super) version: u64,
    /// True when the last rebuild succeeded (the output is current).
    pub(super) ok: bool,
    /// One line per problem ("file:line: message"), empty when it succeeded.
    pub(super) errors: Vec<String>,
}

/// Fans each new state out to every open event stream.
#[derive(Clone, Default)]
pub(super) struct Hub {
    inner: Arc<Mutex<(State, Vec<Sender<State>>)>>,
}

impl Hub {
    /// The current state.
    pub(super) fn state(&self) -> State {
        self.lock().0.clone()
    }

    /// Records a finished rebuild and tells every listener.
    pub(super) fn publish(&self, ok: bool, errors: Vec<String>) {
        let mut g = self.lock();
        let state = State {
            version: g.0.version + 1,
            ok,
            errors,
        };
        g.1.retain(|tx| tx.send(state.clone()).is_ok());
        g.0 = state;
    }

    fn subscribe(&self) -> (State, Receiver<State>) {
        let (tx, rx) = channel();
        let mut g = self.lock();
        g.1.push(tx);
        (g.0.clone(), rx)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (State, Vec<Sender<State>>)> {
        // A listener thread that panicked cannot leave the state half-written.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Serves one event stream until the browser goes away: the current state first, then one
/// event per rebuild, and a comment every 15 s so a closed tab is noticed.
pub(super) fn stream(mut s: TcpStream, hub: &Hub) -> std::io::Result<()> {
    s.set_write_timeout(Some(Duration::from_secs(5)))?;
    write!(
        s,
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n\
         X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\nretry: 500\n\n"
    )?;
    let (first, rx) = hub.subscribe();
    event(&mut s, &first)?;
    loop {
        match rx.recv_timeout(Duration::from_secs(15)) {
            Ok(state) => event(&mut s, &state)?,
            Err(RecvTimeoutError::Timeout) => s.write_all(b": ping\n\n")?,
            Err(RecvTimeoutError::Disconnected) => return Ok(()),
        }
        s.flush()?;
    }
}

fn event(s: &mut TcpStream, state: &State) -> std::io::Result<()> {
    // serde_json escapes newlines, so the payload is one `data:` line.
    let json = serde_json::to_string(state).expect("state serialises");
    write!(s, "data: {json}\n\n")?;
    s.flush()
}
