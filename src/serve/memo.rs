//! What `serve` keeps of the check stage between rebuilds: the check stage's memo of a
//! function of one entry ([`EntryMemo`]), one of a site-wide step ([`SiteMemo`]), and the check
//! stage's work wrapped in them ([`CheckMemo`], an `EntryChecks`). An entry the load stage
//! handed over unchanged (the same `Arc`) and asked about with equal arguments gets the
//! result kept for it; any other is checked afresh. A site-wide step whose entries are
//! each unchanged or the same in what the step reads, and whose other inputs are equal,
//! gets its last result. The stage runs the same steps as for `build`, so a rebuild finds
//! exactly the problems a build would. For speed alone: `benches/serve_latency.sh` is the
//! benchmark that justifies it.
use std::any::Any;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use crate::content::{Diagnostic, Entry};
use crate::editorial::policy::{Rules, Verdict};
use crate::site::check::entry_memo::EntryMemo;
use crate::site::check::links::Targets;
use crate::site::check::{self, EntryChecks, PageCx, Parts, SiteWide};

/// The last result of each site-wide step, with what it was made from.
#[derive(Default)]
pub(super) struct SiteMemo {
    /// By step: a [`Kept`] of that step's key and result types.
    steps: Mutex<HashMap<&'static str, Box<dyn Any + Send>>>,
    /// The steps made afresh (a test checks that a body edit makes none).
    #[cfg(test)]
    made: Mutex<Vec<&'static str>>,
}

/// One step's last result and its inputs.
struct Kept<K, V> {
    /// The entries it read: the same allocations as the stage handed over last time, or
    /// (where an entry changed in nothing the step reads) the newer ones.
    entries: Vec<Arc<Entry>>,
    key: K,
    value: V,
}

impl SiteMemo {
    /// The step's last result when `inputs` are the same as then, else `make()` (kept).
    pub(super) fn get_or<K, V>(&self, inputs: SiteWide<'_, K>, make: impl FnOnce() -> V) -> V
    where
        K: PartialEq + Send + 'static,
        V: Clone + Send + 'static,
    {
        let mut steps = self.steps.lock().unwrap_or_else(PoisonError::into_inner);
        let kept = (steps.get_mut(inputs.step)).and_then(|k| k.downcast_mut::<Kept<K, V>>());
        if let Some(kept) = kept
            && kept.key == inputs.key
            && kept.entries.len() == inputs.entries.len()
        {
            let mut same = true;
            for (was, now) in kept.entries.iter_mut().zip(&inputs.entries) {
                if Arc::ptr_eq(was, now) {
                    continue;
                }
                if !(inputs.same)(was, now) {
                    same = false;
                    break;
                }
                // Compared once: the next rebuild finds the same allocation.
                *was = Arc::clone(now);
            }
            if same {
                return kept.value.clone();
            }
        }
        let value = make();
        #[cfg(test)]
        (self.made.lock().unwrap_or_else(PoisonError::into_inner)).push(inputs.step);
        let kept = Kept {
            entries: inputs.entries.into_iter().cloned().collect(),
            key: inputs.key,
            value: value.clone(),
        };
        steps.insert(inputs.step, Box::new(kept));
        value
    }
}

/// The check stage's per-entry work through [`EntryMemo`]s. Valid only for the options,
/// config, records and kernels it was filled with: its owner makes a new one when one of
/// those changes.
#[derive(Default)]
pub(super) struct CheckMemo {
    verdicts: EntryMemo<Rules, Verdict>,
    /// Parts of entries whose code blocks read no file (those files may change unseen).
    parts: EntryMemo<(), Arc<Parts>>,
    /// Link problems, by the generation of the targets they were found against.
    links: EntryMemo<u64, Arc<[Diagnostic]>>,
    /// The targets of the current generation (equal targets give every link the same
    /// verdict), and the generation's number.
    targets: RwLock<Option<Arc<Targets>>>,
    generation: AtomicU64,
    /// The address of those targets, read without a lock by every entry's call (they are
    /// kept alive above, so the address names them until replaced).
    current: AtomicUsize,
    /// The site-wide steps' last results.
    site: SiteMemo,
}

impl CheckMemo {
    /// The site-wide steps made afresh since the last call.
    #[cfg(test)]
    pub(super) fn site_steps_made(&self) -> Vec<&'static str> {
        std::mem::take(
            &mut *self
                .site
                .made
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    /// Ends a rebuild: what it did not ask for is dropped.
    pub(super) fn keep_only_seen(&mut self) {
        self.verdicts.keep_only_seen();
        self.parts.keep_only_seen();
        self.links.keep_only_seen();
    }

    /// The generation of `targets`: the same as last time when they are equal (compared
    /// once a rebuild: the stage hands every entry the same `Arc`).
    fn generation(&self, targets: &Arc<Targets>) -> u64 {
        let address = Arc::as_ptr(targets) as usize;
        if self.current.load(Ordering::Acquire) == address {
            return self.generation.load(Ordering::Acquire);
        }
        let mut kept = self.targets.write().unwrap_or_else(PoisonError::into_inner);
        if !kept.as_ref().is_some_and(|t| Arc::ptr_eq(t, targets)) {
            if kept.as_ref().is_none_or(|t| **t != **targets) {
                self.generation.fetch_add(1, Ordering::AcqRel);
            }
            *kept = Some(Arc::clone(targets));
            self.current.store(address, Ordering::Release);
        }
        self.generation.load(Ordering::Acquire)
    }
}

impl EntryChecks for CheckMemo {
    fn verdict(&self, entry: &Arc<Entry>, rules: &Rules) -> Verdict {
        let judge = || check::Direct.verdict(entry, rules);
        // A pinned entry that shows files is judged again each rebuild: those files may
        // change unseen, and its pin covers them.
        let keep = |_: &Verdict| !crate::editorial::policy::pin::may_show_files(entry);
        self.verdicts.get_or(entry, rules.clone(), judge, keep)
    }

