//! What the course's pages need of a kernel's records — the rows its table and prose quote,
//! and the rows whose hardware counters they show — so that `measure` never replaces a
//! record with one that lacks them (the build would then fail, or show "not measured").
//! Pure: built from the manifest's table and from what `bindings::bound` found in the
//! entries that measure the kernel. Uses `manifest` and `record`.
use std::collections::BTreeSet;

use super::manifest::{ColumnId, Manifest};
use super::record::Record;

/// Rows the pages quote, and rows whose counters they show.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Needs {
    /// Row labels a table or a binding shows.
    pub(crate) rows: BTreeSet<String>,
    /// Row labels whose hardware counters a table column or a `counter` binding shows.
    pub(crate) counters: BTreeSet<String>,
}

impl Needs {
    /// What the kernel's own table shows: its rows, and their counters when it has a
    /// `counter` column.
    pub(crate) fn of_table(m: &Manifest) -> Needs {
        let rows: BTreeSet<String> = m.table.rows.iter().cloned().collect();
        let counted = m.table.columns.iter().any(|c| c.id == ColumnId::Counter);
        Needs {
            counters: if counted {
                rows.clone()
            } else {
                BTreeSet::new()
            },
            rows,
        }
    }

    /// Adds what else the pages bind.
    pub(crate) fn add(&mut self, other: &Needs) {
        self.rows.extend(other.rows.iter().cloned());
        self.counters.extend(other.counters.iter().cloned());
        self.rows.extend(other.counters.iter().cloned());
    }

    /// What `old` gives the pages that a record with rows `has_row` and counters on rows
    /// `has_counters` would not, one phrase each ("hardware counters on rows S1, S8");
    /// empty when the new record is no worse for the pages.
    pub(crate) fn lost_by(
        &self,
        old: &Record,
        has_row: impl Fn(&str) -> bool,
        has_counters: impl Fn(&str) -> bool,
    ) -> Vec<String> {
        // In the sweep's order, as the old record has its rows.
        let labels = || old.rows.iter().map(|r| r.label.as_str());
        let rows: Vec<&str> = labels()
            .filter(|l| self.rows.contains(*l) && !has_row(l))
            .collect();
        let counters: Vec<&str> = labels()
            .filter(|l| self.counters.contains(*l))
            .filter(|l| old.row(l).is_some_and(|r| r.counters.is_some()))
            .filter(|l| has_row(l) && !has_counters(l))
            .collect();
        let mut lost = Vec::new();
        if !rows.is_empty() {
            lost.push(format!("{} {}", plural("row", rows.len()), list(&rows)));
        }
        if !counters.is_empty() {
            lost.push(format!(
                "hardware counters on {} {}",
                plural("row", counters.len()),
                list(&counters)
            ));
        }
        lost
    }

    /// [`Needs::lost_by`] a record `new` that would replace `old`.
    #[cfg(test)]
    pub(crate) fn lost(&self, old: &Record, new: &Record) -> Vec<String> {
        self.lost_by(
            old,
            |l| new.row(l).is_some(),
            |l| new.row(l).is_some_and(|r| r.counters.is_some()),
        )
    }
}

fn plural(word: &str, n: usize) -> String {
    if n == 1 {
        word.to_owned()
    } else {
        format!("{word}s")
    }
}

fn list(labels: &[&str]) -> String {
    labels.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measurement::record::{Counters, fixture};

    fn counted(mut r: Record) -> Record {
        for row in &mut r.rows {
            row.counters = Some(Counters {
                what: "w".into(),
                metric: "m".into(),
                count: 2,
                requests: 1,
                requests_metric: "r".into(),
            });
        }
        r
    }

    fn table() -> Needs {
        let m = Manifest::parse(
            std::path::Path::new("kernels/bank_conflicts.yaml"),
            crate::measurement::manifest::FIXTURE,
        )
        .unwrap();
        Needs::of_table(&m)
    }

    #[test]
    fn the_table_needs_its_rows_and_their_counters() {
        let needs = table();
        let rows = ["32L", "33L", "L"].map(String::from);
        assert_eq!(needs.rows, rows.iter().cloned().collect());
        assert_eq!(
            needs.counters, needs.rows,
            "the manifest shows a counter column"
        );
    }

    #[test]
    fn a_record_without_counters_would_lose_what_the_table_shows() {
        let mut plain = fixture::record("Fixture GPU", b"s", b"m");
        for row in &mut plain.rows {
            row.counters = None;
        }
        let with = counted(plain.clone());
        let needs = table();
        assert_eq!(
            needs.lost(&with, &plain),
            ["hardware counters on rows L, 32L, 33L"]
        );
        assert!(needs.lost(&with, &with).is_empty());
        assert!(needs.lost(&plain, &plain).is_empty(), "nothing to lose");
        assert!(needs.lost(&plain, &with).is_empty(), "a gain");
        // Prose that quotes another row's counter needs that row's too.
        let mut more = needs.clone();
        more.add(&Needs {
            rows: BTreeSet::new(),
            counters: ["2L".to_owned()].into(),
        });
        let mut partly = with.clone();
        partly.rows[1].counters = None; // 2L
        assert_eq!(more.lost(&with, &partly), ["hardware counters on row 2L"]);
        assert!(
            table().lost(&with, &partly).is_empty(),
            "the table shows no 2L"
        );
        let mut fewer = with.clone();
        fewer.rows.retain(|r| r.label != "33L");
        assert_eq!(needs.lost(&with, &fewer), ["row 33L"]);
    }
}
