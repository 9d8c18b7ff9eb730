//! The Measured section of an entry, without a GPU: from a kernel's manifest and its records,
//! a serializable view (one table per GPU, the provenance sentence, model-versus-measurement
//! warnings) for `templates/measured.html`, and what a build says of it (`problems`). Uses
//! `record` and `manifest` and the bank, coalescing and divergence models.
use crate::bank::model as bank_model;
mod gpus;
mod problems;
mod shape;
mod table;

use crate::bank::access::AccessKind;
use crate::measurement::contract;
use crate::measurement::manifest::{Manifest, ManifestError};
use crate::measurement::record::{Freshness, KernelFiles, Loaded, Record, RecordSet, Row};

pub(crate) use shape::{ColumnView, DeviceView, MeasuredView, RowView};

/// Reading a kernel's files for its view failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum MeasuredError {
    /// The entry names a kernel whose source is missing or unreadable.
    #[error("cannot read `{path}` for `measure: {kernel}`: {error}; is the kernel name right?")]
    Kernel {
        /// The kernel named in front matter.
        kernel: String,
        /// The file.
        path: std::path::PathBuf,
        /// The I/O error.
        error: std::io::Error,
    },
    /// The kernel's manifest is invalid.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
}

/// A kernel as `view` needs it: name, checked manifest, and the bytes whose hashes decide
/// staleness.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Kernel<'a> {
    /// Kernel name.
    pub(crate) name: &'a str,
    /// Its manifest.
    pub(crate) manifest: &'a Manifest,
    /// Current bytes of `kernels/<name>.cu`.
    pub(crate) source: &'a [u8],
    /// Current bytes of `kernels/<name>.yaml`.
    pub(crate) manifest_bytes: &'a [u8],
    /// The contract header the course compiles with (`contract::header`).
    pub(crate) header: &'a [u8],
}

/// Builds the view of one kernel from its records (pure: no I/O, no GPU).
pub(crate) fn view(kernel: Kernel<'_>, records: &[Loaded]) -> MeasuredView {
    let m = kernel.manifest;
    // One table per GPU model: the records of several GPUs of one model merge into it.
    let devices: Vec<DeviceView> = gpus::by_model(records)
        .iter()
        .map(|group| {
            let (merged, spread) = gpus::merge(group);
            let mut d = device_view(kernel, &merged);
            d.sources = group.iter().map(|l| (*l).clone()).collect();
            if group.len() > 1 {
                d.gpus = group.len();
                for row in d.rows.iter_mut().chain(d.sweep.iter_mut()) {
                    row.gpu_spread = spread.get(&row.label).copied().unwrap_or(0.0);
                }
                d.provenance = table::provenance_of_several(group, &d);
                if let Some(stale) = group.iter().map(|l| staleness(kernel, l)).find(|s| s.0) {
                    (d.stale, d.stale_note) = stale;
                }
            }
            d
        })
        .collect();
    MeasuredView {
        kernel: kernel.name.to_owned(),
        columns: m
            .table
            .columns
            .iter()
            .map(|c| ColumnView {
                id: c.id,
                heading: c.heading.clone(),
            })
            .collect(),
        labels: m.axis.labels.clone(),
        devices,
        not_measured: format!(
            "Run coursegen measure --gpu --kernel {0} on a GPU machine and commit \
             measurements/{0}/.",
            kernel.name
        ),
    }
}

/// Builds the view of `kernel` from its source and manifest in `kernels` and from `records`.
pub(crate) fn load(
    kernels: &KernelFiles,
    kernel: &str,
    records: &RecordSet,
) -> Result<MeasuredView, MeasuredError> {
    let read = |ext: &str| {
        kernels
            .read(kernel, ext)
            .map_err(|error| MeasuredError::Kernel {
                kernel: kernel.to_owned(),
                path: kernels.path(kernel, ext),
                error,
            })
    };
    let (source, manifest_bytes) = (read("cu")?, read("yaml")?);
    let manifest_path = kernels.path(kernel, "yaml");
    let text = String::from_utf8_lossy(&manifest_bytes);
    let manifest = Manifest::parse(&manifest_path, &text)?;
    // A course header that cannot be read is reported by the check stage; staleness then
    // judges by the built-in one.
    let header = contract::header(kernels).unwrap_or_else(|_| contract::HEADER.as_bytes().into());
    let k = Kernel {
        name: kernel,
        manifest: &manifest,
        source: &source,
        manifest_bytes: &manifest_bytes,
        header: &header,
    };
    Ok(view(k, records.for_kernel(kernel)))
}