    fn parts(&self, entry: &Arc<Entry>, cx: &PageCx<'_>) -> Arc<Parts> {
        let compute = || check::Direct.parts(entry, cx);
        self.parts.get_or(entry, (), compute, |p| !p.reads_files())
    }

    fn link_problems(
        &self,
        entry: &Arc<Entry>,
        parts: &Parts,
        targets: &Arc<Targets>,
    ) -> Arc<[Diagnostic]> {
        let generation = self.generation(targets);
        let compute = || check::Direct.link_problems(entry, parts, targets);
        // Kept only with the parts whose links they are.
        let keep = |_: &Arc<[Diagnostic]>| !parts.reads_files();
        self.links.get_or(entry, generation, compute, keep)
    }

    fn site_wide<K, V>(&self, inputs: SiteWide<'_, K>, make: impl FnOnce() -> V) -> V
    where
        K: PartialEq + Send + 'static,
        V: Clone + Send + 'static,
    {
        self.site.get_or(inputs, make)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::site::check::entry_memo::tests::entry;

    #[test]
    fn a_site_wide_result_is_kept_while_its_inputs_are_the_same() {
        fn inputs(entries: Vec<&Arc<Entry>>, key: u32) -> SiteWide<'_, u32> {
            SiteWide {
                step: "titles",
                entries,
                same: |a, b| a.meta.title == b.meta.title,
                key,
            }
        }
        let memo = SiteMemo::default();
        let (a, b, c) = (entry("A"), entry("B"), entry("C"));
        let calls = std::cell::Cell::new(0);
        let make = |v: &str| {
            calls.set(calls.get() + 1);
            v.to_string()
        };
        assert_eq!(
            memo.get_or(inputs(vec![&a, &b], 1), || make("first")),
            "first"
        );
        assert_eq!(memo.get_or(inputs(vec![&a, &b], 1), || make("x")), "first");
        // Another allocation, the same in what the step reads: kept.
        let b2 = entry("B");
        assert_eq!(memo.get_or(inputs(vec![&a, &b2], 1), || make("x")), "first");
        assert_eq!(calls.get(), 1);
        // An entry that differs in what it reads, another order, one more, another key.
        assert_eq!(memo.get_or(inputs(vec![&a, &c], 1), || make("c")), "c");
        assert_eq!(memo.get_or(inputs(vec![&c, &a], 1), || make("ca")), "ca");
        assert_eq!(
            memo.get_or(inputs(vec![&c, &a, &b], 1), || make("cab")),
            "cab"
        );
        assert_eq!(
            memo.get_or(inputs(vec![&c, &a, &b], 2), || make("key 2")),
            "key 2"
        );
        assert_eq!(calls.get(), 5);
        // Another step keeps its own.
        let other = SiteWide {
            step: "other",
            ..inputs(vec![&c, &a, &b], 2)
        };
        assert_eq!(memo.get_or(other, || make("other")), "other");
        assert_eq!(
            memo.get_or(inputs(vec![&c, &a, &b], 2), || make("x")),
            "key 2"
        );
    }
}
