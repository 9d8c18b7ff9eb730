//! The connections `serve` holds at once, and who gives way when they are all taken: a
//! connection still reading its request (the slowest, first), then the oldest event
//! stream — never one being answered. So a page that opens many slow connections or event
//! streams (all clients are this machine's) cannot make `serve` answer everyone else 503.
use std::net::{Shutdown, TcpStream};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

/// What a connection is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    /// Reading its request: it may be a slow client that sends nothing.
    Reading,
    /// Being answered: a file or an error.
    Answering,
    /// An event stream, open for as long as the tab is.
    Streaming,
}

struct Held {
    id: u64,
    stream: TcpStream,
    phase: Phase,
    since: Instant,
}

/// The open connections, at most `max`.
#[derive(Clone)]
pub(super) struct Slots {
    inner: Arc<Mutex<(u64, Vec<Held>)>>,
    max: usize,
}

/// One connection's place among the [`Slots`]; given back when dropped.
pub(super) struct Slot {
    slots: Slots,
    id: u64,
}

impl Slots {
    /// Room for `max` connections.
    pub(super) fn new(max: usize) -> Self {
        Slots {
            inner: Arc::default(),
            max,
        }
    }

    /// A place for `stream`, making room when all are taken by closing the connection that
    /// gives way (see the module's head); `None` when every one is being answered.
    pub(super) fn take(&self, stream: &TcpStream) -> Option<Slot> {
        let mut g = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let (next, held) = &mut *g;
        if held.len() >= self.max {
            let evict = (held.iter().enumerate())
                .filter(|(_, h)| h.phase != Phase::Answering)
                .min_by_key(|(_, h)| (h.phase != Phase::Reading, h.since))
                .map(|(i, _)| i)?;
            let gone = held.swap_remove(evict);
            let _ = gone.stream.shutdown(Shutdown::Both);
        }
        let clone = stream.try_clone().ok()?;
        *next += 1;
        held.push(Held {
            id: *next,
            stream: clone,
            phase: Phase::Reading,
            since: Instant::now(),
        });
        Some(Slot {
            slots: self.clone(),
            id: *next,
        })
    }

    /// How many connections are held (for tests).
    #[cfg(test)]
    fn held(&self) -> usize {
        self.inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .1
            .len()
    }
}

impl Slot {
    /// Notes what the connection does now.
    pub(super) fn set(&self, phase: Phase) {
        let mut g = self
            .slots
            .inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(h) = g.1.iter_mut().find(|h| h.id == self.id) {
            h.phase = phase;
            h.since = Instant::now();
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut g = self
            .slots
            .inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        g.1.retain(|h| h.id != self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::net::TcpListener;

    #[test]
    fn slow_readers_then_old_streams_give_way_and_answers_never_do() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        // (the client's end, the server's end)
        let accept = || {
            let client = TcpStream::connect(addr).unwrap();
            (client, listener.accept().unwrap().0)
        };
        let closed = |client: &mut TcpStream| client.read(&mut [0u8; 1]).unwrap() == 0;
        let slots = Slots::new(3);
        let ((mut ca, a), (_cb, b), (mut cc, c)) = (accept(), accept(), accept());
        let sa = slots.take(&a).unwrap();
        let sb = slots.take(&b).unwrap();
        let sc = slots.take(&c).unwrap();
        sa.set(Phase::Streaming);
        sb.set(Phase::Answering);
        // Full: the one still reading (c) gives way.
        let (_cd, d) = accept();
        let sd = slots.take(&d).unwrap();
        assert_eq!(slots.held(), 3);
        assert!(closed(&mut cc), "c was closed");
        drop(sc);
        assert_eq!(slots.held(), 3, "c's place was already taken");
        // Full again: then the event stream (a), never the answer (b).
        sd.set(Phase::Answering);
        let (_ce, e) = accept();
        let se = slots.take(&e).unwrap();
        assert!(closed(&mut ca), "a was closed");
        drop(sa);
        // Everything being answered: no room.
        se.set(Phase::Answering);
        let (_cf, f) = accept();
        assert!(slots.take(&f).is_none());
        drop(sb);
        assert!(slots.take(&f).is_some());
    }
}
