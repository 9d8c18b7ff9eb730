//! A memo of a function of one entry: a result kept with the entry it was computed for
//! (the load stage's allocation) and the key of the function's other arguments, handed out
//! again for the same entry and an equal key. `coursegen check` keeps each entry's parts
//! from its first check for its second ([`super::TwoChecks`]); `coursegen serve` keeps the
//! check stage's per-entry results between rebuilds.
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

use crate::content::Entry;

/// Results of a function of one entry, each kept with the entry it was computed for (so
/// its address is not reused while kept) and the key of the other arguments.
pub(crate) struct EntryMemo<K, V> {
    /// By the entry's address, in shards read-locked for a hit, so that the check stage's
    /// workers rarely touch one lock at once (`benches/serve_latency.sh`).
    shards: [RwLock<Slots<K, V>>; SHARDS],
}

/// One shard's results, by the entry's address.
type Slots<K, V> = HashMap<usize, Slot<K, V>, ByAddress>;

const SHARDS: usize = 64;

/// Hashes an entry's address with one folded multiplication: addresses are ours, not the
/// content's, so a keyed hash buys nothing here, and three of them per entry were a good
/// part of a one-entry rebuild (`benches/serve_latency.sh`).
#[derive(Default, Clone, Copy)]
struct ByAddress;

impl std::hash::BuildHasher for ByAddress {
    type Hasher = AddressHasher;

    fn build_hasher(&self) -> AddressHasher {
        AddressHasher(0)
    }
}

/// The hasher of [`ByAddress`].
struct AddressHasher(u64);

impl AddressHasher {
    fn mix(&mut self, word: u64) {
        // The high half of the product folded onto the low: every bit of the address
        // reaches the bits the table picks a bucket by, and those it compares first.
        let product = u128::from(self.0 ^ word) * 0x9e37_79b9_7f4a_7c15;
        self.0 = (product as u64) ^ ((product >> 64) as u64);
    }
}

impl std::hash::Hasher for AddressHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.mix(u64::from(b));
        }
    }

    fn write_usize(&mut self, address: usize) {
        self.mix(address as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

struct Slot<K, V> {
    entry: Arc<Entry>,
    key: K,
    value: V,
    /// Asked for in the current rebuild.
    seen: AtomicBool,
}

impl<K, V> Default for EntryMemo<K, V> {
    fn default() -> Self {
        EntryMemo {
            shards: std::array::from_fn(|_| RwLock::new(HashMap::with_hasher(ByAddress))),
        }
    }
}

impl<K: PartialEq, V: Clone> EntryMemo<K, V> {
    /// What `compute` returned for this same entry under an equal `key`, else `compute()`,
    /// kept unless `keep` says it holds only for now.
    pub(crate) fn get_or(
        &self,
        entry: &Arc<Entry>,
        key: K,
        compute: impl FnOnce() -> V,
        keep: impl FnOnce(&V) -> bool,
    ) -> V {
        let address = Arc::as_ptr(entry) as usize;
        // Entries are large allocations: the bits above the lowest few tell them apart.
        let shard = &self.shards[(address >> 8) % SHARDS];
        {
            let slots = shard.read().unwrap_or_else(PoisonError::into_inner);
            if let Some(slot) = slots.get(&address)
                && Arc::ptr_eq(&slot.entry, entry)
                && slot.key == key
            {
                if !slot.seen.load(Ordering::Relaxed) {
                    slot.seen.store(true, Ordering::Relaxed);
                }
                return slot.value.clone();
            }
        }
        let value = compute();
        let mut slots = shard.write().unwrap_or_else(PoisonError::into_inner);
        if keep(&value) {
            let slot = Slot {
                entry: Arc::clone(entry),
                key,
                value: value.clone(),
                seen: AtomicBool::new(true),
            };
            slots.insert(address, slot);
        } else {
            slots.remove(&address);
        }
        value
    }

    /// Drops what the last rebuild did not ask for (entries gone or changed), and starts
    /// the next.
    pub(crate) fn keep_only_seen(&mut self) {
        for shard in &mut self.shards {
            let slots = shard.get_mut().unwrap_or_else(PoisonError::into_inner);
            slots.retain(|_, slot| std::mem::take(slot.seen.get_mut()));
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// An entry titled `title`, in an allocation of its own (serve's memo tests use it too).
    pub(crate) fn entry(title: &str) -> Arc<Entry> {
        let text = format!("---\ntitle: {title}\n---\nBody.\n");
        let file = std::path::Path::new("content/glossary/x.md");
        Arc::new(crate::content::load::parse_entry(file, &text).expect("parses"))
    }

    #[test]
    fn a_result_is_kept_for_the_same_entry_and_key_only() {
        let memo: EntryMemo<u32, String> = EntryMemo::default();
        let (a, b) = (entry("A"), entry("A"));
        let calls = std::cell::Cell::new(0);
        let compute = |v: &str| {
            calls.set(calls.get() + 1);
            v.to_string()
        };
        assert_eq!(memo.get_or(&a, 1, || compute("first"), |_| true), "first");
        assert_eq!(memo.get_or(&a, 1, || compute("again"), |_| true), "first");
        // An equal entry in another allocation is another entry: it changed on disk.
        assert_eq!(memo.get_or(&b, 1, || compute("other"), |_| true), "other");
        // Another key computes again and replaces the kept result.
        assert_eq!(memo.get_or(&a, 2, || compute("key 2"), |_| true), "key 2");
        assert_eq!(memo.get_or(&a, 2, || compute("x"), |_| true), "key 2");
        assert_eq!(calls.get(), 3);
        // A result that holds only for now is not kept.
        assert_eq!(memo.get_or(&a, 3, || compute("now"), |_| false), "now");
        assert_eq!(memo.get_or(&a, 3, || compute("now 2"), |_| false), "now 2");
        assert_eq!(calls.get(), 5);
    }

    #[test]
    fn what_a_rebuild_did_not_ask_for_is_dropped() {
        let mut memo: EntryMemo<(), u32> = EntryMemo::default();
        let (a, b) = (entry("A"), entry("B"));
        memo.get_or(&a, (), || 1, |_| true);
        memo.get_or(&b, (), || 2, |_| true);
        memo.keep_only_seen();
        // The next rebuild asks for `a` only.
        assert_eq!(memo.get_or(&a, (), || 10, |_| true), 1);
        memo.keep_only_seen();
        assert_eq!(memo.get_or(&a, (), || 10, |_| true), 1);
        assert_eq!(memo.get_or(&b, (), || 20, |_| true), 20);
    }
}