impl MeasuredView {
    /// What the page says when the entry is written against compute capability `entry_cc`
    /// and a record comes from another: that the model's geometry is the same for both (one
    /// sentence per other CC), or an error when it is not, since the table would then not
    /// show what the entry describes.
    pub(crate) fn cc_note(&self, entry_cc: &str) -> Result<String, String> {
        let mut others: Vec<&str> = self
            .devices
            .iter()
            .map(|d| d.record.device.compute_capability.as_str())
            .filter(|cc| *cc != entry_cc)
            .collect();
        others.sort_unstable();
        others.dedup();
        let Some(model) = self.devices.first().map(|d| d.model) else {
            return Ok(String::new());
        };
        let mut sentences = Vec::new();
        for cc in others {
            match model {
                AccessKind::Shared => {
                    // An unknown `cc` is reported by the front-matter check.
                    let Some(want) = bank_model::geometry(entry_cc) else {
                        return Ok(String::new());
                    };
                    let Some(got) = bank_model::geometry(cc) else {
                        return Err(format!(
                            "the record of `{}` is from compute capability {cc}, which the bank \
                             model does not know; it cannot say the table holds for {entry_cc}",
                            self.kernel
                        ));
                    };
                    if want != got {
                        return Err(format!(
                            "this entry is written against compute capability {entry_cc}, but the \
                             table of `{}` was measured on {cc}, whose bank geometry differs \
                             ({} banks of {} bytes against {} of {}): measure on a {entry_cc} GPU",
                            self.kernel,
                            got.banks(),
                            got.word_bytes(),
                            want.banks(),
                            want.word_bytes()
                        ));
                    }
                    sentences.push(format!(
                        "This entry is written against compute capability {entry_cc}; the table \
                         was measured on {cc}. The bank model’s geometry, {} banks of {} bytes, \
                         is the same for both, so the rows show what the entry describes.",
                        want.banks(),
                        want.word_bytes()
                    ));
                }
                AccessKind::Global => sentences.push(format!(
                    "This entry is written against compute capability {entry_cc}; the table was \
                     measured on {cc}. The coalescing model’s {}-byte sectors and {}-byte lines \
                     are the same for both, so the rows show what the entry describes.",
                    crate::bank::coalescing::SECTOR_BYTES,
                    crate::bank::coalescing::LINE_BYTES
                )),
                AccessKind::Branch => sentences.push(format!(
                    "This entry is written against compute capability {entry_cc}; the table was \
                     measured on {cc}. The divergence model’s warp of {} lanes, one pass per \
                     path, is the same for both, so the rows show what the entry describes.",
                    crate::bank::divergence::LANES
                )),
            }
        }
        Ok(sentences.join(" "))
    }
}

fn device_view(kernel: Kernel<'_>, loaded: &Loaded) -> DeviceView {
    let (m, r) = (kernel.manifest, &loaded.record);
    let sweep = table::sweep_rows(m, r);
    let rows = m
        .table
        .rows
        .iter()
        .filter_map(|label| sweep.iter().find(|v| &v.label == label).cloned())
        .collect();
    let mut warnings: Vec<String> = sweep
        .iter()
        .filter(|v| !v.warning.is_empty())
        .map(|v| v.warning.clone())
        .collect();
    let missing_rows: Vec<String> = (m.table.rows.iter())
        .filter(|l| !sweep.iter().any(|v| &v.label == *l))
        .cloned()
        .collect();
    for missing in &missing_rows {
        warnings.push(format!(
            "the record on {} has no row `{missing}`: the manifest changed since; re-measure",
            r.device.name
        ));
    }
    let best_fraction_of_limit = r
        .rows
        .iter()
        .map(|row| {
            let efficiency =
                (sweep.iter().find(|v| v.label == row.label)).map_or(1.0, |v| v.efficiency);
            fraction_of_limit(m.kind(), r, row, efficiency)
        })
        .fold(0.0, f64::max);
    let (stale, stale_note) = staleness(kernel, loaded);
    let unsettled = sweep
        .iter()
        .filter(|v| !v.converged)
        .map(|v| {
            format!(
                "row `{}` on {} did not settle: its samples spread ±{:.2}%, more than the \
                 manifest's target of {:.2}%; re-measure on a quiet GPU",
                v.label,
                r.device.name,
                v.rel_stdev * 100.0,
                r.run.target_rel_stdev * 100.0
            )
        })
        .collect();
    DeviceView {
        slug: r.device.slug.clone(),
        name: r.device.name.clone(),
        sentence: table::sentence(r, &m.summary),
        provenance: table::provenance(loaded),
        stale,
        stale_note,
        warnings,
        noise: r.run.noise.clone(),
        unsettled,
        gpus: 1,
        model: m.kind(),
        rows,
        sweep,
        best_fraction_of_limit,
        record: r.clone(),
        sources: vec![loaded.clone()],
        missing_rows,
    }
}

/// A row's bandwidth over the hardware limit of its model. Shared memory: SMs × bytes per
/// clock × the SM clock read during that row (the record's clock if the row has none).
/// Device memory: the bytes fetched (useful bytes over the model's `efficiency`, useful
/// over fetched) over the driver's peak, 2 × memory clock × bus width. Divergent paths move
/// next to no memory: 0 (the `limit` binding refuses them).
pub(crate) fn fraction_of_limit(kind: AccessKind, r: &Record, row: &Row, efficiency: f64) -> f64 {
    let d = &r.device;
    if kind == AccessKind::Branch {
        return 0.0;
    }
    if kind == AccessKind::Global {
        let fetched = if efficiency > 0.0 {
            row.bandwidth_gb_s / efficiency
        } else {
            0.0
        };
        return d
            .dram_peak_gb_s
            .filter(|p| *p > 0.0)
            .map_or(0.0, |p| fetched / p);
    }
    let mhz = if row.sm_clock_mhz > 0.0 {
        row.sm_clock_mhz
    } else {
        d.sm_clock_mhz
    };
    let limit_gb_s =
        f64::from(d.sm_count) * f64::from(d.shared_bytes_per_clock_per_sm) * mhz / 1000.0;
    if limit_gb_s > 0.0 {
        row.bandwidth_gb_s / limit_gb_s
    } else {
        0.0
    }
}

fn staleness(kernel: Kernel<'_>, loaded: &Loaded) -> (bool, String) {
    match (loaded.record).freshness(kernel.source, kernel.manifest_bytes, kernel.header) {
        Freshness::Fresh => (false, String::new()),
        Freshness::Stale {
            source_changed,
            manifest_changed,
            header_changed,
        } => {
            let stale = crate::measurement::record::StaleRecord {
                kernel: kernel.name.to_owned(),
                path: loaded.path.clone(),
                source_changed,
                manifest_changed,
                header_changed,
            };
            (true, stale.to_string())
        }
    }
}

#[cfg(test)]
pub(crate) mod tests;
